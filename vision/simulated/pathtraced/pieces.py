"""Every game's pieces in the path-traced scene: where they are put down, their shapes and materials.

Each token of the view stands where the camera model stands it
(:func:`vision.simulated.scene_pieces.solids_for`: the piece set's footprint and height, a DRIFT pile
stacked, coins on their repository's block, an Annelids bar along its edge), then is moved as a
hand puts it down (:func:`placed_pieces`). Its shapes and materials (:func:`piece_shapes`):

* Gygès: rings of roughened aluminium in tiers (see :mod:`.scene`).
* Anacund: painted wooden discs (matte paint: ``diffuse``), the face that is up in its colour,
  the other face's colour underneath; the edge is painted half and half, as a disc painted
  from each side is. Read by colour: no sticker.
* Annihilation: moulded plastic particles (``roughplastic``, slight gloss), white one face and
  black the other (the rule text: "double sided, with black on one side and white on the
  other"), the edge half and half; the tag's sticker on the face that is up.
* DRIFT: player pieces painted wood (``diffuse``) in the player's colour, stacked in a home's
  pile (a pile moved as one, each piece up to ``PILE_SLOP_MM`` off the one under it); coins
  metal (``roughconductor``: copper, gold, silver, Mitsuba's measured ones); a carried coin's
  clip grey plastic; a repository a wooden block; every piece's and coin's tag sticker on top.
  The river rings' marker stickers lie flat on the paper where the rings' rotations put them.
  A coin is as wide as its sticker (the camera model's choice: a 19 mm tag does not fit the
  piece set's 20 mm coin).
* Annelids: moulded plastic bars (``roughplastic``) along their edges; a tail's flat end a
  dark band (top and end face), which gives its heading.

Stickers are matte paper (``diffuse``) or, with ``PTSetup.sticker == "glossy"``, coated (a
``roughplastic`` of low roughness over the printed paper). Every piece stands on the paper where
the bent sheet lifts it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from rules.view import View

from vision.pieces.rings import RING_TOKENS, TIERS
from vision.sheets import layout
from vision.sheets.layout import Sheet, tag_tokens
from vision.simulated.scene_pieces import WOOD_BGR, Solid, solids_for

from .rings import ring_obj

PILE_SLOP_MM = 0.8  # a piece in a hand-stacked pile: off the one under it, on each axis
ON_BLOCK_MM = 1.0  # a coin on a repository's block stays on the block
BAR_TURN_DEG = 5.0  # an Annelids bar laid along its edge, a little askew
GAP_MM = 0.5  # the least room between two pieces put down (0.2 between bars: they are small)
GROOVE_MM = 0.8  # the seam between two tiers of a ring, 0.6 mm deep
METALS = {"copper": "Cu", "gold": "Au", "silver": "Ag"}  # DRIFT's coins, Mitsuba's measured conductors


@dataclass(frozen=True)
class Piece:
    """A piece as put down: its solid moved and turned, its sticker's offset, its tiers, and
    where it was meant to go (``home``) and how far it may be off it on each axis (``span``;
    a bar's along and across its edge)."""

    solid: Solid
    tiers: int  # Gygès: the ring's height (1-3); any other piece: 1
    sticker_dx: float = 0.0
    sticker_dy: float = 0.0
    home: tuple[float, float] | None = None
    span: float = 0.0
    turn: float = 0.0  # a bar: radians it lies turned off its edge
    # Gygès: the rings above the first lie tilted on it by ``lean_deg``, resting on its rim on
    # the side ``lean_dir`` (radians) points to; the other side lifts
    lean_deg: float = 0.0
    lean_dir: float = 0.0

    @property
    def token(self) -> str | None:
        return self.solid.token


# -- where the pieces go ----------------------------------------------------------------------


def placed_pieces(sheet: Sheet, view: View, rng: np.random.Generator, off_centre: float = 0.15,
                  askew_mm: float = 1.5, lean_deg: float = 0.0) -> list[Piece]:
    """The view's pieces as people put them down: each up to ``off_centre`` of the pitch off its
    space's centre on each axis, turned any way (a bar: along its edge, a few degrees askew),
    its sticker up to ``askew_mm`` off the top's centre. A spot that would make two pieces touch
    is drawn again (then halved). A pile moves as one; a piece in a reserve keeps its slot.
    ``lean_deg``: a Gygès double or triple ring's upper rings lie tilted on its first by up to
    that, toward any side (drawn after everything else: the same seed puts every piece where
    it put it without a lean)."""
    names = tag_tokens(sheet.game) if sheet.game == "gyges" else {}
    centres = np.array([[s.x, s.y] for s in sheet.shapes if s.kind != "area"] or [[0.0, 0.0]])
    out: list[Piece] = []
    for group in _piles(solids_for(sheet, view, 1.0)):
        s = group[0]
        if s.furniture:
            out.append(Piece(s, 1, home=(s.x, s.y)))
            continue
        c = centres[np.argmin(np.hypot(*(centres - [s.x, s.y]).T))]
        near = abs(s.x - c[0]) < 0.1 * sheet.pitch and abs(s.y - c[1]) < 0.1 * sheet.pitch
        # a piece beside another on one space (DRIFT) is put down about its slot; one in a reserve keeps it
        base = c if near else np.array([s.x, s.y])
        span = off_centre * sheet.pitch if near or not in_reserve(sheet, s.x, s.y) else 0.0
        if s.z0 > 0:  # coins on a repository's block
            span = min(span, ON_BLOCK_MM)
        else:  # DRIFT: a home's pile beside its repository's block (20 mm apart on the sheet), not in it
            for f in (p.solid for p in out if p.solid.furniture):
                d, need = math.hypot(base[0] - f.x, base[1] - f.y), f.radius + s.radius + GAP_MM
                if d < need:
                    base = np.array([f.x, f.y]) + (base - [f.x, f.y]) / max(d, 1e-6) * need
        if s.shape == "box":
            out.append(_put_bar(s, base, span, rng, [p.solid for p in out if not p.solid.furniture]))
            continue
        xy = _put_disc(s, base, span, rng, out)
        for k, p in enumerate(group):
            slop = rng.uniform(-PILE_SLOP_MM, PILE_SLOP_MM, 2) if len(group) > 1 and k > 0 else np.zeros(2)
            token = names.get(p.tag) if p.tag is not None else None
            tiers = RING_TOKENS.get(token, 1)
            r, a = askew_mm * math.sqrt(rng.uniform()), rng.uniform(0, 2 * math.pi)
            moved = replace(p, x=float(xy[0] + slop[0]), y=float(xy[1] + slop[1]), tag_angle=float(rng.uniform(0, 360)))
            out.append(Piece(moved, tiers, r * math.cos(a), r * math.sin(a), (float(base[0]), float(base[1])),
                             span + (PILE_SLOP_MM if k > 0 else 0.0)))
    _unstick(out, rng)
    if lean_deg > 0:
        out = [replace(p, lean_deg=float(rng.uniform(0.3, 1.0) * lean_deg), lean_dir=float(rng.uniform(0, 2 * math.pi)))
               if p.tiers > 1 else p for p in out]
    return out


def placed_after(before: list[Piece], sheet: Sheet, view: View, rng: np.random.Generator) -> list[Piece]:
    """The view's pieces where a player left them: a piece still on its space with the same
    token stays exactly where it was in ``before``; one newly put down is placed as
    :func:`placed_pieces` places it (or at its space's centre, if that spot touches a piece
    left in place). For a filmed game, where a move moves one piece and no other."""
    fresh = placed_pieces(sheet, view, rng)

    def key(p: Piece) -> tuple:
        return p.home, p.token, p.solid.z0

    left = {key(p): p for p in before if p.home is not None}
    out = [left[key(p)] for p in fresh if key(p) in left]
    for p in fresh:
        if key(p) in left:
            continue
        if p.home is not None and not all(apart(p.solid, q.solid) for q in out if meets(p.solid, q.solid)):
            p = replace(p, solid=replace(p.solid, x=p.home[0], y=p.home[1]))
        out.append(p)
    return out


def _piles(solids: list[Solid]) -> list[list[Solid]]:
    """Solids grouped as they stand: a pile (discs on one spot, one on another) is one group."""
    out: list[list[Solid]] = []
    for s in solids:
        last = out[-1][-1] if out else None
        if (last is not None and not s.furniture and not last.furniture and s.shape == last.shape == "cylinder"
                and abs(s.x - last.x) < 1e-6 and abs(s.y - last.y) < 1e-6 and s.z0 > last.z0):
            out[-1].append(s)
        else:
            out.append([s])
    return out


def _put_disc(s: Solid, base: np.ndarray, span: float, rng: np.random.Generator, out: list[Piece]) -> np.ndarray:
    for attempt in range(24):
        k = span if attempt < 16 else span / 2
        xy = base + rng.uniform(-k, k, 2)
        if all(apart(replace(s, x=float(xy[0]), y=float(xy[1])), p.solid) for p in out if meets(s, p.solid)):
            return xy
    return base


def _put_bar(s: Solid, base: np.ndarray, span: float, rng: np.random.Generator, others: list[Solid]) -> Piece:
    """A bar along its edge: up to ``span`` along and across it, turned up to BAR_TURN_DEG, clear
    of ``others``; where no drawn spot clears them, the nearest that does on a grid of the span,
    else its edge's centre (:func:`_unstick` moves it on)."""
    u = np.array([math.cos(s.angle), math.sin(s.angle)])
    v = np.array([-u[1], u[0]])
    home = (float(base[0]), float(base[1]))

    def at(da: float, dc: float, turn: float) -> Piece:
        xy = base + da * u + dc * v
        return Piece(replace(s, x=float(xy[0]), y=float(xy[1]), angle=s.angle + turn), 1, home=home, span=span,
                     turn=turn)

    for attempt in range(24):
        k = span if attempt < 16 else span / 2
        da, dc = rng.uniform(-k, k, 2)
        cand = at(da, dc, math.radians(rng.uniform(-BAR_TURN_DEG, BAR_TURN_DEG)))
        if all(apart(cand.solid, o) for o in others):
            return cand
    for da, dc in _grid(span):
        cand = at(float(da), float(dc), 0.0)
        if all(apart(cand.solid, o) for o in others):
            return cand
    return at(0.0, 0.0, 0.0)


def _unstick(out: list[Piece], rng: np.random.Generator, rounds: int = 8) -> None:
    """Pieces that still touch a neighbour put down again among all the others (a pile stays).
    On Annelids' board a 10 mm bar on a 12.4 mm edge meets the bars on a small square's other
    edges at its corners: one of the two must lie a little outward, and the bars placed first
    may box in a later one. On DRIFT's inner rings a piece beside a coin reaches into the next
    space."""
    homes = Counter(p.home for p in out if not p.solid.furniture)
    for _ in range(rounds):
        stuck = [i for i, p in enumerate(out) if p.span > 0 and not p.solid.furniture and homes[p.home] == 1
                 and not all(apart(p.solid, q.solid) for j, q in enumerate(out) if j != i and meets(p.solid, q.solid))]
        if not stuck:
            return
        for i in stuck:
            p = out[i]
            others = [q.solid for j, q in enumerate(out) if j != i and meets(p.solid, q.solid)]
            if p.solid.shape == "box":
                out[i] = _put_bar(replace(p.solid, angle=p.solid.angle - p.turn), np.array(p.home), p.span, rng, others)
                continue
            best, room = p.solid, -math.inf
            for da, dc in [tuple(rng.uniform(-p.span, p.span, 2)) for _ in range(24)] + _grid(p.span):
                cand = replace(p.solid, x=p.home[0] + float(da), y=p.home[1] + float(dc))  # type: ignore[index]
                here = min((_room(cand, o) for o in others), default=math.inf)
                if here > room:  # clear, or else as far into the clear as it goes (the neighbour moves next)
                    best, room = cand, here
                if here >= GAP_MM:
                    break
            out[i] = replace(p, solid=best)


def _room(a: Solid, b: Solid) -> float:
    """How far apart two footprints are (mm; < 0: they overlap). A bar is taken as its
    footprint's circumscribed disc (a disc never stands on an Annelids board)."""
    ra = a.radius if a.shape == "cylinder" else math.hypot(a.length / 2, a.radius)
    rb = b.radius if b.shape == "cylinder" else math.hypot(b.length / 2, b.radius)
    return math.hypot(a.x - b.x, a.y - b.y) - ra - rb


def meets(s: Solid, other: Solid) -> bool:
    """Whether ``s`` must keep clear of ``other``: any piece, and a block unless it lies on one."""
    return not other.furniture or s.z0 == 0


def _grid(span: float) -> list[tuple[float, float]]:
    """Offsets within ``span`` on each axis, nearest first."""
    return sorted(((float(a), float(b)) for a in np.linspace(-span, span, 9) for b in np.linspace(-span, span, 9)),
                  key=lambda d: math.hypot(*d))


def in_reserve(sheet: Sheet, x: float, y: float) -> bool:
    """Whether a point lies in one of the sheet's reserve areas."""
    return any(sh.kind == "area" and sh.rect is not None and sh.rect[0] <= x <= sh.rect[0] + sh.rect[2]
               and sh.rect[1] <= y <= sh.rect[1] + sh.rect[3] for sh in sheet.shapes)


def corners(s: Solid, pad: float = 0.0) -> np.ndarray:
    """A box's footprint corners (sheet mm), grown by ``pad`` on every side."""
    u = np.array([math.cos(s.angle), math.sin(s.angle)])
    v = np.array([-u[1], u[0]])
    hl, hw = s.length / 2 + pad, s.radius + pad
    c = np.array([s.x, s.y])
    return np.array([c + hl * u + hw * v, c - hl * u + hw * v, c - hl * u - hw * v, c + hl * u - hw * v])


def apart(a: Solid, b: Solid, gap: float | None = None) -> bool:
    """Whether two pieces' footprints are at least ``gap`` apart (GAP_MM; 0.2 mm between bars)."""
    if a.shape == "box" and b.shape == "box":
        ca, cb = corners(a, (0.2 if gap is None else gap) / 2), corners(b, (0.2 if gap is None else gap) / 2)
        for poly in (ca, cb):
            for i in range(2):
                e = poly[i + 1] - poly[i]
                n = np.array([-e[1], e[0]])
                pa, pb = ca @ n, cb @ n
                if pa.max() <= pb.min() or pb.max() <= pa.min():
                    return True  # a separating axis
        return False
    gap = GAP_MM if gap is None else gap
    if a.shape == "box" or b.shape == "box":
        box, disc = (a, b) if a.shape == "box" else (b, a)
        u = np.array([math.cos(box.angle), math.sin(box.angle)])
        d = np.array([disc.x - box.x, disc.y - box.y])
        along, across = d @ u, d @ np.array([-u[1], u[0]])
        q = np.array([max(abs(along) - box.length / 2, 0.0), max(abs(across) - box.radius, 0.0)])
        return float(np.hypot(*q)) >= disc.radius + gap
    return math.hypot(a.x - b.x, a.y - b.y) >= a.radius + b.radius + gap


# -- shapes and materials ---------------------------------------------------------------------


def linear_albedo(bgr: tuple[float, float, float]) -> list[float]:
    """A piece's colour (sRGB, as the camera model paints it) as a linear albedo."""
    x = np.array(bgr[::-1], np.float64) / 255.0
    return [float(v) for v in np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)]


