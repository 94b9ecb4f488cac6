"""Gygès's rings without stickers: the shape the reader (:mod:`vision.readers.ring_reading`) and the
camera model (:mod:`vision.simulated.ring_solids`) are both given.

The rule text (``/work/shared/seeds/gyges.txt``) says only: twelve metal rings, four single,
four double, four triple, all the same colour, and a ring moves as many spaces as its
*height* (1, 2 or 3). Its pictures were lost, so the shape is the project's decision, written
down here and in docs/vision.md: a ring of height *n* is a stack of *n* tiers, each narrower
than the one below (a stepped ring, as the boxed game's pieces are usually shown), so from
above a single shows one circle, a double two and a triple three concentric circles — every
tier's rim, a rounded edge that the lamp does not light as it lights the flat top. All rings
are one metal colour: nothing but the tiers tells them apart.

The tiers (radius and the height of their top, mm) are the piece set's business: the heights
are those of ``vision/pieces/piecesets/gyges.json`` (12, 20, 28 mm), the radii measured off the
38 mm footprint. :data:`TIERS` is what the reader is given — measured with a ruler on a real
set, as the heights are — never the renderer's colours.
"""

from __future__ import annotations

# (radius mm, top height mm) of tier 1, 2, 3: a ring of height n has tiers 1..n.
TIERS: tuple[tuple[float, float], ...] = ((19.0, 12.0), (13.5, 20.0), (8.0, 28.0))
RIM_MM = 1.2  # the rounded rim of a tier, as wide as seen from above
RING_TOKENS = {"1": 1, "2": 2, "3": 3}  # a ring's token → its height (its number of tiers)
