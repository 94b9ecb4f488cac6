"""DRIFT tags placed at the heights their tokens stand at (vision/readers/drift_tags.py), seen by a camera
tilted 30-35 degrees: a piece and a coin side by side each at its own height, a home's six-high
pile over the arrow behind it once the frame shows the set standing, a coin on a home by a
repository that holds at most one coin of each type — and a pair's tag missed at first looked
for again where it must be, not given up on for the crowd round it."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from rules import Fidelity, get_game
from rules.view import HIDDEN, MORE, View
from vision.read.calibration import calibrate
from vision.read.lock import BoardLock
from vision.readers import drift_tags
from vision.readers.reasons import CROWDED, UNCERTAIN
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene

from vision_support import assert_read_right

FHD = (1920, 1080)
SCENE = Scene(heights=1.0, jpeg=80)
ROTATIONS = {f"rotation:{ring}": ("0",) for ring in ("outer", "middle", "inner")}
SIX = "red:circle,blue:triangle,green:square,yellow:pentagon,white:hexagon,black:star"  # every home piled


@pytest.fixture(scope="module")
def board():
    """A calibrated DRIFT camera at 1080p, the board filling 60 %, per tilt and k1 (no lens file)."""
    out = {}

    def make(tilt: float, k1: float = -0.1):
        if (tilt, k1) not in out:
            sheet = Sheet.for_board(get_game("drift").board())
            grid = grid_for(sheet)
            model = CameraModel(grid.sheet, CameraSetup(size=FHD, tilt_deg=tilt, fill=0.6, k1=k1, yaw_deg=3.0))
            cal = calibrate(grid, [model.render(replace(SCENE, seed=i)) for i in range(2)], mode="tags")
            out[tilt, k1] = (grid, model, reader_for(grid, cal, Fidelity.KIND))
        return out[tilt, k1]

    return make


def _read(board, tilt, view, seed=3, heights=1.0, k1=-0.1):
    grid, model, reader = board(tilt, k1)
    frame = model.render(replace(SCENE, view=view, seed=seed, exposure=0.8, noise=2.0, heights=heights))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock = BoardLock(grid.sheet)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable
    return reader, reader.read(frame, status.H), status.H


def _tag_at(pose, plane_centre, height: float) -> np.ndarray:
    """A tag's corners on the board's plane, as the camera shows one ``height`` mm up."""
    side = 19.1 * pose.camera[2] / (pose.camera[2] - height) / 2
    return (np.asarray(plane_centre) + np.array([[-side, -side], [side, -side], [side, side], [-side, side]])).astype(np.float32)


def _pair(centre, sheet, space: str) -> list[tuple[float, float]]:
    """Where two tokens on ``space`` lie: side by side along the ring, a round sticker apart."""
    s = sheet.by_id[space]
    d = np.hypot(s.x - centre[0], s.y - centre[1])
    along = np.array([-(s.y - centre[1]), s.x - centre[0]]) / d
    off = (sheet.tag_mm * np.sqrt(2) + 4) / 2
    return [tuple(np.array([s.x, s.y]) - along * off), tuple(np.array([s.x, s.y]) + along * off)]


def test_side_homes_piles_read_over_the_arrow_behind_once_the_set_is_seen_standing(board):
    """Tilt 25, the ready-to-play start of six players: the side homes' (O4, O20) pile tops show over the arrow
    behind them, where a piece laid flat could lie; the far and near homes' tops, each on its
    home only at its pile's height, show the set stands — so no tag is laid flat, and the piles
    read as their tops and ``more``. The same start laid flat still reads right.

    At tilt 30 a piece standing on that arrow, put down 0.18 pitch off its centre (people put
    them up to 0.21 off), would show its tag where the pile's top shows: neither is guessed,
    both read HIDDEN (they read as the piles' tops while pieces were taken to lie within 0.15)."""
    truth = get_game("drift").start({"players": SIX}).view(Fidelity.KIND)
    assert truth.get_tokens("O4") and truth.get_tokens("O20")
    _, reading, _ = _read(board, 25.0, truth, seed=5)
    for home in ("O4", "O20"):
        assert reading.why.get(home) != UNCERTAIN
        assert MORE in reading.view.get_tokens(home), (home, reading.why.get(home))
    assert not {"OR3", "OR20"} & set(reading.unreadable)
    assert_read_right(truth, reading)
    _, flat, _ = _read(board, 25.0, truth, seed=5, heights=0.0)
    assert_read_right(truth, flat)
    assert all(MORE in flat.view.get_tokens(h) for h in ("O4", "O20"))
    _, steep, _ = _read(board, 30.0, truth, seed=5)
    assert_read_right(truth, steep)
    assert all(steep.view.get_tokens(s) == (HIDDEN,) for s in ("O4", "O20", "OR3", "OR20")), steep.view


def test_a_piece_and_a_coin_side_by_side_each_at_its_own_height(board):
    """Tilt 35, a piece (12 mm) and a coin (3 mm) side by side on a land space: placed at the
    height nearest the space's centre, the piece's tag (laid flat) would lie too near the centre
    for one of a pair — a crowd round it. Each at the height that puts the two as a space holds
    them, the space reads the pair."""
    grid, _, _ = board(35.0)
    reader, _, _ = _read(board, 35.0, View({"M6": ("gold", "green-II")}), seed=4)
    turned = reader._reader((0, 0, 0))
    pose = turned._pose
    sheet = grid.sheet
    nothing = np.zeros(len(grid.body.mm), bool)
    busy = np.arange(len(grid.spaces))
    tested = 0
    for space in ("M6", "M5", "M7", "O6", "O15", "M3", "M10"):
        for order in (("gold", "green-II"), ("green-II", "gold")):
            slots = _pair(reader.annuli.centre, sheet, space)
            tops = {"gold": 3.0, "green-II": 12.0}
            ids = {v: k for k, v in turned._tags.items()}
            found = [(ids[t], _tag_at(pose, pose.lift(np.array([xy]), tops[t])[0], tops[t])) for t, xy in zip(order, slots)]
            i = grid.index[space]
            piece = next(c for t, c in zip(order, found) if t == "green-II")[1].mean(axis=0)
            near = min(turned._candidates("green-II", piece, set(busy.tolist())), key=lambda c: c[3])
            if near[0] != i or near[1] != 0.0 or near[3] >= 0.3:
                continue  # the nearest-to-centre height is right here: nothing to show
            tested += 1
            tokens, why = turned._judge_tags(busy, found, nothing)
            assert why.get(space) != CROWDED, (space, order, why.get(space))
            assert sorted(tokens.get(space, [])) == ["gold", "green-II"], (space, order, tokens.get(space), why.get(space))
    assert tested, "no space at tilt 35 where the piece laid flat lies nearest the centre"


def test_a_coin_on_the_near_home_is_not_taken_for_a_repositorys_pile(board):
    """Tilt 35: a copper coin on the near home (O12). Its tag, taken down its ray, crosses the
    repository in front at the height of five or six coins on the block — a pile no repository
    holds (one coin of each type at most): the coin is the home's."""
    truth = View({"O12": ("copper",), "O0": ("red-I",), **ROTATIONS})
    reader, reading, _ = _read(board, 35.0, truth, seed=6)
    assert "copper" in reading.view.get_tokens("O12"), reading.why.get("O12")
    assert max(reader._base.pieceset.top_heights("repository")) == 10 + 3 * 3
    assert "repo-pentagon" not in reading.unreadable
    assert_read_right(truth, reading)


def test_a_pairs_tag_missed_at_first_is_looked_for_again_not_given_up_for_the_crowd(board, monkeypatch):
    """Tilt 30, a piece and a coin side by side: the first, quick look misses the coin's tag,
    so the piece's lies alone off its space's centre and every space round it (four of them
    holding tokens) is crowded. The thorough second look goes to the space that tag is on (not
    refused as if a hand covered the many crowded spaces), finds the coin, and the pair reads."""
    around = {"M5": ("red-I",), "M7": ("blue-II",), "IR4": ("silver",), "IR5": ("yellow-I",), "MR5": ("copper",),
              "MR6": ("white-I",), "MR7": ("black-II",), "MR8": ("red-II",)}  # crowded by a misplaced tag
    truth = View({"M6": ("gold", "green-II"), "O0": ("red-I",), **around, **ROTATIONS})
    reader = board(30.0)[2]
    quick = drift_tags.TagsAtHeight._quick_tags

    class Blind:
        """The quick detector, blind to the coin's tag (40: gold)."""

        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):  # its parameters (drift_tags.detect_outlined sets the outline floor)
            return getattr(self.inner, name)

        def detectMarkers(self, img):
            corners, ids, rejected = self.inner.detectMarkers(img)
            if ids is None:
                return corners, ids, rejected
            keep = [k for k, t in enumerate(ids.ravel()) if t != 40]
            return tuple(corners[k] for k in keep), (ids[keep] if keep else None), rejected

    monkeypatch.setattr(drift_tags.TagsAtHeight, "_quick_tags", lambda self, H, up: Blind(quick(self, H, up)))
    # Five spaces holding tokens lie within the crowd's reach here: more than twice this many
    # spaces to look at again is taken for a hand or glare over the board, and not looked at.
    monkeypatch.setattr(type(reader._reader((0, 0, 0))), "second_looks", 2)
    _, reading, _ = _read(board, 30.0, truth, seed=4)
    assert reading.view.get_tokens("M6") and sorted(reading.view.get_tokens("M6")) == ["gold", "green-II"], \
        reading.why.get("M6")
    assert_read_right(truth, reading)


