"""Printable boards and tag sheets, drawn from the board file at true scale.

:func:`draw_sheet` draws a board's sheet (spaces, connectors, areas, labels, the four
corner markers and a 100 mm scale bar); :func:`board_pages` cuts it into A4/A3 tiles with
overlap and page labels; :func:`tag_pages` lays out the sticker sheet of piece tags (front
and back side by side for double-sided pieces). :func:`write_pdf` is a minimal PDF writer:
one lossless (Flate) RGB image per page at its physical size — no PDF library needed.
Images are OpenCV BGR ``uint8`` arrays.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from . import layout
from .layout import Sheet

PAPER_MM = {"A4": (210.0, 297.0), "A3": (297.0, 420.0)}
PRINTER_MARGIN_MM = 8.0  # most printers cannot print closer to the edge
TILE_OVERLAP_MM = 12.0
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def aruco_dictionary(name: str | None = None) -> "cv2.aruco.Dictionary":
    """The corner markers' and tags' dictionary (``name``: a wider one, layout.TAG_DICTIONARY)."""
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name or layout.ARUCO_DICTIONARY))


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """A marker ``side_px`` square, black border included (greyscale); the white quiet
    zone around it is the caller's paper. Ids past 49 are DICT_4X4_100's (which begins
    with DICT_4X4_50)."""
    d = aruco_dictionary("DICT_4X4_100" if marker_id >= 50 else None)
    return cv2.aruco.generateImageMarker(d, marker_id, max(6, int(side_px)))


def bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


# -- the board sheet ----------------------------------------------------------------------


def draw_sheet(sheet: Sheet, px_per_mm: float = 4.0, *, labels: bool = True) -> np.ndarray:
    """The printable board at ``px_per_mm`` (4 ≈ 100 dpi, 11.8 ≈ 300 dpi)."""
    s = float(px_per_mm)
    w, h = (int(math.ceil(v * s)) for v in sheet.size)
    img = np.full((h, w, 3), 255, np.uint8)

    def p(x: float, y: float) -> tuple[int, int]:
        return int(round(x * s)), int(round(y * s))

    line = max(1, int(round(0.6 * s)))
    thin = max(1, int(round(0.3 * s)))
    b = sheet.board
    k = sheet.scale  # board mm → sheet mm (a compact print, an own board)
    # A compact print leaves the board file's outline and reserves off the sheet.
    if k == 1.0:
        cv2.rectangle(img, p(*sheet.to_sheet(0, 0)), p(*sheet.to_sheet(b.width_mm, b.height_mm)), (150, 150, 150),
                      thin, cv2.LINE_AA)
    for a in b.areas if k == 1.0 else ():
        ax, ay = sheet.to_sheet(a.x, a.y)
        cv2.rectangle(img, p(ax, ay), p(ax + k * a.w, ay + k * a.h), (120, 120, 120), thin, cv2.LINE_AA)
        if labels:
            _text(img, a.id, p(ax + 2, ay + 5), 3.0 * s, (120, 120, 120))
    shapes = sheet.by_id
    if not any(sh.kind == "edge" for sh in sheet.shapes):
        for c in b.connectors:
            sa, sb = shapes[c.a], shapes[c.b]
            if sa.kind == "area" or sb.kind == "area":
                continue
            cv2.line(img, p(sa.x, sa.y), p(sb.x, sb.y), (170, 170, 170), thin, cv2.LINE_AA)
    r = sheet.piece_radius
    # DRIFT's rings turn: their arrows are printed alike and unlabelled (the ring's marker, a
    # sticker, says which is arrow 0), and its rotation spaces are read from that marker.
    plain = {sh.id for sh in sheet.shapes if b.name == "drift" and re.match(r"^(OR|MR|IR)\d+$", sh.id)}
    for sh in sheet.shapes:
        if b.name == "drift" and sh.id.startswith("rotation:"):
            continue
        if sh.kind == "edge":
            (x1, y1), (x2, y2) = sh.ends  # type: ignore[misc]
            cv2.line(img, p(x1, y1), p(x2, y2), (0, 0, 0), line, cv2.LINE_AA)
        elif sh.kind == "point":
            cv2.circle(img, p(sh.x, sh.y), int(round(r * s)), (0, 0, 0), line, cv2.LINE_AA)
            cv2.circle(img, p(sh.x, sh.y), max(1, int(round(0.8 * s))), (0, 0, 0), -1, cv2.LINE_AA)
            if labels and sh.id not in plain:
                _text(img, sh.id, p(sh.x + 0.72 * r, sh.y + 1.05 * r), 2.4 * s, (90, 90, 90))
    for mid, corners in sheet.marker_corners().items():
        if sheet.markers is not None:  # an own board's, stuck on as they came (turned)
            n = 120
            M = cv2.getPerspectiveTransform(np.float32([(0, 0), (n, 0), (n, n), (0, n)]), np.float32(corners) * s)
            cv2.warpPerspective(cv2.cvtColor(marker_image(mid, n), cv2.COLOR_GRAY2BGR), M, (w, h), dst=img,
                                flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
            continue
        x0, y0 = corners[0]
        side = int(round(sheet.marker_mm * s))
        m = marker_image(mid, side)
        x, y = p(x0, y0)
        img[y:y + m.shape[0], x:x + m.shape[1]] = m[:, :, None]
    if labels:
        w_mm, h_mm = sheet.size
        title = f"{b.name}  {w_mm:.0f} x {h_mm:.0f} mm  pitch {sheet.pitch:.1f} mm  tags {sheet.tag_mm} mm"
        _text(img, title, p(sheet.margin, h_mm - sheet.margin / 2 + 1), 3.0 * s, (0, 0, 0))
        x0, y0 = sheet.margin, sheet.margin / 2
        cv2.line(img, p(x0, y0), p(x0 + 100, y0), (0, 0, 0), line)
        for tick in (0, 50, 100):
            cv2.line(img, p(x0 + tick, y0 - 2), p(x0 + tick, y0 + 2), (0, 0, 0), line)
        _text(img, "100 mm: check the print scale", p(x0 + 104, y0 + 1.5), 3.0 * s, (0, 0, 0))
    return img


def _text(img: np.ndarray, text: str, org: tuple[int, int], height_px: float, colour: tuple[int, int, int]) -> None:
    scale = height_px / 22.0  # Hershey simplex capitals are ~22 px tall at scale 1
    cv2.putText(img, text, org, _FONT, scale, colour, max(1, int(round(scale * 1.6))), cv2.LINE_AA)


# -- pages ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One printed page: its image and its physical size."""

    image: np.ndarray
    width_mm: float
    height_mm: float


