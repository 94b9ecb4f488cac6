"""`tableref calibrate-lens` then `tableref calibrate --lens`: a wide lens (k1 -0.25) measured
from ChArUco shots (CAM-RENDER's camera model), the board calibrated and read through it."""

import json
from dataclasses import replace

import cv2

from rules import Fidelity, get_game
from tableref.cli import vision as vision_cli
from vision.read.empty_board import Calibration
from vision.read.lens import Lens, charuco_board
from vision.read.lock import BoardLock
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.scene_film import charuco_shots
from vision.simulated.sessions import random_position
from vision.simulated.video import write_video

SETUP = CameraSetup(size=(1280, 720), tilt_deg=25, fill=0.6, k1=-0.25, yaw_deg=3.0)


def test_lens_measured_then_board_calibrated_and_read_through_it(tmp_path, capsys):
    shots = charuco_shots(charuco_board(), SETUP)
    names = []
    for k, shot in enumerate(shots):
        names.append(str(tmp_path / f"shot{k}.png"))
        cv2.imwrite(names[-1], shot.image)
    lens_file = tmp_path / "lens.json"
    assert vision_cli.main(["calibrate-lens", "--source", ",".join(names), "--out", str(lens_file)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["reprojection_error_px"] < 1.0 and abs(report["dist"][0] + 0.25) < 0.05
    lens = Lens.load(lens_file)

    sheet = Sheet.for_board(get_game("gyges").board())
    model = CameraModel(sheet, SETUP)
    base = Scene(heights=1.0, jpeg=80)
    empty = tmp_path / "empty.avi"
    write_video(empty, (model.render(replace(base, seed=i)) for i in range(6)), fps=10)
    out = tmp_path / "cal.npz"
    assert vision_cli.main(["calibrate", "--source", str(empty), "--game", "gyges", "--out", str(out),
                            "--frames", "3", "--lens", str(lens_file)]) == 0
    capsys.readouterr()
    grid = grid_for(sheet)
    reader = reader_for(grid, Calibration.load(out, grid), Fidelity.KIND, lens=lens)
    view = random_position("gyges", 5, 20).view(Fidelity.KIND)
    frame = model.render(replace(base, view=view, seed=11))
    lock = BoardLock(sheet, lens=lens)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable and status.pose is not None and abs(status.pose.tilt_deg - 25) < 2
    got = reader.read(frame, status.H)
    assert not got.unreadable and got.view.resolved(view) == view


def test_calibrate_refuses_a_bad_lens_file(tmp_path, capsys):
    bad = tmp_path / "lens.json"
    bad.write_text("{}")
    assert vision_cli.main(["calibrate", "--source", str(tmp_path / "x.avi"), "--game", "gyges",
                            "--out", str(tmp_path / "c.npz"), "--lens", str(bad)]) == 2
    assert "--lens" in capsys.readouterr().err
