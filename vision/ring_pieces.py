"""Gygès's rings without stickers, for the camera model (:mod:`vision.scene_pieces`).

The rule text (``/work/shared/seeds/gyges.txt``) says only: twelve metal rings, four single,
four double, four triple, all the same colour, and a ring moves as many spaces as its
*height* (1, 2 or 3). Its pictures were lost, so the shape is the project's decision, written
down here and in docs/vision.md: a ring of height *n* is a stack of *n* tiers, each narrower
than the one below (a stepped ring, as the boxed game's pieces are usually shown), so from
above a single shows one circle, a double two and a triple three concentric circles — every
tier's rim, a rounded edge that the lamp does not light as it lights the flat top. All rings
are one metal colour: nothing but the tiers tells them apart.

The tiers (radius and the height of their top, mm) are the piece set's business: the heights
are those of ``vision/piecesets/gyges.json`` (12, 20, 28 mm), the radii measured off the
38 mm footprint. :data:`TIERS` is what the reader (:mod:`vision.ring_reading`) is given too —
measured with a ruler on a real set, as the heights are — never the renderer's colours.
"""

from __future__ import annotations

from dataclasses import replace

from .layout import tag_tokens
from .scene_pieces import Solid

# (radius mm, top height mm) of tier 1, 2, 3: a ring of height n has tiers 1..n.
TIERS: tuple[tuple[float, float], ...] = ((19.0, 12.0), (13.5, 20.0), (8.0, 28.0))
RIM_MM = 1.2  # the rounded rim of a tier, as wide as seen from above
METAL_BGR = (168.0, 172.0, 176.0)  # one colour for every ring (the rule text: "all the same colour")
RING_TOKENS = {"1": 1, "2": 2, "3": 3}


def ring_solids(solid: Solid, token: str, heights: float = 1.0) -> list[Solid]:
    """The tiers standing where ``solid`` (the tagged piece) would stand: no sticker, one metal
    colour, each tier's rim drawn darker. A token that is not a ring is returned as it was,
    without its tag."""
    n = RING_TOKENS.get(token)
    if n is None or solid.shape != "cylinder":
        return [replace(solid, tag=None)]
    k = solid.top_bgr[0] / max(1.0, sum(solid.top_bgr) / 3)  # the piece's small brightness jitter
    top = tuple(c * (0.96 + 0.04 * k) for c in METAL_BGR)
    side = tuple(c * 0.8 for c in METAL_BGR)
    out = []
    base = solid.z0
    for radius, top_mm in TIERS[:n]:
        h = top_mm * heights - (base - solid.z0)
        out.append(Solid("cylinder", solid.x, solid.y, base, h, radius, top, side, rim_mm=RIM_MM))  # type: ignore[arg-type]
        base += h
    return out


def untagged(solids: list[Solid], game: str, heights: float = 1.0) -> list[Solid]:
    """The solids of a scene without stickers: Gygès's rings as their stacks of tiers (each
    told by the tag it would have carried); any other game's pieces only lose their tags."""
    names = tag_tokens(game) if game == "gyges" else {}
    out: list[Solid] = []
    for s in solids:
        token = names.get(s.tag) if s.tag is not None else None
        out += ring_solids(s, token, heights) if token is not None and not s.furniture else [replace(s, tag=None)]
    return out
