"""3-D pieces, shadows and an arm for :mod:`vision.simulated.camera_model`.

Every token of a view becomes a :class:`Solid` — a cylinder (rings, discs, coins) or a box
(Annelids' bars) of the footprint and height its game's piece set gives
(:mod:`vision.pieces.pieceset`, ``vision/pieces/piecesets/<game>.json``), standing where the synthetic
renderer puts it (a piece on its space, pieces in a reserve side by side, DRIFT's piles
stacked in their homes, coins on a repository's block). Each solid is drawn in the ideal
canvas: the sides that face the camera as strips shaded by the lamp, then the top face with
its tag sticker (warped through the top plane's homography) or its colour. Solids are drawn
far to near (painter's order), after their shadows — each piece's outline projected from the
lamp onto the board, blurred a little — and before the arm, a skin-coloured capsule.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import cv2
import numpy as np

from rules.view import MORE, OCCUPIED, View

from vision.pieces.pieceset import PieceSet, load_pieceset
from vision.sheets import layout
from vision.sheets.layout import Sheet
from vision.sheets.render import bgr, marker_image

if TYPE_CHECKING:
    from .camera_model import BoardPose, CameraModel, Hand, Scene

SIDES = 28  # a cylinder's side strips
SKIN_BGR = (128, 158, 205)
WOOD_BGR = (95, 140, 185)
STICKER = 235.0  # a sticker's white, grey levels
SPRITE_PX_PER_MM = 8.0


@dataclass(frozen=True)
class Solid:
    """One piece in 3-D: on the board at (x, y) sheet mm, its base ``z0`` mm above it."""

    shape: str  # "cylinder" | "box"
    x: float
    y: float
    z0: float
    height: float
    radius: float  # a cylinder's; a box's half width
    top_bgr: tuple[float, float, float]
    side_bgr: tuple[float, float, float]
    tag: int | None = None
    tag_angle: float = 0.0  # degrees
    length: float = 0.0  # a box's, along ``angle``
    angle: float = 0.0  # a box's long axis, radians in the sheet
    dark_end: int | None = None  # a box's end (-1 or +1 along its axis) with a dark band (an Annelids tail)
    furniture: bool = False  # part of the board (a DRIFT repository's block), drawn before the pieces
    rim_mm: float = 0.0  # a darker rim this wide round the top face (an untagged Gygès ring's tier)
    token: str | None = None  # the view's token it stands for (the path-traced scene picks its material by it)


@lru_cache(maxsize=8)
def pieceset_for(game: str) -> PieceSet:
    return load_pieceset(game)


def solids_for(sheet: Sheet, view: View, heights: float = 1.0) -> list[Solid]:
    """The pieces of ``view`` as solids (their heights × ``heights``); a token the piece set
    does not know, or a reader's marker, is skipped."""
    game = sheet.game
    pset = pieceset_for(game)
    out: list[Solid] = []
    if game == "drift":
        out += _drift_blocks(sheet, pset, heights)
    places = _places(sheet, view)
    for space, spots in places.items():
        rng = np.random.default_rng(zlib.crc32(f"{space}|{'|'.join(view.get_tokens(space))}".encode()))
        kind = sheet.board.space(space).kind if space in sheet.board.space_ids else None
        stack = pset.stack_for(kind)
        z = stack.base_mm * heights if stack is not None else 0.0
        for (x, y, angle), token in spots:
            solid = token_solid(sheet, pset, token, x, y, z, heights, rng, angle)
            if solid is None:
                continue
            out.append(solid)
            if stack is not None and token in stack.tokens and len(spots) > 1 and spots[0][0][:2] == (x, y):
                z += solid.height  # a pile: the next stands on this one
    return out


