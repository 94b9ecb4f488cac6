"""Reading Gygès's rings without stickers ("shapes" reading, issue 17 item 3).

A ring of height *n* is a stack of *n* tiers, each narrower than the one below
(:mod:`vision.pieces.rings` gives the decision and :data:`~vision.pieces.rings.TIERS` the
tiers' radii and heights, measured off a real set as the piece set's heights are). From
above every tier's rim is a circle darker than the flat top just inside it. So at each space
the empty board cannot explain:

1. the piece's centre is found from tier 1's rim (every ring has one): the offset, within a
   few mm of the space's centre, where the rim is darkest against the top inside it;
2. each tier's *rim contrast* is measured there: ``1 - rim / inside`` (a ratio: the lamp's
   light cancels), on tier *j*'s circle at tier *j*'s height (the pose's parallax, as the tag
   reader uses it), on the arc facing the camera only — there the tier above never hides it,
   and where tier *j* is missing the ray runs on to the flat top below, never to a rim;
3. a tier is *present* above its learned line and *absent* below another; the ring is named
   only when tiers 1..n are present and the rest absent, every one of them clearly. Anything
   else (a rim in between, a tier present over an absent one, no rim at all) names no kind:
   the space is read ``occupied`` (mixed fidelity, the referee resolves it from history) when
   it is a ring all the same (the outer rim round a flat top); a fainter rim round a flat top,
   or no rim where the printed paper does not show through either, is unreadable (grey metal
   must never be taken for a neighbour's shadow and read empty); only what lets the paper show
   through goes to the plain reader's judgement (a shadow is paper) — never a wrong kind.

The lines are learned (:func:`learn_rings`) from frames of a known position — the default
set-up, where the engine says which ring is where — as the colour games learn their colours:
each tier's contrasts where it is present and where it is absent. Nothing here knows the
colours a renderer paints.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from rules.view import OCCUPIED, Fidelity, View

from vision.pieces.pieceset import PieceSet
from vision.pieces.rings import RIM_MM, RING_TOKENS, TIERS
from vision.read.empty_board import Calibration, CalibrationError
from vision.read.lens import Lens
from vision.read.pose import Pose
from vision.read.samples import SampleGrid
from vision.read.sampling import remap_px

from .reasons import TIERS_UNCLEAR, UNNAMED
from .reader import Reader

ARC_DEG = 70.0  # half the arc (round the direction to the camera) the rims are measured on
ARC_POINTS = 15
SEARCH_MM = 4.0  # how far from the space's centre a ring may stand (the game's pieces are placed by hand)
SEARCH_STEP = 1.0  # about a pixel at 60 % framing; then FINE_STEP within a step round the best
FINE_STEP = 0.25
TIER_STEP_MM = 8.0  # the height between tiers (TIERS)
ALL_ROUND_MM = 0.5  # a tier's side hiding less than this of the one below: the whole rim is measured
INSIDE_MM = 1.8  # the flat top compared with the rim lies this far inside it
PRESENT_AT, ABSENT_AT = 0.6, 0.4  # of the learned gap between absent and present, per tier
OWN_SCALE = 0.4  # how far a ring's own outer rim may scale the lines of the tiers above it
AGREE = 0.8  # share of the arc's angles that must agree on a tier
FLAT_SLACK = 0.04  # a flat top's spread allowed beyond the largest the calibration saw
SEEN_FLAT = 1.5  # × flat_max: a top flat enough that a faint rim round it may be a ring's
PAPER_SHOWS = 0.6  # correlation with the empty board's print above which the paper shows through
MIN_GAP = 0.06  # a calibration whose tiers differ by less than this contrast cannot tell them
TOKEN_OF = {n: t for t, n in RING_TOKENS.items()}


@dataclass(frozen=True)
class RingModel:
    """What calibration learned: per tier, the typical rim contrast where it is present and
    where it is absent (tier 1 is on every ring: its ``absent`` is the bare top's, tier 2/3's)."""

    present: tuple[float, float, float]
    absent: tuple[float, float, float]
    flat_max: float = 0.08  # the flat top's spread along the arc (std / mean) beyond which it is no ring's
    version: int = 1

    def present_line(self, j: int) -> float:
        return self.absent[j] + PRESENT_AT * (self.present[j] - self.absent[j])

    def absent_line(self, j: int) -> float:
        return self.absent[j] + ABSENT_AT * (self.present[j] - self.absent[j])

    def kind(self, contrast: np.ndarray, spread: np.ndarray | None = None) -> int | None:
        """The ring's height told by its tiers' contrasts (tiers × arc angles, or one per tier)
        and the flat tops' spreads along the arc, or None where any tier is unclear: a tier is
        present where the rim is darker than the line at ``AGREE`` of the arc's angles, absent
        where it is within the other line of the flat top's at as many, and every top sampled is
        flat (a ray past a missing tier lands on the flat top below)."""
        contrast = np.asarray(contrast, np.float64).reshape(len(TIERS), -1)
        # The upper tiers' rims are judged against this ring's own outer rim (light and blur
        # differ over the board as much as between the tiers).
        own = float(np.clip(np.median(contrast[0]) / max(self.present[0], 1e-6), 1 - OWN_SCALE, 1 + OWN_SCALE))
        state = []
        for j, c in enumerate(contrast):
            k = 1.0 if j == 0 else own
            gap = (self.present[j] - self.absent[j]) * k
            if (c >= self.absent[j] + PRESENT_AT * gap).mean() >= AGREE:
                state.append(True)
            elif (np.abs(c - self.absent[j]) <= ABSENT_AT * gap).mean() >= AGREE:
                # flat: neither a darker rim nor a brighter one (a sticker's white edge)
                state.append(False)
            else:
                return None
        n = sum(state)
        if spread is not None and (np.asarray(spread) > self.flat_max).any():
            return None  # a pattern on the top (a sticker, a hand's fingers), not a ring's metal
        return n if n >= 1 and state == [True] * n + [False] * (len(state) - n) else None

    def is_ring(self, contrast: np.ndarray, spread: np.ndarray) -> bool:
        """A ring of some height: the outer rim darker than the present line over most of the
        arc (its median) and every top sampled flat — something the tiers cannot name, but a
        ring all the same (a hand or a sticker is not flat)."""
        contrast = np.asarray(contrast, np.float64).reshape(len(TIERS), -1)
        return bool(np.median(contrast[0]) >= self.present_line(0) and (np.asarray(spread) <= self.flat_max).all())

    def rim_seen(self, contrast: np.ndarray, spread: np.ndarray) -> bool:
        """Any sign of an outer rim (its median over the absent line) round a top about as flat
        as a ring's: a ring may be there (a neighbour's shadow across bare paper is not flat)."""
        contrast = np.asarray(contrast, np.float64).reshape(len(TIERS), -1)
        return bool(np.median(contrast[0]) > self.absent_line(0) and spread[0] <= SEEN_FLAT * self.flat_max)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"gyges_rings": asdict(self)}, indent=1))

    @classmethod
    def load(cls, path: str | Path) -> "RingModel":
        """A ring file as :meth:`save` writes it; an unknown, missing or repeated key is refused
        naming it (``rules/strict.py``), as every file tableref reads."""
        from rules.strict import expect_keys, loads

        where = f"ring file {path}"
        try:
            data = loads(Path(path).read_text(), where=where, error=CalibrationError)
            expect_keys(data, required=("gyges_rings",), where=where, error=CalibrationError)
            raw = expect_keys(data["gyges_rings"], required=("present", "absent", "flat_max", "version"),
                              where=where, path="gyges_rings", error=CalibrationError)
            model = cls(tuple(float(v) for v in raw["present"]), tuple(float(v) for v in raw["absent"]),  # type: ignore[arg-type]
                        float(raw["flat_max"]), int(raw["version"]))
        except OSError as exc:
            raise CalibrationError(f"{where}: cannot read: {exc.strerror}") from None
        except (ValueError, TypeError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"{where}: not a ring calibration ({exc})") from None
        if len(model.present) != len(TIERS) or len(model.absent) != len(TIERS):
            raise CalibrationError(f"{where}: gyges_rings needs {len(TIERS)} tiers' present and absent contrasts")
        return model


def _grey(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _arc(pose: Pose, x: float, y: float) -> np.ndarray:
    """Angles (radians, sheet) of the arc facing the camera round (x, y)."""
    if pose.camera is None or math.hypot(pose.camera[0] - x, pose.camera[1] - y) * TIER_STEP_MM / pose.camera[2] \
            < ALL_ROUND_MM:  # seen from nearly above: no tier hides the rim below it, the whole rim
        return np.linspace(0, 2 * math.pi, 2 * ARC_POINTS, endpoint=False)
    a0 = math.atan2(pose.camera[1] - y, pose.camera[0] - x)
    return a0 + np.radians(np.linspace(-ARC_DEG, ARC_DEG, ARC_POINTS))


def _circle_values(grey: np.ndarray, pose: Pose, centres: np.ndarray, radius: float, height: float,
                   angles: np.ndarray) -> np.ndarray:
    """Grey on the arc of ``radius`` at ``height`` round each of ``centres`` (K, 2): (K, angles)."""
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1) * radius
    pts = (centres[:, None, :] + ring[None]).reshape(-1, 2)
    return remap_px(grey, pose.to_px(pts, height))[:, 0].reshape(len(centres), -1)


def _offsets(reach: float, step: float) -> np.ndarray:
    """A grid of offsets (mm) within ``reach`` of the origin."""
    steps = np.arange(-reach, reach + 1e-6, step)
    dx, dy = np.meshgrid(steps, steps)
    keep = np.hypot(dx, dy) <= reach + 1e-6
    return np.stack([dx[keep], dy[keep]], axis=1)


def rim_contrasts(grey: np.ndarray, pose: Pose, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """Each tier's rim contrast (``1 - rim / inside``) along the arc at a ring on (x, y), its
    centre first found from tier 1's rim (see the module doc): (tiers × angles), and each
    tier's flat top's spread along the arc (std / mean)."""
    angles = _arc(pose, x, y)
    centres = np.array([x, y]) + _offsets(SEARCH_MM, SEARCH_STEP)

    def contrast(c: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
        r, h = TIERS[j]
        rim = np.minimum(_circle_values(grey, pose, c, r - 0.3 * RIM_MM, h, angles),
                         _circle_values(grey, pose, c, r - 0.7 * RIM_MM, h, angles))
        inside = _circle_values(grey, pose, c, r - RIM_MM - INSIDE_MM, h, angles)
        return 1.0 - rim / np.maximum(inside, 1.0), inside

    best = centres[int(np.argmax(contrast(centres, 0)[0].mean(axis=1)))]
    fine = best + _offsets(SEARCH_STEP, FINE_STEP)  # a finer look round it
    best = fine[int(np.argmax(contrast(fine, 0)[0].mean(axis=1)))][None]
    got = [contrast(best, j) for j in range(len(TIERS))]
    spread = np.array([float(v[0].std() / max(float(v[0].mean()), 1.0)) for _, v in got])
    return np.stack([c[0] for c, _ in got]), spread


def learn_rings(grid: SampleGrid, calibration: Calibration, shots: Iterable[tuple[np.ndarray, "np.ndarray | Pose", View]],
                *, lens: Lens | None = None) -> RingModel:
    """The rims' contrasts learned from locked frames of known positions (``(frame, H, view)``,
    the default set-up's): per tier the median where present and where absent. Raises
    :class:`CalibrationError` when the tiers cannot be told apart, or when the lines learned do
    not read the calibration's own rings right."""
    if grid.sheet.game != "gyges":
        raise CalibrationError(f"{grid.sheet.game}: reading pieces without stickers is for Gygès's rings only")
    reader = Reader(grid, calibration, Fidelity.KIND, lens=lens)
    seen: list[tuple[np.ndarray, int, str]] = []
    spreads: list[np.ndarray] = []
    for frame, H, view in shots:
        pose, grey = reader.pose(frame, H), _grey(frame)
        for space, toks in view.items():
            n = RING_TOKENS.get(toks[0]) if len(toks) == 1 else None
            s = grid.sheet.by_id.get(space)
            if n is not None and s is not None:
                c, spread = rim_contrasts(grey, pose, s.x, s.y)
                seen.append((np.median(c, axis=1), n, space))
                spreads.append(spread)
    if not seen:
        raise CalibrationError("gyges: ring calibration needs a frame of a known position with rings on it")
    c = np.array([v for v, _, _ in seen])
    n = np.array([k for _, k, _ in seen])
    present, absent = [], []
    for j in range(len(TIERS)):
        on, off = c[n > j, j], c[n <= j, j]
        if len(on) == 0:
            raise CalibrationError(f"gyges: ring calibration needs rings of every height (no tier {j + 1} seen)")
        present.append(float(np.median(on)))
        absent.append(float(np.median(off)) if len(off) else float(np.median(c[n <= 1, 1:])) if (n <= 1).any() else 0.0)
    for j in range(len(TIERS)):
        if present[j] - absent[j] < MIN_GAP:
            raise CalibrationError(f"gyges: tier {j + 1}'s rim is not told from a flat top here "
                                   f"(contrast {present[j]:.3f} vs {absent[j]:.3f}); read the rings by their tags")
    model = RingModel(tuple(present), tuple(absent),  # type: ignore[arg-type]
                      float(np.max(np.concatenate(spreads))) + FLAT_SLACK)
    wrong = [f"{sp} ({k} read {model.kind(v)})" for v, k, sp in seen if model.kind(v) not in (k, None)]
    if wrong:
        raise CalibrationError(f"gyges: the ring lines learned misread the calibration's own rings: {', '.join(wrong)}")
    return model


