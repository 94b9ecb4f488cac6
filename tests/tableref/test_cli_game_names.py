"""A game named on the command line by its name or its title, in any case, with or without
accents (issue 33, item 7); an unknown one is refused in one line listing the games."""

from __future__ import annotations

import json

import pytest

from rules import UnknownGameError, game_named, game_names
from tableref.cli import main


@pytest.mark.parametrize("given", ["gyges", "Gygès", "GYGÈS", "gygès", " Gyges "])
def test_gyges_by_any_spelling(given):
    assert game_named(given) == "gyges"


def test_every_game_by_its_name_and_its_title():
    from rules import get_game

    for name in game_names():
        assert game_named(name) == name
        assert game_named(get_game(name).title.upper()) == name


def test_an_unknown_game_lists_the_games():
    with pytest.raises(UnknownGameError, match=r"unknown game 'chess' \(known: anacund, .*gyges\)"):
        game_named("chess")


def test_simulate_board_says_unknown_game_not_no_wiring(capsys):
    assert main(["simulate-board", "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tableref: --game: unknown game 'chess' (known: anacund, ") and "wiring" not in err
    assert len(err.splitlines()) == 1


def test_the_title_with_its_accent_is_taken_on_the_command_line(capsys):
    assert main(["rules", "start", "--game", "Gygès"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == "gyges"
