"""DRIFT through the camera: ring rotations read from the ring markers, pieces riding a turned
river read at their arrows, two tokens on a space, homes read as piles, abstention, and scripted
games (one with a drift phase, one from the start through the piled homes) refereed end to end
from rendered frames: CameraSource → stabiliser → referee."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from rules import MORE, OCCUPIED, Fidelity, Verdict, View, explain, get_game
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.service import play_observations
from tableref.sources.sim import render_script
from tableref.stabiliser import Stabiliser
from vision.camera.capture import ArrayCapture
from vision.camera.source import CameraSource
from vision.read.empty_board import CalibrationError
from vision.readers.drift_reader import DriftGrid, DriftReader
from vision.sheets import layout
from vision.sheets.annuli import Annuli
from vision.simulated.sessions import Session
from vision.simulated.synth import Effects
from vision.simulated.video import CAMERA_PAUSE, script_frames

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


def _referee_film(session, tmp_path, start, script, seed):
    """The script filmed by the session's camera, refereed from ``start``: (record, decisions)."""
    frames = script_frames(session.renderer, [(f.view, f.unreadable) for f in script.frames], pose=session.pose,
                           effects=session.effects(hard=False), seed=seed)
    source = CameraSource(ArrayCapture(frames, fps=10), session.reader())
    decisions = []
    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, "drift", fidelity=Fidelity.KIND, start=start)
        play_observations(referee, source.observations(), Stabiliser(), on_decision=decisions.append)
        return journal.load(referee.record.id), decisions


def test_tag_table_uses_only_free_ids_and_is_disjoint():
    ids = set(layout.TAGS["drift"]) | set(layout.RING_TAGS["drift"])
    ids |= set(layout.RING_OPPOSITE_TAGS["drift"])
    assert ids <= set(range(27, 57))  # 50-56 (white, black, second ring markers) from DICT_4X4_100
    assert layout.TAG_DICTIONARY == {"drift": "DICT_4X4_100"}
    taken = {i for g, t in layout.TAGS.items() if g != "drift" for i in t}
    assert not ids & taken and not set(layout.RING_TAGS["drift"]) & set(layout.TAGS["drift"])
    assert layout.tag_id("drift", "ring:middle") == 46 and layout.tag_id("drift", "carried:gold") == 43
    assert layout.tag_id("drift", "ring:middle-opposite") == 55


def test_position_under_way_reads_exactly(session):
    reader = session.reader()
    view = START.view(Fidelity.KIND)
    frame = session.renderer.frame(view, session.pose, _calm(session), np.random.default_rng(1))
    reading = reader.read(frame, session.pose.H)
    assert reading.complete, reading.why
    assert view.matches(reading.view)
    assert reading.view["O2"] == ("carried:silver", "red-I")  # two tokens on one space
    assert reading.view["rotation:middle"] == ("0",)
    # Every occupied home is read as a pile: its top, and maybe more beneath.
    homes = {s.id for s in session.sheet.board.spaces if s.kind == "home"}
    assert {s for s in reading.view if MORE in reading.view[s]} == {s for s in view if s in homes}
    assert {s: t for s, t in reading.view.items() if s not in homes} == {s: t for s, t in view.items() if s not in homes}


def test_game_start_reads_six_pieces_piled_in_each_home(session):
    start = get_game("drift").start()
    view = start.view(Fidelity.KIND)
    assert view["O0"] == ("red-I", "red-I", "red-II", "red-II", "red-III", "red-III")
    frame = session.renderer.frame(view, session.pose, _calm(session), np.random.default_rng(5))
    reading = session.reader().read(frame, session.pose.H)
    assert reading.complete, reading.why
    assert reading.view["O0"] == (MORE, "red-III")  # the top of the pile
    assert view.matches(reading.view) and not View({**view.to_dict(), "O0": ["red-I"]}).matches(reading.view)
    assert explain(start, reading.view).verdict is Verdict.UNCHANGED


def test_six_players_homes_and_pieces_read_every_colour(session):
    six = "red:circle,blue:triangle,green:square,yellow:pentagon,white:hexagon,black:star"
    start = get_game("drift").start({"players": six})
    d = start.to_dict()
    # One piece of each of the six colours out of its home (the rest stay piled).
    d["pieces"] = {**d["pieces"], "white-I-1": "M3", "black-II-2": "O6", "yellow-III-1": "I5", "red-I-2": "OR9"}
    view = get_game("drift").from_dict(d).view(Fidelity.KIND)
    frame = session.renderer.frame(view, session.pose, _calm(session), np.random.default_rng(7))
    reading = session.reader().read(frame, session.pose.H)
    assert reading.complete, reading.why
    assert view.matches(reading.view)
    assert reading.view["M3"] == ("white-I",) and reading.view["O6"] == ("black-II",)
    assert reading.view["O20"] == ("black-III", MORE)  # the star's home: Black's pile


