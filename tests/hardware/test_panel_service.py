"""The panel inside `tableref serve` (issue 23): what it shows at start-up, and what its long
press starts — on gpiozero's MockFactory, with the service's own threads."""

from __future__ import annotations

import time
from pathlib import Path

from gpiozero.pins.mock import MockPin

from hardware.matrix import MatrixWiring
from hardware.panel import PanelPins
from rules import Fidelity, get_game
from tableref.config import GpioConfig, PanelConfig, SerialConfig
from tableref.serve import Service

GYGES = get_game("gyges")
PINS = PanelPins()
OPTIONS = {"variant": "kings", "south_captures": 2, "north_captures": 2}


def wait_for(what, predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def states(factory, pin):
    return [s.state for s in factory.pin(pin).states]


def test_start_up_on_a_matching_board_is_green_and_silent(tmp_path, mock_factory, reed_board):
    """The source starts (status "starting", then "connected") and the board matches the
    game: green, no chirp, no red flash — "sensors disconnected" is for a lost source only."""
    wiring = MatrixWiring.builtin(board=GYGES.board())
    reed_board(wiring).place(GYGES.default_setup().view(Fidelity.OCCUPANCY).to_dict())
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=GpioConfig(interval=0.005),
                 panel=PanelConfig(), pin_factory=mock_factory, settle=0.1, readings=2, setup="default") as svc:
        assert svc.panel is not None
        wait_for("the matrix", lambda: svc.feed.status.state == "connected")
        wait_for("a settled board", lambda: svc.table.snapshot()["source"]["status"] == "steady")
        time.sleep(0.4)  # several settled scans: any verdict on the board has been shown
        assert svc.table.snapshot()["board_status"]["kind"] != "illegal"
        assert states(mock_factory, PINS.buzzer) == [False]  # never sounded
        assert states(mock_factory, PINS.illegal) == [False]  # never lit
        assert mock_factory.pin(PINS.ready).state and not mock_factory.pin(PINS.waiting).state


def test_a_board_that_never_connects_is_shown_lost_once(tmp_path, mock_factory):
    """The other side: a serial board whose port cannot be opened is lost — red blinking and
    one chirp, however often the link retries."""
    wiring = Path(__file__).resolve().parents[2] / "firmware_bridge" / "wiring" / "gyges.json"
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=SerialConfig(str(tmp_path / "no-tty"), wiring),
                 panel=PanelConfig(), pin_factory=mock_factory) as svc:
        wait_for("disconnected", lambda: svc.feed.status.state == "disconnected")
        wait_for("red blinking", lambda: len(states(mock_factory, PINS.illegal)) >= 3)
        assert svc.panel.connected is False
        time.sleep(0.3)
        assert states(mock_factory, PINS.buzzer) == [False, True, False]  # one chirp


def test_long_press_starts_the_configured_game_options_and_setup(tmp_path, mock_factory):
    """deploy/tableref.toml's setup = "default": the long press of confirm starts the ready-to-
    play position with the configured options, not an empty set-up phase."""
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", game="gyges", options=OPTIONS, setup="default",
                 panel=PanelConfig(), pin_factory=mock_factory, threaded=False) as svc:
        first = svc.referee.record
        assert first.state == GYGES.default_setup(GYGES.parse_options(OPTIONS))
        confirm = mock_factory.pin(PINS.confirm)
        confirm.drive_low()
        wait_for("the long press", lambda: svc.referee.record.id != first.id, timeout=6.0)
        confirm.drive_high()
        record = svc.referee.record
        assert record.game == "gyges" and dict(record.options) == dict(first.options)
        assert record.state == first.state and record.state.to_dict().get("phase") != "setup"
        assert svc.panel.lights.mode.value == "ready"


def test_a_gpio_matrix_whose_pin_is_taken_shows_as_lost(tmp_path, mock_factory):
    """docs/wiring.md, "A GPIO matrix fault": the matrix cannot claim a row pin at start —
    the source is "reconnecting" with the reason, and the panel blinks red and chirps once;
    once the pin is free the matrix is opened again (tableref/source_retry.py) and reads."""
    from gpiozero import LED

    taken = LED(5, pin_factory=mock_factory)  # someone else holds row 1's pin
    try:
        with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=GpioConfig(interval=0.005),
                     panel=PanelConfig(), pin_factory=mock_factory) as svc:
            wait_for("the failure", lambda: svc.feed.status.state == "reconnecting")
            health = svc.health().to_dict()["source"]
            assert health["connected"] is False and "in use" in health["detail"], health
            assert svc.table.snapshot()["source"]["status"] == "lost"
            assert any("could not start" in n and "GPIO5" in n for n in svc.notices), svc.notices
            wait_for("red blinking", lambda: len(states(mock_factory, PINS.illegal)) >= 3)
            time.sleep(0.2)
            assert states(mock_factory, PINS.buzzer) == [False, True, False]  # one chirp
            assert not mock_factory.pin(PINS.ready).state
            taken.close()
            wait_for("the matrix opened again", lambda: svc.feed.status.state == "connected", timeout=8.0)
    finally:
        taken.close()


class FailingRow(MockPin):
    """A row line whose GPIO chip goes away after some scans (as an unplugged HAT would)."""

    changes_left = 200
    board = None  # the ReedBoard re-reading the columns (conftest's RowPin, with a failure)

    def _change_state(self, value):
        FailingRow.changes_left -= 1
        if FailingRow.changes_left < 0:
            raise OSError("GPIO chip gone")
        changed = super()._change_state(value)
        if self.board is not None:
            self.board.refresh()
        return changed


def test_a_gpio_matrix_failing_mid_game_shows_as_lost(tmp_path, mock_factory, reed_board, monkeypatch):
    wiring = MatrixWiring.builtin(board=GYGES.board())
    monkeypatch.setattr(FailingRow, "changes_left", 400)
    mock_factory.pin(wiring.rows[0], pin_class=FailingRow)
    reed_board(wiring).place(GYGES.default_setup().view(Fidelity.OCCUPANCY).to_dict())
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=GpioConfig(interval=0.002),
                 panel=PanelConfig(), pin_factory=mock_factory, setup="default") as svc:
        wait_for("the failure", lambda: svc.feed.status.state == "reconnecting")
        assert "GPIO chip gone" in svc.health().to_dict()["source"]["detail"]
        wait_for("red blinking", lambda: len(states(mock_factory, PINS.illegal)) >= 3)
        time.sleep(0.2)
        assert states(mock_factory, PINS.buzzer) == [False, True, False]  # the one chirp: lost
        assert svc.referee.record.id == 1 and svc.referee.ply == 0  # the game is kept as it stood
