"""A filmed Annelids game refereed end to end when no tail's dark cap is ever seen: the camera
model on a shelf (tilt 25°, 1080p, the board filling 60 %), real bar heights, an arm laying
each segment; frames → CameraSource (lock, motion gate, colour reader) → stabiliser → referee.
Every tail is then read by its colour alone, named in part (``blue:?``): history gives its
heading, so every move is still accepted as played — and before, every frame was unreadable."""

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
from vision.read.calibration import calibrate, colour_layout
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.scene_film import FilmTiming, film, film_frames
from vision.simulated.sessions import scripted_game

FPS = 5.0
QUICK = FilmTiming(fps=FPS, opening_s=0.8, still_s=1.0, closing_s=1.0, reach_s=0.4, lift_s=0.2, carry_s=0.4,
                   lower_s=0.2, withdraw_s=0.4)


def test_a_filmed_annelids_game_whose_tails_caps_are_never_seen_is_refereed_as_played(tmp_path, monkeypatch):
    import vision.readers.annelid_bars as bars

    monkeypatch.setattr(bars.AnnelidBars, "_headings", lambda self, *a, **k: {})  # no cap seen, ever
    game = get_game("annelids")
    grid = grid_for(Sheet.for_board(game.board()))
    model = CameraModel(grid.sheet, CameraSetup(size=(1920, 1080), tilt_deg=25.0, fill=0.6, k1=0.0, yaw_deg=3.0))
    scene = Scene(heights=1.0, jpeg=80)
    lay = colour_layout(grid.sheet)
    cal = calibrate(grid, [model.render(replace(scene, seed=i)) for i in range(2)], mode="colour",
                    shots=[(model.render(replace(scene, view=lay, seed=5)), lay)])
    start, played = scripted_game("annelids", 5, 3)
    texts, state, positions = [], start, [start.view(Fidelity.KIND)]
    for m in played:
        texts.append(state.move_text(m))
        state = state.successor(m)
        positions.append(state.view(Fidelity.KIND))
    reader = reader_for(grid, cal)
    seen_in_part = []
    read = reader.read

    def reading(frame, H):
        got = read(frame, H)
        seen_in_part.append(len(got.view.in_part))
        return got

    monkeypatch.setattr(reader, "read", reading)
    frames = film(grid.sheet, start, played, base=scene, timing=QUICK)
    source = CameraSource(ArrayCapture(film_frames(model, frames, seed=5), fps=FPS), reader)
    decisions = []
    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, "annelids", fidelity=Fidelity.KIND, start=start)
        play_observations(referee, source.observations(), Stabiliser(), on_decision=decisions.append)
        record = journal.load(referee.record.id)
    kinds = [d.kind for d in decisions]
    assert max(seen_in_part, default=0) >= 8, "the tails were not read in part"
    assert [s.view(Fidelity.KIND) for s in record.states] == positions, (record.moves, texts)
    assert kinds.count("accepted") == len(texts) and "illegal" not in kinds and "ambiguous" not in kinds, kinds
