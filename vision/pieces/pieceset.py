"""What a game's pieces are in the real world: shape, footprint and height in millimetres.

A camera tilted away from the vertical sees the top of a piece — where its tag or colour is —
away from its space's centre on the board's plane, further the taller the piece. The reader
(:mod:`vision.readers.reader`) and the camera renderer (:mod:`vision.simulated.camera_model`) take the heights
from here.

One JSON file per game, ``vision/pieces/piecesets/<game>.json``::

    {"game": "gyges",
     "pieces": [{"name": "single ring", "tokens": ["1"], "shape": "cylinder",
                 "diameter_mm": 40, "height_mm": 12, "top": "tag"}, ...],
     "stacks": [{"space_kind": "home", "tokens": [...], "max": 6, "base_mm": 0}]}

* ``tokens``: the view tokens the piece shows (a double-sided piece shows one of two faces);
* ``shape``: ``"cylinder"`` (``diameter_mm``) or ``"box"`` (``length_mm`` along its edge,
  ``width_mm`` across it);
* ``top``: what the camera reads on the top face, ``"tag"`` or ``"colour"``;
* ``stacks``: where pieces stand in a pile (DRIFT's homes) or lie on a base (a repository's
  coins on the repository). A pile's top stands at ``base_mm`` plus the heights of every piece in
  it: the camera sees only the top, so the top of an ``n``-piece pile may stand at any sum of
  ``n`` heights of the stack's tokens, ``n`` up to ``max``.

A user whose set differs (taller rings, thinner discs) writes a file of the same form with only
the pieces that differ: ``load_pieceset(game, path)`` replaces the default entries for the tokens
the file names and keeps the rest (``[source.camera] pieceset = "my-set.json"``, ``tableref
calibrate --pieceset my-set.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations_with_replacement
from pathlib import Path

from rules.strict import expect_keys, loads
from rules.view import MORE, OCCUPIED

PIECESETS_DIR = Path(__file__).with_name("piecesets")
SHAPES = ("cylinder", "box")
TOPS = ("tag", "colour")


class PieceSetError(ValueError):
    """A piece-set file that cannot be used: the message names the file and the key."""


@dataclass(frozen=True)
class PieceKind:
    """One kind of piece: every token it may show has this shape and height."""

    name: str
    tokens: tuple[str, ...]
    shape: str  # "cylinder" | "box"
    footprint_mm: tuple[float, float]  # cylinder: (diameter, diameter); box: (length, width)
    height_mm: float
    top: str  # "tag" | "colour"

    @property
    def radius_mm(self) -> float:
        """Half the footprint's larger side: how far the piece reaches from its centre."""
        return max(self.footprint_mm) / 2


@dataclass(frozen=True)
class Stack:
    """Pieces piled on one space of a kind (``base_mm`` under the first: a repository)."""

    space_kind: str
    tokens: tuple[str, ...]
    max_count: int
    base_mm: float = 0.0


@dataclass(frozen=True)
class PieceSet:
    game: str
    pieces: tuple[PieceKind, ...]
    stacks: tuple[Stack, ...] = ()
    source: str = ""  # the file(s) it was read from, for messages

    @cached_property
    def by_token(self) -> dict[str, PieceKind]:
        return {t: p for p in self.pieces for t in p.tokens}

    def piece(self, token: str) -> PieceKind:
        """The piece showing ``token`` (an Annelids tail ``blue:N`` is the ``blue`` piece)."""
        kind = self.by_token.get(token) or self.by_token.get(token.split(":", 1)[0])
        if kind is None:
            raise KeyError(f"{self.game} piece set ({self.source}): no piece shows token {token!r}")
        return kind

    def height(self, token: str) -> float:
        return self.piece(token).height_mm

    @property
    def heights(self) -> tuple[float, ...]:
        """Every height a single piece of this set may have, lowest first."""
        return tuple(sorted({p.height_mm for p in self.pieces}))

    @property
    def max_height(self) -> float:
        return max(self.top_heights(kind)[-1] for kind in {None, *(s.space_kind for s in self.stacks)})

    def stack_for(self, space_kind: str | None) -> Stack | None:
        for s in self.stacks:
            if s.space_kind == space_kind:
                return s
        return None

    def top_heights(self, space_kind: str | None = None, token: str | None = None) -> tuple[float, ...]:
        """Where the top face of whatever stands on a space of ``space_kind`` may be (mm above
        the board), lowest first: one piece's height, or on a stack's space the base plus any
        pile of up to ``max`` of its pieces (``token`` known: the top is that piece)."""
        stack = self.stack_for(space_kind)
        if token is not None and token not in (OCCUPIED, MORE):
            top = self.height(token)
            if stack is None:
                return (top,)
            others = [self.height(t) for t in stack.tokens]
            return _sums(others, stack.max_count - 1, start=stack.base_mm + top)
        if stack is None:
            return self.heights
        heights = [self.height(t) for t in stack.tokens]
        return tuple(h for h in _sums(heights, stack.max_count, start=stack.base_mm)
                     if h >= stack.base_mm + min(heights))  # at least one piece on the base


def _sums(heights: list[float], up_to: int, *, start: float) -> tuple[float, ...]:
    """Every ``start + sum`` of 0..``up_to`` of ``heights`` (repeats allowed), rounded to 0.1 mm."""
    distinct = sorted(set(heights))
    out = {round(start, 1)}
    for n in range(1, up_to + 1):
        for combo in combinations_with_replacement(distinct, n):
            out.add(round(start + sum(combo), 1))
    return tuple(sorted(out))


