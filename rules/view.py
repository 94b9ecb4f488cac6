"""Views and observations: what a sensor reads, space by space.

A :class:`View` maps space ids to the tokens read there (empty spaces are simply
absent). What a token says depends on the :class:`Fidelity`:

* ``occupancy`` — the single token :data:`OCCUPIED`;
* ``kind``      — the piece's kind in the game's own words (``"2"`` for a double ring);
* ``identity``  — the exact physical piece; games whose pieces are interchangeable in
  the rules read the same as ``kind``.

A sensor that sees only the top of a pile (DRIFT's home, where a player's pieces stand
stacked) adds the token :data:`MORE`: the tokens read are there, and more may lie beneath.

A view read at kind or identity fidelity may also be *mixed*: where the reader sees
something but cannot name it (a sticker it cannot read), it reads :data:`OCCUPIED` —
one piece here, not named. Each OCCUPIED stands for exactly one token; a reader that cannot
even count what is there reads ``(OCCUPIED, MORE)``: at least one. History and the legal
moves then say what the piece must be (``rules.explain``). At occupancy fidelity every token
is OCCUPIED on both sides, so nothing is unknown.

A piece may also be named in part: ``kind:?`` (:func:`in_part`) is one piece whose token begins
``kind:`` and whose last part was not seen — an Annelids tail whose colour is plain but whose
dark cap, which gives its heading, is not (``blue:?``). It stands for exactly one such token:
never a segment, never a tail of the other colour.

A camera also reads :data:`HIDDEN` where a piece in front hides a space from it (a DRIFT home's
pile six high hides the repository behind it): anything, or nothing, may be there. Such a space
never blocks a move elsewhere, but no move that changes it can be seen to be done (``rules.explain``).

:meth:`View.matches` and :meth:`View.resolved` are the comparisons that honour them all.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from .errors import InvalidStateError

OCCUPIED = "occupied"
MORE = "more"  # a pile read from above: its top token(s) read, more may lie beneath
HIDDEN = "hidden"  # a space a piece in front hides from the camera: anything, or nothing, may be there
PART_UNSEEN = "?"  # the last part of a token named in part ("blue:?")


def in_part(kind: str) -> str:
    """The token of a piece named in part: one whose token begins ``kind:``, the rest unseen."""
    return f"{kind}:{PART_UNSEEN}"


def named_in_part(token: str) -> str | None:
    """The prefix (``"blue:"``) a token named in part stands for; None for any other token."""
    return token[:-1] if token.endswith(":" + PART_UNSEEN) else None


class Fidelity(enum.Enum):
    OCCUPANCY = "occupancy"
    KIND = "kind"
    IDENTITY = "identity"

    @classmethod
    def parse(cls, text: str) -> "Fidelity":
        try:
            return cls(text)
        except ValueError:
            names = ", ".join(f.value for f in cls)
            raise InvalidStateError(f"unknown fidelity {text!r} (expected one of: {names})") from None


class View(Mapping[str, tuple[str, ...]]):
    """An immutable, hashable map of space id → sorted tuple of tokens."""

    __slots__ = ("_spaces", "_hash", "_piles", "_unnamed", "_hidden", "_in_part")

    def __init__(self, spaces: Mapping[str, Iterable[str] | str] | None = None) -> None:
        clean: dict[str, tuple[str, ...]] = {}
        for space, tokens in (spaces or {}).items():
            if isinstance(tokens, str):
                tokens = (tokens,)
            tup = tuple(sorted(str(t) for t in tokens))
            if tup:
                clean[str(space)] = tup
        self._spaces = clean
        self._hash: int | None = None
        self._piles: frozenset[str] | None = None
        self._unnamed: frozenset[str] | None = None
        self._hidden: frozenset[str] | None = None
        self._in_part: frozenset[str] | None = None

    def __getitem__(self, space: str) -> tuple[str, ...]:
        return self._spaces[space]

    def __iter__(self) -> Iterator[str]:
        return iter(self._spaces)

    def __len__(self) -> int:
        return len(self._spaces)

    def get_tokens(self, space: str) -> tuple[str, ...]:
        return self._spaces.get(space, ())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, View):
            return self._spaces == other._spaces
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._spaces.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"View({self.to_dict()!r})"

    def diff(self, other: "View") -> frozenset[str]:
        """Spaces whose contents differ between ``self`` and ``other``."""
        keys = self._spaces.keys() | other._spaces.keys()
        return frozenset(k for k in keys if self.get_tokens(k) != other.get_tokens(k))

    def at_fidelity(self, fidelity: Fidelity) -> "View":
        """Coarsen a view: only occupancy can be derived from any other view."""
        if fidelity is Fidelity.OCCUPANCY:
            return View({s: tuple(t if t in (MORE, HIDDEN) else OCCUPIED for t in toks) for s, toks in self._spaces.items()})
        return self

    @property
    def piles(self) -> frozenset[str]:
        """Spaces read as piles (their tokens include :data:`MORE`)."""
        if self._piles is None:
            self._piles = frozenset(s for s, t in self._spaces.items() if MORE in t)
        return self._piles

    @property
    def unnamed(self) -> frozenset[str]:
        """Spaces holding a piece read as :data:`OCCUPIED` (seen, not named). In a view at
        occupancy fidelity that is every occupied space."""
        if self._unnamed is None:
            self._unnamed = frozenset(s for s, t in self._spaces.items() if OCCUPIED in t)
        return self._unnamed

    @property
    def hidden(self) -> frozenset[str]:
        """Spaces read :data:`HIDDEN`: out of the sensor's sight, anything may be there."""
        if self._hidden is None:
            self._hidden = frozenset(s for s, t in self._spaces.items() if HIDDEN in t)
        return self._hidden

    @property
    def in_part(self) -> frozenset[str]:
        """Spaces holding a piece named in part (``blue:?``: :func:`named_in_part`)."""
        if self._in_part is None:
            self._in_part = frozenset(s for s, t in self._spaces.items() if any(named_in_part(x) for x in t))
        return self._in_part

    @property
    def fuzzy(self) -> frozenset[str]:
        """Spaces whose tokens are not all named: piles, unnamed pieces, pieces named in part
        and hidden spaces."""
        return self.piles | self.unnamed | self.in_part | self.hidden

    def matches(self, observed: "View") -> bool:
        """Is ``observed`` what a sensor may read of this (exact) view? Equal, except that a
        pile in ``observed`` need only show some of the tokens here (and something is here),
        and an :data:`OCCUPIED` there may stand for any one token here, a token named in part
        for one token here it begins, a :data:`HIDDEN` for anything."""
        if not observed.fuzzy:
            return self == observed
        return observed.resolved(self) == self

    def resolved(self, expected: "View") -> "View":
        """This (observed) view with every pile or unnamed piece that ``expected`` accounts
        for replaced by ``expected``'s tokens there; the rest is left as read."""
        fuzzy = self.fuzzy
        if not fuzzy:
            return self
        spaces = dict(self._spaces)
        changed = False
        for s in fuzzy:
            want = expected.get_tokens(s)
            seen = spaces[s]
            if want != seen and _could_be(want, seen):
                spaces[s] = want
                changed = True
        return View(spaces) if changed else self

    def to_dict(self) -> dict[str, list[str]]:
        return {s: list(t) for s, t in sorted(self._spaces.items())}

    @classmethod
    def from_dict(cls, data: object, *, where: str = "view") -> "View":
        if not isinstance(data, Mapping):
            raise InvalidStateError(f"{where}: expected an object of space -> tokens, got {type(data).__name__}")
        for space, tokens in data.items():
            if isinstance(tokens, str):
                continue
            if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
                raise InvalidStateError(f"{where}: space {space!r}: expected a token or a list of tokens")
        return cls(data)


