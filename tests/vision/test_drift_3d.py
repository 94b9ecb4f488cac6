"""DRIFT read in 3-D through the camera model (vision/drift_tags.py): real piece heights, a
camera tilted on a shelf, homes piled six high. Tags placed on the space whose top they fit,
never the neighbour's; a token seen but not named read (occupied, more) and resolved by the
referee from the history; a ring marker hidden behind a pile found by elimination."""

from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from rules import Fidelity, Verdict, explain, get_game
from rules.view import MORE, OCCUPIED, View
from vision.calibration import calibrate
from vision.camera_model import CameraModel, CameraSetup, Scene
from vision.drift_tags import UNCERTAIN
from vision.layout import Sheet
from vision.lock import BoardLock
from vision.readers import grid_for, reader_for

FHD = (1920, 1080)
SCENE = Scene(heights=1.0, jpeg=80)


@pytest.fixture(scope="module")
def board():
    """A calibrated DRIFT camera at 1080p, the board filling 60 %, k1 -0.1."""
    out = {}

    def make(tilt: float):
        if tilt not in out:
            sheet = Sheet.for_board(get_game("drift").board())
            grid = grid_for(sheet)
            model = CameraModel(grid.sheet, CameraSetup(size=FHD, tilt_deg=tilt, fill=0.6, k1=-0.1, yaw_deg=3.0))
            cal = calibrate(grid, [model.render(replace(SCENE, seed=i)) for i in range(2)], mode="tags")
            out[tilt] = (grid, model, reader_for(grid, cal, Fidelity.KIND))
        return out[tilt]

    return make


def _read(board, tilt, view, seed=3):
    grid, model, reader = board(tilt)
    frame = model.render(replace(SCENE, view=view, seed=seed, exposure=0.8, noise=2.0))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock = BoardLock(grid.sheet)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable
    return reader, reader.read(frame, status.H), frame, status.H


def _right(truth: View, reading) -> None:
    """Nothing read wrong: every space read is the truth (or a pile/unnamed token it may be)."""
    seen = reading.view.resolved(truth)
    for sp in set(truth) | set(seen):
        if sp in reading.unreadable:
            continue
        assert seen.get_tokens(sp) == truth.get_tokens(sp), (sp, truth.get_tokens(sp), reading.view.get_tokens(sp))


def test_the_ready_to_play_start_reads_whole_with_piles_six_high(board):
    """Tilt 20: each player's home a pile of six (72 mm), coins on the land: read whole, each
    pile as its top and ``more``; the outer ring's marker lies behind the far home's pile."""
    start = get_game("drift").default_setup()
    truth = start.view(Fidelity.KIND)
    _, reading, _, _ = _read(board, 20.0, truth, seed=5)
    assert reading.complete, reading.why
    _right(truth, reading)
    homes = [h for h in ("O0", "O4", "O8", "O12", "O16", "O20") if truth.get_tokens(h)]
    assert len(homes) >= 2 and all(MORE in reading.view.get_tokens(h) for h in homes)


def test_a_marker_hidden_behind_a_pile_is_found_by_elimination(board, monkeypatch):
    """Tilt 20: the far home's pile hides the outer ring's marker; every other step position is
    plain paper, so the ring is at the hidden step. Made not plain, the rotation is unreadable."""
    start = get_game("drift").default_setup()
    truth = start.view(Fidelity.KIND)
    reader, reading, frame, H = _read(board, 20.0, truth, seed=5)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    rots, why = reader.rotations(grey, reader._base.pose(frame, H))
    assert rots[0] is None and why["outer"] == "the ring's rotation marker cannot be seen"  # not seen...
    assert reading.view.get_tokens("rotation:outer") == ("0",)  # ...yet known: the pile hides it
    assert "OR5" not in reading.unreadable

    plain = reader.rotations

    def nothing_plain(g, h):
        out = plain(g, h)
        reader._plain["outer"] = np.zeros_like(reader._plain["outer"])  # something at every step
        return out

    monkeypatch.setattr(reader, "rotations", nothing_plain)
    again = reader.read(frame, H)
    assert "rotation:outer" in again.unreadable and "OR5" in again.unreadable


