"""Gygès's rings without stickers drawn by the camera model (:mod:`vision.simulated.scene_pieces`): each
ring a stack of metal tiers (:mod:`vision.pieces.rings` gives their shape), its flat tops shining
where they mirror the lamp."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.pieces.rings import RIM_MM, RING_TOKENS, TIERS
from vision.sheets.layout import tag_tokens

from .scene_pieces import Solid

METAL_BGR = (168.0, 172.0, 176.0)  # one colour for every ring (the rule text: "all the same colour")


def ring_solids(solid: Solid, token: str, heights: float = 1.0) -> list[Solid]:
    """The tiers standing where ``solid`` (the tagged piece) would stand: no sticker, one metal
    colour, each tier's rim drawn darker. A token that is not a ring is returned as it was,
    without its tag."""
    n = RING_TOKENS.get(token)
    if n is None or solid.shape != "cylinder":
        return [replace(solid, tag=None)]
    k = solid.top_bgr[0] / max(1.0, sum(solid.top_bgr) / 3)  # the piece's small brightness jitter
    top = tuple(c * (0.96 + 0.04 * k) for c in METAL_BGR)
    side = tuple(c * 0.8 for c in METAL_BGR)
    out = []
    base = solid.z0
    for radius, top_mm in TIERS[:n]:
        h = top_mm * heights - (base - solid.z0)
        out.append(Solid("cylinder", solid.x, solid.y, base, h, radius, top, side, rim_mm=RIM_MM))  # type: ignore[arg-type]
        base += h
    return out


def untagged(solids: list[Solid], game: str, heights: float = 1.0) -> list[Solid]:
    """The solids of a scene without stickers: Gygès's rings as their stacks of tiers (each
    told by the tag it would have carried); any other game's pieces only lose their tags."""
    names = tag_tokens(game) if game == "gyges" else {}
    out: list[Solid] = []
    for s in solids:
        token = names.get(s.tag) if s.tag is not None else None
        out += ring_solids(s, token, heights) if token is not None and not s.furniture else [replace(s, tag=None)]
    return out


SHINE = 0.5  # how much brighter a ring's top gets where it mirrors the lamp into the camera
SHINE_MM = 40.0  # the width of that glossy lobe (brushed metal: broad, not a point)


def shine(model, canvas: np.ndarray, s: Solid, lamp: np.ndarray | None) -> None:
    """Metal shines: a tier's flat top brightened in a broad lobe round the point where it
    mirrors the lamp into the camera (so a ring's top is not one flat grey, and a top near
    that point is much brighter than its rim's neighbourhood suggests)."""
    if lamp is None:
        return
    zt = -(s.z0 + s.height)
    C = model.pose.position
    mirror = np.array([lamp[0], lamp[1], 2 * zt - lamp[2]])
    t = (zt - C[2]) / (mirror[2] - C[2])
    p = C + t * (mirror - C)
    H = model.plane_homography(s.z0 + s.height)
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    r = s.radius - s.rim_mm
    ring = np.c_[s.x + r * np.cos(a), s.y + r * np.sin(a)]
    px = cv2.perspectiveTransform(ring.reshape(-1, 1, 2), H).reshape(-1, 2)
    ch, cw = canvas.shape[:2]
    x0, y0 = np.maximum(np.floor(px.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(px.max(axis=0)).astype(int) + 1, [cw, ch])
    if x1 <= x0 or y1 <= y0:
        return
    gx, gy = np.meshgrid(np.arange(x0, x1, dtype=np.float64), np.arange(y0, y1, dtype=np.float64))
    mm = cv2.perspectiveTransform(np.stack([gx, gy], axis=-1).reshape(-1, 1, 2), np.linalg.inv(H)).reshape(gx.shape + (2,))
    inside = np.hypot(mm[..., 0] - s.x, mm[..., 1] - s.y) <= r
    lobe = np.exp(-((mm[..., 0] - p[0]) ** 2 + (mm[..., 1] - p[1]) ** 2) / (2 * SHINE_MM ** 2))
    gain = 1.0 + SHINE * lobe * inside
    canvas[y0:y1, x0:x1] *= gain[..., None].astype(np.float32)
