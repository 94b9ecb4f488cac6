"""A filmed game on path-traced video, played as ``tableref serve`` plays a video file (issue 32).

``tests/vision/pathtraced/film/`` holds films written by ``bench/pathtraced_film.py --export``:
a Gygès game at tilt 25° with the sheet 60 % of the frame (metal rings), and an Annihilation game
at tilt 35° with the sheet 40 % of it (its corner markers small). Mitsuba 3 renders of pieces
with their stickers put down off their spaces' centres and turned, an arm (hand, fingers,
forearm) reaching in, lifting a piece, carrying it and putting it down, its shadows from a
ceiling panel, a desk lamp and a window, motion blur over the exposure, a Camera Module 3's thin
lens, photon and read noise, auto exposure, JPEG — written as H.264 (x264 at its default
quality: a codec's blocks on top of the camera's JPEG, as a camera streams). Each film's three
exposures of the empty board calibrate its reader. Nothing renders here.

The film goes through the service's own chain: ``OpenCVCapture`` on the file →
``CameraSource`` (lock, motion gate, reader) → ``Stabiliser`` → ``Referee`` with a real journal.
"""

import json
from pathlib import Path

import cv2
import pytest

HERE = Path(__file__).parent / "pathtraced" / "film"
FILMS = sorted(HERE.glob("*.json"))


def _play(meta_path: Path):
    from bench.film_rules import Film, referee_film

    film = Film(meta_path, json.loads(meta_path.read_text()))
    assert len(film.empty()) == 3
    _, truth = film.states()
    run = referee_film(film)  # the service's own chain, its own knobs
    return truth, [(ply, got) for ply, got, _ in run.accepted], run.others


@pytest.mark.parametrize("meta_path", FILMS, ids=[p.stem for p in FILMS])
def test_a_path_traced_film_is_refereed_as_played(meta_path):
    """Every move accepted as played, in order, and nothing accepted that was not played."""
    truth, accepted, others = _play(meta_path)
    assert len(truth) >= 2
    assert [ply for ply, _ in accepted] == list(range(1, len(truth) + 1)), (accepted, others)
    for (ply, got), want in zip(accepted, truth):
        assert got == want, f"move {ply} accepted as another position"


def test_the_committed_film_is_there_small_and_h264():
    assert FILMS, "no committed path-traced film"
    # two films: Gygès at 25°, 60 % framing (3 moves) and Annihilation at 35°, 40 % (2 moves)
    assert sum(p.stat().st_size for p in HERE.iterdir()) < 5 * 2 ** 20
    for meta_path in FILMS:
        cap = cv2.VideoCapture(str(meta_path.with_suffix(".mp4")))
        fourcc = int(cap.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little").decode("ascii", "replace")
        cap.release()
        assert fourcc.lower() in ("avc1", "h264"), f"{meta_path.stem}: {fourcc!r}, not H.264"
