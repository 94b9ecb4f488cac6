"""The board lock on small boards (issue 24 items 5 and 6): is it found, does it hold?

    python bench/vision_lock.py [--fill 0.4] [--frames 60] [--tilts 20,35] [--games g1,g2] [--seed S]

For each game, a still board (its start position, pieces at the set's real heights, the lamp)
filmed through ``vision/simulated/camera_model.py`` at ``--fill`` of a 1280x720 frame (DRIFT 1920x1080;
``--size`` for all), k1 -0.1, yaw 3: every frame a fresh exposure (noise, a sub-pixel shake,
JPEG 80) of the same scene, as ``vision.simulated.scene_film.film_frames`` films a still spell. One
:class:`vision.read.lock.BoardLock` watches the film as ``CameraSource`` does. Reported:

* found: the frame at which the lock was first held (2 is the least: one sighting, then a
  second agreeing);
* drops: times the lock was lost after it was first held (a still board: must be 0);
* held: frames locked (LOCKED) after it was first held, of those frames;
* markers: median corner markers seen per tracked frame; err px: the largest distance between
  where the lock and the camera's truth put the sheet's spaces, over the held frames;
* track ms: the lock's median time per tracked frame (one core).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from rules import Fidelity, get_game  # noqa: E402
from vision.read.lock import BoardLock, LockState  # noqa: E402
from vision.readers.for_game import grid_for  # noqa: E402
from vision.sheets.layout import Sheet  # noqa: E402
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene  # noqa: E402
from vision.simulated.scene_film import FilmFrame, film_frames  # noqa: E402

GAMES = ("gyges", "anacund", "annihilation", "annelids", "drift")
HD, FHD = (1280, 720), (1920, 1080)


@dataclass
class LockRun:
    game: str
    size: tuple[int, int]
    tilt: float
    frames: int = 0
    found_at: int | None = None  # 1-based frame the lock was first held
    drops: int = 0
    held: int = 0  # LOCKED frames after the first lock
    after: int = 0  # frames after the first lock
    markers: list[int] = field(default_factory=list)
    err_px: float = 0.0
    track_ms: list[float] = field(default_factory=list)

    def line(self) -> str:
        found = "never" if self.found_at is None else f"frame {self.found_at}"
        held = f"{100 * self.held / self.after:.0f} %" if self.after else "—"
        m = f"{np.median(self.markers):.0f}" if self.markers else "—"
        ms = f"{np.median(self.track_ms):.2f}" if self.track_ms else "—"
        return (f"{self.game:<13}{self.size[0]}x{self.size[1]:<6}{self.tilt:>5.0f} {self.frames:>6} {found:>10} "
                f"{self.drops:>5} {held:>6} {m:>7} {self.err_px:>6.2f} {ms:>8}")


HEADER = f"{'game':<13}{'size':<11}{'tilt':>5} {'frames':>6} {'found':>10} {'drops':>5} {'held':>6} {'markers':>7} " \
         f"{'err px':>6} {'track ms':>8}"


def still_film(game: str, *, size: tuple[int, int] | None = None, fill: float = 0.4, tilt: float = 20.0,
               k1: float = -0.1, frames: int = 60, seed: int = 0, heights: float = 1.0) -> list[np.ndarray]:
    """A still board, ``frames`` exposures of it (the start position, real piece heights)."""
    sheet = grid_for(Sheet.for_board(get_game(game).board())).sheet
    size = size or (FHD if game == "drift" else HD)
    model = CameraModel(sheet, CameraSetup(size=size, tilt_deg=tilt, fill=fill, k1=k1, yaw_deg=3.0))
    view = get_game(game).default_setup().view(Fidelity.KIND)
    scene = Scene(view=view, heights=heights, jpeg=80, seed=seed)
    return list(film_frames(model, [FilmFrame(k / 10, view, scene, False, 0) for k in range(frames)], seed=seed))


def watch(game: str, film: list[np.ndarray], *, size: tuple[int, int], tilt: float, truth_H: np.ndarray | None,
          lock: BoardLock | None = None) -> LockRun:
    """One lock watching ``film``: when it was found, how often it dropped."""
    sheet = grid_for(Sheet.for_board(get_game(game).board())).sheet
    lock = lock or BoardLock(sheet)
    run = LockRun(game, size, tilt, frames=len(film))
    pts = np.float32([[(s.x, s.y) for s in sheet.shapes]])
    for k, frame in enumerate(film, start=1):
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        tracking = run.found_at is not None and lock.state is not LockState.SEARCHING
        t0 = time.perf_counter()
        status = lock.update(grey)
        if tracking:
            run.track_ms.append(1000 * (time.perf_counter() - t0))
        if run.found_at is None:
            if status.readable:
                run.found_at = k
            else:
                continue
        else:
            run.after += 1
            run.held += status.state is LockState.LOCKED
            run.drops += status.bumped or (tracking and status.state is LockState.SEARCHING)
            run.markers.append(status.markers_seen)
        if status.H is not None and truth_H is not None:
            e = float(np.abs(cv2.perspectiveTransform(pts, status.H) - cv2.perspectiveTransform(pts, truth_H)).max())
            run.err_px = max(run.err_px, e)
    return run


def true_homography(game: str, *, size: tuple[int, int], fill: float, tilt: float, k1: float) -> np.ndarray:
    """Sheet mm → frame px of the camera's truth, fitted over the sheet's spaces through the
    distortion (the best a homography can do; with k1 the frame is not a homography)."""
    sheet = grid_for(Sheet.for_board(get_game(game).board())).sheet
    model = CameraModel(sheet, CameraSetup(size=size, tilt_deg=tilt, fill=fill, k1=k1, yaw_deg=3.0))
    src = np.float32([(s.x, s.y) for s in sheet.shapes])
    dst = model.pose.project(np.c_[src, np.zeros(len(src))]).astype(np.float32)
    H, _ = cv2.findHomography(src, dst, 0)
    return H


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fill", type=float, default=0.4)
    ap.add_argument("--frames", type=int, default=60, help="frames per still film (default 60: 6 s at 10 fps)")
    ap.add_argument("--tilts", default="20,35")
    ap.add_argument("--k1", type=float, default=-0.1)
    ap.add_argument("--size", default=None, help="WxH for every game (default 1280x720, DRIFT 1920x1080)")
    ap.add_argument("--games", default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    games = args.games.split(",") if args.games else list(GAMES)
    size_all = tuple(int(v) for v in args.size.split("x")) if args.size else None
    print(f"still board filling {100 * args.fill:.0f} % of the frame, k1 {args.k1}, yaw 3, JPEG 80, "
          f"shake 0.25 px; {args.frames} frames")
    print(HEADER)
    bad = 0
    for g in games:
        size = size_all or (FHD if g == "drift" else HD)
        for tilt in (float(t) for t in args.tilts.split(",")):
            film = still_film(g, size=size, fill=args.fill, tilt=tilt, k1=args.k1, frames=args.frames, seed=args.seed)
            H = true_homography(g, size=size, fill=args.fill, tilt=tilt, k1=args.k1)
            run = watch(g, film, size=size, tilt=tilt, truth_H=H)
            bad += run.found_at is None or run.drops > 0
            print(run.line(), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
