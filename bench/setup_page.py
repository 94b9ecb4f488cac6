"""What the camera set-up page costs the Pi (issue 17, item 1).

    python bench/setup_page.py [--game gyges] [--repeat 40]

A synthetic camera (the test renderer, 1280x720, a fresh exposure per frame) runs a real
CameraSource in set-up mode on its own thread, as the service does. Reported, one core:

* snapshot ms: encoding the latest frame for the page (960 px wide JPEG, quality 80), and its
  size; a second request for the same frame is served from the one encoding (cached ms);
* overlay ms: the lock's outline, every space's centre and verdict as the page gets them (JSON);
* empty-board step s: the page's "Learn the empty board", from the click to the reader in use
  (to the file saved, for a colour game) — collecting 5 frames at the camera's 12 fps is part.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "web"))

import cv2  # noqa: E402

cv2.setNumThreads(1)

from tableref.camera_setup import CameraSetup  # noqa: E402
from setupscene import SceneCamera, camera_feed  # noqa: E402


def _ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="gyges")
    ap.add_argument("--repeat", type=int, default=40)
    args = ap.parse_args()
    camera = SceneCamera(args.game)
    with tempfile.TemporaryDirectory() as tmp:
        feed = camera_feed(camera, Path(tmp) / "cal.npz", args.game)
        setup = CameraSetup(feed.camera, feed.spec)
        source = feed.camera
        feed.start()
        thread = threading.Thread(target=lambda: [None for _ in source.observations()], daemon=True)
        thread.start()
        try:
            while source.lock.H is None:
                time.sleep(0.05)

            def fresh() -> None:
                setup._jpeg = None  # as if a new frame had come
                setup.snapshot_jpeg()

            snap = _ms(fresh, args.repeat)
            size = len(setup.snapshot_jpeg() or b"")
            cached = _ms(setup.snapshot_jpeg, args.repeat)
            overlay = _ms(lambda: json.dumps(setup.overlay().to_dict()), args.repeat)
            t = time.perf_counter()
            setup.calibrate("empty")
            status = setup.wait(60)
            while source.reader is None and not setup.spec.colour_game:  # a colour game waits for its colours
                time.sleep(0.01)
            step = time.perf_counter() - t
        finally:
            feed.stop()
            thread.join(5)
            feed.close()
    print(f"{args.game}: snapshot {snap:.1f} ms ({size // 1024} KiB), cached {cached:.3f} ms; "
          f"overlay {overlay:.1f} ms ({len(camera.sheet.shapes)} spaces); "
          f"empty-board step {step:.2f} s ({status.state if status else '?'})")
    return 0 if status is not None and status.state == "done" else 1


if __name__ == "__main__":
    sys.exit(main())
