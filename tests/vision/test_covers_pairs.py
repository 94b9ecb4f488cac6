"""The reader's outline tests worked out all at once (vision/readers/reader.py: covers_pairs,
Reader.covers_any, Reader._probes_under; issue 32, DRIFT's read on a Pi Zero 2 W's budget)
against the one-piece-at-a-time code they replaced, on random pieces round random points —
many of them on the reach's very edge: equal, point for point."""

from __future__ import annotations

import numpy as np
import pytest

from rules import get_game
from vision.read.pose import Pose
from vision.readers.reader import Reader
from vision.readers.drift_reader import DriftGrid
from vision.sheets.layout import Sheet


class _Flat:
    _pose = None  # no camera: a piece's top is seen where its base is


def _pieces(rng: np.random.Generator, pts: np.ndarray, m: int):
    cs = [(pts[rng.integers(len(pts))] + rng.normal(0, 15, 2)).astype(np.float32) for _ in range(m)]
    tops = [np.asarray(c, np.float64) + (rng.normal(0, 20, 2) if rng.random() < 0.7 else 0) for c in cs]
    reaches = [float(rng.random() * 20 + 5) for _ in range(m)]
    if rng.random() < 0.4:  # a point exactly on a piece's reach
        k, p = rng.integers(m), pts[rng.integers(len(pts))].astype(np.float64)
        tops[k] = np.asarray(cs[k], np.float64)
        reaches[k] = float(np.hypot(*(p - np.asarray(cs[k], np.float64))))
    return cs, tops, reaches


def test_covers_any_is_each_piece_covers_to_or_ed():
    rng = np.random.default_rng(1)
    for _ in range(3000):
        pts = (rng.random((int(rng.integers(1, 40)), 2)) * 60 + rng.random() * 300).astype(np.float32)
        cs, tops, reaches = _pieces(rng, pts, int(rng.integers(1, 6)))
        one = np.zeros(len(pts), bool)
        for c, t, r in zip(cs, tops, reaches):
            one |= Reader.covers_to(_Flat(), pts, c, t, r)  # type: ignore[arg-type]
        assert np.array_equal(Reader.covers_any(pts, cs, tops, reaches), one)
    assert not Reader.covers_any(pts, [], [], []).any()


class _Probing:
    """Just what Reader._probes_under uses, on DRIFT's grid, seen by a tilted camera."""

    _probes_under = Reader._probes_under
    covers = Reader.covers
    covers_to = Reader.covers_to
    top_seen = Reader.top_seen

    def __init__(self, camera: tuple[float, float, float] | None) -> None:
        self.grid = DriftGrid(Sheet.for_board(get_game("drift").board()))
        self._radius = 30.0  # (large: the flat camera too hides some probes)
        self._max_top = np.random.default_rng(2).choice(np.float32([0, 3, 12, 15, 72]), len(self.grid.spaces))
        self._pose = Pose(np.eye(3), camera=camera)

    def probes_under_one_by_one(self, spaces: np.ndarray) -> np.ndarray:  # the code it replaced
        probes = self.grid.probes
        hide = np.zeros(len(probes), bool)
        reach = self._radius + 6.0
        for i in spaces:
            s = self.grid.spaces[int(i)]
            near = (np.abs(probes[:, 0] - s.x) < reach + self._max_top[i]) \
                & (np.abs(probes[:, 1] - s.y) < reach + self._max_top[i])
            if near.any():
                hide[near] |= self.covers(probes[near], np.array([s.x, s.y]), reach, float(self._max_top[i]))
        return hide


@pytest.mark.parametrize("camera", [None, (360.0, 1100.0, 900.0)])
def test_probes_under_all_spaces_at_once_is_space_by_space(camera):
    r = _Probing(camera)
    rng = np.random.default_rng(3)
    n = len(r.grid.spaces)
    for size in (0, 1, 5, 40, n):
        spaces = rng.choice(n, size, replace=False)
        got = r._probes_under(r._pose, spaces)
        assert np.array_equal(got, r.probes_under_one_by_one(spaces))
        assert size < 40 or got.any()  # (the test means something: probes hidden)