def board_pages(sheet: Sheet, *, paper: str = "A4", px_per_mm: float = 6.0, assembly: bool = False) -> list[Page]:
    """The sheet on one page of ``paper`` if it fits (either way round), else tiles that
    overlap by 12 mm, each labelled with its number, row and column, to be trimmed and taped;
    ``assembly``: tiles come after a first page showing how they go together."""
    if paper not in PAPER_MM:
        raise ValueError(f"paper must be one of {', '.join(PAPER_MM)}, got {paper!r}")
    img = draw_sheet(sheet, px_per_mm)
    pw, ph = PAPER_MM[paper]
    w_mm, h_mm = sheet.size
    usable = (pw - 2 * PRINTER_MARGIN_MM, ph - 2 * PRINTER_MARGIN_MM)
    for (uw, uh), (paw, pah) in ((usable, (pw, ph)), (usable[::-1], (ph, pw))):
        if w_mm <= uw and h_mm <= uh:
            return [_place(img, px_per_mm, paw, pah, (0, 0), (w_mm, h_mm), "")]
    # Tile in the orientation that needs fewer pages.
    best: list[Page] | None = None
    best_tiles: list[tuple[float, float, float, float]] = []
    for (uw, uh), (paw, pah) in ((usable, (pw, ph)), (usable[::-1], (ph, pw))):
        step_x, step_y = uw - TILE_OVERLAP_MM, uh - TILE_OVERLAP_MM
        cols = max(1, math.ceil((w_mm - TILE_OVERLAP_MM) / step_x))
        rows = max(1, math.ceil((h_mm - TILE_OVERLAP_MM) / step_y))
        pages, tiles = [], []
        for r in range(rows):
            for c in range(cols):
                x0, y0 = c * step_x, r * step_y
                x1, y1 = min(w_mm, x0 + uw), min(h_mm, y0 + uh)
                label = (f"{sheet.game} tile {len(pages) + 1}/{rows * cols}: row {r + 1}/{rows} col {c + 1}/{cols} "
                         f"(overlap {TILE_OVERLAP_MM:.0f} mm)")
                pages.append(_place(img, px_per_mm, paw, pah, (x0, y0), (x1, y1), label))
                tiles.append((x0, y0, x1, y1))
        if best is None or len(pages) < len(best):
            best, best_tiles = pages, tiles
    assert best is not None
    return [assembly_page(sheet, best_tiles, paper=paper, px_per_mm=px_per_mm), *best] if assembly else best


