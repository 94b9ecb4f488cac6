"""What a camera module does to the light the path tracer rendered (numpy and OpenCV only).

The renderer gives linear RGB radiance with no noise but its own Monte Carlo grain. A Camera
Module 3 then: sets its exposure so the frame's centre-weighted mean brightness hits a target
(libcamera's AGC aims at a mean luminance, its default metering centre-weighted; a lamp's
highlight on metal clips), turns light into electrons with
Poisson (photon) noise and adds read noise, balances white on what looks like paper (grey world
on the brighter half of the frame: the sheet), applies a display gamma and compresses to JPEG.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Sensor:
    """One frame's development; ``full_e``: electrons at full scale after the analog gain
    (a 1.4 µm pixel binned 2×2 holds about 18 000 e-, and the 1280×720 frame averages about
    three binned pixels; a kitchen's light calls for analog gain 4–16)."""

    ae_target: float = 0.18  # centre-weighted mean linear luminance the exposure aims at
    full_e: float = 6000.0
    read_e: float = 3.0  # read noise, electrons RMS
    jpeg: int | None = 85
    awb: bool = True
    ev: float = 0.0  # exposure compensation (libcamera's ExposureValue): the target times 2**ev

    def __post_init__(self) -> None:
        if not 0 < self.ae_target < 1:
            raise ValueError(f"Sensor.ae_target: a mean brightness in (0, 1), got {self.ae_target}")
        if self.full_e <= 0 or self.read_e < 0:
            raise ValueError(f"Sensor: full_e > 0 and read_e >= 0, got {self.full_e}, {self.read_e}")


LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)  # linear RGB → luminance (Rec. 709)


def random_sensor(rng: np.random.Generator) -> Sensor:
    """A frame's exposure and noise as a room's light varies them."""
    return Sensor(ae_target=float(rng.uniform(0.16, 0.22)), full_e=float(rng.uniform(3000, 12000)),
                  read_e=float(rng.uniform(2.0, 4.0)), jpeg=int(rng.integers(75, 91)))


def develop(linear_rgb: np.ndarray, sensor: Sensor, rng: np.random.Generator) -> np.ndarray:
    """A camera frame (uint8 BGR, as OpenCV reads one) of the renderer's linear RGB (H, W, 3)."""
    img = np.nan_to_num(np.asarray(linear_rgb, np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    img = np.maximum(img, 0.0)
    y = img @ LUMA
    w = _centre_weights(y.shape)
    mean = float((y * w).sum() / w.sum())
    img *= sensor.ae_target * 2.0 ** sensor.ev / max(mean, 1e-6)
    # photons → electrons: Poisson; then read noise; then clipped at full scale
    e = rng.poisson(np.minimum(img, 4.0) * sensor.full_e).astype(np.float32)
    e += rng.normal(0.0, sensor.read_e, e.shape).astype(np.float32)
    img = np.clip(e / sensor.full_e, 0.0, 1.0)
    if sensor.awb:
        img = white_balance(img)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    out = cv2.cvtColor((np.clip(srgb, 0, 1) * 255 + 0.5).astype(np.uint8), cv2.COLOR_RGB2BGR)
    if sensor.jpeg is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(sensor.jpeg)])
        if not ok:
            raise RuntimeError("OpenCV could not JPEG-encode the frame")
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _centre_weights(shape: tuple[int, ...]) -> np.ndarray:
    """libcamera's centre-weighted metering: the middle of the frame counts three times the
    edges (where the table is when the sheet fills 40 % of the frame)."""
    h, w = shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xs - w / 2) / (0.3 * w)) ** 2 + ((ys - h / 2) / (0.3 * h)) ** 2
    return 1.0 + 2.0 * np.exp(-r2 / 2)


def white_balance(img: np.ndarray) -> np.ndarray:
    """Grey world on the brighter half of the unclipped pixels (mostly the white sheet): the
    warm desk lamp and the daylight window then both give a near-neutral paper."""
    y = img @ LUMA
    ok = (img.max(axis=2) < 0.98) & (y >= np.quantile(y, 0.5))
    if ok.sum() < 100:
        return img
    means = img[ok].mean(axis=0)
    gains = means.mean() / np.maximum(means, 1e-6)
    return np.clip(img * gains.astype(np.float32), 0.0, 1.0)

