"""The GPIO matrix source: wiring files, scanning through mock pins, debouncing, pacing;
and the off-a-Pi notice."""

from __future__ import annotations

import json
import logging
import sys

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.matrix import GpioMatrix, MatrixWiring, WiringError
from hardware.panel import open_panel
from hardware.pins import default_pin_factory
from rules import Fidelity, View, get_game

BOARD = get_game("gyges").board()
WIRING = MatrixWiring.builtin(board=BOARD)


def occ(*spaces):
    return View({s: "occupied" for s in spaces})


# -- the wiring file -------------------------------------------------------------------------


def test_reference_wiring_covers_gyges_with_13_pins():
    assert len(WIRING.rows) + len(WIRING.columns) == 13
    assert set(WIRING.spaces) == set(BOARD.space_ids) and len(WIRING.spaces) == 38
    assert WIRING.spaces["a1"] == (0, 0) and WIRING.spaces["S"] == (0, 6) and WIRING.spaces["N"] == (5, 6)


def _wiring(**changes):
    data = json.loads((__import__("importlib").resources.files("hardware") / "wiring" / "gyges-matrix.json").read_text())
    data.update(changes)
    return data


@pytest.mark.parametrize("changes, message", [
    ({"wiring": 2}, r"x\.json: 'wiring' must be 1"),
    ({"colour": "red"}, r"x\.json: unknown key 'colour'"),
    ({"rows": [5, 6, 13, 19, 26]}, r"x\.json: 'grid' must be a list of 5 rows"),
    ({"rows": [5, 6, 13, 19, 26, 20]}, r"pin 20 is given to both 'row 6' and 'column 1'"),
    ({"columns": [20, 21, 4, 11, 9, 10, 99]}, r"columns\[6\]: BCM pin 99 is not on the 40-pin header"),
    ({"rows": "5,6"}, r"rows: expected a non-empty list of pins"),
])
def test_malformed_wiring_is_refused_with_what_and_where(changes, message):
    with pytest.raises(WiringError, match=message):
        MatrixWiring.from_dict(_wiring(**changes), where="x.json")