def assembly_page(sheet: Sheet, tiles: list[tuple[float, float, float, float]], *, paper: str = "A4",
                  px_per_mm: float = 6.0) -> Page:
    """How the tiles go together: the whole board small, each tile's outline with its number
    (the number printed on the tile), and what to do with them."""
    pw, ph = PAPER_MM[paper]
    w_mm, h_mm = sheet.size
    if (w_mm > h_mm) != (pw > ph):
        pw, ph = ph, pw  # the page the way the board lies
    s = float(px_per_mm)
    page = np.full((int(round(ph * s)), int(round(pw * s)), 3), 255, np.uint8)
    m, header = PRINTER_MARGIN_MM, 30.0  # the header: three lines of instructions
    scale = min((pw - 2 * m) / w_mm, (ph - 2 * m - header) / h_mm)  # page mm per board mm
    small = draw_sheet(sheet, s * scale, labels=False)
    ox, oy = int(round(m * s)), int(round((m + header) * s))
    small = small[:page.shape[0] - oy, :page.shape[1] - ox]
    page[oy:oy + small.shape[0], ox:ox + small.shape[1]] = small
    lines = (f"{sheet.game}: how the {len(tiles)} tiles go together (this page is not to scale)",
             f"Print the tiles at 100 % (not 'fit to page'). Each overlaps the next by {TILE_OVERLAP_MM:.0f} mm:",
             "trim one tile's margin along its grey frame, lay it over its neighbour, tape; in number order.")
    for i, text in enumerate(lines):
        _text(page, text, (ox, int(round((m + 6 + 8 * i) * s))), (4.0 if i == 0 else 3.0) * s, (0, 0, 0))
    colours = ((200, 60, 0), (0, 140, 0), (0, 0, 200), (150, 0, 150))  # neighbours told apart
    for n, (x0, y0, x1, y1) in enumerate(tiles, start=1):
        a = (ox + int(round(x0 * scale * s)), oy + int(round(y0 * scale * s)))
        b = (ox + int(round(x1 * scale * s)) - 1, oy + int(round(y1 * scale * s)) - 1)
        colour = colours[(n - 1) % len(colours)]
        cv2.rectangle(page, a, b, colour, max(1, int(round(0.6 * s))))
        size = 12.0 * s
        centre = ((a[0] + b[0]) // 2 - int(size * 0.3 * len(str(n))), (a[1] + b[1]) // 2 + int(size / 2))
        _text(page, str(n), centre, size, colour)
    return Page(page, pw, ph)


def _place(img: np.ndarray, s: float, pw: float, ph: float, a: tuple[float, float], b: tuple[float, float],
           label: str) -> Page:
    page = np.full((int(round(ph * s)), int(round(pw * s)), 3), 255, np.uint8)
    x0, y0, x1, y1 = (int(round(v * s)) for v in (*a, *b))
    crop = img[y0:y1, x0:x1]
    m = int(round(PRINTER_MARGIN_MM * s))
    page[m:m + crop.shape[0], m:m + crop.shape[1]] = crop
    if label:
        cv2.rectangle(page, (m, m), (m + crop.shape[1] - 1, m + crop.shape[0] - 1), (160, 160, 160), 1)
        _text(page, label, (m, max(12, m - int(2 * s))), 3.0 * s, (0, 0, 0))
    return Page(page, pw, ph)


CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")  # ids 0-3, as layout.CORNER_IDS


def marker_page(*, marker_mm: float = 30.0, px_per_mm: float = 12.0, paper: str = "A4") -> Page:
    """The four corner markers alone (ids 0-3, ``marker_mm`` a side, each in a white rim to cut
    along the dashed square, named by the board corner it goes on) and a 100 mm scale bar:
    print at 100 %, cut out, stick near the corners of any board (docs/vision.md)."""
    if paper not in PAPER_MM:
        raise ValueError(f"paper must be one of {', '.join(PAPER_MM)}, got {paper!r}")
    if not 10 <= marker_mm <= 80:
        raise ValueError(f"marker size must be 10-80 mm, got {marker_mm:g}")
    s = float(px_per_mm)
    pw, ph = PAPER_MM[paper]
    img = np.full((int(round(ph * s)), int(round(pw * s)), 3), 255, np.uint8)

    def p(x: float, y: float) -> tuple[int, int]:
        return int(round(x * s)), int(round(y * s))

    m, rim = marker_mm, 4.0
    x0, y0 = PRINTER_MARGIN_MM + 10, PRINTER_MARGIN_MM + 22
    line = max(1, int(round(0.4 * s)))
    _text(img, "tableref corner markers: print at 100 % (not 'fit to page'),", p(PRINTER_MARGIN_MM + 2,
          PRINTER_MARGIN_MM + 4), 3.2 * s, (0, 0, 0))
    _text(img, "check the bar, cut along the dashes.", p(PRINTER_MARGIN_MM + 2, PRINTER_MARGIN_MM + 10), 3.2 * s,
          (0, 0, 0))
    for k, name in enumerate(CORNER_NAMES):
        x, y = x0, y0 + k * (m + 2 * rim + 10)
        side = int(round(m * s))
        mk = marker_image(k, side)
        px, py = p(x + rim, y + rim)
        img[py:py + side, px:px + side] = mk[:, :, None]
        # the cut line: dashes round the white rim (the rim is the marker's quiet zone)
        corners = [(x, y), (x + m + 2 * rim, y), (x + m + 2 * rim, y + m + 2 * rim), (x, y + m + 2 * rim)]
        for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
            n = 12
            for j in range(0, n, 2):
                t0, t1 = j / n, (j + 1) / n
                cv2.line(img, p(ax + (bx - ax) * t0, ay + (by - ay) * t0), p(ax + (bx - ax) * t1, ay + (by - ay) * t1),
                         (140, 140, 140), line)
        _text(img, f"marker {k}: {name} corner", p(x + m + 2 * rim + 3, y + rim + 5), 3.2 * s, (0, 0, 0))
        _text(img, f"{m:g} mm", p(x + m + 2 * rim + 3, y + rim + 11), 3.0 * s, (90, 90, 90))
    bx, by = x0, y0 + 4 * (m + 2 * rim + 10) + 6
    cv2.line(img, p(bx, by), p(bx + 100, by), (0, 0, 0), max(1, int(round(0.6 * s))))
    for tick in range(0, 101, 10):
        tall = 3 if tick % 50 == 0 else 1.5
        cv2.line(img, p(bx + tick, by - tall), p(bx + tick, by + tall), (0, 0, 0), line)
    _text(img, "100 mm: measure it; if it is not 100 mm the print was scaled", p(bx, by + 8), 3.0 * s, (0, 0, 0))
    _text(img, "Stick each marker flat near its corner of the board, off the spaces and the reserves",
          p(bx, by + 16), 2.6 * s, (60, 60, 60))
    _text(img, "(turned any way: the camera finds them where they are).", p(bx, by + 21), 2.6 * s, (60, 60, 60))
    return Page(img, pw, ph)


# -- the compact print ----------------------------------------------------------------------

COMPACT_MARGIN_MM = 36.0  # the corner markers (30 mm) and 3 mm of paper either side
PIECE_CLEARANCE_MM = 1.5  # two pieces on neighbouring spaces must not touch


@dataclass(frozen=True)
class CompactFit:
    """How a board fits one sheet of paper: its scale, pitch, and whether the pieces fit."""

    game: str
    paper: str
    scale: float  # sheet mm per board-file mm
    pitch: float  # mm between neighbouring spaces on the print
    piece_mm: float  # the widest piece's footprint (vision/pieces/piecesets)
    landscape: bool

    @property
    def pieces_fit(self) -> bool:
        return self.pitch >= self.piece_mm + PIECE_CLEARANCE_MM


def compact_fit(board: "layout.Board", paper: str = "A3") -> CompactFit:
    """The largest scale (at most 1) at which ``board``'s spaces, each with a piece on it, and
    the corner markers fit one sheet of ``paper`` (either way round); reserves off the sheet."""
    from vision.pieces.pieceset import load_pieceset

    if paper not in PAPER_MM:
        raise ValueError(f"paper must be one of {', '.join(PAPER_MM)}, got {paper!r}")
    pts = np.array([(sh.x, sh.y) for sh in layout.board_shapes(board) if sh.kind != "area"])
    ends = [e for sh in layout.board_shapes(board) if sh.ends for e in sh.ends]
    if ends:
        pts = np.vstack([pts, np.array(ends)])
    piece = max(2 * p.radius_mm for p in load_pieceset(board.name).pieces)
    span = pts.max(axis=0) - pts.min(axis=0)
    pw, ph = (v - 2 * PRINTER_MARGIN_MM - 2 * COMPACT_MARGIN_MM - piece for v in PAPER_MM[paper])
    best = (0.0, False)
    for (uw, uh), turned in (((pw, ph), False), ((ph, pw), True)):
        k = min(1.0, (uw - 0.5) / max(span[0], 1e-9), (uh - 0.5) / max(span[1], 1e-9))  # 0.5 mm: rounding
        if k > best[0]:
            best = (k, turned)
    k, turned = best
    pitch = layout.median_pitch(np.array([(sh.x, sh.y) for sh in layout.board_shapes(board) if sh.kind != "area"])) * k
    return CompactFit(board.name, paper, round(float(k), 3), round(float(pitch), 1), float(piece), turned)


def compact_sheet(board: "layout.Board", paper: str = "A3") -> Sheet:
    """The board at :func:`compact_fit`'s scale on one sheet: its spaces and connectors, the
    pieces' room round them, the corner markers; the reserves are left off (the pieces keep
    their own size, so the printed tags stay the standard sheet's size)."""
    fit = compact_fit(board, paper)
    k = fit.scale
    raw = layout.board_shapes(board)
    r = fit.piece_mm / 2
    pts = [(sh.x * k, sh.y * k) for sh in raw if sh.kind != "area"]
    pts += [(x * k, y * k) for sh in raw if sh.ends for x, y in sh.ends]
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    m = COMPACT_MARGIN_MM
    ox, oy = m + r - min(xs), m + r - min(ys)
    size = (max(xs) + ox + r + m, max(ys) + oy + r + m)
    shapes = []
    for sh in raw:
        ends = None if sh.ends is None else tuple((x * k + ox, y * k + oy) for x, y in sh.ends)
        rect = None if sh.rect is None else (sh.rect[0] * k + ox, sh.rect[1] * k + oy, sh.rect[2] * k, sh.rect[3] * k)
        shapes.append(layout.SpaceShape(sh.id, sh.x * k + ox, sh.y * k + oy, sh.kind, ends, rect))  # type: ignore[arg-type]
    full = Sheet.for_board(board)
    return Sheet(board, m, 30.0, (ox, oy), size, tuple(shapes), full.pitch * k, scale=k, tag_size=full.tag_mm)


def tag_pages(sheet: Sheet, *, paper: str = "A4", px_per_mm: float = 12.0) -> list[Page]:
    """The sticker sheet of piece tags: one sticker per face, as many as the box holds;
    a double-sided piece's back face is printed right of its front, to stick back to back."""
    game = sheet.game
    counts = layout.PIECE_COUNTS.get(game)
    if not counts:
        raise ValueError(f"{game}: its pieces are read by colour, not tags (no tag sheet)")
    backs = layout.BACK_FACE.get(game, {})
    stickers: list[tuple[str, str | None]] = []
    for token, n in counts.items():
        stickers += [(token, backs.get(token))] * n
    s = px_per_mm
    pw, ph = PAPER_MM[paper]
    tag = sheet.tag_mm
    disc = tag * math.sqrt(2) + 4  # a round sticker: the tag's diagonal and 2 mm of white all round
    step = disc + 3
    cell_w = 2 * step + 4 if backs else step
    cell_h = disc + 8
    cols = max(1, int((pw - 2 * PRINTER_MARGIN_MM) // cell_w))
    rows = max(1, int((ph - 2 * PRINTER_MARGIN_MM - 10) // cell_h))
    pages: list[Page] = []
    for start in range(0, len(stickers), cols * rows):
        page = np.full((int(round(ph * s)), int(round(pw * s)), 3), 255, np.uint8)
        n_page = len(pages) + 1
        head = (f"{game} piece tags ({tag} mm; ArUco {layout.TAG_DICTIONARY.get(game, layout.ARUCO_DICTIONARY)}) "
                f"page {n_page}: cut round")
        _text(page, head, (int(PRINTER_MARGIN_MM * s), int((PRINTER_MARGIN_MM + 3) * s)), 3.5 * s, (0, 0, 0))
        for k, (front, back) in enumerate(stickers[start:start + cols * rows]):
            r, c = divmod(k, cols)
            x = PRINTER_MARGIN_MM + c * cell_w
            y = PRINTER_MARGIN_MM + 10 + r * cell_h
            for j, token in enumerate((front, back) if back else (front,)):
                cx, cy = x + j * step + disc / 2, y + disc / 2
                side = int(round(tag * s))
                m = marker_image(layout.tag_id(game, token), side)
                px, py = int(round((cx - tag / 2) * s)), int(round((cy - tag / 2) * s))
                page[py:py + m.shape[0], px:px + m.shape[1]] = m[:, :, None]
                cv2.circle(page, (int(round(cx * s)), int(round(cy * s))), int(round(disc / 2 * s)), (190, 190, 190),
                           1, cv2.LINE_AA)
                word = f"{token}" + (" front" if back and j == 0 else " back" if back else "")
                _text(page, word, (int(round((cx - disc / 2) * s)), int(round((y + disc + 4) * s))), 2.6 * s, (0, 0, 0))
        pages.append(Page(page, pw, ph))
    return pages


# -- output --------------------------------------------------------------------------------


def write_pages(pages: list[Page], out: str | Path) -> list[Path]:
    """``.pdf``: one PDF, one page each at true size. ``.png``: one PNG per page
    (``name.png``, or ``name-1.png``... for several). Returns the files written."""
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix == ".pdf":
        write_pdf(pages, out)
        return [out]
    if suffix != ".png":
        raise ValueError(f"{out}: the output must end in .pdf or .png")
    paths = [out] if len(pages) == 1 else [out.with_name(f"{out.stem}-{i}{out.suffix}") for i in range(1, len(pages) + 1)]
    for page, path in zip(pages, paths):
        if not cv2.imwrite(str(path), page.image):
            raise OSError(f"{path}: cannot write the PNG")
    return paths


def write_pdf(pages: list[Page], path: str | Path) -> None:
    """A minimal PDF 1.4: each page one Flate-compressed RGB image filling the page."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in once the pages are known
    pages_obj = add(b"")
    kids = []
    for page in pages:
        h, w = page.image.shape[:2]
        rgb = cv2.cvtColor(page.image, cv2.COLOR_BGR2RGB)
        data = zlib.compress(rgb.tobytes(), 6)
        img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                  b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (w, h, len(data))
                  + data + b"\nendstream")
        pw, ph = page.width_mm * 72 / 25.4, page.height_mm * 72 / 25.4
        content = b"q %.3f 0 0 %.3f 0 0 cm /Im0 Do Q" % (pw, ph)
        cont = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.3f %.3f] /Resources "
                        b"<< /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>" % (pages_obj, pw, ph, img, cont)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    objects[pages_obj - 1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids)
                              + b"] /Count %d >>" % len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    Path(path).write_bytes(bytes(out))
