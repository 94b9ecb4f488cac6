"""Wiring files: the reference one is complete; a broken one is refused naming what and where."""

from __future__ import annotations

import json

import pytest

from firmware_bridge.protocol import Capability, Reading
from firmware_bridge.wiring import Wiring, WiringError
from rules import Fidelity, View, get_game


def test_reference_gyges_wiring_covers_every_space_once():
    w = Wiring.builtin("gyges")
    board = get_game("gyges").board()
    assert sorted(w.spaces.values()) == sorted(board.space_ids) and w.channel_count == 42
    assert w.fidelity is Fidelity.OCCUPANCY
    assert Wiring.from_dict(w.to_dict()) == w


def test_readings_become_a_view():
    w = Wiring.builtin("gyges")
    readings = [Reading.EMPTY] * 42
    readings[w.channels["a1"]] = Reading.PRESENT
    view, unreadable = w.read(readings)
    assert view == View({"a1": "occupied"}) and not unreadable


def polarity_wiring():
    data = Wiring.builtin("gyges").to_dict()
    data.update(reads="polarity", tokens={"north": "1", "south": "2"})
    return Wiring.from_dict(data)


def test_polarity_board_reads_kind_tokens_and_an_untold_pole_is_unreadable():
    w = polarity_wiring()
    assert w.fidelity is Fidelity.KIND
    readings = [Reading.EMPTY] * 42
    readings[w.channels["a1"]] = Reading.NORTH
    readings[w.channels["b1"]] = Reading.SOUTH
    readings[w.channels["c1"]] = Reading.PRESENT
    view, unreadable = w.read(readings)
    assert view == View({"a1": "1", "b1": "2"}) and unreadable == {"c1"}


def test_capabilities_must_fit():
    w = Wiring.builtin("gyges")
    assert w.check_capabilities((Capability.OCCUPANCY,) * 42) is None
    assert "reports 10 channels" in w.check_capabilities((Capability.OCCUPANCY,) * 10)
    assert "reads polarity" in w.check_capabilities((Capability.POLARITY,) * 42)


@pytest.mark.parametrize("change, fault", [
    (lambda d: d.update(wiring=2), "'wiring' must be 1"),
    (lambda d: d.update(game="chess"), "unknown game 'chess'"),
    (lambda d: d.update(colour="red"), "unknown key 'colour'"),
    (lambda d: d["channels"].pop(), "spaces without a sensor: N"),
    (lambda d: d["channels"].__setitem__(1, {"channel": 0, "space": "a6"}), "channels\\[1\\]: channel 0 is already wired"),
    (lambda d: d["channels"].__setitem__(1, {"channel": 1, "space": "N"}), "space 'N' is wired twice"),
    (lambda d: d["channels"].__setitem__(2, {"channel": 2, "space": "z9"}), "'z9' is not a space"),
    (lambda d: d["channels"].__setitem__(2, {"channel": -1, "space": "b6"}), "'channel' must be an integer"),
    (lambda d: d.update(reads="polarity"), "needs 'tokens'"),
    (lambda d: d.update(tokens={"north": "1", "south": "2"}), "only for"),
])
def test_malformed_wiring_is_refused_with_file_and_fault(tmp_path, change, fault):
    data = Wiring.builtin("gyges").to_dict()
    change(data)
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data))
    with pytest.raises(WiringError, match=fault) as info:
        Wiring.from_file(path)
    assert str(path) in str(info.value)


def test_unreadable_file_and_bad_json(tmp_path):
    with pytest.raises(WiringError, match="cannot read wiring file"):
        Wiring.from_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  nope")
    with pytest.raises(WiringError, match="bad.json: line 2: not valid JSON"):
        Wiring.from_file(bad)
    with pytest.raises(WiringError, match="no reference wiring"):
        Wiring.builtin("nosuchgame")
