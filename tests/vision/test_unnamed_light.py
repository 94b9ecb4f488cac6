"""An unnamed piece is read "occupied" only under a calm light (vision/readers/reader.py, read()):
the probes a piece hides are left out of that judgement, but never so far that a hand over a
space looks like a piece. Frames of the shelf bench (bench/vision_real.py)."""

from __future__ import annotations

from rules.view import OCCUPIED

from vision_support import bench_frame


def test_a_hand_over_an_empty_goal_is_not_read_as_a_piece(monkeypatch):
    """Gygès, a hand over the north goal (seed 3, the hand row's 4th frame): the hand's own
    outline, taken as a piece's, would hide most of the probes round the goal and leave the
    rest calm. Without a sticker's ink there, the hidden probes still count: the goal is not
    read "occupied" (it was, a false accept, when any unread space was judged so)."""
    import bench.vision_real as vr

    truth, reader, frame, H = bench_frame(monkeypatch, "gyges", vr.Setting("hand", extra="hand"), 3, 4, vr.HD)
    assert truth.get_tokens("N") == ()
    reading = reader.read(frame, H)
    assert OCCUPIED not in reading.view.get_tokens("N")
    seen = reading.view.resolved(truth)
    assert all(seen.get_tokens(s) == truth.get_tokens(s) for s in set(truth) | set(seen)
               if s not in reading.unreadable and OCCUPIED not in reading.view.get_tokens(s)), reading.why


def test_a_coin_in_an_arms_shadow_is_not_read_empty_as_a_piles_shadow(monkeypatch):
    """DRIFT, an arm over the board (seed 5, the hand row's 18th frame): a copper coin on O7
    lies in the arm's shadow, its tag not seen. The shadow-grey there was excused as a six-high
    pile's shadow, 61 mm off, and O7 was read empty — a coin missing, never to be read so.
    With a hand or glare near, a space is not read empty on such an excuse: unreadable."""
    import bench.vision_real as vr

    truth, reader, frame, H = bench_frame(monkeypatch, "drift", vr.Setting("hand", extra="hand"), 5, 18, vr.FHD)
    assert truth.get_tokens("O7") == ("copper",)
    reading = reader.read(frame, H)
    assert "O7" in reading.unreadable, reading.view.get_tokens("O7")
