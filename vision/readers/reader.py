"""Per-space reading: every space gets a reading or "unreadable" — never a guess.

The :class:`Calibration` holds what the empty board looks like at every sample point (the
darkest and brightest value within a millimetre, so a slightly shifted lock or a printed
line is not mistaken for a piece) and, for colour-read games, each piece colour learned
from known positions. :class:`Reader` then reads a frame through the lock's homography:

1. the light near each space, from bare-paper probes, so the frame is compared with the
   empty board under the same light;
2. each space's *body*: the share of points the empty board cannot explain. Below 3 %
   the space is empty — unless the light there is uncertain (glare, a shadow, a hand over
   the probes) or the pixels are clipped, which makes it unreadable;
3. tag games: ArUco tags looked for only round spaces that are not empty; a tag of this
   game's table, of the printed size, centred on a space, is that space's piece. Anything
   not empty and not explained by exactly one tag is unreadable;
4. colour games: the core's pixels must nearly all (≥ 75 %) match one learned colour and
   almost none (≤ 5 %) another; an Annelids tail also needs one clearly dark end, which
   gives its heading. Otherwise unreadable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from rules.view import OCCUPIED, Fidelity, View

from vision.pieces.pieceset import PieceSet
from vision.read.empty_board import Calibration, CalibrationError
from vision.read.lens import Lens
from vision.read.lock import detect_all, make_sized_detector, make_thorough_detector
from vision.read.pose import Pose, as_pose, pose_from_homography
from vision.read.scale import WRONG_BELOW_PX_PER_MM, space_px_per_mm
from vision.read.samples import SampleGrid, covers_pairs, segment_distance, within_pairs
from vision.read.sampling import (
    SATURATED, any_channel, default_pieceset, group_share, light_gains, merge_boxes, probe_values, remap_px, row_mean,
    scaled_to, tag_sides,
)
from vision.sheets import layout

from .colour_reading import ColourReading
from .occlusion import EMPTY_MAX, Occlusion
from .reasons import GLARE, OFF_SPACE, TAGS_UNREAD, TOO_SMALL, TWO_TAGS, UNEVEN_LIGHT, UNNAMED, foreign_tag
from .tag_reading import first_look, look_budget, second_looks

AREA_EMPTY_MAX = 0.004  # the same for an area (a reserve): a piece is a small part of it
LIGHT_SPREAD = 0.25  # share of disturbed probes near a space beyond which its light is unsure
SHADOW_SPREAD = 0.75  # ... counting probes only darkened (a shadow), beyond which it is unsure all the same
GLARE_MAX = 0.01  # share of a space's body clipped (glare) beyond which its light is unsure
# ... and at least this many of its body's points: glare is a highlight over an area, whereas
# paper exposed near white (its 80th percentile at 240) clips a lone point here and there in
# the sensor's noise — one point is already 1.3 % of an Annelids edge's 75.
GLARE_POINTS = 3
OWN_LIGHT_MAX = 28.0  # mm: a piece's own light measured round rings this tall (a taller pile's band would hide an arm)
TOLERANCE = 28.0  # grey levels beyond the empty board's own range before a point is foreign
CAST_TOLERANCE = 24.0  # grey levels of colour cast beyond the empty board's before a point is foreign
SECOND_LOOK_MAX = 3  # spaces given the slower second look for a tag, per read


@dataclass(frozen=True)
class Reading:
    """What one frame showed: the view of the spaces read, and the spaces that were not."""

    view: View
    unreadable: frozenset[str]
    why: Mapping[str, str] = field(default_factory=dict)  # unreadable space → reason, for diagnostics

    @property
    def complete(self) -> bool:
        return not self.unreadable



def light_unsure(harsh: np.ndarray, spread: np.ndarray, clipped: np.ndarray) -> np.ndarray:
    """Spaces whose light is unsure: probes a piece's shadow darkens (the paper only darker,
    no cast) do not make it so; a hand, an arm or glare (brighter, or another colour) does."""
    return (harsh > LIGHT_SPREAD) | (spread > SHADOW_SPREAD) | (clipped > GLARE_MAX)


class Reader(Occlusion, ColourReading):
    """Reads a locked frame space by space (see the module docstring).

    DRIFT's reader (``vision/readers/drift_reader.py``) sets the class knobs below: its spaces may
    hold two tokens side by side (a piece and a coin), so tags are looked for further out and
    every point space is judged like an area (each foreign point on a tag that was read)."""

    stacks = False  # point spaces may hold several tagged tokens side by side
    # Tags are looked for this many piece radii round a space: a piece put down up to 15 % of the
    # pitch off its space's centre (0.375 radii: a radius is 0.4 of the pitch), its sticker's
    # corner 0.85 radii further out (a tag is 1.2 radii wide) and the cell of white round the
    # tag that the detector needs to see its outline (0.2 radii). At 1.15 a ring put down off
    # centre had its tag cut at the crop's edge and left unread (path-traced wide-lens frames).
    scan_reach = 1.45
    on_space = 0.3  # a tag further than this many pitches from its space is off it
    own_light = 1.0  # round a piece found, paper this many of its heights wide lies in its own light
    speck = 0.5  # a tag seen smaller than this share of a sticker is noise (see _seen_tags)
    ignored_tags: frozenset[int] = frozenset()  # ids read elsewhere (DRIFT's ring markers)

    # A piece seen but not named is read OCCUPIED, and shadowed paper by a piece read empty (DRIFT:
    # spaces hold two tokens, and its silver coins and grey pieces look like shadowed paper).
    names_unread = True
    shadow_is_paper = True  # DRIFT: False (its silver coins and grey pieces look like shadowed paper)
    empty_needs_calm = False  # DRIFT: True (a space read empty on excused foreign only under a calm light)
    unnamed_read: tuple[str, ...] = (OCCUPIED,)  # DRIFT: (OCCUPIED, MORE), a space may hold two or a pile
    heights = True  # tags looked for where the pieces' tops are
    second_looks = SECOND_LOOK_MAX  # spaces given the slower second look, per read

    def __init__(self, grid: SampleGrid, calibration: Calibration, fidelity: Fidelity = Fidelity.KIND, *,
                 lens: Lens | None = None, pieceset: PieceSet | None = None) -> None:
        if calibration.game != grid.sheet.game:
            raise CalibrationError(f"calibration is for {calibration.game!r}, the board is {grid.sheet.game!r}")
        if calibration.mode == "colour" and not calibration.classes:
            raise CalibrationError(f"{grid.sheet.game}: colour reading needs the piece colours calibrated "
                                   "(learn_colours on a position showing every kind of piece)")
        self.grid = grid
        self.cal = calibration
        self.fidelity = fidelity
        self.sheet = grid.sheet
        self._sized_detectors: dict[int, object] = {}
        self._dictionary = layout.TAG_DICTIONARY.get(self.sheet.game)  # None: the corner markers' own
        self._thorough = make_thorough_detector(self._dictionary)
        self._tags = layout.tag_tokens(self.sheet.game)
        self._points = np.array([(s.x, s.y) for s in grid.spaces], np.float32)
        self._point_ids = np.flatnonzero(~grid.is_area & ~grid.is_edge)
        self._init_colours()
        slack = TOLERANCE + 0.3 * (calibration.hi - calibration.lo)
        self._lo_limit = (calibration.lo - slack).astype(np.float32)
        self._hi_limit = (calibration.hi + slack).astype(np.float32)
        self._mid = ((calibration.lo + calibration.hi) / 2).astype(np.float32)
        self.lens = lens
        self.pieceset = pieceset or default_pieceset(grid.sheet.game)
        self._poses: dict[tuple[bytes, tuple[int, int]], Pose] = {}
        self._pose: Pose | None = None  # the frame being read's
        self._shadow_pt = np.zeros(0, bool)  # the frame being read's shadow-like body points
        self._deep_pt = np.zeros(0, bool)  # ... and its grey ones darker than a shadow is taken to be
        self._body_px = np.zeros((0, 2), np.float32)  # ... and its body points in the frame
        self._tops_seen: list[tuple[np.ndarray, float]] = []  # the frame's tags: centre mm, height found
        self._K: dict[tuple[int, int], np.ndarray] = {}
        self._ref = np.concatenate([self.sheet.marker_corners()[i] for i in layout.CORNER_IDS])
        kinds = {s.id: s.kind for s in self.sheet.board.spaces}
        ps = self.pieceset
        # Where the top of whatever stands on each space may be (mm above the board).
        self._tops = [ps.top_heights(kinds.get(s.id)) if ps else (0.0,) for s in grid.spaces]
        self._max_top = np.array([max(t) for t in self._tops], np.float32)
        stack_kinds = {st.space_kind for st in ps.stacks} if ps else set()
        self._stacked = frozenset(i for i, s in enumerate(grid.spaces) if kinds.get(s.id) in stack_kinds)
        self._radius = max((p.radius_mm for p in ps.pieces), default=self.sheet.piece_radius) if ps else \
            self.sheet.piece_radius

    def pose(self, frame: np.ndarray, H: "np.ndarray | Pose") -> Pose:
        """The camera's pose for a frame locked by ``H`` (a homography: the pose behind it,
        through this reader's lens; cached, the lock's H changes little)."""
        if isinstance(H, Pose):
            return H
        size = (frame.shape[1], frame.shape[0])
        key = (np.asarray(H, np.float64).tobytes(), size)
        pose = self._poses.get(key)
        if pose is None:
            if len(self._poses) > 8:
                self._poses.clear()
            # The focal length, estimated once (from the first lock) when there is no lens file:
            # it does not change, and estimating it per frame would let the parallax wobble.
            pose = self._poses[key] = pose_from_homography(H, self._ref, size, self.lens, self._K.get(size))
            if pose.K is not None and self.lens is None:
                self._K.setdefault(size, pose.K)
        return pose

    def read(self, frame: np.ndarray, H: "np.ndarray | Pose", grey: np.ndarray | None = None) -> Reading:
        """Read every space of ``frame`` locked by ``H`` (the lock's homography, or a
        :class:`~vision.read.pose.Pose`); ``grey`` is the frame in grey when the caller has it
        already (a 1080p conversion costs a millisecond or two)."""
        g = self.grid
        main = getattr(frame, "main", None)
        if main is not None:  # a watch-stream frame: read from the full-resolution one
            H, frame, grey = scaled_to(H, frame, main), np.asarray(main), None
        pose = self.pose(frame, H)
        if not self.heights:
            pose = Pose(pose.H, pose.lens)  # the lens still, no parallax
        self._pose = pose
        self._tops_seen = []
        self._probe_values = probe_values(g, frame, pose)  # the probes sampled once, the light judged up to four times
        gains, spread, harsh = light_gains(g, self.cal, frame, pose, values=self._probe_values)
        body_px = self._body_px = pose.kept(("body", id(g)), lambda: pose.to_px(g.body.mm), of=g)
        body = remap_px(frame, body_px)
        counts = np.maximum(g.body.counts, 1)
        starts = g.body.start[:-1]
        empty_max = np.where(g.is_area, AREA_EMPTY_MAX, EMPTY_MAX)
        v, dark_pt, cast_pt, foreign_pt = self._foreign(body, gains)
        foreign = group_share(foreign_pt, starts, counts)
        hide = np.zeros(len(g.probes), bool)
        if pose.camera is not None and (harsh > LIGHT_SPREAD).any():
            # A standing piece's side and top cover bare paper round its space (the probes):
            # the light is judged again without the probes a piece seen may cover.
            hide = self._probes_under(pose, np.flatnonzero((foreign > empty_max) & ~g.is_area))
            if hide.any():
                # Fewer probes left to count make one disturbed probe weigh more: the light is
                # unsure only where it is so counted either way (a hand disturbs both counts).
                gains, spread2, harsh2 = light_gains(g, self.cal, frame, pose, ignore=hide, values=self._probe_values)
                spread, harsh = np.minimum(spread, spread2), np.minimum(harsh, harsh2)
                v, dark_pt, cast_pt, foreign_pt = self._foreign(body, gains)
                foreign = group_share(foreign_pt, starts, counts)
        clipped_pt = any_channel(body >= SATURATED)
        clipped = group_share(clipped_pt, starts, counts)
        clipped = np.where(clipped * counts >= GLARE_POINTS - 0.5, clipped, 0.0)  # lone points: noise
        unsure = light_unsure(harsh, spread, clipped)
        tokens: dict[str, list[str]] = {}
        why: dict[str, str] = {}
        # An area is large: one piece there is a small share of it, so any cluster counts.
        busy = np.flatnonzero(foreign > empty_max)
        shadowy = self._shadow_pt = self._shadowy(v, dark_pt, cast_pt)
        if self.cal.mode == "tags":
            self._read_tags(frame if grey is None else grey, pose, busy, foreign_pt, tokens, why)
            more = self._probes_found(pose) & ~hide if unsure.any() else None
            if more is not None and more.any():
                # A piece put down off its space's centre (a hand does, by up to 15 % of the
                # pitch) covers probes the guess above, round the centre, left counted: the
                # light is judged once more without the probes round where the tags were found
                # (whenever it is unsure anywhere: the model, fitted to the whole board, moves).
                gains, spread2, harsh2 = light_gains(g, self.cal, frame, pose, ignore=hide | more,
                                                     values=self._probe_values)
                spread, harsh = np.minimum(spread, spread2), np.minimum(harsh, harsh2)
                v, dark_pt, cast_pt, foreign_pt = self._foreign(body, gains)
                foreign = group_share(foreign_pt, starts, counts)
                unsure = light_unsure(harsh, spread, clipped)
                shadowy = self._shadow_pt = self._shadowy(v, dark_pt, cast_pt)
        else:
            self._read_colours(frame, pose, busy, gains, foreign_pt, tokens, why, unsure, clipped)
        # A hand, an arm or glare near (not shadows): with DRIFT's long excuses (a pile's shadow
        # reaches two spaces), a space read empty though much of it is foreign is not read empty
        # there — an arm's shadow over a coin looked like a pile's.
        handy = ((harsh > LIGHT_SPREAD) | (clipped > GLARE_MAX)) if self.empty_needs_calm else np.zeros(len(g.spaces), bool)
        for i, s in enumerate(g.spaces):
            if s.id in why or s.id in tokens and (tokens[s.id] or foreign[i] <= empty_max[i] or not handy[i]):
                continue
            tokens.pop(s.id, None)
            if unsure[i]:
                why[s.id] = GLARE if clipped[i] > GLARE_MAX else UNEVEN_LIGHT
            elif foreign[i] > empty_max[i]:
                why[s.id] = UNNAMED
        # A piece is named "occupied" only where the paper round it is as calm as the model of
        # the light says (a hand or an arm over the board disturbs the probes near it).
        calm = self._calm(frame, pose, ~unsure & (spread == 0), unsure, foreign_pt, tokens, why)
        self._settle(pose, body_px, foreign_pt, shadowy, ~calm, tokens, why)
        for i in np.flatnonzero(self._too_small(pose)):
            why.setdefault(g.spaces[i].id, TOO_SMALL)
        view = View({s: t for s, t in tokens.items() if s not in why})
        if self.fidelity is Fidelity.OCCUPANCY:
            view = view.at_fidelity(Fidelity.OCCUPANCY)
        return Reading(view, frozenset(why), why)

    def _too_small(self, pose: Pose) -> np.ndarray:
        """Spaces too few pixels a millimetre for this game's reader to be trusted there
        (vision/read/scale.py: below it such a space was measured read wrong)."""
        g = self.grid
        least = WRONG_BELOW_PX_PER_MM.get(g.sheet.game)
        if least is None:
            return np.zeros(len(g.spaces), bool)
        scale = pose.kept(("space px/mm", id(g)),
                          lambda: space_px_per_mm(pose, np.float64([(s.x, s.y) for s in g.spaces])), of=g)
        return scale < least

    def _foreign(self, body: np.ndarray, gains: np.ndarray) -> tuple[np.ndarray, ...]:
        """Body points in the light ``gains`` model: the values, and which are darker than the
        empty board, which show a colour cast, which are foreign at all."""
        v = body / np.repeat(gains, self.grid.body.counts, axis=0)
        # Ink and paper are grey: a coloured piece shows as a colour cast even where its
        # brightness lies between the two (an orange bar over a printed line).
        cast = v - row_mean(v) - self.cal.tint
        cast_pt = any_channel(np.abs(cast) > CAST_TOLERANCE)
        dark_pt = any_channel(v < self._lo_limit)
        return v, dark_pt, cast_pt, dark_pt | any_channel(v > self._hi_limit) | cast_pt

    def _probes_under(self, pose: Pose, spaces: np.ndarray) -> np.ndarray:
        """Probes a piece standing on any of ``spaces`` may cover in the frame: those in a box
        round the space as wide as the piece may reach, and within it its outline (every
        space's probes at once, each with the arithmetic of :meth:`covers`)."""
        probes = self.grid.probes
        hide = np.zeros(len(probes), bool)
        spaces = [int(i) for i in spaces]
        if not spaces or not len(probes):
            return hide
        reach = self._radius + 6.0  # its footprint, the lens blur and JPEG's colour bleed
        xs = np.array([self.grid.spaces[i].x for i in spaces])
        ys = np.array([self.grid.spaces[i].y for i in spaces])
        # (A space's centre is a float against the probes' float32, as the space alone was.)
        box = np.array([reach + self._max_top[i] for i in spaces])[:, None]
        near = (np.abs(probes[None, :, 0] - xs.astype(probes.dtype)[:, None]) < box) \
            & (np.abs(probes[None, :, 1] - ys.astype(probes.dtype)[:, None]) < box)
        which, k = np.nonzero(near)
        if not len(k):
            return hide
        centres = np.stack([xs, ys], axis=1)
        tops = np.array([self.top_seen(c, float(self._max_top[i])) for c, i in zip(centres, spaces)], np.float64)
        hit = covers_pairs(probes, k, centres[which], tops[which], np.full(len(k), reach, np.float64))
        hide[k[hit]] = True
        return hide

    def _probes_found(self, pose: Pose) -> np.ndarray:
        """Probes the pieces whose tags were found may cover, standing where they were found,
        and those in the light they throw round them (``own_light``). (Each token where its tag
        was found: DRIFT's too, whose spaces are judged by its own rules of where tokens lie.)"""
        probes = self.grid.probes
        if pose.camera is None:
            return np.zeros(len(probes), bool)
        reach = self._radius + 6.0
        # and a band as wide as the piece is tall round it, where its own light falls: its
        # shadow, and the lamp or window its side reflects (a metal ring's: paper 10-15 %
        # brighter 10-16 mm beyond a 20 mm ring, on the path-traced bench); all at once
        tops = [(np.asarray(c, np.float64), float(h)) for c, h in self._tops_seen]
        return self.covers_any(probes, [c for c, _ in tops], [self.top_seen(c, h) for c, h in tops],
                               [reach + self.own_light * min(h, OWN_LIGHT_MAX) for _, h in tops])

    # -- tags -----------------------------------------------------------------------------

    def _read_tags(self, frame: np.ndarray, H: Pose, busy: np.ndarray, foreign_pt: np.ndarray,
                   tokens: dict[str, list[str]], why: dict[str, str]) -> None:
        if len(busy) == 0:
            return
        grey = frame  # crops are turned grey one by one (a large read stream is never converted whole)
        found: list[tuple[int, np.ndarray]] = []
        detector, upscale = first_look(self, H)  # small tags enlarged (vision/readers/tag_reading.py)
        self._scan(grey, H, [int(i) for i in busy], detector, found, upscale=upscale)
        out_tokens, out_why = self._judge_tags(busy, found, foreign_pt)
        # A second, slower look only where a piece is seen but not (all) its tags — and only
        # for a few: many such spaces mean a hand or glare, and the next still frame will do.
        again = [int(i) for i in busy if self.grid.spaces[i].id in out_why]
        if again:
            explained = self.nothing_of_its_own(H, self._body_px, foreign_pt, self._shadow_pt, out_tokens, again)
            again = [i for i in again if i not in explained]
        if 0 < len(again) <= look_budget(self, H):
            for detector, upscale in second_looks(self, self._cell_px(H)):
                self._scan(grey, H, again, detector, found, upscale=upscale)
                out_tokens, out_why = self._judge_tags(busy, found, foreign_pt)
                again = [i for i in again if self.grid.spaces[i].id in out_why]
                if not again:
                    break
        tokens.update(out_tokens)
        why.update(out_why)

    def _cell_px(self, H: "np.ndarray | Pose") -> float:
        """A tag's cell in frame pixels, at the sheet's centre."""
        c = np.float32([(self.sheet.size[0] / 2, self.sheet.size[1] / 2)])
        pose = as_pose(H)
        ends = pose.kept(("tag ends", self.sheet.tag_mm, *c[0]),
                         lambda: pose.to_px(np.concatenate([c, c + [[self.sheet.tag_mm, 0]]])))
        return float(np.linalg.norm(ends[1] - ends[0])) / 6

    def _sized(self, H: "np.ndarray | Pose") -> object:
        """A one-pass detector for the tags' size in this frame (cached per window size)."""
        cell = self._cell_px(H)
        window = int(np.clip(round(2.5 * cell), 7, 31)) | 1
        if window not in self._sized_detectors:
            self._sized_detectors[window] = make_sized_detector(window, self._dictionary)
        return self._sized_detectors[window]

    def _scan_quad(self, i: int) -> list[tuple[float, float]]:
        """The sheet region round space ``i`` where its tags may lie."""
        s = self.grid.spaces[i]
        # The pieces keep their own size on a board of smaller pitch (an own board, a compact print).
        r = max(self.sheet.piece_radius, self._radius) * self.scan_reach
        if s.kind == "area":
            x, y, w, h = s.rect  # type: ignore[misc]
            return [(x - r, y - r), (x + w + r, y - r), (x + w + r, y + h + r), (x - r, y + h + r)]
        return [(s.x - r, s.y - r), (s.x + r, s.y - r), (s.x + r, s.y + r), (s.x - r, s.y + r)]

    def _scan(self, grey: np.ndarray, H: Pose, spaces: list[int], detector: object,
              found: list[tuple[int, np.ndarray]], upscale: int = 1,
              crops: dict[tuple[int, ...], np.ndarray] | None = None) -> None:
        """Tags in the frame round ``spaces``, added to ``found`` (sheet mm corners under the
        tag, at the height of the piece it is on). Each crop spans where the tops of the
        pieces a space may hold appear, from the board up to the tallest. The spaces' crops are
        merged where that costs no extra pixels: neighbours' crops overlap, and each detector
        call has its own fixed cost. ``crops``: the grey, enlarged crops of this frame cut so
        far (box and enlargement), kept for further looks at the same place."""
        if not spaces:
            return
        quads = np.float32([self._scan_quad(i) for i in spaces]).reshape(-1, 2)
        tops = np.repeat(self._max_top[spaces], 4)
        px = np.concatenate([H.to_px(quads).reshape(len(spaces), 4, 2),
                             H.to_px(quads, tops).reshape(len(spaces), 4, 2)], axis=1)
        lo, hi = np.floor(px.min(axis=1)), np.ceil(px.max(axis=1)) + 1
        limit = (grey.shape[1], grey.shape[0])
        boxes = [(max(int(a[0]), 0), max(int(a[1]), 0), min(int(b[0]), limit[0]), min(int(b[1]), limit[1]))
                 for a, b in zip(lo, hi)]
        centres = [c.mean(axis=0) for _, c in found]
        for x0, y0, x1, y1 in merge_boxes(boxes):
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            crop = None if crops is None else crops.get((x0, y0, x1, y1, upscale))
            if crop is None:
                crop = grey[y0:y1, x0:x1]
                if crop.ndim == 3:
                    crop = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
                if upscale > 1:
                    crop = cv2.resize(crop, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
                if crops is not None:
                    crops[(x0, y0, x1, y1, upscale)] = crop
            for tag, corners in self._detect(detector, crop, H, upscale):
                corners = (corners + 0.5) / upscale - 0.5 + np.float32([x0, y0])  # pixel centres
                mm = self._locate(H, tag, corners)
                centre = mm.mean(axis=0)
                # Two detectors may look: one tag seen twice is one tag.
                if not any(t == tag and math.hypot(*(c - centre)) < self.sheet.tag_mm / 2
                           for (t, _), c in zip(found, centres)):
                    found.append((tag, mm))
                    centres.append(centre)

    def _detect(self, detector: object, crop: np.ndarray, H: Pose, upscale: int) -> list[tuple[int, np.ndarray]]:
        """The tags in one crop of :meth:`_scan` (``upscale``: how much it was enlarged)."""
        return detect_all(detector, crop)  # type: ignore[arg-type]

    def _locate(self, pose: Pose, tag: int, corners: np.ndarray) -> np.ndarray:
        """A tag's corners (frame px) → sheet mm under it. The tag is on top of its piece: of
        the heights the piece may stand at (its token's; an unknown tag, any piece's), the one
        that puts it on a space that allows that height, nearest that space's centre — so a
        tall piece's tag, seen far from its space's centre in the board's plane, is its own
        space's and never the neighbour's it overlaps."""
        if pose.camera is None or self.pieceset is None:
            return pose.to_mm(corners).astype(np.float32)
        token = self._tags.get(tag)
        heights = self._token_tops(token)
        plane = pose.to_mm(corners)  # on the board's plane; each height drops it towards the camera's foot
        hs = np.asarray(heights, np.float64)
        cs = pose.drop(np.repeat(plane.mean(axis=0, keepdims=True), len(hs), axis=0), hs)  # (n_heights, 2)
        d = np.hypot(self._points[None, :, 0] - cs[:, None, 0], self._points[None, :, 1] - cs[:, None, 1])
        best, best_d = 0.0, math.inf
        for k, h in enumerate(heights):
            for i in np.argpartition(d[k], min(2, len(self._points) - 1))[:3]:
                if d[k, i] < best_d and (h == 0 or any(abs(h - t) < 0.05 for t in self._tops[int(i)])):
                    best, best_d = h, float(d[k, i])
        out = (pose.drop(plane, best) if best else plane).astype(np.float32)
        self._tops_seen.append((out.mean(axis=0), best))
        return out

    def covers(self, pts: np.ndarray, c: np.ndarray, reach: float, height: float) -> np.ndarray:
        """Which board-plane points ``pts`` a piece standing at ``c``, ``height`` mm tall, may
        cover in the frame: within ``reach`` of the stretch from its base to where its top is
        seen on the board's plane."""
        return self.covers_to(pts, c, self.top_seen(c, height), reach)

    def top_seen(self, c: np.ndarray, height: float) -> np.ndarray:
        """Where the top of a piece standing at ``c``, ``height`` mm tall, is seen on the board's plane."""
        pose = self._pose
        if pose is None or pose.camera is None or height <= 0:
            return np.asarray(c, np.float64)
        return pose.lift(np.asarray(c, np.float64)[None], height)[0]

    @staticmethod
    def covers_any(pts: np.ndarray, cs: list[np.ndarray], tops: list[np.ndarray], reaches: list[float]) -> np.ndarray:
        """Which of ``pts`` any of several pieces may cover: :meth:`covers_to` of each piece
        (its place, where its top is seen, its reach), or-ed, worked out for all at once."""
        n = len(pts)
        out = np.zeros(n, bool)
        if not cs or not n:
            return out
        c = np.asarray(cs).astype(np.float64)  # exact from float32 or float64, as float(c[0]) was
        top = np.asarray(tops, np.float64)
        reach = np.asarray(reaches, np.float64)
        lo, hi = np.minimum(c, top) - reach[:, None], np.maximum(c, top) + reach[:, None]
        px, py = pts[:, 0].astype(np.float64), pts[:, 1].astype(np.float64)  # (exact)
        box = (px >= lo[:, 0, None]) & (px <= hi[:, 0, None]) & (py >= lo[:, 1, None]) & (py <= hi[:, 1, None])
        piece, k = np.nonzero(box)  # (piece, point) pairs in the piece's box: only they are measured
        if len(k):
            out[k[within_pairs(pts[k], c[piece], top[piece], reach[piece], pts.dtype)]] = True
        return out

    def covers_to(self, pts: np.ndarray, c: np.ndarray, top: np.ndarray, reach: float) -> np.ndarray:
        """:meth:`covers` with the piece's top (:meth:`top_seen`) given: a reader judging many
        spaces against the same pieces lifts each piece once."""
        out = np.zeros(len(pts), bool)
        lo = np.minimum(c, top) - reach
        hi = np.maximum(c, top) + reach
        near = np.flatnonzero((pts[:, 0] >= lo[0]) & (pts[:, 0] <= hi[0]) & (pts[:, 1] >= lo[1]) & (pts[:, 1] <= hi[1]))
        if len(near):
            out[near] = segment_distance(pts[near], (float(c[0]), float(c[1])), (float(top[0]), float(top[1]))) <= reach
        return out

    def _token_height(self, token: str) -> float:
        try:
            return self.pieceset.height(token) if self.pieceset is not None else 0.0
        except KeyError:
            return float(self._max_top.max())

    def _token_tops(self, token: str | None) -> tuple[float, ...]:
        cache = self.__dict__.setdefault("_token_tops_cache", {})
        if token not in cache:
            ps = self.pieceset
            try:
                kinds = {s.kind for s in self.sheet.board.spaces}
                tops = {h for k in kinds for h in ps.top_heights(k, token)} if token is not None else \
                    {h for t in self._tops for h in t}
            except KeyError:
                tops = {h for t in self._tops for h in t}
            # A flat token (a sticker on card, a set's pieces laid down) is seen where it lies.
            cache[token] = tuple(sorted(tops | {0.0}))
        return cache[token]

    def _judge_tags(self, busy: np.ndarray, found: list[tuple[int, np.ndarray]],
                    foreign_pt: np.ndarray) -> tuple[dict[str, list[str]], dict[str, str]]:
        g, sheet = self.grid, self.sheet
        tokens: dict[str, list[str]] = {}
        why: dict[str, str] = {}
        placed: dict[int, list[tuple[str, np.ndarray]]] = {}
        kept, corners, sides = self._seen_tags(found)
        if kept:
            centres = corners.mean(axis=1)
            sized = (sides.mean(axis=1) >= 0.7 * sheet.tag_mm) & (sides.mean(axis=1) <= 1.35 * sheet.tag_mm) \
                & (sides.max(axis=1) <= 1.4 * sides.min(axis=1))
            targets, off = self._place_all(centres)
            for k, (tag, _) in enumerate(kept):
                target = int(targets[k])
                if target < 0:
                    continue
                token = self._tags.get(tag)
                if token is None or not sized[k]:
                    why[g.spaces[target].id] = foreign_tag(tag)
                elif off[k]:
                    why[g.spaces[target].id] = OFF_SPACE
                else:
                    placed.setdefault(target, []).append((token, centres[k]))
        busy_set = set(int(i) for i in busy)
        for i in busy_set | set(placed):
            s = g.spaces[i]
            got = placed.get(i, [])
            if s.id in why:
                continue
            if s.kind == "area" or (self.stacks and got):
                if i in busy_set:
                    self._area(i, got, foreign_pt, tokens, why)
                else:
                    tokens[s.id] = [t for t, _ in got]
            elif len(got) == 1:
                tokens[s.id] = [got[0][0]]
            elif len(got) > 1:
                why[s.id] = TWO_TAGS
            else:
                why[s.id] = UNNAMED
        return tokens, why

    def _seen_tags(self, found: list[tuple[int, np.ndarray]]) -> tuple[list[tuple[int, np.ndarray]], np.ndarray, np.ndarray]:
        """Of ``found``, the tags judged: not ignored, and not a speck — a detection under half a
        sticker's size wherever it lies (its corners are placed at the height of a piece, which
        makes a tag larger, never smaller): a pattern in noise or print that passed the bit
        check, dropped so its space is judged by its probes (on path-traced frames: "tag 17" of
        1-3 mm sides beside a corner space, "tag 37" of 3-5 mm; a real sticker reads 0.9-1.1 of
        its size). With their corners (K, 4, 2 sheet mm) and sides (K, 4)."""
        kept = [(tag, mm) for tag, mm in found if tag not in self.ignored_tags]
        corners = np.stack([mm for _, mm in kept]) if kept else np.zeros((0, 4, 2), np.float32)
        sides = tag_sides(corners)
        seen = sides.mean(axis=1) >= self.speck * self.sheet.tag_mm
        return [t for t, k in zip(kept, seen) if k], corners[seen], sides[seen]

    def _place_all(self, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The space each tag centred at ``centres`` (K×2 sheet mm) belongs to (-1: near none),
        and whether it lies off that space."""
        k = len(centres)
        targets, off = np.full(k, -1, int), np.zeros(k, bool)
        if len(self._point_ids):
            d = np.hypot(self._points[self._point_ids][None, :, 0] - centres[:, None, 0],
                         self._points[self._point_ids][None, :, 1] - centres[:, None, 1])
            near = np.argmin(d, axis=1)
            dist = d[np.arange(k), near]
            pitch = self.sheet.pitch
            ok = dist <= 0.7 * pitch
            targets[ok] = self._point_ids[near[ok]]
            off[ok] = dist[ok] > self.on_space * pitch
        for i in np.flatnonzero(self.grid.is_area)[::-1]:  # an area claims its own (the first area wins)
            x, y, w, h = self.grid.spaces[i].rect  # type: ignore[misc]
            inside = (centres[:, 0] >= x - 2) & (centres[:, 0] <= x + w + 2) \
                & (centres[:, 1] >= y - 2) & (centres[:, 1] <= y + h + 2)
            targets[inside], off[inside] = int(i), False
        return targets, off

    def _area(self, i: int, got: list[tuple[str, np.ndarray]], foreign_pt: np.ndarray,
              tokens: dict[str, list[str]], why: dict[str, str]) -> None:
        """An area holds many pieces: every foreign point must lie on a piece whose tag was read."""
        sl = self.grid.body.of(i)
        pts, fg = self.grid.body.mm[sl], foreign_pt[sl]
        explained = np.zeros(len(pts), bool)
        shade = np.zeros(len(pts), bool)
        for t, c in got:
            h = self._token_height(t)
            # Its edge blurred by the lens and JPEG by a few mm at the camera's scale.
            explained |= self.covers(pts, c, self.sheet.piece_radius * 1.15 + (3.0 if h > 0 else 0.0), h)
            shade |= self.covers(pts, c, self.sheet.piece_radius * 1.15 + 1.5 * h, h)
        # A read piece's shadow falls round it: shadowed paper there is paper.
        if len(self._shadow_pt):
            explained |= shade & self._shadow_pt[sl]
        if (fg & ~explained).mean() > AREA_EMPTY_MAX:
            why[self.grid.spaces[i].id] = TAGS_UNREAD
        else:
            tokens[self.grid.spaces[i].id] = [t for t, _ in got]

    # -- colours --------------------------------------------------------------------------
