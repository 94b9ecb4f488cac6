"""Board geometry as data.

A board file (``rules/boards/<name>.json``) lists spaces with stable ids and
millimetre coordinates on the printed board, connectors between spaces
(optionally labelled), named zones, and off-board areas a camera may also see.
A physical board that differs is one new board file; no code changes.

File format::

    {"name": "gyges", "width_mm": 330, "height_mm": 420,
     "spaces": [{"id": "a1", "x": 40, "y": 330, "kind": "cell"}, ...],
     "connectors": [{"a": "a1", "b": "b1"}, {"a": "S", "b": "a1", "label": "throne"}, ...],
     "zones": {"starting_line_south": ["a1", ...]},
     "areas": [{"id": "reserve_south", "x": 0, "y": 400, "w": 330, "h": 20}]}

Optional: ``description`` (free text), ``annuli`` (DRIFT's rings). Any other key, a missing
``name``/``spaces``/``id``/``x``/``y``/``a``/``b``, or a key twice is refused (:mod:`rules.strict`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from .errors import InvalidBoardError
from .strict import expect_keys, loads

# A board file's keys; ``annuli`` is DRIFT's ring geometry (read by rules/games/drift_geometry.py).
BOARD_REQUIRED = ("name", "spaces")
BOARD_OPTIONAL = ("description", "width_mm", "height_mm", "connectors", "zones", "areas", "annuli")


@dataclass(frozen=True)
class Space:
    id: str
    x: float
    y: float
    kind: str = "cell"


@dataclass(frozen=True)
class Connector:
    a: str
    b: str
    label: str = ""

    @property
    def key(self) -> frozenset[str]:
        """Undirected identity: a connector is the same whichever way it is travelled."""
        return frozenset((self.a, self.b))


@dataclass(frozen=True)
class Area:
    """An off-board rectangle (a reserve, a captured-pieces strip) in board millimetres."""

    id: str
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class Board:
    name: str
    spaces: tuple[Space, ...]
    connectors: tuple[Connector, ...]
    zones: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    areas: tuple[Area, ...] = ()
    width_mm: float = 0.0
    height_mm: float = 0.0

    def __post_init__(self) -> None:
        by_id = {s.id: s for s in self.spaces}
        adj: dict[str, list[tuple[str, Connector]]] = {s.id: [] for s in self.spaces}
        for c in self.connectors:
            adj[c.a].append((c.b, c))
            adj[c.b].append((c.a, c))
        object.__setattr__(self, "_by_id", by_id)
        object.__setattr__(self, "_adjacent", {k: tuple(v) for k, v in adj.items()})

    def space(self, space_id: str) -> Space:
        return self._by_id[space_id]  # type: ignore[attr-defined]

    def has_space(self, space_id: str) -> bool:
        return space_id in self._by_id  # type: ignore[attr-defined]

    @property
    def space_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.spaces)

    def neighbours(self, space_id: str) -> tuple[tuple[str, Connector], ...]:
        """(neighbour id, connector) pairs of a space, in file order."""
        return self._adjacent[space_id]  # type: ignore[attr-defined]

    def zone(self, name: str) -> tuple[str, ...]:
        return self.zones[name]

    # -- loading -------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: object, *, where: str = "board") -> "Board":
        def fail(msg: str) -> InvalidBoardError:
            return InvalidBoardError(f"{where}: {msg}")

        expect_keys(data, required=BOARD_REQUIRED, optional=BOARD_OPTIONAL, where=where, error=InvalidBoardError)
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise fail("'name' must be a non-empty string")
        raw_spaces = data.get("spaces")
        if not isinstance(raw_spaces, list) or not raw_spaces:
            raise fail("'spaces' must be a non-empty list")
        spaces: list[Space] = []
        seen: set[str] = set()
        for i, s in enumerate(raw_spaces):
            expect_keys(s, required=("id", "x", "y"), optional=("kind",), where=where, path=f"spaces[{i}]",
                        error=InvalidBoardError)
            if not isinstance(s.get("id"), str):
                raise fail(f"spaces[{i}]: needs a string 'id'")
            sid = s["id"]
            if sid in seen:
                raise fail(f"spaces[{i}]: duplicate space id {sid!r}")
            try:
                x, y = float(s["x"]), float(s["y"])
            except (KeyError, TypeError, ValueError):
                raise fail(f"space {sid!r}: 'x' and 'y' must be numbers (millimetres)") from None
            seen.add(sid)
            spaces.append(Space(sid, x, y, str(s.get("kind", "cell"))))
        connectors: list[Connector] = []
        keys: set[frozenset[str]] = set()
        for i, c in enumerate(data.get("connectors", [])):
            if isinstance(c, list) and len(c) == 2:
                c = {"a": c[0], "b": c[1]}
            if not isinstance(c, Mapping):
                raise fail(f"connectors[{i}]: expected {{'a':..,'b':..}} or [a, b]")
            expect_keys(c, required=("a", "b"), optional=("label",), where=where, path=f"connectors[{i}]",
                        error=InvalidBoardError)
            a, b = c.get("a"), c.get("b")
            for end in (a, b):
                if end not in seen:
                    raise fail(f"connectors[{i}]: unknown space {end!r}")
            if a == b:
                raise fail(f"connectors[{i}]: joins {a!r} to itself")
            con = Connector(a, b, str(c.get("label", "")))
            if con.key in keys:
                raise fail(f"connectors[{i}]: duplicate connector {a}-{b}")
            keys.add(con.key)
            connectors.append(con)
        zones: dict[str, tuple[str, ...]] = {}
        raw_zones = data.get("zones", {})
        if not isinstance(raw_zones, Mapping):
            raise fail("'zones' must be an object of name -> list of space ids")
        for zname, members in raw_zones.items():
            if not isinstance(members, list) or any(m not in seen for m in members):
                raise fail(f"zone {zname!r}: must list known space ids")
            zones[zname] = tuple(members)
        areas: list[Area] = []
        for i, a in enumerate(data.get("areas", [])):
            expect_keys(a, required=("id", "x", "y", "w", "h"), where=where, path=f"areas[{i}]", error=InvalidBoardError)
            try:
                areas.append(Area(str(a["id"]), float(a["x"]), float(a["y"]), float(a["w"]), float(a["h"])))
            except (KeyError, TypeError, ValueError):
                raise fail(f"areas[{i}]: needs 'id', 'x', 'y', 'w', 'h'") from None
        return cls(
            name=name,
            spaces=tuple(spaces),
            connectors=tuple(connectors),
            zones=zones,
            areas=tuple(areas),
            width_mm=float(data.get("width_mm", 0) or 0),
            height_mm=float(data.get("height_mm", 0) or 0),
        )

    @classmethod
    def from_file(cls, path: str | Path) -> "Board":
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidBoardError(f"{path}: cannot read board file: {exc.strerror}") from None
        return cls.from_dict(loads(text, where=str(path), error=InvalidBoardError), where=str(path))

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "width_mm": self.width_mm,
            "height_mm": self.height_mm,
            "spaces": [{"id": s.id, "x": s.x, "y": s.y, "kind": s.kind} for s in self.spaces],
            "connectors": [
                {"a": c.a, "b": c.b, **({"label": c.label} if c.label else {})} for c in self.connectors
            ],
            "zones": {k: list(v) for k, v in self.zones.items()},
            "areas": [{"id": a.id, "x": a.x, "y": a.y, "w": a.w, "h": a.h} for a in self.areas],
        }


@cache
def load_board(name: str) -> Board:
    """The reference board shipped with the package (``rules/boards/<name>.json``)."""
    ref = resources.files("rules") / "boards" / f"{name}.json"
    try:
        text = ref.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidBoardError(f"no built-in board named {name!r}") from None
    where = f"rules/boards/{name}.json"
    return Board.from_dict(loads(text, where=where, error=InvalidBoardError), where=where)
