"""Converging the path tracer's low-sample frames, as production renderers' denoisers do.

At 16 samples a pixel the light that reaches the paper by way of a metal ring (a caustic) and the
soft edges of the area lights' shadows come as glitter: a few very bright samples that only
thousands of samples average into the smooth glow a camera sees. Where the surface is diffuse
and faces up (the paper, the stickers' tops) the frame is split into albedo (the texture: noise
free, its edges sharp) and the light falling there; the light is smoothed with weights that stop
at a change of depth or normal (the sheet and a sticker 12 mm above it are never mixed), then
multiplied back. Elsewhere (the pieces' sides) fireflies are removed and the rest smoothed the
same way among pixels of its own normal and depth. On a crop of a Gygès frame, against a
1024-sample render of it: mean |Δ| 8.5 → 4.5 grey levels; on a crop of stepped rings without
stickers, the metal sides' 18.8 → 10.3 (an Annihilation crop's 14.5 → 12.2).
"""

from __future__ import annotations

import cv2
import numpy as np

LUMA = np.array([0.2126, 0.7152, 0.0722], np.float32)
ALBEDO_STEP = 0.1  # two pixels' albedos this far apart (a channel) are two materials: never mixed
ALBEDO_FLOOR = 0.1  # a channel this dark is smoothed as radiance, not as light times albedo


def despeckle(img: np.ndarray, ratio: float = 2.5) -> np.ndarray:
    """A pixel brighter than ``ratio`` × its 3×3 median (plus a floor) takes the median: a
    firefly is one pixel (the film's box filter), a highlight on metal spans many and stays."""
    img = np.ascontiguousarray(img, np.float32)
    med = cv2.medianBlur(img, 3)
    y, ym = img @ LUMA, med @ LUMA
    spot = y > ratio * ym + 0.02 * float(np.median(ym))
    out = img.copy()
    out[spot] = med[spot]
    return out


def denoise(channels: np.ndarray, sigma_px: float = 2.5, sigma_mm: float = 3.0, radius: int = 4) -> np.ndarray:
    """Linear RGB (H, W, 3) from the renderer's channels (H, W, 10): RGB, albedo, shading
    normal, depth (mm) — :func:`vision.simulated.pathtraced.scene.render_channels`."""
    ch = np.asarray(channels, np.float32)
    rgb, albedo, normal, depth = ch[..., :3], ch[..., 3:6], ch[..., 6:9], ch[..., 9]
    # A pixel on a silhouette averages two faces' normals into a shorter vector: compared
    # unnormalised, it matched no neighbour, itself included, and came out black.
    normal = normal / np.maximum(np.linalg.norm(normal, axis=2, keepdims=True), 1e-6)
    flat = (albedo.mean(axis=2) > 0.02) & (np.abs(normal[..., 2]) > 0.9)  # diffuse, facing up
    # A channel whose albedo is near 0 (an orange bar's blue) carries little but the gloss it
    # mirrors: divided by its albedo that became "light" many times the paper's, which spread into
    # the next pixels. Below ALBEDO_FLOOR the radiance itself is smoothed.
    base = np.maximum(albedo, ALBEDO_FLOOR)
    light = np.where(flat[..., None], rgb / base, 0).astype(np.float32)
    light = np.where(flat[..., None], despeckle(light, ratio=2.0), 0)
    h, w = flat.shape
    r = radius

    def pad(x: np.ndarray) -> np.ndarray:
        return np.pad(x, ((r, r), (r, r)) + ((0, 0),) * (x.ndim - 2), mode="edge")

    # Elsewhere (the pieces' sides) the radiance, fireflies out, is smoothed the same way among
    # pixels of its own kind: at 16 samples a turned metal side mirroring the paper and the room
    # came as glitter that a 1024-sample render shows smooth. Only among pixels of about the same
    # albedo (its 5x5 median: a conductor's albedo guide is itself noisy, 0.2-1.6 on one side),
    # so a side's two colours — an Annelids tail's body and its dark cap — keep their edge.
    side = ~flat
    other = np.where(side[..., None], despeckle(rgb), 0).astype(np.float32)
    alb = cv2.medianBlur(np.ascontiguousarray(albedo, np.float32), 5)
    lp, op, dp, npad, ap, rp = pad(light), pad(other), pad(depth), pad(normal), pad(alb), pad(albedo)
    fp, sp = pad(flat.astype(np.float32)), pad(side.astype(np.float32))
    acc, acc2 = np.zeros_like(light), np.zeros_like(light)
    wsum, wsum2 = np.zeros((h, w), np.float32), np.zeros((h, w), np.float32)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            sl = (slice(r + dy, r + dy + h), slice(r + dx, r + dx + w))
            near = np.float32(np.exp(-(dx * dx + dy * dy) / (2 * sigma_px ** 2))) \
                * np.exp(-((dp[sl] - depth) / sigma_mm) ** 2) * ((npad[sl] * normal).sum(axis=2) > 0.95)
            # Light is smoothed only within one material (its albedo, raw where the surface
            # faces up: a printed line is its own texture). A glossy orange bar's top mirrors
            # the ceiling into its blue channel, where its albedo is 0.02: its "light" there is
            # 5x the paper's, and a pixel half bar, half paper that took its neighbours' light
            # came out violet, which a JPEG's half-resolution colour then averaged with the bar's
            # orange into grey (Annelids at tilt 10: a segment read as bare paper).
            wt = near * fp[sl] * (np.abs(rp[sl] - albedo).max(axis=2) < ALBEDO_STEP)
            wt2 = near * sp[sl] * (np.abs(ap[sl] - alb).max(axis=2) < ALBEDO_STEP)
            acc += wt[..., None] * lp[sl]
            wsum += wt
            acc2 += wt2[..., None] * op[sl]
            wsum2 += wt2
    smooth = acc / np.maximum(wsum, 1e-6)[..., None]
    smooth2 = acc2 / np.maximum(wsum2, 1e-6)[..., None]
    return np.where(flat[..., None], smooth * base, smooth2).astype(np.float32)
