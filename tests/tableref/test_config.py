"""The TOML configuration (tableref/config.py): the example loads, defaults, flags over the file,
and every kind of bad input is one ConfigError naming the file, the key and what is expected."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hardware.panel import PanelPins
from rules import Fidelity
from tableref.cli import config_check as config_cli
from tableref.config import (
    CameraConfig, Config, ConfigError, GpioConfig, ReplayConfig, SerialConfig, SimulatedConfig, load_config,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "deploy" / "tableref.toml"
MINIMAL = '[game]\nname = "gyges"\n'


def write(tmp_path: Path, text: str, name: str = "tableref.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refused(tmp_path: Path, text: str) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: "), str(info.value)  # always names the file
    return info.value


# -- good files -----------------------------------------------------------------------------------


def test_the_example_config_loads_and_covers_every_source():
    config = load_config(EXAMPLE)
    assert config.game.name == "gyges" and config.game.options["variant"] == "standard"
    assert isinstance(config.source, SimulatedConfig)
    assert config.web.host == "127.0.0.1" and config.web.port == 8000
    assert config.panel.pins == PanelPins()
    assert config.journal_path == Path("/var/lib/tableref/journal.sqlite3")
    assert config.admin_path == Path("/var/lib/tableref/web-admin.json")
    text = EXAMPLE.read_text(encoding="utf-8")
    kinds = {"serial": SerialConfig, "gpio": GpioConfig, "camera": CameraConfig, "replay": ReplayConfig}
    for kind, cls in kinds.items():  # every table in the example is a valid one, whichever is chosen
        other = Config.from_dict(_toml(text.replace('kind = "simulated"', f'kind = "{kind}"')), where="x")
        assert isinstance(other.source, cls)
    serial = Config.from_dict(_toml(text.replace('kind = "simulated"', 'kind = "serial"')), where="x").source
    assert serial.port == "/dev/tableref-board" and serial.wiring is None and serial.baudrate == 115200


def _toml(text: str) -> dict:
    import tomllib

    return tomllib.loads(text)


def test_a_minimal_file_takes_the_documented_defaults(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    config = load_config(write(tmp_path, MINIMAL))
    assert config.game.setup == "default"
    assert dict(config.game.options) == {"variant": "standard", "south_captures": None, "north_captures": None}
    assert config.source == SimulatedConfig(None, 1.0, Fidelity.KIND)
    assert (config.stabiliser.settle, config.stabiliser.readings) == (0.6, 3)
    assert (config.web.host, config.web.port) == ("127.0.0.1", 8000)
    assert config.panel.enabled and config.panel.pins == PanelPins()
    assert config.journal_path == tmp_path / "xdg" / "tableref" / "journal.sqlite3"


def test_relative_paths_are_relative_to_the_file_and_the_journal_to_the_data_dir(tmp_path):
    config = load_config(write(tmp_path, MINIMAL + """
