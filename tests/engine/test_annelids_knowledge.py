"""Annelids' order of segments (engine/knowledge/annelids.py): a turn's last segments get a
simulation or two, so they are played in this order — room to grow first, an opponent's head's
last way on taken, a removal last (positions from docs/rules/annelids and from play)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from engine import knowledge_for
from engine.knowledge.annelids import territory
from rules import get_game
from rules.games.annelids import Place, Remove

ROOT = Path(__file__).resolve().parents[2]
KNOW = knowledge_for("annelids")


def position(name: str):
    return get_game("annelids").from_dict(json.loads((ROOT / f"docs/rules/annelids/{name}.json").read_text()))


def test_an_annelid_is_removed_last():
    state = position("self-removal")  # blue's c3ne can run into itself, or grow
    order = KNOW.order(state, KNOW.moves(state), random.Random(1))
    assert isinstance(order[-1], Remove) and all(isinstance(m, Place) for m in order[:-1])
    assert isinstance(KNOW.fallback(state, KNOW.moves(state), random.Random(1)), Place)


def test_the_edge_an_opponents_head_needs_comes_first():
    state = position("removal-other")  # f6e's g7sw is the only edge green's g6e head can still take
    order = KNOW.order(state, KNOW.moves(state), random.Random(1))
    assert order[0] == Place("f6e", "g7sw")


def test_room_to_grow_before_a_dead_end():
    state = get_game("annelids").default_setup(None)
    rng = random.Random(7)
    for _ in range(4000):  # random play until one annelid may grow into a dead end and another may not
        moves = KNOW.moves(state)
        places = [m for m in moves if isinstance(m, Place)]
        dead = [m for m in places if _free_ahead(state, m) == 0]
        room = [m for m in places if _free_ahead(state, m) >= 2]
        if dead and room:
            break
        state = state.successor(moves[rng.randrange(len(moves))])
        if state.is_game_over():
            state = get_game("annelids").default_setup(None)
    else:
        raise AssertionError("no position with a dead end and room found")
    order = KNOW.order(state, moves, random.Random(2))
    assert max(order.index(m) for m in room) < min(order.index(m) for m in dead)


def _free_ahead(state, move) -> int:
    """Empty edges onward from the head a placement makes (counted here from the rules' geometry)."""
    from rules.games.annelids_geometry import geometry

    geo = geometry()
    occ, paths, by_tail = state._index()
    ahead = geo.other[(move.edge, paths[by_tail[move.tail]][-1])]
    return sum(1 for f in geo.onward[(move.edge, ahead)] if f not in occ)


# -- the cut-off judged by room -------------------------------------------------------------------


def _played(seed: int, plies: int):
    state, rng = get_game("annelids").default_setup(None), random.Random(seed)
    for _ in range(plies):
        moves = KNOW.moves(state)
        state = state.successor(moves[rng.randrange(len(moves))])
        if state.is_game_over():
            break
    return state


def _reachable(state, colour: str) -> set[str]:
    """Every empty edge some head of ``colour`` could grow onto, alone on the board (no race)."""
    from rules.games.annelids_geometry import geometry

    geo = geometry()
    seen: set[str] = set()
    todo = [state.head(a.tail) for a in state.annelids if a.colour == colour]
    while todo:
        edge, vertex = todo.pop()
        for f in geo.onward[(edge, vertex)]:
            if f not in seen and not state.is_taken(f):
                seen.add(f)
                todo.append((f, geo.other[(f, vertex)]))
    return seen


def test_room_is_each_players_own_reach_and_no_edge_twice():
    for seed in range(6):
        state = _played(seed, 40 + 30 * seed)
        edges = territory(state)
        for colour in ("blue", "green"):
            mine = _reachable(state, colour)
            assert edges.get(colour, 0) <= len(mine)
            if not mine:
                assert edges.get(colour, 0) == 0
        both = _reachable(state, "blue") | _reachable(state, "green")
        assert sum(edges.values()) <= len(both)


def test_the_start_gives_both_players_the_same_room():
    start = get_game("annelids").default_setup(None)
    edges = territory(start)
    assert edges["blue"] == edges["green"] > 100


def test_a_cut_off_with_equal_annelids_favours_the_player_with_more_room():
    """Survivors alone call it even; the room does not (the judgement before read survivors)."""
    found = 0
    for seed in range(40):
        state = _played(seed, 60)
        alive = state.scores()
        if state.is_game_over() or alive["blue"] != alive["green"]:
            continue
        edges = territory(state)
        gap = edges.get("blue", 0) - edges.get("green", 0)
        if abs(gap) < 20:
            continue
        ahead = "blue" if gap > 0 else "green"
        assert KNOW.value(state, ("blue", "green"))[ahead] > 0.7, (seed, edges)
        found += 1
    assert found >= 3