def _pattern_match(seen: np.ndarray, printed: np.ndarray) -> float:
    """How far ``seen`` follows the empty board's ``printed`` pattern (correlation; 0 where the
    paper there is plain)."""
    if len(seen) < 8 or printed.std() < 1.0 or seen.std() < 1e-6:
        return 0.0
    return float(np.corrcoef(seen, printed)[0, 1])


class RingReader(Reader):
    """The plain reader (empty board, light, occlusion, "occupied") with Gygès's rings named by
    their tiers instead of tags (reading mode "shapes")."""

    mode = "shapes"

    def __init__(self, grid: SampleGrid, calibration: Calibration, rings: RingModel,
                 fidelity: Fidelity = Fidelity.KIND, *, lens: Lens | None = None,
                 pieceset: PieceSet | None = None) -> None:
        if grid.sheet.game != "gyges":
            raise CalibrationError(f"{grid.sheet.game}: shapes reading is for Gygès's rings only")
        super().__init__(grid, calibration, fidelity, lens=lens, pieceset=pieceset)
        self.rings = rings

    def _paper_shows(self, grey: np.ndarray, pose: Pose, i: int, foreign_pt: np.ndarray) -> bool:
        """Whether the printed paper's pattern (the space's circle, its lines) still shows
        through what is foreign at space ``i``: a shadow darkens the paper, a ring hides it.
        Judged on the foreign points alone (a shadow's edge across the space is no pattern)."""
        sl = self.grid.body.of(i)
        fg = foreign_pt[sl]
        seen = remap_px(grey, pose.to_px(self.grid.body.mm[sl][fg]))[:, 0]
        printed = np.asarray(self._mid[sl], np.float32).reshape(fg.size, -1).mean(axis=1)[fg]
        return _pattern_match(seen, printed) >= PAPER_SHOWS

    def _read_tags(self, frame: np.ndarray, H: Pose, busy: np.ndarray, foreign_pt: np.ndarray,
                   tokens: dict[str, list[str]], why: dict[str, str]) -> None:
        if len(busy) == 0:
            return
        grey = _grey(frame)
        g = self.grid
        for i in busy:
            s = g.spaces[int(i)]
            if g.is_area[i] or g.is_edge[i]:
                why[s.id] = UNNAMED
                continue
            contrast, spread = rim_contrasts(grey, H, s.x, s.y)
            n = self.rings.kind(contrast, spread)
            if n is not None:
                tokens[s.id] = [TOKEN_OF[n]]
            elif self.rings.is_ring(contrast, spread):
                tokens[s.id] = [OCCUPIED]  # a ring whose height is unclear: the referee knows it from history
            elif self.rings.rim_seen(contrast, spread):
                # Metal is grey, as shadowed paper is: where a rim shows, the plain judgement
                # (which takes grey beside a piece for its shadow) must not read it empty.
                why[s.id] = TIERS_UNCLEAR
            elif self._paper_shows(grey, H, int(i), foreign_pt):
                why[s.id] = UNNAMED  # the plain judgement: a shadow over the paper, a hand, ...
            else:
                # Something hides the printed paper here: a ring (grey metal, like shadowed
                # paper) the plain judgement might take for a neighbour's shadow and read empty.
                why[s.id] = TIERS_UNCLEAR
