"""Reading pieces by their colour (Anacund's discs, Annelids' segments and tails): the
:class:`~vision.reader.Reader`'s colour half, sampling each busy space's core where the
piece's top face projects (and, as a second look, where a piece laid flat would show it)."""

from __future__ import annotations

import numpy as np

from .pose import Pose
from .sampling import _gather, _share, sample

COVER_MIN = 0.5  # a piece read by colour covers at least this share of its body
CLASS_MIN = 0.75  # share of core points matching the winning colour
OTHER_MAX = 0.05  # share matching any other colour
BAND_RATIO = 0.62  # an Annelids tail's dark end: at most this bright relative to its other end


class ColourReading:
    """Mixed into the Reader: needs its ``grid``, ``cal``, ``_means``, ``_tols``, ``_max_top``."""

    def _read_colours(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray,
                      foreign: np.ndarray, tokens: dict[str, list[str]], why: dict[str, str]) -> None:
        g = self.grid
        busy = busy[(foreign[busy] >= COVER_MIN) & ~g.is_area[busy]]  # the rest stays unreadable
        if len(busy) == 0:
            return
        classes = self.cal.classes
        # The colour is on the piece's top face: sampled where that projects, not on the board;
        # and where a piece laid flat would show it (a set without height, a piece knocked over).
        looks = [self._classify(frame, H, busy, gains, self._max_top[busy])]
        if H.camera is not None and self._max_top[busy].any():
            looks.append(self._classify(frame, H, busy, gains, np.zeros(len(busy), np.float32)))
        for k, i in enumerate(busy):
            s = g.spaces[i]
            clear_looks = [(int(best[k]), headings.get(int(i))) for clear, best, headings in looks if clear[k]]
            if len({b for b, _ in clear_looks}) != 1:
                continue  # not clear, or two looks that disagree on the colour: unreadable
            b = clear_looks[0][0]
            c = classes[b]
            ends = {h for _, h in clear_looks if h is not None}
            if len(ends) > 1 or (ends and not c.headed):
                continue  # two headings, or a dark end on a piece that has none
            heading = next(iter(ends), None)
            if c.headed:
                if heading is None:
                    why[s.id] = f"a {c.name} tail whose flat end cannot be seen"
                else:
                    tokens[s.id] = [f"{c.name}:{heading}"]
            elif heading is None:  # a dark end on a piece that has none: not what it seems
                tokens[s.id] = [c.name]

    def _classify(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray, heights: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, dict[int, str]]:
        """Per busy space, sampling its core at ``heights``: is one colour clear, which, and
        the edges' headings."""
        g = self.grid
        core, starts, counts = _gather(g.core, busy)
        px = sample(frame, H, core, np.repeat(heights, counts)) / np.repeat(gains[busy], counts, axis=0)
        d = np.linalg.norm(px[:, None, :] - self._means[None], axis=2)
        share = np.stack([_share(d[:, k] <= self._tols[k], starts, counts) for k in range(len(self.cal.classes))],
                         axis=1)
        best = np.argmax(share, axis=1)
        top = share[np.arange(len(busy)), best]
        share[np.arange(len(busy)), best] = 0
        clear = (top >= CLASS_MIN) & (share.max(axis=1) <= OTHER_MAX)
        edges = g.is_edge[busy]
        headings = self._headings(frame, H, busy[edges], gains, heights[edges]) if edges.any() else {}
        return clear, best, headings

    def _headings(self, frame: np.ndarray, H: Pose, spaces: np.ndarray, gains: np.ndarray,
                  heights: np.ndarray) -> dict[int, str]:
        """Edges with one clearly dark end: which way that end faces."""
        g = self.grid
        lum = []
        for grp in (g.end0, g.end1):
            pts, starts, counts = _gather(grp, spaces)
            px = sample(frame, H, pts, np.repeat(heights, counts)) / np.repeat(gains[spaces], counts, axis=0)
            lum.append(np.add.reduceat(px.mean(axis=1), starts) / np.maximum(counts, 1))
        l0, l1 = lum
        out = {}
        for k, i in enumerate(spaces):
            dark = 0 if l0[k] < l1[k] else 1
            if min(l0[k], l1[k]) <= BAND_RATIO * max(l0[k], l1[k]):
                out[int(i)] = g.spaces[i].heading_to(dark)
        return out
