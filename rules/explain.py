"""``explain(state, observed)``: which legal move(s), if any, turned the board into what
the sensors now read.

Verdicts, in the order they are tried:

* ``unreadable`` — some spaces could not be read; nothing is decided.
* ``unchanged``  — the board still shows the current position.
* ``legal``      — exactly one resulting position explains the board (several moves that
  leave the *same* position, such as two paths to one square, are one outcome).
* ``ambiguous``  — several different positions explain it; the players must choose.
* ``partial``    — the board is part-way to one or more legal outcomes: every changed
  space already shows its final contents or is empty (a piece in the hand). Wait.
* ``illegal``    — nothing explains it; ``restore`` says what to put back where.

A view may be *mixed* (``rules.view``): piles read by their top (MORE) and pieces seen but
not named (OCCUPIED). Each candidate position is compared with the board through
:meth:`View.resolved`, so an unnamed piece matches whatever the candidate puts there: the
history and the legal moves say what it must be. Exactly one position → ``legal``.
A space read HIDDEN (a piece in front hides it from the camera) matches anything, but when
any position that explains the board changes what lies there, nothing is ``legal`` nor
``ambiguous``: that move cannot be seen to be done (a piece carried there and one still in a
player's hand look alike), so it is awaited as ``partial`` until the space is seen.

Exact matches are looked for first among single moves, then — only when no single move is
under way — among sequences of up to ``max_sequence`` moves (capped by the game's
``State.max_unseen_moves``): two moves made faster than the stabiliser could see.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .game import Move, State
from .view import Fidelity, View


class Verdict(enum.Enum):
    UNREADABLE = "unreadable"
    UNCHANGED = "unchanged"
    LEGAL = "legal"
    AMBIGUOUS = "ambiguous"
    PARTIAL = "partial"
    ILLEGAL = "illegal"


@dataclass(frozen=True)
class SpaceFix:
    """One space that does not show what it should: ``expected`` vs what was ``observed``."""

    space: str
    expected: tuple[str, ...]
    observed: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"space": self.space, "expected": list(self.expected), "observed": list(self.observed)}

    def text(self) -> str:
        want = "+".join(self.expected) or "empty"
        got = "+".join(self.observed) or "empty"
        return f"{self.space}: {want} (board shows {got})"


@dataclass(frozen=True)
class Candidate:
    """One outcome: the move sequences that reach it (first is canonical) and the position."""

    sequences: tuple[tuple[Move, ...], ...]
    state: State
    texts: tuple[str, ...]

    @property
    def moves(self) -> tuple[Move, ...]:
        return self.sequences[0]

    @property
    def text(self) -> str:
        return self.texts[0]

    def has_move(self, move: Move) -> bool:
        return any(seq == (move,) for seq in self.sequences)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.text, "equivalent": list(self.texts[1:])}


@dataclass(frozen=True)
class Explanation:
    verdict: Verdict
    candidates: tuple[Candidate, ...] = ()
    restore: tuple[SpaceFix, ...] = ()
    pending: tuple[SpaceFix, ...] = ()
    unreadable: frozenset[str] = field(default_factory=frozenset)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "candidates": [c.to_dict() for c in self.candidates],
            "restore": [f.to_dict() for f in self.restore],
            "pending": [f.to_dict() for f in self.pending],
            "unreadable": sorted(self.unreadable),
        }


def _seq_text(state: State, seq: Sequence[Move]) -> str:
    texts, s = [], state
    for m in seq:
        texts.append(s.move_text(m))
        s = s.successor(m)
    return " ".join(texts)


def _group(state: State, found: Iterable[tuple[tuple[Move, ...], State]]) -> tuple[Candidate, ...]:
    groups: dict[State, list[tuple[Move, ...]]] = {}
    for seq, succ in found:
        groups.setdefault(succ, []).append(seq)
    cands = []
    for succ, seqs in groups.items():
        # The simplest notation of an outcome is its canonical move ("c1-d3" over "c1-d1/d3").
        named = sorted(((_seq_text(state, q), q) for q in seqs), key=lambda tq: (len(tq[1]), len(tq[0])))
        cands.append(Candidate(tuple(q for _, q in named), succ, tuple(t for t, _ in named)))
    return tuple(cands)


def _fixes(spaces: Iterable[str], expected: View, observed: View) -> tuple[SpaceFix, ...]:
    return tuple(SpaceFix(s, expected.get_tokens(s), observed.get_tokens(s)) for s in sorted(spaces))


def explain(
    state: State,
    observed: View,
    fidelity: Fidelity = Fidelity.KIND,
    *,
    unreadable: Iterable[str] = (),
    max_sequence: int = 2,
) -> Explanation:
    hidden = frozenset(unreadable)
    if hidden:
        return Explanation(Verdict.UNREADABLE, unreadable=hidden)
    observed = observed.at_fidelity(fidelity)
    current = state.view(fidelity)
    # A pile or an unnamed piece that the current position accounts for is no change.
    diff = current.diff(observed.resolved(current))
    if not diff:
        return Explanation(Verdict.UNCHANGED)

    touching = _touching(state)
    exact: list[tuple[tuple[Move, ...], State]] = []
    partial: list[tuple[tuple[Move, ...], State]] = []
    for m, spaces in touching:
        if not diff <= spaces:
            continue
        succ = state.successor(m)
        after = succ.view(fidelity)
        seen = observed.resolved(after)
        if after == seen:
            exact.append(((m,), succ))
        elif all(seen.get_tokens(s) in (after.get_tokens(s), ()) for s in diff):
            partial.append(((m,), succ))

    # A board part-way to one move is far likelier than two whole moves unseen, and the
    # sequence search is the expensive part: only look for sequences when nothing is under way.
    depth = min(max_sequence, state.max_unseen_moves)
    if not exact and not partial and depth > 1:
        # A move inside a pile (under its top) is not seen, nor one that only swapped which
        # piece stands on a space read unnamed: either may be a step of the sequence.
        hidden_change = observed.piles if fidelity is Fidelity.OCCUPANCY else observed.fuzzy
        exact = list(_sequences(state, observed, fidelity, diff | hidden_change, touching, depth))

    if observed.hidden and any(_changes(current, succ.view(fidelity), observed.hidden) for _, succ in exact):
        # One way the board may have come about changed a space nobody can see: awaited, never
        # accepted (a piece carried there and one still in the hand look alike), nor any other.
        return Explanation(Verdict.PARTIAL, _group(state, exact + partial))
    if exact:
        cands = _group(state, exact)
        verdict = Verdict.LEGAL if len(cands) == 1 else Verdict.AMBIGUOUS
        return Explanation(verdict, cands)
    if partial:
        cands = _group(state, partial)
        # What is still to be done: for one outcome, every space not yet right; for
        # several, only what they all agree on.
        views = [c.state.view(fidelity) for c in cands]
        still = set.intersection(*(set(observed.resolved(v).diff(v)) for v in views))
        agreed = {s for s in still if len({v.get_tokens(s) for v in views}) == 1}
        return Explanation(Verdict.PARTIAL, cands, pending=_fixes(agreed, views[0], observed))
    # The game may keep parts of a move already done right (DRIFT: a river turned right).
    return Explanation(Verdict.ILLEGAL, restore=state.restore(observed, _fixes(diff, current, observed)))


def _changes(current: View, after: View, spaces: frozenset[str]) -> bool:
    return any(current.get_tokens(s) != after.get_tokens(s) for s in spaces)


def _touching(state: State) -> list[tuple[Move, frozenset[str]]]:
    # Cached on the (frozen) state: explain is asked about the same position many times
    # while a hand moves over the board.
    cached = state.__dict__.get("_explain_touching")
    if cached is None:
        cached = [(m, state.move_spaces(m)) for m in state.legal_moves()]
        object.__setattr__(state, "_explain_touching", cached)
    return cached


def _sequences(state, observed, fidelity, diff, touching, depth):
    """Exact matches among sequences of 2..depth moves; every step must touch the change
    (``diff``: the spaces changed, and the piles, which may have changed unseen)."""
    frontier = [((m,), state.successor(m)) for m, spaces in touching if spaces & diff]
    for level in range(2, depth + 1):
        deeper = level < depth
        nxt = []
        for seq, s in frontier:
            if s.is_game_over():
                continue
            here = s.view(fidelity)
            rest = here.diff(observed.resolved(here))
            # The last move must change every space still wrong: skip a position one move
            # cannot mend before generating its moves (Gygès: 1-3 s a board → tens of ms).
            if not deeper and s.max_move_spaces is not None and len(rest) > s.max_move_spaces:
                continue
            for m, spaces in _touching(s):
                if not spaces & diff:
                    continue
                if rest <= spaces:
                    succ = s.successor(m)
                    if succ.view(fidelity).matches(observed):
                        yield seq + (m,), succ
                        continue
                if deeper:
                    nxt.append((seq + (m,), s.successor(m)))
        frontier = nxt
