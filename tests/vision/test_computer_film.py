"""The computer's moves carried out by hand, filmed by the camera model (issue 30): Gygès with
the computer on north at level 1. The film is made beforehand — the person's moves, and the
computer's replies as the service's own opponent chooses them (the same seed the service
uses) — then played CameraSource → Stabiliser → Referee with the opponent answering each
request: every move accepted as played, the computer's as the computer's, nothing illegal."""

from __future__ import annotations

import random
import tempfile
from dataclasses import replace
from pathlib import Path

from bench.decision_latency import FILM_HD, FilmedGame, Run, film, grid_for, judge_accepted, reader_for
from decisions import StableView, Thinking, parse_seats
from rules import Fidelity, Verdict, explain, get_game
from tableref.journal import Journal
from tableref.opponent import Opponent, OpponentSettings
from tableref.referee import Referee
from tableref.stabiliser import Stabiliser
from vision.camera.capture import ArrayCapture
from vision.camera.source import CameraSource
from vision.read.calibration import calibrate
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.scene_film import FilmTiming

BRISK = FilmTiming(fps=6.0, opening_s=1.0, still_s=1.5, closing_s=2.0, reach_s=0.4, lift_s=0.3, carry_s=0.6,
                   lower_s=0.3, withdraw_s=0.4)
SETTINGS = OpponentSettings(time_scale=100.0)  # the level's node budget decides, not this machine's speed


def computer_game(rounds: int):
    """South's moves (random, each one the camera shows unmistakably) and north's replies as
    the service's opponent plays them at level 1."""
    game = get_game("gyges")
    start = game.default_setup()
    rng, s, played = random.Random(5), start, []
    opponent = Opponent(lambda _cmd: None, SETTINGS)
    for _ in range(rounds):
        moves = list(s.legal_moves())
        rng.shuffle(moves)
        m = next(m for m in moves if explain(s, s.successor(m).view(Fidelity.KIND), Fidelity.KIND).verdict
                 is Verdict.LEGAL and not s.successor(m).is_game_over())
        played.append(m)
        s = s.successor(m)
        ask = Thinking(1, len(played), s.to_move, 1, 0, "gyges", s.to_dict(), state=s)
        for text in opponent.search(ask).texts:
            m = s.parse_move(text)
            played.append(m)
            s = s.successor(m)
        if s.is_game_over():
            break
    return start, played


def test_the_computers_moves_carried_out_by_hand_are_refereed_as_its_own():
    start, played = computer_game(2)
    sheet = Sheet.for_board(get_game("gyges").board())
    grid = grid_for(sheet)
    model = CameraModel(grid.sheet, CameraSetup(size=FILM_HD, tilt_deg=25.0, fill=0.6, k1=-0.1, yaw_deg=3.0))
    base = Scene(heights=1.0, jpeg=80)
    cal = calibrate(grid, [model.render(replace(base, seed=i)) for i in range(3)], mode="tags")
    fg = FilmedGame("gyges", 25.0, start, played, film(grid.sheet, start, played, base=base, timing=BRISK), model,
                    reader_for(grid, cal))
    positions, s = [], start
    for m in played:
        s = s.successor(m)
        positions.append(s)
    from bench.decision_latency import film_frames, timed

    fps = 1.0 / (fg.frames[1].time - fg.frames[0].time)
    source = CameraSource(ArrayCapture(timed(film_frames(fg.model, fg.frames, seed=0), [0.0]), fps=fps), fg.reader)
    stab, run, kinds = Stabiliser(), Run(), []
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite3") as journal:
        referee = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=start, seats=parse_seats("north:1"))
        answers: list = []
        opponent = Opponent(answers.append, SETTINGS)
        referee.subscribe(opponent.on_decision)
        referee.subscribe(lambda d: kinds.append(d.kind))
        referee.greeting()
        for obs in source.observations():
            view = stab.feed(obs)
            if view is None:
                continue
            out = referee.handle(StableView(view, obs.time))
            opponent.run_pending()
            for answer in answers:  # the computer's move, announced before the hand carries it out
                out += referee.handle(answer)
            answers.clear()
            judge_accepted(run, out, start, positions, [0.0] * len(positions), obs.time)
        recorded = journal.load(referee.record.id).moves
    assert run.wrong == 0 and "illegal" not in kinds
    replayed, s = [], start  # by position: two notations of one outcome (a bump that equals a move) are one move
    for text in recorded:
        s = s.apply_text(text)
        replayed.append(s)
    assert replayed == positions
    assert kinds.count("computer_move") == sum(1 for st in [start, *positions[:-1]] if st.to_move == "north")
