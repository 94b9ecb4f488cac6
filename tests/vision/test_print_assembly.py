"""print-board's tiles come after an assembly page: the whole board small, each tile outlined
and numbered as printed on it (issue 33, item 7)."""

from __future__ import annotations

import numpy as np

from rules import get_game
from tableref.cli import main
from vision.sheets import render
from vision.sheets.layout import Sheet


def test_tiles_come_after_a_page_showing_how_they_go_together():
    sheet = Sheet.for_board(get_game("gyges").board())
    tiles = render.board_pages(sheet, paper="A4", px_per_mm=1.0)
    pages = render.board_pages(sheet, paper="A4", px_per_mm=1.0, assembly=True)
    assert len(tiles) == 8 and len(pages) == 9
    first = pages[0]
    assert sorted((first.width_mm, first.height_mm)) == [210.0, 297.0]
    img = first.image.astype(int)
    coloured = (img.max(axis=2) - img.min(axis=2)) > 100  # the tiles' outlines and numbers
    assert coloured.sum() > 200


def test_a_board_on_one_page_has_no_assembly_page():
    sheet = render.compact_sheet(get_game("annihilation").board(), "A3")
    assert len(render.board_pages(sheet, paper="A3", px_per_mm=1.0, assembly=True)) == 1


def test_print_board_writes_the_assembly_page_first(tmp_path, capsys):
    assert main(["print-board", "--game", "gyges", "--out", str(tmp_path / "b.png"), "--dpi", "50"]) == 0
    written = capsys.readouterr().out.split()
    assert len(written) == 9 and written[0].endswith("b-1.png")
