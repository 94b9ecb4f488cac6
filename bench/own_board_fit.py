"""How well four handles fit an own board (vision/sheets/geometry.py), against the hand's error.

    .venv/bin/python bench/own_board_fit.py [--seeds N] [--errors 0,2,4,8] [--only g1,g2] [--why] [--k1 K]

Each game's own board (``vision.simulated.own_board``: not the printed sheet — its own colours, 0.9 × the
board file's spacing, no labels, four markers stuck on turned) is photographed once by the camera
model (1280x720, board 60 % of the frame, tilt 20°, k1 -0.05 unless ``--k1``; no lens file). The markers are found in that frame
as the set-up page finds them; the four handles are put on the reference spaces' true centres plus
a hand's error (Gaussian, σ px per axis, ``--errors``), ``--seeds`` times per σ. Printed per game
and σ: fits refused, the scale's error (%), where every space lands against the truth through the
lock's homography (mean and worst, mm, and the worst as a share of the pitch), and the fit's time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2
import numpy as np

from rules import get_game
from vision.read.lock import detect, make_detector
from vision.sheets.geometry import GeometryError, fit_geometry, reference_spaces
from vision.sheets.layout import CORNER_IDS, Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.own_board import OwnBoardStyle, draw_own_board, own_board


def space_errors(truth: Sheet, sheet: Sheet) -> np.ndarray:
    """mm from each space's true centre to where the fit puts it (both seen through the markers)."""
    src = np.concatenate([sheet.marker_corners()[i] for i in CORNER_IDS])
    dst = np.concatenate([truth.marker_corners()[i] for i in CORNER_IDS])
    H, _ = cv2.findHomography(src, dst, 0)
    pts = [s for s in sheet.shapes if s.kind != "area"]
    got = cv2.perspectiveTransform(np.float64([[(s.x, s.y) for s in pts]]), H)[0]
    want = np.float64([(truth.by_id[s.id].x, truth.by_id[s.id].y) for s in pts])
    return np.hypot(*(got - want).T)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--errors", default="0,2,4,8", help="hand error σ in px, comma-separated")
    ap.add_argument("--only", default="gyges,annihilation,anacund,annelids")
    ap.add_argument("--why", action="store_true", help="print why each refused fit was refused")
    ap.add_argument("--k1", type=float, default=-0.05, help="the lens's barrel distortion (no lens file given)")
    args = ap.parse_args(argv)
    errors = [float(e) for e in args.errors.split(",")]
    style = OwnBoardStyle()
    print(f"own board 0.9 x the board file, 1280x720, board 60 % of the frame, tilt 20, k1 {args.k1:g} (no lens "
          f"file); {args.seeds} fits per σ")
    print(f"{'game':<13} {'σ px':>5} {'refused':>7} {'scale err %':>11} {'mean mm':>7} {'worst mm':>8} "
          f"{'worst/pitch':>11} {'fit ms':>6}")
    for game in args.only.split(","):
        board = get_game(game).board()
        truth = Sheet.from_geometry(board, own_board(board, style))
        model = CameraModel(truth, CameraSetup(tilt_deg=20.0, fill=0.6, k1=args.k1, yaw_deg=3.0),
                            texture=draw_own_board(truth, style, px_per_mm=4.0), texture_px_per_mm=4.0)
        frame = model.render(Scene(jpeg=80))
        markers = {i: c for i, c in detect(make_detector(), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)).items()
                   if i in CORNER_IDS}
        refs = reference_spaces(board)
        true_px = {sid: model.pose.project(np.float64([[truth.by_id[sid].x, truth.by_id[sid].y, 0.0]]))[0]
                   for sid in refs}
        for sigma in errors:
            refused, scale_err, means, worsts, times = 0, [], [], [], []
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                handles = {sid: tuple(p + rng.normal(0, sigma, 2)) for sid, p in true_px.items()}
                t0 = time.perf_counter()
                try:
                    g = fit_geometry(board, handles, markers, marker_mm=style.marker_mm)
                except GeometryError as exc:
                    refused += 1
                    if args.why:
                        print(f"  {game} σ {sigma:g} seed {seed}: {exc}")
                    continue
                times.append(1000 * (time.perf_counter() - t0))
                e = space_errors(truth, Sheet.from_geometry(board, g))
                scale_err.append(100 * abs(g.scale / style.scale - 1))
                means.append(float(e.mean()))
                worsts.append(float(e.max()))
            if not times:
                print(f"{game:<13} {sigma:>5g} {refused:>7} {'-':>11} {'-':>7} {'-':>8} {'-':>11} {'-':>6}")
                continue
            print(f"{game:<13} {sigma:>5g} {refused:>7} {statistics.median(scale_err):>11.1f} "
                  f"{statistics.mean(means):>7.1f} {max(worsts):>8.1f} {max(worsts) / truth.pitch:>11.2f} "
                  f"{statistics.median(times):>6.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
