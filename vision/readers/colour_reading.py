"""Reading pieces by their colour (Anacund's discs, Annelids' segments and tails): the
:class:`~vision.readers.reader.Reader`'s colour half, sampling each busy space's core where the
piece's top face projects (and, as a second look, where a piece laid flat would show it)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rules.view import in_part
from vision.read.colour_model import SAT_FLOOR, hue_classes, hue_gap, opponent, paper_white, votes
from vision.read.pose import Pose
from vision.read.sampling import LIGHT_OUTLIER, gather, group_share, probe_light, sample

from .annelid_bars import AnnelidBars
from .colour_geometry import edge_geometry, edge_shifts, group_medians
from .colour_rules import (
    BARE_TOP_MAX, BLEED_PX, CLASS_LEAN, CLASS_MIN, CLIPPED_MAX, COVER_MIN, DOUBT_NEAR, DOUBT_PEERS,
    DOUBT_SAT, EDGE_SHIFTS_MM, FOOT_HIDDEN, FOOT_ONLY_TOP, OTHER_MAX, OTHER_SAY, SHIFT_FROM,
    SHIFT_ON_MATE,
)
from .reasons import cap_unseen


@dataclass(frozen=True)
class Look:
    """One look at the busy spaces' cores (at their pieces' top, or on the board's plane)."""

    clear: np.ndarray  # (n,) bool: one colour plain (CLASS_MIN of the core, OTHER_MAX of any other)
    best: np.ndarray  # (n,) int: the colour most pixels vote for
    headings: dict[int, str]  # edges with one clearly dark end: which way it faces
    vivid: np.ndarray  # (n,) the best colour's pixels' median saturation, over its own at calibration
    coloured: np.ndarray  # (n,) share of pixels voting for any colour
    leaning: np.ndarray  # (n,) the best colour's share where no other has a say (else 0)
    shares: np.ndarray  # (n, colours) share of pixels voting for each
    shift: np.ndarray  # (n, 2) mm: where the core was looked at, off its place (EDGE_SHIFTS_MM)


