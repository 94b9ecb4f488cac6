"""The Annuli board's turning river rings (DRIFT): where each ring's arrows and markers stand
at a rotation, and where a space's tokens lie. Shared by the reader (vision/readers/drift_reader.py)
and the renderers (vision/simulated/synth.py, vision/simulated/scene_pieces.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from rules.games.drift_geometry import geometry
from rules.view import View

from . import layout
from .layout import Sheet

# Ring markers sit on the ring's own radius, except the outer ring's: there the repositories
# sit inside the river, so its marker goes 14 mm out (where the board's rotation space is).
MARKER_OUT = {"outer": 14.0, "middle": 0.0, "inner": 0.0}


@dataclass(frozen=True)
class Ring:
    """One river ring on the sheet (sheet millimetres, degrees clockwise from 12 o'clock)."""

    name: str
    arrows: tuple[str, ...]
    sign: int  # +1 flows clockwise, -1 counter-clockwise
    radius: float  # the arrows' radius
    rotation_space: str
    tag: int
    opposite_tag: int | None = None  # the second marker's, half a turn on (None: one marker)

    @property
    def n(self) -> int:
        return len(self.arrows)

    @property
    def step(self) -> float:
        return 360.0 / self.n

    @property
    def marker_radius(self) -> float:
        return self.radius + MARKER_OUT.get(self.name, 0.0)

    @property
    def tags(self) -> tuple[int, ...]:
        return (self.tag,) if self.opposite_tag is None else (self.tag, self.opposite_tag)

    def rotation_of(self, tag: int, position: int) -> int:
        """The ring's rotation when marker ``tag`` stands at step position ``position``."""
        return position % self.n if tag == self.tag else (position - self.n // 2) % self.n

    def angle(self, rotation: int) -> float:
        """How far the ring has turned at ``rotation`` (degrees clockwise)."""
        return (rotation * self.step * self.sign) % 360.0


@dataclass(frozen=True)
class Annuli:
    centre: tuple[float, float]
    rings: tuple[Ring, ...]

    @classmethod
    def for_sheet(cls, sheet: Sheet) -> Annuli:
        if sheet.game != "drift":
            raise ValueError(f"{sheet.game}: not the Annuli board")
        b = sheet.board
        cx, cy = sheet.to_sheet(b.width_mm / 2, b.height_mm / 2)
        geo = geometry()
        tags = {v: k for k, v in layout.RING_TAGS["drift"].items()}
        opposite = {v: k for k, v in layout.RING_OPPOSITE_TAGS["drift"].items()}
        rings = []
        for river in geo.rivers:
            ids = tuple(geo.ids[a] for a in river.arrows)
            radius = float(np.median([math.hypot(sheet.by_id[a].x - cx, sheet.by_id[a].y - cy) for a in ids]))
            rings.append(Ring(river.name, ids, 1 if river.clockwise else -1, radius, river.rotation_space,
                              tags[river.name], opposite.get(river.name) if len(ids) % 2 == 0 else None))
        return cls((cx, cy), tuple(rings))

    def turn(self, pts: np.ndarray, degrees: float) -> np.ndarray:
        """``pts`` (sheet mm) turned clockwise about the board's centre (y grows down)."""
        a = math.radians(degrees)
        c, s = math.cos(a), math.sin(a)
        d = pts - np.float32(self.centre)
        out = np.stack([d[:, 0] * c - d[:, 1] * s, d[:, 0] * s + d[:, 1] * c], axis=1) + np.float32(self.centre)
        return out.astype(np.float32)

    def marker_at(self, ring: Ring, rotation: int) -> tuple[float, float]:
        """Where the ring's marker stands at ``rotation`` — and so step position ``rotation``'s
        place, where any marker of the ring may stand."""
        a = math.radians(ring.angle(rotation))
        return (self.centre[0] + ring.marker_radius * math.sin(a), self.centre[1] - ring.marker_radius * math.cos(a))

    def markers_at(self, ring: Ring, rotation: int) -> list[tuple[int, tuple[float, float], float]]:
        """The ring's markers at ``rotation``: (tag, place, angle it is turned by in degrees).
        Drawn with its top edge towards the board's rim, turning with its place (the reader takes
        a marker any way up)."""
        out = [(ring.tag, self.marker_at(ring, rotation), ring.angle(rotation))]
        if ring.opposite_tag is not None:
            half = rotation + ring.n // 2
            out.append((ring.opposite_tag, self.marker_at(ring, half), ring.angle(half)))
        return out

    def where(self, sheet: Sheet, space: str, rots: Mapping[str, int]) -> tuple[float, float]:
        """Where a space is on the table with the rings at ``rots`` (ring name → step)."""
        s = sheet.by_id[space]
        for ring in self.rings:
            if space in ring.arrows:
                x, y = self.turn(np.float32([[s.x, s.y]]), ring.angle(rots.get(ring.name, 0)))[0]
                return float(x), float(y)
        return s.x, s.y


def rotations_of(view: View) -> dict[str, int]:
    """Each ring's step as the view gives it (0 when it says nothing readable)."""
    out = {}
    for name in ("outer", "middle", "inner"):
        toks = view.get_tokens(f"rotation:{name}")
        out[name] = int(toks[0]) if len(toks) == 1 and toks[0].isdigit() else 0
    return out


def drift_slots(annuli: Annuli, sheet: Sheet, space: str, n: int, rots: Mapping[str, int]) -> list[tuple[float, float]]:
    """Where ``n`` tokens on ``space`` lie: in a home, one pile on its centre (the last on
    top); elsewhere side by side along the ring, a sticker apart (three or more spill over
    the space's edge, which the reader reports)."""
    x, y = annuli.where(sheet, space, rots)
    if n <= 1 or sheet.board.space(space).kind == "home":
        return [(x, y)] * n
    cx, cy = annuli.centre
    d = math.hypot(x - cx, y - cy) or 1.0
    tx, ty = -(y - cy) / d, (x - cx) / d  # along the ring
    off = sheet.tag_mm * math.sqrt(2) + 4  # one round sticker's width
    return [(x + tx * off * (k - (n - 1) / 2), y + ty * off * (k - (n - 1) / 2)) for k in range(n)]