def test_a_ring_marker_too_blurred_to_find_is_read_where_its_step_puts_it(session, monkeypatch):
    d = START.to_dict()
    d["rotations"] = {"outer": 5, "middle": 17, "inner": 11}
    view = get_game("drift").from_dict(d).view(Fidelity.KIND)
    frame = session.renderer.frame(view, session.pose, _calm(session), np.random.default_rng(6))
    grey = frame.mean(axis=2).astype(np.uint8)
    reader = session.reader()
    monkeypatch.setattr(DriftReader, "_tags_near", lambda *a: [])  # the detector finds no outline
    rots, why = reader.rotations(grey, session.pose.H)
    assert rots == [5, 17, 11] and not why
    # The cells are read only where the marker is, as the marker's: nowhere else on the ring.
    ring = reader.annuli.rings[1]
    assert [k for k in range(ring.n) if reader._decodes_at(grey, session.pose.H, ring, k, ring.tag)] == [17]
    # ...and its second marker only at its own place, half a turn on (18 steps: 17 + 9 = 8).
    assert [k for k in range(ring.n) if reader._decodes_at(grey, session.pose.H, ring, k, ring.opposite_tag)] == [8]
    # Another id expected there (a piece's tag where the marker should be) is not read as it.
    assert reader._decodes_at(grey, session.pose.H, ring, 17, ring.tag)
    assert not any(reader._decodes_at(grey, session.pose.H, ring, 17, t) for t in (27, 44, 45, 47, 54, 55, 56))


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
    assert view.matches(reading.view)
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
    # just "red-I" there would be a wrong position. The space is unreadable, or read as Red's I
    # and one token not named (the disc plainly beside it, as one of a pair).
    view = START.view(Fidelity.KIND)
    blotted = View({**{s: view[s] for s in view}, "O2": ("red-I", "carried:untagged")})
    frame = session.renderer.frame(blotted, session.pose, _calm(session), np.random.default_rng(4))
    reading = session.reader().read(frame, session.pose.H)
    assert "O2" in reading.unreadable or reading.view.get_tokens("O2") == (OCCUPIED, "red-I")
    assert view.diff(reading.view.resolved(view)) <= reading.unreadable  # the rest right (homes as piles)


def test_identity_fidelity_is_refused_with_the_reason(session):
    with pytest.raises(CalibrationError, match="kind"):
        DriftReader(session.grid, session.calibration, Fidelity.IDENTITY)
    assert isinstance(session.grid, DriftGrid)


def test_scripted_drift_game_with_a_drift_phase_refereed_from_rendered_frames(session, tmp_path):
    final, played = _played()
    assert final.rots == (1, 1, 1)
    script = render_script(START, played, fidelity=Fidelity.KIND, seed=2, noise=False)
    record, decisions = _referee_film(session, tmp_path, START, script, seed=4)
    assert record.moves == MOVES
    assert "illegal" not in [d.kind for d in decisions]
    assert [d.kind for d in decisions if d.kind == "accepted"] == ["accepted"] * len(MOVES)


def test_drift_game_from_its_start_through_the_piled_homes_refereed_from_rendered_frames(session, tmp_path):
    # The last coins placed round the piled homes, then Red's first turn out of its pile (in rank
    # order: a lower rank first would strand the pieces above it, D5).
    start = get_game("drift").start()
    for text in ["copper O5", "copper O9", "copper O10", "gold M11", "silver I9", "gold M5", "silver I7"]:
        start = start.successor(start.parse_move(text))
    played, state, positions = [], start, [start]
    for text in ["silver I11", "gold M10", "red-III-1 O0-O1", "red-III-2 O0-OR0", "red-II-1 O0-OR23"]:
        played.append(state.parse_move(text))
        state = state.successor(played[-1])
        positions.append(state)
    script = render_script(start, played, fidelity=Fidelity.KIND, seed=3, noise=False, settle_hold=CAMERA_PAUSE)
    record, decisions = _referee_film(session, tmp_path, start, script, seed=5)
    assert len(record.moves) == len(played), record.moves
    assert [s.view(Fidelity.KIND) for s in record.states] == [s.view(Fidelity.KIND) for s in positions]
    assert "illegal" not in [d.kind for d in decisions]


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
        assert crowded.diff(reading.view.resolved(crowded)) <= reading.unreadable
