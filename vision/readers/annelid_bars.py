"""Annelids' segments and tails read by colour: the :class:`~vision.readers.colour_reading.ColourReading`
half that knows a piece is a bar along an edge — its neighbours' spill onto an empty edge, a
tail's dark cap and which way it faces, a bar's outline near a space's core."""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.read.colour_model import votes
from vision.read.pose import Pose
from vision.read.sampling import gather, group_share, inside_convex, sample

from .colour_geometry import lower_quartiles, mm_per_px, near_outline
from .colour_rules import (
    BAND_OTHER_MIN, BAND_OWN_MAX, BAND_PEAK_RATIO, BAND_RATIO, BLEED_PX, CAP_BLUR_PX, CAP_MM, CAP_REST_MIN, CAP_SEEN,
    COVER_MIN, EDGE_LEFT_MAX, EDGE_MIDDLE, EDGE_SHIFTS_MM, EDGE_SPILL_MAX, NEAR_FACE_OWN, OTHER_SAY, SPILL_PX,
    VISIBLE_SHARE,
)

if TYPE_CHECKING:
    from .colour_reading import Look  # the top and foot looks (a cycle only for a type checker)


class AnnelidBars:
    """Mixed into :class:`~vision.readers.colour_reading.ColourReading` (and so into the Reader):
    the bar-shaped pieces' own looks."""

    def _headed_apart(self, busy: np.ndarray, looks: list[Look]) -> list[tuple[int, int, str, str]]:
        """(look index, edge, top look's heading, foot look's) where the two looks head an edge's
        bar opposite ways: what :meth:`_one_cap` and :meth:`_near_face` may explain."""
        out = []
        for k, i in enumerate(busy):
            i = int(i)
            top, foot = looks[0].headings.get(i), looks[1].headings.get(i)
            if top is not None and foot is not None and top != foot and self.grid.is_edge[i]:
                out.append((k, i, top, foot))
        return out

    def _one_cap(self, H: Pose, busy: np.ndarray, looks: list[Look]) -> None:
        """A tail whose dark cap faces the camera: the foot look sees its end face, and the band
        on its top beyond it, over where the bar's other end meets the board (at tilt 35 the end
        face is 4 mm tall, seen across 3-4 mm of the board). A foot look's dark end lying within
        that cap, as the pose shows it, is the top look's band seen again, not another heading."""
        g = self.grid
        for k, i, top, foot in self._headed_apart(busy, looks):
            s = g.spaces[i]
            dark = next((d for d in (0, 1) if s.heading_to(d) == top), None)
            other = next((d for d in (0, 1) if s.heading_to(d) == foot), None)
            cap = self._cap_outline(H, i, dark) if dark is not None and other is not None else None
            if cap is None:
                continue
            grp = (g.end0, g.end1)[other]
            across = self._normals[i] * float(looks[1].shift[k] @ self._normals[i])  # as _classify looked
            # The cap's edge blurred where it is seen and, without a lens file, the foot's samples
            # seeing the frame up to EDGE_SHIFTS_MM off where the pose puts them (a barrel lens).
            reach = CAP_BLUR_PX * mm_per_px(H, np.array([s.x, s.y]), self._colour_bleed(H) / BLEED_PX) \
                + (EDGE_SHIFTS_MM[-1] if self.lens is None else 0.0)
            if near_outline(grp.mm[grp.of(i)] + across, cap, reach).mean() >= CAP_SEEN:
                del looks[1].headings[i]

    def _near_face(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray, looks: list[Look]) -> None:
        """A tail whose cap faces away from the camera: the foot look sees the bar's other end's
        face, upright and so lit less than its top (under a desk lamp alone, 0.58 of the other
        end), as a dark end towards the camera. A cap is a band of dark paint; that face is the
        body's own colour in shade. A foot look's dark end towards the camera, against the top
        look's heading, with :data:`NEAR_FACE_OWN` more of the body's colour than its other end,
        is that face, not another heading."""
        g = self.grid
        if H.camera is None:
            return
        camera = np.array(H.camera[:2], np.float64)
        for k, i, _, foot in self._headed_apart(busy, looks):
            s = g.spaces[i]
            dark = next((d for d in (0, 1) if s.heading_to(d) == foot), None)
            if dark is None:
                continue
            end, other = np.asarray(s.ends[dark], np.float64), np.asarray(s.ends[1 - dark], np.float64)
            if float((end - other) @ (camera - end)) <= 0:
                continue  # the dark end faces away from the camera: no face of the bar's seen there
            own = []
            for grp in (g.end0, g.end1):
                pts, starts, counts = gather(grp, np.array([i]))
                px = sample(frame, H, pts + looks[1].shift[k], np.zeros(len(pts), np.float32)) / gains[i]
                vote, _ = votes(px / self._paper[i], self._hues)
                own.append(float(group_share(vote == int(looks[1].best[k]), starts, counts)[0]))
            if own[dark] - own[1 - dark] >= NEAR_FACE_OWN:
                del looks[1].headings[i]

    def _edges_beside(self, H: Pose, spaces: np.ndarray, foreign_pt: np.ndarray, read: dict[int, str],
                      tokens: dict[str, list[str]], bare_top: set[int]) -> None:
        """Edges next to a piece read: a bar stands a few millimetres tall on an edge meeting
        theirs, and its shadow, its side seen by a tilted camera and its colour blurred into
        the paper reach over the ends of the empty edges round it (a 4 mm bar at 720p is under
        4 px, a JPEG's colour twice that). An edge is read empty when what is foreign on it
        could only be that: under :data:`EDGE_SPILL_MAX` of its body, each end it reaches meets
        an edge whose piece was read, and either it keeps to one half of the edge (the other
        half bare paper: a 10 mm bar on a 12.4 mm edge covers the whole body, and one pushed
        that far along would stick out past the vertex into its neighbour's) or, reaching in
        from both ends, it leaves the middle :data:`EDGE_MIDDLE` clear but for shadow."""
        g = self.grid
        shadow = self._shadow_pt
        for i in spaces:
            if g.spaces[int(i)].id in tokens:
                continue
            sl = g.body.of(int(i))
            f = foreign_pt[sl]
            if not f.any():
                continue
            t = self._edge_t[sl]
            half = 0.5 * g.spaces[i].length
            coloured = f & ~shadow[sl] if len(shadow) else f
            # Which ends it reaches in from (its middle belongs to either). Where no bar's top
            # face shows on it (bare_top), a shadow reaching along it is the read bar's beside
            # it (a low lamp or a tall bar casts one longer than the edge's half) — only
            # colour reaching in needs a read bar at that end.
            reach_in = coloured if int(i) in bare_top else f
            sides = {0 if x < 0 else 1 for x in t[reach_in] if abs(x) >= EDGE_MIDDLE * half}
            near_read = (self._vertex_mates[int(i)][0] | self._vertex_mates[int(i)][1]) & read.keys()
            if not near_read or not all(self._vertex_mates[int(i)][side] & read.keys() for side in sides):
                continue
            if f.mean() <= EDGE_SPILL_MAX and (len(sides) == 1 or not (np.abs(t[coloured]) < EDGE_MIDDLE * half).any()):
                tokens[g.spaces[int(i)].id] = []
                continue
            # Reaching in from both ends: the read bars next to it, as the camera sees them
            # (base and top, blurred by :data:`SPILL_PX`), and their shadows, must explain it —
            # what they leave in view is bare paper, and enough of it is in view to say so.
            mates = sorted(near_read)
            pts = g.body.mm[sl]
            covered = np.zeros(len(pts), bool)
            spill = np.zeros(len(pts), bool)
            for j in mates:
                inside, near = self._near_bar(H, j, read[j], pts)
                covered |= inside
                spill |= near
            near_shadow = shadow[sl] if len(shadow) else np.zeros(len(pts), bool)
            # In its middle, where a bar of its own would certainly show, only what the bars
            # beside it hide (no blur allowed for) or their shadows.
            middle = np.abs(t) < EDGE_MIDDLE * half
            left = f & ~near_shadow & ~covered & ~(spill & ~middle | spill & (int(i) in bare_top))
            if (~covered).mean() >= VISIBLE_SHARE and left.sum() <= EDGE_LEFT_MAX * len(pts):
                tokens[g.spaces[int(i)].id] = []

    def _on_a_read_bar(self, H: Pose, i: int, shift: np.ndarray, read: dict[int, str]) -> float:
        """The share of edge ``i``'s core, looked at ``shift`` mm off its place at its top and
        at its foot, that lies where a bar read on an edge meeting it may show (its footprint
        and top as the camera sees them, and as far round as the lens may misplace it): a core
        shifted there may be showing that bar's colour (k1 -0.2 without a lens file, tilt 35:
        f1ne, empty, read as the segment on f2se beside it)."""
        g = self.grid
        core = g.core.mm[g.core.of(i)] + shift
        h = float(self._max_top[i])
        pts = np.concatenate([H.lift(core, h) if h > 0 and H.camera is not None else core, core])
        on = np.zeros(len(pts), bool)
        for j in (self._vertex_mates[i][0] | self._vertex_mates[i][1]) & read.keys():
            on |= self._near_bar(H, j, read[j], pts)[1]
        return float(on.mean())

    def _capped(self, frame: np.ndarray, H: Pose, i: int, gains: np.ndarray, heading: str,
                foreign_pt: np.ndarray, read: dict[int, str], why: dict[str, str]) -> None:
        """Edge ``i``, its body only partly covered or its foot look at odds with its top, the
        top look plainly one colour with a dark end towards ``heading``: read when that end's
        cap, where the camera sees it, explains it — the body outside the cap covered
        (:data:`COVER_MIN`), the foot look outside it not at odds with the top, nor any
        look's heading."""
        g = self.grid
        s = g.spaces[i]
        dark = next((d for d in (0, 1) if s.heading_to(d) == heading), None)
        cap = self._cap_outline(H, i, dark) if dark is not None else None
        if cap is None:
            return
        one = np.array([i])
        cover = self._covered(frame, H, one, gains, foreign_pt)[0]
        rest = ~inside_convex(g.body.mm[g.body.of(i)], cap)
        if rest.mean() < CAP_REST_MIN or cover[rest].mean() < COVER_MIN:
            return  # the cap there does not explain what looks like the empty board
        zero = np.zeros((1, 2), np.float32)
        looks = [self._classify(frame, H, one, gains, self._max_top[one], zero)]
        # The foot's core clear of the cap and its blurred edge (CAP_BLUR_PX in mm at this
        # frame's scale): what is left there must not be another colour.
        keep = ~near_outline(g.core.mm[g.core.of(i)], cap, CAP_BLUR_PX * self._colour_bleed(H) / BLEED_PX)
        if keep.mean() >= VISIBLE_SHARE:  # enough of the foot's core clear of the cap to look at
            looks.append(self._classify(frame, H, one, gains, np.zeros(1, np.float32), zero, keep))
        clear_looks = {int(look.best[0]) for look in looks if look.clear[0]}
        if any(look.headings.get(i, heading) != heading for look in looks):
            return  # the foot's ends seen another way round
        if len(clear_looks) != 1 or any(np.delete(look.shares[0], looks[0].best[0]).max() >= OTHER_SAY
                                         for look in looks[1:]):
            return  # at odds
        self._decide(0, i, looks, read, why)

    def _cap_outline(self, H: Pose, i: int, dark: int) -> np.ndarray | None:
        """Where a tail on edge ``i`` shows its dark cap (at ``ends[dark]``), on the board's
        plane: the band on its top face and, when it faces the camera, its end face."""
        if H.camera is None:
            return None
        s = self.grid.spaces[i]
        end = np.asarray(s.ends[dark], np.float64)
        c = np.array([s.x, s.y])
        u = (end - c) / max(float(np.hypot(*(end - c))), 1e-9)
        n = np.array([-u[1], u[0]])
        length, width = self._bar_dims()
        h = float(self._max_top[i])
        outer = [c + u * length / 2 + b * n * width / 2 for b in (-1, 1)]
        band = np.array(outer + [c + u * (length / 2 - CAP_MM) + b * n * width / 2 for b in (1, -1)])
        pts = [H.lift(band, h) if h > 0 else band]
        if h > 0 and float(u @ (np.array(H.camera[:2]) - outer[0])) > 0:
            pts.append(np.array(outer))  # the end face, from the board up to the band
        return cv2.convexHull(np.concatenate(pts).astype(np.float32)).reshape(-1, 2).astype(np.float64)

    def _bar_dims(self) -> tuple[float, float]:
        """An edge piece's length and width (mm): the piece set's bars, else the sheet's."""
        if "_bar_size" not in self.__dict__:
            ps = self.pieceset
            boxes = [p.footprint_mm for p in ps.pieces if p.shape == "box"] if ps is not None else []
            if boxes:
                self._bar_size = (max(b[0] for b in boxes), max(b[1] for b in boxes))
            else:  # the sheet's own bar: a share of the edge, a width in mm
                edge = max((sp.length for sp in self.grid.spaces if sp.kind == "edge"), default=0.0)
                self._bar_size = (self.sheet.edge_bar[0] * edge, self.sheet.edge_bar[1])
        return self._bar_size

    def _near_bar(self, H: Pose, j: int, token: str, pts: np.ndarray) -> np.ndarray:
        """Which board-plane points ``pts`` the bar read on edge ``j`` hides in the frame (its
        footprint and its top, seen from the camera), and which it may show over (those and
        :data:`SPILL_PX` round them)."""
        g = self.grid
        s = g.spaces[j]
        (x1, y1), (x2, y2) = s.ends
        u = np.array([x2 - x1, y2 - y1]) / max(s.length, 1e-9)
        n = np.array([-u[1], u[0]])
        length, width = self._bar_dims()
        c = np.array([s.x, s.y])
        foot = np.array([c + a * u * length / 2 + b * n * width / 2 for a in (-1, 1) for b in (-1, 1)])
        h = self._top_of(j, [token])
        outline = np.concatenate([foot, H.lift(foot, h)]) if h > 0 and H.camera is not None else foot
        hull = cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        reach = SPILL_PX * mm_per_px(H, c, self._colour_bleed(H) / BLEED_PX)  # where it is seen: far side foreshortened
        if self.lens is None:
            # Without a lens file the bar may be seen up to EDGE_SHIFTS_MM off where the pose
            # puts it: a misplacement in mm, whatever the frame's size (3 px at 720p, 2 mm at 1080p).
            reach = max(reach, EDGE_SHIFTS_MM[-1])
        return inside_convex(pts, hull), near_outline(pts, hull, reach)

    def _headings(self, frame: np.ndarray, H: Pose, spaces: np.ndarray, gains: np.ndarray,
                  heights: np.ndarray, best: np.ndarray, shift: np.ndarray | None = None) -> dict[int, str]:
        """Edges with one clearly dark end: which way that end faces. Clearly dark: its lower
        quartile at most :data:`BAND_RATIO` of the other end's; or darker, with next to nothing
        of the piece's colour (``best``) where the other end is mostly that colour (a dark band
        blurred with the paper at a few pixels across); or, on a bar's top face, at most
        :data:`BAND_PEAK_RATIO` of the other end's in its brightest channel (a glossy cap
        reflects the room as the body does; a blue body is dark in the mean)."""
        g = self.grid
        lum, peak, own = [], [], []
        on_top = heights > 0  # the peak channel is judged on a bar's top face only (the foot look: none)
        for grp in (g.end0, g.end1):
            pts, starts, counts = gather(grp, spaces)
            if shift is not None:  # where the core showed its colour plainest
                pts = pts + np.repeat(shift, counts, axis=0)
            px = sample(frame, H, pts, np.repeat(heights, counts)) / np.repeat(gains[spaces], counts, axis=0)
            # The darker part of each end (its lower quartile): a 4 mm bar a few pixels wide is
            # blurred with the bright paper either side, which a mean would take in.
            lum.append(lower_quartiles(px.mean(axis=1), starts, counts))
            peak.append(lower_quartiles(px.max(axis=1), starts, counts) if on_top.any() else None)
            vote, _ = votes(px / np.repeat(self._paper[spaces], counts, axis=0), self._hues)
            own.append(group_share(vote == np.repeat(best, counts), starts, counts))
        l0, l1 = lum
        p0, p1 = peak
        out = {}
        for k, i in enumerate(spaces):
            dark = 0 if l0[k] < l1[k] else 1
            bare, full = own[dark][k], own[1 - dark][k]
            by_peak = on_top[k] and (p0[k] < p1[k]) == (dark == 0) \
                and min(p0[k], p1[k]) <= BAND_PEAK_RATIO * max(p0[k], p1[k])
            if min(l0[k], l1[k]) <= BAND_RATIO * max(l0[k], l1[k]) or by_peak \
                    or (bare <= BAND_OWN_MAX and full >= BAND_OTHER_MIN):
                out[int(i)] = g.spaces[i].heading_to(dark)
        return out
