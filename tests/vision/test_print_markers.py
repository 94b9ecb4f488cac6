"""`tableref print-markers`, `tableref fit-board` and `tableref calibrate --geometry`: the
own board's paper and its fit from the command line (issue 17, item 2)."""

import json

import cv2
import numpy as np
import pytest

from rules import get_game
from tableref.cli import vision as vision_cli
from vision.read.empty_board import Calibration
from vision.read.lock import detect, make_detector
from vision.readers.for_game import grid_for
from vision.sheets.geometry import BoardGeometry, reference_spaces
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.own_board import draw_own_board, own_board
from vision.simulated.video import write_video


def test_print_markers_png_holds_the_four_corner_markers_at_their_size(tmp_path, capsys):
    out = tmp_path / "markers.png"
    assert vision_cli.main(["print-markers", "--out", str(out), "--dpi", "200", "--marker-mm", "35"]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    img = cv2.imread(str(out))
    px_per_mm = 200 / 25.4
    assert img.shape[1] == pytest.approx(210 * px_per_mm, abs=2)  # an A4 page at 200 dpi
    found = detect(make_detector(), cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 1, 2, 3]
    for c in found.values():
        side = np.linalg.norm(c[1] - c[0])
        assert side / px_per_mm == pytest.approx(35, abs=0.5)


def test_print_markers_pdf_and_bad_arguments(tmp_path, capsys):
    pdf = tmp_path / "m.pdf"
    assert vision_cli.main(["print-markers", "--out", str(pdf)]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    assert vision_cli.main(["print-markers", "--out", str(tmp_path / "m.jpg")]) == 2
    assert "tableref: --out:" in capsys.readouterr().err
    assert vision_cli.main(["print-markers", "--out", str(pdf), "--marker-mm", "5"]) == 2
    assert "tableref: --marker-mm: marker size must be 10-80 mm" in capsys.readouterr().err


def test_fit_board_then_calibrate_through_the_geometry(tmp_path, capsys):
    board = get_game("gyges").board()
    truth = Sheet.from_geometry(board, own_board(board))
    model = CameraModel(truth, CameraSetup(tilt_deg=15.0, fill=0.6), texture=draw_own_board(truth, px_per_mm=4.0),
                        texture_px_per_mm=4.0)
    video = tmp_path / "empty.avi"
    write_video(video, [model.render(Scene(seed=i)) for i in range(4)], fps=10)
    handles = ";".join(f"{sid}={x:.1f},{y + 2:.1f}" for sid in reference_spaces(board)
                       for x, y in model.pose.project(np.float64([[truth.by_id[sid].x, truth.by_id[sid].y, 0]])))
    geo = tmp_path / "board-geometry.json"
    assert vision_cli.main(["fit-board", "--game", "gyges", "--source", str(video), "--handles", handles,
                            "--out", str(geo)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scale"] == pytest.approx(0.9, abs=0.03) and report["reference_spaces"] == ["a6", "f6", "f1", "a1"]
    geometry = BoardGeometry.load(geo)
    cal = tmp_path / "cal.npz"
    assert vision_cli.main(["calibrate", "--source", str(video), "--game", "gyges", "--out", str(cal),
                            "--frames", "2", "--geometry", str(geo)]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "tags"
    Calibration.load(cal, grid_for(Sheet.from_geometry(board, geometry)))
    assert vision_cli.main(["fit-board", "--game", "gyges", "--source", str(video), "--handles", "a6=1,2",
                            "--out", str(geo)]) == 2
    assert "four handles are needed; place f6, f1, a1" in capsys.readouterr().err
    assert vision_cli.main(["fit-board", "--game", "gyges", "--source", str(video), "--handles", "a6=1;f6=2,3",
                            "--out", str(geo)]) == 2
    assert "'a6=1': expected space=x,y" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(geo.read_text().replace('"pitch"', '"pitch_mm"'))
    assert vision_cli.main(["calibrate", "--source", str(video), "--game", "gyges", "--out", str(cal),
                            "--geometry", str(bad)]) == 2
    assert "unknown key 'pitch_mm'" in capsys.readouterr().err
