"""A lens's distortion on the path tracer's pinhole frame (numpy and OpenCV only).

Mitsuba's thin-lens camera has depth of field but no distortion, and a Camera Module 3 wide's
lens bends straight lines. Distortion only moves where a ray lands on the sensor, so it is
applied to the rendered light before the sensor (:mod:`.sensor`): each frame pixel takes the
light of the ray it sees through the lens's Brown-Conrady model (``cv2.undistortPoints`` of its
own position), sampled from the pinhole render. Under barrel distortion the frame's corners see
rays outside the render; they take its nearest edge (the table, never the sheet at the fills
benched here).
"""

from __future__ import annotations

import cv2
import numpy as np


def through_lens(linear: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """``linear`` (H, W, C) rendered through a pinhole of intrinsics ``K``, as the same camera
    with distortion ``dist`` (k1, k2, p1, p2[, k3]) gives it."""
    dist = np.asarray(dist, np.float64)
    if not np.any(dist):
        return linear
    h, w = linear.shape[:2]
    # the map is smooth: solved on every 4th pixel, then scaled up
    gy, gx = np.mgrid[0:h + 4:4, 0:w + 4:4].astype(np.float32)
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-7)
    ideal = cv2.undistortPoints(pts, K, dist, R=None, P=K, criteria=crit).reshape(gx.shape + (2,)).astype(np.float32)
    big = cv2.resize(ideal, (gx.shape[1] * 4, gx.shape[0] * 4), interpolation=cv2.INTER_LINEAR)
    # the enlarged map's pixel x holds the ray of frame pixel x - 1.5 (resize's half-pixel
    # centres): frame pixel x reads it at x + 1.5
    M = np.float32([[1, 0, 1.5], [0, 1, 1.5]])
    big = cv2.warpAffine(big, M, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_REPLICATE)
    return cv2.remap(np.ascontiguousarray(linear, np.float32), big[..., 0], big[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)
