"""Gygès's rings without stickers (issue 17 item 3): drawn by the camera model as stepped
tiers (vision/pieces/rings.py), read by their tiers' rims (vision/readers/ring_reading.py) with lines
learned from one frame of the default set-up — at kind fidelity, never a wrong kind; and a
filmed untagged game refereed CameraSource → Stabiliser → Referee."""

from dataclasses import replace

import numpy as np
import pytest

from bench.decision_latency import FilmedGame, Run, play_film
from bench.vision_real import BASE_SCENE, BASE_SETUP, judge
from rules import Fidelity, get_game
from rules.view import View
from vision.read.calibration import calibrate, lock_on
from vision.read.empty_board import CalibrationError
from vision.readers.for_game import grid_for, reader_for
from vision.readers.ring_reading import RingModel, RingReader, learn_rings
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel
from vision.simulated.scene_film import FilmTiming, film
from vision.simulated.sessions import random_position, scripted_game, setup_length

UNTAGGED = replace(BASE_SCENE, tags=False)


@pytest.fixture(scope="module")
def camera():
    """The base setting's camera, its empty-board calibration and the rings learned from the
    default set-up (as `tableref calibrate` would, from frames it takes)."""
    game = get_game("gyges")
    grid = grid_for(Sheet.for_board(game.board()))
    model = CameraModel(grid.sheet, BASE_SETUP)
    cal = calibrate(grid, [model.render(replace(UNTAGGED, seed=i)) for i in range(2)], mode="tags")
    start = game.default_setup().view(Fidelity.KIND)
    shot = model.render(replace(UNTAGGED, view=start, seed=5))
    frame, H = lock_on(grid.sheet, [shot, shot])[-1]
    return grid, model, cal, learn_rings(grid, cal, [(frame, H, start)])


def test_untagged_positions_are_read_at_kind_fidelity_with_no_wrong_space(camera):
    grid, model, cal, rings = camera
    reader = reader_for(grid, cal, Fidelity.KIND, rings=rings)
    assert isinstance(reader, RingReader)
    rng = np.random.default_rng(11)
    named = total = 0
    for k in range(2):
        view = random_position("gyges", int(rng.integers(1 << 30)), 10 + 15 * k, None).view(Fidelity.KIND)
        frame = model.render(replace(UNTAGGED, view=view, seed=20 + k))
        (_, H), = lock_on(grid.sheet, [frame, frame])[-1:]
        got = reader.read(frame, H)
        wrong, occupied = judge(view, got.view, got.unreadable)
        assert wrong == 0, f"untagged rings read wrong: {got.view} for {view}"
        assert not got.unreadable, got.why
        total += len(view)
        named += len(view) - occupied
    assert named >= 0.9 * total, f"only {named} of {total} rings named by their tiers"


def test_a_frame_with_tagged_rings_is_not_read_as_kinds_by_the_ring_lines(camera):
    """Stickers instead of tiers (a set the calibration did not learn): no rims where the
    lines expect them, so nothing may be named a ring of the wrong height."""
    grid, model, cal, rings = camera
    reader = reader_for(grid, cal, Fidelity.KIND, rings=rings)
    view = get_game("gyges").default_setup().view(Fidelity.KIND)
    frame = model.render(replace(BASE_SCENE, view=view, seed=3))
    (_, H), = lock_on(grid.sheet, [frame, frame])[-1:]
    got = reader.read(frame, H)
    wrong, _ = judge(view, got.view, got.unreadable)
    assert wrong == 0


