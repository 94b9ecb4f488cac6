"""DRIFT on the Annuli board through the camera: turning river rings, tokens side by side.

The three river rings turn; the land does not. Each ring carries a marker (a tag of
:data:`vision.sheets.layout.RING_TAGS`) stuck on the ring where its arrow ``k = 0`` starts, so
the marker's angle is the ring's rotation step, and a second one
(:data:`~vision.sheets.layout.RING_OPPOSITE_TAGS`) opposite it, where arrow ``n/2`` starts: a
home's pile hides one of them from a tilted camera, never both. Either, seen, gives the
rotation. The rings are printed with identical plain arrow circles (no labels on the ring), so a
ring turned a whole number of steps prints the same as at rotation 0 and the empty-board
calibration (taken with every ring at rotation 0) holds at any rotation. A river arrow keeps its
id while it turns (``OR14`` is the arrow printed on the ring), so once the rotations are read
the reader samples each arrow where it now is: the board's sample points of that arrow turned
about the board's centre.

A DRIFT space may hold two tokens side by side (a piece and the coin it stands by, a piece and
its carried coin's clip); each is a tagged disc and every foreign point in the space must lie
on a disc whose tag was read. A home may hold all six of a player's pieces: there they stand
in one pile, and the reader reports the top token(s) and :data:`rules.view.MORE` (more may lie
beneath), which the referee matches against what the rules say the home holds. Tags lying
neither on a space's centre nor as a pair across it (a third token spilt over the edge) make
every space within 1.3 pitch unreadable, since they may belong to any of them.

Every river whose markers do not agree on one step (none seen whole on a step, or two that
disagree) makes its rotation space and all its arrows unreadable.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
from collections import OrderedDict

import cv2
import numpy as np

from rules.view import HIDDEN, MORE, OCCUPIED, Fidelity, View

from vision.pieces.pieceset import PieceSet
from vision.read.empty_board import Calibration, CalibrationError
from vision.read.lens import Lens
from vision.read.pose import Pose, as_pose
from vision.read.samples import Group, SampleGrid, covers_pairs
from vision.read.sampling import default_pieceset, inside_convex, remap_px, sample
from vision.sheets import layout
from vision.sheets.annuli import Annuli, Ring
from vision.sheets.layout import Sheet, SpaceShape
from vision.sheets.render import marker_image

from .drift_markers import detect_in, quick_step
from .drift_places import SetStance
from .drift_tags import TagsAtHeight
from .occlusion import EMPTY_MAX, standing_hull
from .reasons import (
    MARKERS_DISAGREE, MARKERS_UNSEEN, RING_COVERED, TAGS_UNREAD, UNNAMED, marker_off, marker_size, mid_turn, not_its_marker,
    rotation_unread,
)
from .reader import Reader, Reading

CONTRAST_MIN = 0.12  # grey spread / mean at a candidate: below this, no tag is there
BOARD_SLACK = 0.03  # contrast over the board's own at a step position still plain (a marker shows 0.3-0.5)
BOARD_MAX = 0.26  # the most contrast learned as the board's own at a step position
STEP_SLACK = 0.2  # a marker further than this share of a step off a step is mid-turn
GRIDS_KEPT = 8
EXPLAIN = 1.25  # piece radii round a read tag that its disc (and shadow) may cover


class DriftGrid(SampleGrid):
    """The Annuli board's sample points, with no light probe where a ring marker may stand,
    and the same points for the rings turned to any rotation (:meth:`turned`)."""

    def __init__(self, sheet: Sheet) -> None:
        self.annuli = Annuli.for_sheet(sheet)
        super().__init__(sheet)
        self._turned: OrderedDict[tuple[int, ...], SampleGrid] = OrderedDict()

    def _probes(self) -> np.ndarray:
        pts = super()._probes()
        keep = np.ones(len(pts), bool)
        clear = self.sheet.tag_mm * math.sqrt(2) / 2 + 3.5  # the marker's sticker and a margin
        for ring in self.annuli.rings:
            for k in range(ring.n):
                x, y = self.annuli.marker_at(ring, k)
                keep &= np.hypot(pts[:, 0] - x, pts[:, 1] - y) > clear
        return pts[keep]

    def turned(self, rots: tuple[int, ...]) -> SampleGrid:
        """This grid with each ring's arrows turned ``rots`` steps (outer, middle, inner)."""
        if not any(rots):
            return self
        if rots in self._turned:
            self._turned.move_to_end(rots)
            return self._turned[rots]
        g = copy.copy(self)
        spaces = list(self.spaces)
        core = self.core.mm.copy()
        # An arrow's body is read at the printed arrow it has been carried onto, against the
        # learned board *there*: the arrows print alike, but the lines joining them to the land
        # do not turn with them (a whole number of steps, so the points are that arrow's own).
        cal_index = np.arange(len(self.body.mm))
        for ring, r in zip(self.annuli.rings, rots):
            deg = ring.angle(r)
            for a in ring.arrows:
                i = self.index[a]
                s = spaces[i]
                x, y = self.annuli.turn(np.float32([[s.x, s.y]]), deg)[0]
                spaces[i] = SpaceShape(s.id, float(x), float(y), s.kind, s.ends, s.rect)
                sl = self.core.of(i)
                core[sl] = self.annuli.turn(core[sl], deg)
                there = min(ring.arrows, key=lambda o: math.hypot(self.sheet.by_id[o].x - x, self.sheet.by_id[o].y - y))
                turned_pts = self.annuli.turn(self.body.mm[self.body.of(i)], deg)
                own = self.body.of(self.index[there])
                theirs = self.body.mm[own]
                if len(turned_pts) and len(theirs):
                    d = (turned_pts[:, None, 0] - theirs[None, :, 0]) ** 2 + (turned_pts[:, None, 1] - theirs[None, :, 1]) ** 2
                    cal_index[self.body.of(i)] = own.start + np.argmin(d, axis=1)
        body = self.body.mm[cal_index]
        g.cal_index = cal_index
        g.spaces = tuple(spaces)
        g.body, g.core = Group(body, self.body.start), Group(core, self.core.start)
        g.space_basis = self.basis(np.array([(s.x, s.y) for s in spaces], np.float32))
        g.probe_of = g._nearest_probes()
        self._turned[rots] = g
        if len(self._turned) > GRIDS_KEPT:
            self._turned.popitem(last=False)
        return g


