"""What a read keeps from one frame to the next is the pose's alone (vision.read.pose.Pose.kept),
and the crops' boxes merge as they always did (vision.read.sampling.merge_boxes)."""

import random

import numpy as np
import pytest

from vision.read.pose import Pose
from vision.read.sampling import merge_boxes, probe_values, scaled_to

H = np.array([[2.0, 0.1, 300.0], [0.05, 1.8, 200.0], [1e-5, 2e-5, 1.0]])


def test_kept_work_is_done_once_per_pose_and_cannot_be_changed():
    pose, other = Pose(H), Pose(H)
    calls = []

    def work():
        calls.append(1)
        return pose.to_px(np.array([[10.0, 20.0]]))

    first = pose.kept(("a",), work)
    assert pose.kept(("a",), work) is first and len(calls) == 1
    other.kept(("a",), work)
    assert len(calls) == 2  # another pose (the lock moved): worked out again
    with pytest.raises(ValueError):
        first[0, 0] = 0.0
    # Keyed by an object's id: another object (a new grid after a new calibration) is another key's work.
    a, b = object(), object()
    x = pose.kept(("of", 1), lambda: np.zeros(1), of=a)
    assert pose.kept(("of", 1), lambda: np.ones(1), of=b)[0] == 1.0 and x[0] == 0.0


def test_the_main_stream_pose_is_one_per_watch_pose():
    small, big = np.zeros((720, 1280, 3), np.uint8), np.zeros((1080, 1920, 3), np.uint8)
    pose = Pose(H, camera=(200.0, 900.0, 600.0))
    main = scaled_to(pose, small, big)
    S = np.array([[1.5, 0, 0.25], [0, 1.5, 0.25], [0, 0, 1]])  # pixel centres: (x + 0.5) * 1.5 - 0.5
    assert scaled_to(pose, small, big) is main and np.allclose(main.H, S @ pose.H) and main.camera == pose.camera


def test_probe_values_follow_the_frame_not_the_first_one():
    from vision_support import grid_for

    grid = grid_for("gyges")
    pose = Pose(np.array([[1.0, 0.0, 20.0], [0.0, 1.0, 20.0], [0.0, 0.0, 1.0]]))
    frame = np.full((720, 1280, 3), 100, np.uint8)
    assert np.allclose(probe_values(grid, frame, pose), 100)
    assert np.allclose(probe_values(grid, frame + 50, pose), 150)


def _merged_slowly(boxes):
    """merge_boxes as it was written first: the first pair in order, from the start each time."""
    out = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]

    def area(b):
        return (b[2] - b[0]) * (b[3] - b[1])

    merged = True
    while merged:
        merged = False
        for a in range(len(out)):
            for b in range(a + 1, len(out)):
                u = (min(out[a][0], out[b][0]), min(out[a][1], out[b][1]), max(out[a][2], out[b][2]),
                     max(out[a][3], out[b][3]))
                if area(u) <= area(out[a]) + area(out[b]):
                    out[a] = u
                    del out[b]
                    merged = True
                    break
            if merged:
                break
    return out


def test_merge_boxes_merges_as_the_first_pair_in_order_from_the_start():
    rng = random.Random(7)
    for _ in range(3000):
        boxes = []
        for _ in range(rng.randint(0, 20)):
            x, y = rng.randint(0, 300), rng.randint(0, 300)
            boxes.append((x, y, x + rng.randint(-5, 80), y + rng.randint(-5, 80)))
        assert merge_boxes(list(boxes)) == _merged_slowly(boxes)
