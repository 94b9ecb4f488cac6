"""bench/vision_scale.py's summary: usable frames per band of scale, and the path-traced rows'
scales worked out from their cameras (the other evidence vision.read.scale's needs rest on)."""

from bench.vision_scale import ScaleRow, bands, pathtraced_scales


def row(scale, usable, frames=12):
    return ScaleRow("gyges", (1280, 720), 20.0, 0.4, scale, frames, frames if scale else 0, usable, 0, 0)


def test_usable_frames_are_tallied_per_band_of_scale_and_unlocked_rows_left_out():
    got = bands([row(0.47, 10), row(0.49, 12), row(0.51, 12), row(None, 0)])
    assert got == "0.45-0.50 22/24  0.50-0.55 12/12"


def test_the_path_traced_rows_scales_come_from_their_cameras():
    # DRIFT's rows at its 1080p: 40 % framing is the smallest, the 10-degree tilt the largest
    scales = dict(item.rsplit(" ", 1) for item in pathtraced_scales("drift").split("; "))
    assert float(scales["fill40"]) < float(scales["tilt35"]) < float(scales["base"]) < float(scales["tilt10"])
    assert abs(float(scales["fill40"]) - 0.52) <= 0.01  # the figure docs/vision-rules.md cites


def test_a_game_reads_from_the_least_band_whose_next_half_again_reads_nine_tenths():
    from bench.vision_scale import reads_from

    rows = [row(0.42, 6), row(0.47, 10), row(0.52, 12), row(0.57, 11), row(0.62, 12), row(0.95, 3)]
    # 0.45 (10/12) fails; from 0.50 every band under 0.75 reads >= 90 %; 0.95 lies beyond the span
    assert reads_from(rows) == 0.50
    assert reads_from([row(0.42, 6)]) is None