class ColourReading(AnnelidBars):
    """Mixed into the Reader: needs its ``grid``, ``cal`` and ``_max_top``."""

    def _init_colours(self) -> None:
        cal, g = self.cal, self.grid
        # Each space's paper in the empty board's light (its nearest probes): white, to which
        # a frame's pixels there are balanced; the colours were learned against the board's
        # paper as a whole.
        self._paper = cal.probe_ref[g.probe_of].mean(axis=1).astype(np.float32)
        self._edge_t, self._vertex_mates = edge_geometry(g)
        self._shifts, self._normals = edge_shifts(g, EDGE_SHIFTS_MM)
        self._hues = hue_classes([c.name for c in cal.classes],
                                 np.array([c.mean for c in cal.classes], np.float32).reshape(-1, 3),
                                 paper_white(cal.probe_ref))

    def _read_colours(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray,
                      foreign_pt: np.ndarray, tokens: dict[str, list[str]], why: dict[str, str],
                      unsure: np.ndarray, clipped: np.ndarray) -> None:
        g = self.grid
        foreign = group_share(foreign_pt, g.body.start[:-1], np.maximum(g.body.counts, 1))
        busy_edges = busy[g.is_edge[busy] & ~unsure[busy]]
        doubtful_edges = busy[g.is_edge[busy] & unsure[busy] & (clipped[busy] <= CLIPPED_MAX)]
        # A dark, saturated colour over a printed line may differ from the ink by less than
        # the empty board's own tolerance (a dark green bar on an edge's line, sharper and so
        # darker the more pixels it spans): its hue tells it all the same, so the body counts
        # as covered where it is foreign or shows a piece's colour; a space whose body is only
        # partly covered is read when its core is plainly one colour in every look — with the
        # light calm.
        seen_empty = np.setdiff1d(np.flatnonzero(unsure & ~g.is_area & (clipped <= CLIPPED_MAX)), busy)
        foreign = foreign.copy()
        calm = busy[(foreign[busy] < COVER_MIN) & ~unsure[busy] & ~g.is_area[busy]]
        if len(calm):
            cover, starts, counts = self._covered(frame, H, calm, gains, foreign_pt)
            foreign[calm] = group_share(cover, starts, np.maximum(counts, 1))
        weak = (foreign[busy] < COVER_MIN) & ~unsure[busy]
        busy = busy[((foreign[busy] >= COVER_MIN) | weak) & ~g.is_area[busy] & (clipped[busy] <= CLIPPED_MAX)]
        if len(busy) == 0:
            return
        weak = foreign[busy] < COVER_MIN
        looks = self._looks(frame, H, busy, gains, weak, shifted=False)
        read: dict[int, str] = {}
        conflicts = []
        for k, i in enumerate(busy):
            clear_looks = [int(look.best[k]) for look in looks if look.clear[k]]
            at_odds = len(set(clear_looks)) > 1 or looks[0].clear[k] and any(
                np.delete(look.shares[k], looks[0].best[k]).max() >= OTHER_SAY for look in looks[1:])
            if at_odds and not weak[k]:
                conflicts.append(k)  # the top face one colour, the foot another: a bar in front?
                continue
            if weak[k] and len(clear_looks) < len(looks):
                continue  # partly foreign: only a colour plain in every look
            self._decide(k, int(i), looks, read, why)
        for k in conflicts:
            # The board-plane look sees another colour where a read bar in front, as the camera
            # sees it, covers this one's foot: the top face's colour stands.
            i = int(busy[k])
            foot = looks[1].shares[k].copy()
            foot[looks[0].best[k]] = 0
            flat = self._hues[int(np.argmax(foot))].name
            pts = g.core.mm[g.core.of(i)]
            hidden = np.zeros(len(pts), bool)
            for j, tok in read.items():
                if tok.split(":")[0] == flat and g.is_edge[j] and g.is_edge[i] and j != i and \
                        np.hypot(g.spaces[j].x - g.spaces[i].x, g.spaces[j].y - g.spaces[i].y) <= 2 * g.spaces[i].length:
                    hidden |= self._near_bar(H, j, tok, pts)[0]
            # A bar of that colour on an edge meeting this one's: bars stand alike high, so one
            # in front may show over another's foot (with its blur), never over its top face.
            mate = any(read.get(j, "").split(":")[0] == flat for side in (0, 1) for j in self._vertex_mates[i][side])
            if hidden.mean() >= FOOT_HIDDEN or (mate and self._alike_high()):
                self._decide(k, i, looks[:1], read, why)
        for k in sorted(set(np.flatnonzero(weak)) | set(conflicts)):
            # A tail whose dark cap faces the camera: its black band and end face over the
            # edge's printed line look like the ink, and fill much of the foot look's core
            # (where the band, lit by the room alone, may take the hue of a JPEG's smear).
            # Its foot look sees the cap's end face at the same end: another heading there is
            # another piece (a tail lying flat, its top look past its end), never read here.
            i = int(busy[k])
            heading = looks[0].headings.get(i)
            if i not in read and g.is_edge[i] and looks[0].clear[k] and heading is not None \
                    and all(look.headings.get(i, heading) == heading for look in looks):
                self._capped(frame, H, i, gains, heading, foreign_pt, read, why)
        # A second chance for the edges left unread, their cores looked at off their place
        # (EDGE_SHIFTS_MM: no lens file, a barrel lens). A core plain only off its place may be a
        # neighbour's colour blurred into reach: it needs its top face plain (the piece's own),
        # the foot looked at with the same shift and not at odds with it (_decide). Also where the
        # foot is plainly a colour the top shows a little of, and nothing else (a lens moved it).
        # Of the looks each was read by (a foot look not plain may be mostly a tail's dark cap).
        vivid_at = np.min([np.where(look.clear, look.vivid, np.inf) for look in looks] + [looks[0].vivid], axis=0)
        left = np.flatnonzero([int(i) not in read and g.is_edge[i] and not weak[k] for k, i in enumerate(busy)])
        if len(left):
            foot = np.where(looks[-1].clear[left], looks[-1].best[left], -1) if len(looks) > 1 else None
            moved = self._looks(frame, H, busy[left], gains, weak[left], shifted=True, foot=foot)
            for kk, k in enumerate(left):
                i = int(busy[k])
                if not np.any(moved[0].shift[kk] != 0) or not moved[0].clear[kk]:
                    continue
                self._decide(kk, i, moved, read, why)
                if i in read and self._on_a_read_bar(H, i, moved[0].shift[kk], read) > SHIFT_ON_MATE:
                    del read[i]  # shifted mostly onto where a bar read beside it may show: its colour?
                if i in read:
                    why.pop(g.spaces[i].id, None)
                    vivid_at[k] = min(float(look.vivid[kk]) for look in moved)
        # A tail whose colour is plain and whose cap no look sees (the cap in shade, a glossy
        # cap reflecting the room as the body does, a bar lying a little towards it) is a tail
        # of that colour all the same: named in part ("blue:?"). A tail never moves nor turns
        # (the seed: an annelid grows from it), so history gives its heading; its colour keeps
        # a segment or the other player's tail from being taken for it.
        headed = [c.name for c in self.cal.classes if c.headed]
        in_part_tails = {g.index[sid]: name for sid, r in why.items() for name in headed
                      if r == cap_unseen(name) and g.index[sid] not in read}
        for i, name in in_part_tails.items():
            del why[g.spaces[i].id]
            read[i] = in_part(name)
        # Under doubtful light (a hand may be near) only a colour as vivid as the piece's own,
        # in every look it was read by: skin has the hue of an orange bar or a red disc, not
        # their saturation. Its own: at calibration, or — a frame's exposure, JPEG and blur
        # dull all its pieces alike — as the pieces of its colour read under a calm light in
        # this frame, when there are a few of them (never more than at calibration).
        names = [c.name for c in self._hues]
        colour = {i: names.index(tok.split(":")[0]) for i, tok in read.items()}
        at = {int(i): k for k, i in enumerate(busy)}
        bar = np.full(len(names), DOUBT_SAT)
        for b in range(len(names)):
            calm = [vivid_at[at[i]] for i, c in colour.items() if c == b and not unsure[i] and i in at]
            if len(calm) >= DOUBT_PEERS:
                bar[b] = DOUBT_SAT * min(1.0, float(np.median(calm)))
        for i, b in colour.items():
            if unsure[i] and i in at and vivid_at[at[i]] < bar[b]:
                del read[i]
        doubt = [i for i in read if unsure[i]]
        if doubt:
            for i in self._light_not_explained(frame, H, doubt, read):
                del read[i]  # left to the reader: the light there is unsure
        doubtful_edges = np.array([i for i in doubtful_edges if int(i) not in read], int)
        if (len(seen_empty) or len(doubtful_edges)) and read:
            # Where the light round a space is doubtful only because the pieces read beside it
            # tint or shade the paper (a low lamp casts long shadows), it is judged as under a
            # calm light: looking like the empty board, it is empty; an edge with a little of
            # something on it, as the edges beside read bars are (_edges_beside). A hand's or
            # glare's light there is not the pieces' — only their shadows count here, grey and
            # darker: skin has a segment's hue and may pass for its tint. And a hand spans several
            # spaces, its light misjudged round it (a bar under its shadow may look like the
            # paper): none within DOUBT_NEAR pitches of a space whose doubtful light the pieces'
            # shadows do not explain.
            doubt = [int(i) for i in np.flatnonzero(unsure) if int(i) not in read]
            unexplained = set(self._light_not_explained(frame, H, doubt, read, tints=False)) \
                | {int(i) for i in np.flatnonzero(clipped > CLIPPED_MAX)}
            trouble = np.array([(g.spaces[i].x, g.spaces[i].y) for i in unexplained], np.float64).reshape(-1, 2)
            near = DOUBT_NEAR * self.sheet.pitch

            def calm_round(i: int) -> bool:
                s = g.spaces[i]
                return i not in unexplained and not (np.hypot(trouble[:, 0] - s.x, trouble[:, 1] - s.y) <= near).any()

            for i in seen_empty:
                if calm_round(int(i)):
                    tokens[g.spaces[int(i)].id] = []
            busy_edges = np.concatenate([busy_edges, [i for i in doubtful_edges if calm_round(int(i))]]).astype(int)
        for i, name in in_part_tails.items():
            if i not in read:  # the light round it doubtful: left unread, as it was
                why[g.spaces[i].id] = cap_unseen(name)
        for i, tok in read.items():
            tokens[g.spaces[i].id] = [tok]
        small = np.array([i for i in busy_edges if int(i) not in read], int)
        if len(small):
            # Where a standing bar's top face would show, no colour at all: no bar here.
            pos = {int(i): k for k, i in enumerate(busy)}
            bare_top = {int(i) for i in small if len(looks) > 1 and int(i) in pos
                        and looks[0].coloured[pos[int(i)]] <= BARE_TOP_MAX}
            self._edges_beside(H, small, foreign_pt, read, tokens, bare_top)

    def _looks(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray, weak: np.ndarray,
               shifted: bool, foot: np.ndarray | None = None) -> list["Look"]:
        """The looks at the busy spaces' cores: at their pieces' top, where the colour is (not
        on the board), and where a piece laid flat would show it (a set without height, a piece
        knocked over); ``shifted``: each edge's core also off its place, the foot looked at with
        the top's shift (a lens's misplacement moves both looks alike)."""
        looks = [self._classify(frame, H, busy, gains, self._max_top[busy],
                                None if shifted else np.zeros((len(busy), 2), np.float32), foot=foot)]
        if H.camera is not None and self._max_top[busy].any():
            looks.append(self._classify(frame, H, busy, gains, np.zeros(len(busy), np.float32), looks[0].shift))
        if len(looks) > 1:
            # Two looks a few millimetres apart (the top face, the foot) that both lean to the
            # same colour, and nothing of another, are as good as one plain look: at a finer
            # scale a thin bar's side and the paper by it take more of each look's core.
            # (A partly foreign space also needs one of them plain.)
            lean = np.all([(look.leaning >= CLASS_LEAN) & (look.best == looks[0].best) for look in looks], axis=0) \
                & (~weak | np.any([look.clear for look in looks], axis=0))
            for look in looks:
                look.clear[lean] = True
            self._one_cap(H, busy, looks)
            self._near_face(frame, H, busy, gains, looks)
        return looks

    def _covered(self, frame: np.ndarray, H: Pose, spaces: np.ndarray, gains: np.ndarray,
                 foreign_pt: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The body points of ``spaces`` foreign to the empty board or voting for one of the
        pieces' colours (balanced against the paper there, as the cores are), with each
        space's start and count among them."""
        g = self.grid
        pts, starts, counts = gather(g.body, spaces)
        idx = np.concatenate([np.arange(g.body.start[i], g.body.start[i + 1]) for i in spaces])
        white = np.repeat(gains[spaces] * self._paper[spaces], counts, axis=0)
        vote, _ = votes(sample(frame, H, pts, np.zeros(len(pts), np.float32)) / white, self._hues)
        return foreign_pt[idx] | (vote >= 0), starts, counts

    def _alike_high(self) -> bool:
        """Do all the set's colour-read pieces stand equally high (Annelids' bars)?"""
        ps = self.pieceset
        return ps is not None and len({p.height_mm for p in ps.pieces if p.top == "colour"}) == 1

    def _decide(self, k: int, i: int, looks: list, read: dict[int, str], why: dict[str, str]) -> None:
        """Space ``i`` (``k``-th of the looks) read from the looks clear on it: one colour, and
        for a tail one heading."""
        clear_looks = [(int(look.best[k]), look.headings.get(i)) for look in looks if look.clear[k]]
        if len({b for b, _ in clear_looks}) != 1:
            return  # not clear, or two looks that disagree on the colour: unreadable
        b = clear_looks[0][0]
        # The top face is the piece's own; its foot, seen past the pieces in front, may show
        # some of theirs. So a colour plain only at the foot needs a top look with nothing of
        # another colour, and one plain on top a foot with not much of another.
        if not looks[0].clear[k] and len(looks) > 1 and looks[0].shares[k, b] < FOOT_ONLY_TOP:
            return  # plain at the foot, hardly anything where a standing bar's top would show
        if np.delete(looks[0].shares[k], b).max(initial=0.0) > (OTHER_MAX if not looks[0].clear[k] else OTHER_SAY) \
                or any(np.delete(look.shares[k], b).max(initial=0.0) >= OTHER_SAY for look in looks[1:]):
            return  # the looks at odds: unreadable
        c = self.cal.classes[b]
        # A tail's dark band is on its top face; but where the pieces lie flatter than the set
        # says (or the camera's height is misjudged) the top look's end bands reach past the bar
        # onto the printed vertex, whose ink looks like a dark end at the wrong end (green:S read
        # green:N on synth.py's flat sets). So every clear look's heading counts, and of two
        # headings neither is taken (nor where the foot look sees a tail's near end face in
        # shade as a cap): the colour stands, the heading is not seen, as where no look sees a cap.
        ends = {h for _, h in clear_looks if h is not None}
        heading = next(iter(ends)) if len(ends) == 1 else None
        if not c.headed:
            # A dark end seen on a piece that has none is the paper, the ink or a shadow past its
            # end (the top face seen askew, a printed vertex): its colour, not its ends, names it.
            read[i] = c.name
        elif heading is None:
            why[self.grid.spaces[i].id] = cap_unseen(c.name)  # read in part if no later look heads it
        else:
            read[i] = f"{c.name}:{heading}"

    def _light_not_explained(self, frame: np.ndarray, H: Pose, doubt: list[int], read: dict[int, str],
                             tints: bool = True) -> list[int]:
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
            tint = ((hue_gap(hue, c.hue) <= c.tol) & tints) | (sat < SAT_FLOOR)
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

    def _classify(self, frame: np.ndarray, H: Pose, busy: np.ndarray, gains: np.ndarray, heights: np.ndarray,
                  at_shift: np.ndarray | None = None, keep: np.ndarray | None = None, foot=None) -> Look:
        """Per busy space, its core sampled at ``heights``: pixels vote by hue against the paper's
        white (colour_model); ``keep``: only these core points count; ``foot``: its plain foot's colour."""
        g = self.grid
        core, starts, counts = gather(g.core, busy)
        white = np.repeat(gains[busy] * self._paper[busy], counts, axis=0)
        at = np.repeat(heights, counts)
        # Each space's core where it shows one colour plainest, of the shifts allowed it (an
        # edge's; a point's is 0): its best colour's share less twice any other's.
        vote = sat = share = shift = score = None
        shifts = [self._shifts[busy, s] for s in range(self._shifts.shape[1])] if at_shift is None else [at_shift]
        scale = 1.0 if keep is None else (counts / np.maximum(group_share(keep, starts, counts) * counts, 1))[:, None]
        for d in shifts:
            v, sa = votes(sample(frame, H, core + np.repeat(d, counts, axis=0), at) / white, self._hues)
            if keep is not None:
                v[~keep] = -1
            sh = np.stack([group_share(v == k, starts, counts) for k in range(len(self._hues))], axis=1) * scale
            top2 = np.sort(sh, axis=1)[:, ::-1]
            sc = top2[:, 0] - 2 * top2[:, 1] if sh.shape[1] > 1 else top2[:, 0]
            if vote is None:
                vote, sat, share, shift, score = v, sa, sh, d.copy(), sc
                first_best = np.argmax(sh, axis=1)
                first_share = sh[np.arange(len(busy)), first_best]
                first_coloured = sh.sum(axis=1)
                first_clear = (first_share >= CLASS_MIN) & (top2[:, 1] <= OTHER_MAX)  # read where it is
                seen = (first_share >= SHIFT_FROM) | ((first_share > 0) & (top2[:, 1] == 0) & (foot == first_best)
                                                     if foot is not None else False)
                continue
            # Only where the unshifted core is not plain but already shows some of that colour
            # (a bar misplaced, not a neighbour's colour blurred into an empty edge's reach).
            same = np.argmax(sh, axis=1) == first_best
            take = (sc > score + 1e-6) & np.any(d != 0, axis=1) & same & seen & ~first_clear
            if take.any():
                pt = np.repeat(take, counts)
                vote[pt], sat[pt] = v[pt], sa[pt]
                share[take], shift[take], score[take] = sh[take], d[take], sc[take]
        shares = share.copy()
        best = np.argmax(share, axis=1)
        coloured = first_coloured  # where the top would show, unshifted (an empty edge's test)
        top = share[np.arange(len(busy)), best]
        share[np.arange(len(busy)), best] = 0
        clear = (top >= CLASS_MIN) & (share.max(axis=1) <= OTHER_MAX)
        leaning = np.where(share.max(axis=1) <= OTHER_MAX, top, 0.0)
        class_sat = np.array([c.sat for c in self._hues], np.float32)
        mine = vote == np.repeat(best, counts)
        vivid = group_medians(np.where(mine, sat, np.nan), starts, counts) / np.maximum(class_sat[best], 1e-3)
        edges = g.is_edge[busy]
        # The ends are looked at shifted across the edge only: shifted along it, one end's band
        # would reach past the bar onto the vertex's ink, and that end would look dark.
        across = self._normals[busy] * np.sum(shift * self._normals[busy], axis=1, keepdims=True)
        headings = self._headings(frame, H, busy[edges], gains, heights[edges], best[edges], across[edges]) \
            if edges.any() else {}
        return Look(clear, best, headings, vivid, coloured, leaning, shares, shift)
