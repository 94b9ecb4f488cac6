"""Synthetic camera set-ups for the tests and benchmarks: a game's sheet filmed from a
random pose with fixed optics (blur), calibrated the way a user would calibrate — frames
of the empty board, and for colour games the calibration layout — under other light.

A :class:`Session` then renders any number of frames of any positions from that camera,
each with its own light, noise, jitter and perhaps a hand or glare.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import numpy as np

from rules.game import State
from rules.registry import get_game
from rules.view import Fidelity, View

from vision.camera.capture import read_size
from vision.read.calibration import calibrate, colour_layout
from vision.read.empty_board import Calibration
from vision.read.samples import SampleGrid
from vision.readers.for_game import grid_for, reader_for
from vision.readers.reader import Reader
from vision.sheets import layout
from vision.sheets.layout import Sheet

from .synth import Effects, Pose, Renderer


@dataclass
class Session:
    sheet: Sheet
    grid: SampleGrid
    renderer: Renderer
    pose: Pose
    blur: float
    calibration: Calibration
    rng: np.random.Generator

    @classmethod
    def create(cls, game: str, seed: int = 0, *, mode: str | None = None, grid: SampleGrid | None = None,
               rotation: float = 8.0, fill: tuple[float, float] = (0.85, 0.97)) -> "Session":
        rng = np.random.default_rng(seed)
        board = get_game(game).board()
        grid = grid if grid is not None and grid.sheet.board == board else grid_for(Sheet.for_board(board))
        sheet = grid.sheet
        mode = mode or layout.DEFAULT_MODE.get(game, "tags")
        renderer = Renderer(sheet, mode=mode, size=read_size(game))  # filmed at the size the service reads
        pose = renderer.random_pose(rng, rotation=rotation, fill=fill)
        blur = float(rng.uniform(0.3, 1.2))
        calm = lambda: replace(Effects.random(rng, hard=False, size=renderer.size), blur=blur)  # noqa: E731
        empty = [renderer.frame(View(), pose.jittered(rng, 0.3), calm(), rng) for _ in range(3)]
        shots = []
        if mode == "colour":
            view = colour_layout(sheet)
            shots = [(renderer.frame(view, pose.jittered(rng, 0.3), calm(), rng), view)]
        cal = calibrate(grid, empty, mode=mode, shots=shots)
        return cls(sheet, grid, renderer, pose, blur, cal, rng)

    def reader(self, fidelity: Fidelity = Fidelity.KIND) -> Reader:
        return reader_for(self.grid, self.calibration, fidelity)  # type: ignore[return-value]

    def effects(self, *, hard: bool = True) -> Effects:
        return replace(Effects.random(self.rng, hard=hard, size=self.renderer.size), blur=self.blur)

    def frame(self, view: View, *, hard: bool = True, jitter: float = 1.0) -> tuple[np.ndarray, Effects]:
        e = self.effects(hard=hard)
        return self.renderer.frame(view, self.pose.jittered(self.rng, jitter), e, self.rng), e


def random_position(game: str, seed: int, plies: int, start: State | None = None) -> State:
    """A position reached by ``plies`` random legal moves from ``start`` (the game's start)."""
    state = start if start is not None else get_game(game).start()
    rng = random.Random(seed)
    for _ in range(plies):
        moves = list(state.legal_moves())
        if not moves:
            break
        state = state.successor(rng.choice(moves))
    return state


def setup_length(state: State) -> int:
    """How many placements the position's setup phase still takes (DRIFT's coins; 0 for a
    game without one), so a scripted game can be asked for that many moves more."""
    n = 0
    while getattr(state, "phase", None) == "setup" and n < 1000:
        state = state.successor(next(iter(state.legal_moves())))
        n += 1
    return n


def scripted_game(game: str, seed: int, moves: int, start: State | None = None) -> tuple[State, list]:
    """A start position (the game's, unless given) and ``moves`` legal moves from it (fewer
    if the game ends); only moves the board shows (not a resignation or a pass, which are
    declared, not seen)."""
    start = start if start is not None else get_game(game).start()
    state, out = start, []
    rng = random.Random(seed)
    for _ in range(moves):
        before = state.view(Fidelity.KIND)
        legal = [m for m in state.legal_moves() if state.successor(m).view(Fidelity.KIND) != before]
        if not legal:
            break
        m = rng.choice(legal)
        out.append(m)
        state = state.successor(m)
    return start, out
