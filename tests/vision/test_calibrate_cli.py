"""`tableref calibrate` from a video file: empty board, then the colour layout."""

import json

import numpy as np
import pytest

from rules import View
from tableref.cli import vision as vision_cli
from vision.read.calibration import colour_layout
from vision.read.empty_board import Calibration
from vision.read.scale import NEEDED_PX_PER_MM, board_scale
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
    scale = report["board_scale"]  # big enough: nothing said
    assert scale["px_per_mm"] > scale["needed_px_per_mm"] == NEEDED_PX_PER_MM["anacund"]
    assert "small in the picture" not in capsys.readouterr().err
    # A straight lens: its printed lines lie where the markers put them, no lens file is made.
    assert "lie where the markers put them" in report["lens_from_board"] and "lens" not in report
    assert not (tmp_path / "cal-lens.json").exists()
    args = ["calibrate", "--source", str(layout), "--game", "anacund", "--out", str(out), "--frames", "3",
            "--position", "layout"]
    assert vision_cli.main(args) == 0
    assert json.loads(capsys.readouterr().out)["colours"] == ["A", "B"]
    assert [c.name for c in Calibration.load(out, grid_for("anacund")).classes] == ["A", "B"]


def test_calibrate_says_when_the_board_is_too_small_in_the_picture(sessions, tmp_path, capsys):
    """The sheet a third of the picture: learned all the same, with one line on stderr saying
    where it is too small, how small and what the game needs; the figures in the report."""
    from dataclasses import replace

    from vision.simulated.synth import Effects

    s = sessions("gyges")
    rng = np.random.default_rng(5)
    pose = s.renderer.random_pose(rng, rotation=8.0, fill=(0.3, 0.3))
    truth = board_scale(pose.H, s.sheet)
    assert truth.too_small
    video = tmp_path / "small.avi"
    calm = replace(Effects(), blur=0.6)  # a still, evenly lit board: nothing but its size in the way
    clean = s.renderer.frame(View(), pose, calm, rng, noise=False)
    write_video(video, (s.renderer.reshoot(clean, calm, rng, 0.3) for _ in range(8)), fps=10)
    assert vision_cli.main(["calibrate", "--source", str(video), "--game", "gyges", "--out",
                            str(tmp_path / "cal.npz"), "--frames", "3"]) == 0
    out = capsys.readouterr()
    scale = json.loads(out.out)["board_scale"]
    assert scale["px_per_mm"] == pytest.approx(truth.px_per_mm, abs=0.02) and scale["smallest_at"] == truth.space
    assert scale["needed_px_per_mm"] == NEEDED_PX_PER_MM["gyges"]
    line, = out.err.splitlines()
    assert line.startswith(f"tableref: {video}: the board is small in the picture: at {truth.space} a millimetre is ")
    assert line.endswith("move the camera closer, or let the board fill more of the picture"), line


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


def test_calibrate_through_a_wide_lens_measures_it_from_the_board(tmp_path, capsys):
    """No --lens, a barrel (k1 -0.1): the lens is measured from the board's printed lines and
    saved beside the calibration, where the service looks for it; the board is learned through it."""
    from rules import get_game
    from vision.read.lens import Lens
    from vision.sheets.layout import Sheet
    from vision.simulated.camera_model import CameraModel, CameraSetup, Scene

    model = CameraModel(Sheet.for_board(get_game("gyges").board()), CameraSetup(tilt_deg=25, fill=0.6, k1=-0.1))
    video = tmp_path / "empty.avi"
    write_video(video, [model.render(Scene(jpeg=90, seed=i)) for i in range(8)], fps=10)
    out = tmp_path / "cal.npz"
    assert vision_cli.main(["calibrate", "--source", str(video), "--game", "gyges", "--out", str(out),
                            "--frames", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "bow by up to" in report["lens_from_board"], report
    assert report["lens"] == str(tmp_path / "cal-lens.json")
    lens = Lens.load(tmp_path / "cal-lens.json")
    assert lens.dist[0] < 0 and lens.size == (1280, 720)
    # The camera changed for a straight one: learning the empty board again measures the lines
    # again and removes the lens they showed before. One measured on the ChArUco sheet stays.
    straight = CameraModel(model.sheet, CameraSetup(tilt_deg=25, fill=0.6))
    write_video(video, [straight.render(Scene(jpeg=90, seed=i)) for i in range(8)], fps=10)
    assert vision_cli.main(["calibrate", "--source", str(video), "--game", "gyges", "--out", str(out),
                            "--frames", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["lens_removed"] == str(tmp_path / "cal-lens.json") and "lens" not in report, report
    assert not (tmp_path / "cal-lens.json").exists()
    Lens(lens.K, lens.dist, lens.size, 0.4).save(tmp_path / "cal-lens.json")
    assert vision_cli.main(["calibrate", "--source", str(video), "--game", "gyges", "--out", str(out),
                            "--frames", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "lens_from_board" not in report and Lens.load(tmp_path / "cal-lens.json").error_px == 0.4