def test_a_tag_over_two_spaces_is_never_given_to_one(board):
    """A tag whose ray crosses two spaces that may hold its token at two heights (a pile's top
    over the arrow behind it): alone and off the arrow's centre, it can only be the pile's top
    (a lone token lies on its space's centre); with a second tag beside it, so that the arrow
    may hold the pair, both spaces are unreadable — never the nearest guessed."""
    grid, _, reader = board(20.0)
    turned = reader._reader((0, 0, 0))
    _read(board, 20.0, get_game("drift").default_setup().view(Fidelity.KIND), seed=5)  # sets the pose
    pose = turned._pose
    home = grid.sheet.by_id["O4"]
    top = pose.lift(np.array([[home.x, home.y]]), 72.0)[0]  # where a 72 mm pile's top shows
    busy = set(range(len(grid.spaces)))
    cands = turned._candidates("blue-III", top.astype(np.float32), busy)
    other = {i for i, _, _, _ in cands} - {grid.index["O4"]}
    assert grid.index["O4"] in {i for i, _, _, _ in cands} and other

    def tag_at(plane_centre, h):
        side = 19.1 * pose.camera[2] / (pose.camera[2] - h) / 2
        return (plane_centre + np.array([[-side, -side], [side, -side], [side, side], [-side, side]])).astype(np.float32)

    nothing = np.zeros(len(grid.body.mm), bool)
    tokens, why = turned._judge_tags(np.array(sorted(busy)), [(30, tag_at(top, 72.0))], nothing)
    assert tokens.get("O4") == ["blue-III", MORE] and not any(tokens.get(grid.spaces[i].id) for i in other)

    j, h, under, _ = next(c for c in cands if c[0] in other)
    centre = np.array([grid.spaces[j].x, grid.spaces[j].y])
    partner = pose.lift((2 * centre - under)[None], h)[0]  # the pair's other half, across the arrow
    tokens, why = turned._judge_tags(np.array(sorted(busy)), [(30, tag_at(top, 72.0)), (39, tag_at(partner, 3.0))],
                                     nothing)
    assert not tokens.get("O4") and why.get("O4") in (UNCERTAIN, "tokens crowded here or next to here")
    assert not tokens.get(grid.spaces[j].id)


def test_a_token_whose_tag_is_not_read_is_occupied_never_left_out(board, monkeypatch):
    """A piece whose tag cannot be read (its detections dropped) is read ``(occupied, more)``
    or unreadable — never empty, never short."""
    rng = random.Random(4)
    state = get_game("drift").default_setup()
    for _ in range(12):
        state = state.successor(rng.choice(list(state.legal_moves())))
    truth = state.view(Fidelity.KIND)
    lone = sorted(s for s, t in truth.items() if len(t) == 1 and not s.startswith(("O0", "rotation", "repo"))
                  and get_game("drift").board().space(s).kind in ("land", "arrow"))
    assert lone
    victim = lone[0]
    from vision import drift_tags, layout

    hidden = layout.tag_id("drift", truth.get_tokens(victim)[0])
    grid = board(20.0)[0]
    where = grid.sheet.by_id[victim]
    original = drift_tags.TagsAtHeight._judge_tags

    def drop(self, busy, found, foreign_pt):  # that one tag, at that space, is never decoded
        kept = [(t, mm) for t, mm in found if not (t == hidden and np.hypot(*(mm.mean(axis=0) - (where.x, where.y))) < 40)]
        return original(self, busy, kept, foreign_pt)

    monkeypatch.setattr(drift_tags.TagsAtHeight, "_judge_tags", drop)
    _, reading, _, _ = _read(board, 20.0, truth, seed=7)
    assert victim in reading.unreadable or sorted(reading.view.get_tokens(victim)) == sorted((OCCUPIED, MORE)), reading.why.get(victim)
    _right(truth, reading)


def test_no_drift_move_is_wrongly_accepted_from_views_read_unnamed():
    """The reader's own coarsening: any occupied space read ``(occupied, more)`` (a home's pile,
    two tokens, a token whose tag is not read). Each legal move from positions along a game:
    the true successor is among the candidates and a unique accept is always it."""
    rng = random.Random(11)
    state = get_game("drift").default_setup()
    checked = unique = 0
    for _ in range(14):
        moves = list(state.legal_moves())
        for m in rng.sample(moves, min(6, len(moves))):
            succ = state.successor(m)
            exact = succ.view(Fidelity.KIND)
            seen = View({s: ((OCCUPIED, MORE) if not s.startswith("rotation:") and rng.random() < 0.4 else t)
                         for s, t in exact.items()})
            assert exact.matches(seen)
            e = explain(state, seen, Fidelity.KIND)
            if e.verdict is Verdict.UNCHANGED:
                continue
            assert e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS), (state.move_text(m), e.verdict)
            assert [c for c in e.candidates if c.state == succ], state.move_text(m)
            if e.verdict is Verdict.LEGAL:
                assert e.candidates[0].state == succ, state.move_text(m)
                unique += 1
            checked += 1
        state = state.successor(rng.choice(moves))
    assert checked > 20 and unique > 0


def test_the_board_contrast_learned_at_step_positions_never_hides_a_marker(board):
    """A step position is plain when it shows no more contrast than the board itself there,
    learned from frames whose rotation was read; the marker's own position never is."""
    reader = board(20.0)[2]
    reader._board_contrast.clear()
    view = View({"rotation:outer": ("3",), "rotation:middle": ("0",), "rotation:inner": ("0",)})
    reading = _read(board, 20.0, view, seed=2)[1]
    assert reading.view.get_tokens("rotation:outer") == ("3",)
    learned = reader._board_contrast["outer"]
    assert np.isinf(learned[3]) and np.isfinite(learned).sum() == 23  # every step but the marker's
    turned = View({"rotation:outer": ("5",), "rotation:middle": ("0",), "rotation:inner": ("0",)})
    reading = _read(board, 20.0, turned, seed=4)[1]
    assert reading.view.get_tokens("rotation:outer") == ("5",)
    assert not reader._plain["outer"][5]  # where the marker is never counts as plain paper
    reader._board_contrast.clear()
    reader.read(*_read(board, 20.0, turned, seed=5)[2:])  # nothing learned yet: only low contrast is plain
    assert not reader._plain["outer"][5] and reader._plain["outer"].sum() >= 20