class _TurnedReader(TagsAtHeight, Reader):
    stacks = True
    scan_reach = 3.0  # two discs side by side, and a third spilt beyond them (to be caught)
    ignored_tags = frozenset(layout.RING_TAGS["drift"]) | frozenset(layout.RING_OPPOSITE_TAGS["drift"])
    # Tags placed in 3-D (vision/readers/drift_tags.py); a token seen but not named is read
    # (OCCUPIED, MORE): a space may hold two, a home a pile. Grey paper by a piece is never read
    # empty on its looks alone: a silver coin or a grey piece looks like it.
    names_unread = True
    shadow_is_paper = False
    empty_needs_calm = True
    where_found = False  # a pair's tokens lie off the centre by its rules (its own placement)
    unnamed_read = (OCCUPIED, MORE)
    heights = True

    def __init__(self, *args, stance: SetStance | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.stance = stance if stance is not None else SetStance()

    @functools.cached_property
    def _rotation_space(self) -> np.ndarray:
        marked = {ring.rotation_space for ring in self.grid.annuli.rings}  # type: ignore[attr-defined]
        return np.array([s.id in marked for s in self.grid.spaces], bool)

    def _height_found(self, c: np.ndarray) -> float:
        for seen, h in self._tops_seen:
            if abs(seen[0] - c[0]) < 0.5 and abs(seen[1] - c[1]) < 0.5:
                return h
        return 0.0

    def _found_tops(self) -> list[tuple[np.ndarray, float, np.ndarray]]:
        """Each token found: (its place, the height its tag was found at, where its top is
        seen), worked out once for all the spaces judged against it (until more are found)."""
        cached = self.__dict__.get("_found_tops_cache")
        if cached is None or cached[0] is not self._found or cached[1] != len(self._found):
            tops = []
            for c in self._found:
                h = self._height_found(c)
                tops.append((c, h, self.top_seen(c, h)))
            cached = self.__dict__["_found_tops_cache"] = (self._found, len(self._found), tops)
        return cached[2]

    @functools.cached_property
    def _homes(self) -> frozenset[str]:
        return frozenset(s.id for s in self.sheet.board.spaces if s.kind == "home")

    def _space_read(self, i: int, got: list[tuple[str, np.ndarray]], tokens: dict[str, list[str]], why: dict[str, str],
              unexplained: float | None, partner: np.ndarray | None = None, partner_read: str = OCCUPIED) -> None:
        """Space ``i`` holds the tokens ``got`` (their tags' places) if every foreign point of
        its body lies on a read token (``unexplained``: the share of its body that does not,
        :meth:`_unexplained`; None, nothing foreign); ``partner``: where the unread other half
        of a pair lies (a lone tag lying as one of two) — plainly something there, it is read
        ``OCCUPIED``; hidden in part by a token in front, ``partner_read`` is ``MORE`` (maybe something)."""
        # A missed token covers far more of a space's body than this: the few points left
        # over are the edge of a token read, lit otherwise than the learned board (a block's side).
        if unexplained is not None and unexplained > EMPTY_MAX:
            why[self.grid.spaces[i].id] = UNNAMED if not got else TAGS_UNREAD
            return
        tokens[self.grid.spaces[i].id] = [t for t, _ in got] + ([partner_read] if partner is not None else [])

    def _unexplained(self, spaces: list[int], foreign_pt: np.ndarray,
                     partners: dict[int, np.ndarray]) -> dict[int, float]:
        """For each of ``spaces`` whose body shows foreign points: the share of its body
        foreign and on no read token's outline (each token as tall as its tag was found
        standing: its blurred edge, and on shadow-like points its shadow — a pile's reaches the
        next space but one; ``partners``: a pair's unread half, as tall as the space's tallest).
        Worked out for every space and token at once, each (point, token) pair with
        :meth:`Reader.covers`' arithmetic; only the foreign points need explaining."""
        g, body = self.grid, self.grid.body
        reach = self.sheet.piece_radius * EXPLAIN
        found = self._found_tops()
        # A repository's block, part of the board, is in the learned board too; but where the
        # paper has bent anew under it, the paper by its foot is lit otherwise (the path-traced
        # window row: 15 % of a home's body, 2-7 mm outside the block, not shadow-like). It
        # explains what lies within a standing token's reach of it, as a token there would —
        # not its shadow (the learned board's): a coin put down against the block keeps most of
        # its body unexplained. Never on a repository's own body, where a coin lies on the block.
        blocks = self._block_tops()
        pts_of, shadowy_of, owner, entries = [], [], [], []  # entries: (space's slot, c, top, reach, shade)
        for i in spaces:
            sl = body.of(i)
            fg = foreign_pt[sl]
            if not fg.any():
                continue
            slot = len(pts_of)
            owner.append((i, len(fg)))
            pts_of.append(body.mm[sl][fg])
            shadowy_of.append(self._shadow_pt[sl][fg] if len(self._shadow_pt) else np.zeros(int(fg.sum()), bool))
            s = g.spaces[i]
            partner = partners.get(i)
            if partner is not None:  # (plainly something there: vision.readers.drift_tags checked)
                entries.append((slot, partner, self.top_seen(partner, float(self._max_top[i])), reach + 3.0, False))
            near = [(c, h, top) for c, h, top in found
                    if math.hypot(c[0] - s.x, c[1] - s.y) <= reach + 1.5 * h + self.sheet.pitch]
            entries += [(slot, c, top, reach + (3.0 if h > 0 else 0.0), False) for c, h, top in near]
            if shadowy_of[-1].any():
                entries += [(slot, c, top, reach + 1.5 * h, True) for c, h, top in near]
            if self._kinds()[i] != "repository":
                entries += [(slot, c, top, reach + 3.0, False) for c, h, top in blocks
                            if math.hypot(c[0] - s.x, c[1] - s.y) <= reach + 1.5 * h + self.sheet.pitch]
        if not owner:
            return {}
        counts = np.array([len(p) for p in pts_of])
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        pts, shadowy = np.concatenate(pts_of), np.concatenate(shadowy_of)
        explained = np.zeros(len(pts), bool)
        if entries:
            slot = np.array([e[0] for e in entries])
            n = counts[slot]  # each entry is tested on every foreign point of its space
            entry = np.repeat(np.arange(len(entries)), n)
            k = first[slot][entry] + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
            c = np.array([np.asarray(e[1], np.float64) for e in entries])[entry]
            top = np.array([np.asarray(e[2], np.float64) for e in entries])[entry]
            hit = covers_pairs(pts, k, c, top, np.array([e[3] for e in entries], np.float64)[entry])
            shade = np.array([e[4] for e in entries])[entry]
            hit &= ~shade | shadowy[k]  # a shadow explains only shadow-like points
            explained[k[hit]] = True
        left = np.add.reduceat((~explained).astype(np.int64), first)
        return {i: int(n_left) / n_body for (i, n_body), n_left in zip(owner, left)}


class DriftReader:
    """Reads a DRIFT frame: the rings' rotations from their markers, then every space with
    the arrows where the rings have carried them. Same interface as :class:`Reader`."""

    def __init__(self, grid: DriftGrid, calibration: Calibration, fidelity: Fidelity = Fidelity.KIND, *,
                 lens: Lens | None = None, pieceset: PieceSet | None = None) -> None:
        if not isinstance(grid, DriftGrid):
            raise CalibrationError("DRIFT is read on a DriftGrid (vision.readers.drift_reader.DriftGrid(sheet))")
        if fidelity is Fidelity.IDENTITY:
            raise CalibrationError("drift: pieces carry kind tags (colour and rank); there are not enough "
                                   "tag ids for one per piece, so read DRIFT at kind fidelity")
        if calibration.mode != "tags":
            raise CalibrationError("drift: its pieces, coins and rings are read by tags (mode 'tags')")
        self.grid = grid
        self.sheet = grid.sheet
        self.cal = calibration
        self.fidelity = fidelity
        self.annuli = grid.annuli
        self.lens = lens
        self.pieceset = pieceset
        self._readers: OrderedDict[tuple[int, ...], Reader] = OrderedDict()
        self._plain: dict[str, np.ndarray] = {}  # per ring: its step positions plain paper in the frame read
        self._steps_seen: dict[str, frozenset[int]] = {}  # per ring: the steps its marker was seen at
        self._board_contrast: dict[str, np.ndarray] = {}  # per ring: the least contrast seen at each step position
        self._board_level: dict[str, np.ndarray] = {}  # per ring: the most brightness (against its neighbours) seen plain
        self._strays: dict[str, list[np.ndarray]] = {}  # per ring: pieces' tags seen at its step positions
        self._marker_ids = frozenset(t for ring in self.annuli.rings for t in ring.tags)
        self._cells: dict[tuple[str, int], tuple[np.ndarray, ...]] = {}  # ring marker cell points per step
        # The set stands or lies flat in every frame alike. Until a frame tells, it stands if the
        # piece set gives its pieces height, as a real set's do: a fresh reader's first frame that
        # cannot tell (tilt 35 through a lens: a silver coin's tag then free to lie flat, taken to
        # the next space, and the pair read as one token with nothing unreadable) reads standing.
        ps = self.pieceset or default_pieceset(self.sheet.game)
        self._stance = SetStance(True if ps is not None and all(p.height_mm > 0 for p in ps.pieces) else None)
        self._base = self._reader((0, 0, 0))
        r = 0.3 * self.sheet.tag_mm
        ax = np.arange(-r, r + 1e-6, 1.0)
        xx, yy = np.meshgrid(ax, ax)
        disk = np.stack([xx.ravel(), yy.ravel()], 1)[(xx.ravel() ** 2 + yy.ravel() ** 2) <= r * r]
        self._disk_n = len(disk)
        self._candidates = [np.float32([self.annuli.marker_at(ring, k) for k in range(ring.n)])
                            for ring in self.annuli.rings]
        centres = np.concatenate(self._candidates)
        self._candidate_pts = (centres[:, None, :] + disk[None].astype(np.float32)).reshape(-1, 2)

    def _reader(self, rots: tuple[int, ...]) -> Reader:
        if rots not in self._readers:
            grid = self.grid.turned(rots)
            cal = self.cal
            index = getattr(grid, "cal_index", None)
            if index is not None:  # each arrow against the learned board where it now is
                cal = dataclasses.replace(cal, lo=cal.lo[index], hi=cal.hi[index], tint=cal.tint[index])
            self._readers[rots] = _TurnedReader(grid, cal, Fidelity.KIND, lens=self.lens, pieceset=self.pieceset,
                                                stance=self._stance)
            if len(self._readers) > GRIDS_KEPT:
                self._readers.popitem(last=False)
        self._readers.move_to_end(rots)
        return self._readers[rots]

    def read(self, frame: np.ndarray, H: np.ndarray | Pose) -> Reading:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        H = self._base.pose(frame, H)  # the ring markers lie on the board: read at height 0
        rots, ring_why = self.rotations(grey, H)
        reader = self._reader(tuple(r if r is not None else 0 for r in rots))
        reading = reader.read(frame, H, grey)
        behind = {}
        for k, (ring, r) in enumerate(zip(self.annuli.rings, rots)):
            seen = self._steps_seen.get(ring.name, frozenset())
            if r is not None or len(seen) > 1:
                continue
            placed = self._strays_placed(reader, ring)  # the only troubles: pieces' tags read on spaces
            if len(seen) == 1 and placed:
                behind[k] = next(iter(seen))  # its marker, and a piece's tag by another step
            elif not seen and (ring_why[ring.name] == MARKERS_UNSEEN or placed):
                step = self._marker_behind(reader, reading, H, k)
                if step is not None:
                    behind[k] = step
        if behind:
            placeholder = tuple(r if r is not None else 0 for r in rots)
            rots = [behind.get(k, r) for k, r in enumerate(rots)]
            turned = tuple(r if r is not None else 0 for r in rots)
            if turned != placeholder:
                reading = self._reader(turned).read(frame, H, grey)
        tokens = {s: list(t) for s, t in reading.view.items() if t}
        why = dict(reading.why)
        for ring, r in zip(self.annuli.rings, rots):
            tokens.pop(ring.rotation_space, None)
            why.pop(ring.rotation_space, None)  # its fixed spot is read by the marker instead
            if r is None:
                why[ring.rotation_space] = ring_why[ring.name]
                for a in ring.arrows:
                    tokens.pop(a, None)
                    why[a] = rotation_unread(ring.name)
            else:
                tokens[ring.rotation_space] = [str(r)]
        view = View({s: t for s, t in tokens.items() if s not in why})
        if self.fidelity is Fidelity.OCCUPANCY:
            view = view.at_fidelity(Fidelity.OCCUPANCY)
        return Reading(view, frozenset(why), why)

    def rotations(self, grey: np.ndarray, H: "np.ndarray | Pose") -> tuple[list[int | None], dict[str, str]]:  # noqa: C901
        """Each ring's rotation step from its marker, or None with the reason."""
        H = as_pose(H)
        px = H.kept(("step positions", id(self)), lambda: H.to_px(self._candidate_pts), of=self)
        vals = remap_px(grey, px).reshape(-1, self._disk_n)
        contrast = vals.std(axis=1) / np.maximum(vals.mean(axis=1), 1.0)
        # The markers are as small as the pieces' tags: read from crops enlarged as theirs are.
        detector, up = self._base._small_tags, self._base.upscale(H)
        out: list[int | None] = []
        why: dict[str, str] = {}
        start = 0
        half = self.sheet.tag_mm * math.sqrt(2) / 2 + 3.0
        for ring, cands in zip(self.annuli.rings, self._candidates):
            mine = contrast[start:start + ring.n]
            start += ring.n
            looked = np.flatnonzero(mine >= CONTRAST_MIN)
            steps: set[int] = set()
            trouble = piece_by = ""
            strays: list[np.ndarray] = []
            self._strays[ring.name] = strays
            own_trouble = False
            blank = 0  # step positions with contrast but no tag at all
            agreeing: set[int] = set()  # the ring's markers seen where they belong
            quick = self._quick_step(grey, H, ring, cands, mine, half, up)
            if quick is not None:  # both markers read at once, agreeing: the other positions are not looked at
                steps.add(quick)
                agreeing = set(ring.tags)
                looked = looked[:0]
            for k in looked:
                found = self._tags_near(grey, H, cands[k], half, detector, up)
                blank += not found
                if not any(tag in ring.tags for tag, _ in found):
                    # The far side's markers, seen obliquely, are some 2 px a cell across the
                    # view: another enlargement often reads what one misses.
                    found += [(t, mm) for t, mm in self._tags_near(grey, H, cands[k], half, detector, up + 1)
                              if t in ring.tags]
                for tag, mm in found:
                    step, bad = self._step_of(ring, tag, mm)
                    if bad and tag not in self._marker_ids:
                        # A piece's tag: maybe a pile's top over it, hiding a marker there. A
                        # marker seen elsewhere gives the rotation all the same; none seen, the
                        # ring's cells are read away from it only.
                        strays.append(mm.mean(axis=0))
                        piece_by = piece_by or bad
                    elif bad:
                        trouble, own_trouble = bad, True
                    else:
                        steps.add(step)
                        agreeing.add(tag)
            both = len(steps) == 1 and len(agreeing) == len(ring.tags) > 1  # two markers, one rotation
            # One marker seen, and the place its pair stands at that rotation shows something
            # (the marker too blurred to read, or what hides it): the pair agrees as far as can
            # be seen, and a hand over the ring would not make the seen one lie.
            other = None if len(steps) != 1 or len(agreeing) != 1 or ring.opposite_tag is None else \
                (next(iter(steps)) + (ring.n // 2 if ring.tag in agreeing else 0)) % ring.n
            both |= other is not None and mine[other] >= CONTRAST_MIN
            if len(looked) > len(ring.tags) + 2 and blank > 2 and not both:
                # Contrast at more step positions than its markers and two more, and at three or
                # more of them no tag (a pile's top seen over a step shows its own): a hand or
                # glare may lie over the ring, unless both its markers agree (a repository's
                # coins and block by a step position show contrast too). Wait for a still frame.
                own_trouble, trouble = True, RING_COVERED
                steps.clear()
            if not steps and not trouble:
                # Too blurred for the detector to find its outline (the inner ring's marker is
                # some 20 px across at 1080p): read its cells where the step would put it — not
                # at a step position a piece's tag lies by (what shows there is not the marker).
                clear = [int(k) for k in looked if all(math.hypot(*(cands[k] - c)) > 2 * half for c in strays)]
                steps = {ring.rotation_of(tag, k) for k in clear for tag in ring.tags
                         if self._decodes_at(grey, H, ring, k, tag)}
            self._steps_seen[ring.name] = frozenset(steps)
            if own_trouble:
                strays.clear()  # the marker itself is in doubt: nothing is placed by elimination
            if len(steps) == 1 and not trouble:
                out.append(steps.pop())
            else:
                out.append(None)
                why[ring.name] = trouble or (MARKERS_DISAGREE if steps else piece_by or MARKERS_UNSEEN)
            # Plain: no more contrast than the board itself shows there (a repository block's
            # edge and its shadow lie by some step positions), learned from the frames whose
            # rotation was read — every step position but the markers' then shows the board.
            base = self._board_contrast.setdefault(ring.name, np.full(ring.n, np.inf, np.float32))
            if out[-1] is not None:  # only what paper (or a block's edge) shows: a marker shows 0.3-0.5
                at = [out[-1]] if ring.opposite_tag is None else [out[-1], (out[-1] + ring.n // 2) % ring.n]
                others = ~np.isin(np.arange(ring.n), at) & (mine <= BOARD_MAX)
                base[others] = np.minimum(base[others], mine[others])
            else:
                others = np.zeros(ring.n, bool)
            # ...and about as bright as the brighter step position next to it, or as it was when
            # plain: a hand or an arm is smooth too, but darker (a lamp's gradient changes little
            # from step to step; a repository block by a step position is the board's own).
            level = vals[start - ring.n:start].mean(axis=1)
            ratio = level / np.maximum(np.maximum(np.roll(level, 1), np.roll(level, -1)), 1.0)
            seen = self._board_level.setdefault(ring.name, np.full(ring.n, -np.inf, np.float32))
            seen[others] = np.maximum(seen[others], ratio[others])  # at its brightest: no shadow on it
            bright = (ratio >= PAPER_LEVEL) | (np.isfinite(seen) & (ratio >= seen - LEVEL_SLACK))
            self._plain[ring.name] = bright & ((mine < CONTRAST_MIN) | (np.isfinite(base) & (mine <= base + BOARD_SLACK)))
        return out, why

    def _quick_step(self, grey: np.ndarray, H: Pose, ring: Ring, cands: np.ndarray, mine: np.ndarray,
                    half: float, up: int) -> int | None:
        """:func:`~vision.readers.drift_markers.quick_step` at this frame's step positions."""
        detector = self._base._quick_tags(H, up)
        return quick_step(ring, mine, CONTRAST_MIN, lambda k: self._tags_near(grey, H, cands[k], half, detector, up),
                          self._step_of)

    def _outline(self, reader: Reader, pose: Pose, i: int, height: float) -> np.ndarray:
        """The frame polygon a token on space ``i`` covers, ``height`` tall, its sticker
        (the tag's diagonal and 2 mm of white round it) overhanging a small piece."""
        s = reader.grid.spaces[i]
        r = max(reader._radius, (self.sheet.tag_mm * math.sqrt(2) + 4) / 2)
        return standing_hull(pose, (s.x, s.y), r, height, kept=True)

    def _strays_placed(self, reader: Reader, ring: Ring) -> bool:
        """Were the only troubles at the ring's step positions pieces' tags the reader placed
        on a space (a pile's top seen over the marker's place)?"""
        strays = self._strays.get(ring.name)
        if not strays or reader._pose is None:
            return False
        seen = [reader._pose.lift(np.asarray(c, np.float64)[None], h)[0] for c, h in reader._tops_seen]
        return all(any(math.hypot(*(p - c)) < 2.0 for p in seen) for c in strays)

    def _marker_behind(self, reader: Reader, reading: Reading, pose: Pose, k: int) -> int | None:
        """The step of ring ``k``, whose marker was not seen, when a piece in front hides it:
        exactly one of the ring's step positions lies behind a token read (a home's pile, at the
        start of every game, hides the marker behind it from a camera on the far side), every
        other step position is plain paper — no marker, no piece, nothing a marker could hide
        under — and nothing unread (a space unreadable or read occupied, as tall as it may be)
        reaches any of them. The ring has exactly one marker, so it is there. Anything else:
        None (the rotation stays unreadable)."""
        ring = self.annuli.rings[k]
        plain = self._plain.get(ring.name)
        if plain is None or pose.camera is None:
            return None
        solids, unknown = [], []
        for sid, toks in reading.view.items():
            if not toks or sid.startswith("rotation:"):
                continue
            i = reader.grid.index[sid]
            if OCCUPIED in toks or HIDDEN in toks:
                unknown.append(self._outline(reader, pose, i, float(reader._max_top[i])))
            else:  # (a river's arrows read at any whole step are where its pieces physically are)
                solids.append(self._outline(reader, pose, i, reader._top_of(i, toks)))
        steps = np.float32([self.annuli.marker_at(ring, step) for step in range(ring.n)])
        for sid in reading.why:
            i = reader.grid.index.get(sid)
            if i is not None and not sid.startswith("rotation:"):
                unknown.append(self._outline(reader, pose, i, float(reader._max_top[i])))
                s = reader.grid.spaces[i]
                if (np.hypot(steps[:, 0] - s.x, steps[:, 1] - s.y) < NEAR_UNREAD * self.sheet.pitch).any():
                    return None  # a hand (or glare) may lie over a step position too
        if not solids:
            return None
        half = self.sheet.tag_mm / 2
        grid = np.stack(np.meshgrid(np.linspace(-half, half, 7), np.linspace(-half, half, 7)), -1).reshape(-1, 2)
        covered = []
        for step in range(ring.n):
            px = pose.to_px(grid + np.float32(self.annuli.marker_at(ring, step)))  # the marker's square
            inside = np.zeros(len(px), bool)
            for poly in solids:
                inside |= inside_convex(px, poly)
            if inside.mean() >= 0.1:  # enough of it hidden that what shows cannot be decoded
                covered.append(step)
            elif any(inside_convex(px, poly).any() for poly in unknown):
                return None  # something not read (or hidden) may stand there: hide the marker, or be it
            elif not plain[step]:
                return None
        return covered[0] if len(covered) == 1 else None

    def _decodes_at(self, grey: np.ndarray, H: np.ndarray, ring: Ring, k: int, tag: int) -> bool:
        """Does the ring's marker ``tag`` lie at step position ``k`` (turned with the ring), read cell by
        cell at the place it must be (a sticker placed within 3 mm and 6 degrees)? Every one of
        its 16 inner cells must read as the marker's, each clearly, and its border dark."""
        pts, inner, border, paper = self._cell_points(ring, k)
        vals = sample(grey, H, pts)[:, 0].reshape(len(_POSES), -1)
        dark = vals[:, border].mean(axis=1)
        light = vals[:, paper].mean(axis=1)
        cells = vals[:, inner]
        contrast = light - dark
        mid = (light + dark)[:, None] / 2
        clear = (np.abs(cells - mid) >= CELL_MARGIN * contrast[:, None]).all(axis=1) & (contrast > CELL_CONTRAST)
        white = cells > mid
        expected = _marker_cells(tag)  # (4 turns, 16)
        match = (white[:, None, :] == expected[None]).all(axis=2).any(axis=1)
        return bool((match & clear & (vals[:, border].max(axis=1) < mid[:, 0])).any())

    def _cell_points(self, ring: Ring, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        key = (ring.name, k)
        cache = self._cells
        if key not in cache:
            cell = self.sheet.tag_mm / 6
            centre = np.float32(self.annuli.marker_at(ring, k))
            grid = (np.arange(6) - 2.5) * cell
            gx, gy = np.meshgrid(grid, grid)
            local = np.stack([gx.ravel(), gy.ravel()], 1)  # 36 cell centres, row by row
            ring_pts = np.float32([(math.cos(a), math.sin(a)) for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)])
            # The sticker's paper: round the marker, between its corners and the sticker's edge.
            local = np.concatenate([local, ring_pts * (self.sheet.tag_mm * math.sqrt(2) / 2 + 1.0)])
            pts = []
            for dx, dy, turn in _POSES:
                a = math.radians(ring.angle(k) + turn)
                rot = np.float32([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
                pts.append(local @ rot.T + centre + np.float32([dx, dy]))
            idx = np.arange(36).reshape(6, 6)
            inner = idx[1:5, 1:5].ravel()
            border = np.concatenate([idx[0], idx[5], idx[1:5, 0], idx[1:5, 5]])
            cache[key] = (np.concatenate(pts).astype(np.float32), inner, border, np.arange(36, 52))
        return cache[key]

    def _tags_near(self, grey: np.ndarray, H: Pose, c: np.ndarray, half: float, detector: object,
                   upscale: int = 1) -> list[tuple[int, np.ndarray]]:
        quad = np.float32([[(c[0] - half, c[1] - half), (c[0] + half, c[1] - half),
                            (c[0] + half, c[1] + half), (c[0] - half, c[1] + half)]])
        px = H.kept(("near", float(c[0]), float(c[1]), half), lambda: H.to_px(quad.reshape(-1, 2)).astype(np.float32))
        found = detect_in(detector, grey, px, upscale, self._base.min_outline_px(H))
        return [(tag, H.to_mm(corners).astype(np.float32)) for tag, corners in found]

    def _step_of(self, ring: Ring, tag: int, mm: np.ndarray) -> tuple[int, str]:
        """The rotation a marker seen at ``mm`` (its corners, sheet mm) stands for, or why not."""
        if tag not in ring.tags:
            return 0, not_its_marker(tag, ring.name)
        sides = np.linalg.norm(mm - np.roll(mm, -1, axis=0), axis=1)
        if not (0.7 * self.sheet.tag_mm <= sides.mean() <= 1.35 * self.sheet.tag_mm) or sides.max() > 1.4 * sides.min():
            return 0, marker_size(ring.name)
        cx, cy = mm.mean(axis=0)
        dx, dy = cx - self.annuli.centre[0], cy - self.annuli.centre[1]
        if abs(math.hypot(dx, dy) - ring.marker_radius) > 0.25 * self.sheet.tag_mm:
            return 0, marker_off(ring.name)
        angle = math.degrees(math.atan2(dx, -dy)) % 360.0
        steps = angle / ring.step * ring.sign
        k = round(steps)
        if abs(steps - k) > STEP_SLACK:
            return 0, mid_turn(ring.name)
        return ring.rotation_of(tag, int(k)), ""


PAPER_LEVEL = 0.85  # a plain step position is at least this bright against its brighter neighbour
LEVEL_SLACK = 0.08  # ...or at most this much darker (against it) than it was seen plain at best
NEAR_UNREAD = 1.5  # pitches from an unreadable space within which no step position is judged plain
CELL_MARGIN = 0.15  # a cell read by the ring-marker check must lie this share of the contrast from the middle
CELL_CONTRAST = 25.0  # grey levels between the marker's border and its sticker, at least
_POSES = [(dx, dy, turn) for dx in (-3.0, -1.5, 0.0, 1.5, 3.0) for dy in (-3.0, -1.5, 0.0, 1.5, 3.0)
          for turn in (-6.0, 0.0, 6.0)]


@functools.cache
def _marker_cells(tag: int) -> np.ndarray:
    """The marker's 16 inner cells (True: white), row by row, for each of its four turns."""
    img = marker_image(tag, 60)
    cells = np.array([[img[10 * r + 5, 10 * c + 5] > 127 for c in range(1, 5)] for r in range(1, 5)])
    return np.stack([np.rot90(cells, t).ravel() for t in range(4)])
