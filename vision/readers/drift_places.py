"""Where DRIFT's tokens may be: each tag found, taken down its camera ray to every height its
token may stand at, lands on the spaces that may hold it there (its *candidates*), and a space's
tokens lie as people put them down — a mixin of :class:`vision.readers.drift_tags.TagsAtHeight`,
which looks for the tags and judges what each space holds.

People put a token down up to 0.15 pitch off its spot on each axis (0.21 across), its sticker up
to 1.5 mm askew on its top (0.04 pitch): a lone token on a space lies within :data:`SINGLE_ZONE`
of its centre; two side by side across it (a piece and a coin; their spots a round sticker apart
along the ring, 0.39 pitch out each side: :func:`vision.sheets.annuli.drift_slots`) within
:data:`PAIR_NEAR`-:data:`PAIR_FAR`, at least :data:`PAIR_APART` apart. A home's pile stands
beside its repository's block: the sheet puts a home 20 mm from its repository and the block
covers the repository's circle, so a 30 mm pile cannot stand on the home's centre.

A set stands at its heights or lies flat, one or the other: a frame shows it standing when tags
on one space only lie on its centre at their token's height and clearly off it laid flat
(:data:`STANDING_VOTES`), or, pieces put down off their centres, when the lone tags together lie
nearest their centres standing (:data:`STANDING_TAGS`, :data:`STANDING_SURE`).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

PILE_ZONE = 0.25  # pitches from a home's centre within which its pile's top tag must lie (a pile leans)
RADIAL_ZONE = 0.2  # pitches across the ring within which a repository's coins lie
SINGLE_ZONE = 0.26  # pitches from a space's centre within which its only token's tag lies
SNUG_ZONE = 0.15  # ... within which it lies put down with care (beyond: it may be a neighbour's spilled token)
ROW_REACH = 0.85  # pitches between tokens side by side in a row (a sticker apart, 0.78), at most
PAIR_NEAR = 0.15  # pitches from the centre a pair's tag lies, at least (its spot, 0.39 out, less 0.24) ...
PAIR_FAR = 0.62  # ... and at most (0.39 out and 0.23 more: its own, and the other half, still its space's)
PAIR_APART = 0.55  # pitches between a pair's tags at least: a piece's and a coin's edges touching (25 mm) less both stickers askew
PAIR_MID = 0.3  # pitches from the centre the middle of a pair lies, at most
TOKEN_ZONE = PAIR_FAR  # pitches from any other space's centre within which its tokens' tags lie
ON_CENTRE = 0.1  # pitches: a tag this near its space's centre at one height is placed right there
APART = 0.1  # pitches: ... and this much further from it at the other (the set's heights told apart)
STANDING_VOTES = 2  # tags in a frame telling the set stands at its heights, at least (and 4x those telling flat)
STANDING_TAGS = 6  # lone tags, at least, that tell together whether the set stands (_standing)
STANDING_SURE = 2.5  # standard errors over half way to standing that they must lie (a flat set: 6 or more)


class SetStance:
    """Whether the set on the board stands at its heights or lies flat, as the last frame that
    could tell showed it (None: none could yet). A set does not change from frame to frame, and
    a frame whose tags cannot tell (tilt 10: a 15 mm piece's tag moves 0.07 pitch between its two
    heights, and people put tokens up to 0.21 off) is read as the last one that could; one that
    tells otherwise replaces it (another set put out). Shared by every turned grid's reader."""

    def __init__(self, stands: bool | None = None) -> None:
        self.stands = stands  # before any frame tells: the piece set's word (DriftReader)

    def seen(self, verdict: bool | None) -> bool | None:
        """This frame's verdict (None: it cannot tell) → the one to read it by."""
        if verdict is not None:
            self.stands = verdict
        return self.stands


