"""`tableref serve --config`: the file, then the flags; every source wired to the referee, the
page, the panel and /api/health; bad configurations refused with one line and exit 2."""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from hardware.matrix import MatrixWiring
from rules import Fidelity, Verdict, explain, get_game
from tableref import service as service_mod
from tableref.config import GpioConfig, PanelConfig, ReplayConfig, SerialConfig, load_config
from tableref.serve import Service, add_parser, build_service, main
from tableref.sources.sim import render_script

ROOT = Path(__file__).resolve().parents[2]
WIRING = ROOT / "firmware_bridge" / "wiring" / "gyges.json"
OCC = Fidelity.OCCUPANCY


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def wait_for(what, check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def plain_moves(n):
    s, out = get_game("gyges").default_setup(), []
    while len(out) < n:
        m = next(m for m in s.legal_moves()
                 if explain(s, s.successor(m).view(OCC), OCC).verdict is Verdict.LEGAL)
        out.append(m)
        s = s.successor(m)
    return get_game("gyges").default_setup(), out


# -- the file, then the flags ------------------------------------------------------------------


def test_flags_win_over_the_file(tmp_path):
    cfg = write(tmp_path, '[game]\nname = "anacund"\n[game.options]\nshape = "line"\n'
                          '[stabiliser]\nsettle = 0.3\n[web]\nhost = "0.0.0.0"\nport = 8123\n[data]\ndir = "d"\n')
    config, svc = build_service(parse("--config", str(cfg)))
    assert (config.web.host, config.web.port, svc.game, svc.options["shape"]) == ("0.0.0.0", 8123, "anacund", "line")
    assert svc.journal_path == tmp_path / "d" / "journal.sqlite3" and svc.admin_path.name == "web-admin.json"
    assert svc.stabiliser.settle_time == 0.3 and svc.source_config is None  # the page's simulated board
    config, svc = build_service(parse("--config", str(cfg), "--port", "0", "--host", "127.0.0.1",
                                      "--option", "shape=loop", "--settle", "0.1", "--readings", "5",
                                      "--journal", str(tmp_path / "j.sqlite3"), "--fidelity", "occupancy",
                                      "--setup", "start"))
    assert (config.web.host, config.web.port, svc.options["shape"], svc.setup) == ("127.0.0.1", 0, "loop", "start")
    assert (svc.stabiliser.settle_time, svc.stabiliser.min_readings, svc.fidelity) == (0.1, 5, OCC)
    assert svc.journal_path == tmp_path / "j.sqlite3"
    config, svc = build_service(parse("--config", str(cfg), "--game", "gyges"))
    assert (svc.game, svc.options) == ("gyges", dict(get_game("gyges").parse_options({})))  # anacund's dropped


def test_no_config_is_the_simulated_board_in_the_users_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("TABLEREF_JOURNAL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    config, svc = build_service(parse())
    assert (config.web.host, config.web.port, svc.game, svc.source_config) == ("127.0.0.1", 8000, "gyges", None)
    assert svc.journal_path == tmp_path / "tableref" / "journal.sqlite3"
    assert svc.panel_config is not None  # tried on a Pi; off one, a notice


@pytest.mark.parametrize("text, argv, message", [
    (None, [], "cannot read config file"),
    ('[game]\nname = "chess"\n', [], "game.name: unknown game 'chess'"),
    ('[game]\nname = "gyges"\n[web]\nport = "80"\n', [], "web.port: expected an integer, got string '80'"),
    ('[game]\nname = "gyges"\n[source]\nkind = "serial"\n', [], "source.serial: missing"),
    ('[game]\nname = "gyges"\n[source]\nkind = "serial"\n[source.serial]\nport = "/dev/x"\n'
     'wiring = "nowhere.json"\n', [], "source.serial.wiring: "),
    ('[game]\nname = "gyges"\n[source]\nkind = "replay"\n[source.replay]\nfile = "none.jsonl"\n', [],
     "source.replay.file: "),
    ('[game]\nname = "gyges"\n[source]\nkind = "serial"\n[source.serial]\nport = "loop://"\n', ["--fidelity", "kind"],
     "--fidelity: a serial source reads at the fidelity its wiring"),
    ('[game]\nname = "gyges"\n', ["--port", "70000"], "--port must be 0..65535"),
    ('[game]\nname = "gyges"\n', ["--option", "colour=red"], "unknown option 'colour'"),
    ('[game]\nname = "gyges"\n', ["--option", "variant"], "--option: expected KEY=VALUE"),
    ('[game]\nname = "gyges"\n', ["--game", "chess"], "--game: unknown game 'chess'"),
    ('[game]\nname = "gyges"\n', ["--settle", "-1"], "settle_time must be >= 0"),
])
def test_a_bad_configuration_is_one_line_and_exit_2(tmp_path, text, argv, message):
    cfg = tmp_path / "t.toml" if text is None else write(tmp_path, text)
    code, out, err = run("--config", str(cfg), *argv)
    assert code == 2 and message in err and err.count("\n") == 1 and out == "", err


def test_gpio_source_off_a_pi_is_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setattr("tableref.serve.default_pin_factory", lambda: service_mod_lookup(None))
    cfg = write(tmp_path, '[game]\nname = "gyges"\n[source]\nkind = "gpio"\n[web]\nport = 0\n[data]\ndir = "d"\n')
    code, out, err = run("--config", str(cfg))
    assert code == 2 and "source.kind is \"gpio\", but this machine has no GPIO pins" in err, err
    assert err.count("\n") == 1


def service_mod_lookup(factory):
    from hardware.pins import FactoryLookup

    return FactoryLookup(factory, "" if factory else "no pins here")


def test_a_camera_config_without_the_camera_in_this_build_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(service_mod, "camera_available", lambda: "the camera source is not in this build (test)")
    (tmp_path / "cal.npz").write_bytes(b"x")
    cfg = write(tmp_path, '[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\n'
                          'calibration = "cal.npz"\n')
    code, out, err = run("--config", str(cfg))
    assert code == 2 and 'source.kind: "camera": the camera source is not in this build' in err, err


def test_a_camera_with_a_calibration_for_nothing_is_one_line(tmp_path):
    pytest.importorskip("cv2")
    (tmp_path / "cal.npz").write_bytes(b"not a calibration")
    cfg = write(tmp_path, '[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\n'
                          'calibration = "cal.npz"\n[web]\nport = 0\n[panel]\nenabled = false\n[data]\ndir = "d"\n')
    code, out, err = run("--config", str(cfg))
    assert code == 2 and "source.camera.calibration: " in err and "not a tableref calibration" in err, err


# -- sources through the service -----------------------------------------------------------------


def test_a_replay_is_refereed_resumed_past_and_reported(tmp_path):
    start, moves = plain_moves(2)
    script = render_script(start, moves, fidelity=OCC, seed=1, noise=False)
    script.dump(tmp_path / "game.jsonl")
    texts = [start.move_text(moves[0]), start.successor(moves[0]).move_text(moves[1])]
    source = ReplayConfig(tmp_path / "game.jsonl", speed=0)
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=source, settle=0.2, readings=2) as svc:
        wait_for("the recording ended", lambda: svc.feed.status.state == "ended")
        wait_for("both moves", lambda: svc.table.snapshot()["moves"] == texts)
        health = svc.health().to_dict()
        assert health["source"]["kind"] == "replay" and health["source"]["connected"] is False
        assert health["game"]["ply"] == 2 and health["last_decision"]["kind"] in ("accepted", "game_over")
        assert svc.table.snapshot()["source"]["status"] == "lost"
    # Run again: the game resumes, and the recording is skipped past what was already played.
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=source, settle=0.2, readings=2) as svc:
        wait_for("the recording ended", lambda: svc.feed.status.state == "ended")
        snap = svc.table.snapshot()
        assert (snap["game_id"], snap["moves"]) == (1, texts)
        assert [r["kind"] for r in snap["recent"]] == ["new_game"]  # nothing judged twice


