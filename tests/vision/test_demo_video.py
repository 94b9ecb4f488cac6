"""`tableref demo-video`: a filmed scripted game, its calibration and config, played through
the service as its camera — the camera path tried with no camera."""

import time
from dataclasses import replace

import pytest

from tableref.cli import main
from tableref.config import load_config
from tableref.serve import Service


def _wait(what, check, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("game", ["anacund", "drift"])
def test_demo_video_plays_through_the_service_as_its_camera(tmp_path, capsys, game):
    assert main(["demo-video", "--game", game, "--out", str(tmp_path), "--moves", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert f"tableref serve --config {tmp_path / (game + '.toml')}" in out
    moves = (tmp_path / f"{game}-moves.txt").read_text().split("\n")[:-1]
    assert len(moves) >= 2  # (more if the ready-to-play position still had setup placements to film)
    config = load_config(tmp_path / f"{game}.toml")
    assert config.source.kind == "camera" and config.journal_path.parent == tmp_path / "data"
    assert config.source.paced  # to be watched; the test plays it as fast as it reads
    config = replace(config, source=replace(config.source, paced=False, loop=False))  # played once
    with Service.from_config(config) as svc:
        _wait("the video's end", lambda: svc.feed.status.state == "ended")
        _wait("the moves", lambda: len(svc.table.snapshot()["moves"]) == len(moves), timeout=10)
        played = svc.table.snapshot()["moves"]
    if game != "drift":  # (DRIFT at kind fidelity may name the other of two like pieces)
        assert played == moves


def test_demo_video_refuses_bad_input_with_one_line(tmp_path, capsys):
    assert main(["demo-video", "--game", "chess", "--out", str(tmp_path)]) == 2
    assert main(["demo-video", "--game", "gyges", "--out", str(tmp_path), "--moves", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("tableref: --game: ") and err[1].startswith("tableref: --moves: ")


def test_the_demo_video_starts_again_at_its_end_as_a_new_game(tmp_path, capsys):
    """A late viewer still sees it played (issue 33, item 7): the film loops, each pass a game."""
    assert main(["demo-video", "--game", "anacund", "--out", str(tmp_path), "--moves", "2", "--seed", "3"]) == 0
    capsys.readouterr()
    moves = (tmp_path / "anacund-moves.txt").read_text().split("\n")[:-1]
    config = load_config(tmp_path / "anacund.toml")
    assert config.source.loop
    config = replace(config, source=replace(config.source, paced=False))
    with Service.from_config(config) as svc:
        _wait("a second pass", lambda: svc.table.snapshot()["game_id"] == 2)
        _wait("its moves", lambda: svc.table.snapshot()["moves"] == moves, timeout=30)
        assert svc.feed.status.state != "ended"
    from tableref.journal import Journal

    with Journal(config.journal_path) as j:
        assert j.load(1).moves == moves  # the first pass's game, whole
