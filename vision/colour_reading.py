"""Reading pieces by their colour (Anacund's discs, Annelids' segments and tails): the
:class:`~vision.reader.Reader`'s colour half, sampling each busy space's core where the
piece's top face projects (and, as a second look, where a piece laid flat would show it)."""

from __future__ import annotations

import numpy as np

from .colour_model import SAT_FLOOR, hue_classes, hue_gap, opponent, paper_white, votes
from .pose import Pose
from .sampling import LIGHT_OUTLIER, _gather, _share, probe_light, sample

COVER_MIN = 0.5  # a piece read by colour covers at least this share of its body
CLASS_MIN = 0.75  # share of core points matching the winning colour
OTHER_MAX = 0.05  # share matching any other colour
BLEED_PX = 10.0  # pixels a JPEG's colour spreads beyond a saturated piece's edge
CLIPPED_MAX = 0.01  # share of clipped pixels in a space beyond which its colour is not read (glare)
BAND_RATIO = 0.62  # an Annelids tail's dark end: at most this bright relative to its other end


class ColourReading:
    """Mixed into the Reader: needs its ``grid``, ``cal`` and ``_max_top``."""

    def _init_colours(self) -> None:
        cal, g = self.cal, self.grid
        # Each space's paper in the empty board's light (its nearest probes): white, to which
        # a frame's pixels there are balanced; the colours were learned against the board's
        # paper as a whole.
        self._paper = cal.probe_ref[g.probe_of].mean(axis=1).astype(np.float32)
        self._hues = hue_classes([c.name for c in cal.classes],
                                 np.array([c.mean for c in cal.classes], np.float32).reshape(-1, 3),
                                 paper_white(cal.probe_ref))

    def _read_colours(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray,
                      foreign: np.ndarray, tokens: dict[str, list[str]], why: dict[str, str],
                      unsure: np.ndarray, clipped: np.ndarray) -> None:
        g = self.grid
        busy = busy[(foreign[busy] >= COVER_MIN) & ~g.is_area[busy] & (clipped[busy] <= CLIPPED_MAX)]
        if len(busy) == 0:
            return
        classes = self.cal.classes
        # The colour is on the piece's top face: sampled where that projects, not on the board;
        # and where a piece laid flat would show it (a set without height, a piece knocked over).
        looks = [self._classify(frame, H, busy, gains, self._max_top[busy])]
        if H.camera is not None and self._max_top[busy].any():
            looks.append(self._classify(frame, H, busy, gains, np.zeros(len(busy), np.float32)))
        read: dict[int, str] = {}
        for k, i in enumerate(busy):
            clear_looks = [(int(best[k]), headings.get(int(i))) for clear, best, headings in looks if clear[k]]
            if len({b for b, _ in clear_looks}) != 1:
                continue  # not clear, or two looks that disagree on the colour: unreadable
            b = clear_looks[0][0]
            c = classes[b]
            ends = {h for _, h in clear_looks if h is not None}
            if len(ends) > 1 or (ends and not c.headed):
                continue  # two headings, or a dark end on a piece that has none
            heading = next(iter(ends), None)
            if c.headed and heading is None:
                why[g.spaces[i].id] = f"a {c.name} tail whose flat end cannot be seen"
            elif not c.headed:
                read[int(i)] = c.name
            else:
                read[int(i)] = f"{c.name}:{heading}"
        doubt = [i for i in read if unsure[i]]
        if doubt:
            for i in self._light_not_explained(frame, H, doubt, read):
                del read[i]  # left to the reader: the light there is unsure
        for i, tok in read.items():
            tokens[g.spaces[i].id] = [tok]

    def _light_not_explained(self, frame: np.ndarray, H: Pose, doubt: list[int], read: dict[int, str]) -> list[int]:
        """Of the spaces read by colour where the paper round them is disturbed (``doubt``),
        those whose disturbance is not the pieces' own: a saturated piece tints the paper next
        to it (lens blur; a JPEG keeps colour at half resolution, in blocks), which the light's
        model cannot explain and a hand would also do. A disturbed probe is the piece's own when
        it lies within a read piece's reach (its footprint, height and :data:`BLEED_PX` of
        colour bleed) and is that piece's colour, or only darker (its shadow) — never brighter.
        A hand's skin next to a red disc may pass for its tint: the disc is red all the same; a
        space under the hand is not read at all (skin is too grey to vote for any colour)."""
        from .reader import LIGHT_SPREAD, SHADOW_SPREAD  # the reader's own thresholds

        g = self.grid
        rel, _, good, shaded, use = probe_light(g, self.cal, frame, H)
        hue, sat, lum = opponent(rel)
        bad = ~good & use
        explained = np.zeros(len(rel), bool)
        reach = self._radius + 6.0 + self._colour_bleed(H)
        names = [c.name for c in self._hues]
        for i, tok in read.items():
            s = g.spaces[i]
            near = np.hypot(g.probes[:, 0] - s.x, g.probes[:, 1] - s.y) <= reach + float(self._max_top[i])
            c = self._hues[names.index(tok.split(":")[0])]
            tint = (hue_gap(hue, c.hue) <= c.tol) | (sat < SAT_FLOOR)
            explained |= near & bad & tint & (lum <= 1 + LIGHT_OUTLIER)
        out = []
        for i in doubt:
            probes = g.probe_of[i]
            n = max(int(use[probes].sum()), 1)
            harsh = (bad & ~shaded & ~explained)[probes].sum() / n
            spread = (bad & ~explained)[probes].sum() / n
            if harsh > LIGHT_SPREAD or spread > SHADOW_SPREAD:
                out.append(i)
        return out

    def _colour_bleed(self, pose: Pose) -> float:
        """How far (mm) a coloured piece's colour spreads onto the paper round it in this
        frame: :data:`BLEED_PX` pixels at the frame's scale (the sheet's centre)."""
        c = np.float32([(self.sheet.size[0] / 2, self.sheet.size[1] / 2)])
        ends = pose.to_px(np.concatenate([c, c + [[10.0, 0.0]]]))
        px_per_mm = max(float(np.linalg.norm(ends[1] - ends[0])) / 10.0, 1e-3)
        return BLEED_PX / px_per_mm

    def _classify(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray, heights: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, dict[int, str]]:
        """Per busy space, sampling its core at ``heights``: is one colour clear, which, and
        the edges' headings. Pixels vote by hue against the paper's white (vision.colour_model)."""
        g = self.grid
        core, starts, counts = _gather(g.core, busy)
        white = np.repeat(gains[busy] * self._paper[busy], counts, axis=0)
        vote, _ = votes(sample(frame, H, core, np.repeat(heights, counts)) / white, self._hues)
        share = np.stack([_share(vote == k, starts, counts) for k in range(len(self._hues))], axis=1)
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
