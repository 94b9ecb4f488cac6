"""The reader's second look for tags a few pixels a cell (issues 16, 24).

A board filling 40 % of a 720p frame draws an Annihilation particle's tag at about 2 px a
cell, the base set-up (60 %) at about 3: the one-pass look misses some, and so does the
thorough detector on a crop enlarged 2x — its bits are sampled on 4 px a cell with an eighth
of each cell's margin ignored, so a cell blurred into its neighbours reads as the wrong bit
and the candidate is dropped (the particles in an ex nihilo zone, lying side by side and
turned every way, lost one tag in five there).

:func:`second_looks` gives the looks to try, in turn, where a piece is seen but not (all) its
tags were read: the thorough one, then — only when a cell is small — the small-marker
detector the lock uses for its corner markers on enlarged frames
(:func:`vision.read.lock.make_small_detector`: each cell sampled on 8 px with its outer 30 %
ignored, a looser outline fit). The bit check is as strict as the others' (the same error
correction), so a tag it reads is a tag of the table, not a guess; the reader still places
every tag on its space and checks its printed size.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from vision.read.lock import make_small_detector, small_tag_detector

SMALL_CELL_PX = 5.0  # a tag cell under this many frame pixels is read from an enlarged crop
SMALL_UPSCALE = 2  # the first enlargement for small cells (2-3 px a cell → 4-6: the detectors' outline fit works)
MAX_UPSCALE = 4  # beyond, a crop costs more than the tag's few pixels give


def first_look(reader, H) -> tuple[object, int]:
    """(detector, upscale) for the one-pass look round every space seen busy: the frame's own
    pixels for cells of 5 px or more; smaller ones enlarged to about 6-9 px a cell and read
    with one threshold window of the tag's size there (as DRIFT's reader does: on the frame's
    own 2-3 px cells a one-pass look misses so many that the second looks' budget — a few
    spaces, more mean a hand — is spent and the frame is left unreadable)."""
    cell_px = reader._cell_px(H)
    if cell_px >= SMALL_CELL_PX:
        return reader._sized(H), 1
    up = 2 if cell_px >= 3.5 else 3
    window = int(min(max(round(2.5 * cell_px * up), 7), 31)) | 1
    cache = reader.__dict__.setdefault("_first_looks", {})
    if window not in cache:
        cache[window] = small_tag_detector(reader._dictionary, window)
    return cache[window], up


def look_budget(reader, H) -> int:
    """How many spaces seen busy but not (all) named get the second looks: more mean a hand or
    glare, and the next still frame will do. Small cells twice as many (as DRIFT's reader):
    there the one-pass look misses a tag now and then even in a calm frame, and a few such
    spaces with an ex nihilo zone or two would otherwise leave the frame unread."""
    return reader.second_looks * (2 if reader._cell_px(H) < SMALL_CELL_PX else 1)


def second_looks(reader, cell_px: float) -> Iterator[tuple[object, int]]:
    """(detector, upscale) pairs for :meth:`vision.readers.reader.Reader._scan`, slowest last; the
    reader stops as soon as every space seen busy is explained. Small cells are looked at
    enlarged so a cell is about 4, 6 and 8 px in turn: a blurred tag's bits come out right at
    one enlargement and not another (the outline's fit and the bits' sampling grid move)."""
    small = cell_px < SMALL_CELL_PX
    yield reader._thorough, SMALL_UPSCALE if small else 1
    if not small:
        return
    detector = reader.__dict__.get("_small_tags")
    if detector is None:
        detector = reader.__dict__["_small_tags"] = make_small_detector(dictionary=reader._dictionary)
    to6, to8 = (min(MAX_UPSCALE, math.ceil(px / max(cell_px, 0.5))) for px in (6.0, 8.0))
    ups = sorted({SMALL_UPSCALE, to6, to8})
    # The thorough look at each enlargement, then the small-marker one: a blurred tag that
    # neither reads at one is read by one of them at another (the thorough one at 8 px a cell
    # read a ring's tag under the desk lamp of the path-traced bench that every other look
    # missed: its outline found, its bits not).
    for up in ups[1:]:
        yield reader._thorough, up
    for up in ups:
        yield detector, up