def _other_face(game: str, token: str) -> str:
    """The face underneath a two-faced disc (Anacund: A and B; Annihilation: white and black)."""
    if game == "anacund":
        return "B" if token == "A" else "A"
    return ("B" if token[0] == "W" else "W") + token[1:]


def material(game: str, token: str | None, rgb: list[float]) -> dict:
    """The BSDF of a piece's body: why each is in the module's docstring."""
    base = token.split(":", 1)[0] if token else ""
    if game == "drift" and base in METALS:
        return {"type": "roughconductor", "material": METALS[base], "distribution": "ggx", "alpha": 0.25}
    if game in ("annihilation", "annelids") or (game == "drift" and token and token.startswith("carried:")):
        return {"type": "roughplastic", "distribution": "ggx", "alpha": 0.15, "int_ior": 1.49,
                "diffuse_reflectance": {"type": "rgb", "value": rgb}}
    return {"type": "diffuse", "reflectance": {"type": "rgb", "value": rgb}}


def _two(bsdf: dict) -> dict:
    return bsdf if bsdf["type"] == "twosided" else {"type": "twosided", "bsdf": bsdf}


def piece_shapes(mi, sheet: Sheet, p: Piece, i: int, metal: dict, sticker: str,
                 lift: Callable[[float, float], float], workdir: Path | None = None) -> dict:
    """A piece's shapes (keys ``p<i>...``): its body, its top face and its sticker, standing
    on the paper ``lift(x, y)`` mm above the table's plane. ``sticker`` "none": no sticker, and
    a Gygès ring is the stepped ring of :mod:`.rings` (its mesh written into ``workdir``)."""
    T = mi.ScalarTransform4f
    s = p.solid
    z0 = s.z0 + lift(s.x, s.y)
    out: dict = {}
    if s.shape == "box":
        return _bar(mi, sheet, s, i, z0)
    game = sheet.game
    if game == "gyges" and sticker == "none":
        if workdir is None:
            raise ValueError("a ring without a sticker is a mesh: piece_shapes needs a workdir")
        # turned on its axis too: the lathe's facets fall anywhere, as a real ring's marks do
        return {f"p{i}ring": {"type": "obj", "filename": str(ring_obj(p.tiers, workdir)), "face_normals": False,
                              "to_world": T().translate([s.x, s.y, -z0]).rotate([0, 0, 1], s.tag_angle),
                              "bsdf": _two(metal)}}
    if game == "gyges":
        heights = [top for _, top in TIERS]  # the tiers' tops, as the reader is given them
        tops = heights[:p.tiers] if abs(s.height - heights[p.tiers - 1]) < 0.5 \
            else [s.height * (k + 1) / p.tiers for k in range(p.tiers)]
        bands = [(top, metal) for top in tops]
    elif s.furniture:  # a DRIFT repository's wooden block
        bands = [(s.height, material(game, None, linear_albedo(WOOD_BGR)))]
    else:
        top_bsdf = material(game, s.token, linear_albedo(s.top_bgr))
        bands = [(s.height, top_bsdf)]
        if game in ("anacund", "annihilation") and s.token:  # two-faced: the lower half the other face's colour
            under = layout.PIECE_COLOURS[game][_other_face(game, s.token)]
            bands = [(s.height / 2, material(game, s.token, linear_albedo(tuple(float(c) for c in under[::-1])))),
                     (s.height, top_bsdf)]
    z = z0
    for k, (top, bsdf) in enumerate(bands):
        z_top = z0 + top
        seam = GROOVE_MM if game == "gyges" and k + 1 < len(bands) else 0.0
        out[f"p{i}t{k}"] = {"type": "cylinder", "p0": [s.x, s.y, -z], "p1": [s.x, s.y, -(z_top - seam)],
                            "radius": s.radius, "bsdf": bsdf}
        if seam:
            out[f"p{i}g{k}"] = {"type": "cylinder", "p0": [s.x, s.y, -(z_top - seam)], "p1": [s.x, s.y, -z_top],
                                "radius": s.radius - 0.6, "bsdf": bsdf}
            out[f"p{i}c{k}"] = {"type": "disk", "to_world": T().translate([s.x, s.y, -(z_top - seam)]).scale(s.radius),
                                "bsdf": _two(bsdf)}
        z = z_top
    out[f"p{i}top"] = {"type": "disk", "to_world": T().translate([s.x, s.y, -z]).scale(s.radius),
                       "bsdf": _two(bands[-1][1])}
    if s.tag is not None and sticker != "none":
        out[f"p{i}sticker"] = sticker_shape(mi, sheet, s.tag, s.x + p.sticker_dx, s.y + p.sticker_dy, z, s.tag_angle,
                                            sticker)
    if game == "gyges" and p.lean_deg and len(bands) > 1:
        first = {f"p{i}t0", f"p{i}g0", f"p{i}c0"}  # the first ring (and its groove) stays on the paper
        _lean(mi, out, [k for k in out if k not in first], (s.x, s.y, z0 + bands[0][0]), s.radius,
              p.lean_deg, p.lean_dir)
    return out


