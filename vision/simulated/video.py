"""Rendered video of a scripted game: a board script (``tableref.sources.sim`` format) drawn
frame by frame as a camera would film it — a fixed camera with a little shake, the
script's hidden spaces under a hand — as arrays or a video file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from rules.view import View

from .synth import Effects, Pose, Renderer

VIDEO_CODECS = {".avi": "MJPG", ".mp4": "mp4v"}
# How long the players of a filmed scripted game leave each result still (render_script's
# settle_hold): the camera reacts in about a second (0.3 s still, a second read agreeing,
# then the referee's 0.6 s settle), so a pause of one second exactly is often missed.
CAMERA_PAUSE = 1.5


def script_frames(renderer: Renderer, frames: Iterable[tuple[View, frozenset[str]]], *, pose: Pose,
                  effects: Effects, seed: int = 0, shake_px: float = 0.3) -> Iterator[np.ndarray]:
    """Camera frames for a sequence of ``(view, hidden spaces)``: each hidden group is
    under a hand reaching in from the nearest side of the frame; what is under the hand is
    what was there last. The camera shakes by up to ``shake_px`` from frame to frame."""
    rng = np.random.default_rng(seed)
    shown = View()
    last: tuple[View, frozenset[str]] | None = None
    clean: np.ndarray | None = None
    for view, hidden in frames:
        if (view, hidden) != last or clean is None:
            # A new scene: draw it. While it holds, each frame is a reshoot (shake + noise).
            if hidden:
                visible = {s: t for s, t in view.items() if s not in hidden}
                visible.update({s: shown.get_tokens(s) for s in hidden if shown.get_tokens(s)})
                drawn = View(visible)
                hand = _hand_over(renderer, pose, hidden, rng)
            else:
                drawn, hand = view, None
            shown, last = drawn, (view, hidden)
            top = np.clip(renderer.top_down(drawn), 0, 255).astype(np.uint8)
            clean = renderer.frame(drawn, pose, replace(effects, hand=hand), rng, top=top, noise=False)
        yield renderer.reshoot(clean, effects, rng, shake_px)


def _hand_over(renderer: Renderer, pose: Pose, spaces: Iterable[str], rng: np.random.Generator
               ) -> tuple[float, float, float, float]:
    pts = [(renderer.sheet.by_id[s].x, renderer.sheet.by_id[s].y) for s in spaces if s in renderer.sheet.by_id]
    if not pts:
        pts = [(renderer.sheet.size[0] / 2, renderer.sheet.size[1] / 2)]
    px = cv2.perspectiveTransform(np.float32([pts]), pose.H)[0]
    cx, cy = px.mean(axis=0)
    w, h = renderer.size
    # Reach in from the nearest frame edge, so the arm crosses as little of the board as it can.
    side = int(np.argmin([cx, w - cx, cy, h - cy]))
    angle = (0.0, math.pi, math.pi / 2, -math.pi / 2)[side] + rng.uniform(-0.3, 0.3)
    spread = float(np.ptp(px, axis=0).max()) if len(px) > 1 else 0.0
    return float(cx), float(cy), angle, max(90.0, spread * 1.4)


def write_video(path: str | Path, frames: Iterable[np.ndarray], fps: float) -> int:
    """Write frames to ``.avi`` (MJPG) or ``.mp4`` (mp4v); returns how many were written."""
    path = Path(path)
    codec = VIDEO_CODECS.get(path.suffix.lower())
    if codec is None:
        raise ValueError(f"{path}: video files must end in {' or '.join(VIDEO_CODECS)}")
    writer = None
    n = 0
    try:
        for img in frames:
            if writer is None:
                h, w = img.shape[:2]
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*codec), fps, (w, h))
                if not writer.isOpened():
                    raise OSError(f"{path}: OpenCV cannot write {codec} video here")
            writer.write(img)
            n += 1
    finally:
        if writer is not None:
            writer.release()
    return n
