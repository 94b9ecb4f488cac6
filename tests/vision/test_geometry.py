"""vision.sheets.geometry: an own board fitted from four handles and four stuck-on markers."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from rules import get_game
from vision.sheets.geometry import BoardGeometry, GeometryError, fit_geometry, reference_spaces
from vision.sheets.layout import Sheet

BOARD = get_game("gyges").board()
SCALE = 0.8  # the own board's cells: 40 mm, the board file's 50 mm
MARKER = 30.0
# The camera: board-file mm -> px, tilted a little.
HC = np.array([[1.4, 0.1, 200], [0.02, 1.3, 60], [0.0001, 0.0002, 1]])
PLACES = {0: (-20, -60), 1: (330, -55), 2: (335, 480), 3: (-25, 485)}  # file mm, near the corners


def _px(pts) -> np.ndarray:
    return cv2.perspectiveTransform(np.float64(pts).reshape(1, -1, 2), HC)[0]


def _markers() -> dict[int, np.ndarray]:
    side = MARKER / SCALE
    return {i: _px([(x, y), (x + side, y), (x + side, y + side), (x, y + side)]).astype(np.float32)
            for i, (x, y) in PLACES.items()}


def _handles(noise: float = 0.0, seed: int = 1) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    return {s: tuple(_px([(BOARD.space(s).x, BOARD.space(s).y)])[0] + rng.normal(0, noise, 2))
            for s in reference_spaces(BOARD)}


def test_reference_spaces_are_the_corner_cells():
    assert reference_spaces(BOARD) == ("a6", "f6", "f1", "a1")


def test_exact_handles_give_true_scale_and_square_markers():
    g = fit_geometry(BOARD, _handles(), _markers(), marker_mm=MARKER)
    assert g.scale == pytest.approx(SCALE, rel=1e-4)
    assert g.residual_mm < 0.05
    assert g.pitch == pytest.approx(50 * SCALE, rel=1e-3)
    sheet = Sheet.from_geometry(BOARD, g)
    # The markers keep their places relative to the spaces: a1 -> marker 3 as on the board.
    a1 = sheet.by_id["a1"]
    tl3 = sheet.marker_corners()[3][0]
    assert (tl3[0] - a1.x, tl3[1] - a1.y) == pytest.approx(((-25 - BOARD.space("a1").x) * SCALE, (485 - BOARD.space("a1").y) * SCALE), abs=0.05)
    assert np.linalg.norm(sheet.marker_corners()[0][1] - sheet.marker_corners()[0][0]) == pytest.approx(MARKER, abs=0.05)
    # Through the sheet, the lock's homography (markers -> px) puts every space where the camera sees it.
    src = np.concatenate([sheet.marker_corners()[i] for i in range(4)])
    dst = np.concatenate([_markers()[i] for i in range(4)])
    H, _ = cv2.findHomography(src, dst, 0)
    for sid in ("c3", "N", "S", "e5"):
        got = cv2.perspectiveTransform(np.float64([[(sheet.by_id[sid].x, sheet.by_id[sid].y)]]), H)[0, 0]
        assert got == pytest.approx(_px([(BOARD.space(sid).x, BOARD.space(sid).y)])[0], abs=0.05)
    assert sheet.tag_mm == Sheet.for_board(BOARD).tag_mm  # the pieces' tags are the printed ones


def test_hand_error_of_a_few_px_fits_within_a_millimetre():
    g = fit_geometry(BOARD, _handles(noise=2.0), _markers(), marker_mm=MARKER)
    assert abs(g.scale - SCALE) < 0.02 and g.residual_mm < 1.5


def test_round_trip_and_strict_file(tmp_path):
    g = fit_geometry(BOARD, _handles(1.0), _markers(), marker_mm=MARKER)
    path = tmp_path / "board-geometry.json"
    g.save(path)
    back = BoardGeometry.load(path)
    assert back.to_dict() == g.to_dict()
    assert Sheet.from_geometry(BOARD, back).by_id["a1"].x == pytest.approx(g.spaces["a1"][0], abs=1e-3)
    data = json.loads(path.read_text())
    for bad, key in ((dict(data, extra=1), "extra"), ({k: v for k, v in data.items() if k != "scale"}, "scale")):
        path.write_text(json.dumps(bad))
        with pytest.raises(GeometryError, match=f"'{key}'"):
            BoardGeometry.load(path)
    path.write_text(json.dumps(data)[:-1] + ', "game": "gyges"}')
    with pytest.raises(GeometryError, match="duplicate key 'game'"):
        BoardGeometry.load(path)
    data["markers"].pop("2")
    with pytest.raises(GeometryError, match="'markers'"):
        BoardGeometry.from_dict(data)


def test_geometry_of_another_game_or_board_refused():
    g = fit_geometry(BOARD, _handles(), _markers(), marker_mm=MARKER)
    with pytest.raises(GeometryError, match="for gyges, not anacund"):
        Sheet.from_geometry(get_game("anacund").board(), g)
    spaces = dict(g.spaces)
    spaces.pop("c3")
    d = g.to_dict()
    d["spaces"] = {k: list(v) for k, v in spaces.items()}
    with pytest.raises(GeometryError, match="space 'c3' missing"):
        Sheet.from_geometry(BOARD, BoardGeometry.from_dict(d))


def test_degenerate_fits_refused_with_reasons():
    h = _handles()
    swapped = dict(h, a6=h["f6"], f6=h["a6"])
    with pytest.raises(GeometryError, match="wrong order"):
        fit_geometry(BOARD, swapped, _markers(), marker_mm=MARKER)
    line = dict(h, f1=((h["a6"][0] + h["a1"][0]) / 2, (h["a6"][1] + h["a1"][1]) / 2 + 1e-3))
    with pytest.raises(GeometryError, match="one line|wrong order"):
        fit_geometry(BOARD, line, _markers(), marker_mm=MARKER)
    with pytest.raises(GeometryError, match="marker 2 not found"):
        fit_geometry(BOARD, h, {i: c for i, c in _markers().items() if i != 2}, marker_mm=MARKER)
    with pytest.raises(GeometryError, match="four handles"):
        fit_geometry(BOARD, {k: h[k] for k in ("a6", "f6", "f1")}, _markers(), marker_mm=MARKER)
    with pytest.raises(GeometryError, match="no such space"):
        fit_geometry(BOARD, dict(h, z9=(1.0, 2.0)), _markers(), marker_mm=MARKER)
    # A handle a whole cell off: the markers no longer come out as squares of one size.
    off = dict(h, f1=tuple(_px([(BOARD.space("f2").x, BOARD.space("f2").y)])[0]))
    with pytest.raises(GeometryError, match="handle f1 is|different sizes"):
        fit_geometry(BOARD, off, _markers(), marker_mm=MARKER)
    with pytest.raises(GeometryError, match="rings turn"):
        fit_geometry(get_game("drift").board(), h, _markers(), marker_mm=MARKER)


def test_every_key_renamed_dropped_or_given_twice_is_refused_naming_it(tmp_path):
    """As tests/fuzz/test_strict_files.py does for the other files: one key changed at a time."""
    data = fit_geometry(BOARD, _handles(), _markers(), marker_mm=MARKER).to_dict()
    path = tmp_path / "g.json"
    for key in data:
        renamed = {(k + "x" if k == key else k): v for k, v in data.items()}
        dropped = {k: v for k, v in data.items() if k != key}
        twice = json.dumps(data)[:-1] + f", {json.dumps(key)}: {json.dumps(data[key])}}}"
        for text, says in ((json.dumps(renamed), f"unknown key '{key}x'"), (json.dumps(dropped), f"missing key '{key}'"),
                           (twice, f"duplicate key '{key}'")):
            path.write_text(text)
            with pytest.raises(GeometryError, match=re.escape(says)):
                BoardGeometry.load(path)
