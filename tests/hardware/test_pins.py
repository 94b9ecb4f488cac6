"""Pin names (issue 23): every name gpiozero accepts is one header pin, found in gpiozero's own
board data; two roles on one pin are refused however each is written, across every configured
device (panel and GPIO matrix, defaults included), by `tableref config check`."""

from __future__ import annotations

import argparse
import json

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.matrix import GpioMatrix, MatrixWiring
from hardware.panel import Panel, PanelPins
from hardware.pins import PinConfigError, check_distinct, gpio_name, header_pin
from hardware.schedule import ManualScheduler
from rules import get_game
from tableref.cli import config_check as config_cli
from tableref.config import ConfigError, load_config
from decisions import Confirm, Undo

MINIMAL = '[game]\nname = "gyges"\n'
GPIO = MINIMAL + '[source]\nkind = "gpio"\n'


def write(tmp_path, text, name="tableref.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def config_check(path) -> int:
    parser = argparse.ArgumentParser(prog="tableref")
    config_cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["config", "check", str(path)])
    return args.func(args)


@pytest.mark.parametrize("name", [23, "23", "GPIO23", "BCM23", "BOARD16", "J8:16", "WPI4", "gpio23", " board16 "])
def test_every_gpiozero_name_of_a_pin_is_the_same_pin(name):
    pin = header_pin(name, "x")
    assert (pin.name, pin.bcm, pin.board) == ("GPIO23", 23, 16)
    assert gpio_name(name) == "GPIO23"


@pytest.mark.parametrize("name, says", [
    ("GPIO40", "'GPIO40' is not a GPIO of the Pi's 40-pin header"),
    ("BOARD41", "'BOARD41' is not a GPIO of the Pi's 40-pin header"),
    ("BOARD2", "'BOARD2' is header pin 2 (5V), not a GPIO"),
    ("J8:6", "'J8:6' is header pin 6 (GND), not a GPIO"),
    (28, "BCM pin 28 is not on the 40-pin header (GPIO 0-27)"),
    (-1, "BCM pin -1 is not on the 40-pin header"),
    ("", "empty pin name"),
    (2.5, "a pin is a BCM number or a name"),
    (True, "a pin is a BCM number or a name"),
])
def test_a_name_that_is_no_header_gpio_is_refused_with_why(name, says):
    with pytest.raises(PinConfigError, match="^where: " + says.replace("(", r"\(").replace(")", r"\)")):
        header_pin(name, "where")


def test_one_pin_two_roles_is_refused_however_written():
    with pytest.raises(PinConfigError) as err:
        PanelPins.from_dict({"confirm": 23, "undo": "BOARD16"}, where="panel.pins")
    assert str(err.value) == ("panel.pins: pin 'BOARD16' is given to both 'confirm' and 'undo' "
                              "(23 and 'BOARD16' are both GPIO23, header pin 16)")
    with pytest.raises(PinConfigError, match=r"given to both 'row 1' and 'column 2' \('J8:29' and 'bcm5'"):
        check_distinct({"row 1": "J8:29", "column 2": "bcm5"}, "matrix")


def test_panel_pin_errors_carry_one_prefix(tmp_path):
    for pins, says in (('confirm = 23\nundo = "BOARD16"\n', "panel.pins: pin 'BOARD16' is given to both"),
                       ('confirm = 17\n', "panel.pins: pin 17 is given to both 'confirm' and 'ready'"),
                       ('undo = "GPIO40"\n', "panel.pins.undo: 'GPIO40' is not a GPIO")):
        with pytest.raises(ConfigError) as err:
            load_config(write(tmp_path, MINIMAL + "[panel.pins]\n" + pins))
        text = str(err.value)
        assert text.split(": ", 1)[1].startswith(says), text
        assert text.count("panel.pins") == 1 and "panel pins" not in text, text
    with pytest.raises(PinConfigError) as err:
        PanelPins(undo=40)
    assert str(err.value) == "panel.pins.undo: BCM pin 40 is not on the 40-pin header (GPIO 0-27)"


def test_config_check_refuses_a_pin_not_on_the_header(tmp_path, capsys):
    path = write(tmp_path, MINIMAL + '[panel.pins]\nconfirm = "GPIO40"\n')
    assert config_check(path) == 2
    err = capsys.readouterr().err
    assert "panel.pins.confirm: 'GPIO40' is not a GPIO of the Pi's 40-pin header" in err, err
    assert config_check(write(tmp_path, MINIMAL + '[panel.pins]\nconfirm = "board16"\nundo = "J8:18"\n')) == 0


def test_a_panel_pin_on_a_built_in_matrix_row_fails_config_check(tmp_path, capsys):
    """[source.gpio] without rows/columns: the built-in wiring's pins are checked too."""
    path = write(tmp_path, GPIO + "[panel.pins]\nconfirm = 5\n")
    assert config_check(path) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"tableref: {path}: GPIO pins: pin 5 is given to both 'panel.pins.confirm' and "
                   "'matrix row 1 (built-in wiring)' (GPIO5, header pin 29)"), err
    # A default panel pin on a configured column, written as a header pin.
    path = write(tmp_path, GPIO + '[source.gpio]\ncolumns = [20, 21, 4, 11, 9, 10, "BOARD11"]\n')
    with pytest.raises(ConfigError, match=r"given to both 'panel\.pins\.ready' and 'source\.gpio\.columns\[6\]' "
                                          r"\(17 and 'BOARD11' are both GPIO17, header pin 11\)"):
        load_config(path)
    # The panel off: its pins are not claimed, so nothing to clash with.
    assert config_check(write(tmp_path, GPIO + "[panel]\nenabled = false\n[panel.pins]\nconfirm = 5\n")) == 0
    assert config_check(write(tmp_path, GPIO)) == 0  # the defaults fit together


def test_a_panel_pin_on_a_wiring_files_row_fails_once_the_file_is_read(tmp_path):
    ref = MatrixWiring.builtin()
    data = {"wiring": 1, "board": "gyges", "rows": [23, 6, 13, 19, 26, 16], "columns": list(ref.columns),
            "grid": [list(line) for line in ref.grid]}
    write(tmp_path, json.dumps(data), "matrix.json")
    config = load_config(write(tmp_path, GPIO + '[source.gpio]\nwiring = "matrix.json"\n'))
    with pytest.raises(ConfigError, match=r"given to both 'panel\.pins\.confirm' and 'matrix row 1 \(wiring .*matrix\.json\)'"):
        config.check_files()


def test_devices_open_a_pin_written_in_any_name():
    factory = MockFactory()
    try:
        sent = []
        pins = PanelPins.from_dict({"confirm": "J8:16", "undo": "bcm24", "ready": "BOARD11"})
        with Panel(sent.append, pin_factory=factory, pins=pins, scheduler=ManualScheduler()) as panel:
            factory.pin(23).drive_low()
            factory.pin(23).drive_high()
            factory.pin("GPIO24").drive_low()
            assert sent == [Confirm(1), Undo()]
            assert factory.pin(17).state  # the green LED, on BOARD11
            assert panel.pins.confirm == "J8:16"  # kept as written, for the config round trip
        wiring = MatrixWiring.builtin(board=get_game("gyges").board())
        rows = [f"BOARD{n}" for n in (29, 31, 33, 35, 37, 36)]
        with GpioMatrix(wiring, pin_factory=factory, rows=rows) as matrix:
            assert factory.pin(5).function == "output" and matrix.scan_raw() == frozenset()
    finally:
        factory.reset()
