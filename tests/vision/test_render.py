"""The printed sheet and tag sheet: true scale, readable markers, valid files."""

import re

import cv2
import numpy as np
import pytest

from rules import Fidelity, get_game
from tableref.cli import vision as vision_cli
from vision.read.lock import detect, detect_all, make_detector
from vision.sheets import layout, render
from vision.sheets.layout import Sheet

from vision_support import ALL_GAMES


@pytest.mark.parametrize("game", ALL_GAMES)
def test_sheet_holds_every_space_inside_the_markers(game):
    sheet = Sheet.for_board(get_game(game).board())
    w, h = sheet.size
    corners = sheet.marker_corners()
    inner = (corners[0][2], corners[2][0])  # inner corners of top-left and bottom-right markers
    for s in sheet.shapes:
        assert 0 < s.x < w and 0 < s.y < h, s
        if s.kind == "edge":
            assert s.length > 0
    assert inner[0][0] < inner[1][0] and inner[0][1] < inner[1][1]


def test_annelids_edges_have_their_two_vertices_and_headings_match_the_rules():
    from rules.games.annelids_geometry import Geometry

    board = get_game("annelids").board()
    sheet = Sheet.for_board(board)
    geo = Geometry(board)
    ox, oy = sheet.offset
    for s in sheet.shapes:
        assert s.kind == "edge"
        for end in (0, 1):
            x, y = s.ends[end]
            vertex = f"{x - ox:.1f},{y - oy:.1f}"
            assert geo.heading[(s.id, vertex)] == s.heading_to(end)


@pytest.mark.parametrize("game", ALL_GAMES)
def test_drawn_sheet_shows_the_four_corner_markers_at_their_places(game):
    sheet = Sheet.for_board(get_game(game).board())
    s = 3.0
    img = render.draw_sheet(sheet, s)
    assert img.shape[:2] == (int(np.ceil(sheet.size[1] * s)), int(np.ceil(sheet.size[0] * s)))
    found = detect(make_detector(), cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert set(found) == set(layout.CORNER_IDS)
    for i, corners in sheet.marker_corners().items():
        assert np.abs(found[i] / s - corners).max() < 1.0  # within a millimetre


def test_tag_table_is_unique_and_names_the_games_own_tokens():
    seen = set()
    for game, table in layout.TAGS.items():
        assert not (set(table) & seen), "tag ids shared between games"
        assert not (set(table) & (set(layout.CORNER_IDS) | set(layout.RESERVED_IDS)))
        seen |= set(table)
    tokens = set()
    for seed in range(5):
        from vision.simulated.sessions import random_position

        tokens |= {t for toks in random_position("annihilation", seed, 60).view(Fidelity.KIND).values() for t in toks}
    assert tokens <= set(layout.TAGS["annihilation"].values())
    assert set(layout.TAGS["gyges"].values()) == {"1", "2", "3"}


@pytest.mark.parametrize("game", ["gyges", "annihilation"])
def test_tag_sheet_prints_every_face_readably(game):
    sheet = Sheet.for_board(get_game(game).board())
    pages = render.tag_pages(sheet, px_per_mm=6.0)
    ids = []
    for page in pages:
        ids += [i for i, _ in detect_all(make_detector(), cv2.cvtColor(page.image, cv2.COLOR_BGR2GRAY))]
    want = []
    for token, n in layout.PIECE_COUNTS[game].items():
        want += [layout.tag_id(game, token)] * n
        back = layout.BACK_FACE.get(game, {}).get(token)
        if back:
            want += [layout.tag_id(game, back)] * n
    assert sorted(ids) == sorted(want)


def test_colour_read_game_has_no_tag_sheet():
    with pytest.raises(ValueError, match="read by colour"):
        render.tag_pages(Sheet.for_board(get_game("annelids").board()))


def test_big_board_is_tiled_and_fits_a3_in_fewer_pages():
    sheet = Sheet.for_board(get_game("anacund").board())
    a4 = render.board_pages(sheet, paper="A4", px_per_mm=1.0)
    a3 = render.board_pages(sheet, paper="A3", px_per_mm=1.0)
    assert len(a4) > len(a3) > 1
    for p in a4:
        assert p.image.shape[0] == round(p.height_mm) and p.image.shape[1] == round(p.width_mm)


def test_pdf_is_well_formed_with_one_true_size_page_per_tile(tmp_path):
    sheet = Sheet.for_board(get_game("gyges").board())
    pages = render.board_pages(sheet, paper="A4", px_per_mm=1.0)
    out = tmp_path / "g.pdf"
    render.write_pdf(pages, out)
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert data.count(b"/Type /Page ") == len(pages)
    # Every xref offset points at its object.
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    entries = data[xref:].split(b"\n")[3:3 + data.count(b" obj\n")]
    for n, line in enumerate(entries, start=1):
        off = int(line[:10])
        assert data[off:].startswith(b"%d 0 obj" % n)
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
    assert sorted((float(box.group(1)), float(box.group(2)))) == pytest.approx(sorted((595.276, 841.89)), abs=0.01)


def test_print_commands_write_files_and_refuse_bad_input(tmp_path, capsys):
    assert vision_cli.main(["print-board", "--game", "gyges", "--out", str(tmp_path / "b.png"), "--dpi", "50"]) == 0
    assert vision_cli.main(["print-tags", "--game", "gyges", "--out", str(tmp_path / "t.pdf"), "--dpi", "100"]) == 0
    assert (tmp_path / "t.pdf").read_bytes().startswith(b"%PDF")
    assert list(tmp_path.glob("b*.png"))
    capsys.readouterr()
    assert vision_cli.main(["print-board", "--game", "chess", "--out", str(tmp_path / "x.pdf")]) == 2
    assert "tableref: --game:" in capsys.readouterr().err
    assert vision_cli.main(["print-board", "--game", "gyges", "--out", str(tmp_path / "x.jpg")]) == 2
    assert "must end in .pdf or .png" in capsys.readouterr().err
    assert vision_cli.main(["print-tags", "--game", "annelids", "--out", str(tmp_path / "x.png")]) == 2
    assert "read by colour" in capsys.readouterr().err