def test_ring_lines_name_a_kind_only_when_every_tier_is_clear():
    m = RingModel((0.4, 0.4, 0.4), (0.0, 0.0, 0.0))
    assert m.kind(np.array([0.4, 0.01, 0.0])) == 1
    assert m.kind(np.array([0.4, 0.38, 0.02])) == 2
    assert m.kind(np.array([0.35, 0.4, 0.41])) == 3
    assert m.kind(np.array([0.4, 0.2, 0.0])) is None  # tier 2 in between
    assert m.kind(np.array([0.4, 0.0, 0.4])) is None  # a tier over a missing one
    assert m.kind(np.array([0.05, 0.0, 0.0])) is None  # no rim at all
    flat, patterned = np.full(3, 0.02), np.array([0.3, 0.02, 0.02])
    assert m.kind(np.array([0.4, 0.0, 0.0]), patterned) is None  # a sticker or a hand on top
    assert m.is_ring(np.array([0.4, 0.2, 0.0]), flat)  # a ring, its height unclear: "occupied"
    assert not m.is_ring(np.array([0.4, 0.2, 0.0]), patterned)
    assert m.rim_seen(np.array([0.2, 0.0, 0.0]), flat)  # a faint rim round a flat top: never read empty
    assert not m.rim_seen(np.array([0.2, 0.0, 0.0]), patterned)  # a shadow's edge across printed paper


def test_ring_calibration_round_trips_and_a_bad_file_is_named(tmp_path):
    m = RingModel((0.4, 0.39, 0.38), (0.01, 0.0, -0.01))
    m.save(tmp_path / "rings.json")
    assert RingModel.load(tmp_path / "rings.json") == m
    (tmp_path / "bad.json").write_text('{"gyges_rings": {"present": [0.4]}}')
    with pytest.raises(CalibrationError, match="bad.json"):
        RingModel.load(tmp_path / "bad.json")


def test_learning_rings_needs_the_rings_to_differ(camera):
    """A default set-up filmed with stickers: the tiers' rims are not there to learn."""
    grid, model, cal, _ = camera
    view = get_game("gyges").default_setup().view(Fidelity.KIND)
    shot = model.render(replace(BASE_SCENE, view=view, seed=5))
    frame, H = lock_on(grid.sheet, [shot, shot])[-1]
    with pytest.raises(CalibrationError, match="gyges"):
        learn_rings(grid, cal, [(frame, H, view)])
    with pytest.raises(CalibrationError, match="rings on it"):
        learn_rings(grid, cal, [(frame, H, View())])


BRISK = FilmTiming(fps=6.0, opening_s=1.0, still_s=1.5, closing_s=2.0, reach_s=0.4, lift_s=0.3, carry_s=0.6,
                   lower_s=0.3, withdraw_s=0.4)


def test_filmed_untagged_game_is_refereed_as_played(camera):
    grid, model, cal, rings = camera
    game = get_game("gyges")
    start = game.default_setup()
    start, played = scripted_game("gyges", 0, setup_length(start) + 2, start)
    frames = film(grid.sheet, start, played, base=UNTAGGED, timing=BRISK)
    fg = FilmedGame("gyges", BASE_SETUP.tilt_deg, start, played, frames, model,
                    reader_for(grid, cal, Fidelity.KIND, rings=rings))
    run = Run()
    play_film(fg, run)
    assert (run.wrong, run.intermediate, run.with_hand) == (0, 0, 0)
    assert run.decided == run.moves == len(played) == 2


def test_a_ring_hidden_by_glare_is_never_read_empty(camera):
    """Glare washes out a ring's rims; grey metal beside a named ring then looks like that
    ring's shadow, which the plain reader reads as paper. The printed paper does not show
    through a ring, so it stays unreadable (before that check the single on f2 was read empty)."""
    grid, model, cal, rings = camera
    reader = reader_for(grid, cal, Fidelity.KIND, rings=rings)
    view = View({"f3": ["3"], "e3": ["2"], "f2": ["1"], "e2": ["3"]})
    at = grid.sheet.by_id["f3"]
    for strength in (160.0, 200.0):
        frame = model.render(replace(UNTAGGED, view=view, seed=3, glare=(at.x, at.y, 20.0, strength)))
        (_, H), = lock_on(grid.sheet, [frame, frame])[-1:]
        got = reader.read(frame, H)
        wrong, _ = judge(view, got.view, got.unreadable)
        assert wrong == 0, (strength, got.view, got.why)
