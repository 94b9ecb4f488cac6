"""`tableref print-board --layout compact` (issue 17, item 4): one A3 (or two A4), the pieces
still on their spaces where their real footprints allow it, said per game."""

import cv2
import pytest

from rules import get_game
from tableref.cli import vision as vision_cli
from vision.read.lock import detect, make_detector
from vision.sheets import render


@pytest.mark.parametrize("game, fits", [("annihilation", True), ("gyges", False), ("anacund", False),
                                        ("drift", False)])
def test_compact_fit_says_whether_the_pieces_fit(game, fits):
    board = get_game(game).board()
    fit = render.compact_fit(board, "A3")
    assert 0 < fit.scale < 1 and fit.pieces_fit is fits
    sheet = render.compact_sheet(board, "A3")
    assert len(render.board_pages(sheet, paper="A3", px_per_mm=1.0)) == 1
    assert len(render.board_pages(sheet, paper="A4", px_per_mm=1.0)) == 2
    # the spaces keep the board file's layout at the scale; the tags stay the standard sheet's size
    a, b = board.spaces[0], board.spaces[-1]
    sa, sb = sheet.by_id[a.id], sheet.by_id[b.id]
    assert sb.x - sa.x == pytest.approx((b.x - a.x) * fit.scale, abs=1e-6)
    assert sheet.tag_mm == render.Sheet.for_board(board).tag_mm


def test_compact_print_is_readable_paper(tmp_path, capsys):
    out = tmp_path / "compact.png"
    assert vision_cli.main(["print-board", "--game", "annihilation", "--layout", "compact", "--paper", "A3",
                            "--out", str(out), "--dpi", "100"]) == 0
    assert "compact at 85 %" in capsys.readouterr().err
    img = cv2.imread(str(out))
    assert sorted(detect(make_detector(), cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))) == [0, 1, 2, 3]
    assert vision_cli.main(["print-board", "--game", "gyges", "--layout", "compact", "--out",
                            str(tmp_path / "g.pdf")]) == 0
    assert "do NOT fit" in capsys.readouterr().err