def _lean(mi, shapes: dict, keys: list[str], centre: tuple[float, float, float], radius: float,
          deg: float, direction: float) -> None:
    """Tilt ``keys``' shapes by ``deg`` about the rim point of the ring top at ``centre`` (sheet
    mm, height above the table) on the side ``direction`` points to: that side stays where it
    was, the other lifts."""
    u = np.array([math.cos(direction), math.sin(direction), 0.0])
    pivot = np.array([centre[0], centre[1], -centre[2]]) + radius * u
    axis = np.array([-u[1], u[0], 0.0])
    # axis × u points into the table (+z), so a positive turn would push the far side down:
    # a negative one lifts it (up is -z)
    angle = -deg
    tilt = mi.ScalarTransform4f().translate(pivot.tolist()).rotate(axis.tolist(), angle).translate((-pivot).tolist())
    for k in keys:
        shape = shapes[k]
        if "p0" in shape:  # a cylinder by its ends (in double precision, as they were given)
            shape["p0"], shape["p1"] = (_turned(np.array(shape[e], float), pivot, axis, angle).tolist() for e in ("p0", "p1"))
        else:
            shape["to_world"] = tilt @ shape["to_world"]


def _turned(q: np.ndarray, pivot: np.ndarray, axis: np.ndarray, deg: float) -> np.ndarray:
    """``q`` turned by ``deg`` about the line through ``pivot`` along the unit ``axis`` (Rodrigues)."""
    a = math.radians(deg)
    v = q - pivot
    return pivot + v * math.cos(a) + np.cross(axis, v) * math.sin(a) + axis * np.dot(axis, v) * (1 - math.cos(a))


