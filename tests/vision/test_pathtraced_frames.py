"""The reader on committed path-traced frames (issue 32): physics nobody here wrote.

The frames in ``tests/vision/pathtraced/`` were rendered by Mitsuba 3 (``bench/vision_pathtraced.py
--export``: the printed Gygès sheet on bent paper, metal rings with their stickers put down off
their spaces' centres and turned; Annelids' plastic bars along their edges, the tails' dark caps;
a ceiling panel, a warm desk lamp and a window, a Camera Module 3's thin lens, photon and read
noise, auto exposure, JPEG). Nothing renders here: each row is calibrated on its three exposures
of the empty board (and a colour game's layout) and every frame read as ``bench/vision_real.py``
reads, through a fresh lock.
"""

import json
from pathlib import Path

import cv2
import pytest

from vision_support import grid_for, wrong_spaces

from rules import Fidelity
from rules.view import View

HERE = Path(__file__).parent / "pathtraced"
FRAMES = sorted(HERE.glob("*.json"))


def _reader(game: str, row: str):
    """The row's reader as the set-up page makes it, no lens file given: a barrel measured from
    the empty board's printed lines (vision/read/board_lens.py), then the calibration through it."""
    from vision.read.board_lens import lens_from_board
    from vision.read.calibration import calibrate
    from vision.readers.for_game import reader_for

    from vision.read.calibration import colour_layout
    from vision.sheets.layout import DEFAULT_MODE

    grid = grid_for(game)
    empty = [cv2.imread(str(p)) for p in sorted(HERE.glob(f"{game}-{row}-empty*.jpg"))]
    lens = lens_from_board(grid.sheet, empty).lens
    mode = DEFAULT_MODE.get(game, "tags")
    shots = [(cv2.imread(str(HERE / f"{game}-{row}-layout.jpg")), colour_layout(grid.sheet))] if mode == "colour" else []
    return reader_for(grid, calibrate(grid, empty, mode=mode, shots=shots, lens=lens), Fidelity.KIND, lens=lens)


def _read(path: Path, readers: dict):
    from vision.read.lock import BoardLock

    game, row, _ = path.stem.split("-")
    if (game, row) not in readers:
        readers[(game, row)] = _reader(game, row)
    frame = cv2.imread(str(path.with_suffix(".jpg")))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock = BoardLock(grid_for(game).sheet, lens=readers[(game, row)].lens)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable, f"{path.name}: the corner markers were not found"
    return View(json.loads(path.read_text())["view"]), readers[(game, row)].read(frame, status.H)


@pytest.fixture(scope="module")
def readings():
    readers: dict = {}
    return {p.stem: _read(p, readers) for p in FRAMES}


def test_the_committed_set_is_there_and_small():
    """A few MB: Gygès's rows at 720p, and since the thirteenth session DRIFT's and Annelids'
    frames at 1080p, as the service reads them (each 1080p row with its three empty-board
    exposures; since the fourteenth session Annelids through the wide lens's barrel and under
    the desk lamp alone; since the twentieth session DRIFT under the window alone, 0.7 MB)."""
    assert len(FRAMES) >= 8
    assert sum(p.stat().st_size for p in HERE.iterdir()) < 13 * 2 ** 20


def test_no_false_accepts_and_no_space_read_wrong(readings):
    """Never a wrong position: every space the reader names is right, frame after frame."""
    for name, (truth, got) in readings.items():
        assert not wrong_spaces(truth, got), f"{name}: {wrong_spaces(truth, got)}"


def test_usable_share(readings):
    """Nothing left unreadable (pieces named, hidden or read occupied) on the frames that were
    usable when they were committed (27 of 28 then; all 28 since the paper round a piece is
    judged in its own light), and on at least 95 % of all (issue 32's bar; docs/vision.md,
    "Path-traced bench")."""
    usable = {name for name, (truth, got) in readings.items() if not got.unreadable}
    expected = {p.stem for p in FRAMES if json.loads(p.read_text())["usable"]}
    assert expected <= usable, {n: dict(readings[n][1].why) for n in expected - usable}
    assert len(usable) >= 0.95 * len(readings)


