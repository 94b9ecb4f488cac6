"""Annelids on the camera model at a steep tilt (35°, k1 −0.2, 1080p: `bench/vision_real.py`'s
``i24`` row). Under its one lamp a tail's upright end face nearest the camera is in shade, and
the foot look takes it for a dark cap while the top look sees the cap at the other end: two
headings. Neither is taken; the tail's colour stands, named in part (``blue:?``), and the frame
is usable. Before, that tail was unreadable and 8 frames in 10 with it."""

from __future__ import annotations

from bench.vision_real import FHD, SETTINGS, run_setting


def test_a_tail_seen_with_two_headings_is_named_in_part_and_its_frame_used():
    i24 = next(s for s in SETTINGS if s.name.startswith("i24"))
    row = run_setting("annelids", FHD, i24, 4, 3)
    assert row.frames == 4 and row.false_accepts == 0 and row.wrong_spaces == 0
    assert row.usable == 4, row
    assert row.occupied_spaces >= 1  # the tails named in part (judged as "occupied": usable, not whole)
