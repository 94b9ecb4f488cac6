"""Annelids board geometry, precomputed from the board file for move generation.

The board's spaces are edges; a connector's label names the vertex the two edges share (its
``"x,y"`` in millimetres), and zones ``square <id>`` list each small square's four edges
round it. Everything here is derived from :func:`rules.board.load_board` data, so a physical
board that differs is one new board file (``tools/annelids_board.py`` writes the reference).
"""

from __future__ import annotations

import math
import re

from ..board import Board, load_board
from ..errors import InvalidBoardError

# Compass points of a heading (y grows southwards on the printed board).
_COMPASS = ("E", "NE", "N", "NW", "W", "SW", "S", "SE")
EDGE_RE = re.compile(r"[a-l](?:1[0-2]|[1-9])(?:ne|nw|se|sw|n|e|s|w)")
SQUARE_RE = re.compile(r"[a-l](?:1[0-2]|[1-9])[a-l](?:1[0-2]|[1-9])")


class Geometry:
    """Edges, vertices, headings and small squares of an Annelids board."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.edges: tuple[str, ...] = board.space_ids
        self.edge_set = frozenset(self.edges)
        ends: dict[str, set[str]] = {e: set() for e in self.edges}
        at: dict[str, set[str]] = {}
        for c in board.connectors:
            if not c.label:
                raise InvalidBoardError(f"{board.name}: connector {c.a}-{c.b} has no vertex label")
            ends[c.a].add(c.label)
            ends[c.b].add(c.label)
            at.setdefault(c.label, set()).update((c.a, c.b))
        self.ends: dict[str, tuple[str, str]] = {}
        for e, vs in ends.items():
            if len(vs) != 2:
                raise InvalidBoardError(f"{board.name}: edge {e} should meet exactly 2 vertices, meets {len(vs)}")
            self.ends[e] = tuple(sorted(vs))  # type: ignore[assignment]
        self.at: dict[str, tuple[str, ...]] = {v: tuple(sorted(es)) for v, es in at.items()}
        # Every vertex joins at least two edges, so an annelid always has somewhere to go:
        # an empty edge (a placement) or an occupied one (a removal). See ruling A6.
        lone = [v for v, es in self.at.items() if len(es) < 2]
        if lone:
            raise InvalidBoardError(f"{board.name}: vertex {lone[0]} is the end of a single edge")
        self.point: dict[str, tuple[float, float]] = {}
        for v in self.at:
            try:
                x, y = (float(p) for p in v.split(","))
            except ValueError:
                raise InvalidBoardError(f"{board.name}: vertex label {v!r} is not 'x,y' in mm") from None
            self.point[v] = (x, y)
        # other[(edge, vertex)] = the edge's far end; onward[(edge, vertex)] = edges continuing at vertex
        self.other: dict[tuple[str, str], str] = {}
        self.onward: dict[tuple[str, str], tuple[str, ...]] = {}
        self.heading: dict[tuple[str, str], str] = {}  # (edge, vertex travelled towards) -> compass
        for e, (a, b) in self.ends.items():
            for near, far in ((a, b), (b, a)):
                self.other[(e, near)] = far
                self.onward[(e, far)] = tuple(f for f in self.at[far] if f != e)
                self.heading[(e, far)] = self._compass(near, far)
        # squares: id -> 4 edges round it; square_of[edge] = (square id, position 0..3)
        self.squares: dict[str, tuple[str, str, str, str]] = {}
        self.square_of: dict[str, tuple[str, int]] = {}
        for name, members in board.zones.items():
            if not name.startswith("square "):
                continue
            sq = name[len("square "):]
            if len(members) != 4:
                raise InvalidBoardError(f"{board.name}: zone {name!r} must list 4 edges")
            self.squares[sq] = tuple(members)  # type: ignore[assignment]
            for i, e in enumerate(members):
                if e in self.square_of:
                    raise InvalidBoardError(f"{board.name}: edge {e} is in two small squares")
                self.square_of[e] = (sq, i)
        # the vertex shared by consecutive square sides i and i+1
        self.corner: dict[tuple[str, int], str] = {}
        for sq, es in self.squares.items():
            for i in range(4):
                shared = set(self.ends[es[i]]) & set(self.ends[es[(i + 1) % 4]])
                if len(shared) != 1:
                    raise InvalidBoardError(f"{board.name}: square {sq}: sides {i} and {i + 1} do not meet")
                self.corner[(sq, i)] = shared.pop()

    def _compass(self, frm: str, to: str) -> str:
        (x0, y0), (x1, y1) = self.point[frm], self.point[to]
        angle = math.degrees(math.atan2(y0 - y1, x1 - x0)) % 360
        return _COMPASS[int((angle + 22.5) // 45) % 8]

    def towards(self, edge: str, heading: str) -> str | None:
        """The end of ``edge`` that a piece pointing ``heading`` along it points to."""
        for v in self.ends[edge]:
            if self.heading[(edge, v)] == heading:
                return v
        return None

    def neighbour_vertices(self, v: str) -> list[str]:
        return [self.other[(e, v)] for e in self.at[v]]


_GEOMETRY: Geometry | None = None


def geometry() -> Geometry:
    global _GEOMETRY
    if _GEOMETRY is None:
        _GEOMETRY = Geometry(load_board("annelids"))
    return _GEOMETRY