def test_a_coin_behind_a_homes_pile_is_never_read_empty(board):
    """Tilt 35: a coin on the land (O17) just behind a home's pile six high (O16) from the
    camera. The pile hides half of the space; the coin's edge shows beyond the pile's outline,
    where a read token's blurred edge is excused — so the space was read empty (a false accept
    on the bench, k1 -0.2). What shows beyond the pile's own outline must be the board: the
    coin makes it unreadable; with nothing there it reads empty."""
    grid, _, _ = board(35.0)
    reader, _, _ = _read(board, 35.0, View({"O0": ("red-I",), **ROTATIONS}), seed=5)
    turned = reader._reader((0, 0, 0))
    pose = turned._pose
    home, behind = grid.sheet.by_id["O16"], grid.sheet.by_id["O17"]
    top = pose.lift(np.array([[home.x, home.y]]), 72.0)[0]  # green-III on a pile of six
    busy = np.arange(len(grid.spaces))
    found = [(33, _tag_at(pose, top, 72.0))]
    sl = grid.body.of(grid.index["O17"])
    pts = grid.body.mm[sl]
    px = pose.to_px(pts)
    a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    ring = np.stack([home.x + 15 * np.cos(a), home.y + 15 * np.sin(a)], axis=1)
    pile = cv2.convexHull(np.concatenate([pose.to_px(ring), pose.to_px(ring, 72.0)]).astype(np.float32)).reshape(-1, 2)
    hidden = np.array([cv2.pointPolygonTest(pile, (float(x), float(y)), False) >= 0 for x, y in px])
    assert 0.3 < hidden.mean() < 0.65, hidden.mean()  # half hidden, half in view
    # The coin's edge in view beyond the pile, where the pile's own blurred edge is excused.
    excused = turned.covers(pts, np.array([home.x, home.y]), grid.sheet.piece_radius * 1.25 + 3.0, 72.0)
    coin = (np.hypot(pts[:, 0] - behind.x, pts[:, 1] - behind.y) <= 10.0) & excused & ~hidden
    assert coin.sum() > 0.1 * (~hidden).sum()
    foreign = np.zeros(len(grid.body.mm), bool)
    foreign[sl] = hidden | coin  # the pile where it stands in front, the coin's edge beyond it
    tokens, why = turned._judge_tags(busy, found, foreign)
    assert tokens.get("O16") == ["green-III", MORE]
    assert "O17" in why and not tokens.get("O17"), (tokens.get("O17"), why.get("O17"))
    foreign[sl] = hidden  # nothing behind the pile
    tokens, why = turned._judge_tags(busy, found, foreign)
    assert "O17" not in why and tokens.get("O17") == [], why.get("O17")


