"""The printed sheet: a board file laid out at true scale with four corner markers, and the
pieces' tags and looks.

Everything here is in *sheet millimetres*: the board's own millimetres shifted so that the
board, its off-board areas and a margin for the corner markers all sit at positive
coordinates. The camera's homography maps sheet millimetres to frame pixels.

The tag table (ArUco ``DICT_4X4_50``) is one table for every game, so a tag from another
game's box is an unknown id, never a wrong piece:

* ids 0-3: the sheet's corner markers (top-left, top-right, bottom-right, bottom-left);
* ids 4-9: reserved (A3/A4 tile alignment, future use);
* ids 10 and up: piece faces, per game (see :data:`TAGS` and docs/vision.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from rules.board import Board

if TYPE_CHECKING:
    from .geometry import BoardGeometry

ARUCO_DICTIONARY = "DICT_4X4_50"
# A game whose tags go past id 49 reads them with the 100-marker dictionary: its first 50
# markers are DICT_4X4_50's, and the ids a game uses keep the same least distance (4 bits).
TAG_DICTIONARY: Mapping[str, str] = {"drift": "DICT_4X4_100"}
CORNER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
RESERVED_IDS = tuple(range(4, 10))

# Piece faces → tokens, as the games' own views name them. A double-sided piece has one
# tag per face (an Anacund disc is A on one side and B on the other; an Annihilation
# particle is white on one face and black on the other, with one charge).
TAGS: Mapping[str, Mapping[int, str]] = {
    "gyges": {10: "1", 11: "2", 12: "3"},
    "anacund": {13: "A", 14: "B"},
    "annihilation": {
        15: "W0", 16: "W1", 17: "W2", 18: "W3", 19: "W5", 20: "W8",
        21: "B0", 22: "B1", 23: "B2", 24: "B3", 25: "B5", 26: "B8",
    },
    # DRIFT: colour + rank (kind), six colours; coins lying, coins carried (a clip on the
    # piece); the river rings' markers are in RING_TAGS (they give a rotation, not a piece).
    # White and black (the 5th and 6th players) go past id 49: TAG_DICTIONARY.
    "drift": {
        **{27 + 3 * c + k: f"{colour}-{rank}" for c, colour in enumerate(("red", "blue", "green", "yellow"))
           for k, rank in enumerate(("III", "II", "I"))},
        39: "copper", 40: "gold", 41: "silver",
        42: "carried:copper", 43: "carried:gold", 44: "carried:silver",
        **{48 + 3 * c + k: f"{colour}-{rank}" for c, colour in enumerate(("white", "black"))
           for k, rank in enumerate(("III", "II", "I"))},
    },
}
RING_TAGS: Mapping[str, Mapping[int, str]] = {"drift": {45: "outer", 46: "middle", 47: "inner"}}
# Each ring's second marker, stuck opposite the first (where arrow n/2 starts): a home's pile can
# hide one marker from a tilted camera, never both (they lie on opposite sides of the board).
RING_OPPOSITE_TAGS: Mapping[str, Mapping[int, str]] = {"drift": {54: "outer", 55: "middle", 56: "inner"}}

# How each game is read when nothing else is said: by tags, or by colour (a classifier
# calibrated on the board). Annelids' pieces are too small for a legible tag at 720p;
# they are read by colour, and a tail's heading by the dark band on its flat end.
DEFAULT_MODE: Mapping[str, str] = {"gyges": "tags", "annihilation": "tags", "anacund": "colour", "annelids": "colour"}

# What the pieces look like (RGB fill), for the test renderer and the printed sheet's key.
PIECE_COLOURS: Mapping[str, Mapping[str, tuple[int, int, int]]] = {
    "gyges": {"1": (196, 160, 110), "2": (176, 136, 90), "3": (150, 110, 70)},
    "anacund": {"A": (200, 40, 35), "B": (35, 60, 150)},
    "annihilation": {f"{c}{n}": ((205, 205, 200) if c == "W" else (45, 45, 50)) for c in "WB" for n in (0, 1, 2, 3, 5, 8)},
    "annelids": {"segment": (215, 130, 40), "blue": (40, 80, 200), "green": (40, 150, 60)},
    "drift": {
        **{f"{colour}-{rank}": rgb for colour, rgb in (("red", (190, 45, 40)), ("blue", (45, 70, 170)),
                                                       ("green", (40, 140, 60)), ("yellow", (220, 190, 40)),
                                                       ("white", (228, 226, 218)), ("black", (48, 48, 52)))
           for rank in ("III", "II", "I")},
        "copper": (184, 115, 51), "gold": (212, 175, 55), "silver": (190, 190, 195),
        **{f"carried:{c}": (120, 120, 120) for c in ("copper", "gold", "silver")},
    },
}
FLAT_END_RGB = (25, 25, 25)  # the band on an Annelids tail's flat end
HEADED: Mapping[str, frozenset[str]] = {"annelids": frozenset({"blue", "green"})}  # read as colour:heading

# How many of each face a game's box holds (the tag sheet prints this many).
PIECE_COUNTS: Mapping[str, Mapping[str, int]] = {
    "gyges": {"1": 4, "2": 4, "3": 4},
    "anacund": {"A": 36},  # each disc: A on the front, B on the back
    "annihilation": {f"W{n}": k * 2 for n, k in ((0, 1), (1, 2), (2, 1), (3, 1), (5, 1), (8, 1))},
    # DRIFT at the default ranks (III, II, I: 2 each) for six colours; 6 coins of each type
    # (the largest board's count is unknown: spares are cheap); a carried clip per coin type.
    "drift": {**{f"{c}-{r}": 2 for c in ("red", "blue", "green", "yellow", "white", "black")
                 for r in ("III", "II", "I")},
              "copper": 6, "gold": 6, "silver": 6, "carried:copper": 2, "carried:gold": 2, "carried:silver": 2,
              "ring:outer": 1, "ring:middle": 1, "ring:inner": 1,
              "ring:outer-opposite": 1, "ring:middle-opposite": 1, "ring:inner-opposite": 1},
}
BACK_FACE: Mapping[str, Mapping[str, str]] = {
    "anacund": {"A": "B"},
    "annihilation": {f"W{n}": f"B{n}" for n in (0, 1, 2, 3, 5, 8)},
}

_COMPASS = ("E", "NE", "N", "NW", "W", "SW", "S", "SE")
_VERTEX = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")


def token_class(game: str, token: str) -> str:
    """The colour class a token is read by: an Annelids tail ``blue:N`` is class ``blue``."""
    return token.split(":", 1)[0]


def tag_tokens(game: str) -> Mapping[int, str]:
    return TAGS.get(game, {})


def tag_id(game: str, token: str) -> int:
    rings = {**{k: f"ring:{v}" for k, v in RING_TAGS.get(game, {}).items()},
             **{k: f"ring:{v}-opposite" for k, v in RING_OPPOSITE_TAGS.get(game, {}).items()}}
    for i, t in {**tag_tokens(game), **rings}.items():
        if t == token:
            return i
    raise KeyError(f"{game}: no tag for token {token!r}")


@dataclass(frozen=True)
class SpaceShape:
    """Where a space is on the sheet and the region a reader samples there."""

    id: str
    x: float
    y: float
    kind: str  # "point": a piece sits on it; "edge": a piece lies along it; "area": many pieces
    ends: tuple[tuple[float, float], tuple[float, float]] | None = None  # an edge's two vertices
    rect: tuple[float, float, float, float] | None = None  # an area's x, y, w, h

    @property
    def length(self) -> float:
        if self.ends is None:
            return 0.0
        (x1, y1), (x2, y2) = self.ends
        return math.hypot(x2 - x1, y2 - y1)

    def heading_to(self, end: int) -> str:
        """Compass heading from the edge's middle towards ``ends[end]`` (y grows south)."""
        assert self.ends is not None
        ex, ey = self.ends[end]
        angle = math.degrees(math.atan2(-(ey - self.y), ex - self.x)) % 360
        return _COMPASS[int(round(angle / 45)) % 8]


