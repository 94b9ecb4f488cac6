"""Decision time after the hand leaves: scripted camera games of every engine, played slowly.

    .venv/bin/python bench/decision_latency.py [--games N] [--moves M] [--fps F] [--only g1,g2]
                                               [--compare]

For each engine, ``--games`` scripted games of ``--moves`` moves are filmed by the synthetic
camera (``vision.simulated.sessions``) from hand scripts (``vision.simulated.hand_script``): the
hand reaches in, lifts the piece, pauses 0.4 s over two other pieces on the way (a Gygès bounce
chain done slowly), sets the piece down part-way with the fingers still on it when a legal
position allows (the trap), picks it up, puts it down where it goes and leaves. The film runs
through ``CameraSource`` → ``Stabiliser`` → ``Referee`` (a real journal).

A move's decision time is the film time from the first frame without the hand to the frame
whose observation made the stabiliser report the board, plus the wall time this machine
took over that frame (lock, gate, read, stabiliser) and over the referee's handling (explain,
journal). Printed per engine and overall: p50 / p99 / max in ms, moves decided, and wrong or
intermediate accepts (must be 0). ``--compare`` also runs each film the old way (source
settle 0.3 s, stabiliser settle 0.6 s over 3 readings, no hand signal). Exits 1 on any wrong
or intermediate accept, or a board reported with the hand in view; a move the camera could not
read is left undecided (the ``decided`` column), a wait rather than an error.

``--filmed`` plays the same measurement on films of the camera model instead
(``vision.simulated.camera_model`` via ``vision.simulated.scene_film``: a tilted pinhole with
barrel distortion, a lamp and shadows, 3-D pieces at the set's heights, an arm that reaches in,
lifts the piece, holds it still over ``--stops`` spaces on the way for 0.4 s each and over its
destination, puts it down and withdraws), calibrated as ``tableref calibrate`` does: Gygès and
Anacund by default (``--only``), board 60 % of 1280x720 (DRIFT and Annelids 1920x1080: ``read_size``), k1 -0.1, at
``--tilts``. An intermediate accept there is any board reported that is one of the film's
in-between positions (a piece in the hand). The hand has left once neither the arm nor its
shadow covers a pixel of the sheet (a shadow sweeping the board is movement to any camera); the
film-time figures are given from then and from the arm alone leaving the board.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from rules import Fidelity, get_game  # noqa: E402
from decisions import StableView  # noqa: E402
from tableref.journal import Journal  # noqa: E402
from tableref.referee import Referee  # noqa: E402
from tableref.stabiliser import Stabiliser  # noqa: E402
from vision.camera.capture import ArrayCapture, read_size  # noqa: E402
from vision.camera.source import CameraSource  # noqa: E402
from vision.read.calibration import calibrate, colour_layout  # noqa: E402
from vision.readers.for_game import grid_for, reader_for  # noqa: E402
from vision.sheets.layout import DEFAULT_MODE, Sheet  # noqa: E402
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene  # noqa: E402
from vision.simulated.hand_script import HandScript, HandTiming, hand_script  # noqa: E402
from vision.simulated.knock import KnockedCapture, table_knocks  # noqa: E402
from vision.simulated.scene_film import FilmFrame, FilmTiming, film, film_frames  # noqa: E402
from vision.simulated.sessions import Session, scripted_game, setup_length  # noqa: E402
from vision.simulated.video import script_frames  # noqa: E402

ENGINES = ("gyges", "anacund", "annihilation", "annelids", "drift")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)  # seconds, per decided move
    moves: int = 0
    decided: int = 0
    wrong: int = 0  # accepted moves that are not the script's
    intermediate: int = 0  # a position laid down part-way reported as the board
    with_hand: int = 0  # a board reported while the hand was in view


def start_for(game: str):
    g = get_game(game)
    # Gygès from its default setup (ring moves with bounces; its start is the placements).
    return g.default_setup() if game == "gyges" else g.start()


def timed(frames, drawing: list[float]):
    """``frames`` passed on, the wall time spent drawing them added to ``drawing[0]`` (the
    camera's time, not the chain's: left out of the latencies)."""
    while True:
        t = time.perf_counter()
        img = next(frames, None)
        drawing[0] += time.perf_counter() - t
        if img is None:
            return
        yield img


def judge_accepted(run: Run, out, start, positions, leaves, now: float) -> list[int]:
    """Count the accepted decisions in ``out`` into ``run``: right (the scripted position after
    that move) or wrong; for each right one the latency from its hand leaving to ``now`` (the
    film time plus this machine's time over the frame). Returns the moves decided right."""
    right = []
    for d in out:
        if d.kind != "accepted":
            continue
        k = d.ply - 1
        if k >= len(positions) or type(start).from_dict(d.position) != positions[k]:
            run.wrong += 1
            continue
        run.decided += 1
        right.append(k)
        run.latencies.append(now - leaves[k])
    return right


def positions_after(start, played) -> list:
    """The position after each of ``played``, from ``start``."""
    out, s = [], start
    for m in played:
        s = s.successor(m)
        out.append(s)
    return out


def play(session: Session, start, played, script: HandScript, fps: float, *, old: bool, run: Run) -> None:
    frames = script_frames(session.renderer, script.items(), pose=session.pose,
                           effects=session.effects(hard=False), seed=7)
    drawing = [0.0]  # wall time spent drawing the film: the camera's, not ours, so left out

    source = CameraSource(ArrayCapture(timed(frames, drawing), fps=fps), session.reader(), settle_time=0.3 if old else 0.1)
    stab = Stabiliser()
    truth = {round(f.t, 4): f for f in script.frames}
    positions = positions_after(start, played)  # judged by position: two notations of one outcome are one move
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite3") as journal:
        referee = Referee.start(journal, start.game_name, fidelity=Fidelity.KIND, start=start)
        observations = source.observations()
        while True:
            t0, drawn = time.perf_counter(), drawing[0]
            obs = next(observations, None)
            if obs is None:
                break
            if old:
                obs = replace(obs, hands_clear_since=None)
            view = stab.feed(obs)
            frame_s = time.perf_counter() - t0 - (drawing[0] - drawn)
            if view is None:
                continue
            f = truth[round(obs.time, 4)]
            run.with_hand += bool(f.hidden)
            run.intermediate += any(v.matches(view) for v in script.intermediates)
            t1 = time.perf_counter()
            out = referee.handle(StableView(view, obs.time))
            handle_s = time.perf_counter() - t1
            judge_accepted(run, out, start, positions, script.leaves, obs.time + frame_s + handle_s)
        run.moves += len(positions)


# -- filmed by the camera model ------------------------------------------------------------

FILM_HD = (1280, 720)
SLOW = FilmTiming(fps=30.0, stops=2, hover_s=0.4, still_s=1.0, opening_s=1.0, closing_s=1.5)


@dataclass
class FilmedGame:
    """A scripted game filmed through the camera model, with what the camera needs to read it."""

    game: str
    tilt: float
    start: object  # rules State
    played: list
    frames: list[FilmFrame]
    model: CameraModel
    reader: object  # vision Reader (DriftReader for DRIFT)

    @cached_property
    def _sheet_mask(self) -> np.ndarray:
        w, h = self.model.plane_mm
        quad = self.model.pose.project(np.float32([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]]))
        mask = np.zeros(self.model.setup.size[::-1], np.uint8)
        cv2.fillConvexPoly(mask, quad.astype(np.int32), 1)
        return mask > 0

    def over_board(self, f: FilmFrame, *, shadow: bool = True) -> bool:
        """The arm (and, with ``shadow``, its shadow from the lamp) covers some pixel of the
        sheet in the frame: the scene drawn without noise, compared with it drawn without the
        arm."""
        if not f.hand:
            return False
        scene = replace(f.scene, noise=0.0) if shadow else replace(f.scene, lamp=None, noise=0.0)
        arm = self.model.render_clean(scene)
        bare = self.model.render_clean(replace(scene, hands=()))
        return bool((np.abs(arm - bare).max(axis=2)[self._sheet_mask] > 8).any())

    def _leaves(self, shadow: bool) -> list[float]:
        out: list[float] = []
        for f in self.frames:
            if f.move == len(out) + 1 and not self.over_board(f, shadow=shadow):
                out.append(f.time)
        return out

    @cached_property
    def leaves(self) -> list[float]:
        """Per move, the film time the hand has left the board after it: the first frame of
        the arm's withdrawal where neither the arm nor its shadow covers a pixel of the sheet
        (the board is still from then on: a shadow sweeping it is movement to any camera)."""
        return self._leaves(True)

    @cached_property
    def arm_leaves(self) -> list[float]:
        """Per move, the film time the arm itself (its shadow aside) has left the board."""
        return self._leaves(False)


