"""What the voice says for a lifted piece (issue 31, item 1), in English and in French."""

from __future__ import annotations

import pytest

from decisions import Lifted, NewGame
from rules import get_game
from tableref.voice.sentences import Narrator


def narrator(lang, game):
    n = Narrator(lang)
    n.on(NewGame(1, 0, game, get_game(game).default_setup({}).to_dict()))
    return n


@pytest.mark.parametrize("lang, four, one, stuck, wrong", [
    ("en", "It may go to 4 spaces", "It may go to 1 space", "That piece cannot move now", "Not your piece: Red to move"),
    ("fr", "Elle peut aller sur 4 cases", "Elle peut aller sur 1 case", "Cette pièce ne peut pas bouger maintenant",
     "Pas votre pièce : au tour de Rouge"),
])
def test_lifted_says_how_many_or_whose_turn(lang, four, one, stuck, wrong):
    n = narrator(lang, "drift")
    [u] = n.on(Lifted(1, 0, "O0", "red-III", "red", "red", ("O1", "O2", "O3", "O4")))
    assert (u.text, u.level, u.topic) == (four, "normal", "status")
    [u] = n.on(Lifted(1, 0, "O0", "red-III", "red", "red", ("O1",)))
    assert u.text == one
    [u] = n.on(Lifted(1, 0, "O0", "red-I", "red", "red", ()))
    assert u.text == stuck
    [u] = n.on(Lifted(1, 0, "O8", "blue-III", "blue", "red", ()))
    assert (u.text, u.level) == (wrong, "quiet")
