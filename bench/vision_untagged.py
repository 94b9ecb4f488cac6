"""Gygès's rings read without stickers beside the same rings read by their tags (issue 17 item 3).

    python bench/vision_untagged.py [--frames N] [--seed S] [--settings base,tilt 30]

Frames from the camera model (vision/simulated/camera_model.py) as bench/vision_real.py makes them: its
base setting (board 60 % of 1280x720, tilt 20 deg, k1 -0.1, no lens file, the set's real
heights, the lamp, JPEG 80) and the other settings named. Per setting two rows on the same
random positions: "tags" (stickers, the tag reader) and "shapes" (no stickers: the rings drawn
as stepped tiers, vision/pieces/rings.py, read by vision/readers/ring_reading.py with lines learned
from one frame of the default set-up). Columns as in vision_real.py: usable (nothing
unreadable, every space right or "occupied"), whole (every piece named), FA (false accepts:
a usable-looking frame with a space wrong — must be 0). Exits 1 on any false accept.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench.vision_real import BASE_SCENE, BASE_SETUP, HEADER, SETTINGS, Row, Setting, score_frame, varied_scene  # noqa: E402
from rules import Fidelity, get_game  # noqa: E402
from vision.read.calibration import calibrate, lock_on  # noqa: E402
from vision.read.empty_board import CalibrationError  # noqa: E402
from vision.read.lock import BoardLock  # noqa: E402
from vision.readers.for_game import grid_for, reader_for  # noqa: E402
from vision.readers.ring_reading import learn_rings  # noqa: E402
from vision.sheets.layout import Sheet  # noqa: E402
from vision.simulated.camera_model import CameraModel  # noqa: E402
from vision.simulated.sessions import random_position  # noqa: E402

MAX_PLIES = 40


def run(setting: str | Setting, frames: int, seed: int, readings: tuple[bool, ...] = (True, False)) -> list[Row]:
    """A setting's rows: with stickers read by their tags (``True`` in ``readings``) and without,
    read by the rings' tiers (``False``). ``setting``: one of bench/vision_real.py's, by name, or
    a :class:`Setting` of its own (bench/vision_pathtraced.py's rows beside their renders)."""
    s = setting if isinstance(setting, Setting) else next(x for x in SETTINGS if x.name == setting)
    game = get_game("gyges")
    grid = grid_for(Sheet.for_board(game.board()))
    model = CameraModel(grid.sheet, replace(BASE_SETUP, **s.setup))
    ids = [sh.id for sh in grid.sheet.shapes if sh.kind != "area"]
    rows = []
    for tags in readings:
        row = Row("gyges", "1280x720", f"{s.name} {'tags' if tags else 'shapes'}")
        base = replace(BASE_SCENE, tags=tags, **s.scene)
        empty = [model.render(replace(base, seed=seed * 10 + i)) for i in range(2)]
        rings = None
        try:
            cal = calibrate(grid, empty, mode="tags")
            if not tags:
                start = game.default_setup({}).view(Fidelity.KIND)
                shot = model.render(replace(base, view=start, seed=seed * 10 + 5))
                frame, H = lock_on(grid.sheet, [shot, shot])[-1]
                rings = learn_rings(grid, cal, [(frame, H, start)])
        except (CalibrationError, IndexError) as exc:
            row.note = f"calibration failed: {exc}"
            rows.append(row)
            continue
        reader = reader_for(grid, cal, Fidelity.KIND, rings=rings)
        rng = np.random.default_rng(seed)  # the same positions, light and noise for both rows
        for _ in range(frames):
            plies = int(rng.integers(0, MAX_PLIES + 1))
            view = random_position("gyges", int(rng.integers(1 << 30)), plies, None).view(Fidelity.KIND)
            scene = varied_scene(base, view, s.extra, grid.sheet, ids, rng)  # as vision_real.py's rows
            t0 = time.perf_counter()
            frame = model.render(scene)
            row.render_ms.append(1000 * (time.perf_counter() - t0))
            row.frames += 1
            score_frame(row, reader, view, frame, BoardLock(grid.sheet))
        if rings is not None:
            row.note = "lines: " + " ".join(f"t{j + 1} {a:.2f}/{p:.2f}" for j, (a, p) in
                                            enumerate(zip(rings.absent, rings.present)))
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--settings", default="base,tilt 30,tilt 0,hand,glare")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print(HEADER)
    fa = 0
    for name in [x.strip() for x in args.settings.split(",") if x.strip()]:
        for row in run(name, args.frames, args.seed):
            print(row.line(), flush=True)
            fa += row.false_accepts
    return 1 if fa else 0


if __name__ == "__main__":
    sys.exit(main())