def filmed_game(game: str, *, tilt: float = 25.0, moves: int = 3, seed: int = 0, fill: float = 0.6,
                k1: float = -0.1, heights: float = 1.0, timing: FilmTiming = SLOW) -> FilmedGame:
    """Film ``moves`` scripted moves of ``game`` (from its set-up start) and calibrate a reader
    on frames of the empty board (and the colour layout, for colour games) from that camera."""
    sheet = Sheet.for_board(get_game(game).board())
    grid = grid_for(sheet)
    size = read_size(game)  # as the service reads it: DRIFT and Annelids 1920x1080
    model = CameraModel(grid.sheet, CameraSetup(size=size, tilt_deg=tilt, fill=fill, k1=k1, yaw_deg=3.0))
    base = Scene(heights=heights, jpeg=80)
    mode = DEFAULT_MODE.get(game, "tags")
    empty = [model.render(replace(base, seed=seed * 10 + i)) for i in range(3)]
    lay = colour_layout(grid.sheet) if mode == "colour" else None
    shots = [(model.render(replace(base, view=lay, seed=seed * 10 + 5)), lay)] if lay is not None else []
    cal = calibrate(grid, empty, mode=mode, shots=shots)
    start = get_game(game).default_setup()  # set up, ready to play (as tableref demo-video films)
    start, played = scripted_game(game, seed, setup_length(start) + moves, start)
    frames = film(grid.sheet, start, played, base=base, timing=timing)
    return FilmedGame(game, tilt, start, played, frames, model, reader_for(grid, cal))