def test_a_pile_top_over_the_arrow_behind_reads_both_hidden_and_a_move_elsewhere_is_judged(board):
    """Tilt 35, six players' ready-to-play start: O4's pile top (72 mm) shows where a 15 mm
    piece on OR3 would show its tag. Neither is guessed: both read HIDDEN (true whichever it
    is), nothing unreadable, and a move made elsewhere (a coin placed) is accepted as played."""
    from rules import HIDDEN, Verdict, explain

    start = get_game("drift").start({"players": SIX})
    truth = start.view(Fidelity.KIND)
    _, reading, _ = _read(board, 35.0, truth, seed=5)
    assert not reading.unreadable, reading.why
    assert {"O4", "OR3", "O20", "OR20"} <= reading.view.hidden
    assert reading.view.get_tokens("O4") == (HIDDEN,) and truth.matches(reading.view)
    assert explain(start, reading.view).verdict is Verdict.UNCHANGED
    move = next(m for m in start.legal_moves()
                if not start.move_spaces(m) & reading.view.hidden)
    after = start.successor(move)
    _, seen, _ = _read(board, 35.0, after.view(Fidelity.KIND), seed=6)
    e = explain(start, seen.view)
    assert not seen.unreadable and e.verdict is Verdict.LEGAL and e.candidates[0].state == after, \
        (start.move_text(move), e.verdict, seen.why)