def _could_be(tokens: tuple[str, ...], seen: tuple[str, ...]) -> bool:
    """Can a space holding ``tokens`` be read as ``seen``? Each named token of ``seen`` must
    be there, each token named in part stands for one other token it begins, each OCCUPIED
    for one other token, and MORE for any number beneath; HIDDEN stands for anything,
    nothing included."""
    if HIDDEN in seen:
        return True
    if not tokens:
        return False
    rest = list(tokens)
    unnamed = 0
    more = False
    parts: list[str] = []
    for t in seen:
        if t == MORE:
            more = True
        elif t == OCCUPIED and OCCUPIED not in rest:
            unnamed += 1
        elif t in rest:
            rest.remove(t)
        elif (prefix := named_in_part(t)) is not None:
            parts.append(prefix)
        else:
            return False
    for prefix in parts:  # (after the named ones: "blue:?" beside "blue:N" is another blue tail)
        match = next((r for r in rest if r.startswith(prefix) and named_in_part(r) is None), None)
        if match is None:
            return False
        rest.remove(match)
    return len(rest) >= unnamed if more else len(rest) == unnamed


@dataclass(frozen=True)
class Observation:
    """One reading from a source: a view plus when, from where, how well, and what was hidden.

    ``hands_clear_since``: a source that sees hands (the camera's motion gate) gives the time
    since which nothing has moved over the board — the hand left then. The stabiliser then
    decides after a short quiet window instead of a settle time; ``None`` (sensors without a
    hand signal) keeps the settle time."""

    view: View
    time: float
    fidelity: Fidelity
    source: str = "unknown"
    unreadable: frozenset[str] = field(default_factory=frozenset)
    hands_clear_since: float | None = None

    @property
    def is_complete(self) -> bool:
        return not self.unreadable