def token_solid(sheet: Sheet, pset: PieceSet, token: str, x: float, y: float, z0: float, heights: float,
                rng: np.random.Generator, angle: float | None = None) -> Solid | None:
    game = sheet.game
    if token in (OCCUPIED, MORE):
        return None
    try:
        kind = pset.piece(token)
    except KeyError:
        return None
    rgb = _colour(game, token)
    top = tuple(float(v) * rng.uniform(0.96, 1.04) for v in bgr(rgb))
    tag = None
    if kind.top == "tag" and token in layout.tag_tokens(game).values():
        tag = layout.tag_id(game, token)
    wood = game == "gyges"
    side = WOOD_BGR if wood else tuple(v * 0.85 for v in top)
    h = kind.height_mm * heights
    if kind.shape == "box":
        length, width = kind.footprint_mm
        dark = None
        if ":" in token and angle is not None:
            dark = 1 if token.split(":", 1)[1] == "end1" else -1
        return Solid("box", x, y, z0, h, width / 2, top, side, length=length, angle=angle or 0.0,  # type: ignore[arg-type]
                     dark_end=dark, token=token)
    radius = kind.footprint_mm[0] / 2
    if tag is not None:  # the sticker (the tag's diagonal and 2 mm of white) may overhang a small piece
        radius = max(radius, (sheet.tag_mm * math.sqrt(2) + 4) / 2)
    return Solid("cylinder", x, y, z0, h, radius, top, side, tag=tag,  # type: ignore[arg-type]
                 tag_angle=float(rng.uniform(0, 360)), token=token)


def _colour(game: str, token: str) -> tuple[int, int, int]:
    colours = layout.PIECE_COLOURS.get(game, {})
    return colours.get(token) or colours.get(layout.token_class(game, token)) or (160, 160, 160)


def _places(sheet: Sheet, view: View) -> dict[str, list[tuple[tuple[float, float, float | None], str]]]:
    """Where each token of the view stands: (x, y, a box's angle) per token, per space."""
    out: dict[str, list] = {}
    jitter = sheet.pitch * 0.04
    if sheet.game == "drift":
        from vision.sheets.annuli import drift_slots, rotations_of

        annuli = annuli_for(sheet)
        rots = rotations_of(view)
    for space, tokens in view.items():
        shape = sheet.by_id.get(space)
        if shape is None or space.startswith("rotation:"):
            continue
        rng = np.random.default_rng(zlib.crc32(f"{space}|{'|'.join(tokens)}".encode()))
        if sheet.game == "drift":
            slots = drift_slots(annuli, sheet, space, len(tokens), rots)
            d = rng.uniform(-jitter, jitter, 2)
            out[space] = [((x + d[0], y + d[1], None), t) for (x, y), t in zip(slots, tokens)]
        elif shape.kind == "edge":
            (x1, y1), (x2, y2) = shape.ends  # type: ignore[misc]
            a = math.atan2(y2 - y1, x2 - x1)
            spots = []
            for t in tokens:
                tok = t
                if ":" in t:  # a tail's heading: which end of the edge carries the dark band
                    tok = f"{t.split(':', 1)[0]}:{'end0' if shape.heading_to(0) == t.split(':', 1)[1] else 'end1'}"
                spots.append(((shape.x + rng.uniform(-0.4, 0.4), shape.y + rng.uniform(-0.4, 0.4), a), tok))
            out[space] = spots
        elif shape.kind == "area":
            slots = layout.area_slots(sheet, shape.rect, len(tokens), rng)
            out[space] = [((x, y, None), t) for (x, y), t in zip(slots, tokens)]
        else:
            d = rng.uniform(-jitter, jitter, 2)
            out[space] = [((shape.x + d[0], shape.y + d[1], None), t) for t in tokens]
    return out


def annuli_for(sheet: Sheet):
    from vision.sheets.annuli import Annuli

    cache = annuli_for.__dict__.setdefault("cache", {})
    if id(sheet) not in cache:
        cache[id(sheet)] = (sheet, Annuli.for_sheet(sheet))
    return cache[id(sheet)][1]


def _drift_blocks(sheet: Sheet, pset: PieceSet, heights: float) -> list[Solid]:
    """DRIFT's repositories: the wooden block coins lie on (part of the board: always there)."""
    stack = pset.stack_for("repository")
    if stack is None or stack.base_mm <= 0:
        return []
    out = []
    for s in sheet.board.spaces:
        if s.kind == "repository" and s.id in sheet.by_id:
            sh = sheet.by_id[s.id]
            out.append(Solid("cylinder", sh.x, sh.y, 0.0, stack.base_mm * heights, sheet.piece_radius, WOOD_BGR,
                             tuple(v * 0.85 for v in WOOD_BGR), furniture=True))  # type: ignore[arg-type]
    return out


