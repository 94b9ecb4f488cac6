"""Why a board is not a legal move: the move the players most plausibly meant, and the rule of
the game it breaks, in the rule text's own words with the section it comes from.

``why_not(state, view, fidelity)`` is asked only about a board ``explain`` found ``illegal``
(no legal move, whole or part-way, explains it). It reads the **attempt** off the board — which
pieces left which spaces and where pieces arrived (:class:`Attempt`) — and asks the game
(:meth:`State.why_illegal`) which of its rules that attempt breaks. A game answers only when the
answer is true of the attempt it names (never a wrong reason); several pieces moved, or a board
no single rule explains, gets no rule (``several`` / ``reason`` None), said plainly.

Each game's rules are :class:`Rule` values with a stable id, the seed's section heading and the
seed's own words; ``docs/rules/<game>.md`` lists them ("Rules a board can break").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .game import State
from .phrase import Phrase
from .view import HIDDEN, MORE, OCCUPIED, Fidelity, View, named_in_part

# Tokens that say something is (or may be) there without naming it: never a piece moved.
_VAGUE = {MORE, OCCUPIED, HIDDEN}


@dataclass(frozen=True)
class Rule:
    """One rule of a game as its rule text says it."""

    game: str
    id: str  # stable, short: "closest-line"
    section: str  # the rule text's heading it comes from ("How to play")
    quote: str  # the rule text's own words (English, as received; the catalogs translate)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "id": self.id, "section": self.section, "quote": self.quote}


@dataclass(frozen=True)
class Attempt:
    """What the board shows was tried, against the position: each ``(space, token)`` that left
    the board (``lifted``) and that arrived (``placed``). A placement from a reserve lifts
    nothing on the board; a piece taken off places nothing."""

    lifted: tuple[tuple[str, str], ...]
    placed: tuple[tuple[str, str], ...]

    @property
    def is_single(self) -> bool:
        """One piece moved from one space to another (the same token)."""
        return (len(self.lifted) == 1 and len(self.placed) == 1
                and self.lifted[0][1] == self.placed[0][1] and self.lifted[0][0] != self.placed[0][0])

    @property
    def origin(self) -> str | None:
        return self.lifted[0][0] if len(self.lifted) == 1 else None

    @property
    def target(self) -> str | None:
        return self.placed[0][0] if len(self.placed) == 1 else None

    @property
    def token(self) -> str | None:
        tokens = {t for _, t in self.lifted + self.placed}
        return tokens.pop() if len(tokens) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        return {"lifted": [list(p) for p in self.lifted], "placed": [list(p) for p in self.placed]}


@dataclass(frozen=True)
class Reason:
    """The rule the attempt breaks, and the attempt in the game's words with why
    ("the double ring on c3 is not on your closest line")."""

    rule: Rule
    said: Phrase

    def to_dict(self) -> dict[str, Any]:
        return {**self.rule.to_dict(), "said": self.said.text}


@dataclass(frozen=True)
class WhyNot:
    attempt: Attempt | None
    reason: Reason | None = None
    several: bool = False  # more than one piece moved and no rule says why: no single move explains it

    def to_dict(self) -> dict[str, Any]:
        return {"attempt": None if self.attempt is None else self.attempt.to_dict(),
                "reason": None if self.reason is None else self.reason.to_dict(), "several": self.several}


def attempt_of(state: State, view: View, fidelity: Fidelity) -> Attempt | None:
    """The pieces that left and arrived, space by space (``None``: the board says too little —
    a vague reading where something changed)."""
    current = state.view(fidelity)
    seen = view.at_fidelity(fidelity).resolved(current)
    lifted: list[tuple[str, str]] = []
    placed: list[tuple[str, str]] = []
    # At occupancy fidelity "occupied" is what every piece reads as: a piece, not a vague reading.
    vague = _VAGUE - {OCCUPIED} if fidelity is Fidelity.OCCUPANCY else _VAGUE
    for space in sorted(current.diff(seen)):
        was, now = Counter(current.get_tokens(space)), Counter(seen.get_tokens(space))
        if vague & set(now) or any(named_in_part(t) for t in now):
            return None  # (a piece named in part that history does not name: which one is unsure)
        lifted += [(space, t) for t in (was - now).elements()]
        placed += [(space, t) for t in (now - was).elements()]
    return Attempt(tuple(lifted), tuple(placed))


def why_not(state: State, view: View, fidelity: Fidelity = Fidelity.KIND) -> WhyNot:
    """The attempt the board shows and, where one rule forbids it, that rule."""
    attempt = attempt_of(state, view, fidelity)
    if attempt is None or not (attempt.lifted or attempt.placed):
        return WhyNot(attempt)
    most = state.max_move_spaces
    changed = {s for s, _ in attempt.lifted} | {s for s, _ in attempt.placed}
    if most is not None and len(changed) > most:
        return WhyNot(attempt, several=True)
    reason = state.why_illegal(attempt)
    # No rule, and more than one piece moved (lifted or put down: two segments laid at once, two
    # pieces put on the track): said plainly. One piece moved wrongly with no rule is only put back.
    moved = max(len(attempt.lifted), len(attempt.placed))
    return WhyNot(attempt, reason, several=reason is None and moved > 1)
