"""The test renderer: synthetic camera frames of a printed board with pieces on it.

A :class:`Renderer` draws the sheet top-down with the pieces of a :class:`~rules.View`
(tagged discs, coloured discs, or bars along edges), then photographs it: a random
:class:`Pose` (perspective, scale, rotation), uneven and tinted light, glare, a hand over
part of the board, blur and sensor noise, and frame-to-frame jitter for video. Everything
is drawn from a ``numpy`` random generator, so a seed gives the same frame.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, replace
from functools import cached_property

import cv2
import numpy as np

from rules.view import View

from vision.sheets import layout
from vision.sheets.layout import Sheet, SpaceShape
from vision.sheets.render import bgr, draw_sheet, marker_image

FRAME_SIZE = (1280, 720)


@dataclass(frozen=True)
class Pose:
    """Where the camera sees the sheet: ``H`` maps sheet millimetres to frame pixels."""

    H: np.ndarray

    def jittered(self, rng: np.random.Generator, px: float) -> "Pose":
        """The same pose with each sheet corner nudged by up to ``px`` pixels (a shaky mount)."""
        return Pose(_nudge(self.H, rng, px))

    def moved(self, dx: float, dy: float) -> "Pose":
        """The pose shifted in the frame (a bumped camera)."""
        T = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], dtype=np.float64)
        return Pose(T @ self.H)


@dataclass(frozen=True)
class Effects:
    """What makes a photograph hard to read."""

    blur: float = 0.0  # Gaussian sigma, px
    noise: float = 0.0  # sensor noise sigma, grey levels
    exposure: float = 0.85  # paper brightness as a fraction of full scale
    light: tuple[float, float, float] = (0.0, 0.0, 0.0)  # gain slope in x, in y, vignetting depth
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # per-channel gain (B, G, R)
    glare: tuple[float, float, float, float] | None = None  # x, y (frame px), radius px, strength
    hand: tuple[float, float, float, float] | None = None  # fingertip x, y (frame px), angle rad, width px

    @classmethod
    def random(cls, rng: np.random.Generator, *, hard: bool = True, size: tuple[int, int] = FRAME_SIZE) -> "Effects":
        w, h = size
        glare = hand = None
        if hard and rng.random() < 0.25:
            glare = (rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h, rng.uniform(25, 70), rng.uniform(60, 220))
        if hard and rng.random() < 0.3:
            hand = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.2, 0.8) * h, rng.uniform(0, 2 * math.pi),
                    rng.uniform(70, 130))
        return cls(
            blur=rng.uniform(0.3, 1.4 if hard else 0.8),
            noise=rng.uniform(1.0, 6.0 if hard else 3.0),
            exposure=rng.uniform(0.65, 0.8),
            light=(rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25), rng.uniform(0.0, 0.3 if hard else 0.1)),
            tint=tuple(rng.uniform(0.92, 1.08, 3)),  # type: ignore[arg-type]
            glare=glare,
            hand=hand,
        )


def _nudge(H: np.ndarray, rng: np.random.Generator, px: float) -> np.ndarray:
    src = np.float32([[0, 0], [1000, 0], [1000, 1000], [0, 1000]])
    dst = cv2.perspectiveTransform(src[None], H)[0]
    dst = dst + rng.uniform(-px, px, dst.shape).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32)).astype(np.float64)


class Renderer:
    """Draws camera frames of ``sheet`` with pieces. ``mode`` "tags" puts a tag sticker on
    each piece; "colour" leaves them plain (the colour classifier's games)."""

    def __init__(self, sheet: Sheet, *, mode: str | None = None, px_per_mm: float | None = None,
                 size: tuple[int, int] = FRAME_SIZE) -> None:
        self.sheet = sheet
        self.mode = mode or layout.DEFAULT_MODE.get(sheet.game, "tags")
        # Drawn at about twice the camera's resolution: fine detail, little aliasing.
        long_frame, short_frame = max(size), min(size)
        long_sheet, short_sheet = max(sheet.size), min(sheet.size)
        camera = min(long_frame / long_sheet, short_frame / short_sheet)
        self.s = float(px_per_mm) if px_per_mm else round(2.2 * camera, 2)
        self.size = size
        paper = draw_sheet(sheet, self.s).astype(np.float32)
        # Printed on real paper: ink is never black, paper never pure white.
        self._paper = (paper * (0.9 - 0.12) / 255 + 0.12) * 255

    # -- poses ----------------------------------------------------------------------------

    def random_pose(self, rng: np.random.Generator, *, rotation: float = 20.0, tilt: float = 0.12,
                    fill: tuple[float, float] = (0.72, 0.95)) -> Pose:
        """A camera above the board: random scale, in-plane rotation (degrees) and keystone."""
        w, h = self.size
        sw, sh = self.sheet.size
        corners = np.float32([[0, 0], [sw, 0], [sw, sh], [0, sh]])
        # A portrait board under a landscape camera is turned to lie along the frame's long
        # side, as anyone mounting a camera would: twice the pixels per millimetre.
        base = 90.0 if (sh > sw) != (h > w) else 0.0
        for _ in range(200):
            theta = math.radians(base + rng.uniform(-rotation, rotation))
            c, s = math.cos(theta), math.sin(theta)
            rot = np.array([[c, -s], [s, c]])
            centred = (corners - [sw / 2, sh / 2]) @ rot.T
            extent = centred.max(axis=0) - centred.min(axis=0)
            scale = min(w / extent[0], h / extent[1]) * rng.uniform(*fill)
            dst = centred * scale + [w / 2 + rng.uniform(-0.05, 0.05) * w, h / 2 + rng.uniform(-0.05, 0.05) * h]
            dst += rng.uniform(-tilt, tilt, (4, 2)) * scale * extent.mean() / 4
            if dst[:, 0].min() >= 2 and dst[:, 1].min() >= 2 and dst[:, 0].max() <= w - 3 and dst[:, 1].max() <= h - 3:
                return Pose(cv2.getPerspectiveTransform(corners, dst.astype(np.float32)).astype(np.float64))
        raise ValueError(f"{self.sheet.game}: cannot fit the sheet in a {w}x{h} frame")

    def centred_pose(self, fill: float = 0.9) -> Pose:
        """A camera square above the middle of the board."""
        w, h = self.size
        sw, sh = self.sheet.size
        scale = min(w / sw, h / sh) * fill
        H = np.array([[scale, 0, (w - sw * scale) / 2], [0, scale, (h - sh * scale) / 2], [0, 0, 1]], dtype=np.float64)
        return Pose(H)

    # -- drawing --------------------------------------------------------------------------

    def top_down(self, view: View, rng: np.random.Generator | None = None) -> np.ndarray:
        """The sheet with the view's pieces on it (float32 BGR, 0-255). Without ``rng``
        each piece's small offset and tag angle depend only on its space and kind, so a
        piece that stays put looks the same in every frame of a video."""
        img = self._paper.copy()
        if self.sheet.game == "drift":
            self._draw_drift(img, view, rng)
            return img
        for space, tokens in view.items():
            if rng is None:
                rng_here = np.random.default_rng(zlib.crc32(f"{space}|{'|'.join(tokens)}".encode()))
                self._draw_space(img, space, tokens, rng_here)
            else:
                self._draw_space(img, space, tokens, rng)
        return img

    def _draw_space(self, img: np.ndarray, space: str, tokens: tuple[str, ...], rng: np.random.Generator) -> None:
        shape = self.sheet.by_id.get(space)
        if shape is None:
            return
        if shape.kind == "edge":
            for token in tokens:
                self._draw_bar(img, shape, token, rng)
        elif shape.kind == "area":
            for (x, y), token in zip(layout.area_slots(self.sheet, shape.rect, len(tokens), rng), tokens):
                self._draw_disc(img, x, y, token, rng)
        else:
            jitter = self.sheet.pitch * 0.04
            self._draw_disc(img, shape.x + rng.uniform(-jitter, jitter), shape.y + rng.uniform(-jitter, jitter),
                            tokens[0], rng)

    def _draw_drift(self, img: np.ndarray, view: View, rng: np.random.Generator | None) -> None:
        """DRIFT: each ring's marker where its rotation puts it, and tokens where the rings
        have carried their arrows, side by side (see vision/readers/drift_reader.py)."""
        from vision.sheets.annuli import Annuli, drift_slots, rotations_of

        annuli = self.__dict__.setdefault("_annuli", Annuli.for_sheet(self.sheet))
        rots = rotations_of(view)
        for ring in annuli.rings:
            for tag, (x, y), turned in annuli.markers_at(ring, rots[ring.name]):
                self._draw_tag(img, (int(round(x * self.s)), int(round(y * self.s))), tag, -turned)
        for space, tokens in view.items():
            if space.startswith("rotation:") or space not in self.sheet.by_id:
                continue
            here = rng if rng is not None else np.random.default_rng(zlib.crc32(f"{space}|{'|'.join(tokens)}".encode()))
            jitter = self.sheet.pitch * 0.04
            for (x, y), token in zip(drift_slots(annuli, self.sheet, space, len(tokens), rots), tokens):
                self._draw_disc(img, x + here.uniform(-jitter, jitter), y + here.uniform(-jitter, jitter), token, here)

    def frame(self, view: View, pose: Pose, effects: Effects = Effects(),
              rng: np.random.Generator | None = None, *, top: np.ndarray | None = None,
              noise: bool = True) -> np.ndarray:
        """A camera frame (uint8 BGR). ``top`` reuses a :meth:`top_down` drawing (video);
        ``noise=False`` leaves the sensor noise to :meth:`reshoot`."""
        rng = rng if rng is not None else np.random.default_rng(0)
        src = top if top is not None else self.top_down(view, rng)
        if src.dtype != np.uint8:
            src = np.clip(src, 0, 255).astype(np.uint8)
        w, h = self.size
        S = np.diag([1 / self.s, 1 / self.s, 1.0])
        table = tuple(float(v) for v in np.array([70, 95, 120]) * rng.uniform(0.8, 1.2))
        img = cv2.warpPerspective(src, pose.H @ S, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                  borderValue=table)
        if effects.hand is not None:
            _draw_hand(img, effects.hand, rng)
        img = img.astype(np.float32)
        img *= self._light(effects)
        if effects.glare is not None:
            gx, gy, gr, strength = effects.glare
            x0, x1 = int(max(0, gx - 3 * gr)), int(min(w, gx + 3 * gr + 1))
            y0, y1 = int(max(0, gy - 3 * gr)), int(min(h, gy + 3 * gr + 1))
            if x1 > x0 and y1 > y0:
                yy, xx = np.ogrid[y0:y1, x0:x1]
                blob = strength * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gr * gr))
                img[y0:y1, x0:x1] += blob.astype(np.float32)[..., None]
        if effects.blur > 0:
            img = cv2.GaussianBlur(img, (0, 0), effects.blur)
        if noise and effects.noise > 0:
            img += self._noise(rng) * np.float32(effects.noise)
        return np.clip(img, 0, 255).astype(np.uint8)

    def reshoot(self, clean: np.ndarray, effects: Effects, rng: np.random.Generator, shake_px: float) -> np.ndarray:
        """Another exposure of a still scene: ``clean`` (a ``noise=False`` frame) moved by a
        sub-pixel shake, with fresh sensor noise. Far cheaper than drawing it again."""
        dx, dy = rng.uniform(-shake_px, shake_px, 2)
        M = np.float32([[1, 0, dx], [0, 1, dy]])
        img = cv2.warpAffine(clean, M, (clean.shape[1], clean.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        if effects.noise > 0:
            img = img.astype(np.float32) + self._noise(rng) * np.float32(effects.noise)
            return np.clip(img, 0, 255).astype(np.uint8)
        return img

    @cached_property
    def _grid(self) -> tuple[np.ndarray, np.ndarray]:
        """Frame coordinates at 1/8 resolution: the light varies slowly, so it is computed
        small and scaled up."""
        w, h = self.size
        yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
        return (xx - w / 2) / w, (yy - h / 2) / h

    @cached_property
    def _noise_bank(self) -> np.ndarray:
        w, h = self.size
        return np.random.default_rng(12345).standard_normal((h + 64, w + 64, 3), dtype=np.float32)

    def _noise(self, rng: np.random.Generator) -> np.ndarray:
        """Unit sensor noise: a random window of a fixed noise field, flipped at random
        (drawing fresh Gaussian noise for a megapixel frame dominates the render time)."""
        w, h = self.size
        x, y = (int(v) for v in rng.integers(0, 64, 2))
        win = self._noise_bank[y:y + h, x:x + w]
        if rng.random() < 0.5:
            win = win[::-1]
        return win if rng.random() < 0.5 else -win

    def _light(self, e: Effects) -> np.ndarray:
        u, v = self._grid
        gain = e.exposure * (1 + e.light[0] * u + e.light[1] * v - e.light[2] * (u * u + v * v) * 2)
        small = (gain[..., None] * np.array(e.tint, np.float32)).astype(np.float32)
        return cv2.resize(small, self.size, interpolation=cv2.INTER_LINEAR)

    # -- pieces ---------------------------------------------------------------------------

    @cached_property
    def _tag_px(self) -> int:
        return int(round(self.sheet.tag_mm * self.s))

    def _draw_disc(self, img: np.ndarray, x: float, y: float, token: str, rng: np.random.Generator) -> None:
        s, r = self.s, self.sheet.piece_radius
        colour = np.array(bgr(_colour(self.sheet.game, token)), np.float32) * rng.uniform(0.95, 1.05)
        c = (int(round(x * s)), int(round(y * s)))
        shadow = (c[0] + int(0.8 * s), c[1] + int(1.2 * s))
        cv2.circle(img, shadow, int(r * s), (90, 90, 90), -1, cv2.LINE_AA)
        cv2.circle(img, c, int(r * s), tuple(float(v) for v in colour), -1, cv2.LINE_AA)
        cv2.circle(img, c, int(r * s), tuple(float(v) * 0.7 for v in colour), max(1, int(0.6 * s)), cv2.LINE_AA)
        if self.mode == "tags" and token in layout.tag_tokens(self.sheet.game).values():
            self._draw_tag(img, c, layout.tag_id(self.sheet.game, token), rng.uniform(0, 360))

    def _draw_tag(self, img: np.ndarray, centre: tuple[int, int], tag: int, angle: float) -> None:
        """A round white sticker with the tag on it (round, so neighbouring pieces in a
        reserve can touch without covering each other's tags)."""
        side = self._tag_px
        k = int(math.ceil(side * math.sqrt(2) + 4 * self.s))  # sticker: the tag's diagonal + 2 mm each side
        k += k % 2
        sticker = np.zeros((k, k), np.float32)
        o = (k - side) // 2
        sticker[o:o + side, o:o + side] = marker_image(tag, side).astype(np.float32) * (235 - 30) / 255 + 30
        inside = np.zeros((k, k), np.float32)
        inside[o:o + side, o:o + side] = 1
        half = k // 2
        M = cv2.getRotationMatrix2D((k / 2, k / 2), angle, 1.0)
        x0, y0 = centre[0] - half, centre[1] - half
        if x0 < 0 or y0 < 0 or y0 + k > img.shape[0] or x0 + k > img.shape[1]:
            return
        warped = cv2.warpAffine(sticker, M, (k, k), flags=cv2.INTER_LINEAR)
        tagmask = cv2.warpAffine(inside, M, (k, k), flags=cv2.INTER_LINEAR)
        disc = np.zeros((k, k), np.float32)
        cv2.circle(disc, (half, half), half - 1, 1.0, -1, cv2.LINE_AA)
        face = warped * tagmask + 235 * (1 - tagmask)
        roi = img[y0:y0 + k, x0:x0 + k]
        roi[:] = roi * (1 - disc[..., None]) + face[..., None] * disc[..., None]

    def _draw_bar(self, img: np.ndarray, shape: SpaceShape, token: str, rng: np.random.Generator) -> None:
        s = self.s
        (x1, y1), (x2, y2) = shape.ends  # type: ignore[misc]
        frac, width = self.sheet.edge_bar
        ux, uy = (x2 - x1) / shape.length, (y2 - y1) / shape.length
        half = shape.length * frac / 2
        cx, cy = shape.x + rng.uniform(-0.4, 0.4), shape.y + rng.uniform(-0.4, 0.4)
        colour = np.array(bgr(_colour(self.sheet.game, token)), np.float32) * rng.uniform(0.95, 1.05)
        a = (cx - ux * half, cy - uy * half)
        b = (cx + ux * half, cy + uy * half)
        _thick_line(img, a, b, width, s, tuple(float(v) for v in colour))
        if ":" in token:
            heading = token.split(":", 1)[1]
            end = 0 if shape.heading_to(0) == heading else 1
            sign = -1 if end == 0 else 1
            band = 3.0  # mm: the flat end's dark cap
            p = (cx + sign * ux * half, cy + sign * uy * half)
            q = (cx + sign * ux * (half - band), cy + sign * uy * (half - band))
            _thick_line(img, q, p, width, s, tuple(float(v) for v in bgr(layout.FLAT_END_RGB)))


def _colour(game: str, token: str) -> tuple[int, int, int]:
    colours = layout.PIECE_COLOURS.get(game, {})
    return colours.get(token) or colours.get(layout.token_class(game, token)) or (160, 160, 160)


def _thick_line(img: np.ndarray, a: tuple[float, float], b: tuple[float, float], width_mm: float, s: float,
                colour: tuple[float, ...]) -> None:
    ux, uy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(ux, uy) or 1.0
    nx, ny = -uy / n * width_mm / 2, ux / n * width_mm / 2
    pts = np.array([(a[0] + nx, a[1] + ny), (b[0] + nx, b[1] + ny), (b[0] - nx, b[1] - ny), (a[0] - nx, a[1] - ny)])
    cv2.fillConvexPoly(img, np.round(pts * s * 16).astype(np.int32), colour, cv2.LINE_AA, shift=4)


def _draw_hand(img: np.ndarray, hand: tuple[float, float, float, float], rng: np.random.Generator) -> None:
    """A hand reaching in from outside the frame: a forearm and a palm with fingers."""
    x, y, angle, width = hand
    skin = np.array([140, 170, 220], np.float32) * rng.uniform(0.75, 1.1)
    dx, dy = math.cos(angle), math.sin(angle)
    far = (x - dx * 3000, y - dy * 3000)
    nx, ny = -dy * width * 0.45, dx * width * 0.45
    arm = np.array([(x + nx, y + ny), (far[0] + nx, far[1] + ny), (far[0] - nx, far[1] - ny), (x - nx, y - ny)])
    cv2.fillConvexPoly(img, np.round(arm).astype(np.int32), tuple(float(v) * 0.92 for v in skin), cv2.LINE_AA)
    cv2.ellipse(img, (int(x), int(y)), (int(width * 0.6), int(width * 0.5)), math.degrees(angle), 0, 360,
                tuple(float(v) for v in skin), -1, cv2.LINE_AA)
    for k in range(4):
        off = (k - 1.5) * width * 0.22
        bx, by = x + dx * width * 0.3 + nx / 0.45 * off / width, y + dy * width * 0.3 + ny / 0.45 * off / width
        length = width * rng.uniform(0.5, 0.8)
        cv2.line(img, (int(bx), int(by)), (int(bx + dx * length), int(by + dy * length)),
                 tuple(float(v) * 0.97 for v in skin), max(2, int(width * 0.14)), cv2.LINE_AA)


def with_effects(effects: Effects, **changes: object) -> Effects:
    return replace(effects, **changes)  # type: ignore[arg-type]
