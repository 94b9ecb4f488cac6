"""How big the board is in the picture where it is smallest, against what the game's reader needs.

A reader tells a piece from the paper by a handful of pixels: a tag's cells, a bar 4 mm wide, a
disc's rim. Far from the camera, and along the direction the tilt squeezes, a millimetre of the
board is fewest pixels; there the reader gives up first. Four of the five readers give up
safely (the space is unreadable, not read wrong), but a board filmed too small is one whose
moves are never decided, and the newcomer who set it up sees no reason why. So the set-up says
so, with figures: :func:`board_scale` measures the smallest pixels per millimetre over the
board's spaces through the lock's pose (its lens included), and :data:`NEEDED_PX_PER_MM` is,
per game, the least the reader was measured to read from (``bench/vision_scale.py``). Annelids'
reader did not give up safely there (empty edges read as segments, a tail read empty), so it
reads no space under :data:`WRONG_BELOW_PX_PER_MM` (:func:`space_px_per_mm`, per space).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .pose import Pose, as_pose

# Pixels per millimetre (the smallest over the spaces, in any direction) from which the game's
# reader was measured to read: the lower edge of the least band of scale (0.05 px/mm) from
# which every band under 1.5 times it read >= 90 % of its camera-model frames, tilts 10-35 deg,
# framings 25-65 % (bench/vision_scale.py; the figures in docs/vision.md, "Framing and tilt").
# The path-traced bench reads at least as small: its DRIFT row at 40 % framing, 0.52 px/mm,
# read 4 of 4.
NEEDED_PX_PER_MM = {
    "gyges": 0.50,
    "anacund": 0.35,  # (no lock under it)
    "annihilation": 0.60,
    "drift": 0.65,
    "annelids": 0.60,  # and its reader reads no space under WRONG_BELOW_PX_PER_MM
}
# Below these a space was measured read wrong, not left unreadable (Annelids: an empty edge
# read as a segment, a tail read empty, at 0.43-0.58 px/mm): the reader does not read such a
# space (vision/readers/reader.py). The other games' readers were measured leaving it
# unreadable down to where the lock is lost.
WRONG_BELOW_PX_PER_MM = {"annelids": 0.60}
TAG_GAMES = ("gyges", "annihilation", "drift")  # read by a tag on each piece: the need goes with the tag's size
STEP_MM = 1.0  # the Jacobian's finite difference


@dataclass(frozen=True)
class BoardScale:
    """The board's smallest scale in the picture and the reader's need (both px per mm)."""

    px_per_mm: float
    space: str  # where it is smallest (the far edge, usually)
    needed: float | None  # None: the game's reader was not measured (an unknown game)

    @property
    def too_small(self) -> bool:
        return self.needed is not None and self.px_per_mm < self.needed

    def scaled(self, factor: float) -> "BoardScale":
        """The same board in a frame ``factor`` times as wide (the main stream of a watch frame)."""
        return BoardScale(self.px_per_mm * factor, self.space, self.needed)


def needed_px_per_mm(sheet: Any) -> float | None:
    """What ``sheet``'s game needs; an own board's tags (``sheet.tag_size``) of another size
    than the printed sheet's move it in proportion, since the tag's cells are what is read."""
    need = NEEDED_PX_PER_MM.get(sheet.game)
    if need is None or not getattr(sheet, "tag_size", 0.0) or sheet.game not in TAG_GAMES:
        return need
    from vision.sheets.layout import Sheet

    printed = Sheet.for_board(sheet.board).tag_mm
    return need * printed / sheet.tag_size


def space_px_per_mm(pose: "Pose | np.ndarray", mm: np.ndarray) -> np.ndarray:
    """The least pixels per millimetre at each board point ``mm`` (N, 2), in whichever
    direction the pose squeezes most: the least singular value of the board-to-frame map's
    Jacobian there (finite differences through the pose, its lens included)."""
    pose = as_pose(pose)
    mm = np.asarray(mm, np.float64).reshape(-1, 2)
    d = STEP_MM
    px = pose.to_px(np.concatenate([mm, mm + (d, 0.0), mm + (0.0, d)]))
    n = len(mm)
    # columns: d(px)/dx and d(px)/dy at each point -> (n, 2, 2)
    J = np.stack([(px[n:2 * n] - px[:n]) / d, (px[2 * n:] - px[:n]) / d], axis=2)
    return np.linalg.svd(J, compute_uv=False)[:, -1]


def board_scale(pose: "Pose | np.ndarray", sheet: Any) -> BoardScale:
    """The smallest pixels per millimetre at ``sheet``'s spaces' centres (an area's too)."""
    shapes = list(sheet.shapes)
    least = space_px_per_mm(pose, np.float64([(s.x, s.y) for s in shapes]))
    i = int(np.argmin(least))
    return BoardScale(float(least[i]), shapes[i].id, needed_px_per_mm(sheet))
