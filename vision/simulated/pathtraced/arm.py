"""A player's hand and forearm in the path-traced scene, and the pieces it carries.

The arm is the camera model's (:func:`vision.simulated.scene_pieces.arm_axis`,
:func:`~vision.simulated.scene_pieces.finger_axes`: a hand 40 mm in radius, a forearm 36 mm,
four fingers and a thumb round the piece, the shoulder 650 mm off beyond the nearest sheet
edge), built as capsules — spheres along the axis joined by cylinders — so that both renderers
put the same arm in the same place. Skin is a diffuse layer under a faint gloss
(``roughplastic``: skin's oils give a broad sheen, not a mirror); its albedo is the camera
model's skin colour. It casts real shadows from each light, soft under the ceiling panel and
the window.

A carried piece hangs under the fingertips ``lift_mm`` above the board, built as a piece on
the board is (:func:`.pieces.piece_shapes`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.pieces.rings import RING_TOKENS
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import BoardPose, Hand
from vision.simulated.scene_pieces import SKIN_BGR, arm_axis, finger_axes, pieceset_for, token_solid

from .pieces import Piece, linear_albedo

SKIN_GLOSS = 0.35  # GGX alpha of skin's sheen


def skin() -> dict:
    return {"type": "roughplastic", "distribution": "ggx", "alpha": SKIN_GLOSS, "int_ior": 1.4,
            "diffuse_reflectance": {"type": "rgb", "value": linear_albedo(tuple(float(c) for c in SKIN_BGR))}}


def _capsule(name: str, axis: np.ndarray, radii: np.ndarray, bsdf: dict) -> dict:
    out: dict = {}
    for i, (p, r) in enumerate(zip(axis, radii)):
        out[f"{name}s{i}"] = {"type": "sphere", "center": [float(v) for v in p], "radius": float(r), "bsdf": bsdf}
        if i + 1 < len(axis):
            q = axis[i + 1]
            if float(np.linalg.norm(q - p)) > 1e-3:
                out[f"{name}c{i}"] = {"type": "cylinder", "p0": [float(v) for v in p], "p1": [float(v) for v in q],
                                      "radius": float(min(r, radii[i + 1])), "bsdf": bsdf}
    return out


def arm_shapes(pose: BoardPose, plane_mm: tuple[float, float], hand: Hand, name: str = "arm") -> dict:
    """The hand's and forearm's shapes (keys ``<name>...``)."""
    bsdf = skin()
    axis, radii = arm_axis(pose, plane_mm, hand)
    out = _capsule(f"{name}a", axis, radii, bsdf)
    for k, (f_axis, f_radii) in enumerate(finger_axes(pose, plane_mm, hand)):
        out.update(_capsule(f"{name}f{k}", f_axis, f_radii, bsdf))
    return out


def held_pieces(sheet: Sheet, hands: Sequence[Hand]) -> list[Piece]:
    """The pieces the hands carry, each under its fingertips (stacked, as the camera model
    hangs them)."""
    out: list[Piece] = []
    for k, hand in enumerate(hands):
        rng = np.random.default_rng(k)
        z = hand.lift_mm
        for token in hand.holding:
            s = token_solid(sheet, pieceset_for(sheet.game), token, hand.at[0], hand.at[1], z, 1.0, rng)
            if s is None:
                continue
            out.append(Piece(s, RING_TOKENS.get(token, 1) if sheet.game == "gyges" else 1, home=hand.at))
            z += s.height
    return out
