"""The rivers' markers looked for in the frame (vision/readers/drift_reader.py): the tags in a crop
round a step position, and the quick look at a ring's two markers (issue 32: on a Pi Zero 2 W's
budget, a read's ring markers cost 4-9 ms of CPU looked for at every step position)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.sheets.annuli import Ring

from .drift_tags import detect_outlined


def detect_in(detector: object, grey: np.ndarray, quad_px: np.ndarray, upscale: int = 1,
              min_px: float = 0.0) -> list[tuple[int, np.ndarray]]:
    """Tags in the frame inside ``quad_px``'s bounding box (the crop enlarged ``upscale``
    times for the detector): (id, corners in frame pixels); ``min_px``: the shortest outline
    looked at, in frame pixels (drift_tags.detect_outlined)."""
    x0, y0 = np.maximum(np.floor(quad_px.min(axis=0)).astype(int), 0)
    x1, y1 = np.ceil(quad_px.max(axis=0)).astype(int) + 1
    x1, y1 = min(grey.shape[1], x1), min(grey.shape[0], y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    crop = grey[y0:y1, x0:x1]
    if upscale > 1:
        crop = cv2.resize(crop, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
    return [(tag, (corners + 0.5) / upscale - 0.5 + np.float32([x0, y0]))
            for tag, corners in detect_outlined(detector, crop, min_px * upscale)]  # type: ignore[arg-type]


def quick_step(ring: Ring, mine: np.ndarray, contrast_min: float,
               tags_at: Callable[[int], list[tuple[int, np.ndarray]]],
               step_of: Callable[[Ring, int, np.ndarray], tuple[int, str]]) -> int | None:
    """The ring's step when both its markers are read at once at the two opposite step
    positions that show the most contrast (``mine``, each at least ``contrast_min``; the
    markers show 0.3-0.5) — ``tags_at(k)``: the tags found at position ``k`` (sheet mm corners),
    one threshold window — each alone there, both the ring's own and on one step (``step_of``);
    else None, and the full look at every step position decides. Two markers agreeing is what
    the full look trusts over anything else at the ring's step positions (a hand, a coin by one);
    only a third marker, or another ring's, at one of its other step positions goes unseen (a real
    ring has one of each). Nothing is carried from the last read."""
    if ring.opposite_tag is None:
        return None
    half_n = ring.n // 2
    pairs = [(k, (k + half_n) % ring.n) for k in range(half_n)
             if mine[k] >= contrast_min and mine[(k + half_n) % ring.n] >= contrast_min]
    if not pairs:
        return None
    steps, tags = set(), []
    for k in max(pairs, key=lambda p: min(mine[p[0]], mine[p[1]])):
        found = tags_at(k)
        if len(found) != 1:
            return None
        tag, mm = found[0]
        step, bad = step_of(ring, tag, mm)
        if bad:
            return None
        steps.add(step)
        tags.append(tag)
    return steps.pop() if len(steps) == 1 and sorted(tags) == sorted(ring.tags) else None