def test_wiring_must_fit_the_board(tmp_path):
    data = _wiring()
    data["grid"][1][6] = "a1"
    with pytest.raises(WiringError, match=r"space 'a1' is wired twice \(row 1 column 1, row 2 column 7\)"):
        MatrixWiring.from_dict(data, where="x.json")
    data = _wiring()
    data["grid"][0][6] = None
    with pytest.raises(WiringError, match=r"spaces of the gyges board not wired: S"):
        MatrixWiring.from_dict(data, where="x.json", board=BOARD)
    data["grid"][0][6] = "z9"
    with pytest.raises(WiringError, match=r"spaces not on the gyges board: z9"):
        MatrixWiring.from_dict(data, where="x.json", board=BOARD)
    data["grid"][0] = data["grid"][0][:6]
    with pytest.raises(WiringError, match=r"grid row 1 must list 7 entries"):
        MatrixWiring.from_dict(data, where="x.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"wiring": 1,')
    with pytest.raises(WiringError, match=r"bad\.json: line 1: not valid JSON"):
        MatrixWiring.from_file(bad)
    with pytest.raises(WiringError, match=r"missing\.json: cannot read wiring file"):
        MatrixWiring.from_file(tmp_path / "missing.json")
    with pytest.raises(WiringError, match=r"no built-in wiring 'chess'"):
        MatrixWiring.builtin("chess")


# -- scanning ----------------------------------------------------------------------------------


def test_scan_reads_exactly_the_closed_switches(mock_factory, reed_board):
    board = reed_board(WIRING)
    with GpioMatrix(WIRING, pin_factory=mock_factory, debounce=1) as matrix:
        board.place(["a1", "f6", "N", "S", "c3", "d3", "c4"])  # three corners of a rectangle: no ghost at d4
        assert matrix.scan_raw() == {"a1", "f6", "N", "S", "c3", "d3", "c4"}
        obs = matrix.read()
        assert obs.view == occ("a1", "f6", "N", "S", "c3", "d3", "c4")
        assert (obs.fidelity, obs.source, obs.unreadable) == (Fidelity.OCCUPANCY, "gpio", frozenset())
        # Every row line is left high (deselected) after a scan.
        assert all(pin.state for pin in board.rows)
        board.place([])
        assert matrix.read().view == occ()


def test_each_space_is_debounced(mock_factory, reed_board):
    board = reed_board(WIRING)
    with GpioMatrix(WIRING, pin_factory=mock_factory, debounce=3) as matrix:
        board.place(["a1"])
        first = matrix.read()
        assert first.unreadable == frozenset(BOARD.space_ids)  # nothing settled yet
        matrix.read()
        settled = matrix.read()
        assert settled.unreadable == frozenset() and settled.view == occ("a1")
        for placed in (["a1", "b2"], ["a1"], ["a1", "b2"], ["a1", "b2"]):  # b2 chatters, then holds
            board.place(placed)
            assert matrix.read().view == occ("a1")
        board.place(["a1", "b2"])
        assert matrix.read().view == occ("a1", "b2")  # third agreeing scan


def test_observations_are_paced_by_the_clock_and_stop(mock_factory, reed_board):
    reed_board(WIRING).place(["c1"])
    now = [100.0]
    slept = []

    def sleep(dt):
        slept.append(round(dt, 6))
        now[0] += dt

    def clock():
        now[0] += 0.001  # each scan takes a millisecond
        return now[0]

    matrix = GpioMatrix(WIRING, pin_factory=mock_factory, interval=0.05, debounce=1, clock=clock, sleep=sleep)
    try:
        times = []
        for obs in matrix.observations():
            times.append(obs.time)
            if len(times) == 4:
                matrix.stop()
        assert len(times) == 4 and all(obs.view == occ("c1") for obs in [matrix.read()])
        gaps = [round(b - a, 6) for a, b in zip(times, times[1:])]
        assert gaps == [0.05, 0.05, 0.05]  # a fixed schedule: the scan time is absorbed
        assert all(0 < s < 0.05 for s in slept)
        assert len(list(matrix.observations(limit=2))) == 2
    finally:
        matrix.close()
        matrix.close()  # safe twice
    with pytest.raises(RuntimeError, match="start"):
        matrix.scan_raw()


def test_pins_can_be_overridden_and_are_freed_on_close(mock_factory):
    rows, cols = [0, 1, 2, 3, 7, 14], [15, 17, 18, 22, 23, 24, 25]
    matrix = GpioMatrix(WIRING, pin_factory=mock_factory, rows=rows, columns=cols)
    assert matrix.wiring.rows == tuple(rows) and matrix.wiring.spaces == WIRING.spaces
    matrix.start()
    matrix.start()
    matrix.close()
    GpioMatrix(WIRING, pin_factory=mock_factory, rows=rows, columns=cols).start()  # not still reserved
    with pytest.raises(WiringError, match="6 rows and 7 columns expected"):
        GpioMatrix(WIRING, pin_factory=mock_factory, rows=[1, 2])
    with pytest.raises(ValueError, match="debounce"):
        GpioMatrix(WIRING, pin_factory=mock_factory, debounce=0)


# -- off a Pi ------------------------------------------------------------------------------------


def test_off_a_pi_the_factory_lookup_says_why(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    found = default_pin_factory()
    assert found.factory is None and "no-such-factory" in found.reason
    assert "running without the panel" in found.notice
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    found = default_pin_factory()
    assert isinstance(found.factory, MockFactory) and found.notice == "GPIO: using MockFactory"
    monkeypatch.setitem(sys.modules, "gpiozero", None)  # as if it were not installed
    assert "gpiozero is not installed" in default_pin_factory().reason


def test_this_machine_has_no_gpio_and_the_panel_is_skipped_with_a_notice(monkeypatch, caplog):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    if default_pin_factory().factory is not None:
        pytest.skip("this machine has GPIO")
    with caplog.at_level(logging.WARNING, logger="hardware.panel"):
        assert open_panel(lambda command: None) is None
    assert "GPIO not available" in caplog.text and "lgpio" in caplog.text


def test_open_panel_survives_busy_pins(mock_factory, caplog):
    from gpiozero import LED

    held = LED(17, pin_factory=mock_factory)  # someone else has the green LED's pin
    with caplog.at_level(logging.WARNING, logger="hardware.panel"):
        assert open_panel(lambda command: None, pin_factory=mock_factory) is None
    assert "could not start" in caplog.text
    held.close()
    panel = open_panel(lambda command: None, pin_factory=mock_factory)
    assert panel is not None
    panel.close()


# -- tableref gpio ... ---------------------------------------------------------------------------


def _gpio_args(*argv):
    import argparse

    from hardware import cli

    parser = argparse.ArgumentParser(prog="tableref")
    cli.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["gpio", *argv])


def test_gpio_check_says_which_factory_or_why_none(monkeypatch, capsys):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    args = _gpio_args("check")
    assert args.func(args) == 0 and capsys.readouterr().out == "GPIO: using MockFactory\n"
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    assert args.func(args) == 1 and "GPIO not available" in capsys.readouterr().out


def test_gpio_scan_prints_the_board_grid(mock_factory, reed_board, capsys, tmp_path):
    from hardware.cli import run_scan

    reed_board(WIRING).place(["a1", "N"])
    args = _gpio_args("scan", "--count", "3", "--interval", "0")
    assert run_scan(args, pin_factory=mock_factory) == 0
    out = capsys.readouterr().out
    first, second = out.strip().split("\n\n")  # unsettled, then settled; nothing repeated
    assert "a1:?" in first and "a1:#" in second and "  N:#" in second and "b1:." in second
    assert second.splitlines()[0].startswith("R1  a1:#  b1:.")
    bad = tmp_path / "w.json"
    bad.write_text("[]")
    args = _gpio_args("scan", "--wiring", str(bad))
    assert run_scan(args, pin_factory=mock_factory) == 2
    assert "w.json: expected a JSON object" in capsys.readouterr().err


def test_the_wiring_doc_matches_the_defaults():
    """docs/wiring.md's pin table is what the code uses (someone wires from it)."""
    from pathlib import Path

    from hardware.panel import PanelPins

    doc = (Path(__file__).resolve().parents[2] / "docs" / "wiring.md").read_text(encoding="utf-8")
    labels = {"confirm": "confirm button", "undo": "undo button", "end_turn": "end turn button",
              "cycle": "cycle button", "ready": "ready LED (green)", "waiting": "waiting LED (amber)",
              "illegal": "illegal LED (red)", "buzzer": "buzzer"}
    for role, pin in PanelPins().to_dict().items():
        assert f"| {labels[role]} | GPIO{pin}" in doc, role
    assert WIRING.rows == (5, 6, 13, 19, 26, 16) and WIRING.columns == (20, 21, 4, 11, 9, 10, 8)
    for r, pin in enumerate(WIRING.rows):
        assert f"| matrix row {r + 1} " in doc and f"| R{r + 1} GPIO{pin} | " + " | ".join(
            s or "—" for s in WIRING.grid[r]) + " |" in doc
    for c, pin in enumerate(WIRING.columns):
        assert f"C{c + 1} GPIO{pin}" in doc