def play_film(fg: FilmedGame, run: Run, *, seed: int = 0, images: Iterator[np.ndarray] | None = None,
              knocked: bool = False) -> list[tuple[int, float]]:
    """Play ``fg`` CameraSource → Stabiliser → Referee (a real journal), adding to ``run``
    (latencies from ``fg.leaves``); returns each decided move (its index) with the film time
    of the frame that decided it. ``images``: the film's frames from another camera (one per
    ``fg.frames``; default: ``fg.model`` films them). ``knocked``: the camera knocked as a
    table knocks it (:func:`vision.simulated.knock.table_knocks`; the camera model's barrel,
    k1 −0.1, is turned with the picture, a little off a real turned camera's at the edges)."""
    drawing = [0.0]

    fps = 1.0 / (fg.frames[1].time - fg.frames[0].time)
    frames = images if images is not None else film_frames(fg.model, fg.frames, seed=seed)
    capture = ArrayCapture(timed(frames, drawing), fps=fps)
    if knocked:
        capture = KnockedCapture(capture, table_knocks(fg.leaves), hfov_deg=fg.model.setup.hfov_deg)
    source = CameraSource(capture, fg.reader)
    stab = Stabiliser()
    truth = {round(f.time, 4): f for f in fg.frames}
    positions = positions_after(fg.start, fg.played)
    boards = {p.view(Fidelity.KIND) for p in [fg.start, *positions]}
    between = {f.view for f in fg.frames} - boards  # a piece in the hand: never a move
    leaves = fg.leaves
    decided: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite3") as journal:
        referee = Referee.start(journal, fg.game, fidelity=Fidelity.KIND, start=fg.start)
        observations = source.observations()
        while True:
            t0, drawn = time.perf_counter(), drawing[0]
            obs = next(observations, None)
            if obs is None:
                break
            view = stab.feed(obs)
            frame_s = time.perf_counter() - t0 - (drawing[0] - drawn)
            if view is None:
                continue
            f = truth[round(obs.time, 4)]
            run.with_hand += fg.over_board(f)  # an arm elsewhere in the frame is not over the board
            run.intermediate += view in between
            t1 = time.perf_counter()
            out = referee.handle(StableView(view, obs.time))
            handle_s = time.perf_counter() - t1
            decided += [(k, obs.time) for k in
                        judge_accepted(run, out, fg.start, positions, leaves, obs.time + frame_s + handle_s)]
    run.moves += len(positions)
    return decided


