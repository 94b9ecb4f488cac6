"""An unnamed piece is read "occupied" only under a calm light (vision/reader.py, read()):
the probes a piece hides are left out of that judgement, but never so far that a hand over a
space looks like a piece. Frames of the shelf bench (bench/vision_real.py)."""

from __future__ import annotations

import cv2

from rules.view import OCCUPIED


def _bench_frame(monkeypatch, game: str, setting, seed: int, k: int):
    """The shelf bench's ``k``-th frame of ``game`` at 1280x720 under ``setting``: (truth,
    reader, frame, the lock's homography)."""
    import bench.vision_real as vr

    got = []

    def keep(row, reader, view, frame, lock):
        if row.frames == k:
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            lock.update(grey)
            got.append((view, reader, frame, lock.update(grey).H))

    monkeypatch.setattr(vr, "score_frame", keep)
    vr.run_setting(game, vr.HD, setting, k, seed)
    return got[0]


def test_a_hand_over_an_empty_goal_is_not_read_as_a_piece(monkeypatch):
    """Gygès, a hand over the north goal (seed 3, the hand row's 4th frame): the hand's own
    outline, taken as a piece's, would hide most of the probes round the goal and leave the
    rest calm. Without a sticker's ink there, the hidden probes still count: the goal is not
    read "occupied" (it was, a false accept, when any unread space was judged so)."""
    import bench.vision_real as vr

    truth, reader, frame, H = _bench_frame(monkeypatch, "gyges", vr.Setting("hand", extra="hand"), 3, 4)
    assert truth.get_tokens("N") == ()
    reading = reader.read(frame, H)
    assert OCCUPIED not in reading.view.get_tokens("N")
    seen = reading.view.resolved(truth)
    assert all(seen.get_tokens(s) == truth.get_tokens(s) for s in set(truth) | set(seen)
               if s not in reading.unreadable and OCCUPIED not in reading.view.get_tokens(s)), reading.why
