"""Piece colours told apart by hue, against the paper's own white (Anacund's discs, Annelids'
bars).

A lamp off to one side lights a piece's top face, its sides and the paper differently, and a
camera's exposure drifts: a colour's *brightness* and its distance in BGR change a lot from
frame to frame (a blue disc 75 or 118 in the blue channel), its *hue* hardly at all. And a
small piece seen at a few pixels across (a 4 mm bar at 720p is under 4 px) is blurred with the
paper round it and, in a JPEG, its colour smeared over twice its width: mixing with grey paper
lowers a colour's saturation but leaves its hue. So each pixel is first white-balanced by the
paper next to its space (the light now, relative to the empty board's, times the empty board's
paper there: paper reads (1, 1, 1) whatever the lamp's colour), then seen as

* ``L``: its brightness relative to the paper;
* its chromaticity in opponent axes, ``c1 = (R − G)/√2``, ``c2 = (R + G − 2B)/√6`` over ``L``:
  the *hue* is the angle, the *saturation* the length (grey paper, ink and shadow: ≈ 0).

A pixel votes for a colour when its hue is within that colour's tolerance (learned: under half
the angle to the nearest other colour, at most :data:`HUE_TOL_MAX`) and it is at least
:data:`SAT_MIN_SHARE` as saturated as that colour was at calibration. The reader then asks
that nearly every coloured pixel of a space's core votes for one colour and almost none for
another. Nothing here is tuned to a renderer's paint: the colours, their saturation and their
spread come from the calibration frames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

HUE_TOL_MAX = math.radians(35.0)  # a colour's hue never spans more than this either side
HUE_GAP_SHARE = 0.45  # ... nor reaches this share of the way to the next colour's hue
SAT_MIN_SHARE = 0.45  # a pixel counts as coloured at this share of its colour's saturation
SAT_FLOOR = 0.12  # below this any pixel is grey: paper, ink, a shadow (sensor noise ≈ 0.03)
DARK_FLOOR = 0.06  # darker than this share of the paper: no hue to speak of (a dark band)


def opponent(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """White-balanced BGR values (N, 3; paper ≈ 1) → (hue radians, saturation, brightness)."""
    b, g, r = v[:, 0], v[:, 1], v[:, 2]
    lum = (r + g + b) / 3
    c1 = (r - g) * (1 / math.sqrt(2))
    c2 = (r + g - 2 * b) * (1 / math.sqrt(6))
    safe = np.maximum(lum, 1e-3)
    return np.arctan2(c2, c1), np.hypot(c1, c2) / safe, lum


def hue_gap(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """The angle between hues ``a`` and ``b`` (radians, 0…π)."""
    return np.abs((np.asarray(a) - b + math.pi) % (2 * math.pi) - math.pi)


@dataclass(frozen=True)
class HueClass:
    name: str
    hue: float  # radians
    sat: float  # its saturation at calibration (the median of its pixels)
    tol: float  # hue tolerance either side (radians)


def hue_classes(names: list[str], means: np.ndarray, white: np.ndarray) -> tuple[HueClass, ...]:
    """The calibration's colours (``means``: K×3 BGR in the calibration's light; ``white``: the
    calibration's paper, 3) as hues, each with its tolerance: under :data:`HUE_GAP_SHARE` of the
    way to the nearest other colour, at most :data:`HUE_TOL_MAX`."""
    hue, sat, _ = opponent(np.asarray(means, np.float64).reshape(-1, 3) / np.maximum(white, 1.0))
    out = []
    for k, name in enumerate(names):
        gaps = [float(hue_gap(hue[k], hue[j])) for j in range(len(names)) if j != k]
        tol = min(HUE_TOL_MAX, HUE_GAP_SHARE * min(gaps, default=2 * math.pi))
        out.append(HueClass(name, float(hue[k]), float(sat[k]), tol))
    return tuple(out)


def votes(v: np.ndarray, classes: tuple[HueClass, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel (white-balanced ``v``, N×3): the colour it votes for (−1: none) and its
    saturation."""
    hue, sat, lum = opponent(v)
    coloured = (sat >= SAT_FLOOR) & (lum >= DARK_FLOOR)
    out = np.full(len(v), -1, np.int64)
    for k, c in enumerate(classes):
        ok = coloured & (hue_gap(hue, c.hue) <= c.tol) & (sat >= max(SAT_FLOOR, SAT_MIN_SHARE * c.sat))
        out[ok & (out < 0)] = k
    return out, sat


def paper_white(probe_ref: np.ndarray) -> np.ndarray:
    """The empty board's paper as a whole (the median of its probes, BGR): the white the
    learned colours are stored against."""
    return np.median(np.asarray(probe_ref, np.float32).reshape(-1, 3), axis=0)
