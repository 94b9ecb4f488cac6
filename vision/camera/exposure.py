"""Exposure metered on the sheet, not on the room (pure: the frame and the time are passed in).

A camera's auto exposure aims the frame's mean brightness (libcamera: centre-weighted) at a
target. When the sheet fills little of the frame and the table round it is dark, that mean is
mostly table: the exposure rises until the white paper clips, and a clipped paper shows no
shadow, no sticker's edge, no colour — every space on it reads "glare or shadow" (measured on
the path-traced bench: Anacund's strip sheet at 40 % framing, 0 of 4 frames usable).

The fix a photographer makes is exposure compensation, and libcamera has it: ``ExposureValue``
scales the auto exposure's target by 2**EV and the auto exposure keeps following the room's
light. :class:`SheetExposure` chooses it from the locked sheet's paper: it steps down while the
paper clips, up while it is too dark to see ink on, and otherwise leaves it alone (the
calibration was taken at that exposure; a change the reader did not need is a risk it does
not have to take). The paper's level is measured where the sheet is, through the lock's
homography: the paper is most of a printed sheet, so a high percentile of its samples is the
paper, whatever is printed or put on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.sheets.layout import Sheet

CLIPPED = 250  # an 8-bit level at which a pixel is taken as clipped (JPEG rounds 255 down a little)
PAPER_QUANTILE = 0.8  # the paper is most of the sheet: its 80th percentile is paper, not ink or a piece
# Measured on the committed path-traced frames with the plain auto exposure (the brightest
# channel's 80th percentile, 8 bits): 163-235 on every row, at most 0.6 % of the sheet's samples
# clipped; Anacund's strip at 40 % framing 247, 15 % clipped in blue under the desk lamp (its
# frames unusable). The rules below leave the first alone and act on the second.
PAPER_TARGET = 200.0  # where a step up aims the paper
PAPER_DARK = 90.0  # paper under this: ink and shadow are lost in the sensor's noise
HOT_SHARE = 0.02  # a lamp's hot spot: this share of the sheet clipped in a channel calls for half a stop


@dataclass(frozen=True)
class PaperLevel:
    """The sheet's paper in one frame, in its brightest channel (the one that clips first: a
    white balance set on a warm table leaves the paper blue): ``white`` its 80th-percentile
    level (0-255), ``clipped`` the share of the sheet's samples at or above :data:`CLIPPED`."""

    white: float
    clipped: float

    @property
    def is_clipped(self) -> bool:
        return self.white >= CLIPPED or self.clipped > 0.25

    @property
    def is_hot(self) -> bool:
        """Part of the paper clips (under a lamp) although most of it does not."""
        return self.clipped > HOT_SHARE

    @property
    def is_dark(self) -> bool:
        return self.white < PAPER_DARK


def paper_level(frame: np.ndarray, H: np.ndarray, sheet: Sheet, *, across: int = 40) -> PaperLevel | None:
    """The paper's level on ``frame`` (8-bit BGR, or grey) where the sheet lies (``H``: sheet mm → frame px),
    from a grid of ``across`` × about ``across * height / width`` samples inside the sheet's
    markers' margin. None when too little of the sheet is in the frame to say."""
    w, h = sheet.size
    if w <= 0 or h <= 0:
        return None
    down = max(2, round(across * h / w))
    inset = sheet.marker_mm  # the corner markers' band is black ink, not paper
    xs, ys = np.meshgrid(np.linspace(inset, w - inset, across), np.linspace(inset, h - inset, down))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2).astype(np.float32)
    px = cv2.perspectiveTransform(pts, np.asarray(H, np.float64)).reshape(-1, 2)
    px = np.round(px).astype(np.int64)
    inside = (px[:, 0] >= 0) & (px[:, 1] >= 0) & (px[:, 0] < frame.shape[1]) & (px[:, 1] < frame.shape[0])
    if inside.sum() < 0.5 * len(px):
        return None
    v = frame[px[inside, 1], px[inside, 0]].astype(np.float32)
    if v.ndim == 2:  # colour: the brightest channel of each sample
        v = v.max(axis=1)
    return PaperLevel(float(np.quantile(v, PAPER_QUANTILE)), float((v >= CLIPPED).mean()))


class SheetExposure:
    """Exposure compensation (EV) chosen from the paper's level, frame after frame.

    ``update(level, t)`` returns the EV to ask the camera for, or None to leave it. After a
    change it waits ``settle`` seconds (the auto exposure converging) before judging again. A
    clipped paper says only that it is too bright, not by how much, so it steps down by ``step``
    (half of it for a hot spot: a few per cent of the paper clipped); a dark one steps up by what
    brings it to :data:`PAPER_TARGET` (at most ``step``). Nothing between steps it back: a
    paper half a stop darker than it could be reads as well. ``ev`` stays within ``low``..``high``: libcamera's range is wider, but past 2 stops down a
    room's own highlights decide nothing about the sheet."""

    def __init__(self, *, ev: float = 0.0, step: float = 1.0, settle: float = 1.0,
                 low: float = -2.0, high: float = 1.0) -> None:
        if not low <= ev <= high or step <= 0 or settle < 0:
            raise ValueError(f"SheetExposure: low <= ev <= high, step > 0, settle >= 0; "
                             f"got {low}, {ev}, {high}, {step}, {settle}")
        self.ev, self.step, self.settle, self.low, self.high = float(ev), float(step), float(settle), low, high
        self._changed_at: float | None = None

    @classmethod
    def resumed(cls, ev: float) -> "SheetExposure":
        """A meter starting at ``ev`` (the calibration's: what the board was learned at), held
        within the range a meter keeps."""
        meter = cls()
        return cls(ev=min(max(float(ev), meter.low), meter.high))

    def update(self, level: PaperLevel | None, t: float) -> float | None:
        if level is None or (self._changed_at is not None and t - self._changed_at < self.settle):
            return None
        if level.is_clipped:
            ev = max(self.low, self.ev - self.step)
        elif level.is_hot:
            ev = max(self.low, self.ev - self.step / 2)
        elif level.is_dark:  # 8-bit levels are gamma-encoded: a ratio r of them is r**2.2 of light
            ev = min(self.high, self.ev + min(self.step, 2.2 * math.log2(PAPER_TARGET / max(level.white, 1.0))))
        else:
            return None
        if abs(ev - self.ev) < 1e-6:
            return None
        self.ev, self._changed_at = ev, t
        return ev


def metered_ev(develop: Callable[[float], np.ndarray], H: np.ndarray, sheet: Sheet, *, rounds: int = 4,
               start: float = 0.0) -> float:
    """The EV :class:`SheetExposure` settles on for a still scene, ``develop(ev)`` giving the
    camera's 8-bit BGR frame at that compensation: what the service reaches on the set-up page
    before a calibration (``start`` 0), or while reading a still board from the EV it was at
    (``start``), for a bench that develops its frames itself."""
    meter = SheetExposure.resumed(start)
    for k in range(rounds):
        level = paper_level(develop(meter.ev), H, sheet)
        if meter.update(level, float(k) * (meter.settle + 1.0)) is None:
            break
    return meter.ev
