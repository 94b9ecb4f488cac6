"""The sequence search's prune (``State.max_move_spaces``): a bound a game declares must hold
for every legal move, and explain must answer exactly as without the prune."""

from __future__ import annotations

import random

import pytest

from rules import Fidelity, View, explain, game_names, get_game
from rules.game import State



def playout(name: str, seed: int, *, setup: bool) -> list[State]:
    game, rng = get_game(name), random.Random(seed)
    states = [game.start() if setup else game.default_setup()]
    while not states[-1].is_game_over() and len(states) < 200:
        states.append(states[-1].apply(rng.choice(states[-1].legal_moves())))
    return states


BOUNDED = [n for n in game_names() if type(get_game(n).default_setup()).max_move_spaces is not None]


def test_gyges_declares_its_bound():
    assert "gyges" in BOUNDED


@pytest.mark.parametrize("name", BOUNDED)
def test_a_declared_bound_holds_for_every_legal_move(name):
    bound = type(get_game(name).default_setup()).max_move_spaces
    for setup in (True, False):
        for state in playout(name, 7, setup=setup)[:60]:
            for move in state.legal_moves():
                assert len(state.move_spaces(move)) <= bound, (name, state.move_text(move))


def _scrambled(state: State, rng: random.Random) -> View:
    """The board after two pieces were put down on empty spaces at random: mostly illegal,
    the case where the sequence search looks hardest."""
    view = state.view(Fidelity.KIND)
    spaces = {s.id: view.get_tokens(s.id) for s in get_game(state.game_name).board().spaces}
    occupied = [s for s, t in spaces.items() if t]
    empty = [s for s, t in spaces.items() if not t]
    for _ in range(2):
        if not occupied or not empty:
            break
        a, b = occupied.pop(rng.randrange(len(occupied))), empty.pop(rng.randrange(len(empty)))
        spaces[b], spaces[a] = spaces[a], ()
    return View(spaces)


def test_gyges_explain_answers_the_same_with_and_without_the_prune(monkeypatch):
    game = get_game("gyges")
    rng = random.Random(11)
    cases = []
    for seed in range(4):
        states = playout("gyges", seed, setup=False)
        for state in states[4:40:12]:
            if not state.is_game_over():
                cases.append((state, _scrambled(state, rng)))
                # A real move's result seen as one change must stay explained.
                move = rng.choice(state.legal_moves())
                after = state.successor(move)
                if not after.is_game_over() and after.legal_moves():
                    cases.append((state, after.successor(rng.choice(after.legal_moves())).view(Fidelity.KIND)))
    pruned = [explain(game.from_dict(s.to_dict()), v) for s, v in cases]
    monkeypatch.setattr(type(cases[0][0]), "max_move_spaces", None)
    full = [explain(game.from_dict(s.to_dict()), v) for s, v in cases]
    assert [e.to_dict() for e in pruned] == [e.to_dict() for e in full]
    assert any(e.verdict.name == "LEGAL" for e in full) and any(e.verdict.name == "ILLEGAL" for e in full)