def test_shadows_under_two_lights_and_pieces_off_centre(monkeypatch):
    """Issue 32's changes to the reader, on the frames they make usable. Under a warm lamp and a
    window a shadow's soft edge darkens the paper by 4-8 % in some channel and turns it a little
    warmer or bluer; a shadow's edge leaves the paper at 0.85-0.88 of its light; a piece put
    down off its space's centre covers paper the centred guess leaves counted. With the rules
    before (a shadow's edge 8 % darker in every channel and never warmer than 3 %, a shadow at
    most 0.85 of the paper, pieces at their spaces' centres) these frames leave an empty space
    "light uneven here" or "something here that is not a readable piece"."""
    import numpy as np

    import vision.read.sampling as sampling

    fixed = [p for p in FRAMES if json.loads(p.read_text())["usable"] and p.stem.startswith("gyges-")
             and not json.loads(p.read_text())["usable_before_issue_32"]]
    assert len(fixed) >= 3, "the committed set no longer shows issue 32's cases"
    readers: dict = {}
    for p in fixed:
        truth, got = _read(p, readers)
        assert not got.unreadable, f"{p.stem}: {dict(got.why)}"
        assert not wrong_spaces(truth, got)
    with monkeypatch.context() as m:
        m.setattr(sampling, "PENUMBRA", sampling.LIGHT_OUTLIER)
        m.setattr(sampling, "SHADOW_WARMER", 0.03)
        for reader in readers.values():
            m.setattr(reader, "where_found", False)
            m.setattr(reader, "_probes_found", lambda pose, r=reader: np.zeros(len(r.grid.probes), bool))
            m.setattr(reader, "shadow_max", 0.85)
            m.setattr(reader, "scan_reach", 1.15)
            m.setattr(reader, "speck", 0.0)
        for p in fixed:
            truth, before = _read(p, readers)
            assert before.unreadable, f"{p.stem}: usable with the old rules too"
            assert not wrong_spaces(truth, before)


def _unreadable(stem: str, knobs: dict) -> frozenset:
    """The spaces left unreadable in one committed frame, read with the reader's ``knobs`` set."""
    path = HERE / f"{stem}.json"
    game, row, _ = stem.split("-")
    reader = _reader(game, row)
    for k, v in knobs.items():
        setattr(reader, k, v)
    truth, got = _read(path, {(game, row): reader})
    assert not wrong_spaces(truth, got), f"{stem}: {wrong_spaces(truth, got)}"
    return got.unreadable


def test_a_ring_put_down_off_centre_has_its_whole_tag_looked_at():
    """Wide lens, a double ring 7 mm off its space's centre (c4): its tag's corner lies 24 mm
    out, past the 23 mm (1.15 piece radii) that tags were looked for round a space, and its
    outline cut at the crop's edge was never found. Looked for over 1.45 radii (off-centre by
    15 % of the pitch, the sticker's corner, a cell of white) it is read."""
    assert not _unreadable("gyges-wide-3", {})
    assert "c4" in _unreadable("gyges-wide-3", {"scan_reach": 1.15})


@pytest.mark.parametrize("stem", ["gyges-window-1", "gyges-wide-1", "gyges-tilt35-0", "gyges-base-0"])
def test_the_paper_round_a_piece_lies_in_its_own_light(stem):
    """Round a metal ring the paper is lit by what its side reflects (10-15 % brighter, 10-16 mm
    beyond a 20 mm ring, under the window) and darkened by its shadow: a band as wide as the
    piece is tall round each piece found is left out of the light's judgement. Without it an
    empty space beside the rings is "light uneven here" (or a ring's calm too short to read
    it "occupied")."""
    assert not _unreadable(stem, {})
    assert _unreadable(stem, {"own_light": 0.0})


