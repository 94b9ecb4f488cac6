"""The reader's outline tests worked out all at once (vision/read/samples.py: covers_pairs,
Reader.covers_any, Reader._probes_under; issue 32, DRIFT's read on a Pi Zero 2 W's budget)
against the one-piece-at-a-time code they replaced, on random pieces round random points —
many of them on the reach's very edge: equal, point for point."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rules import get_game
from vision.read.pose import Pose
from vision.readers.reader import Reader
from vision.readers.drift_reader import DriftGrid
from vision.sheets.layout import Sheet
from vision_support import bench_frame


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


def _unexplained_one_by_one(r, i: int, foreign_pt: np.ndarray, partner) -> float | None:
    """What DRIFT's reader judged a space on before (its _area, a space at a time)."""
    from vision.readers.drift_reader import EXPLAIN

    sl = r.grid.body.of(i)
    fg = foreign_pt[sl]
    if not fg.any():
        return None
    pts = r.grid.body.mm[sl][fg]
    shadowy = r._shadow_pt[sl][fg] if len(r._shadow_pt) else np.zeros(len(pts), bool)
    reach = r.sheet.piece_radius * EXPLAIN
    s = r.grid.spaces[i]
    explained = np.zeros(len(pts), bool)
    if partner is not None:
        explained |= r.covers(pts, partner, reach + 3.0, float(r._max_top[i]))
    shade = np.zeros(len(pts), bool)
    for c, h, top in r._found_tops():
        if math.hypot(c[0] - s.x, c[1] - s.y) > reach + 1.5 * h + r.sheet.pitch:
            continue
        explained |= r.covers_to(pts, c, top, reach + (3.0 if h > 0 else 0.0))
        shade |= r.covers_to(pts, c, top, reach + 1.5 * h)
    explained |= shade & shadowy
    return int((~explained).sum()) / len(fg)


def test_drift_spaces_judged_all_at_once_as_one_by_one(monkeypatch):
    """DRIFT's reader judges every space against the tokens read in one go
    (_TurnedReader._unexplained): on the shelf bench's frame with a lone tag lying as one of a
    pair (tilt 35, seed 1, its 7th frame: the pair's unread half judged too), each judging gives
    every space the share the space-at-a-time code gave."""
    import bench.vision_real as vr
    from vision.readers.drift_reader import _TurnedReader

    truth, reader, frame, H = bench_frame(monkeypatch, "drift", vr.Setting("frame", {"tilt_deg": 35.0}), 1, 7, vr.FHD)
    judged = []
    at_once = _TurnedReader._unexplained

    def both(self, spaces, foreign_pt, partners):
        got = at_once(self, spaces, foreign_pt, partners)
        one = {i: _unexplained_one_by_one(self, i, foreign_pt, partners.get(i)) for i in spaces}
        assert got == {i: v for i, v in one.items() if v is not None}
        judged.append((len(got), sorted(partners)))
        return got

    monkeypatch.setattr(_TurnedReader, "_unexplained", both)
    reader.read(frame, H)
    assert judged and any(n > 10 for n, _ in judged) and any(p for _, p in judged), judged