def test_a_lost_serial_board_shows_on_the_page_health_and_panel(tmp_path):
    factory = MockFactory()
    try:
        source = SerialConfig(str(tmp_path / "no-such-tty"), WIRING)
        with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=source, panel=PanelConfig(),
                     pin_factory=factory) as svc:
            wait_for("disconnected", lambda: svc.feed.status.state == "disconnected")
            assert svc.fidelity is OCC  # the reed board's wiring decides
            health = svc.health().to_dict()
            assert (health["source"]["kind"], health["source"]["connected"], health["panel"]) == ("serial", False, "on")
            assert health["ok"] is False
            assert svc.table.snapshot()["source"]["status"] == "lost"
            assert svc.panel.connected is False
        assert svc.feed.status.state == "closed"
        svc.close()  # twice is fine
    finally:
        factory.reset()


class RowPin(MockPin):
    """A matrix row line: each change re-reads the columns (tests/hardware's ReedBoard, in brief)."""

    board = None

    def _change_state(self, value):
        changed = super()._change_state(value)
        if self.board is not None:
            self.board.refresh()
        return changed


class Reeds:
    def __init__(self, factory: MockFactory, wiring: MatrixWiring) -> None:
        self.rows = [factory.pin(p, pin_class=RowPin) for p in wiring.rows]
        for row in self.rows:
            row.board = self
        self.columns = [factory.pin(p) for p in wiring.columns]
        self.cells, self.closed = wiring.spaces, set()

    def place(self, occupied) -> None:
        self.closed = {self.cells[s] for s in occupied}
        self.refresh()

    def refresh(self) -> None:
        low = {r for r, pin in enumerate(self.rows) if pin.function == "output" and not pin.state}
        for c, col in enumerate(self.columns):
            if col.function == "input":
                col.drive_low() if any((r, c) in self.closed for r in low) else col.drive_high()