def _bar(mi, sheet: Sheet, s: Solid, i: int, z0: float) -> dict:
    """An Annelids bar: one block of its colour, or (a tail) its colour and a dark band on the flat end."""
    T = mi.ScalarTransform4f
    u = np.array([math.cos(s.angle), math.sin(s.angle)])
    band = 3.0 if s.dark_end is not None else 0.0  # as the camera model's band
    body = material(sheet.game, s.token, linear_albedo(s.top_bgr))
    parts = [("body", -band / 2 * (s.dark_end or 0), s.length - band, body)]
    if band:
        dark = material(sheet.game, s.token, linear_albedo(tuple(float(c) for c in layout.FLAT_END_RGB[::-1])))
        parts.append(("end", (s.length - band) / 2 * s.dark_end, band, dark))  # type: ignore[operator]
    out = {}
    for name, along, length, bsdf in parts:
        c = np.array([s.x, s.y]) + along * u
        out[f"p{i}{name}"] = {"type": "cube", "bsdf": bsdf,
                              "to_world": T().translate([float(c[0]), float(c[1]), -(z0 + s.height / 2)])
                              .rotate([0, 0, 1], math.degrees(s.angle)).scale([length / 2, s.radius, s.height / 2])}
    return out


def sticker_shape(mi, sheet: Sheet, tag: int, x: float, y: float, z: float, angle_deg: float, finish: str) -> dict:
    """A round sticker (the tag in a white disc) 0.1 mm above height ``z``, turned by
    ``angle_deg`` (counter-clockwise as seen from above); matte paper or coated."""
    from .scene import _bitmap, sticker_images

    T = mi.ScalarTransform4f
    rgb, alpha, side = sticker_images(tag, sheet.tag_mm)
    if finish == "glossy":
        face = {"type": "roughplastic", "distribution": "ggx", "alpha": 0.05, "diffuse_reflectance": _bitmap(mi, rgb)}
    else:
        face = {"type": "diffuse", "reflectance": _bitmap(mi, rgb)}
    # the texture's rows run down the sheet (+y) as the printed sticker's do
    return {"type": "rectangle",
            "to_world": T().translate([x, y, -(z + 0.1)]).rotate([0, 0, 1], -angle_deg).scale([side / 2, side / 2, 1]),
            "bsdf": {"type": "mask", "opacity": _bitmap(mi, alpha), "material": {"type": "twosided", "bsdf": face}}}


def ring_markers(mi, sheet: Sheet, view: View, sticker: str, lift: Callable[[float, float], float]) -> dict:
    """DRIFT's river-ring markers: stickers flat on the paper where the rings' rotations put them
    (keys ``ring<tag>``); the printed rings themselves do not turn (their arrows are alike)."""
    from vision.sheets.annuli import rotations_of
    from vision.simulated.scene_pieces import annuli_for

    if sheet.game != "drift":
        return {}
    annuli = annuli_for(sheet)
    rots = rotations_of(view)
    out = {}
    for ring in annuli.rings:
        for tag, (x, y), turned in annuli.markers_at(ring, rots[ring.name]):
            out[f"ring{tag}"] = sticker_shape(mi, sheet, tag, x, y, lift(x, y), -turned, sticker)
    return out
