"""`tableref calibrate` from a video file: empty board, then the colour layout."""

import json

import numpy as np

from rules import View
from tableref.cli import vision as vision_cli
from vision.read.calibration import colour_layout
from vision.read.empty_board import Calibration
from vision.simulated.video import write_video
from vision_support import grid_for


def _video(s, view, path, n=8):
    e = s.effects(hard=False)
    top = np.clip(s.renderer.top_down(view), 0, 255).astype(np.uint8)
    clean = s.renderer.frame(view, s.pose, e, s.rng, top=top, noise=False)
    write_video(path, (s.renderer.reshoot(clean, e, s.rng, 0.3) for _ in range(n)), fps=10)


def test_calibrate_empty_board_then_colours(sessions, tmp_path, capsys):
    s = sessions("anacund")
    empty, layout = tmp_path / "empty.avi", tmp_path / "layout.avi"
    _video(s, View(), empty)
    _video(s, colour_layout(s.sheet), layout)
    out = tmp_path / "cal.npz"
    args = ["calibrate", "--source", str(empty), "--game", "anacund", "--out", str(out), "--frames", "3",
            "--snapshot", str(tmp_path / "lock.png")]
    assert vision_cli.main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "colour" and report["colours"] == [] and len(report["sheet_corners_px"]) == 4
    assert (tmp_path / "lock.png").exists()
    args = ["calibrate", "--source", str(layout), "--game", "anacund", "--out", str(out), "--frames", "3",
            "--position", "layout"]
    assert vision_cli.main(args) == 0
    assert json.loads(capsys.readouterr().out)["colours"] == ["A", "B"]
    assert [c.name for c in Calibration.load(out, grid_for("anacund")).classes] == ["A", "B"]


def test_calibrate_reports_bad_sources_and_positions(tmp_path, capsys):
    out = str(tmp_path / "c.npz")
    assert vision_cli.main(["calibrate", "--source", str(tmp_path / "none.avi"), "--game", "gyges",
                            "--out", out]) == 2
    assert "tableref: --source:" in capsys.readouterr().err
    blank = tmp_path / "blank.avi"
    write_video(blank, [np.full((720, 1280, 3), 128, np.uint8)] * 4, fps=10)
    assert vision_cli.main(["calibrate", "--source", str(blank), "--game", "gyges", "--out", out]) == 2
    assert "corner markers" in capsys.readouterr().err
    bad = tmp_path / "pos.json"
    bad.write_text("{not json")
    assert vision_cli.main(["calibrate", "--source", str(blank), "--game", "gyges", "--out", out,
                            "--position", str(bad)]) == 2
    assert "pos.json: line 1: not valid JSON" in capsys.readouterr().err
