"""What a standing piece hides, and pieces seen but not named (a mixin on
:class:`vision.readers.reader.Reader`).

A camera on a shelf sees a standing piece's side and top over the spaces behind it. Each space
a piece in front may hide is judged on the body points left in view: too few, it is *hidden*
(anything may be there, never read empty); the rest foreign is a piece whose tag or colour could
not be read, read ``OCCUPIED`` where the light round it is calm and it does not look like a
shadow — or shows a sticker's ink; the rest clear is empty.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from rules.view import HIDDEN

from vision.read.pose import Pose
from vision.read.sampling import inside_convex, near_rect, probe_light, row_mean

from .reasons import UNNAMED

EMPTY_MAX = 0.03  # share of foreign body points still read as empty
VISIBLE_MIN = 0.35  # share of a space's body the pieces in front must leave in view to judge it
OCCUPIED_MIN = 0.6  # share of the visible body foreign before an unnamed piece is read "occupied"
SHADOW_ALL = 0.97  # share of the foreign points that must look like shadowed paper to be a shadow
INK_LEVEL = 0.3  # of the empty board's brightness: a sticker's ink, darker than a shadow makes it
INK_MIN = 0.1  # share of a space's visible body that ink before a sticker is plainly there
INK_RANGE = 0.35  # ...and its ink and white that far apart (a shadow's darkness is even)
SHADOW_SMALL = 0.35  # share of a space's visible body at most that a shadow-only sliver covers (DRIFT)
INKED_SHARE = 0.45  # share of the visible body foreign enough when a sticker's ink shows there
# DRIFT: grey, darker than a shadow is taken to be (under INK_LEVEL), and beside a named piece
# within this many of its heights (a desk lamp 27° up casts a shadow twice a piece's height): a
# deep shadow, or a grey token whose tag cannot be read — not told apart, never read "occupied".
DEEP_CAST = 2.0
DEEP_LIKE = 0.9  # share of the foreign points shadow-like or deep grey for that
INK_BESIDE_WHITE = 0.5  # ... unless this share of the deep grey has white within a tag's cell: a sticker
WHITE_LEVEL = 0.6  # of the paper: a sticker's white (or lit paper)
# (a coin, 20 mm across, on a body sized for 30 mm pieces, half hidden behind one: its white
# sticker reads as paper)

_RIM = np.stack([np.cos(np.linspace(0, 2 * np.pi, 16, endpoint=False)),
                 np.sin(np.linspace(0, 2 * np.pi, 16, endpoint=False))], axis=1)


def standing_hull(pose: Pose, centre, radius: float, height: float, kept: bool = False) -> np.ndarray:
    """The frame polygon (px) a round token standing at sheet point ``centre``, ``radius`` mm
    across and ``height`` mm tall, covers: the hull of its base and its top. ``kept``: the
    centre is a fixed one (a space's), the hull kept with the pose for later reads."""
    def work() -> np.ndarray:
        ring = _RIM * radius + np.asarray(centre, np.float64)
        px = np.concatenate([pose.to_px(ring), pose.to_px(ring, height)]).astype(np.float32)
        return cv2.convexHull(px).reshape(-1, 2)

    if not kept:
        return work()
    return pose.kept(("hull", float(centre[0]), float(centre[1]), float(radius), float(height)), work)


def standing_hulls(pose: Pose, tops: list[tuple[np.ndarray, float, float]]) -> list[np.ndarray]:
    """:func:`standing_hull` of each (centre, radius, height) in ``tops``, their rims projected
    all at once (the same points, one pass through the lens)."""
    if not tops:
        return []
    n = len(_RIM)
    rims = np.concatenate([_RIM * r + np.asarray(c, np.float64) for c, r, _ in tops])
    base = pose.to_px(rims).reshape(len(tops), n, 2)
    top = pose.to_px(rims, np.repeat(np.array([h for _, _, h in tops], np.float64), n)).reshape(len(tops), n, 2)
    return [cv2.convexHull(np.concatenate([b, t]).astype(np.float32)).reshape(-1, 2) for b, t in zip(base, top)]


class Occlusion:
    """The reader's judgement of hidden spaces and unnamed pieces (uses the reader's grid,
    sheet, piece set and calibration)."""

    # The lightest a shadow leaves the paper. A point is dark (foreign) once it is TOLERANCE
    # below the empty board's range: at 0.80-0.88 of it, as the exposure goes. The camera
    # model's hard shadows were all under 0.85; a soft shadow's edge under area lights (the
    # path-traced bench, issue 32) is dark at 0.85-0.88 and was read "something here" (DRIFT
    # too, round a pile six high at tilt 35; it had kept 0.85 for silver coins "as grey as a
    # light shadow" — path-traced silver coins stand at 0.32-0.49, and the camera model's rows
    # read the same either way).
    shadow_max = 0.95

    def _shadowy(self, v: np.ndarray, dark_pt: np.ndarray, cast_pt: np.ndarray) -> np.ndarray:
        """Per body point: darker than the empty board, with no colour cast, by a factor a
        shadow gives (0.3 to ``shadow_max`` of the board's own value): a shadow, or a grey piece."""
        ratio = row_mean(v)[:, 0] / np.maximum(row_mean(self._mid)[:, 0], 1.0)
        self._level_pt = ratio
        self._deep_pt = dark_pt & ~cast_pt & (ratio <= 0.3)  # grey and deeper: ink, or a deep shadow
        return dark_pt & ~cast_pt & (ratio > 0.3) & (ratio < self.shadow_max)

    where_found = True  # DRIFT: False (its pairs and piles stand where its own rules put them)

    def _silhouette(self, pose: Pose, i: int, height: float) -> np.ndarray:
        """The frame polygon a piece on space ``i`` of ``height`` mm covers (its base and top),
        standing where its tag was found: people put pieces down up to 15 % of the pitch off the
        space's centre, and a piece's side then covers more of the neighbour on that side."""
        c = self._stands_at(i)
        s = self.grid.spaces[i]
        return standing_hull(pose, c, self._radius, height, kept=(c[0], c[1]) == (s.x, s.y))

    def _stands_at(self, i: int) -> tuple[float, float]:
        """Where the piece on space ``i`` stands: where its tag was found (within 0.3 pitch of the
        space's centre, as the tag is taken), else the space's centre."""
        s = self.grid.spaces[i]
        if not self.where_found:
            return s.x, s.y
        near = [c for c, _ in self._tops_seen if math.hypot(c[0] - s.x, c[1] - s.y) <= 0.3 * self.sheet.pitch]
        if not near:
            return s.x, s.y
        c = np.mean(near, axis=0)  # one tag seen by two looks
        return float(c[0]), float(c[1])

    def _settle(self, pose: Pose, body_px: np.ndarray, foreign_pt: np.ndarray, shadowy: np.ndarray,
                unsure: np.ndarray, tokens: dict[str, list[str]], why: dict[str, str]) -> None:
        """Judge the spaces a piece in front may hide, and the pieces seen but not named.

        A standing piece hides the board behind it (from the camera). Each space's body is
        judged on the points no piece in front covers: too few of them left, it is *hidden*
        (``HIDDEN``: anything may be there; never read empty); the rest foreign is a piece there whose tag or colour
        could not be read: ``OCCUPIED``; the rest clear is empty (what looked like something
        was the piece in front). Spaces are taken nearest the camera first, so a piece read
        "occupied" hides what lies behind it in turn."""
        g = self.grid
        idx = g.index
        solid = self._solids(pose, tokens)
        unnamed = [idx[sid] for sid, r in why.items() if r == UNNAMED and sid in idx and not g.is_area[idx[sid]]]
        if pose.camera is None and not unnamed:
            return
        order = sorted(unnamed, key=lambda i: self._camera_distance(pose, i))
        named: list[int] = []
        for i in order:
            sid = g.spaces[i].id
            seen, verdict = self._unnamed(i, body_px, foreign_pt, shadowy, solid)
            if verdict == "hidden":
                del why[sid]
                tokens[sid] = [HIDDEN]  # the referee judges moves elsewhere, never one here
                continue
            sl = g.body.of(i)
            fg = foreign_pt[sl][seen]
            share = fg.mean()
            if verdict in ("in front", "shadow"):
                del why[sid]  # nothing here: the piece in front, or a neighbour's shadow
            elif share >= INKED_SHARE and self.names_unread and not unsure[i] and g.spaces[i].kind == "point" \
                    and (share >= OCCUPIED_MIN and shadowy[sl][seen][fg].mean() < 0.5 or self._inked(sl, seen, fg)) \
                    and not (not self.shadow_is_paper and self._deep_shadow(i, sl, seen, fg, shadowy, solid, tokens)):
                del why[sid]
                tokens[sid] = list(self.unnamed_read)
                named.append(i)
                solid.append((i, self._silhouette(pose, i, float(self._max_top[i]))))
        # A hand or an arm spans several spaces: a piece is "occupied" only when no space next
        # to it is left unreadable.
        near = 1.5 * self.sheet.pitch
        marked = getattr(self, "_rotation_space", None)  # DRIFT: read by the ring markers instead
        blocked = [g.index[sid] for sid in why if sid in g.index and (marked is None or not marked[g.index[sid]])]
        for i in named:
            s = g.spaces[i]
            if any(math.hypot(g.spaces[j].x - s.x, g.spaces[j].y - s.y) <= near or g.is_area[j] and
                   near_rect(g.spaces[j].rect, s.x, s.y, near) for j in blocked):
                del tokens[s.id]
                why[s.id] = UNNAMED
        if pose.camera is None or not solid:
            return
        # Spaces read empty: enough of them must have been in view to say so. Only spaces whose
        # body's box the pieces' outlines overlap by 30 % are worth the exact test (hiding 65 % of
        # a body — even a diagonal strip's — takes over 40 % of its box).
        starts = g.body.start[:-1]
        lo = np.minimum.reduceat(body_px, np.minimum(starts, len(body_px) - 1))
        hi = np.maximum.reduceat(body_px, np.minimum(starts, len(body_px) - 1))
        plo = np.array([p.min(axis=0) for _, p in solid])
        phi = np.array([p.max(axis=0) for _, p in solid])
        w = np.clip(np.minimum(hi[:, None, :], phi[None]) - np.maximum(lo[:, None, :], plo[None]), 0, None)
        inter = w[..., 0] * w[..., 1]  # (spaces, solids)
        own = np.array([j for j, _ in solid])
        inter[own, np.arange(len(solid))] = 0
        box = np.maximum((hi - lo).prod(axis=1), 1e-6)
        for i in np.flatnonzero(inter.sum(axis=1) >= 0.3 * box):
            s = g.spaces[int(i)]
            if tokens.get(s.id) or s.id in why or g.is_area[i] or g.body.counts[i] == 0:
                continue  # (a space read empty is in ``tokens`` with no token: judged here)
            hidden = self._hidden(int(i), body_px, [solid[k] for k in np.flatnonzero(inter[i])])
            if hidden.any() and 1 - hidden.mean() < VISIBLE_MIN:
                tokens[s.id] = [HIDDEN]

    def _calm(self, frame: np.ndarray, pose: Pose, calm: np.ndarray, unsure: np.ndarray, foreign_pt: np.ndarray,
              tokens: dict[str, list[str]], why: dict[str, str]) -> np.ndarray:
        """Where the light round an unnamed piece is calm enough to read it "occupied":
        ``calm`` (no probe near it disturbed), and more where the probes disturbed are only
        those that pieces hide in the frame."""
        g = self.grid
        if pose.camera is None or UNNAMED not in why.values():
            return calm
        # A standing piece read there covers the probes round its neighbours in the frame:
        # they say nothing of the light. Judged again without them (a hand is read as no
        # piece: the probes it covers still count).
        named = [g.index[sid] for sid, t in tokens.items() if t and HIDDEN not in t and sid in g.index]
        hide = self._probes_under(pose, np.array(named, int))
        # Where each token was found (a pair's lie off the centre): all at once, as one by one.
        found = [(np.asarray(c, np.float64), float(h)) for c, h in self._tops_seen]
        hide |= self.covers_any(g.probes, [c for c, _ in found], [self.top_seen(c, h) for c, h in found],
                                [self._radius + 6.0] * len(found))
        _, _, good, _, use = probe_light(g, self.cal, frame, pose, hide, getattr(self, "_probe_values", None))
        for sid in [s for s, r in why.items() if r == UNNAMED and s in g.index]:
            i = g.index[sid]
            pr = g.probe_of[i]
            bad = ~good[pr] & use[pr]
            if not bad.any():
                calm[i] |= not unsure[i]
                continue
            # The unread piece's own side and top hide probes behind it too: judged without
            # them, if a third of its probes are left (none left looks calm by default) and
            # it shows a sticker's ink — a hand over a space does not (a false accept on the
            # shelf bench's Gygès hand row without that).
            sl = g.body.of(i)
            if unsure[i] or not foreign_pt[sl].any() \
                    or not self._inked(sl, np.ones(sl.stop - sl.start, bool), foreign_pt[sl]):
                continue
            rest = use[pr] & ~self._probes_under(pose, np.array([i]))[pr]
            calm[i] |= rest.sum() >= max(3, len(pr) // 3) and not (bad & rest).any()
        return calm

    def _inked(self, sl: slice, seen: np.ndarray, fg: np.ndarray) -> bool:
        """Does what is foreign on a space show a sticker's ink — darker than any shadow — and
        its white beside it? A shadow darkens the paper evenly (to 0.3-0.85 of it); a piece's
        tag, even blurred past reading, shows both (a copper coin's small tag reads greyish,
        "shadow-like", over most of its face)."""
        level = self._level_pt[sl][seen]
        return bool((level <= INK_LEVEL).mean() >= INK_MIN
                    and np.percentile(level[fg], 90) - np.percentile(level[fg], 10) >= INK_RANGE)

    def _deep_shadow(self, i: int, sl: slice, seen: np.ndarray, fg: np.ndarray, shadowy: np.ndarray,
                     solid: list[tuple[int, np.ndarray]], tokens: dict[str, list[str]]) -> bool:
        """DRIFT: may what is foreign on space ``i`` be a named piece's deep shadow? Grey (like
        shadowed paper, or darker than :data:`INK_LEVEL` with no colour cast: a lamp alone in a
        dark room throws shadows at 0.2 of the paper, and DRIFT's piles stand 80 mm tall) over
        :data:`DEEP_LIKE` of it, with a named piece within :data:`DEEP_CAST` of its height (and a
        pitch and a half). A silver coin whose tag cannot be read looks the same (its face at
        0.30-0.49 of the paper): the space is left unreadable, never guessed."""
        deep = getattr(self, "_deep_pt", None)
        if deep is None or len(deep) == 0:
            return False
        if (shadowy[sl][seen][fg] | deep[sl][seen][fg]).mean() < DEEP_LIKE:
            return False
        if self._ink_beside_white(sl, seen, deep[sl]) >= INK_BESIDE_WHITE:
            return False  # a sticker's ink: its cells lie between white ones, a shadow's dark is whole
        s = self.grid.spaces[i]
        for j, _ in solid:
            if j == i:
                continue
            o = self.grid.spaces[j]
            reach = max(1.5 * self.sheet.pitch, DEEP_CAST * self._top_of(j, tokens.get(o.id, ())) + self._radius)
            if math.hypot(o.x - s.x, o.y - s.y) <= reach:
                return True
        return False

    def _ink_beside_white(self, sl: slice, seen: np.ndarray, deep: np.ndarray) -> float:
        """Of a space's deep grey points in view, the share with white (over :data:`WHITE_LEVEL`
        of the paper) within a tag's cell and a fifth: a sticker's ink, or a shadow's edge."""
        pts = self.grid.body.mm[sl][seen]
        level = self._level_pt[sl][seen]
        dark, white = deep[seen], level >= WHITE_LEVEL
        if not dark.any() or not white.any():
            return 0.0
        reach = 1.2 * self.sheet.tag_mm / 6
        d = np.hypot(*(pts[dark][:, None, :] - pts[white][None, :, :]).transpose(2, 0, 1))
        return float((d.min(axis=1) <= reach).mean())

    def _caster_near(self, i: int, solid: list[tuple[int, np.ndarray]]) -> bool:
        s = self.grid.spaces[i]
        reach = 1.5 * self.sheet.pitch
        return any(j != i and math.hypot(self.grid.spaces[j].x - s.x, self.grid.spaces[j].y - s.y) <= reach
                   for j, _ in solid)

    def _solids(self, pose: Pose, tokens: dict[str, list[str]]) -> list[tuple[int, np.ndarray]]:
        """(space, frame polygon) of every piece named in ``tokens`` (not in an area)."""
        g = self.grid
        out: list[tuple[int, np.ndarray]] = []
        for sid, toks in tokens.items():
            i = g.index.get(sid)
            if i is None or g.is_area[i] or not toks or HIDDEN in toks:
                continue
            out.append((i, self._silhouette(pose, i, self._top_of(i, toks))))
        return out

    def _unnamed(self, i: int, body_px: np.ndarray, foreign_pt: np.ndarray, shadowy: np.ndarray,
                 solid: list[tuple[int, np.ndarray]]) -> tuple[np.ndarray, str | None]:
        """A space seen busy but not named, judged against the pieces ``solid`` named round it:
        its body points left in view, and "hidden" (too few of them), "in front" (nothing
        foreign but a piece in front), "shadow" (a neighbour's shadow on the paper) or None
        (something of its own is there)."""
        hidden = self._hidden(i, body_px, solid)
        seen = ~hidden
        if seen.mean() < VISIBLE_MIN:
            return seen, "hidden"
        sl = self.grid.body.of(i)
        fg = foreign_pt[sl][seen]
        share = fg.mean()
        if share <= EMPTY_MAX and hidden.any():
            return seen, "in front"
        if share > EMPTY_MAX and shadowy[sl][seen][fg].mean() >= SHADOW_ALL and self._caster_near(i, solid) \
                and (self.shadow_is_paper or share <= SHADOW_SMALL and not self._inked(sl, seen, fg)):
            # A shadow cast by a piece next to it: the paper, only darker. (DRIFT: a grey coin
            # looks like one, but a coin on its own lies on the space's centre and covers most
            # of it; a sliver of even grey with no sticker's ink is a shadow.)
            return seen, "shadow"
        return seen, None

    def nothing_of_its_own(self, pose: Pose, body_px: np.ndarray, foreign_pt: np.ndarray, shadowy: np.ndarray,
                           tokens: dict[str, list[str]], spaces: list[int]) -> set[int]:
        """Those of ``spaces`` that :meth:`_settle` will read empty as they look now — what is
        foreign there is a piece named in ``tokens`` standing in front, or its shadow — so a
        slower look for a tag there finds none (Gygès at 720p: the rings' shadows on the spaces
        beside them sent three spaces to the second looks in most reads, 20 of a 30 ms read)."""
        if pose.camera is None or not spaces:
            return set()
        solid = self._solids(pose, tokens)
        return {i for i in spaces if not self.grid.is_area[i]
                and self._unnamed(i, body_px, foreign_pt, shadowy, solid)[1] in ("in front", "shadow")}

    def _hidden(self, i: int, body_px: np.ndarray, solid: list[tuple[int, np.ndarray]]) -> np.ndarray:
        """Which of space ``i``'s body points the pieces of ``solid`` (other spaces') cover."""
        pts = body_px[self.grid.body.of(i)]
        hidden = np.zeros(len(pts), bool)
        if len(pts) == 0:
            return hidden
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        for j, poly in solid:
            if j == i or (poly.max(axis=0) < lo).any() or (poly.min(axis=0) > hi).any():
                continue
            hidden |= inside_convex(pts, poly)
        return hidden

    def _camera_distance(self, pose: Pose, i: int) -> float:
        s = self.grid.spaces[i]
        if pose.camera is None:
            return 0.0
        return math.hypot(s.x - pose.camera[0], s.y - pose.camera[1])

    def _top_of(self, i: int, toks: list[str] | tuple[str, ...]) -> float:
        """How high the top of space ``i``'s tokens stands (a pile, or a token the piece set
        does not know: the highest it may be)."""
        ps = self.pieceset
        if i in self._stacked:
            # A pile: as high as its top tag was found standing (the tallest it may be, unseen).
            s = self.grid.spaces[i]
            seen = [h for c, h in self._tops_seen if math.hypot(c[0] - s.x, c[1] - s.y) <= 0.5 * self.sheet.pitch]
            return max(seen) if seen else float(self._max_top[i])
        if ps is None:
            return float(self._max_top[i])
        try:
            return max(ps.height(t) for t in toks)
        except (KeyError, ValueError):
            return float(self._max_top[i])
