"""An illegal verdict always names at least one thing to change (issue 23, item 2), for every
game and fidelity: boards disturbed at random from positions of random playouts."""

from __future__ import annotations

import random

import pytest

from rules import Fidelity, Verdict, View, explain, game_names, get_game


def _disturbed(view: View, spaces: list[str], tokens: list[str], rng: random.Random) -> View:
    board = {s: list(t) for s, t in view.items()}
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if board and roll < 0.4:
            del board[rng.choice(sorted(board))]
        elif board and roll < 0.7:
            src = rng.choice(sorted(board))
            board.setdefault(rng.choice(spaces), []).append(board.pop(src)[-1])
        else:
            board.setdefault(rng.choice(spaces), []).append(rng.choice(tokens))
    return View(board)


@pytest.mark.parametrize("fidelity", list(Fidelity), ids=lambda f: f.value)
@pytest.mark.parametrize("name", game_names())
def test_every_illegal_verdict_names_a_space_to_change(name, fidelity):
    game = get_game(name)
    rng = random.Random(11)
    spaces = list(game.board().space_ids)
    illegal = 0
    for setup in (True, False):
        state = game.start() if setup else game.default_setup()
        for ply in range(60):
            moves = state.legal_moves()
            if not moves:
                break
            if ply % 4 == 0:
                current = state.view(fidelity)
                tokens = sorted({t for toks in state.view(fidelity).values() for t in toks}) or ["occupied"]
                for _ in range(3):
                    observed = _disturbed(current, spaces, tokens, rng)
                    e = explain(state, observed, fidelity, max_sequence=1)
                    if e.verdict is Verdict.ILLEGAL:
                        illegal += 1
                        assert e.restore, (state.to_dict(), observed.to_dict())
                        for fix in e.restore:
                            assert fix.expected != fix.observed, fix
            state = state.apply(rng.choice(moves))
    assert illegal > 0  # the test saw illegal boards at all