@dataclass(frozen=True)
class Sheet:
    """A board laid out on paper: sheet millimetres, corner markers, piece sizes."""

    board: Board
    margin: float = 40.0
    marker_mm: float = 30.0
    offset: tuple[float, float] = (0.0, 0.0)  # board mm + offset = sheet mm
    size: tuple[float, float] = (0.0, 0.0)  # sheet width, height in mm
    shapes: tuple[SpaceShape, ...] = field(default=(), repr=False)
    pitch: float = 0.0  # median distance from a space to its nearest neighbour
    scale: float = 1.0  # sheet mm per board-file mm (board mm * scale + offset = sheet mm)
    # An own board (vision.sheets.geometry): the stuck-on markers' corners where they were fitted,
    # and the tags' size on the pieces (not derived from this board's pitch).
    markers: tuple[tuple[int, tuple[tuple[float, float], ...]], ...] | None = None
    tag_size: float = 0.0

    @classmethod
    def for_board(cls, board: Board, *, margin: float = 40.0, marker_mm: float = 30.0) -> "Sheet":
        raw = board_shapes(board)
        pts = np.array([(s.x, s.y) for s in raw if s.kind != "area"], dtype=float)
        pitch = median_pitch(pts)
        piece_r = 0.4 * pitch
        xs, ys = [0.0, board.width_mm], [0.0, board.height_mm]
        for s in raw:
            if s.rect is not None:
                xs += [s.rect[0], s.rect[0] + s.rect[2]]
                ys += [s.rect[1], s.rect[1] + s.rect[3]]
            else:
                xs += [s.x - piece_r, s.x + piece_r]
                ys += [s.y - piece_r, s.y + piece_r]
        for a in board.areas:
            xs += [a.x, a.x + a.w]
            ys += [a.y, a.y + a.h]
        ox, oy = margin - min(xs), margin - min(ys)
        size = (max(xs) + ox + margin, max(ys) + oy + margin)
        shapes = tuple(_shift(s, ox, oy) for s in raw)
        return cls(board, margin, marker_mm, (ox, oy), size, shapes, pitch)

    @cached_property
    def by_id(self) -> dict[str, SpaceShape]:
        return {s.id: s for s in self.shapes}

    @property
    def game(self) -> str:
        return self.board.name

    @property
    def piece_radius(self) -> float:
        return 0.4 * self.pitch

    @property
    def tag_mm(self) -> float:
        if self.tag_size:
            return self.tag_size
        # The tag's diagonal plus a 2 mm quiet zone all round fits on the piece.
        return round(1.2 * self.piece_radius, 1)

    @property
    def edge_bar(self) -> tuple[float, float]:
        """An edge piece's bar: (length as a fraction of the edge, width in mm)."""
        return 0.8, 4.0

    def to_sheet(self, x: float, y: float) -> tuple[float, float]:
        return x * self.scale + self.offset[0], y * self.scale + self.offset[1]

    @classmethod
    def from_geometry(cls, board: Board, geometry: "BoardGeometry") -> "Sheet":
        """An own board fitted to the camera (:mod:`vision.sheets.geometry`): read through it as
        through a printed sheet."""
        from .geometry import sheet_from_geometry

        return sheet_from_geometry(board, geometry)

    def marker_corners(self) -> dict[int, np.ndarray]:
        """Each corner marker's four corners (ArUco order: TL, TR, BR, BL), sheet mm."""
        if self.markers is not None:
            return {i: np.array(c, dtype=np.float32) for i, c in self.markers}
        w, h = self.size
        m, gap = self.marker_mm, (self.margin - self.marker_mm) / 2
        origins = {0: (gap, gap), 1: (w - gap - m, gap), 2: (w - gap - m, h - gap - m), 3: (gap, h - gap - m)}
        return {
            i: np.array([(x, y), (x + m, y), (x + m, y + m), (x, y + m)], dtype=np.float32)
            for i, (x, y) in origins.items()
        }


