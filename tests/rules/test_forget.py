"""State.forget: a state that drops its memoised answers answers the same afterwards."""

from __future__ import annotations

import random

import pytest

from rules import Fidelity, game_names, get_game


@pytest.mark.parametrize("name", game_names())
def test_a_state_answers_the_same_after_forgetting(name):
    game = get_game(name)
    rng = random.Random(3)
    state = game.default_setup()
    for _ in range(40):
        moves = state.legal_moves()
        if not moves:
            break
        before = (tuple(moves), state.view(Fidelity.KIND), state.to_dict(), state.unseen_moves(Fidelity.KIND))
        memo = set(state.__dict__)
        state.forget()
        assert set(state.__dict__) <= memo
        assert (tuple(state.legal_moves()), state.view(Fidelity.KIND), state.to_dict(),
                state.unseen_moves(Fidelity.KIND)) == before
        assert state == game.from_dict(state.to_dict())
        state = state.apply(rng.choice(moves))
