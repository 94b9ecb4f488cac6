"""rules.why: the attempt read off an illegal board, for every game; a reason only where the
game gives one, and never for a board a legal move explains."""

from __future__ import annotations

import random

import pytest

from rules import Fidelity, Verdict, View, explain, game_names, get_game, why_not
from rules.why import Attempt


def test_the_attempt_is_what_left_and_what_arrived():
    s = get_game("gyges").default_setup()
    board = s.view(Fidelity.KIND).to_dict()
    board["a3"] = board.pop("a1")  # a ring from a1 to a3
    why = why_not(s, View(board), Fidelity.KIND)
    assert why.attempt.lifted == (("a1", s.view(Fidelity.KIND).get_tokens("a1")[0]),)
    assert why.attempt.is_single and why.attempt.origin == "a1" and why.attempt.target == "a3"


@pytest.mark.parametrize("game", game_names())
def test_every_games_moves_read_as_attempts(game):
    rng = random.Random(game)
    g = get_game(game)
    s = g.default_setup()
    for _ in range(30):
        if s.is_game_over():
            break
        moves = list(s.legal_moves())
        m = rng.choice(moves)
        after = s.successor(m)
        board = after.view(Fidelity.KIND)
        assert explain(s, board, Fidelity.KIND).verdict is not Verdict.ILLEGAL
        why = why_not(s, board, Fidelity.KIND)
        assert isinstance(why.attempt, Attempt) and (why.attempt.lifted or why.attempt.placed or not s.move_spaces(m))
        s = after


def test_no_rule_and_more_than_one_piece_moved_is_said_to_be_several(monkeypatch):
    """Where the game names no rule, a board with two pieces moved (or two put down) is said to be
    "several pieces moved"; one piece moved wrongly is only put back."""
    s = get_game("gyges").default_setup()
    monkeypatch.setattr(type(s), "why_illegal", lambda self, attempt: None)
    one = s.view(Fidelity.KIND).to_dict()
    one["a3"] = one.pop("a1")
    assert not why_not(s, View(one), Fidelity.KIND).several
    two = dict(one)
    two["b3"] = two.pop("b1")
    assert why_not(s, View(two), Fidelity.KIND).several
    put = s.view(Fidelity.KIND).to_dict()
    put["c3"], put["d3"] = put["c1"], put["d1"]  # two pieces put down, nothing lifted
    assert why_not(s, View(put), Fidelity.KIND).several