def median_pitch(pts: np.ndarray) -> float:
    if len(pts) < 2:
        return 40.0
    d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


def board_shapes(board: Board) -> list[SpaceShape]:
    areas = {a.id: a for a in board.areas}
    out: list[SpaceShape] = []
    for s in board.spaces:
        if s.id in areas:
            a = areas[s.id]
            out.append(SpaceShape(s.id, a.x + a.w / 2, a.y + a.h / 2, "area", rect=(a.x, a.y, a.w, a.h)))
            continue
        ends = _edge_ends(board, s.id) if s.kind == "edge" else None
        out.append(SpaceShape(s.id, s.x, s.y, "edge" if ends else "point", ends=ends))
    return out


def _edge_ends(board: Board, space_id: str) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """An edge's two vertices, from its connectors' labels ("x,y": the vertex they meet at)."""
    found: list[tuple[float, float]] = []
    for _, con in board.neighbours(space_id):
        m = _VERTEX.match(con.label)
        if m:
            v = (float(m.group(1)), float(m.group(2)))
            if all(math.hypot(v[0] - f[0], v[1] - f[1]) > 0.5 for f in found):
                found.append(v)
    return (found[0], found[1]) if len(found) == 2 else None


def _shift(s: SpaceShape, ox: float, oy: float) -> SpaceShape:
    ends = None if s.ends is None else tuple((x + ox, y + oy) for x, y in s.ends)
    rect = None if s.rect is None else (s.rect[0] + ox, s.rect[1] + oy, s.rect[2], s.rect[3])
    return SpaceShape(s.id, s.x + ox, s.y + oy, s.kind, ends, rect)  # type: ignore[arg-type]


def area_slots(sheet: "Sheet", rect: tuple[float, float, float, float], n: int,
               rng: np.random.Generator) -> list[tuple[float, float]]:
    """Where ``n`` pieces laid in an area (a reserve) lie, in mm: packed in staggered rows, a
    little jittered; when more pieces than that are there, pushed closer (they may overlap).
    Both renderers lay reserves out this way (``vision.simulated.synth``,
    ``vision.simulated.scene_pieces``)."""
    x, y, w, h = rect
    r = sheet.piece_radius
    dx = 2 * r + 4  # a little apart, as pieces set down one by one lie
    dy = h - 2 * r  # a second row, staggered, if it clears the first
    rows = 2 if dy > 0 and math.hypot(dx / 2, dy) >= 2 * r + 1 else 1
    cols = 1 + max(0, int((w - 2 * r - dx / 2) // dx))
    if n > rows * cols:
        cols = math.ceil(n / rows)
        dx = (w - 2 * r - dx / 2) / max(1, cols - 1)
    top = y + h / 2 - (dy if rows > 1 else 0) / 2
    out = []
    for k in range(n):
        row, c = divmod(k, cols)
        out.append((x + r + c * dx + (dx / 2 if row % 2 else 0) + rng.uniform(-0.4, 0.4),
                    top + row * dy + rng.uniform(-0.4, 0.4)))
    return out
