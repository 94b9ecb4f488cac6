"""How small the board may be in the picture: each game's reader against the board's scale.

    python bench/vision_scale.py [--games g1,g2] [--frames N] [--seed S] [--pathtraced]

For each game, at its read size (and at 1280x720 for the games read at 1920x1080: a webcam
that has no bigger picture), the project's camera model films the printed sheet at tilts 10,
20 and 35 deg and framings 25-65 % (bench/vision_real.py's base otherwise: real piece heights,
the lamp, JPEG 80, calm). Each row prints the board's smallest scale as the set-up measures
it (vision.read.scale.board_scale through a lock on an empty frame: pixels per millimetre, the
least over the spaces in any direction), then the frames locked, usable, false accepts and
spaces read wrong, exactly as bench/vision_real.py counts them.

Under each game: the frames usable per band of scale (0.05 px/mm wide) over all its rows; "reads
from", the lower edge of the least band from which every band under 1.5 times it read >= 90 %
of its frames (the span keeps a failure of another kind at large scales, Annelids' near faces
at tilt 35 deg, from deciding it); and the figures vision.read.scale holds (NEEDED_PX_PER_MM: what the set-up asks for; the reader
does not read a space under WRONG_BELOW_PX_PER_MM). With --pathtraced, also the scale of each
path-traced bench row (bench/vision_pathtraced.py's cameras: computed from their geometry,
nothing rendered; their usable frames are in docs/vision.md), the other evidence the needs
were chosen by (docs/vision-rules.md, section 11). Exits 1 on a false accept.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402

from bench.vision_real import BASE_SCENE, BASE_SETUP, FHD, HD, Setting, run_setting  # noqa: E402
from rules import get_game  # noqa: E402
from vision.camera.capture import read_size  # noqa: E402
from vision.read.lock import BoardLock  # noqa: E402
from vision.read.scale import NEEDED_PX_PER_MM, WRONG_BELOW_PX_PER_MM, board_scale  # noqa: E402
from vision.readers.for_game import grid_for  # noqa: E402
from vision.sheets.layout import Sheet  # noqa: E402
from vision.simulated.camera_model import CameraModel  # noqa: E402

GAMES = ("gyges", "anacund", "annihilation", "annelids", "drift")
TILTS = (10.0, 20.0, 35.0)
FILLS = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65)
BAND = 0.05  # px/mm: the summary's bands of scale
GOOD = 0.9  # share of a band's frames usable
SPAN = 1.5  # the bands from a scale up to this many times it decide it

@dataclass(frozen=True)
class ScaleRow:
    game: str
    size: tuple[int, int]
    tilt: float
    fill: float
    px_per_mm: float | None  # None: the empty board did not lock
    frames: int
    locked: int
    usable: int
    false_accepts: int
    wrong: int

    def line(self) -> str:
        scale = f"{self.px_per_mm:5.2f}" if self.px_per_mm is not None else "  -  "
        return (f"{self.game:<13}{self.size[0]}x{self.size[1]:<5} {self.tilt:>4.0f} {100 * self.fill:>5.0f}% {scale} "
                f"{self.locked:>3}/{self.frames:<3} {self.usable:>3}/{self.frames:<3} {self.false_accepts:>3} {self.wrong:>5}")


HEADER = f"{'game':<13}{'size':<10} {'tilt':>4} {'fill':>6} {'px/mm':>5} {'locked':>7} {'usable':>7} {'FA':>3} {'wrong':>5}"


def empty_scale(game: str, size: tuple[int, int], tilt: float, fill: float, seed: int) -> float | None:
    """The board's smallest scale as the set-up sees it: through a lock on one empty frame."""
    sheet = grid_for(Sheet.for_board(get_game(game).board())).sheet
    setup = replace(BASE_SETUP, size=size, tilt_deg=tilt, fill=fill)
    frame = CameraModel(sheet, setup).render(replace(BASE_SCENE, seed=seed))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock = BoardLock(sheet)
    lock.update(grey)
    status = lock.update(grey)
    if not status.readable:
        return None
    return board_scale(lock.pose if lock.pose is not None else status.H, sheet).px_per_mm


