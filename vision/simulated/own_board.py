"""A players' own board for the camera model: not the printed sheet.

Tests of :mod:`vision.sheets.geometry` need frames of a board the reader has never seen drawn: a
wooden board in its own colours, its own size (``scale`` × the board file's layout), its
own rim, no printed labels, and only the four corner markers (``tableref print-markers``)
stuck on near its corners, each a little turned and off its corner as a hand sticks them.
:func:`own_board` gives the board's true geometry (what a perfect fit would find) and
:func:`draw_own_board` its artwork, the texture :class:`vision.simulated.camera_model.CameraModel`
lays on the table in place of a printed sheet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from rules.board import Board

from vision.sheets.geometry import BoardGeometry, assemble
from vision.sheets.layout import CORNER_IDS, Sheet, board_shapes, median_pitch
from vision.sheets.render import marker_image

from .camera_model import TABLE_BGR

STICKER_RIM_MM = 4.0  # the white paper round a cut-out marker


@dataclass(frozen=True)
class OwnBoardStyle:
    """How the own board looks (RGB colours) and how its markers were stuck on."""

    scale: float = 0.9  # its spaces' spacing over the board file's (45 mm cells for Gygès' 50)
    rim_mm: float = 40.0  # wood beyond the outermost spaces and reserves
    wood_rgb: tuple[int, int, int] = (200, 166, 118)  # maple
    cell_rgb: tuple[int, int, int] = (232, 214, 176)
    line_rgb: tuple[int, int, int] = (120, 84, 50)
    marker_mm: float = 30.0
    turns_deg: tuple[float, float, float, float] = (6.0, -9.0, 4.0, -3.0)  # each marker as stuck
    shifts_mm: tuple[tuple[float, float], ...] = ((3.0, 5.0), (-6.0, 2.0), (-2.0, -7.0), (5.0, -3.0))


def _wood(board: Board, style: OwnBoardStyle) -> tuple[float, float, float, float]:
    """The wooden board's rectangle in the board file's mm × scale: x0, y0, x1, y1."""
    s = style.scale
    raw = board_shapes(board)
    r = 0.45 * median_pitch(np.array([(sh.x, sh.y) for sh in raw if sh.kind != "area"])) * s
    xs = [sh.x * s + d for sh in raw if sh.kind != "area" for d in (-r, r)]
    ys = [sh.y * s + d for sh in raw if sh.kind != "area" for d in (-r, r)]
    for a in board.areas:
        xs += [a.x * s, (a.x + a.w) * s]
        ys += [a.y * s, (a.y + a.h) * s]
    return min(xs) - style.rim_mm, min(ys) - style.rim_mm, max(xs) + style.rim_mm, max(ys) + style.rim_mm


def own_board(board: Board, style: OwnBoardStyle = OwnBoardStyle()) -> BoardGeometry:
    """The own board's true geometry: each marker in its corner of the wood, turned and
    shifted as ``style`` says (ids 0-3: top-left, top-right, bottom-right, bottom-left)."""
    x0, y0, x1, y1 = _wood(board, style)
    m = style.marker_mm
    inset = m / 2 + STICKER_RIM_MM + 3.0
    centres = {0: (x0 + inset, y0 + inset), 1: (x1 - inset, y0 + inset), 2: (x1 - inset, y1 - inset),
               3: (x0 + inset, y1 - inset)}
    square = np.array([(-m / 2, -m / 2), (m / 2, -m / 2), (m / 2, m / 2), (-m / 2, m / 2)])
    markers = {}
    for i in CORNER_IDS:
        a = math.radians(style.turns_deg[i])
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        cx, cy = centres[i]
        dx, dy = style.shifts_mm[i]
        markers[i] = square @ rot.T + (cx + dx, cy + dy)
    return assemble(board, style.scale, markers, marker_mm=m)


def draw_own_board(sheet: Sheet, style: OwnBoardStyle = OwnBoardStyle(), px_per_mm: float = 4.0) -> np.ndarray:
    """The own board (BGR) lying on the table, over ``sheet.size`` at ``px_per_mm``: the wood,
    its cells in their own colour, the connecting lines, the four stickers; no labels."""
    s = float(px_per_mm)
    w, h = (int(math.ceil(v * s)) for v in sheet.size)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = TABLE_BGR
    ox, oy = sheet.offset
    x0, y0, x1, y1 = _wood(sheet.board, style)

    def p(x: float, y: float) -> tuple[int, int]:
        return int(round(x * s)), int(round(y * s))

    bgr = lambda rgb: (rgb[2], rgb[1], rgb[0])
    cv2.rectangle(img, p(x0 + ox, y0 + oy), p(x1 + ox, y1 + oy), bgr(style.wood_rgb), -1, cv2.LINE_AA)
    thin = max(1, int(round(0.8 * s)))
    shapes = sheet.by_id
    for c in sheet.board.connectors:
        a, b = shapes[c.a], shapes[c.b]
        if "area" not in (a.kind, b.kind):
            cv2.line(img, p(a.x, a.y), p(b.x, b.y), bgr(style.line_rgb), thin, cv2.LINE_AA)
    half = 0.45 * sheet.pitch
    for sh in sheet.shapes:
        if sh.kind == "point":
            cv2.rectangle(img, p(sh.x - half, sh.y - half), p(sh.x + half, sh.y + half), bgr(style.cell_rgb), -1,
                          cv2.LINE_AA)
            cv2.rectangle(img, p(sh.x - half, sh.y - half), p(sh.x + half, sh.y + half), bgr(style.line_rgb), thin,
                          cv2.LINE_AA)
        elif sh.kind == "edge":
            (ax, ay), (bx, by) = sh.ends  # type: ignore[misc]
            cv2.line(img, p(ax, ay), p(bx, by), bgr(style.line_rgb), max(1, int(round(1.5 * s))), cv2.LINE_AA)
    for mid, corners in sheet.marker_corners().items():
        c = np.float32(corners)
        centre = c.mean(axis=0)
        grow = (sheet.marker_mm / 2 + STICKER_RIM_MM) / (sheet.marker_mm / 2)
        sticker = (centre + (c - centre) * grow) * s
        cv2.fillConvexPoly(img, np.round(sticker * 16).astype(np.int32), (235, 235, 235), cv2.LINE_AA, shift=4)
        n = 240
        art = cv2.cvtColor(marker_image(mid, n), cv2.COLOR_GRAY2BGR)
        M = cv2.getPerspectiveTransform(np.float32([(0, 0), (n, 0), (n, n), (0, n)]), c * s)
        cv2.warpPerspective(art, M, (w, h), dst=img, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    # Paint is never black, paper never pure white (as the camera model's printed sheet).
    return (img.astype(np.float32) * ((0.92 - 0.1) / 255) * 255 + 0.1 * 255).astype(np.uint8)