def load_pieceset(game: str, path: str | Path | None = None) -> PieceSet:
    """``game``'s piece set: the packaged file, with the pieces of the user's file ``path`` (if
    given) replacing the packaged entries for the tokens it names."""
    base_path = PIECESETS_DIR / f"{game}.json"
    if not base_path.exists():
        raise PieceSetError(f"no piece set for game {game!r} ({base_path} missing)")
    base = _parse(_read(base_path), base_path, game)
    if path is None:
        return base
    user = _parse(_read(Path(path)), Path(path), game)
    named = {t for p in user.pieces for t in p.tokens}
    kept = tuple(p for p in base.pieces if not named & set(p.tokens))
    stacks = user.stacks or base.stacks
    return PieceSet(game, kept + user.pieces, stacks, f"{base_path} + {path}")


def _read(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PieceSetError(f"piece set file {path} not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PieceSetError(f"piece set file {path}: cannot read it ({e})") from None
    return loads(text, where=f"piece set file {path}", error=PieceSetError)


def _num(where: str, value: object, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PieceSetError(f"{where}: expected a number of millimetres, got {value!r}")
    if value < 0 or (positive and value == 0) or value > 1000:
        raise PieceSetError(f"{where}: {value!r} mm is out of range (0-1000{', above 0' if positive else ''})")
    return float(value)


def _tokens(where: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(t, str) and t for t in value):
        raise PieceSetError(f"{where}: expected a non-empty list of token names")
    if MORE in value or OCCUPIED in value:
        raise PieceSetError(f"{where}: {value!r} names a reader's marker, not a piece's token")
    return tuple(value)


_PIECE_KEYS = ("name", "tokens", "shape", "height_mm", "top", "about", "diameter_mm", "length_mm", "width_mm")


def _parse(data: object, path: Path, game: str) -> PieceSet:
    expect_keys(data, required=("game", "pieces"), optional=("about", "stacks"), where=str(path), error=PieceSetError)
    if data.get("game") != game:
        raise PieceSetError(f"{path}: key 'game' is {data.get('game')!r}, expected {game!r}")
    raw = data.get("pieces")
    if not isinstance(raw, list) or not raw:
        raise PieceSetError(f"{path}: key 'pieces' must be a non-empty list")
    pieces: list[PieceKind] = []
    seen: set[str] = set()
    for i, p in enumerate(raw):
        where = f"{path}: pieces[{i}]"
        shape = p.get("shape") if isinstance(p, Mapping) else None
        if isinstance(p, Mapping) and shape not in SHAPES:  # the keys it needs depend on it
            expect_keys(p, required=("shape",), optional=_PIECE_KEYS, where=str(path), path=f"pieces[{i}]",
                        error=PieceSetError)
            raise PieceSetError(f"{where}.shape: {shape!r} is not one of {list(SHAPES)}")
        expect_keys(p, required=("tokens", "shape", "height_mm", *(("diameter_mm",) if shape == "cylinder" else
                                                                  ("length_mm", "width_mm"))),
                    optional=("name", "top", "about"), where=str(path), path=f"pieces[{i}]", error=PieceSetError)
        if shape not in SHAPES:
            raise PieceSetError(f"{where}.shape: {shape!r} is not one of {list(SHAPES)}")
        top = p.get("top", "tag")
        if top not in TOPS:
            raise PieceSetError(f"{where}.top: {top!r} is not one of {list(TOPS)}")
        tokens = _tokens(f"{where}.tokens", p.get("tokens"))
        if seen & set(tokens):
            raise PieceSetError(f"{where}.tokens: {sorted(seen & set(tokens))} already given a piece")
        seen |= set(tokens)
        if shape == "cylinder":
            d = _num(f"{where}.diameter_mm", p.get("diameter_mm"))
            footprint = (d, d)
        else:
            footprint = (_num(f"{where}.length_mm", p.get("length_mm")), _num(f"{where}.width_mm", p.get("width_mm")))
        name = p.get("name", "/".join(tokens))
        if not isinstance(name, str):
            raise PieceSetError(f"{where}.name: expected a string")
        pieces.append(PieceKind(name, tokens, shape, footprint, _num(f"{where}.height_mm", p.get("height_mm")), top))
    stacks: list[Stack] = []
    raw_stacks = data.get("stacks", [])
    if not isinstance(raw_stacks, list):
        raise PieceSetError(f"{path}: key 'stacks' must be a list")
    for i, s in enumerate(raw_stacks):
        where = f"{path}: stacks[{i}]"
        expect_keys(s, required=("space_kind", "tokens", "max"), optional=("base_mm", "about"), where=str(path),
                    path=f"stacks[{i}]", error=PieceSetError)
        kind = s.get("space_kind")
        if not isinstance(kind, str) or not kind:
            raise PieceSetError(f"{where}.space_kind: expected a space kind of the board (e.g. 'home')")
        n = s.get("max")
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 12:
            raise PieceSetError(f"{where}.max: expected a whole number 1-12, got {n!r}")
        stacks.append(Stack(kind, _tokens(f"{where}.tokens", s.get("tokens")), n,
                            _num(f"{where}.base_mm", s.get("base_mm", 0), positive=False)))
    return PieceSet(game, tuple(pieces), tuple(stacks), str(path))
