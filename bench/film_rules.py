"""The lock's, the motion gate's and the camera source's rules re-measured on path-traced films
(issue 32, item 3).

    python bench/film_rules.py                                   # the committed films (tests/vision/pathtraced/film)
    python bench/film_rules.py --films /tmp/pt/films              # films bench/pathtraced_film.py --export wrote
    python bench/film_rules.py --rules threshold,settle_time      # some rules only (--list: every rule)

Still frames cannot test these rules: they judge a frame against the frames before it (a marker
that moved, a pixel that changed, how long the board has been still). A film can. Each film — an
H.264 file of path-traced frames with its three empty-board exposures and its truth, as
``tests/vision/test_pathtraced_film.py`` plays it — goes through the service's own chain
(``OpenCVCapture`` → ``CameraSource`` (lock, motion gate, reader) → ``Stabiliser`` →
``Referee`` with a real journal) once per value of each rule, the rule set on the object that
holds it (``BoardLock``, ``MotionGate``, ``CameraSource``) or, for a module's constant, in its
module. Per value, over every film: moves accepted as played, accepts that were not the move
played (wrong), boards reported that were none of the game's positions (a piece in the hand:
in-between), boards reported while the arm was in the film's frame, the decision after the arm
left (film time: the frame that decided the move less the first frame without the arm after
it), and the reads the source made (what the rule costs a core).

The films are 6 frames a second (a render per still spell; a camera gives 30): a rule in seconds
is measured here to a sixth of a second, and ``settle_time`` 0 and 0.1 s are the same film.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from bench.rule_margins import Patched, Rule  # noqa: E402
from rules import Fidelity, get_game  # noqa: E402
from vision.simulated.knock import Knock, KnockedCapture, table_knocks  # noqa: E402

COMMITTED = Path(__file__).resolve().parent.parent / "tests" / "vision" / "pathtraced" / "film"


@dataclass(frozen=True)
class FilmRule:
    """A rule: ``name`` a keyword of ``holder``'s constructor ("lock": BoardLock, "gate":
    MotionGate, "source": CameraSource), or a constant of ``module`` (holder "module");
    ``values`` to try, ``own`` its value in the service (None: the holder's default, which
    ``scaled`` values multiply: the gate's sizes depend on the sheet)."""

    name: str
    holder: str
    values: tuple[float, ...]
    own: float | None
    module: str = ""
    scaled: bool = False
    integer: bool = False  # the holder takes a whole number (a count, grey levels, pixels)


RULES: tuple[FilmRule, ...] = (
    FilmRule("SMALL_MARKER_PX", "module", (0.0, 20.0, 40.0, 60.0, 120.0), 40.0, "vision.read.lock"),
    FilmRule("NOISE_PX", "module", (0.1, 0.2, 0.35, 0.5, 1.0, 2.0), 0.35, "vision.read.lock"),
    FilmRule("bump_px", "lock", (1.0, 2.0, 4.0, 8.0, 16.0), 4.0),
    FilmRule("settle_frames", "lock", (1, 2, 3, 5), 2, integer=True),
    FilmRule("window", "lock", (0.25, 0.5, 1.0, 2.0), 0.5),
    FilmRule("min_markers", "lock", (2, 3, 4), 3, integer=True),
    FilmRule("lost_frames", "lock", (0, 1, 3, 5, 10), 5, integer=True),
    FilmRule("threshold", "gate", (5, 10, 20, 40, 80), 20, integer=True),
    FilmRule("min_pixels", "gate", (0.25, 0.5, 1.0, 2.0, 4.0, 16.0), None, scaled=True, integer=True),
    FilmRule("px_per_mm", "gate", (0.5, 0.75, 1.0, 1.5), None, scaled=True),
    FilmRule("settle_time", "source", (0.0, 0.1, 0.2, 0.4, 0.8), 0.1),
    FilmRule("reread", "source", (0.2, 0.5, 1.0, 2.0, 5.0), 1.0),
)


@dataclass
class Film:
    """One exported film: its truth (``.json``), video (``.mp4``) and empty-board exposures."""

    path: Path
    meta: dict

    def empty(self) -> list:
        """The film's exposures of the empty board (the calibration's), as the camera gave them."""
        return [cv2.imread(str(p)) for p in sorted(self.path.parent.glob(f"{self.path.stem}-empty*.jpg"))]

    def states(self) -> tuple[object, list]:
        """The game's start and the position after each move played (rules states)."""
        state_type = type(get_game(self.meta["game"]).default_setup())
        return state_type.from_dict(self.meta["start"]), [state_type.from_dict(p) for p in self.meta["positions"]]

    @property
    def leaves(self) -> list[float]:
        """Per move, the film time of the first frame without the arm once that move is on the
        board (a frame's ``move``: the moves made so far; the film's truth says which frames
        show the arm)."""
        frames = self.meta["frames"]
        # (a film ending with the arm still over it: its last frame)
        return [next((f["time"] for f in frames if f["move"] == k and not f["hand"]), frames[-1]["time"])
                for k in range(1, len(self.meta["positions"]) + 1)]


@dataclass
class Tally:
    moves: int = 0
    right: int = 0  # accepted as played, in order
    wrong: int = 0  # accepted, not the position played
    between: int = 0  # a board reported that is none of the game's positions
    with_arm: int = 0  # a board reported from a frame with the arm in it
    reads: int = 0
    frames: int = 0
    latencies: list[float] = field(default_factory=list)

    def line(self) -> str:
        lat = f"{statistics.median(self.latencies):.2f} s" if self.latencies else "—"
        worst = f"{max(self.latencies):.2f} s" if self.latencies else "—"
        return (f"{self.right:>3}/{self.moves:<3} {self.wrong:>5} {self.between:>7} {self.with_arm:>8} "
                f"{lat:>7} {worst:>7} {self.reads / max(self.frames, 1):>10.2f}")


def load_films(dirs: list[Path]) -> list[Film]:
    films = []
    for d in dirs:
        for p in sorted(d.glob("*.json")):
            meta = json.loads(p.read_text())
            if {"game", "frames", "positions", "start"} <= meta.keys() and p.with_suffix(".mp4").exists():
                films.append(Film(p, meta))
    return films


@dataclass
class Refereed:
    """What the service made of one film: its decisions in order and what the source did."""

    accepted: list[tuple[int, object, float]]  # (ply, the position accepted, film time)
    others: list[str]  # every other decision's kind
    boards: list[tuple[object, float]]  # each board the stabiliser reported (View, film time)
    reads: int
    frames: int
    bumps: int = 0  # the lock dropped for a bump (markers jumped, or lost too long) and sought again


def knocks_for(film: Film) -> list[Knock]:
    """The camera knocked while ``film`` plays, as a table knocks it (:func:`table_knocks` at
    the film's arm leavings)."""
    return table_knocks(film.leaves)


def hfov_of(film: Film) -> float:
    """The film's lens's horizontal field of view (the path-traced scene's camera modules)."""
    from vision.simulated.pathtraced.scene import MODULES

    return MODULES[film.meta["setup"].get("lens", "standard")].hfov_deg


def referee_film(film: Film, *, lock_kw: dict | None = None, gate_kw: dict | None = None,
                 source_kw: dict | None = None, knocks: list[Knock] | None = None) -> Refereed:
    """Play ``film`` as ``tableref serve`` plays a video: ``OpenCVCapture`` → ``CameraSource``
    (its lock, motion gate and reader, calibrated on the film's empty-board exposures) →
    ``Stabiliser`` → ``Referee`` with a real journal; ``*_kw``: the lock's, gate's and source's
    knobs (none: the service's); ``knocks``: the camera knocked as it films
    (:class:`vision.simulated.knock.KnockedCapture`; the calibration's exposures were taken
    before)."""
    from decisions import StableView
    from tableref.journal import Journal
    from tableref.referee import Referee
    from tableref.stabiliser import Stabiliser
    from vision.camera.capture import OpenCVCapture
    from vision.camera.source import CameraSource
    from vision.read.calibration import calibrate
    from vision.read.lock import BoardLock
    from vision.read.motion import MotionGate
    from vision.readers.for_game import grid_for, reader_for
    from vision.sheets.layout import DEFAULT_MODE, Sheet

    game = film.meta["game"]
    grid = grid_for(Sheet.for_board(get_game(game).board()))
    layout = film.path.parent / f"{film.path.stem}-layout.jpg"
    mode = DEFAULT_MODE.get(game, "tags")
    shots = []
    if mode == "colour" and layout.exists():
        from vision.read.calibration import colour_layout

        shots = [(cv2.imread(str(layout)), colour_layout(grid.sheet))]
    reader = reader_for(grid, calibrate(grid, film.empty(), mode=mode, shots=shots))
    start, _ = film.states()
    gate = MotionGate(grid.sheet, **gate_kw) if gate_kw else None
    capture = OpenCVCapture(str(film.path.with_suffix(".mp4")), size=None)
    if knocks:
        capture = KnockedCapture(capture, knocks, hfov_deg=hfov_of(film))
    source = CameraSource(capture, reader,
                          lock=BoardLock(grid.sheet, lens=getattr(reader, "lens", None), **(lock_kw or {})),
                          gate=gate, **(source_kw or {}))
    stab, out = Stabiliser(), Refereed([], [], [], 0, 0)
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite3") as journal:
        referee = Referee.start(journal, game, fidelity=Fidelity.KIND, start=start)
        for obs in source.observations():
            view = stab.feed(obs)
            if view is None:
                continue
            out.boards.append((view, obs.time))
            for d in referee.handle(StableView(view, obs.time)):
                if d.kind == "accepted":
                    out.accepted.append((d.ply, type(start).from_dict(d.position), obs.time))
                else:
                    out.others.append(d.kind)
    out.reads, out.frames, out.bumps = source.stats.reads, source.stats.frames, source.stats.bumps
    return out


def play(film: Film, tally: Tally, *, lock_kw: dict, gate_kw: dict, source_kw: dict,
         knocks: list[Knock] | None = None) -> None:
    """``film`` refereed with those knobs (:func:`referee_film`), counted into ``tally``."""
    start, positions = film.states()
    boards = {p.view(Fidelity.KIND) for p in [start, *positions]}
    hand_at = {round(f["time"], 3): f["hand"] for f in film.meta["frames"]}
    run = referee_film(film, lock_kw=lock_kw, gate_kw=gate_kw, source_kw=source_kw, knocks=knocks)
    tally.between += sum(view not in boards for view, _ in run.boards)
    tally.with_arm += sum(bool(hand_at.get(round(t, 3), False)) for _, t in run.boards)
    leaves, played = film.leaves, 0  # played: moves accepted as played, in order
    for ply, position, t in run.accepted:
        k = ply - 1
        if k == played and k < len(positions) and position == positions[k]:
            played += 1
            tally.right += 1
            tally.latencies.append(t - leaves[k])
        else:
            tally.wrong += 1
    tally.moves += len(positions)
    tally.reads += run.reads
    tally.frames += run.frames


def gate_default(film: Film, name: str) -> float:
    from vision.read.motion import MotionGate
    from vision.sheets.layout import Sheet

    gate = MotionGate(Sheet.for_board(get_game(film.meta["game"]).board()))
    return float(gate.s if name == "px_per_mm" else getattr(gate, name))


def measure(rule: FilmRule, value: float, films: list[Film], knocked: bool = False) -> Tally:
    """``rule`` at ``value`` over ``films`` (``knocked``: each with its camera knocked, :func:`knocks_for`)."""
    tally = Tally()
    for film in films:
        knocks = knocks_for(film) if knocked else None
        kw: dict = {"lock": {}, "gate": {}, "source": {}}
        if rule.holder in kw:
            v = value * gate_default(film, rule.name) if rule.scaled else value
            kw[rule.holder][rule.name] = int(round(v)) if rule.integer else v
            play(film, tally, lock_kw=kw["lock"], gate_kw=kw["gate"], source_kw=kw["source"], knocks=knocks)
        else:
            with Patched(Rule(rule.name, rule.module), value):
                play(film, tally, lock_kw={}, gate_kw={}, source_kw={}, knocks=knocks)
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--films", nargs="+", type=Path, default=[COMMITTED], help="directories of exported films")
    ap.add_argument("--rules", default=None, help="comma-separated rule names (default: all)")
    ap.add_argument("--list", action="store_true", help="print the rules measured and stop")
    ap.add_argument("--knocked", action="store_true",
                    help="the camera knocked in each film (a shelf bump, a knock as the last arm withdraws, "
                         "a hand over the lens: vision.simulated.knock.table_knocks)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.list:
        for r in RULES:
            print(f"{r.name:<16} {r.holder:<7} {', '.join(f'{v:g}' for v in r.values)}")
        return 0
    films = load_films(args.films)
    if not films:
        print(f"no film in {', '.join(map(str, args.films))}", file=sys.stderr)
        return 2
    chosen = [r for r in RULES if args.rules is None or r.name in args.rules.split(",")]
    print(f"{len(films)} films: " + ", ".join(f"{f.meta['game']} {f.meta['setup'].get('tilt_deg', '?'):g}° "
                                             f"({len(f.meta['positions'])} moves)" for f in films))
    print("values marked * are the service's (scaled rules: times the gate's own value for the sheet)")
    bad = 0
    for r in chosen:
        print(f"\n{r.name} ({r.holder if r.holder != 'module' else r.module})")
        print(f"{'value':>8}  {'played':>7} {'wrong':>5} {'between':>7} {'with arm':>8} {'p50':>7} {'max':>7} {'reads/frame':>10}")
        for v in r.values:
            t = measure(r, v, films, args.knocked)
            own = (v == 1.0) if r.scaled else (v == r.own)
            bad += own and (t.wrong or t.right < t.moves)
            print(f"{v:>7g}{'*' if own else ' '}  {t.line()}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
