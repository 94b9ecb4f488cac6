"""DRIFT's tokens read where they stand: each tag placed in 3-D by the heights its token may
stand at, on the one space it can belong to.

A DRIFT tag is on the top of its token: a piece (9/12/15 mm), a coin (3 mm; on a repository
it lies on the 10 mm block, and coins there may lie on each other), a carried coin's clip
(12 mm), or the top of a home's pile (up to six pieces, 72 mm for a player's six). A camera on a shelf sees
that top shifted away from the camera's foot, by up to half the pile's height at 1080p's
usual set-ups — a pile's tag may appear over the space behind it.

So a tag found in the frame is taken back down its camera ray to every height its token may
stand at (:meth:`vision.pieces.pieceset.PieceSet.top_heights` per space kind; and 0, a set laid flat),
and each place it lands is a *candidate* when it lies on a space of a kind that may hold that
token at that height — on its circle (a home's pile: within a quarter pitch of where a pile can
stand, from the home's centre to clear of its repository's block), and only on a space where the
frame shows something standing. A tag with one candidate space is that space's; with several (a
tall pile's top over the space behind it, and a piece there) every one of them is unreadable: a
tag is never given to the neighbour it overlaps. People put tokens down off their spots (up to
0.21 pitch): a lone token lies within 0.26 pitch of its space's centre, two side by side across
it (a piece and a coin) 0.15-0.62 pitch out (:mod:`vision.readers.drift_places`).

Height 0 is there for a set laid flat; a set is one or the other. When the frame shows the set
standing — at least two tags, each on one space only, that lie on its centre at their token's
height and a tenth of a pitch further off it laid flat (a home's pile top seen only at its pile's
height; a coin's 3 mm tell nothing), and under a quarter as many saying the opposite; or, tokens
put down off their centres, the lone tags together lying nearest their centres standing — no tag
of that frame is taken as laid flat (nor a piece beside a coin whose tag is missed read alone on
the space's centre): a side home's pile top seen over the arrow behind it is then the home's, the
arrow's only other candidate (a piece there, laid flat) gone. Where a piece standing on that
arrow, put down off its centre, would show its tag at the same place (tilt 30 and more), the two
stay unreadable: the tag's size tells 72 mm from 15 mm by 4 %, within the corners' noise.

The heights of a space's tags are chosen together: of each tag's candidate heights there, the
combination under which the tokens lie as a space holds them (one on the centre; a pair across
it, a round sticker apart) — a piece's tag laid flat, taken as nearest the centre, put a legal
pair too near it and made a crowd round it. A repository holds at most one coin of each type
(the piece set's ``max``), so a coin's tag on the near home is not taken for the top of a pile
of five on the repository in front of it. A lone tag off its space's centre (its pair's other
tag missed) makes a crowd round it: the thorough second look then goes to the spaces that tag
may be on, not refused as if a hand covered the many crowded spaces.

A space read empty behind a token standing in front of it (from the camera) had its foreign
points near that token excused as the token's blurred edge; a coin there, half hidden behind a
home's pile, showed only in that band and was read empty. What shows of such a space beyond the
token's own outline must be the board (a repository's block excepted: its side shows there).

Every space's foreign points must then lie on some read token's outline (its base to its top,
at the height its tag was found); what is left over is a token whose tag cannot be read, and a
space showing plainly that something stands there, but not what, is read ``(OCCUPIED, MORE)``:
at least one token (a DRIFT space may hold two, a home a pile), left to the referee to name from
the history (``rules.explain``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from rules.view import HIDDEN, MORE, OCCUPIED

from vision.read.lock import detect_all, small_tag_detector
from vision.read.pose import as_pose
from vision.read.sampling import inside_convex

from .drift_places import ROW_REACH, SNUG_ZONE, TokenPlaces
from .occlusion import standing_hull, standing_hulls
from .reasons import CROWDED, TAGS_UNREAD, UNCERTAIN, UNNAMED, foreign_tag

PARTNER_CORE = 7.0  # mm round where a pair's unread half lies: its body's core
PARTNER_WIDE = 9.0  # ...and a coin's face round it, 10 mm, less a mm astray
PARTNER_SHOWN = 0.6  # share of that core foreign before something is there
PARTNER_HIDDEN = 0.25  # share of that core a token in front hides before it may be there unseen
PATIENT_SPACES = 4  # spaces given the patient look, at most (more: a hand, glare)
PATIENT_AGREE = 2  # looks that must decode the same tag at one place
CROWD_REACH = 1.3  # pitches round a misplaced tag within which every space is unreadable
UPSCALE_CELL_PX = 5.0  # a tag cell under this many pixels is read from an enlarged crop
QUICK_CELL_PX = 5.0  # ... enlarged for the one-pass look until a cell is this many pixels
BEHIND_SEEN = 0.1  # share of the land's body in view behind a standing token foreign: a token there
# A pile stacked by hand: each token lies up to ~0.8 mm off the one under it on each axis, so a
# six-high pile's side stands up to 2-4 mm outside the upright cylinder through its top (typically
# 1-2 mm): its outline, seen in front of a space, is widened by this share of its height.
PILE_LEAN = 0.03
MIN_OUTLINE = 1.2  # the detector skips outlines shorter than this many of the smallest tag side on the board


def detect_outlined(detector: cv2.aruco.ArucoDetector, crop: np.ndarray, min_px: float) -> list[tuple[int, np.ndarray]]:
    """The tags in ``crop`` (:func:`vision.read.lock.detect_all`), no outline under ``min_px``
    contour pixels: windows under a cell find specks, each a look (the detector keeps the rate)."""
    params = detector.getDetectorParameters()
    params.minMarkerPerimeterRate = float(min_px) / max(crop.shape[:2])
    detector.setDetectorParameters(params)
    return detect_all(detector, crop)


def patient_looks(cell_px: float) -> list[tuple[int, int]]:
    """(enlargement, threshold window) of :meth:`TagsAtHeight._patient_look`: a cell 8-20 px
    enlarged, windows of 1.5, 2.5 and 4 cells (odd, 7-41 px), each look once — two windows
    clipped to the same 41 px are one look, and one look decoding a tag twice is not the two
    agreeing looks the patient look asks for (PATIENT_AGREE)."""
    looks: list[tuple[int, int]] = []
    for up in range(2, 6):
        if not 8 <= cell_px * up <= 20:
            continue
        for k in (1.5, 2.5, 4.0):
            look = (up, int(np.clip(round(k * cell_px * up), 7, 41)) | 1)
            if look not in looks:
                looks.append(look)
    return looks


class TagsAtHeight(TokenPlaces):
    """DRIFT's tag reading for :class:`vision.readers.drift_reader._TurnedReader` (a mixin on
    :class:`vision.readers.reader.Reader`): one thorough look on enlarged crops, tags placed in 3-D."""

    def _read_tags(self, frame, H, busy, foreign_pt, tokens, why) -> None:
        # The rotation spaces hold the ring markers, read by DriftReader.rotations.
        busy = busy[~self._rotation_space[busy]]
        self.__dict__["_candidates_memo"] = None  # this frame's tags' places: none worked out yet
        if len(busy) == 0:
            return
        found: list = []
        # DRIFT's 19 mm tags are about 3 px a cell at 1080p (board filling 60 %): read on crops
        # enlarged so a cell is 6 px or more — a one-pass look, then a thorough one round the
        # spaces where something is seen but not (all) named (together: 99 % of the tags; a
        # one-pass detector on the frame's own pixels finds about half).
        up = self.upscale(H)
        crops: dict = {}  # the further looks' crops, each cut and enlarged once (the patient look's three windows)
        # The one-pass look enlarges less (a 2.9 px cell 2x, not 3x: under half the pixels): the
        # camera model's DRIFT rows and the path-traced ones read as before, and a coin 3x
        # missed is read. The further looks enlarge as before.
        quick = min(up, max(1, math.ceil(QUICK_CELL_PX / self._cell_px(H))))
        self._scan(frame, H, [int(i) for i in busy], self._quick_tags(H, quick), found, upscale=quick)
        out_tokens, out_why = self._judge_tags(busy, found, foreign_pt)
        for scale in (up, up - 1 if up > 2 else up + 1):
            # A pile's top seen obliquely is squeezed to two pixels a cell across the view: a
            # tag one enlargement misses, another often reads.
            # Spaces unreadable only for lying within reach of a misplaced tag are not looked at
            # again; the spaces that tag may be on are (its partner's tag, missed, makes a pair).
            # So is a pair's half read unnamed: its tag is likely there, missed.
            again = [int(i) for i in busy if self.grid.spaces[int(i)].id in out_why
                     and (out_why[self.grid.spaces[int(i)].id] != CROWDED or int(i) in self._crowd_cause)
                     or int(i) in self._unnamed_half]
            if not again or len(again) > 2 * self.second_looks:
                break  # many such spaces: a hand or glare, and the next still frame will do
            before = len(found)
            self._scan(frame, H, again, self._small_tags, found, upscale=scale, crops=crops)
            if len(found) > before:  # (nothing more found: judged as it was)
                out_tokens, out_why = self._judge_tags(busy, found, foreign_pt)
        seen_before = len(found)
        self._patient_look(frame, H, busy, found, out_why, crops)
        if len(found) > seen_before:
            out_tokens, out_why = self._judge_tags(busy, found, foreign_pt)
        # A tag that may lie on either of two spaces (a side home's pile top seen over the arrow
        # behind it): neither is guessed. Each reads HIDDEN — anything, or nothing, may be there —
        # which is true whichever it is: the referee judges moves elsewhere and asks about one there.
        for sid in [sid for sid, r in out_why.items() if r == UNCERTAIN]:
            del out_why[sid]
            out_tokens[sid] = [HIDDEN]
        tokens.update(out_tokens)
        why.update(out_why)

    def _patient_look(self, grey, H, busy, found: list, why: dict[str, str], crops: dict | None = None) -> None:
        """Spaces still showing a token whose tag is not read (not a crowd: a lone coin, its
        19 mm tag blurred to 3 px a cell) get a patient look: its crop alone, enlarged 2-5x,
        each with one threshold window of its own. OpenCV's thorough detector merges the
        outlines its many windows find into one per place and decodes only that one, so a tag
        one window alone reads may be lost among them. A tag is taken only when two different
        looks decode the same token at the same place and no look decodes another there (the
        game's tags lie 4 bits apart and none is corrected: two agreeing misreads are not
        plausible)."""
        unread = [int(i) for i in busy if why.get(self.grid.spaces[int(i)].id) in (UNNAMED, TAGS_UNREAD)]
        if not unread or len(unread) > PATIENT_SPACES:
            return  # many such spaces: a hand or glare, the next still frame will do
        cell = self._cell_px(H)
        half = self.sheet.tag_mm / 2
        looks = patient_looks(cell)
        for i in unread:
            seen: list[tuple[int, np.ndarray]] = []
            for up, window in looks:
                if up > looks[0][0] and all(self._among(t, mm, found) for t, mm in seen):
                    # The least enlarged looks showed no tag not read already: the larger ones
                    # are not taken (on the camera model's bench they never found one then; a
                    # look enlarged 5x costs three of one at 3x).
                    break
                looked: list[tuple[int, np.ndarray]] = []
                self._scan(grey, H, [i], self._window_tags(window), looked, upscale=up, crops=crops)
                seen += [(t, mm) for t, mm in looked if t in self._tags]
            centres = [mm.mean(axis=0) for _, mm in seen]
            for (tag, mm), c in zip(seen, centres):
                there = [t for (t, _), m in zip(seen, centres) if math.hypot(*(m - c)) < half]
                if there.count(tag) >= PATIENT_AGREE and len(set(there)) == 1 and not self._among(tag, mm, found):
                    found.append((tag, mm))

    def _among(self, tag: int, mm: np.ndarray, found: list[tuple[int, np.ndarray]]) -> bool:
        """Is ``tag`` at ``mm`` one of ``found`` (the same tag, its centre within half a tag)?"""
        c = mm.mean(axis=0)
        return any(t == tag and math.hypot(*(m.mean(axis=0) - c)) < self.sheet.tag_mm / 2 for t, m in found)

    def _window_tags(self, window: int) -> cv2.aruco.ArucoDetector:
        cache = self.__dict__.setdefault("_window_detectors", {})
        if window not in cache:
            cache[window] = small_tag_detector(self._dictionary, window)
        return cache[window]

    @property
    def _small_tags(self) -> cv2.aruco.ArucoDetector:
        if "_small_tags_detector" not in self.__dict__:
            self.__dict__["_small_tags_detector"] = small_tag_detector(self._dictionary)
        return self.__dict__["_small_tags_detector"]

    def _quick_tags(self, H, up: int) -> cv2.aruco.ArucoDetector:
        return self._window_tags(int(np.clip(round(2.5 * self._cell_px(H) * up), 7, 31)) | 1)

    def _detect(self, detector, crop, H, upscale):
        return detect_outlined(detector, crop, self.min_outline_px(H) * upscale)

    def min_outline_px(self, H) -> float:
        """The shortest outline of a tag in frame pixels: :data:`MIN_OUTLINE` of the smallest
        side a tag lying anywhere on the board shows (its far corner, squeezed by the tilt). A
        tag's outline counts about 2.8 sides turned 45 degrees, 4 square on; a token's tag is
        nearer the camera, larger."""
        memo = self.__dict__.get("_outline_memo")
        if memo is None or memo[0] is not H:
            w, h = self.sheet.size
            t = self.sheet.tag_mm
            pts = np.float32([(x, y) for x in (0, w / 2, w) for y in (0, h / 2, h)])
            px = as_pose(H).to_px(np.concatenate([pts, pts + [t, 0], pts + [0, t]])).reshape(3, -1, 2)
            side = min(np.linalg.norm(px[1] - px[0], axis=1).min(), np.linalg.norm(px[2] - px[0], axis=1).min())
            memo = self.__dict__["_outline_memo"] = (H, MIN_OUTLINE * float(side))
        return memo[1]

    def upscale(self, H) -> int:
        """How much a crop is enlarged for the detector: a tag cell of 6 px or more."""
        cell = self._cell_px(H)
        return 1 if cell >= UPSCALE_CELL_PX else (2 if cell >= 3.5 else 3)

    def _locate(self, pose, tag, corners):
        """Where the frame shows the tag on the board's plane; placed in 3-D by :meth:`_judge_tags`."""
        return pose.to_mm(corners).astype(np.float32)

    # -- placing tags (vision/readers/drift_places.py: where each may be) -----------------

    def _judge_tags(self, busy, found, foreign_pt):
        g, sheet = self.grid, self.sheet
        tokens: dict[str, list[str]] = {}
        why: dict[str, str] = {}
        busy_set = {int(i) for i in busy}
        placed: dict[int, list[tuple[str, list[tuple[float, np.ndarray, float]]]]] = {}
        astray: list[np.ndarray] = []
        self._found, self._tops_seen = [], []
        self._crowd_cause: set[int] = set()
        tags, corners, sides = self._seen_tags(found)
        centres = corners.mean(axis=1)
        # A pile's top is nearer the camera: its tag seen up to ~6 % larger on the plane.
        sized = (0.7 * sheet.tag_mm <= sides.mean(axis=1)) & (sides.mean(axis=1) <= 1.4 * sheet.tag_mm) \
            & (sides.max(axis=1) <= 1.4 * sides.min(axis=1))
        every = [self._candidates_of(tag, plane, busy_set) if tag in self._tags else [] for tag, plane in tags]
        if self.stance.seen(self._standing(every, self._shared(every))):
            # The frame shows the set standing at its heights: none of its tags is laid flat.
            every = [[c for c in cands if c[1] > 0] or cands for cands in every]
        shared = self._shared(every)
        for k, (tag_cands, (tag, _)) in enumerate(zip(every, tags)):
            centre = centres[k]
            token = self._tags.get(tag)
            if token is None or not sized[k]:
                for i in self._near(centre):
                    why[g.spaces[i].id] = foreign_tag(tag)
                continue
            cands = self._kept(tag_cands, shared)
            spaces = {i for i, _, _, _ in cands}
            if not spaces:
                astray.append(centre)  # on no space that may hold it: off its space, or crowded
            elif len(spaces) > 1:
                for i in spaces:
                    why[g.spaces[i].id] = UNCERTAIN
                for _, h, c, _ in cands:
                    self._found.append(c)  # whichever it is, its token explains what it covers
                    self._tops_seen.append((c, h))
            else:
                i = next(iter(spaces))
                placed.setdefault(i, []).append((token, sorted(((h, c, d) for _, h, c, d in cands), key=lambda x: x[2])))
        homes = self._homes
        snug_off: dict[int, np.ndarray] = {}  # lone tokens put down well off their centres
        partners: dict[int, np.ndarray] = {}
        lone: dict[int, tuple] = {}
        for i, got in placed.items():
            s = g.spaces[i]
            # Each tag at the height that puts its space's tokens as a space holds them (a pair:
            # one each side, a sticker apart), else at its nearest to the centre.
            chosen, right = self._arrange(i, got) if s.id not in why and s.id not in homes else \
                ([opts[0] for _, opts in got], True)
            if not right and s.id not in why and s.id not in homes and len(got) == 1:
                # A lone tag lying as one of a pair: its partner's tag may be unread (a coin's,
                # blurred). Judged with the partner's place below; nothing there, it is astray.
                half = self._half_of_pair(i, got[0][1])
                partner = None if half is None else (2 * np.float32([s.x, s.y]) - half[1]).astype(np.float32)
                if partner is not None and self._shows_at(i, partner, foreign_pt):
                    chosen, right = [half], True
                    partners[i] = partner
                elif partner is not None:
                    chosen = [half]
                    lone[i] = (partner, half[:2])  # judged below, once every standing token is placed
            for h, c, _ in chosen:
                self._found.append(c)
                self._tops_seen.append((c, h))
            if right and len(chosen) == 1 and chosen[0][2] > SNUG_ZONE and s.id not in homes and i not in partners:
                snug_off[i] = chosen[0][1]
            placed[i] = [(token, c) for (token, _), (_, c, _) in zip(got, chosen)]
            if s.id in why:
                continue
            if s.id in homes:
                if len(got) > 1:
                    why[s.id] = CROWDED
                    self._crowd_cause.add(i)
            elif not right and i not in lone:
                astray += [c for _, c in placed[i]]
                self._crowd_cause.add(i)
        # A space a third token may have spilled from: one showing two tokens side by side (a
        # pair, one half maybe unread), a home (what stands beside its pile's top is not seen),
        # or one whose token has two others within a row's step (a row of three through it).
        reach = ROW_REACH * sheet.pitch
        full: set[int] = set()
        if snug_off:
            owner = [j for j, toks in placed.items() for _ in toks]
            at = np.float64([o for toks in placed.values() for _, o in toks]).reshape(-1, 2)
            beside = (np.hypot(*(at[:, None] - at[None]).transpose(2, 0, 1)) <= reach).sum(axis=1) - 1
            full = {j for j, toks in placed.items() if len(toks) >= 2 or j in partners or j in lone
                    or g.spaces[j].id in homes} | {j for j, n in zip(owner, beside) if n >= 2}
        for i, c in snug_off.items():
            # A lone token put down well off its centre beside such a space's token, a sticker
            # apart, may be that space's third token spilled over (three side by side do not fit
            # on a space): where it lies, it is either. Neither is guessed. Two lone tokens put
            # down off their centres towards each other (the path-traced webcam row: 0.2 pitch
            # each, 0.73 apart, nothing else near) are each their own.
            if i not in lone and any(j != i and j in full and math.hypot(*(c - o)) <= reach
                                     for j, toks in placed.items() for _, o in toks):
                astray.append(c)
                self._crowd_cause.add(i)
        unseen: set[int] = set()
        self._unnamed_half = set(partners)
        for i, (partner, own) in lone.items():
            # A lone tag lying as one of a pair: what the camera sees of its partner's place
            # past the tokens in front may plainly show a token (occupied); hidden in part, its
            # partner may be there or not (a coin half hidden shows too little to say): this
            # token, and maybe more. Else it is astray.
            if self._shows_at(i, partner, foreign_pt, own):
                partners[i] = partner
                self._unnamed_half.add(i)
            elif self._part_hidden(i, partner, own):
                partners[i] = partner
                unseen.add(i)
                self._unnamed_half.add(i)
            else:
                astray += [c for _, c in placed[i]]
                self._crowd_cause.add(i)
        if astray:
            for i in self._near(*astray, reach=CROWD_REACH):
                why[g.spaces[i].id] = CROWDED
        judged = [i for i in sorted(busy_set | set(placed)) if g.spaces[i].id not in why]
        unexplained = self._unexplained(judged, foreign_pt, partners)
        for i in judged:
            s = g.spaces[i]
            self._space_read(i, placed.get(i, []), tokens, why, unexplained.get(i), partners.get(i),
                             MORE if i in unseen else OCCUPIED)  # [] : a neighbour's token
            if s.id in homes and tokens.get(s.id):
                tokens[s.id] = [*tokens[s.id], MORE]  # a pile: its top is seen, not what lies beneath
        self._seen_behind(tokens, why, foreign_pt)
        return tokens, why

    def _seen_behind(self, tokens: dict[str, list[str]], why: dict[str, str], foreign_pt: np.ndarray) -> None:
        """A space read empty behind a token standing in front of it (from the camera): its
        foreign points near that token were excused as the token's blurred edge, but a token on
        this space, part hidden (a coin behind a home's pile), shows there too. What shows of
        its body beyond the token's own outline must then be the board: more than
        :data:`BEHIND_SEEN` of it foreign, and not shadow-like, is something here that is not
        read. (A coin on a repository behind a pile is not caught so: the block's own side
        shows there, lit otherwise.)"""
        pose = self._pose
        if pose is None or pose.camera is None:
            return
        g = self.grid
        foot = np.asarray(pose.camera[:2], np.float64)
        standing = [(c, self._radius + PILE_LEAN * h, h) for c, h in self._tops_seen if h > 0]
        solids = [(float(np.hypot(*(np.asarray(c, np.float64) - foot))), hull)
                  for (c, _, _), hull in zip(standing, standing_hulls(pose, standing))]
        if not solids:
            return
        for sid, toks in tokens.items():
            i = g.index.get(sid)
            # (Not a repository: its block stands itself, its side lit otherwise beside a token,
            # as _area excuses it — what shows beyond the token says nothing there.)
            if toks or sid in why or i is None or g.is_area[i] or g.body.counts[i] == 0 \
                    or self._kinds()[i] == "repository":
                continue
            s = g.spaces[i]
            sl = g.body.of(i)
            px = pose.kept(("body of", id(g), i), lambda: pose.to_px(g.body.mm[sl]), of=g)
            lo, hi = px.min(axis=0), px.max(axis=0)
            here = math.hypot(s.x - foot[0], s.y - foot[1])
            front = [poly for dist, poly in solids if dist < here - 1.0
                     and not (poly.max(axis=0) < lo).any() and not (poly.min(axis=0) > hi).any()]
            if not front:
                continue
            hidden = np.zeros(len(px), bool)
            for poly in front:
                hidden |= inside_convex(px, poly)
            if not hidden.any():
                continue
            fg = foreign_pt[sl] & ~hidden
            if len(self._shadow_pt):
                fg &= ~self._shadow_pt[sl]
            if fg.sum() > BEHIND_SEEN * max(int((~hidden).sum()), 1):
                why[sid] = UNNAMED

    def _shows_at(self, i: int, p: np.ndarray, foreign_pt: np.ndarray, own: tuple | None = None) -> bool:
        """Does space ``i``'s body plainly show something round ``p`` (a token's core)? Its
        core first; then (``own``: the pair's other half, (height, place)) as wide as a coin's
        face, where no token standing nearer the camera covers it (a piece's top, seen past its
        base, reaches over the space's centre towards ``p``), foreign and not shadow-like — or
        showing a sticker's ink (a coin's face reads shadow-grey)."""
        sl = self.grid.body.of(i)
        pts = self.grid.body.mm[sl]
        d = np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])
        core = d <= PARTNER_CORE
        if core.sum() >= 3 and foreign_pt[sl][core].mean() >= PARTNER_SHOWN:
            return True
        if own is None:
            return False
        wide = (d <= PARTNER_WIDE) & ~self._hidden_by_nearer(np.asarray(p, np.float64), pts.astype(np.float64),
                                                              [*self._tops_seen, (own[1], own[0])])
        fg = foreign_pt[sl][wide]
        return bool(wide.sum() >= 3 and fg.mean() >= PARTNER_SHOWN and fg.any()
                    and (self._shadow_pt[sl][wide][fg].mean() < 0.5 or self._inked(sl, wide, fg)))

    def _hidden_by_nearer(self, p: np.ndarray, pts: np.ndarray, tops: list) -> np.ndarray:
        """Which of sheet points ``pts`` (round a place ``p`` on the board) the standing
        tokens of ``tops`` ((place, height)) nearer the camera than ``p`` hide from it."""
        pose = self._pose
        hidden = np.zeros(len(pts), bool)
        if pose is None or pose.camera is None or not len(pts):
            return hidden
        foot = np.asarray(pose.camera[:2], np.float64)
        here = float(np.hypot(*(p - foot)))
        pts_px = None
        for c, h in tops:
            if h <= 0 or float(np.hypot(*(np.asarray(c, np.float64) - foot))) >= here:
                continue  # (laid flat, or behind it)
            pts_px = pose.to_px(pts) if pts_px is None else pts_px
            hidden |= inside_convex(pts_px, standing_hull(pose, c, self._radius, h))
        return hidden

    def _part_hidden(self, i: int, p: np.ndarray, own: tuple) -> bool:
        """Is a token at ``p`` (on space ``i``) out of the camera's sight, in part, behind the
        tokens read standing nearer it — the pair's other half ``own`` ((height, place))
        too? :data:`PARTNER_HIDDEN` of its core or more hidden; or what of space ``i``'s body
        lies round ``p`` (the side nearest the centre) hidden, half of it or more, so that
        the body cannot tell whether anything is there."""
        a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
        ring = np.stack([np.cos(a), np.sin(a)], axis=1)
        p = np.asarray(p, np.float64)
        core = np.concatenate([[p], p + ring * PARTNER_CORE / 2, p + ring * PARTNER_CORE])
        tops = [*self._tops_seen, (own[1], own[0])]
        if self._hidden_by_nearer(p, core, tops).mean() >= PARTNER_HIDDEN:
            return True
        pts = self.grid.body.mm[self.grid.body.of(i)].astype(np.float64)
        near = np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1]) <= PARTNER_WIDE
        return bool(near.sum() >= 3 and self._hidden_by_nearer(p, pts[near], tops).mean() >= 0.5)

    def _near(self, *centres: np.ndarray, reach: float = 0.7) -> list[int]:
        """Point spaces within ``reach`` pitches of any of ``centres`` at any height a token
        may stand at (the tag's own place and every drop of it down its ray, to 90 mm)."""
        pose = self._pose
        top = float(self._max_top.max()) if len(self._max_top) else 0.0
        pts = self._points[self._point_ids]
        hit = np.zeros(len(pts), bool)
        for c in centres:
            ends = [np.asarray(c, np.float64)]
            if pose is not None and pose.camera is not None:
                ends.append(pose.drop(np.asarray(c, np.float64)[None], top)[0])
            for t in np.linspace(0, 1, 8 if len(ends) > 1 else 1):
                p = ends[0] + (ends[-1] - ends[0]) * t
                hit |= np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1]) <= reach * self.sheet.pitch
        return [int(i) for i in self._point_ids[hit]]