[source]
kind = "serial"
[source.serial]
port = "loop://"
wiring = "board.json"
[data]
dir = "state"
journal = "games.sqlite3"
"""))
    assert config.source.wiring == tmp_path / "board.json"
    assert config.data.dir == tmp_path / "state"
    assert config.journal_path == tmp_path / "state" / "games.sqlite3"


def test_options_are_parsed_by_the_game(tmp_path):
    config = load_config(write(tmp_path, '[game]\nname = "annihilation"\n[game.options]\ntarget = 30\n'))
    assert config.game.options == {"target": 30, "first": "white"}


def test_flags_override_the_file(tmp_path):
    config = load_config(write(tmp_path, MINIMAL + '[game.options]\nvariant = "kings"\n[web]\nport = 9000\n'))
    assert config.with_overrides().web.port == 9000
    moved = config.with_overrides(host="0.0.0.0", port=8123)
    assert (moved.web.host, moved.web.port) == ("0.0.0.0", 8123)
    assert moved.game.options["variant"] == "kings"
    other = config.with_overrides(game="annelids", journal=tmp_path / "j.sqlite3")
    assert other.game.name == "annelids" and dict(other.game.options) == {}  # gyges's options dropped
    assert other.journal_path == tmp_path / "j.sqlite3"
    assert config.with_overrides(game="gyges").game.options["variant"] == "kings"  # same game: kept
    with pytest.raises(ConfigError, match=r"--port: expected a port number 0-65535"):
        config.with_overrides(port=70000)
    with pytest.raises(ConfigError, match=r"--game: unknown game 'chess'"):
        config.with_overrides(game="chess")


def test_no_config_file_is_the_simulated_gyges_demo(monkeypatch, tmp_path):
    monkeypatch.setenv("TABLEREF_JOURNAL", str(tmp_path / "x" / "j.sqlite3"))
    config = Config.default()
    assert config.game.name == "gyges" and isinstance(config.source, SimulatedConfig)
    assert config.journal_path == tmp_path / "x" / "j.sqlite3"
    assert config.admin_path == tmp_path / "x" / "web-admin.json"


# -- bad files: each names the file, the key and what is expected ---------------------------------


@pytest.mark.parametrize("text,key,says", [
    # missing
    ("", "game", "missing: expected a [game] table"),
    ("[game]\n", "game.name", "missing: expected a game name"),
    (MINIMAL + '[source]\nkind = "serial"\n', "source.serial", "a [source.serial] table is expected"),
    (MINIMAL + '[source]\nkind = "serial"\n[source.serial]\nbaudrate = 9600\n', "source.serial.port", "missing"),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\n', "source.camera.calibration", "missing"),
    (MINIMAL + "[source]\n", "source.kind", 'missing: expected one of "simulated", "serial"'),
    # wrong type
    ("game = 3\n", "game", "expected a table ([game]), got integer 3"),
    ("[game]\nname = 3\n", "game.name", "got integer 3"),
    (MINIMAL + '[web]\nport = "80"\n', "web.port", "expected an integer, got string '80'"),
    (MINIMAL + "[web]\nport = 8000.0\n", "web.port", "expected an integer, got float 8000.0"),
    (MINIMAL + "[stabiliser]\nreadings = true\n", "stabiliser.readings", "expected an integer, got boolean True"),
    (MINIMAL + '[stabiliser]\nsettle = "fast"\n', "stabiliser.settle", "expected a number"),
    (MINIMAL + '[panel]\nenabled = "yes"\n', "panel.enabled", "expected true or false"),
    (MINIMAL + '[source]\nkind = "serial"\n[source.serial]\nport = 3\n', "source.serial.port",
     "expected a device path or a pyserial URL (a string), got integer 3"),
    (MINIMAL + "[game.options]\nvariant = [1]\n", "game.options.variant", "expected a string or a number"),
    (MINIMAL + '[data]\ndir = ""\n', "data.dir", "expected a path, got an empty string"),
    # out of range / not one of
    (MINIMAL + "[web]\nport = 70000\n", "web.port", "expected a port number 0-65535"),
    (MINIMAL + '[web]\nhost = "my host"\n', "web.host", "expected an address"),
    (MINIMAL + "[stabiliser]\nsettle = -1\n", "stabiliser.settle", "expected a number >= 0"),
    (MINIMAL + "[stabiliser]\nreadings = 0\n", "stabiliser.readings", "expected an integer >= 1"),
    (MINIMAL + '[source]\nkind = "telepathy"\n', "source.kind", "got 'telepathy'"),
    (MINIMAL + 'setup = "halfway"\n', "game.setup", 'expected one of "default", "start"'),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "c.json"\nbackend = "webcam"\n',
     "source.camera.backend", 'expected one of "auto", "picamera", "opencv"'),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "c.json"\nbackend = "picamera"\n'
     'device = "/dev/video0"\n', "source.camera.device", "chosen by number"),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "c.json"\npaced = "yes"\n',
     "source.camera.paced", "true or false"),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "c.json"\nsize = "1080p"\n',
     "source.camera.size", "[width, height] in pixels"),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "c.json"\nsize = [1920]\n',
     "source.camera.size", "got [1920]"),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "c.json"\nsize = [1921, 1080]\n',
     "source.camera.size", "even width 320-4608 and height 240-2592 (a camera's modes), got 1921x1080"),
    (MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "c.json"\nsize = [true, 1080]\n',
     "source.camera.size", "whole pixels"),
    (MINIMAL + '[source]\nkind = "simulated"\n[source.simulated]\nfidelity = "smell"\n',
     "source.simulated.fidelity", 'expected one of "occupancy", "kind", "identity"'),
    # unknown game, bad option
    ('[game]\nname = "chess"\n', "game.name", "unknown game 'chess' (known: anacund"),
    (MINIMAL + '[game.options]\nvariant = "queens"\n', "game.options.variant", "standard or kings"),
    (MINIMAL + "[game.options]\nsouth_captures = 0\n", "game.options.south_captures", "must be at least 1"),
    (MINIMAL + "[game.options]\ncolour = 1\n", "game.options.colour", "gyges has no option 'colour'"),
    # unknown keys, at every level
    (MINIMAL + "[webb]\n", "webb", "unknown key (did you mean 'web'?)"),
    (MINIMAL + "[web]\nprot = 80\n", "web.prot", "unknown key (did you mean 'port'?); known here: host, port"),
    ('[game]\nname = "gyges"\nnmae = "x"\n', "game.nmae", "unknown key (did you mean 'name'?)"),
    (MINIMAL + '[source]\nkind = "simulated"\n[source.serial]\nport = "loop://"\nbaud = 9600\n',
     "source.serial.baud", "unknown key (did you mean 'baudrate'?)"),
    (MINIMAL + "[panel.pins]\nbeeper = 18\n", "panel.pins", "unknown role 'beeper'"),
    # pins
    (MINIMAL + "[panel.pins]\nconfirm = 40\n", "panel.pins", "BCM pin 40 is not on the 40-pin header"),
    (MINIMAL + "[panel.pins]\nconfirm = 24\n", "panel.pins", "pin 24 is given to both 'confirm' and 'undo'"),
    (MINIMAL + '[source]\nkind = "gpio"\n[source.gpio]\nrows = [5, 6, 13, 19, 26, 16]\n'
     "columns = [20, 21, 4, 11, 9, 10, 23]\n", "GPIO pins", "pin 23 is given to both 'panel.pins.confirm'"),
    (MINIMAL + '[source]\nkind = "gpio"\n[source.gpio]\nrows = [5, 5]\n', "source.gpio", "given to both"),
    (MINIMAL + '[source]\nkind = "gpio"\n[source.gpio]\nrows = [5, true]\n', "source.gpio.rows[1]",
     "a pin is a BCM number"),
    (MINIMAL + '[source]\nkind = "gpio"\n[source.gpio]\nrows = []\n', "source.gpio.rows", "non-empty array"),
])
def test_bad_input_names_the_key_and_what_is_expected(tmp_path, text, key, says):
    err = refused(tmp_path, text)
    assert f": {key}: " in str(err) or str(err).split(": ", 1)[1].startswith(key), str(err)
    assert says in str(err), str(err)


def test_invalid_toml_names_the_line(tmp_path):
    err = refused(tmp_path, MINIMAL + "\n[web]\nport = = 80\n")
    assert "line 5, column 8: not valid TOML" in str(err)
    err = refused(tmp_path, MINIMAL + '[game]\nname = "gyges"\n')  # a table defined twice
    assert "line 3" in str(err) and "not valid TOML" in str(err)


def test_an_unreadable_file_names_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"missing\.toml: cannot read config file: No such file"):
        load_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match=r": cannot read config file: Is a directory"):
        load_config(tmp_path)
    path = tmp_path / "latin.toml"
    path.write_bytes(b'[game]\nname = "gyg\xe8s"\n')
    with pytest.raises(ConfigError, match=r"latin\.toml: not UTF-8 text"):
        load_config(path)


# -- the files a config names ---------------------------------------------------------------------


def test_check_files_reads_what_the_config_names(tmp_path):
    serial = MINIMAL + '[source]\nkind = "serial"\n[source.serial]\nport = "loop://"\n'
    load_config(write(tmp_path, serial)).check_files()  # the game's reference wiring
    with pytest.raises(ConfigError, match=r"source\.serial\.wiring: .*nope\.json: cannot read wiring file"):
        load_config(write(tmp_path, serial + 'wiring = "nope.json"\n')).check_files()
    annelids = '[game]\nname = "annelids"\n[source]\nkind = "serial"\n[source.serial]\nport = "loop://"\n'
    with pytest.raises(ConfigError, match=r"source\.serial\.wiring: no reference wiring for 'annelids'"):
        load_config(write(tmp_path, annelids)).check_files()

    gpio = MINIMAL + '[source]\nkind = "gpio"\n'
    load_config(write(tmp_path, gpio)).check_files()
    with pytest.raises(ConfigError, match=r"source\.gpio\.wiring: matrix pins: 6 rows and 7 columns expected"):
        load_config(write(tmp_path, gpio + "[source.gpio]\nrows = [5, 6]\n")).check_files()

    script = write(tmp_path, '{"board_script": 1, "game": "annelids", "fidelity": "kind"}\n', "s.jsonl")
    replay = MINIMAL + f'[source]\nkind = "replay"\n[source.replay]\nfile = "{script.name}"\n'
    with pytest.raises(ConfigError, match=r"source\.replay\.file: .*is a annelids script, but game.name is 'gyges'"):
        load_config(write(tmp_path, replay)).check_files()
    camera = MINIMAL + '[source]\nkind = "camera"\n[source.camera]\ncalibration = "cal.json"\n'
    load_config(write(tmp_path, camera)).check_files()  # not made yet: the set-up state (/setup makes it)
    nowhere = camera.replace('"cal.json"', '"no-such-dir/cal.json"')
    with pytest.raises(ConfigError, match=r"source\.camera\.calibration: .*cal\.json: not made yet, and its folder "
                                          r".*no-such-dir does not exist"):
        load_config(write(tmp_path, nowhere)).check_files()
    write(tmp_path, "{}", "cal.json")
    load_config(write(tmp_path, camera)).check_files()
    write(tmp_path, "", "afile")
    with pytest.raises(ConfigError, match=r"data\.dir: .*afile exists and is not a directory"):
        load_config(write(tmp_path, MINIMAL + '[data]\ndir = "afile"\n')).check_files()


def _check(path: Path) -> int:
    parser = argparse.ArgumentParser(prog="tableref")
    config_cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["config", "check", str(path)])
    return args.func(args)


def test_config_check_command(tmp_path, capsys):
    assert _check(EXAMPLE) == 0
    out = capsys.readouterr().out
    assert "tableref.toml: ok" in out and "journal: /var/lib/tableref/journal.sqlite3" in out
    assert _check(write(tmp_path, MINIMAL + "[web]\nport = -1\n")) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == f"tableref: {tmp_path / 'tableref.toml'}: web.port: expected a port number " \
                                   "0-65535 (0: any free port), got -1"