# -- drawing ----------------------------------------------------------------------------------


def draw_scene(model: "CameraModel", canvas: np.ndarray, scene: "Scene", lamp: np.ndarray | None) -> None:
    """Shadows, pieces (far to near), DRIFT's ring markers, held pieces and arms, onto the
    ideal ``canvas`` (float32 BGR)."""
    sheet = model.sheet
    solids = solids_for(sheet, scene.view, scene.heights) if scene.view else (
        _drift_blocks(sheet, pieceset_for(sheet.game), scene.heights) if sheet.game == "drift" else [])
    held: list[Solid] = []
    for k, hand in enumerate(scene.hands):
        rng = np.random.default_rng(k)
        z = hand.lift_mm
        for token in hand.holding:
            s = token_solid(sheet, pieceset_for(sheet.game), token, hand.at[0], hand.at[1], z, scene.heights, rng)
            if s is not None:
                held.append(s)
                z += s.height
    if not scene.tags:  # pieces without stickers (vision/simulated/ring_solids.py)
        from .ring_solids import untagged

        solids, held = untagged(solids, sheet.game, scene.heights), untagged(held, sheet.game, scene.heights)
    if sheet.game == "drift":  # the rings' markers are on the board, empty or not (rotation 0 unless the view says)
        _drift_markers(model, canvas, scene.view)
    ambient = scene.lamp.ambient if scene.lamp is not None else 1.0
    if lamp is not None and scene.lamp is not None and scene.lamp.shadows:
        _shadows(model, canvas, solids + held, scene.hands, lamp, ambient)
    C = model.pose.position
    # Far to near, a pile bottom to top; DRIFT's repository blocks (board furniture that
    # coins lie on) before every piece.
    pieces = sorted((s for s in solids + held if not s.furniture),
                    key=lambda s: (-float(np.linalg.norm(C[:2] - [s.x, s.y])), s.z0))
    order = [s for s in solids if s.furniture] + pieces
    for s in order:
        _draw_solid(model, canvas, s, lamp, ambient)
    for hand in scene.hands:
        _draw_arm(model, canvas, hand, lamp, ambient)


