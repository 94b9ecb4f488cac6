"""``[clock]`` and ``tableref serve --clock`` (issue 34, part 1): no clock unless asked; each
game's own default; a wrong value names its key; the service's referee keeps the clock."""

from __future__ import annotations

import argparse

import pytest

from decisions.clock import ClockTick
from tableref.config import Config, ConfigError
from tableref.serve import Service, add_parser, build_service

GAME = {"game": {"name": "gyges"}}


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


def test_no_clock_unless_asked_and_each_games_default():
    assert Config.from_dict(GAME).clock.control_for("gyges") is None
    settings = Config.from_dict({**GAME, "clock": {}}).clock
    assert settings.control_for("gyges").text() == "10+5" and settings.control_for("drift").text() == "20+10"
    settings = Config.from_dict({**GAME, "clock": {"control": "5+3", "drift": "30d10", "anacund": "off",
                                                   "undo": "keep", "grace": 0.5, "warn": [30]}}).clock
    assert settings.control_for("gyges").text() == "5+3" and settings.control_for("drift").text() == "30d10"
    assert settings.control_for("anacund") is None
    assert (settings.undo, settings.grace, settings.warn) == ("keep", 0.5, (30,))
    assert settings.control_for("gyges", "off") is None and settings.control_for("gyges", "1").text() == "1"


@pytest.mark.parametrize("table, key", [({"control": "5+"}, "clock.control"), ({"drift": "x"}, "clock.drift"),
                                        ({"undo": "maybe"}, "clock.undo"), ({"warn": [0]}, "clock.warn"),
                                        ({"grace": -1}, "clock.grace"), ({"contrl": "5"}, "clock.contrl")])
def test_a_wrong_value_or_key_is_named(table, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        Config.from_dict({**GAME, "clock": table})


def test_the_command_lines_clock_over_the_file(tmp_path):
    config, _ = build_service(parse("--clock", "3+2", "--journal", str(tmp_path / "j.sqlite3")))
    assert config.clock.control_for("gyges").text() == "3+2"
    config, _ = build_service(parse("--clock", "off", "--journal", str(tmp_path / "j.sqlite3")))
    assert config.clock.control_for("gyges") is None
    with pytest.raises(ConfigError, match="--clock"):
        build_service(parse("--clock", "5x3", "--journal", str(tmp_path / "j.sqlite3")))


def test_the_service_starts_the_clock_and_a_tick_reaches_it(tmp_path):
    config = Config.from_dict({**GAME, "clock": {"control": "0.5"}})
    svc = Service.from_config(config, admin_path=tmp_path / "a.json", threaded=False)
    svc.journal_path = tmp_path / "j.sqlite3"
    with svc.start():
        clock = svc.referee.clock
        assert clock is not None and clock.control.text() == "0.5" and clock.running == "south"
        start = clock.last / 1000
        svc.submit(ClockTick(start + 10))
        assert svc.referee.clock.flagged is None
        svc.submit(ClockTick(start + 31.5))  # half a minute, and the grace: south's flag falls
        assert svc.referee.clock.flagged == "south" and svc.referee.record.finished