def main_filmed(args: argparse.Namespace) -> int:
    engines = args.only.split(",") if args.only else ["gyges", "anacund"]
    tilts = [float(t) for t in args.tilts.split(",")]
    timing = replace(SLOW, fps=args.fps, stops=args.stops)
    print(f"camera model films at {args.fps:g} fps: board 60 % of 1280x720 (DRIFT, Annelids 1920x1080), k1 -0.1, the lamp, "
          f"real piece heights; {args.games} games x {args.moves} moves per engine and tilt; slow moves "
          f"(held 0.4 s over {args.stops} spaces on the way and over the destination)")
    print(f"{'engine':<13} {'tilt':>4} {'moves':>5} {'decided':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
          f"{'wrong':>5} {'interm.':>7} {'w/hand':>6}")
    total, bad, total_film, total_arm = Run(), 0, [], []
    for game in engines:
        for tilt in tilts:
            r, film_s, arm_s = Run(), [], []
            for i in range(args.games):
                fg = filmed_game(game, tilt=tilt, moves=args.moves, seed=100 + i, timing=timing)
                for k, t in play_film(fg, r, seed=i, knocked=args.knocked):
                    film_s.append(t - fg.leaves[k])
                    arm_s.append(t - fg.arm_leaves[k])
            _row(f"{game:<13} {tilt:>4.0f}", "", r, width=18, film=film_s, arm=arm_s)
            total_film += film_s
            total_arm += arm_s
            total.latencies += r.latencies
            for k in ("moves", "decided", "wrong", "intermediate", "with_hand"):
                setattr(total, k, getattr(total, k) + getattr(r, k))
            bad += r.wrong + r.intermediate + r.with_hand
    _row(f"{'all':<18}", "", total, width=18, film=total_film, arm=total_arm)
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2, help="scripted games per engine (default 2)")
    ap.add_argument("--moves", type=int, default=4, help="moves per game (default 4)")
    ap.add_argument("--fps", type=float, default=30.0, help="the camera's frame rate (default 30)")
    ap.add_argument("--only", default="", help="comma-separated engines (default: all five)")
    ap.add_argument("--compare", action="store_true", help="also run the old settle-time path")
    ap.add_argument("--filmed", action="store_true",
                    help="films of the camera model (Gygès and Anacund unless --only) instead of the synthetic camera")
    ap.add_argument("--tilts", default="10,25,35", help="--filmed: camera tilts from vertical (default 10,25,35)")
    ap.add_argument("--stops", type=int, default=2, help="--filmed: spaces the piece is held over on the way")
    ap.add_argument("--knocked", action="store_true",
                    help="--filmed: the camera knocked in each film (a shelf bump, a knock as the last arm withdraws, "
                         "a hand over the lens: vision.simulated.knock.table_knocks)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.filmed:
        return main_filmed(args)
    engines = [g for g in ENGINES if not args.only or g in args.only.split(",")]
    modes = [("hand", False)] + ([("settle", True)] if args.compare else [])
    print(f"camera at {args.fps:g} fps; {args.games} games x {args.moves} moves per engine; slow moves "
          "(0.4 s pauses over 2 pieces, a part-way set-down with the fingers on it)")
    print(f"{'engine':<13} {'path':<7} {'moves':>5} {'decided':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
          f"{'wrong':>5} {'interm.':>7} {'w/hand':>6}")
    totals = {name: Run() for name, _ in modes}
    bad = 0
    for game in engines:
        runs = {name: Run() for name, _ in modes}
        for i in range(args.games):
            session = Session.create(game, 11 + i)
            start = start_for(game)
            _, played = scripted_game(game, 100 + i, args.moves, start=start)
            script = hand_script(start, played, timing=HandTiming(fps=args.fps, lay_down=True), seed=i)
            for name, old in modes:
                play(session, start, played, script, args.fps, old=old, run=runs[name])
        for name, r in runs.items():
            _row(game, name, r)
            t = totals[name]
            t.latencies += r.latencies
            for k in ("moves", "decided", "wrong", "intermediate", "with_hand"):
                setattr(t, k, getattr(t, k) + getattr(r, k))
            bad += r.wrong + r.intermediate + r.with_hand  # a move left undecided is a wait, not an error
    for name, r in totals.items():
        _row("all", name, r)
    return 1 if bad else 0


def _row(game: str, path: str, r: Run, width: int = 13, film: list[float] | None = None,
         arm: list[float] | None = None) -> None:
    ms = [v * 1000 for v in r.latencies] or [float("nan")]
    label = f"{game:<{width}}" + (f" {path:<7}" if path else "")

    def p50_99(v: list[float]) -> str:
        v = [x * 1000 for x in v] or [float("nan")]
        return f"{statistics.median(v):.0f}/{pct(v, 99):.0f}"

    # film time alone (no machine time): what a camera at this frame rate allows; and from the
    # arm leaving the board while its shadow may still sweep it
    extra = "" if film is None else f"   film time p50/p99 {p50_99(film)} ms; from the arm alone {p50_99(arm or [])} ms"
    print(f"{label} {r.moves:>5} {r.decided:>7} {statistics.median(ms):>7.0f} {pct(ms, 99):>7.0f} "
          f"{max(ms):>7.0f} {r.wrong:>5} {r.intermediate:>7} {r.with_hand:>6}{extra}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
