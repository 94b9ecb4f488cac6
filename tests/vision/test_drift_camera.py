"""DRIFT through the camera: ring rotations read from the ring markers, pieces riding a turned
river read at their arrows, two tokens on a space, abstention, and a scripted game (with a drift
phase) refereed end to end from rendered frames: CameraSource → stabiliser → referee."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from rules import Fidelity, View, get_game
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.service import play_observations
from tableref.sources.sim import render_script
from tableref.stabiliser import Stabiliser
from vision import layout
from vision.capture import ArrayCapture
from vision.drift_reader import Annuli, DriftGrid, DriftReader
from vision.reader import CalibrationError
from vision.sessions import Session
from vision.source import CameraSource
from vision.synth import Effects
from vision.video import script_frames

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tableref"))
from test_drift_game import START  # noqa: E402  (the scripted 3-player position of the rules tests)

MOVES = ["red-I-1 O2-O1", "blue-I-1 M10-M11", "green-II-1 O15-OR14", "drift"]  # green rides OR14 round


@pytest.fixture(scope="module")
def session():
    return Session.create("drift", 3)


def _played():
    state, out = START, []
    for text in MOVES:
        move = state.parse_move(text)
        out.append(move)
        state = state.successor(move)
    return state, out


def _calm(s: Session) -> Effects:
    return Effects(blur=s.blur)


def test_tag_table_uses_only_free_ids_and_is_disjoint():
    ids = set(layout.TAGS["drift"]) | set(layout.RING_TAGS["drift"])
    assert ids <= set(range(27, 50))
    taken = {i for g, t in layout.TAGS.items() if g != "drift" for i in t}
    assert not ids & taken and not set(layout.RING_TAGS["drift"]) & set(layout.TAGS["drift"])
    assert layout.tag_id("drift", "ring:middle") == 46 and layout.tag_id("drift", "carried:gold") == 43


def test_start_position_reads_exactly(session):
    reader = session.reader()
    view = START.view(Fidelity.KIND)
    frame = session.renderer.frame(view, session.pose, _calm(session), np.random.default_rng(1))
    reading = reader.read(frame, session.pose.H)
    assert reading.complete, reading.why
    assert reading.view == view
    assert reading.view["O2"] == ("carried:silver", "red-I")  # two tokens on one space
    assert reading.view["rotation:middle"] == ("0",)


@pytest.mark.parametrize("rots", [(1, 1, 1), (5, 17, 11)])
def test_turned_rivers_read_their_rotation_and_the_pieces_riding_them(session, rots):
    d = START.to_dict()
    d["rotations"] = dict(zip(("outer", "middle", "inner"), rots))
    d["pieces"] = {**d["pieces"], "green-II-1": "OR14", "blue-I-1": "MR3"}
    state = get_game("drift").from_dict(d)
    view = state.view(Fidelity.KIND)
    frame = session.renderer.frame(view, session.pose, _calm(session), np.random.default_rng(2))
    reading = session.reader().read(frame, session.pose.H)
    assert reading.complete, reading.why
    assert reading.view == view
    # The arrow OR14 has moved with its ring: it is not where it was printed at rotation 0.
    annuli = Annuli.for_sheet(session.sheet)
    moved = annuli.where(session.sheet, "OR14", {"outer": rots[0]})
    assert np.hypot(moved[0] - session.sheet.by_id["OR14"].x, moved[1] - session.sheet.by_id["OR14"].y) > 30


def test_a_ring_part_way_through_a_turn_is_unreadable(session, monkeypatch):
    view = START.view(Fidelity.KIND)
    half_step = {"outer": 0.5}
    annuli = Annuli.for_sheet(session.sheet)
    real = annuli.marker_at
    monkeypatch.setattr(Annuli, "marker_at", lambda self, ring, r: real(ring, r + half_step.get(ring.name, 0)))
    renderer = type(session.renderer)(session.sheet, size=session.renderer.size)
    frame = renderer.frame(view, session.pose, _calm(session), np.random.default_rng(3))
    monkeypatch.undo()
    reading = session.reader().read(frame, session.pose.H)
    assert "rotation:outer" in reading.unreadable and "OR14" in reading.unreadable
    assert "rotation:middle" not in reading.unreadable


def test_a_token_whose_tag_cannot_be_read_is_never_left_out(session):
    # O2 holds Red's I and, beside it, a disc with no readable tag (a lost sticker): reading
    # just "red-I" there would be a wrong position, so the space must be unreadable.
    view = START.view(Fidelity.KIND)
    blotted = View({**{s: view[s] for s in view}, "O2": ("red-I", "carried:untagged")})
    frame = session.renderer.frame(blotted, session.pose, _calm(session), np.random.default_rng(4))
    reading = session.reader().read(frame, session.pose.H)
    assert "O2" in reading.unreadable
    assert all(reading.view.get_tokens(s) == view.get_tokens(s) for s in view if s not in reading.unreadable)


def test_identity_fidelity_is_refused_with_the_reason(session):
    with pytest.raises(CalibrationError, match="kind"):
        DriftReader(session.grid, session.calibration, Fidelity.IDENTITY)
    assert isinstance(session.grid, DriftGrid)


def test_scripted_drift_game_with_a_drift_phase_refereed_from_rendered_frames(session, tmp_path):
    final, played = _played()
    assert final.rots == (1, 1, 1)
    script = render_script(START, played, fidelity=Fidelity.KIND, seed=2, noise=False)
    frames = script_frames(session.renderer, [(f.view, f.unreadable) for f in script.frames], pose=session.pose,
                           effects=session.effects(hard=False), seed=4)
    source = CameraSource(ArrayCapture(frames, fps=10), session.reader())
    decisions = []
    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, "drift", fidelity=Fidelity.KIND, start=START)
        play_observations(referee, source.observations(), Stabiliser(), on_decision=decisions.append)
        record = journal.load(referee.record.id)
    assert record.moves == MOVES
    assert "illegal" not in [d.kind for d in decisions]
    assert [d.kind for d in decisions if d.kind == "accepted"] == ["accepted"] * len(MOVES)


@pytest.mark.parametrize("space, tokens", [("I5", ("red-I", "carried:gold", "silver")),
                                           ("M3", ("red-III", "gold", "copper"))])
def test_three_tokens_on_a_space_are_never_read_short(session, space, tokens):
    # Three do not fit side by side: the one that spills over lies on no space's centre and
    # is no pair's half, so the spaces round it are unreadable rather than read short.
    view = START.view(Fidelity.KIND)
    crowded = View({**{s: view[s] for s in view}, space: tokens})
    for seed in range(2):
        frame = session.renderer.frame(crowded, session.pose, _calm(session), np.random.default_rng(seed))
        reading = session.reader().read(frame, session.pose.H)
        assert space in reading.unreadable
        assert all(reading.view.get_tokens(s) == crowded.get_tokens(s)
                   for s in set(crowded) | set(reading.view) if s not in reading.unreadable)
