"""Annelids' order of segments (engine/knowledge/annelids.py): a turn's last segments get a
simulation or two, so they are played in this order — room to grow first, an opponent's head's
last way on taken, a removal last (positions from docs/rules/annelids and from play)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from engine import knowledge_for
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
