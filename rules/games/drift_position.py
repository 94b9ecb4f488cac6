"""Reading and writing a DRIFT position file (the format is in ``docs/rules/drift.md``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import InvalidStateError
from ..strict import expect_keys
from .drift_battle import ROMAN, roster
from .drift_geometry import COIN_TYPES, RIVERS, geometry

if TYPE_CHECKING:
    from .drift import DriftState

PHASES = ("setup", "play", "drift", "over")
WHERE = "drift position"
# Keys a file may leave out (their defaults are in parse_position); turn.left_river and
# turn.crowded came later, so older files and journals lack them.
OPTIONAL = ("game", "ranks", "phase", "to_move", "rotations", "carrying", "coins", "repositories", "turn",
            "to_place")
TURN_OPTIONAL = ("left_river", "crowded")


def _bad(msg: str) -> InvalidStateError:
    return InvalidStateError(f"drift position: {msg}")


def position_dict(st: "DriftState") -> dict[str, Any]:
    geo, ro = geometry(), st.roster
    coins: dict[str, list[str]] = {}
    for s, t in st.lying:
        coins.setdefault(geo.ids[s], []).append(t)
    return {
        "game": "drift",
        "players": [{"colour": c, "home": m} for c, m in zip(st.players, st.homes)],
        "ranks": {ROMAN[r]: n for r, n in zip((3, 2, 1), st.ranks)},
        "phase": st.phase,
        "to_move": st.to_move,
        "rotations": dict(zip(RIVERS, st.rots)),
        "pieces": {ro.ids[p]: geo.ids[s] for p, s in enumerate(st.locs) if s >= 0},
        "carrying": {ro.ids[p]: c for p, c in enumerate(st.carried) if c},
        "coins": coins,
        "repositories": {c: list(r) for c, r in zip(st.players, st.repos)},
        "turn": {"moved": [ro.ids[p] for p in sorted(st.moved)],
                 "current": ro.ids[st.current] if st.current >= 0 else None, "points": st.points,
                 "left_river": RIVERS[st.left_river] if st.left_river >= 0 else None,
                 "crowded": [ro.ids[p] for p in sorted(st.crowd)]},
        "to_place": dict(zip(COIN_TYPES, st.to_place)),
    }


def _count(value: Any, what: str, top: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
        raise _bad(f"{what} must be a whole number 0-{top}, not {value!r}")
    return value


def _obj(data: Mapping[str, Any], key: str, default: Any = None, required: tuple[str, ...] | None = None) -> Any:
    """``data[key]`` (or the default), an object; with ``required``, holding exactly those keys."""
    value = data.get(key, default)
    if not isinstance(value, Mapping):
        raise _bad(f"'{key}' must be an object")
    if required is not None:
        expect_keys(value, required=required, where=WHERE, path=key)
    return value


def parse_position(data: Mapping[str, Any]) -> "DriftState":
    from .drift import COLOURS, DriftState

    expect_keys(data, required=("players", "pieces"), optional=OPTIONAL, where=WHERE)
    if data.get("game", "drift") != "drift":
        raise _bad(f"'game' is {data.get('game')!r}, expected 'drift'")
    geo = geometry()
    raw_players = data.get("players")
    if not isinstance(raw_players, list) or not 2 <= len(raw_players) <= 6:
        raise _bad("'players' must list 2-6 players as {\"colour\": ..., \"home\": marker}")
    players, homes = [], []
    for i, p in enumerate(raw_players):
        expect_keys(p, required=("colour", "home"), where=WHERE, path=f"players[{i}]")
        if p.get("colour") not in COLOURS or p.get("home") not in geo.markers:
            raise _bad(f"players[{i}]: needs 'colour' (one of {', '.join(COLOURS)}) and 'home' "
                       f"(one of {', '.join(geo.markers)})")
        players.append(p["colour"])
        homes.append(p["home"])
    if len(set(players)) != len(players) or len(set(homes)) != len(homes):
        raise _bad("two players share a colour or a home")
    if homes != sorted(homes, key=geo.markers.index):
        raise _bad("'players' must be in turn order: clockwise from the circle "
                   f"({', '.join(geo.markers)})")
    ranks_raw = _obj(data, "ranks", {"III": 2, "II": 2, "I": 2}, required=tuple(ROMAN[r] for r in (3, 2, 1)))
    ranks = tuple(_count(ranks_raw[ROMAN[r]], f"ranks.{ROMAN[r]}", 6) for r in (3, 2, 1))
    if not 1 <= sum(ranks) <= 6:
        raise _bad("a player has 1-6 pieces")
    ro = roster(tuple(players), ranks)  # type: ignore[arg-type]
    n = len(players)
    phase = data.get("phase", "play")
    if phase not in PHASES:
        raise _bad(f"'phase' must be one of {', '.join(PHASES)}, not {phase!r}")
    to_move = data.get("to_move", players[0])
    if to_move not in players:
        raise _bad(f"'to_move' must be one of the players ({', '.join(players)}), not {to_move!r}")
    seat = players.index(to_move)
    if phase in ("setup", "drift") and seat != 0:
        raise _bad(f"in the {phase} phase 'to_move' is the first player, {players[0]}")
    rot_raw = _obj(data, "rotations", dict.fromkeys(RIVERS, 0), required=RIVERS)
    rots = tuple(_count(rot_raw[r], f"rotations.{r}", river.size - 1) for r, river in zip(RIVERS, geo.rivers))

    locs = [-1] * len(ro.ids)
    for pid, where in _obj(data, "pieces").items():
        if pid not in ro.index:
            raise _bad(f"pieces: no piece {pid!r} in this game (e.g. {ro.ids[0]})")
        if not isinstance(where, str) or where not in geo.index:
            raise _bad(f"pieces: {pid} is on {where!r}, which is not a land space or river arrow")
        locs[ro.index[pid]] = geo.index[where]
    owner_of_home = {geo.home[m]: seat_ for seat_, m in enumerate(homes)}
    by_space: dict[int, list[int]] = {}
    for p, s in enumerate(locs):
        if s >= 0:
            by_space.setdefault(s, []).append(p)
    for s, ps in by_space.items():
        if len(ps) > 1 and not (s in owner_of_home and all(ro.owner[p] == owner_of_home[s] for p in ps)):
            raise _bad(f"pieces: {', '.join(ro.ids[p] for p in ps)} share {geo.ids[s]} "
                       "(only a player's own home may hold several of its pieces)")
    carried = [""] * len(ro.ids)
    for pid, coin in _obj(data, "carrying", {}).items():
        if pid not in ro.index or locs[ro.index[pid]] < 0:
            raise _bad(f"carrying: {pid!r} is not a piece in play")
        if ro.rank[ro.index[pid]] != 1:
            raise _bad(f"carrying: {pid} is not rank I; only a (I) carries coins")
        if coin not in COIN_TYPES:
            raise _bad(f"carrying: {pid} carries {coin!r}; coins are {', '.join(COIN_TYPES)}")
        carried[ro.index[pid]] = coin
    lying: list[tuple[int, str]] = []
    for where, coins in _obj(data, "coins", {}).items():
        if where not in geo.index:
            raise _bad(f"coins: {where!r} is not a land space or river arrow")
        if not isinstance(coins, list) or any(c not in COIN_TYPES for c in coins):
            raise _bad(f"coins: {where}: expected a list of coin types ({', '.join(COIN_TYPES)})")
        lying += [(geo.index[where], c) for c in coins]
    repo_raw = _obj(data, "repositories", {c: [] for c in players}, required=tuple(players))
    repos = []
    for c in players:
        r = repo_raw[c]
        if not isinstance(r, list) or any(t not in COIN_TYPES for t in r) or len(set(r)) != len(r):
            raise _bad(f"repositories: {c}: at most one coin of each type ({', '.join(COIN_TYPES)})")
        repos.append(tuple(sorted(r, key=COIN_TYPES.index)))
    place_raw = _obj(data, "to_place", dict.fromkeys(COIN_TYPES, 0), required=COIN_TYPES)
    to_place = tuple(_count(place_raw[t], f"to_place.{t}", n) for t in COIN_TYPES)
    for t, left in zip(COIN_TYPES, to_place):
        total = left + sum(1 for _, c in lying if c == t) + carried.count(t) + sum(t in r for r in repos)
        if total != n:
            raise _bad(f"there are {total} {t} coins, but {n} players bring {n}")
    if (phase == "setup") != any(to_place):
        raise _bad("coins are still to place exactly in the setup phase")
    complete = [c for c, r in zip(players, repos) if len(r) == len(COIN_TYPES)]
    if len(complete) > 1:
        raise _bad(f"{' and '.join(complete)} cannot both have won")
    if (phase == "over") != bool(complete):
        raise _bad("'phase' is 'over' exactly when a repository holds one coin of each type")

    turn = _obj(data, "turn", {"moved": [], "current": None, "points": 0})
    expect_keys(turn, required=("moved", "current", "points"), optional=TURN_OPTIONAL, where=WHERE, path="turn")
    moved_raw, current_raw = turn.get("moved", []), turn.get("current")
    if not isinstance(moved_raw, list) or any(m not in ro.index for m in moved_raw):
        raise _bad("turn.moved must list pieces")
    moved = frozenset(ro.index[m] for m in moved_raw)
    if any(ro.owner[p] != seat for p in moved):
        raise _bad(f"turn.moved: only {to_move}'s pieces move this turn")
    current = -1
    if current_raw is not None:
        if current_raw not in moved_raw:
            raise _bad("turn.current must be one of turn.moved, or null")
        current = ro.index[current_raw]
    points = _count(turn.get("points", 0), "turn.points", ro.rank[current] if current >= 0 else 0)
    left_raw = turn.get("left_river")
    if left_raw is not None and (left_raw not in RIVERS or current < 0 or points == 0):
        raise _bad(f"turn.left_river must be null or the river ({', '.join(RIVERS)}) the current piece "
                   f"left in its move, while it has points left; not {left_raw!r}")
    left_river = RIVERS.index(left_raw) if left_raw is not None else -1
    crowd = _crowd(turn, ro, locs, geo.home[homes[seat]], seat, moved, phase)
    return DriftState(tuple(players), tuple(homes), ranks, tuple(locs), tuple(carried), tuple(sorted(lying)),
                      tuple(repos), rots, "play" if phase == "over" else phase, seat, moved, current, points,
                      left_river=left_river, crowd=crowd, to_place=to_place)  # type: ignore[arg-type]


def _crowd(turn: Mapping[str, Any], ro, locs: list[int], home: int, seat: int, moved: frozenset[int],
           phase: str) -> frozenset[int]:
    """``turn.crowded``: the mover's pieces that were in its home when the turn began (two or
    more; D4). A file without it (older files) reads the home as it is now."""
    raw = turn.get("crowded")
    if raw is None:
        inside = [p for p in ro.pieces_of(seat) if locs[p] == home] if phase in ("play", "over") else []
        return frozenset(inside) if len(inside) > 1 else frozenset()
    if not isinstance(raw, list) or any(q not in ro.index for q in raw) or len(set(raw)) != len(raw):
        raise _bad("turn.crowded must list pieces")
    crowd = frozenset(ro.index[q] for q in raw)
    if phase in ("setup", "drift") and crowd:
        raise _bad(f"turn.crowded: no turn is under way in the {phase} phase")
    if len(crowd) == 1:
        raise _bad("turn.crowded lists the pieces in the home when the turn began if two or more, "
                   f"not one ({raw[0]})")
    for q in crowd:
        if ro.owner[q] != seat or locs[q] < 0 or (locs[q] != home and q not in moved):
            raise _bad(f"turn.crowded: {ro.ids[q]} must be the mover's, in its home or moved from it this turn")
    return crowd
