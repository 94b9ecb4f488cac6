"""State.unseen_moves: the legal moves a sensor cannot tell from no move (issue 23, item 2)."""

from __future__ import annotations

import random

import pytest

from rules import Fidelity, game_names, get_game
from rules.game import State


def _generic(state, fidelity):
    same = state.view(fidelity)
    return {m for m in state.legal_moves() if state.successor(m).view(fidelity) == same}


@pytest.mark.parametrize("fidelity", list(Fidelity), ids=lambda f: f.value)
@pytest.mark.parametrize("name", game_names())
def test_unseen_moves_are_exactly_the_moves_that_leave_the_view_as_it_was(name, fidelity):
    game = get_game(name)
    rng = random.Random(7)
    for seed in range(3):
        state = game.default_setup() if seed else game.start()
        for _ in range(80):
            moves = state.legal_moves()
            if not moves:
                break
            got = state.unseen_moves(fidelity)
            assert set(got) == _generic(state, fidelity), state.to_dict()
            assert len(set(got)) == len(got)
            state = state.apply(rng.choice(moves))


def test_gyges_bounce_back_onto_the_start_is_unseen_at_kind_only_between_equal_rings():
    gyges = get_game("gyges")
    s = gyges.from_dict({"game": "gyges", "to_move": "south", "phase": "play",
                         "rings": {"c1": 1, "c2": 1, "d1": 2, "d2": 1, "a6": 3, "f6": 2},
                         "winner": None, "variant": "standard"})
    unseen = {s.move_text(m) for m in s.unseen_moves(Fidelity.KIND)}
    assert "c1-c2/c1" in unseen  # two single rings: the board looks the same
    assert "c1-d1/c1" not in unseen  # a single lands on a double: the heights swap, visibly
    assert "c1-d1/c1" in {s.move_text(m) for m in s.unseen_moves(Fidelity.OCCUPANCY)}


def test_the_generic_answer_is_cached_on_the_state():
    annelids = get_game("annelids").default_setup()
    first = State.unseen_moves(annelids, Fidelity.KIND)
    assert State.unseen_moves(annelids, Fidelity.KIND) is first
