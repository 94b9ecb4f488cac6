"""Reading an Annelids position file (the format is in ``docs/rules/annelids.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidStateError
from ..strict import expect_keys
from .annelids import PLAYERS, Annelid, AnnelidsState
from .annelids_geometry import geometry

_HEADINGS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def _bad(msg: str) -> InvalidStateError:
    return InvalidStateError(f"annelids position: {msg}")


def _count(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if value is None:
        value = default
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _bad(f"'{key}' must be a whole number ≥ 0, not {value!r}")
    return value


def _annelid(i: int, raw: Any, used: dict[str, str]) -> Annelid:
    geo = geometry()
    where = f"annelids[{i}]"
    expect_keys(raw, required=("tail", "colour", "heading"), optional=("segments",),
                where="annelids position", path=where)
    tail, colour, heading = raw.get("tail"), raw.get("colour"), raw.get("heading")
    segments = raw.get("segments", [])
    if not isinstance(tail, str) or tail not in geo.edge_set:
        raise _bad(f"{where}: 'tail' must be an edge of the board (e.g. 'b1e'), not {tail!r}")
    if colour not in PLAYERS:
        raise _bad(f"{where}: 'colour' must be 'blue' or 'green', not {colour!r}")
    if heading not in _HEADINGS:
        raise _bad(f"{where}: 'heading' must be a compass point ({', '.join(_HEADINGS)}), not {heading!r}")
    v = geo.towards(tail, heading)
    if v is None:
        ways = " or ".join(geo.heading[(tail, end)] for end in geo.ends[tail])
        raise _bad(f"{where}: a tail on {tail} points {ways}, not {heading}")
    if not isinstance(segments, list) or not all(isinstance(s, str) for s in segments):
        raise _bad(f"{where}: 'segments' must be a list of edge ids, tail to head")
    name = f"the annelid from tail {tail}"
    for e in (tail, *segments):
        if e not in geo.edge_set:
            raise _bad(f"{name}: no edge {e!r} on the board")
        if e in used:
            raise _bad(f"{name}: edge {e} is already taken by {used[e]}")
        used[e] = name
    for e in segments:
        if (e, v) not in geo.other:
            raise _bad(f"{name}: segment {e} does not continue from its previous edge's end")
        v = geo.other[(e, v)]
    return Annelid(tail, colour, heading, tuple(segments))


def parse_position(data: Mapping[str, Any]) -> AnnelidsState:
    expect_keys(data, required=("annelids",), optional=("game", "to_move", "quota", "placed", "winner", "reason"),
                where="annelids position")
    if data.get("game", "annelids") != "annelids":
        raise _bad(f"'game' is {data.get('game')!r}, expected 'annelids'")
    player = data.get("to_move", "blue")
    if player not in PLAYERS:
        raise _bad(f"'to_move' must be 'blue' or 'green', not {player!r}")
    raw = data.get("annelids")
    if not isinstance(raw, list):
        raise _bad("'annelids' must be a list of {tail, colour, heading, segments}")
    used: dict[str, str] = {}
    worms = tuple(sorted(_annelid(i, a, used) for i, a in enumerate(raw)))
    own = sum(1 for a in worms if a.colour == player)
    quota = _count(data, "quota", own)
    placed = _count(data, "placed", 0)
    winner = data.get("winner")
    reason = data.get("reason") or ""
    if not isinstance(reason, str):
        raise _bad(f"'reason' must be a string or null, not {reason!r}")
    if winner is not None:
        if winner not in PLAYERS:
            raise _bad(f"'winner' must be null, 'blue' or 'green', not {winner!r}")
        if not reason:
            raise _bad("a finished game needs a 'reason'")
    else:
        if reason:
            raise _bad("'reason' is set but there is no 'winner'")
        for p in PLAYERS:
            if not any(a.colour == p for a in worms):
                raise _bad(f"{p} has no annelid left, so the game is over: set 'winner' and 'reason'")
        if quota < 1:
            raise _bad("'quota' must be at least 1")
        if placed >= quota:
            raise _bad(f"'placed' ({placed}) must be less than 'quota' ({quota}): the turn would be over")
    return AnnelidsState(worms, player, quota, placed, winner, reason)