def _rings(s: Solid, n: int = SIDES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A solid's base and top outlines (world points) and its side normals."""
    if s.shape == "box":
        u = np.array([math.cos(s.angle), math.sin(s.angle)])
        v = np.array([-u[1], u[0]])
        hl, hw = s.length / 2, s.radius
        xy = np.array([s.x, s.y]) + np.array([hl * u + hw * v, -hl * u + hw * v, -hl * u - hw * v, hl * u - hw * v])
        normals = np.array([v, -u, -v, u])
    else:
        a = np.linspace(0, 2 * math.pi, n, endpoint=False)
        xy = np.c_[s.x + s.radius * np.cos(a), s.y + s.radius * np.sin(a)]
        mid = a + math.pi / n
        normals = np.c_[np.cos(mid), np.sin(mid)]
    base = np.c_[xy, np.full(len(xy), -s.z0)]
    top = np.c_[xy, np.full(len(xy), -(s.z0 + s.height))]
    return base, top, normals


def _shade(normal_xy: np.ndarray, at: np.ndarray, lamp: np.ndarray | None, ambient: float) -> float:
    """A side's brightness relative to the board's under the same lamp."""
    if lamp is None:
        return 0.8
    d = lamp - at
    d /= np.linalg.norm(d)
    side = ambient + (1 - ambient) * max(0.0, float(normal_xy[0] * d[0] + normal_xy[1] * d[1]))
    flat = ambient + (1 - ambient) * max(0.0, float(-d[2]))
    return 0.85 * side / flat


def _poly(canvas: np.ndarray, px: np.ndarray, colour: Sequence[float], aa: bool = False) -> None:
    cv2.fillConvexPoly(canvas, np.round(px * 16).astype(np.int32), tuple(float(c) for c in colour),
                       cv2.LINE_AA if aa else cv2.LINE_8, shift=4)


def _draw_solid(model: "CameraModel", canvas: np.ndarray, s: Solid, lamp: np.ndarray | None, ambient: float) -> None:
    base, top, normals = _rings(s)
    C = model.pose.position
    n = len(base)
    pb, pt = model.to_canvas(base), model.to_canvas(top)
    if s.height > 0.05:
        for i in range(n):
            j = (i + 1) % n
            mid = (base[i] + top[j]) / 2
            if normals[i] @ (C[:2] - mid[:2]) <= 0:
                continue  # faces away from the camera
            k = _shade(normals[i], mid, lamp, ambient)
            colour = s.side_bgr
            if s.dark_end is not None and s.shape == "box" and i in (1, 3) and (i == 3) == (s.dark_end > 0):
                colour = bgr(layout.FLAT_END_RGB)
            _poly(canvas, np.array([pb[i], pb[j], pt[j], pt[i]]), [c * k for c in colour])
    if s.rim_mm > 0 and s.shape == "cylinder":  # the rim, then the flat top inside it
        _poly(canvas, pt, [c * 0.55 for c in s.top_bgr], aa=True)
        inner = replace(s, radius=s.radius - s.rim_mm)
        pt = model.to_canvas(_rings(inner)[1])
    _poly(canvas, pt, s.top_bgr, aa=True)
    if s.rim_mm > 0 and s.shape == "cylinder":
        from .ring_solids import shine

        shine(model, canvas, s, lamp)  # a metal ring's top shines
    if s.shape == "box" and s.dark_end is not None:
        u = np.array([math.cos(s.angle), math.sin(s.angle)]) * s.dark_end
        v = np.array([-u[1], u[0]])
        hl, hw, band = s.length / 2, s.radius, 3.0
        c = np.array([s.x, s.y])
        quad = np.array([c + hl * u + hw * v, c + (hl - band) * u + hw * v, c + (hl - band) * u - hw * v,
                         c + hl * u - hw * v])
        _poly(canvas, model.to_canvas(np.c_[quad, np.full(4, -(s.z0 + s.height))]), bgr(layout.FLAT_END_RGB), aa=True)
    if s.tag is not None:
        _sticker(model, canvas, s.tag, s.x, s.y, s.z0 + s.height, s.tag_angle)


@lru_cache(maxsize=128)
def _sprite(tag: int, tag_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """A round white sticker with the tag on it, at SPRITE_PX_PER_MM: (BGR float32, alpha)."""
    s = SPRITE_PX_PER_MM
    side = int(round(tag_mm * s))
    k = int(math.ceil((tag_mm * math.sqrt(2) + 4) * s))
    k += k % 2
    grey = np.full((k, k), STICKER, np.float32)
    o = (k - side) // 2
    grey[o:o + side, o:o + side] = marker_image(tag, side).astype(np.float32) * (STICKER - 30) / 255 + 30
    alpha = np.zeros((k, k), np.float32)
    cv2.circle(alpha, (k // 2, k // 2), k // 2 - 1, 1.0, -1, cv2.LINE_AA)
    return np.repeat(grey[..., None], 3, axis=2), alpha


def _sticker(model: "CameraModel", canvas: np.ndarray, tag: int, x: float, y: float, height: float,
             angle_deg: float) -> None:
    sprite, alpha = _sprite(tag, model.sheet.tag_mm)
    k = sprite.shape[0]
    s = SPRITE_PX_PER_MM
    a = -math.radians(angle_deg)  # counter-clockwise as seen, as cv2.getRotationMatrix2D turns (synth's tags)
    ca, sa = math.cos(a) / s, math.sin(a) / s
    # sprite px → sheet mm on the top plane (turned by the tag's angle, centred on the piece)
    c = (k - 1) / 2  # the sprite's centre, pixel-centre coordinates
    T = np.array([[ca, -sa, x - (ca - sa) * c], [sa, ca, y - (sa + ca) * c], [0, 0, 1]])
    H = model.plane_homography(height) @ T
    corners = cv2.perspectiveTransform(np.float32([[[0, 0], [k, 0], [k, k], [0, k]]]), H)[0]
    ch, cw = canvas.shape[:2]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(cw, x1), min(ch, y1)
    if x1 <= x0 or y1 <= y0:
        return
    Hr = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ H
    face = cv2.warpPerspective(sprite, Hr, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    m = cv2.warpPerspective(alpha, Hr, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - m) + face * m


def _drift_markers(model: "CameraModel", canvas: np.ndarray, view: View) -> None:
    """DRIFT's river-ring markers: stickers on the turning rings (flat on the board), where
    each ring's rotation has carried them."""
    from vision.sheets.annuli import rotations_of

    annuli = annuli_for(model.sheet)
    rots = rotations_of(view)
    for ring in annuli.rings:
        for tag, (x, y), turned in annuli.markers_at(ring, rots[ring.name]):
            _sticker(model, canvas, tag, x, y, 0.2, -turned)


def _from_lamp(lamp: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """World points projected from the lamp onto the board (z = 0)."""
    s = lamp[2] / (lamp[2] - pts[:, 2])
    return np.c_[lamp[0] + (pts[:, 0] - lamp[0]) * s, lamp[1] + (pts[:, 1] - lamp[1]) * s, np.zeros(len(pts))]


def _shadows(model: "CameraModel", canvas: np.ndarray, solids: list[Solid], hands: Sequence["Hand"],
             lamp: np.ndarray, ambient: float) -> None:
    ch, cw = canvas.shape[:2]
    mask = np.zeros((ch, cw), np.uint8)
    for s in solids:
        if s.height + s.z0 <= 0.05:
            continue
        base, top, _ = _rings(s, 16)
        pts = np.concatenate([_from_lamp(lamp, base), _from_lamp(lamp, top)])
        px = model.to_canvas(pts).astype(np.float32)
        hull = cv2.convexHull(px)
        cv2.fillConvexPoly(mask, np.round(hull.reshape(-1, 2) * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    for hand in hands:
        axis, radii = arm_axis(model.pose, model.plane_mm, hand)
        flat = _from_lamp(lamp, axis)
        scale = lamp[2] / (lamp[2] - axis[:, 2])
        _capsule(mask, model, flat, radii * scale, 255.0)
        for f_axis, f_radii in finger_axes(model.pose, model.plane_mm, hand):
            _capsule(mask, model, _from_lamp(lamp, f_axis), f_radii * lamp[2] / (lamp[2] - f_axis[:, 2]), 255.0)
    # blurred (a lamp is not a point) and applied only where there is shadow
    blur = max(1.0, 1.5 * model.px_per_mm)
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if len(rows) == 0:
        return
    pad = int(3 * blur) + 2
    y0, y1 = max(0, rows[0] - pad), min(ch, rows[-1] + pad + 1)
    x0, x1 = max(0, cols[0] - pad), min(cw, cols[-1] + pad + 1)
    mask_f = cv2.GaussianBlur(mask[y0:y1, x0:x1], (0, 0), blur).astype(np.float32) * np.float32((1.0 - ambient) * 0.9 / 255)
    canvas[y0:y1, x0:x1] *= (1.0 - mask_f)[..., None]


# -- the arm ----------------------------------------------------------------------------------


FINGER_MM = 30.0  # how far the fingers reach below the palm (gripping a piece's sides)


def arm_axis(pose: "BoardPose", plane_mm: tuple[float, float], hand: "Hand") -> tuple[np.ndarray, np.ndarray]:
    """The arm's axis (world points from the palm back to the shoulder) and its radius along
    it (a hand, then a forearm); the palm is FINGER_MM above the fingertips. Points within
    80 mm of the camera's plane are left out (never behind the camera)."""
    x, y = hand.at
    direction = arm_direction(plane_mm, hand)
    r_hand, r_arm = 40.0, 36.0
    tip = np.array([x + direction[0] * 15, y + direction[1] * 15, -(hand.height_mm + FINGER_MM + r_hand * 0.6)])
    shoulder = np.array([x + direction[0] * 650, y + direction[1] * 650, -380.0])
    t = np.linspace(0, 1, 14)
    axis = tip + t[:, None] * (shoulder - tip)
    radii = np.where(t < 0.15, r_hand, r_arm)
    keep = pose.depth(axis) > 80  # never behind the camera
    return axis[keep], radii[keep]


def arm_direction(plane_mm: tuple[float, float], hand: "Hand") -> np.ndarray:
    """From the fingertip towards the shoulder, seen from above: the nearest sheet edge
    unless the hand says."""
    pw, ph = plane_mm
    x, y = hand.at
    if hand.from_deg is None:
        d = [(x, (-1, 0)), (pw - x, (1, 0)), (y, (0, -1)), (ph - y, (0, 1))]
        return np.array(min(d)[1], float)
    a = math.radians(hand.from_deg)
    return np.array([math.cos(a), math.sin(a)])


def finger_axes(pose: "BoardPose", plane_mm: tuple[float, float], hand: "Hand") -> list[tuple[np.ndarray, np.ndarray]]:
    """Four fingers and a thumb from the palm down to the fingertips, round the piece: each
    its axis (world points) and radius along it."""
    u = arm_direction(plane_mm, hand)
    v = np.array([-u[1], u[0]])
    x, y = hand.at
    top = -(hand.height_mm + FINGER_MM)
    out = []
    for k, (across, along) in enumerate(((-24, -8), (-8, -14), (8, -14), (24, -8), (0, 22))):
        root = np.array([x + v[0] * across * 0.8 + u[0] * 20, y + v[1] * across * 0.8 + u[1] * 20, top - 8])
        end = np.array([x + v[0] * across + u[0] * along, y + v[1] * across + u[1] * along, -hand.height_mm])
        t = np.linspace(0, 1, 4)[:, None]
        axis = root + t * (end - root)
        if (pose.depth(axis) > 80).all():
            out.append((axis, np.full(4, 9.0 if k < 4 else 11.0)))
    return out


def _capsule(img: np.ndarray, model: "CameraModel", axis: np.ndarray, radii: np.ndarray,
             colour: float | Sequence[float]) -> None:
    if len(axis) == 0:
        return
    px = model.to_canvas(axis)
    f = model.lens.K_canvas[0, 0]
    depth = np.maximum(model.pose.depth(axis), 1.0)
    rp = f * radii / depth
    col = colour if isinstance(colour, (int, float)) else tuple(float(c) for c in colour)
    lim = 4 * max(img.shape)
    for i in range(len(px)):
        c = np.clip(px[i], -lim, lim)
        cv2.circle(img, (int(round(c[0])), int(round(c[1]))), max(1, int(round(rp[i]))), col, -1, cv2.LINE_AA)
        if i + 1 < len(px):
            d = np.clip(px[i + 1], -lim, lim) - c
            n = np.array([-d[1], d[0]]) / (np.linalg.norm(d) or 1.0)
            quad = np.array([c + n * rp[i], np.clip(px[i + 1], -lim, lim) + n * rp[i + 1],
                             np.clip(px[i + 1], -lim, lim) - n * rp[i + 1], c - n * rp[i]])
            cv2.fillConvexPoly(img, np.round(quad * 16).astype(np.int32), col, cv2.LINE_AA, shift=4)


def _draw_arm(model: "CameraModel", canvas: np.ndarray, hand: "Hand", lamp: np.ndarray | None, ambient: float) -> None:
    axis, radii = arm_axis(model.pose, model.plane_mm, hand)
    skin = np.array(SKIN_BGR, np.float32)
    shade = 1.0
    if lamp is not None:  # the arm's top catches the lamp as the board does, more or less
        shade = 0.95
    for f_axis, f_radii in finger_axes(model.pose, model.plane_mm, hand):
        _capsule(canvas, model, f_axis, f_radii, skin * shade * 0.93)
    _capsule(canvas, model, axis, radii, skin * shade)
    # the lit top of the forearm: a lighter, thinner capsule along it
    _capsule(canvas, model, axis - np.array([0, 0, 0.5]) * radii[:, None], radii * 0.45, skin * 1.12 * shade)