def test_a_gpio_matrix_and_the_panel_on_mock_pins(tmp_path):
    factory = MockFactory()
    try:
        wiring = MatrixWiring.builtin(board=get_game("gyges").board())
        reeds = Reeds(factory, wiring)
        start, moves = plain_moves(1)
        reeds.place(start.view(OCC).to_dict())
        with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", source=GpioConfig(interval=0.005),
                     panel=PanelConfig(), pin_factory=factory, settle=0.1, readings=2) as svc:
            assert svc.health().to_dict()["source"]["kind"] == "gpio" and svc.panel is not None
            reeds.place(start.successor(moves[0]).view(OCC).to_dict())
            wait_for("the move", lambda: svc.table.snapshot()["moves"] == [start.move_text(moves[0])])
            factory.pin(24).drive_low()  # the panel's undo button: press, release
            factory.pin(24).drive_high()
            wait_for("the takeback", lambda: svc.table.snapshot()["moves"] == [])
            assert svc.table.snapshot()["board_status"]["kind"] == "illegal"  # put the ring back
        assert all(factory.pin(p).function == "input" for p in wiring.rows)  # released
    finally:
        factory.reset()


def test_the_example_config_describes_a_service(tmp_path):
    config = load_config(ROOT / "deploy" / "tableref.toml")
    assert config.source.kind == "simulated" and config.web.port == 8000


def test_a_camera_filming_a_game_is_refereed_with_its_lock_shown(tmp_path, caplog):
    pytest.importorskip("cv2")
    caplog.set_level(logging.INFO, logger="tableref.service")
    from tableref.config import CameraConfig
    from vision.read.samples import SampleGrid
    from vision.sheets.layout import Sheet
    from vision.simulated.sessions import Session, scripted_game
    from vision.simulated.video import script_frames, write_video

    game = "anacund"
    s = Session.create(game, 1, grid=SampleGrid(Sheet.for_board(get_game(game).board())))
    s.calibration.save(tmp_path / "cal.npz")
    start, played = scripted_game(game, 8, 1)
    script = render_script(start, played, fidelity=Fidelity.KIND, seed=8, noise=False)
    frames = script_frames(s.renderer, [(f.view, f.unreadable) for f in script.frames], pose=s.pose,
                           effects=s.effects(hard=False), seed=9)
    write_video(tmp_path / "game.avi", frames, fps=10)
    source = CameraConfig(tmp_path / "cal.npz", "opencv", str(tmp_path / "game.avi"), Fidelity.KIND)
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", game=game, setup="start", source=source) as svc:
        wait_for("the video's end", lambda: svc.feed.status.state == "ended", timeout=30)
        wait_for("the move", lambda: svc.table.snapshot()["moves"] == [start.move_text(played[0])])
        assert svc.health().to_dict()["source"]["kind"] == "camera"
    states = [r.getMessage().rsplit(": ", 1)[-1].split(" (")[0] for r in caplog.records
              if r.getMessage().startswith("camera opencv")]
    # Frozen while the corner markers are being found, then read, until the video ends.
    assert states[0] == "searching" and "locked" in states and states[-1] == "ended", states
