"""A camera knocked while it films: the shelf or clamp it stands on is bumped, the camera sways
and comes to rest turned a little from where it was — or a hand covers its lens for a moment and
leaves it turned. Applied to any capture's frames (a path-traced film, the camera model's), so
that the lock's bump and loss rules meet what a real table does to a camera.

A camera that turns about its own centre sees the same scene through a homography,
``K R K⁻¹`` (no parallax: the lens's centre does not move), so turning a film's frames by it is
what a turned camera would have filmed — exactly for a lens without distortion (the Camera
Module 3 standard lens of the path-traced films), up to the frame's edge, which is filled by
reflection (the board lies well inside it). The frame is turned after the camera developed it:
its noise and JPEG blocks are resampled with it, a little softer than a camera's own. While the
camera sways, a frame is the mean of its exposure's turns (motion blur).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.camera.capture import Capture, CapturedFrame


@dataclass(frozen=True)
class Knock:
    """At ``at`` seconds the camera is knocked: it sways ``sway_deg`` at ``sway_hz`` along the
    knock, dying away with time constant ``decay_s``, and rests turned ``yaw_deg`` (about the
    picture's vertical), ``pitch_deg`` (its horizontal) and ``roll_deg`` (its axis) from where it
    was. ``covered_s``: a hand over the lens for that long from ``at`` (the frames dark and
    formless), the camera turned when it is taken away."""

    at: float
    yaw_deg: float
    pitch_deg: float
    roll_deg: float = 0.0
    sway_deg: float = 1.0
    sway_hz: float = 6.0
    decay_s: float = 0.15
    covered_s: float = 0.0

    def __post_init__(self) -> None:
        if self.decay_s <= 0 or self.sway_hz <= 0 or self.covered_s < 0:
            raise ValueError(f"Knock: decay_s and sway_hz must be positive, covered_s not negative: {self!r}")

    def turn(self, t: float) -> np.ndarray:
        """(yaw, pitch, roll) in degrees at film time ``t`` (none before the knock)."""
        if t < self.at:
            return np.zeros(3)
        rest = np.array([self.yaw_deg, self.pitch_deg, self.roll_deg])
        if t < self.at + self.covered_s:
            return rest  # (unseen under the hand)
        s = t - self.at - self.covered_s
        along = rest / max(float(np.linalg.norm(rest)), 1e-9)
        return rest + along * self.sway_deg * math.exp(-s / self.decay_s) * math.sin(2 * math.pi * self.sway_hz * s)

    def covers(self, t: float) -> bool:
        return self.at <= t < self.at + self.covered_s


def table_knocks(leaves: Sequence[float]) -> list[Knock]:
    """The camera knocked as a table knocks it in a film whose moves' arms leave at ``leaves``
    (film seconds): its shelf bumped two-thirds of a second after the first move's arm left (once
    that move is decided: it sways 1° and rests turned 0.8° across, 0.5° down, 0.3° about its axis
    — some 16 px at 1280x720 through a 66° lens); the table knocked as the last move's arm
    withdraws, before that move is decided (it sways 1.5° and rests 1.2° across, 0.8° up, 0.4°
    about its axis: some 25 px); and, in a film of three moves or more, a hand over the lens for
    a second two-thirds of a second after the second move's arm left, the camera turned back a
    little when it goes."""
    if not leaves:
        return []
    knocks = [Knock(leaves[0] + 0.67, 0.8, -0.5, 0.3),
              Knock(leaves[-1] - 0.17, -1.2, 0.8, -0.4, sway_deg=1.5)]
    if len(leaves) > 2:
        knocks.append(Knock(leaves[1] + 0.67, -0.4, 0.3, 0.0, sway_deg=0.5, covered_s=1.0))
    return knocks


def intrinsics(size: tuple[int, int], hfov_deg: float) -> np.ndarray:
    """A lens without distortion: its focal length in pixels from the horizontal field of view,
    its centre the picture's."""
    w, h = size
    f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])


def turn_homography(K: np.ndarray, yaw_deg: float, pitch_deg: float, roll_deg: float) -> np.ndarray:
    """Where a point of the still camera's picture lies in the turned camera's: ``K R K⁻¹``."""
    R, _ = cv2.Rodrigues(np.radians([pitch_deg, yaw_deg, roll_deg]).astype(np.float64))
    return K @ R @ np.linalg.inv(K)


class KnockedCapture:
    """``inner``'s frames as a camera knocked by ``knocks`` films them (a :class:`Capture`).
    ``hfov_deg``: the lens's horizontal field of view; ``exposure_s``: how long each frame's
    exposure lasts (its motion blur while the camera sways)."""

    def __init__(self, inner: Capture, knocks: Sequence[Knock], *, hfov_deg: float, exposure_s: float = 1 / 30,
                 blur_steps: int = 5, seed: int = 0) -> None:
        self.inner = inner
        self.knocks = tuple(sorted(knocks, key=lambda k: k.at))
        self.hfov_deg = float(hfov_deg)
        self.exposure_s = float(exposure_s)
        self.blur_steps = max(1, int(blur_steps))
        self.name = f"knocked:{getattr(inner, 'name', 'capture')}"
        self._rng = np.random.default_rng(seed)

    def start(self) -> None:
        self.inner.start()

    def close(self) -> None:
        self.inner.close()

    @property
    def takes_exposure_value(self) -> bool:
        return bool(getattr(self.inner, "takes_exposure_value", False))

    def set_exposure_value(self, ev: float) -> bool:
        """The camera's own exposure compensation (a knock does not change it)."""
        setter = getattr(self.inner, "set_exposure_value", None)
        return bool(setter(ev)) if setter is not None else False

    def frames(self) -> Iterator[CapturedFrame]:
        """Every frame until the source ends."""
        while (f := self.read()) is not None:
            yield f

    def turn(self, t: float) -> np.ndarray:
        """The camera's turn at ``t``: every knock so far, each on top of the last."""
        return sum((k.turn(t) for k in self.knocks), np.zeros(3))

    def read(self) -> CapturedFrame | None:
        got = self.inner.read()
        if got is None:
            return None
        img, t = got.image, got.t
        if any(k.covers(t) for k in self.knocks):
            return CapturedFrame(self._covered(img), t)
        times = np.linspace(t - self.exposure_s, t, self.blur_steps) if self.blur_steps > 1 else [t]
        turns = [self.turn(float(s)) for s in times]
        if all(not np.any(r) for r in turns):
            return got
        h, w = img.shape[:2]
        K = intrinsics((w, h), self.hfov_deg)
        acc = np.zeros(img.shape, np.float32)
        for r in turns:
            acc += cv2.warpPerspective(img, turn_homography(K, *r), (w, h), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REFLECT)
        return CapturedFrame(np.clip(acc / len(turns) + 0.5, 0, 255).astype(np.uint8), t)

    def _covered(self, img: np.ndarray) -> np.ndarray:
        """A palm on the lens: far out of focus, lit through the fingers — dark skin, formless,
        with the sensor's noise."""
        h, w = img.shape[:2]
        skin = np.array([60, 75, 110], np.float32) * 0.35  # BGR, in shade
        shade = cv2.GaussianBlur(self._rng.random((h // 16 + 1, w // 16 + 1)).astype(np.float32), (0, 0), 3)
        shade = cv2.resize(shade, (w, h))[..., None]
        out = skin * (0.7 + 0.6 * shade) + self._rng.normal(0, 3.0, img.shape).astype(np.float32)
        return np.clip(out, 0, 255).astype(np.uint8)
