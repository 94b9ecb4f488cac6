"""The Annuli board of DRIFT, precomputed: spaces by number, land-ring neighbours, and which
land spaces each river arrow touches at each rotation (``docs/rules/drift.md``, "Board").

Rings are angular sectors (degrees clockwise from 12 o'clock) in ``rules/boards/drift.json``
(written by ``tools/drift_board.py``). A land space and a river arrow are adjacent while their
sectors overlap; a river turned ``r`` steps has moved every arrow ``r`` arrow-lengths in its
flow direction. The outcrop portal joins an outer-river arrow that overlaps an outcrop to the
inner land space with the same marker. Adjacency for a triple of rotations is built once and
cached: a game sees one triple per round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..errors import InvalidBoardError
from ..strict import expect_keys, loads

ANNULI_KEYS = ("markers", "land", "rivers", "outcrops", "homes", "marker_spaces", "repositories")

RIVERS = ("outer", "middle", "inner")
COIN_TYPES = ("copper", "gold", "silver")
# Setup: "Copper coins in the outer land ring, gold coins in the middle land ring, silver coins
# in the inner land ring."
COIN_RING = {"copper": "outer", "gold": "middle", "silver": "inner"}
_EPS = 1e-6


@dataclass(frozen=True)
class River:
    name: str
    arrows: tuple[int, ...]  # space numbers, in ring order
    clockwise: bool
    rotation_space: str

    @property
    def size(self) -> int:
        return len(self.arrows)

    @property
    def flow(self) -> str:
        return "clockwise" if self.clockwise else "counter-clockwise"


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    a0, b0 = a[0] % 360, b[0] % 360
    a1, b1 = a0 + (a[1] - a[0]), b0 + (b[1] - b[0])
    return any(min(a1, b1 + k) - max(a0, b0 + k) > _EPS for k in (-360, 0, 360))


class Geometry:
    """Everything move generation needs, with spaces as small integers."""

    def __init__(self, data: Mapping[str, Any], where: str) -> None:
        def fail(msg: str) -> InvalidBoardError:
            return InvalidBoardError(f"{where}: annuli: {msg}")

        ann = data.get("annuli") if isinstance(data, Mapping) else None
        if not isinstance(ann, Mapping):
            raise fail("missing the 'annuli' object (rings, homes, markers)")
        expect_keys(ann, required=ANNULI_KEYS, where=where, path="annuli", error=InvalidBoardError)
        try:
            self.markers: tuple[str, ...] = tuple(ann["markers"])
            land = list(ann["land"])
            rivers = list(ann["rivers"])
            outcrops = list(ann["outcrops"])
            homes, marker_spaces, repos = dict(ann["homes"]), dict(ann["marker_spaces"]), dict(ann["repositories"])
        except (KeyError, TypeError) as exc:
            raise fail(f"needs 'markers', 'land', 'rivers', 'outcrops', 'homes', 'marker_spaces', "
                       f"'repositories' ({exc})") from None
        ids: list[str] = []
        ring_of: list[str] = []
        river_of: list[int] = []
        sectors: list[tuple[float, float]] = []
        land_rings: dict[str, tuple[int, ...]] = {}
        for i, ring in enumerate(land):
            expect_keys(ring, required=("ring", "spaces", "sectors"), where=where, path=f"annuli.land[{i}]",
                        error=InvalidBoardError)
            name, spaces, secs = ring.get("ring"), ring.get("spaces"), ring.get("sectors")
            if not isinstance(spaces, list) or not isinstance(secs, list) or len(spaces) != len(secs) or len(spaces) < 3:
                raise fail(f"land[{i}]: 'spaces' and 'sectors' must be lists of one length (at least 3)")
            first = len(ids)
            for sid, sec in zip(spaces, secs):
                ids.append(str(sid))
                ring_of.append(str(name))
                river_of.append(-1)
                sectors.append(self._sector(sec, f"land {name} {sid}", fail))
            land_rings[str(name)] = tuple(range(first, len(ids)))
        river_list: list[River] = []
        banks: list[tuple[str, str]] = []
        for k, r in enumerate(rivers):
            expect_keys(r, required=("ring", "flow", "outside", "inside", "arrows", "sectors", "rotation_space"),
                        where=where, path=f"annuli.rivers[{k}]", error=InvalidBoardError)
            arrows, secs = r.get("arrows"), r.get("sectors")
            if not isinstance(arrows, list) or not isinstance(secs, list) or len(arrows) != len(secs) or len(arrows) < 3:
                raise fail(f"rivers[{k}]: 'arrows' and 'sectors' must be lists of one length (at least 3)")
            if r.get("flow") not in ("clockwise", "counter-clockwise"):
                raise fail(f"rivers[{k}]: 'flow' must be 'clockwise' or 'counter-clockwise'")
            for side in ("outside", "inside"):
                if r.get(side) != "outcrops" and r.get(side) not in land_rings:
                    raise fail(f"rivers[{k}]: '{side}' must be 'outcrops' or a land ring, not {r.get(side)!r}")
            first = len(ids)
            for sid, sec in zip(arrows, secs):
                ids.append(str(sid))
                ring_of.append(f"{r.get('ring')}-river")
                river_of.append(k)
                sectors.append(self._sector(sec, f"river {r.get('ring')} {sid}", fail))
            river_list.append(River(str(r.get("ring")), tuple(range(first, len(ids))), r["flow"] == "clockwise",
                                    str(r.get("rotation_space"))))
            banks.append((r["outside"], r["inside"]))
        if tuple(rv.name for rv in river_list) != RIVERS:
            raise fail(f"rivers must be {', '.join(RIVERS)} from the outside in")
        if len(set(ids)) != len(ids):
            raise fail("a space id is used twice")
        self.ids: tuple[str, ...] = tuple(ids)
        self.index: dict[str, int] = {s: i for i, s in enumerate(ids)}
        self.ring_of: tuple[str, ...] = tuple(ring_of)
        self.river_of: tuple[int, ...] = tuple(river_of)
        self.rivers: tuple[River, ...] = tuple(river_list)
        self.land_rings = land_rings
        for name in ("outer", "middle", "inner"):
            if name not in land_rings:
                raise fail(f"no land ring named {name!r}")
        for table, what in ((homes, "homes"), (marker_spaces, "marker_spaces"), (repos, "repositories")):
            if set(table) != set(self.markers):
                raise fail(f"'{what}' must name one space for each marker ({', '.join(self.markers)})")
        for m in self.markers:
            if homes[m] not in self.index or self.index[homes[m]] not in land_rings["outer"]:
                raise fail(f"home of {m}: {homes[m]!r} is not an outer land space")
            if marker_spaces[m] not in self.index or self.index[marker_spaces[m]] not in land_rings["inner"]:
                raise fail(f"marker space of {m}: {marker_spaces[m]!r} is not an inner land space")
        self.home: dict[str, int] = {m: self.index[homes[m]] for m in self.markers}
        self.home_spaces = frozenset(self.home.values())
        self.marker_space: dict[str, int] = {m: self.index[marker_spaces[m]] for m in self.markers}
        self.repository: dict[str, str] = {m: str(repos[m]) for m in self.markers}
        crops: list[tuple[int, tuple[float, float]]] = []
        for i, o in enumerate(outcrops):
            expect_keys(o, required=("marker", "sector"), where=where, path=f"annuli.outcrops[{i}]",
                        error=InvalidBoardError)
            if not isinstance(o, Mapping) or o.get("marker") not in self.markers:
                raise fail(f"outcrops[{i}]: needs a 'marker' from the markers list")
            crops.append((self.marker_space[o["marker"]], self._sector(o.get("sector"), f"outcrop {o['marker']}", fail)))
        # Land neighbours: the next space either way round the same ring.
        nbrs: list[tuple[int, ...]] = [()] * len(ids)
        for ring in land_rings.values():
            n = len(ring)
            for j, s in enumerate(ring):
                nbrs[s] = (ring[j - 1], ring[(j + 1) % n])
        self.land_nbrs: tuple[tuple[int, ...], ...] = tuple(nbrs)
        # Links per river per rotation: (arrow, bank) pairs, the portal included.
        self._links: list[list[tuple[tuple[int, int], ...]]] = []
        for river, (outside, inside) in zip(self.rivers, banks):
            step = 360 / river.size * (1 if river.clockwise else -1)
            per_rot = []
            for r in range(river.size):
                links = []
                for a in river.arrows:
                    s0, s1 = sectors[a]
                    sec = (s0 + r * step, s1 + r * step)
                    for side in (outside, inside):
                        if side == "outcrops":
                            links += [(a, portal) for portal, crop in crops if _overlap(sec, crop)]
                        else:
                            links += [(a, b) for b in land_rings[side] if _overlap(sec, sectors[b])]
                per_rot.append(tuple(links))
            self._links.append(per_rot)
        self._adjacency: dict[tuple[int, ...], tuple[tuple[int, ...], ...]] = {}

    @staticmethod
    def _sector(raw: Any, what: str, fail) -> tuple[float, float]:
        try:
            a, b = float(raw[0]), float(raw[1])
        except (TypeError, ValueError, IndexError, KeyError):
            raise fail(f"{what}: a sector is [start, end] in degrees") from None
        if not 0 < b - a < 360:
            raise fail(f"{what}: sector [{a}, {b}] must run clockwise, less than a full turn")
        return a, b

    # -- queries ----------------------------------------------------------------------------------

    def is_arrow(self, space: int) -> bool:
        return self.river_of[space] >= 0

    def adjacency(self, rots: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """Every space's neighbours with the rivers at rotations ``rots`` (outer, middle, inner)."""
        adj = self._adjacency.get(rots)
        if adj is None:
            work = [list(n) for n in self.land_nbrs]
            for k, r in enumerate(rots):
                for a, b in self._links[k][r]:
                    if b not in work[a]:
                        work[a].append(b)
                        work[b].append(a)
            adj = tuple(tuple(sorted(n)) for n in work)
            self._adjacency[rots] = adj
        return adj

    def name(self, space: int) -> str:
        return self.ids[space]


def _load(name: str) -> Geometry:
    where = f"rules/boards/{name}.json"
    ref = resources.files("rules") / "boards" / f"{name}.json"
    try:
        text = ref.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidBoardError(f"no built-in board named {name!r}") from None
    return Geometry(loads(text, where=where, error=InvalidBoardError), where)


@cache
def geometry() -> Geometry:
    """The reference Annuli board."""
    return _load("drift")
