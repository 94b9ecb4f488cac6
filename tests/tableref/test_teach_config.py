"""``[teach] destinations`` (issue 31, item 1): on by default at home, off by default on a
club's table (``[hub]`` set), the file's word wins; a wrong value names its key."""

from __future__ import annotations

import pytest

from tableref.config import Config, ConfigError
from tableref.serve import Service

GAME = {"game": {"name": "gyges"}}
HUB = {"hub": {"board": "table-07", "broker": "mqtt://club-hub.local:1883"}}


def teach_on(data):
    config = Config.from_dict(data)
    return config.teach.on(club=config.hub is not None)


def test_on_at_home_off_at_a_club_unless_the_file_says():
    assert teach_on(GAME) is True
    assert teach_on({**GAME, **HUB}) is False
    assert teach_on({**GAME, **HUB, "teach": {"destinations": True}}) is True
    assert teach_on({**GAME, "teach": {"destinations": False}}) is False


def test_a_wrong_value_or_key_is_named():
    with pytest.raises(ConfigError, match="teach.destinations"):
        Config.from_dict({**GAME, "teach": {"destinations": "yes"}})
    with pytest.raises(ConfigError, match="teach.lift"):
        Config.from_dict({**GAME, "teach": {"lift": True}})


def test_the_service_takes_it_from_the_config(tmp_path):
    config = Config.from_dict({**GAME, "teach": {"destinations": False}})
    assert Service.from_config(config, admin_path=tmp_path / "a.json").teach is False
    assert Service.from_config(Config.from_dict(GAME), admin_path=tmp_path / "a.json").teach is True


def test_config_check_says_whether_teaching_is_on_and_why():
    from tableref.cli.config_check import summary

    assert "teaching: on (at home; the page's admin can change it)" in summary(Config.from_dict(GAME))
    assert "teaching: off (at a club ([hub]); the page's admin can change it)" in summary(Config.from_dict({**GAME, **HUB}))
    club_on = summary(Config.from_dict({**GAME, **HUB, "teach": {"destinations": True}}))
    assert "teaching: on ([teach] destinations; the page's admin can change it)" in club_on