class TokenPlaces:
    """DRIFT's candidate places for a tag, and how a space's tokens lie (a mixin on
    :class:`vision.readers.reader.Reader`: it uses the reader's grid, sheet, pose and piece set)."""

    def _kinds(self) -> list[str | None]:
        cache = self.__dict__.get("_kinds_cache")
        if cache is None:
            kinds = {s.id: s.kind for s in self.sheet.board.spaces}
            cache = self.__dict__["_kinds_cache"] = [kinds.get(s.id) for s in self.grid.spaces]
        return cache

    def _heights_on(self, token: str, kind: str | None) -> tuple[float, ...]:
        """The heights a tag of ``token`` may stand at on a space of ``kind`` (empty: never there).
        A home holds its pile (anything else there — a coin — lies on the board); a repository
        only coins; the land and the rivers any token, standing on the board."""
        cache = self.__dict__.setdefault("_heights_cache", {})
        key = (token, kind)
        if key not in cache:
            ps = self.pieceset
            stack = ps.stack_for(kind) if ps is not None else None
            tops: tuple[float, ...] = ()
            try:
                if stack is None or (kind == "home" and token not in stack.tokens):
                    tops = (ps.height(token),) if ps is not None else (0.0,)
                elif token in stack.tokens:  # a repository holds only coins
                    tops = ps.top_heights(kind, token)
            except KeyError:
                tops = ()
            cache[key] = tuple(sorted(set(tops) | ({0.0} if tops else set())))  # 0: a set laid flat
        return cache[key]

    def _candidates_of(self, tag: int, plane: np.ndarray, busy: set[int]) -> list[tuple[int, float, np.ndarray, float]]:
        """:meth:`_candidates` of a tag found at ``plane`` (its corners); a frame's tags are
        judged again after each further look, each tag's places worked out once a read."""
        memo = self.__dict__.get("_candidates_memo")
        if memo is None or memo[0] is not self._pose or memo[1] != busy:
            memo = self.__dict__["_candidates_memo"] = (self._pose, set(busy), self._busy_mask(busy), {})
        _, _, mask, places = memo
        key = (tag, plane.tobytes())
        if key not in places:
            places[key] = self._candidates(self._tags[tag], plane.mean(axis=0), busy, mask)
        return places[key]

    def _busy_mask(self, busy: set[int]) -> np.ndarray:
        """Which point spaces (:attr:`_point_ids`) are in ``busy``."""
        ids = self._point_ids
        return np.fromiter((int(i) in busy for i in ids), bool, len(ids))

    def _candidates(self, token: str, centre: np.ndarray, busy: set[int],
                    busy_mask: np.ndarray | None = None) -> list[tuple[int, float, np.ndarray, float]]:
        """(space, height, sheet point under the tag, distance to the space's centre in
        pitches) for every place the tag may stand at (``busy_mask``: :meth:`_busy_mask` of
        ``busy``, if the caller has it)."""
        pose = self._pose
        pitch = self.sheet.pitch
        heights = self._all_heights(token)
        if not heights:
            return []
        if pose is None or pose.camera is None:
            heights = (0.0,)
        pts = self._point_xy
        cs = pose.drop(np.repeat(np.asarray(centre, np.float64)[None], len(heights), axis=0),
                       np.asarray(heights)) if heights != (0.0,) else np.asarray(centre, np.float64)[None]
        # Every height's distances at once (element by element as one height at a time was).
        d = np.hypot(pts[None, :, 0] - cs[:, None, 0], pts[None, :, 1] - cs[:, None, 1]) / pitch
        near = d
        cols, a, span = self._pile_segments
        if len(cols):  # a home's pile: anywhere from its centre to beside the block
            t = np.clip(((cs[:, None, :] - a[None]) * span[None]).sum(axis=2)
                        / np.maximum((span * span).sum(axis=1), 1e-9)[None], 0.0, 1.0)
            off = cs[:, None, :] - (a[None] + t[:, :, None] * span[None])
            near = d.copy()
            near[:, cols] = np.hypot(off[:, :, 0], off[:, :, 1]) / pitch
        ids = self._point_ids
        # (The distance given is still to the centre: along that stretch a pile's top at several
        # heights lies as near it, and the height nearest the home's centre is told apart best.)
        ok = (near <= self._zones[None, :]) & self._stands(token, heights) \
            & (self._busy_mask(busy) if busy_mask is None else busy_mask)[None, :]
        kinds = self._kinds()
        out = []
        for k, j in zip(*np.nonzero(ok)):
            i, c = int(ids[j]), cs[k]
            if kinds[i] == "repository" and self._radial_off(i, c) > RADIAL_ZONE:
                continue  # coins lie side by side along the ring there, 20 mm out from the home
            out.append((i, float(heights[k]), c.astype(np.float32), float(d[k, j])))
        return out

    def _all_heights(self, token: str) -> tuple[float, ...]:
        """Every height a tag of ``token`` may stand at, on any kind of space."""
        cache = self.__dict__.setdefault("_all_heights_cache", {})
        if token not in cache:
            kinds = self._kinds()
            cache[token] = tuple(sorted({h for k in set(kinds) for h in self._heights_on(token, k)}))
        return cache[token]

    def _stands(self, token: str, heights: tuple[float, ...]) -> np.ndarray:
        """(height, point space): may a tag of ``token`` stand there at that height?"""
        cache = self.__dict__.setdefault("_stands_table", {})
        key = (token, heights)
        if key not in cache:
            kinds = [self._kinds()[int(i)] for i in self._point_ids]
            tops = {k: self._heights_on(token, k) for k in set(kinds)}
            cache[key] = np.array([[any(abs(h - t) < 0.05 for t in tops[k]) for k in kinds] for h in heights],
                                  bool).reshape(len(heights), len(kinds))
        return cache[key]

    @functools.cached_property
    def _zones(self) -> np.ndarray:
        """Per point space: how far from it (pitches) its tokens' tags lie — a home's pile top
        from where the pile may stand (:data:`PILE_ZONE`), any other :data:`TOKEN_ZONE`."""
        kinds = self._kinds()
        return np.array([PILE_ZONE if kinds[int(i)] == "home" else TOKEN_ZONE for i in self._point_ids])

    @functools.cached_property
    def _pile_segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where each home's pile may stand: the homes' columns in :attr:`_point_xy`, their
        centres, and from each the stretch to the nearest spot clear of its repository's block.
        The sheet puts a home 20 mm from its repository and the block covers the repository's
        circle (the sheet's piece radius), so a 30 mm pile put down on the home leans on the
        block or stands pushed off it, 0.28 pitch out (the camera model draws it on the centre,
        through the block)."""
        kinds = self._kinds()
        ids = [int(i) for i in self._point_ids]
        blocks = [c for c, _ in self._blocks]
        ps = self.pieceset
        home = ps.stack_for("home") if ps is not None else None
        clear = self.sheet.piece_radius + max((ps.piece(t).radius_mm for t in home.tokens), default=0.0) \
            if home is not None else 0.0
        cols, starts, spans = [], [], []
        for j, i in enumerate(ids):
            if kinds[i] != "home":
                continue
            a = self._points[i].astype(np.float64)
            span = np.zeros(2)
            if blocks:
                b = min(blocks, key=lambda q: float(np.hypot(*(q - a))))
                gap = float(np.hypot(*(a - b)))
                if 0 < gap < clear:
                    span = (a - b) / gap * (clear - gap)
            cols.append(j), starts.append(a), spans.append(span)
        return (np.array(cols, int), np.array(starts, np.float64).reshape(-1, 2),
                np.array(spans, np.float64).reshape(-1, 2))

    @functools.cached_property
    def _blocks(self) -> tuple[tuple[np.ndarray, float], ...]:
        """Each repository's wooden block (part of the board, always there: the piece set's
        repository base): (its centre on the sheet, its height); none if the set has no block."""
        ps = self.pieceset
        stack = ps.stack_for("repository") if ps is not None else None
        if stack is None or stack.base_mm <= 0:
            return ()
        return tuple((self._points[i].astype(np.float64), float(stack.base_mm))
                     for i, kind in enumerate(self._kinds()) if kind == "repository")

    def _block_tops(self) -> list[tuple[np.ndarray, float, np.ndarray]]:
        """The blocks as :meth:`_found_tops` gives tokens: (centre, height, where its top is seen)."""
        return [(c, h, self.top_seen(c, h)) for c, h in self._blocks]

    def _lies_right(self, i: int, centres: list[np.ndarray]) -> bool:
        """Do tags at ``centres`` lie as space ``i``'s tokens lie: one near its centre, a pair side by side?"""
        s, pitch = self.grid.spaces[i], self.sheet.pitch
        d = [math.hypot(c[0] - s.x, c[1] - s.y) for c in centres]
        if len(centres) == 1:
            return d[0] <= SINGLE_ZONE * pitch  # put down on its circle, as people do
        if len(centres) == 2:
            mid = (centres[0] + centres[1]) / 2
            apart = float(np.hypot(*(centres[0] - centres[1])))
            return (min(d) >= PAIR_NEAR * pitch and max(d) <= PAIR_FAR * pitch and apart >= PAIR_APART * pitch
                    and math.hypot(mid[0] - s.x, mid[1] - s.y) <= PAIR_MID * pitch)
        return False

    @functools.cached_property
    def _point_xy(self) -> np.ndarray:
        """The point spaces' centres (:attr:`_point_ids`' rows of :attr:`_points`)."""
        return self._points[self._point_ids]

    def _radial_off(self, i: int, c: np.ndarray) -> float:
        """How far ``c`` lies from space ``i``'s centre across the rings, in pitches."""
        s = self.grid.spaces[i]
        cx, cy = self.grid.annuli.centre
        r = math.hypot(s.x - cx, s.y - cy) or 1.0
        return abs((c[0] - s.x) * (s.x - cx) + (c[1] - s.y) * (s.y - cy)) / r / self.sheet.pitch

    @staticmethod
    def _shared(every: list[list[tuple[int, float, np.ndarray, float]]]) -> dict[int, list[tuple[int, np.ndarray]]]:
        """Per space: the tags that may be on it (each its list of candidates' id) and where."""
        shared: dict[int, list[tuple[int, np.ndarray]]] = {}
        for cands in every:
            for i, _, c, _ in cands:
                shared.setdefault(i, []).append((id(cands), c))
        return shared

    def _kept(self, cands: list[tuple[int, float, np.ndarray, float]], shared: dict[int, list]) -> list:
        """A tag's candidates a token may truly be at. A token further off its space's centre
        than a lone one lies (:data:`SINGLE_ZONE`) lies there only as one of a pair: such a
        candidate is kept only where another tag may be the pair's other half (the two lie as
        a pair lies, :meth:`_lies_right`). None left: all."""
        kinds = self._kinds()
        return [c for c in cands if c[3] <= SINGLE_ZONE or kinds[c[0]] == "home" or any(
            k != id(cands) and self._lies_right(c[0], [c[2], o]) for k, o in shared.get(c[0], ()))] or cands

    def _half_of_pair(self, i: int, opts: list[tuple[float, np.ndarray, float]]):
        """Of a tag's (height, place, distance) options on space ``i``, the nearest to the centre
        that lies where one of a pair lies (beyond where a lone token lies, up to :data:`PAIR_FAR`), or None."""
        halves = [o for o in opts if max(PAIR_NEAR, SINGLE_ZONE) < o[2] <= PAIR_FAR]  # (in pitches; nearer: alone)
        return min(halves, key=lambda o: o[2]) if halves else None

    def _arrange(self, i: int, got: list[tuple[str, list[tuple[float, np.ndarray, float]]]]):
        """The heights, among each tag's candidate ones on space ``i``, under which its tokens
        lie as a space holds them (:meth:`_lies_right`), the best fitting the way they lie (one
        on the centre; a pair a sticker apart across it): ``(chosen (height, place, distance)
        per tag, True)``; none: each at its nearest to the centre, False."""
        s, pitch = self.grid.spaces[i], self.sheet.pitch
        firsts = [opts[0] for _, opts in got]
        if len(got) > 2:
            return firsts, False
        apart = self.sheet.tag_mm * math.sqrt(2) + 4  # two round stickers side by side
        best, best_cost = None, math.inf
        for combo in itertools.product(*(opts for _, opts in got)):
            centres = [c for _, c, _ in combo]
            if not self._lies_right(i, centres):
                continue
            if len(centres) == 1:
                cost = combo[0][2]
            else:
                mid = (centres[0] + centres[1]) / 2
                cost = (abs(float(np.hypot(*(centres[0] - centres[1]))) - apart)
                        + math.hypot(mid[0] - s.x, mid[1] - s.y)) / pitch
            if cost < best_cost:
                best, best_cost = list(combo), cost
        return (best, True) if best is not None else (firsts, False)

    def _standing(self, every: list[list[tuple[int, float, np.ndarray, float]]], shared: dict[int, list]) -> bool | None:
        """Does the frame show the set standing at its heights (True), laid flat (False), or
        can it not tell (None)? Each tag that
        can be on one space only and lies on its centre at one of its heights — its token's
        own, or 0 — and clearly further off it at the other tells which (a coin's 3 mm tell
        nothing); the set stands when at least :data:`STANDING_VOTES` tags say so and fewer
        than a quarter as many say flat.

        Pieces put down as people do (up to 0.21 pitch off) lie off the centre by as much as a
        15 mm piece's tag moves between its two heights, so few tags tell alone. Together they
        do: of the tags alone on a point space, the share of the way from laid flat to standing
        that puts them nearest their centres (least squares) — standing when it is over a half,
        :data:`STANDING_SURE` standard errors clear of it (flat as far under). At tilt 10 that
        move is 0.07 pitch and a frame often cannot tell."""
        stand = flat = 0
        lone: list[tuple[int, list]] = []  # (space, its candidates there) per tag on one space
        for cands in every:
            spaces = {i for i, _, _, _ in self._kept(cands, shared)}
            if len(spaces) != 1:
                continue
            i = next(iter(spaces))
            on = [c for c in cands if c[0] == i]
            d0 = min((d for _, h, _, d in on if h == 0), default=math.inf)
            dh = min((d for _, h, _, d in on if h > 0), default=math.inf)
            stand += dh <= ON_CENTRE and d0 - dh >= APART
            flat += d0 <= ON_CENTRE and dh - d0 >= APART
            lone.append((i, on))
        if stand >= STANDING_VOTES and 4 * flat <= stand:
            return True
        kinds = self._kinds()
        lifts, offs = [], []  # per lone tag: flat to standing, and the centre from flat
        for i, on in lone:
            flat_at = [c for _, h, c, _ in on if h == 0]
            up_at = [c for _, h, c, _ in on if h > 0]
            if len({k for k, _ in shared.get(i, ())}) == 1 and kinds[i] not in ("home", "repository") \
                    and len(flat_at) == 1 == len(up_at):
                s = self.grid.spaces[i]
                lifts.append(np.asarray(up_at[0], np.float64) - flat_at[0])
                offs.append(np.array([s.x, s.y]) - flat_at[0])
        if len(lifts) < STANDING_TAGS:
            return None
        lift, off = np.array(lifts), np.array(offs)
        scale = float((lift * lift).sum())
        if scale <= 0:
            return None
        share = float((lift * off).sum()) / scale
        resid = off - share * lift
        err = math.sqrt(float((resid * resid).sum()) / (2 * len(lift) - 1) / scale)
        if abs(share - 0.5) < STANDING_SURE * err:
            return None
        return share > 0.5