def run(game: str, size: tuple[int, int], tilt: float, fill: float, frames: int, seed: int) -> ScaleRow:
    row = run_setting(game, size, Setting(f"t{tilt:.0f} f{fill}", {"tilt_deg": tilt, "fill": fill}), frames, seed)
    return ScaleRow(game, size, tilt, fill, empty_scale(game, size, tilt, fill, seed), row.frames, row.lock,
                    row.usable, row.false_accepts, row.wrong_spaces)


def tally(rows: list[ScaleRow]) -> dict[int, tuple[int, int]]:
    """Band (its lower edge over BAND) -> (usable, frames), over the locked rows."""
    got: dict[int, tuple[int, int]] = {}
    for r in rows:
        if r.px_per_mm is not None:
            k = int(r.px_per_mm / BAND)
            u, n = got.get(k, (0, 0))
            got[k] = (u + r.usable, n + r.frames)
    return dict(sorted(got.items()))


def bands(rows: list[ScaleRow]) -> str:
    """Usable frames per band of scale, over the locked rows: "0.55-0.60 10/24"."""
    return "  ".join(f"{k * BAND:.2f}-{(k + 1) * BAND:.2f} {u}/{n}" for k, (u, n) in tally(rows).items())


def reads_from(rows: list[ScaleRow]) -> float | None:
    """The lower edge of the least band from which every band under SPAN times it read GOOD of
    its frames (the span keeps failures of another kind at large scales, Annelids' near faces at
    tilt 35 deg, from deciding it); None: no such band."""
    t = tally(rows)
    for k in t:
        span = [(u, n) for j, (u, n) in t.items() if k <= j and j * BAND < SPAN * k * BAND]
        if all(u >= GOOD * n for u, n in span):
            return round(k * BAND, 2)
    return None


def pathtraced_scales(game: str) -> str:
    """The path-traced bench's rows' scales for ``game`` (their cameras' geometry)."""
    import numpy as np

    from bench.vision_pathtraced import BASE, ROWS
    from vision.simulated.pathtraced.scene import PTSetup

    sheet = grid_for(Sheet.for_board(get_game(game).board())).sheet
    out = []
    for r in ROWS:
        if r.game not in (None, game):
            continue
        s = {k: v for k, v in {**BASE, **r.setup}.items() if k in ("lens", "tilt_deg", "fill", "lights")}
        pose = PTSetup(size=read_size(game), **s).pose(sheet)
        H = pose.K @ np.column_stack([pose.R[:, 0], pose.R[:, 1], pose.tvec])
        out.append(f"{r.name} {board_scale(H / H[2, 2], sheet).px_per_mm:.2f}")
    return "; ".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated (default: all five)")
    ap.add_argument("--frames", type=int, default=12, help="frames a row (default 12)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pathtraced", action="store_true", help="also the path-traced bench's rows' scales")
    args = ap.parse_args(argv)
    games = args.games.split(",")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        ap.error(f"--games: not a camera game: {', '.join(unknown)}")
    cv2.setNumThreads(1)
    print(f"{args.frames} frames a row; camera model, base otherwise (real heights, lamp, JPEG 80, calm)")
    print(HEADER)
    fa = 0
    t0 = time.perf_counter()
    for game in games:
        size = read_size(game)
        sizes = [size] + ([HD] if size == FHD else [])
        rows = []
        for sz in sizes:
            for tilt in TILTS:
                for fill in FILLS:
                    row = run(game, sz, tilt, fill, args.frames, args.seed)
                    rows.append(row)
                    fa += row.false_accepts
                    print(row.line(), flush=True)
        print(f"{game}, usable by scale (px/mm): {bands(rows)}")
        if args.pathtraced:
            print(f"{game}, path-traced rows at {size[0]}x{size[1]} (px/mm): {pathtraced_scales(game)}")
        got = reads_from(rows)
        print(f"{game}: reads from {'-' if got is None else f'{got:.2f}'} px/mm; NEEDED_PX_PER_MM {NEEDED_PX_PER_MM.get(game)}, "
              f"WRONG_BELOW_PX_PER_MM {WRONG_BELOW_PX_PER_MM.get(game, '-')}\n", flush=True)
    print(f"false accepts: {fa} ({time.perf_counter() - t0:.0f} s)")
    return 1 if fa else 0


if __name__ == "__main__":
    sys.exit(main())
