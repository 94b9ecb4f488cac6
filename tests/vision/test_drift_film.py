"""A filmed DRIFT game refereed end to end: the camera model on a shelf (tilt 25°, 1080p, the
board filling 60 %, k1 -0.1), real piece heights (homes piled six high at the start), an arm
moving each piece; frames → CameraSource (lock, motion gate, DRIFT's 3-D reader) → stabiliser →
referee. Few frames (5 fps, short pauses) so it stays quick."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import Fidelity, get_game
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.service import play_observations
from tableref.stabiliser import Stabiliser
from vision.camera.capture import ArrayCapture
from vision.camera.source import CameraSource
from vision.read.calibration import calibrate
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.scene_film import FilmTiming, film, film_frames
from vision.simulated.sessions import scripted_game

FPS = 5.0
QUICK = FilmTiming(fps=FPS, opening_s=0.8, still_s=1.0, closing_s=1.0, reach_s=0.4, lift_s=0.2, carry_s=0.4,
                   lower_s=0.2, withdraw_s=0.4)


@pytest.mark.parametrize("seed", [7])
def test_filmed_drift_game_from_the_piled_start_is_refereed_as_played(tmp_path, seed):
    sheet = Sheet.for_board(get_game("drift").board())
    grid = grid_for(sheet)
    model = CameraModel(grid.sheet, CameraSetup(size=(1920, 1080), tilt_deg=25.0, fill=0.6, k1=-0.1, yaw_deg=3.0))
    scene = Scene(heights=1.0, jpeg=80)
    cal = calibrate(grid, [model.render(replace(scene, seed=i)) for i in range(2)], mode="tags")
    start, played = scripted_game("drift", seed, 2, get_game("drift").default_setup())
    texts, state = [], start
    positions = [start.view(Fidelity.KIND)]
    for m in played:
        texts.append(state.move_text(m))
        state = state.successor(m)
        positions.append(state.view(Fidelity.KIND))
    frames = film(grid.sheet, start, played, base=scene, timing=QUICK)
    source = CameraSource(ArrayCapture(film_frames(model, frames, seed=seed), fps=FPS), reader_for(grid, cal))
    decisions = []
    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, "drift", fidelity=Fidelity.KIND, start=start)
        play_observations(referee, source.observations(), Stabiliser(), on_decision=decisions.append)
        record = journal.load(referee.record.id)
    kinds = [d.kind for d in decisions]
    # Like pieces are one position in the rules (kind fidelity): the positions, in order.
    views = [s.view(Fidelity.KIND) for s in record.states]
    assert views == positions, (record.moves, texts)
    assert kinds.count("accepted") == len(texts) and "illegal" not in kinds and "ambiguous" not in kinds, kinds
