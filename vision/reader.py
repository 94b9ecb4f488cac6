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

import io
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from rules.view import Fidelity, View

from . import layout
from .lock import detect_all, make_sized_detector, make_thorough_detector
from .samples import REF_PX_PER_MM, Group, SampleGrid, sample, warp_to_sheet

EMPTY_MAX = 0.03  # share of foreign body points still read as empty
AREA_EMPTY_MAX = 0.004  # the same for an area (a reserve): a piece is a small part of it
COVER_MIN = 0.5  # a piece read by colour covers at least this share of its body
CLASS_MIN = 0.75  # share of core points matching the winning colour
OTHER_MAX = 0.05  # share matching any other colour
SATURATED = 250  # a clipped pixel hides what is under it
LIGHT_OUTLIER = 0.08  # a probe off the board's smooth light model by more than this is disturbed
LIGHT_SPREAD = 0.25  # share of disturbed probes near a space beyond which its light is unsure
TOLERANCE = 28.0  # grey levels beyond the empty board's own range before a point is foreign
CAST_TOLERANCE = 24.0  # grey levels of colour cast beyond the empty board's before a point is foreign
SECOND_LOOK_MAX = 3  # spaces given the slower second look for a tag, per read
BAND_RATIO = 0.62  # an Annelids tail's dark end: at most this bright relative to its other end
CALIBRATION_VERSION = 1


class CalibrationError(ValueError):
    """A calibration cannot be made, read or used; the message says which and why."""


@dataclass(frozen=True)
class ColourClass:
    name: str
    mean: np.ndarray  # (3,) BGR, in the reference frame's light
    tol: float
    headed: bool = False  # tokens carry a heading read from a dark end (``blue:N``)


