"""What the page needs to draw a game's board: the board file, plus a little derived geometry.

Everything is drawn from the board file (spaces with millimetre coordinates, connectors,
zones, areas), so a new game or a different physical board needs no page changes. Two
things are derived here once per board: ``cell_mm``, the distance between the closest two
spaces (pieces are drawn to fit it), and ``segments``, for boards whose spaces are edges
(connectors labelled with the ``"x,y"`` vertex they share): each such space as a line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import cache
from typing import Any

from rules import Board, Fidelity, State, get_game


@cache
def board_data(game_name: str) -> dict[str, Any]:
    """The board as JSON for the page (raises ``UnknownGameError`` for an unknown game)."""
    game = get_game(game_name)
    board = game.board()
    data = board.to_dict()
    data["cell_mm"] = _cell_mm(board)
    data["segments"] = _segments(board)
    data["viewbox"] = _viewbox(board, data["cell_mm"])
    data["title"] = game.title
    data["players"] = list(game.players)
    return data


def _cell_mm(board: Board) -> float:
    """The smallest distance between two spaces: the size a drawn piece must fit."""
    pts = [(s.x, s.y) for s in board.spaces]
    if len(pts) < 2:
        return 40.0
    # Sorting by x lets the scan stop early: fine for the few hundred spaces a board has.
    pts.sort()
    best = math.inf
    for i, (x1, y1) in enumerate(pts):
        for x2, y2 in pts[i + 1:]:
            if x2 - x1 >= best:
                break
            d = math.hypot(x2 - x1, y2 - y1)
            if 0 < d < best:
                best = d
    return round(best if math.isfinite(best) else 40.0, 2)


def _vertex(label: str) -> tuple[float, float] | None:
    x, sep, y = label.partition(",")
    if not sep:
        return None
    try:
        return float(x), float(y)
    except ValueError:
        return None


def _segments(board: Board) -> dict[str, list[float]]:
    """Spaces that are edges between two labelled vertices, as ``[x1, y1, x2, y2]``."""
    ends: dict[str, set[tuple[float, float]]] = {}
    for c in board.connectors:
        v = _vertex(c.label)
        if v is None:
            return {}  # not an edge board: connectors are drawn between space centres
        ends.setdefault(c.a, set()).add(v)
        ends.setdefault(c.b, set()).add(v)
    out: dict[str, list[float]] = {}
    for space in board.spaces:
        vs = sorted(ends.get(space.id, ()))
        if len(vs) == 2:
            out[space.id] = [vs[0][0], vs[0][1], vs[1][0], vs[1][1]]
        elif len(vs) == 1:
            # A rim edge touches one interior vertex; mirror it through the edge's midpoint.
            (x, y), = vs
            out[space.id] = [x, y, 2 * space.x - x, 2 * space.y - y]
    return out


def _viewbox(board: Board, cell: float) -> list[float]:
    xs = [s.x for s in board.spaces] + [a.x for a in board.areas] + [a.x + a.w for a in board.areas]
    ys = [s.y for s in board.spaces] + [a.y for a in board.areas] + [a.y + a.h for a in board.areas]
    if board.width_mm and board.height_mm:
        xs += [0.0, board.width_mm]
        ys += [0.0, board.height_mm]
    pad = cell * 0.6
    x0, y0 = min(xs) - pad, min(ys) - pad
    return [round(x0, 2), round(y0, 2), round(max(xs) + pad - x0, 2), round(max(ys) + pad - y0, 2)]


# -- per-game additions: printed numbers and the like, that live in the position ----------------


def _anacund_labels(position: Mapping[str, Any]) -> dict[str, str]:
    """Each track square's printed number; the bonus square's gets a star."""
    track = position.get("track")
    labels: dict[str, str] = {}
    if not isinstance(track, str):
        return labels
    n = 0
    for ch in track:
        if ch.isdigit():
            n += 1
            labels[f"t{n}"] = ch
        elif ch == "*" and n:
            labels[f"t{n}"] += "★"
    return labels


_LABELS = {"anacund": _anacund_labels}


def space_labels(game_name: str, position: Mapping[str, Any]) -> dict[str, str]:
    """Text printed beside spaces for this position (empty for most games)."""
    fn = _LABELS.get(game_name)
    return fn(position) if fn else {}


def palette(game_name: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Every kind of piece the game uses, as the simulated board's box offers them."""
    game = get_game(game_name)
    opts = game.parse_options(options)
    return _palette(game_name, json.dumps(opts, sort_keys=True))


@cache
def _palette(game_name: str, options_json: str) -> tuple[str, ...]:
    game = get_game(game_name)
    opts = json.loads(options_json)
    tokens: set[str] = set()
    # Walk a line of play from both starting positions, looking one move aside at each step:
    # enough to see every kind of piece the first turns bring out (both sides' pieces).
    for state in (game.start(opts), game.default_setup(opts)):
        for _ in range(_PALETTE_PLIES):
            tokens |= _tokens(state)
            moves = state.legal_moves()
            if not moves:
                break
            for m in moves[:_PALETTE_BRANCHES]:
                tokens |= _tokens(state.successor(m))
            state = state.successor(moves[0])
    # Numbers in their order (a river marker's 2 before its 10), then the pieces by name.
    return tuple(sorted(tokens | _readings_beyond_the_opening(game_name),
                        key=lambda t: (not t.isdigit(), int(t) if t.isdigit() else 0, t)))


def _readings_beyond_the_opening(game_name: str) -> set[str]:
    """What a board can read that the opening's walk never shows: DRIFT's river markers read
    each river's rotation (every arrow of it, round after round), and a coin a piece carries
    stands on edge on it. Without them a game on the simulated board cannot turn its rivers
    a second time, nor carry out a carried coin."""
    if game_name != "drift":
        return set()
    from rules.games.drift import CARRIED
    from rules.games.drift_geometry import COIN_TYPES, geometry

    rivers = geometry().rivers
    return {str(i) for r in rivers for i in range(r.size)} | {CARRIED + c for c in COIN_TYPES}


_PALETTE_PLIES = 40
_PALETTE_BRANCHES = 6


def _tokens(state: State) -> set[str]:
    return {t for toks in state.view(Fidelity.KIND).values() for t in toks}