def test_a_speck_that_passes_the_bit_check_is_not_a_piece():
    """On a rendered frame's noise a detector once read "tag 17" of 1-3 mm sides beside an empty
    corner space (the sticker is 24 mm): no piece's tag is seen under half its size, so the
    space is judged by its probes alone — read empty, as it is."""
    import numpy as np

    reader = _reader("gyges", "wide")
    real = reader._read_tags
    a1 = reader.grid.spaces[reader.grid.index["a1"]]
    speck = np.float32([[a1.x + 20, a1.y + 5], [a1.x + 21, a1.y + 5], [a1.x + 21, a1.y + 7], [a1.x + 20, a1.y + 7]])

    def with_speck(frame, H, busy, foreign_pt, tokens, why):
        real(frame, H, busy, foreign_pt, tokens, why)
        got, whys = reader._judge_tags(np.array([], int), [(17, speck)], foreign_pt)  # the speck's verdict alone
        tokens.update(got)
        why.update(whys)

    reader._read_tags = with_speck
    readers = {("gyges", "wide"): reader}
    truth, got = _read(HERE / "gyges-wide-2.json", readers)
    assert truth.get_tokens("a1") == ()
    assert not got.unreadable and got.view.get_tokens("a1") == ()
    reader.speck = 0.0
    _, got = _read(HERE / "gyges-wide-2.json", readers)
    assert got.why.get("a1") == "tag 17 is not one of this game's pieces"


def test_a_tail_s_dark_cap_is_dark_in_the_body_s_own_channel(monkeypatch):
    """Annelids' base row: a blue tail's cap, glossy plastic like its body, reflects the window
    and the ceiling panel as the body does; in the mean of the channels it stood at 0.6-0.9 of
    the blue body (the rule: 0.62), so its heading was not seen. In the channel where the body
    is brightest (blue) it stands at 0.4-0.75: read there on the bar's top face
    (``BAND_PEAK_RATIO``), every tail is named with its heading, none the wrong way round."""
    import vision.readers.annelid_bars as bars

    annelids = [p for p in FRAMES if p.stem.startswith("annelids-")]
    assert len(annelids) >= 4
    readers: dict = {}
    now = {p.stem: _read(p, readers) for p in annelids}
    for name, (truth, got) in now.items():
        assert not wrong_spaces(truth, got), f"{name}: {wrong_spaces(truth, got)}"
    usable = {n for n, (_, got) in now.items() if not got.unreadable}
    assert len(usable) >= 3, {n: dict(got.why) for n, (_, got) in now.items()}
    monkeypatch.setattr(bars, "BAND_PEAK_RATIO", 0.0)
    before = {p.stem: _read(p, readers) for p in annelids}
    # Without it those tails are named only in part (their colour, not their heading).
    lost = {(n, sp) for n, (_, got) in before.items() for sp in got.view.in_part - now[n][1].view.in_part}
    assert lost, "the tails' caps are seen without the body's own channel too"
    for n, sp in lost:
        truth, got = before[n]
        assert got.view[sp] == (truth[sp][0].split(":")[0] + ":?",) and now[n][1].view[sp] == truth[sp]
        assert not wrong_spaces(truth, got)


def test_a_tail_whose_cap_no_look_sees_is_named_in_part(monkeypatch):
    """A tail's heading is its dark cap; where no look sees the cap (in shade, a glossy cap
    mirroring the room as its body does) its colour is still plain: it is read ``blue:?`` —
    one blue tail, its heading history's (a tail never moves nor turns) — not left unread. With
    no heading seen on any bar, every committed Annelids frame is usable and none wrong."""
    import vision.readers.annelid_bars as bars

    annelids = [p for p in FRAMES if p.stem.startswith("annelids-")]
    monkeypatch.setattr(bars.AnnelidBars, "_headings", lambda self, *a, **k: {})
    readers: dict = {}
    for p in annelids:
        truth, got = _read(p, readers)
        tails = {sp for sp, toks in truth.items() if ":" in toks[0]}
        assert not got.unreadable, (p.stem, dict(got.why))
        assert got.view.in_part == tails and not wrong_spaces(truth, got), p.stem