@dataclass(frozen=True)
class Calibration:
    game: str
    mode: str  # "tags" or "colour"
    lo: np.ndarray  # (N_body, 3): the empty board's darkest value within ~1 mm of each body point
    hi: np.ndarray  # (N_body, 3): and its brightest
    tint: np.ndarray  # (N_body, 3): the empty board's colour cast there (each channel minus their mean)
    probe_ref: np.ndarray  # (P, 3): the empty board's paper at each probe
    classes: tuple[ColourClass, ...] = ()

    @classmethod
    def from_empty(cls, grid: SampleGrid, frames: Iterable[tuple[np.ndarray, np.ndarray]],
                   mode: str | None = None) -> "Calibration":
        """Learn the empty board from ``(frame, H)`` pairs (a few still frames, averaged)."""
        frames = list(frames)
        warped = [warp_to_sheet(f, H, grid.sheet).astype(np.float32) for f, H in frames]
        if not warped:
            raise CalibrationError("calibration needs at least one frame of the empty board")
        ref = np.mean(warped, axis=0)
        kernel = np.ones((5, 5), np.uint8)
        lo, hi = cv2.erode(ref, kernel), cv2.dilate(ref, kernel)
        probe = np.mean([probe_values(grid, f, H) for f, H in frames], axis=0)
        if (probe.max(axis=1) >= SATURATED).mean() > 0.01:
            raise CalibrationError("the paper is clipped white in the calibration frames: lower the exposure")
        if len(grid.probes) < 4 or probe.min() < 20:
            raise CalibrationError("the empty board's paper is too dark or hidden: light the board and clear it")
        mode = mode or layout.DEFAULT_MODE.get(grid.sheet.game, "tags")
        if mode not in ("tags", "colour"):
            raise CalibrationError(f"reading mode must be 'tags' or 'colour', got {mode!r}")
        mid = _at(cv2.GaussianBlur(ref, (0, 0), 1.0), grid.body.mm)
        tint = mid - mid.mean(axis=1, keepdims=True)
        return cls(grid.sheet.game, mode, _at(lo, grid.body.mm), _at(hi, grid.body.mm), tint, probe)

    def learn_colours(self, grid: SampleGrid, shots: Iterable[tuple[np.ndarray, np.ndarray, View]]) -> "Calibration":
        """Learn piece colours from ``(frame, H, view)``: frames of known positions (the
        start position, or a layout showing every kind of piece)."""
        pix: dict[str, list[np.ndarray]] = {}
        headed: set[str] = set()
        for frame, H, view in shots:
            gains, _ = _gains(grid, self, frame, H)
            core = sample(frame, H, grid.core.mm)
            for space, tokens in view.items():
                i = grid.index.get(space)
                if i is None or grid.is_area[i] or len(tokens) != 1:
                    continue
                name = layout.token_class(self.game, tokens[0])
                headed |= {name} if ":" in tokens[0] else set()
                pix.setdefault(name, []).append(core[grid.core.of(i)] / gains[i])
        if not pix:
            raise CalibrationError("no pieces in the calibration positions: lay out every kind of piece")
        names = sorted(pix)
        means = {n: np.median(np.concatenate(pix[n]), axis=0) for n in names}
        classes = []
        for name in names:
            d = np.linalg.norm(np.concatenate(pix[name]) - means[name], axis=1)
            # Wide enough for the light's play on this colour, never reaching halfway to another.
            gap = min((float(np.linalg.norm(means[name] - means[o])) for o in names if o != name), default=1e9)
            tol = float(np.clip(2.5 * np.percentile(d, 75), 20.0, 0.45 * gap))
            classes.append(ColourClass(name, means[name].astype(np.float32), tol, name in headed))
        return Calibration(self.game, self.mode, self.lo, self.hi, self.tint, self.probe_ref, tuple(classes))

    # -- files ----------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        meta = {"version": CALIBRATION_VERSION, "game": self.game, "mode": self.mode,
                "classes": [{"name": c.name, "mean": c.mean.tolist(), "tol": c.tol, "headed": c.headed}
                            for c in self.classes]}
        buf = io.BytesIO()
        np.savez_compressed(buf, lo=self.lo.astype(np.uint8), hi=self.hi.astype(np.uint8),
                            tint=self.tint.astype(np.float32), probe_ref=self.probe_ref.astype(np.float32),
                            meta=np.array(json.dumps(meta)))
        Path(path).write_bytes(buf.getvalue())

    @classmethod
    def load(cls, path: str | Path, grid: SampleGrid) -> "Calibration":
        where = str(path)
        try:
            with np.load(where, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                lo, hi, probe = z["lo"].astype(np.float32), z["hi"].astype(np.float32), z["probe_ref"]
                tint = z["tint"].astype(np.float32)
        except OSError as exc:
            raise CalibrationError(f"{where}: cannot read the calibration: {exc}") from None
        except (KeyError, ValueError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"{where}: not a tableref calibration file ({exc})") from None
        if meta.get("version") != CALIBRATION_VERSION:
            raise CalibrationError(f"{where}: calibration version {meta.get('version')!r}, expected {CALIBRATION_VERSION}")
        if meta.get("game") != grid.sheet.game or len(lo) != len(grid.body.mm) or len(probe) != len(grid.probes):
            raise CalibrationError(f"{where}: made for another board ({meta.get('game')!r}); calibrate again")
        classes = tuple(ColourClass(c["name"], np.array(c["mean"], np.float32), float(c["tol"]), bool(c["headed"]))
                        for c in meta.get("classes", []))
        return cls(meta["game"], meta["mode"], lo, hi, tint, probe, classes)


@dataclass(frozen=True)
class Reading:
    """What one frame showed: the view of the spaces read, and the spaces that were not."""

    view: View
    unreadable: frozenset[str]
    why: Mapping[str, str] = field(default_factory=dict)  # unreadable space → reason, for diagnostics

    @property
    def complete(self) -> bool:
        return not self.unreadable


class Reader:
    """Reads a locked frame space by space (see the module docstring).

    DRIFT's reader (``vision/drift_reader.py``) sets the class knobs below: its spaces may
    hold two tokens side by side (a piece and a coin), so tags are looked for further out and
    every point space is judged like an area (each foreign point on a tag that was read)."""

    stacks = False  # point spaces may hold several tagged tokens side by side
    scan_reach = 1.15  # tags are looked for this many piece radii round a space
    on_space = 0.3  # a tag further than this many pitches from its space is off it
    ignored_tags: frozenset[int] = frozenset()  # ids read elsewhere (DRIFT's ring markers)

    def __init__(self, grid: SampleGrid, calibration: Calibration, fidelity: Fidelity = Fidelity.KIND) -> None:
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
        self._means = np.array([c.mean for c in calibration.classes], np.float32).reshape(-1, 3)
        self._tols = np.array([c.tol for c in calibration.classes], np.float32)
        slack = TOLERANCE + 0.3 * (calibration.hi - calibration.lo)
        self._lo_limit = (calibration.lo - slack).astype(np.float32)
        self._hi_limit = (calibration.hi + slack).astype(np.float32)

    def read(self, frame: np.ndarray, H: np.ndarray, grey: np.ndarray | None = None) -> Reading:
        """Read every space of ``frame`` locked by ``H``; ``grey`` is the frame in grey when the
        caller has it already (a 1080p conversion costs a millisecond or two)."""
        g = self.grid
        gains, spread = _gains(g, self.cal, frame, H)
        body = sample(frame, H, g.body.mm)
        gain_pt = np.repeat(gains, g.body.counts, axis=0)
        v = body / gain_pt
        # Ink and paper are grey: a coloured piece shows as a colour cast even where its
        # brightness lies between the two (an orange bar over a printed line).
        cast = v - _row_mean(v) - self.cal.tint
        foreign_pt = _any_channel((v < self._lo_limit) | (v > self._hi_limit)) \
            | _any_channel(np.abs(cast) > CAST_TOLERANCE)
        clipped_pt = _any_channel(body >= SATURATED)
        counts = np.maximum(g.body.counts, 1)
        starts = g.body.start[:-1]
        foreign = _share(foreign_pt, starts, counts)
        clipped = _share(clipped_pt, starts, counts)
        unsure = (spread > LIGHT_SPREAD) | (clipped > 0.01)
        tokens: dict[str, list[str]] = {}
        why: dict[str, str] = {}
        # An area is large: one piece there is a small share of it, so any cluster counts.
        empty_max = np.where(g.is_area, AREA_EMPTY_MAX, EMPTY_MAX)
        busy = np.flatnonzero(foreign > empty_max)
        if self.cal.mode == "tags":
            self._read_tags(frame if grey is None else grey, H, busy, foreign_pt, tokens, why)
        else:
            self._read_colours(frame, H, busy[~unsure[busy]], gains, foreign, tokens, why)
        for i, s in enumerate(g.spaces):
            if s.id in tokens or s.id in why:
                continue
            if unsure[i]:
                why[s.id] = "glare or shadow" if clipped[i] > 0.01 else "light uneven here (hand or glare near)"
            elif foreign[i] > empty_max[i]:
                why[s.id] = "something here that is not a readable piece"
        view = View({s: t for s, t in tokens.items() if s not in why})
        if self.fidelity is Fidelity.OCCUPANCY:
            view = view.at_fidelity(Fidelity.OCCUPANCY)
        return Reading(view, frozenset(why), why)

    # -- tags -----------------------------------------------------------------------------

    def _read_tags(self, frame: np.ndarray, H: np.ndarray, busy: np.ndarray, foreign_pt: np.ndarray,
                   tokens: dict[str, list[str]], why: dict[str, str]) -> None:
        if len(busy) == 0:
            return
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        H_inv = np.linalg.inv(H)
        found: list[tuple[int, np.ndarray]] = []
        self._scan(grey, H, H_inv, [int(i) for i in busy], self._sized(H), found)
        out_tokens, out_why = self._judge_tags(busy, found, foreign_pt)
        # A second, slower look only where a piece is seen but not (all) its tags — and only
        # for a few: many such spaces mean a hand or glare, and the next still frame will do.
        again = [int(i) for i in busy if self.grid.spaces[i].id in out_why]
        if 0 < len(again) <= SECOND_LOOK_MAX:
            # Tags only a few pixels a cell (DRIFT's 64 cm board) read far better enlarged.
            self._scan(grey, H, H_inv, again, self._thorough, found, upscale=2 if self._cell_px(H) < 5 else 1)
            out_tokens, out_why = self._judge_tags(busy, found, foreign_pt)
        tokens.update(out_tokens)
        why.update(out_why)

    def _cell_px(self, H: np.ndarray) -> float:
        """A tag's cell in frame pixels, at the sheet's centre."""
        c = np.float32([[(self.sheet.size[0] / 2, self.sheet.size[1] / 2)]])
        ends = cv2.perspectiveTransform(np.concatenate([c, c + [[[self.sheet.tag_mm, 0]]]], axis=1), H)[0]
        return float(np.linalg.norm(ends[1] - ends[0])) / 6

    def _sized(self, H: np.ndarray) -> object:
        """A one-pass detector for the tags' size in this frame (cached per window size)."""
        cell = self._cell_px(H)
        window = int(np.clip(round(2.5 * cell), 7, 31)) | 1
        if window not in self._sized_detectors:
            self._sized_detectors[window] = make_sized_detector(window, self._dictionary)
        return self._sized_detectors[window]

    def _scan_quad(self, i: int) -> list[tuple[float, float]]:
        """The sheet region round space ``i`` where its tags may lie."""
        s = self.grid.spaces[i]
        r = self.sheet.piece_radius * self.scan_reach
        if s.kind == "area":
            x, y, w, h = s.rect  # type: ignore[misc]
            return [(x - r, y - r), (x + w + r, y - r), (x + w + r, y + h + r), (x - r, y + h + r)]
        return [(s.x - r, s.y - r), (s.x + r, s.y - r), (s.x + r, s.y + r), (s.x - r, s.y + r)]

    def _scan(self, grey: np.ndarray, H: np.ndarray, H_inv: np.ndarray, spaces: list[int], detector: object,
              found: list[tuple[int, np.ndarray]], upscale: int = 1) -> None:
        """Tags in the frame round ``spaces``, added to ``found`` (sheet mm corners). The
        spaces' crops are merged where that costs no extra pixels: neighbours' crops overlap,
        and each detector call has its own fixed cost."""
        if not spaces:
            return
        quads = np.float32([self._scan_quad(i) for i in spaces])
        px = cv2.perspectiveTransform(quads.reshape(-1, 1, 2), H).reshape(len(spaces), 4, 2)
        lo, hi = np.floor(px.min(axis=1)), np.ceil(px.max(axis=1)) + 1
        limit = (grey.shape[1], grey.shape[0])
        boxes = [(max(int(a[0]), 0), max(int(a[1]), 0), min(int(b[0]), limit[0]), min(int(b[1]), limit[1]))
                 for a, b in zip(lo, hi)]
        centres = [c.mean(axis=0) for _, c in found]
        for x0, y0, x1, y1 in merge_boxes(boxes):
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            crop = grey[y0:y1, x0:x1]
            if upscale > 1:
                crop = cv2.resize(crop, None, fx=upscale, fy=upscale, interpolation=cv2.INTER_CUBIC)
            for tag, corners in detect_all(detector, crop):  # type: ignore[arg-type]
                corners = (corners + 0.5) / upscale - 0.5 + np.float32([x0, y0])  # pixel centres
                mm = cv2.perspectiveTransform(corners[None], H_inv)[0]
                centre = mm.mean(axis=0)
                # Two detectors may look: one tag seen twice is one tag.
                if not any(t == tag and math.hypot(*(c - centre)) < self.sheet.tag_mm / 2
                           for (t, _), c in zip(found, centres)):
                    found.append((tag, mm))
                    centres.append(centre)

    def _judge_tags(self, busy: np.ndarray, found: list[tuple[int, np.ndarray]],
                    foreign_pt: np.ndarray) -> tuple[dict[str, list[str]], dict[str, str]]:
        g, sheet = self.grid, self.sheet
        tokens: dict[str, list[str]] = {}
        why: dict[str, str] = {}
        placed: dict[int, list[tuple[str, np.ndarray]]] = {}
        kept = [(tag, mm) for tag, mm in found if tag not in self.ignored_tags]
        if kept:
            corners = np.stack([mm for _, mm in kept])  # (K, 4, 2) sheet mm
            centres = corners.mean(axis=1)
            sides = np.linalg.norm(corners - np.roll(corners, -1, axis=1), axis=2)
            sized = (sides.mean(axis=1) >= 0.7 * sheet.tag_mm) & (sides.mean(axis=1) <= 1.35 * sheet.tag_mm) \
                & (sides.max(axis=1) <= 1.4 * sides.min(axis=1))
            targets, off = self._place_all(centres)
            for k, (tag, _) in enumerate(kept):
                target = int(targets[k])
                if target < 0:
                    continue
                token = self._tags.get(tag)
                if token is None or not sized[k]:
                    why[g.spaces[target].id] = f"tag {tag} is not one of this game's pieces"
                elif off[k]:
                    why[g.spaces[target].id] = "a piece off its space"
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
                why[s.id] = "two tags on one space"
            else:
                why[s.id] = "something here that is not a readable piece"
        return tokens, why

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
        for _, c in got:
            explained |= np.hypot(pts[:, 0] - c[0], pts[:, 1] - c[1]) <= self.sheet.piece_radius * 1.15
        if (fg & ~explained).mean() > AREA_EMPTY_MAX:
            why[self.grid.spaces[i].id] = "pieces here whose tags cannot be read"
        else:
            tokens[self.grid.spaces[i].id] = [t for t, _ in got]

    # -- colours --------------------------------------------------------------------------

    def _read_colours(self, frame: np.ndarray, H: np.ndarray, busy: np.ndarray, gains: np.ndarray,
                      foreign: np.ndarray, tokens: dict[str, list[str]], why: dict[str, str]) -> None:
        g = self.grid
        busy = busy[(foreign[busy] >= COVER_MIN) & ~g.is_area[busy]]  # the rest stays unreadable
        if len(busy) == 0:
            return
        classes = self.cal.classes
        core, starts, counts = _gather(g.core, busy)
        px = sample(frame, H, core) / np.repeat(gains[busy], counts, axis=0)
        d = np.linalg.norm(px[:, None, :] - self._means[None], axis=2)
        share = np.stack([_share(d[:, k] <= self._tols[k], starts, counts) for k in range(len(classes))], axis=1)
        best = np.argmax(share, axis=1)
        top = share[np.arange(len(busy)), best]
        share[np.arange(len(busy)), best] = 0
        clear = (top >= CLASS_MIN) & (share.max(axis=1) <= OTHER_MAX)
        headings = self._headings(frame, H, busy, gains) if g.is_edge[busy].any() else {}
        for k, i in enumerate(busy):
            if not clear[k]:
                continue
            s, c = g.spaces[i], classes[best[k]]
            heading = headings.get(int(i))
            if c.headed:
                if heading is None:
                    why[s.id] = f"a {c.name} tail whose flat end cannot be seen"
                else:
                    tokens[s.id] = [f"{c.name}:{heading}"]
            elif heading is None:  # a dark end on a piece that has none: not what it seems
                tokens[s.id] = [c.name]

    def _headings(self, frame: np.ndarray, H: np.ndarray, spaces: np.ndarray, gains: np.ndarray) -> dict[int, str]:
        """Edges with one clearly dark end: which way that end faces."""
        g = self.grid
        spaces = spaces[g.is_edge[spaces]]
        lum = []
        for grp in (g.end0, g.end1):
            pts, starts, counts = _gather(grp, spaces)
            px = sample(frame, H, pts) / np.repeat(gains[spaces], counts, axis=0)
            lum.append(np.add.reduceat(px.mean(axis=1), starts) / np.maximum(counts, 1))
        l0, l1 = lum
        out = {}
        for k, i in enumerate(spaces):
            dark = 0 if l0[k] < l1[k] else 1
            if min(l0[k], l1[k]) <= BAND_RATIO * max(l0[k], l1[k]):
                out[int(i)] = g.spaces[i].heading_to(dark)
        return out


def _any_channel(flags: np.ndarray) -> np.ndarray:
    """Per row: is any channel set (``flags.any(axis=1)``, several times faster on N×3)."""
    out = flags[:, 0].copy()
    for k in range(1, flags.shape[1]):
        out |= flags[:, k]
    return out


def _row_mean(v: np.ndarray) -> np.ndarray:
    """Per row: the channels' mean, as a column (``v.mean(axis=1, keepdims=True)``, faster)."""
    total = v[:, 0].copy()
    for k in range(1, v.shape[1]):
        total += v[:, k]
    return (total / v.shape[1])[:, None]


def merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Pixel boxes (x0, y0, x1, y1) merged pairwise wherever their union is no larger than the
    two apart (overlapping crops of neighbouring spaces)."""
    out = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]

    def area(b: tuple[int, int, int, int]) -> int:
        return (b[2] - b[0]) * (b[3] - b[1])

    merged = True
    while merged:
        merged = False
        for a in range(len(out)):
            for b in range(a + 1, len(out)):
                u = (min(out[a][0], out[b][0]), min(out[a][1], out[b][1]),
                     max(out[a][2], out[b][2]), max(out[a][3], out[b][3]))
                if area(u) <= area(out[a]) + area(out[b]):
                    out[a] = u
                    del out[b]
                    merged = True
                    break
            if merged:
                break
    return out


def _gather(group: "Group", spaces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points of ``spaces`` in ``group``, concatenated, with each one's start and count."""
    counts = group.counts[spaces]
    idx = np.concatenate([np.arange(group.start[i], group.start[i + 1]) for i in spaces])
    starts = np.zeros(len(spaces), int)
    starts[1:] = np.cumsum(counts)[:-1]
    return group.mm[idx], starts, counts


def _at(img: np.ndarray, mm: np.ndarray) -> np.ndarray:
    xy = np.round(mm * REF_PX_PER_MM).astype(int)
    x = np.clip(xy[:, 0], 0, img.shape[1] - 1)
    y = np.clip(xy[:, 1], 0, img.shape[0] - 1)
    return img[y, x].astype(np.float32).reshape(len(mm), -1)


def _share(flags: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    if len(flags) == 0:
        return np.zeros(len(starts))
    sums = np.add.reduceat(flags.astype(np.int32), np.minimum(starts, len(flags) - 1))
    sums[counts == 0] = 0
    return sums / counts


def probe_values(grid: SampleGrid, frame: np.ndarray, H: np.ndarray) -> np.ndarray:
    """Each probe's colour: the mean of its five points."""
    vals = sample(frame, H, grid.probe_points).reshape(len(grid.probes), 5, -1)
    return (vals[:, 0] + vals[:, 1] + vals[:, 2] + vals[:, 3] + vals[:, 4]) / 5  # (mean(axis=1), faster)


def _gains(grid: SampleGrid, cal: Calibration, frame: np.ndarray, H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per space: the light relative to the calibration (B, G, R gains, from a smooth model
    of the whole board's light), and the share of nearby probes that the model does not
    explain (a hand, glare or a shadow there). A hand's uniform colour over the probes
    would otherwise pass for a change of light and make a covered piece look like paper."""
    ratio = probe_values(grid, frame, H) / np.maximum(cal.probe_ref, 1.0)
    X = grid.probe_basis
    good = np.ones(len(ratio), bool)
    coef = np.zeros((X.shape[1], ratio.shape[1]))
    for _ in range(3):
        if good.sum() < X.shape[1] * 3:
            break
        Xg = X[good]
        # Normal equations: 6 unknowns, thousands of probes; far cheaper than lstsq's SVD.
        coef = np.linalg.solve(Xg.T @ Xg + 1e-9 * np.eye(X.shape[1]), Xg.T @ ratio[good])
        model = X @ coef
        resid = np.abs(ratio / np.maximum(model, 1e-3) - 1)
        resid = np.maximum.reduce([resid[:, k] for k in range(resid.shape[1])])
        good = resid < LIGHT_OUTLIER
    gains = grid.space_basis @ coef
    bad_share = (~good)[grid.probe_of].mean(axis=1)
    bad_share[(gains.min(axis=1) < 0.15)] = 1.0  # the light is gone: nothing here can be trusted
    return np.maximum(gains, 1e-3).astype(np.float32), bad_share
