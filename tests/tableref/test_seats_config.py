"""Seats from the config (``[game.seats]``, ``[opponent]``) and the command line
(``serve --computer SIDE:LEVEL``): each error one line naming the key or flag."""

from __future__ import annotations

import argparse

import pytest

from decisions import parse_seats
from tableref.config import Config, ConfigError
from tableref.serve import add_parser, build_service


def config(text_game: dict, **more) -> Config:
    return Config.from_dict({"game": text_game, **more})


def test_seats_and_opponent_read_from_the_config():
    c = config({"name": "drift", "options": {"players": "red:circle,blue:square,green:hexagon"},
                "seats": {"red": "computer:1", "Green": "computer:5", "blue": "person"}},
               opponent={"hint_level": 4, "time_scale": 2})
    assert c.game.seats.computers == {"red": 1, "green": 5}
    assert (c.opponent.hint_level, c.opponent.time_scale) == (4, 2.0)


@pytest.mark.parametrize("seats, said", [
    ({"east": "computer:1"}, "game.seats: no side 'east' in this game (sides: south, north)"),
    ({"north": "computer:9"}, "game.seats: north: computer level 9: expected 1..5"),
    ({"north": "robot"}, "game.seats: north: seat 'robot': expected 'person' or 'computer:N'"),
])
def test_a_bad_seat_is_one_line_naming_it(seats, said):
    with pytest.raises(ConfigError) as err:
        config({"name": "gyges", "seats": seats})
    assert said in str(err.value) and "\n" not in str(err.value)


def test_a_bad_hint_level_names_the_key():
    with pytest.raises(ConfigError, match="opponent.hint_level"):
        config({"name": "gyges"}, opponent={"hint_level": 6})
    with pytest.raises(ConfigError, match="opponent.tempo"):
        config({"name": "gyges"}, opponent={"tempo": 1})


def _args(*argv):
    ap = argparse.ArgumentParser()
    add_parser(ap.add_subparsers())
    return ap.parse_args(["serve", *argv])


def test_serve_computer_flag_over_the_config(tmp_path):
    _, svc = build_service(_args("--computer", "north:3", "--journal", str(tmp_path / "j.sqlite3")))
    assert svc.seats == parse_seats("north:3")
    with pytest.raises(ConfigError) as err:
        build_service(_args("--computer", "west:3", "--journal", str(tmp_path / "j.sqlite3")))
    assert "--computer" in str(err.value) and "west" in str(err.value)