def test_a_tail_put_down_towards_its_cap_shows_its_cap_in_the_body_s_channel(monkeypatch):
    """Annelids at 1080p, tilt 10 (through the fixed denoiser): a blue tail (b1e) put down 1 mm
    towards its cap, so part of the cap's band sees the body; in the body's own channel its cap
    stands at 0.76 of the body's other end. At ``BAND_PEAK_RATIO`` 0.7 its heading was not seen;
    at 0.78 (a little over the 0.75 the first path-traced rows showed) it is read blue:N, as it
    lies, and nothing in the frame is read wrong."""
    import vision.readers.annelid_bars as bars

    path = HERE / "annelids-tilt10-3.json"
    truth, got = _read(path, {})
    assert truth.get_tokens("b1e") == ("blue:N",)
    assert not wrong_spaces(truth, got) and not got.unreadable, dict(got.why)
    monkeypatch.setattr(bars, "BAND_PEAK_RATIO", 0.7)
    _, before = _read(path, {})
    assert not before.unreadable and before.view.in_part == {"b1e"}  # its colour alone: "blue:?"
    assert before.view["b1e"] == ("blue:?",) and not wrong_spaces(truth, before)


def test_a_wide_lens_s_barrel_is_measured_from_the_board_s_printed_lines(monkeypatch):
    """Annelids at 1080p through the wide module's barrel (k1 -0.05, about 10 % at the frame's
    corners), no lens file. The four corner markers' homography puts the bars along the top and
    bottom rows 1-2 mm off, onto their edges: 11 spaces a frame read "something here" (and a
    green tail there read empty), and no frame of the row was usable. Measured from the empty board's printed lines, the lens puts
    them back: every space is read, none wrong."""
    import vision.read.board_lens as board_lens

    path = HERE / "annelids-barrel-0.json"
    readers: dict = {}
    truth, got = _read(path, readers)
    lens = readers[("annelids", "barrel")].lens
    assert lens is not None and -0.07 < lens.dist[0] < -0.035, lens.dist
    assert not wrong_spaces(truth, got) and not got.unreadable, dict(got.why)

    def straight(sheet, frames):
        return board_lens.BoardLens(None, 0.0, 1.0, 1.0, 0.0, 0)

    monkeypatch.setattr(board_lens, "lens_from_board", straight)
    _, before = _read(path, {})
    assert len(before.unreadable) >= 5, dict(before.why)  # the frame is not usable


def test_a_tail_s_shaded_end_face_is_not_its_cap(monkeypatch):
    """Annelids at 1080p under the desk lamp alone: a blue tail (a4e) with its cap away from the
    camera. The top look heads it N, as it lies; the foot look sees its other end's upright face,
    lit at 0.58 of the end beyond it, as a dark end towards the camera — but that face is the
    body's own blue (0.95 of its pixels, against 0.55 at the other end), where a cap is dark
    paint. Taken for a second heading, the tail was unreadable and the frame with it (since the
    twenty-first session: named only in part, ``blue:?``, its heading left to history)."""
    import vision.readers.annelid_bars as bars

    path = HERE / "annelids-desk-2.json"
    truth, got = _read(path, {})
    assert truth.get_tokens("a4e") == ("blue:N",)
    assert not wrong_spaces(truth, got) and not got.unreadable, dict(got.why)
    monkeypatch.setattr(bars, "NEAR_FACE_OWN", 2.0)  # never a face: the rule off
    _, before = _read(path, {})
    assert before.view.in_part == {"a4e"} and before.view["a4e"] == ("blue:?",), dict(before.why)
    assert not wrong_spaces(truth, before)


def test_lone_clipped_points_on_bright_paper_are_not_glare(monkeypatch):
    """Annelids at 1080p, 40 % framing (twenty-first session): the table dark round a small
    sheet, the paper exposed near white (its 80th percentile at 240, the meter's "hot" far off:
    0.13 % of the sheet clipped). The sensor's noise clips a lone point here and there; one of an
    Annelids edge's 75 body points is 1.3 % of it, over ``GLARE_MAX``, and six empty edges read
    "glare or shadow". Glare is a highlight over an area: under ``GLARE_POINTS`` clipped points a
    space is not glared. The frame's blue tail e1e, its cap unseen, is named in part."""
    import vision.readers.reader as reader_mod

    path = HERE / "annelids-fill40-1.json"
    truth, got = _read(path, {})
    assert not got.unreadable and not wrong_spaces(truth, got), dict(got.why)
    assert got.view.in_part == {"e1e"} and truth["e1e"] == ("blue:N",)
    monkeypatch.setattr(reader_mod, "GLARE_POINTS", 1)
    _, before = _read(path, {})
    assert set(before.why.values()) == {"glare or shadow"} and len(before.why) == 6, dict(before.why)
