"""Anacund position files: reading and checking them (format in ``docs/rules/anacund.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidStateError
from ..strict import expect_keys
from .anacund import (
    GROUP_SIZE,
    GROUPS,
    PER_TURN,
    PIECES,
    PLAYERS,
    SHAPES,
    AnacundState,
    _placed_by,
)
from .anacund_track import DEFAULT_TRACK, FREE, OTHER, SQUARES, closed_runs, make_track

KEYS = ("game", "track", "shape", "to_move", "phase", "groups", "pieces", "landlocked", "comment")


def _bad(msg: str) -> InvalidStateError:
    return InvalidStateError(f"anacund position: {msg}")


def _groups(raw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    form = f"'groups' must be {{\"A\": [n, n, n], \"B\": [n, n, n]}}: the pieces left in each player's {GROUPS} groups (0-{GROUP_SIZE})"
    expect_keys(raw, required=PLAYERS, where="anacund position", path="groups")
    out = []
    for p in PLAYERS:
        sizes = raw[p]
        if (not isinstance(sizes, list) or len(sizes) != GROUPS
                or any(isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= GROUP_SIZE for n in sizes)):
            raise _bad(f"{form}; {p} has {sizes!r}")
        out.append(tuple(sorted(sizes, reverse=True)))
    return out[0], out[1]


def _cells(raw: Any) -> list[str]:
    if not isinstance(raw, Mapping):
        raise _bad("'pieces' must be an object of space -> colour: t1..t36 for pieces on the squares, "
                   "s1..s36 for captured pieces beside them (in the captor's colour)")
    cells = [FREE] * SQUARES
    for space, colour in raw.items():
        kind, num = str(space)[:1], str(space)[1:]
        if kind not in ("t", "s") or not num.isdigit() or not 1 <= int(num) <= SQUARES or num != str(int(num)):
            raise _bad(f"'pieces': no space {space!r} (squares t1..t{SQUARES}, side strip s1..s{SQUARES})")
        if colour not in PLAYERS:
            raise _bad(f"'pieces': {space}: colour must be 'A' or 'B', not {colour!r}")
        i = int(num) - 1
        if cells[i] != FREE:
            raise _bad(f"'pieces': t{i + 1} holds a piece and s{i + 1} a captured one; a square whose pieces "
                       "were captured is dead and stays empty")
        cells[i] = colour if kind == "t" else colour.lower()
    return cells


def parse_position(data: Mapping[str, Any]) -> AnacundState:
    expect_keys(data, required=("groups",), optional=KEYS, where="anacund position")
    if data.get("game", "anacund") != "anacund":
        raise _bad(f"'game' is {data.get('game')!r}, expected 'anacund'")
    shape = data.get("shape", "loop")
    if shape not in SHAPES:
        raise _bad(f"'shape' must be 'loop' or 'line', not {shape!r}")
    text = data.get("track", DEFAULT_TRACK)
    if not isinstance(text, str):
        raise _bad(f"'track' must be a string, not {text!r}")
    try:
        track = make_track(text, shape)
    except ValueError as exc:
        raise _bad(f"'track': {exc}") from None
    if "to_move" in data and data["to_move"] not in PLAYERS:
        raise _bad(f"'to_move' must be 'A' or 'B', not {data['to_move']!r}")
    groups = _groups(data["groups"])
    cells = _cells(data.get("pieces", {}))

    placed = [PIECES - sum(g) for g in groups]
    for p, n in zip(PLAYERS, placed):
        # Every piece a player placed is still on its square, or beside it turned to the other colour.
        here = cells.count(p) + cells.count(OTHER[p].lower())
        if here != n:
            raise _bad(f"{p}'s groups hold {PIECES - n} pieces, so {p} has placed {n}, but {here} are on the track "
                       f"({cells.count(p)}) or captured beside it ({cells.count(OTHER[p].lower())})")
    total = sum(placed)
    if tuple(placed) != _placed_by(total):
        a, b = _placed_by(total)
        raise _bad(f"A has placed {placed[0]} and B {placed[1]}; with A starting and {PER_TURN} each per turn, "
                   f"after {total} placements A has placed {a} and B {b}")

    landlocked: tuple[int, ...] = ()
    runs = closed_runs(track, cells)
    if "landlocked" in data:
        raw = data["landlocked"]
        if (not isinstance(raw, list) or not raw
                or any(isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= SQUARES for s in raw)):
            raise _bad("'landlocked' must be a non-empty list of square numbers (the run to be captured next)")
        landlocked = tuple(sorted(s - 1 for s in raw))
        last = "A" if (total - 1) % (2 * PER_TURN) < PER_TURN else "B"
        if total == 0 or any(cells[i] != last for i in landlocked):
            raise _bad(f"'landlocked': the run must be pieces of {last}, who placed last")
        if not any(set(run) == set(landlocked) for _, run in runs):
            raise _bad("'landlocked': those squares are not a whole run with an opponent's piece on both sides")
    open_runs = [run for _, run in runs if set(run) != set(landlocked)]
    if open_runs:
        where = ", ".join(f"t{i + 1}" for i in open_runs[0])
        raise _bad(f"the run {where} has an opponent's piece on both sides: it would have been captured")

    state = AnacundState(track, "".join(cells), groups, landlocked)
    if "to_move" in data and data["to_move"] != state.to_move:
        raise _bad(f"'to_move' is {data['to_move']!r} but {total} placements were made, so {state.to_move} is to move")
    if "phase" in data and data["phase"] != state.phase:
        raise _bad(f"'phase' is {data['phase']!r} but the position is in {state.phase!r}")
    return state
