"""Gygès: why a board is not a legal move (issue 31, item 2; the frame is ``rules/why.py``).

The attempt is read as the ring move the players most plausibly meant — the ring that left a
space and where it arrived (``a1-c3``), a bump (``a1-c3/b4``: the landed-on ring moved on),
a capture (``a1-N``), or a setup placement — and the rules are checked in the order a person
thinks of them: which ring may move at all, where it may go, then the bump. A rule is named
only when it alone forbids the move: each check asks whether the move would be reachable if
that one rule were dropped (:func:`reach` with ``through`` or ``reuse``), so a ring that went
too far *and* through a ring is "too far", never "through an occupied space".
The rules, with the seed's words, are listed in ``docs/rules/gyges.md`` ("Rules a board can break").
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from ..phrase import P, Phrase
from ..view import OCCUPIED
from ..why import Attempt, Reason, Rule
from .gyges import (
    HEIGHT_NAMES, PLAYERS, SETUP_PER_HEIGHT, SOUTH, THRONE, GygesState, RingMove, _geometry, _opponent, _row,
)


def _rule(id_: str, section: str, quote: str) -> Rule:
    return Rule("gyges", id_, section, quote)


# In the order they are checked (a person's order: the setup, which ring, where it goes, the bump).
RULES: dict[str, Rule] = {r.id: r for r in (
    _rule("setup-line", "Setup", "Place 1 of your rings in each of the 6 spaces on your starting line (the line "
          "closest to you on the board, in front of your throne space), in any configuration you like."),
    _rule("setup-count", "Setup", "Each player takes 2 single, 2 double, and 2 triple rings."),
    _rule("closest-line", "How to play", "On your turn, you must move 1 of the rings closest to you on the board."),
    _rule("own-throne", "Goal of the game", "Capture your opponent's throne by landing a ring there."),
    _rule("height", "Playing a ring", "The number of spaces it can move is equal to its height."),
    _rule("occupied", "Playing a ring", "You can't move through an occupied space"),
    _rule("connector", "Playing a ring", "You can't … take the same connector more than once."),
    _rule("bump-empty", "Playing a ring", "move it to an empty space, and leave the ring you were initially "
          "playing in its place."),
    _rule("bump-behind", "Playing a ring", "You can't reposition a ring to a space behind the line of rings "
          "closest to your opponent."),
    # The seed writes "**entirety**" (bold, from its layout): said without the stars.
    _rule("game-over", "End of the game", "If you end the entirety of your move on your opponent's throne space, "
          "you win the game."),
    _rule("kings-reposition", "Variant: GAME OF KINGS", "When you seize your opponent's throne, they must "
          "reposition your winning ring elsewhere on the board, following normal repositioning rules."),
)}


class Reach(NamedTuple):
    ends: frozenset[str]  # empty spaces where a segment may end the turn
    landings: frozenset[str]  # rings a segment may land on (to jump off or bump)
    captures: bool  # the opponent's throne may be entered


def reach(state: GygesState, start: str, *, through: bool = False, reuse: bool = False) -> Reach:
    """Where the ring on ``start`` may go, as the engine's search (``GygesState._reach``) but
    with one rule dropped: ``through`` lets a segment pass occupied spaces, ``reuse`` lets it
    take a connector again. Both ``False`` is the rules as they are. Memoised on the (frozen)
    state: one board's readings ask the same searches several times."""
    cache = state.__dict__.setdefault("_why_reach", {})
    key = (start, through, reuse)
    if key not in cache:
        cache[key] = _search(state, start, through, reuse)
    return cache[key]


def _search(state: GygesState, start: str, through: bool, reuse: bool) -> Reach:
    geo, occ, mover = _geometry(), state._occ, state.player
    own, enemy = THRONE[mover], THRONE[_opponent(mover)]
    ends: set[str] = set()
    landings: set[str] = set()
    captures = False
    seen: set[tuple[str, int, int]] = set()
    stack = [(start, occ[start], 0)]
    while stack:
        key = stack.pop()
        if key in seen:
            continue
        seen.add(key)
        pos, left, used = key
        for nb, bit in geo.adjacent[pos]:
            if (used & bit and not reuse) or nb == own:
                continue
            after = used if reuse else used | bit  # with reuse the connectors used need no record
            if nb == enemy:
                captures = captures or left == 1
                continue
            occupied = nb != start and nb in occ
            if left > 1:
                if through or not occupied:
                    stack.append((nb, left - 1, after))
            elif not occupied:
                if nb != start:
                    ends.add(nb)
            else:
                landings.add(nb)
                stack.append((nb, occ[nb], after))
    return Reach(frozenset(ends), frozenset(landings), captures)


def _gets_there(r: Reach, end: str, landing: bool) -> bool:
    if end in "NS":
        return r.captures
    return end in (r.landings if landing else r.ends)


def _ring(height: int) -> Phrase:
    return P(f"{HEIGHT_NAMES[height]} ring")


def _behind(state: GygesState, start: str, end: str, bump_to: str) -> bool:
    """Is ``bump_to`` behind the opponent's nearest row, counted once the mover has landed on
    ``end`` and the bumped ring is lifted (ruling R7)?"""
    occ = {s: h for s, h in state._occ.items() if s not in (start, end)}
    occ[end] = state._occ[start]
    limit = state.nearest_row(_opponent(state.player), occ)
    if limit is None:
        return False
    return _row(bump_to) > limit if state.player == SOUTH else _row(bump_to) < limit


def broken(state: GygesState, rule: str, move: RingMove) -> bool:
    """Whether ``move`` (not necessarily legal) breaks ``rule`` by that rule's own check."""
    occ, start, end = state._occ, move.start, move.end
    if rule == "closest-line":
        # Every legal move starts on one row (R1): the ring is not on it, so none lifts it.
        return _row(start) not in _playable_rows(state)
    if rule == "own-throne":
        return end == THRONE[state.player]
    landing = move.bump_to is not None
    if rule == "height":
        return not _gets_there(reach(state, start, through=True, reuse=True), end, landing)
    if rule == "occupied":
        return (_gets_there(reach(state, start, through=True), end, landing)
                and not _gets_there(reach(state, start, reuse=True), end, landing)
                and not _gets_there(reach(state, start), end, landing))
    if rule == "connector":
        return (_gets_there(reach(state, start, reuse=True), end, landing)
                and not _gets_there(reach(state, start, through=True), end, landing)
                and not _gets_there(reach(state, start), end, landing))
    if rule == "bump-empty":
        return landing and move.bump_to in occ and move.bump_to not in (start, end)
    if rule == "bump-behind":
        return landing and move.bump_to not in occ and _behind(state, start, end, move.bump_to)
    raise ValueError(f"gyges: no rule {rule!r}")


def _playable_rows(state: GygesState) -> set[int]:
    return {_row(m.start) for m in state.legal_moves() if isinstance(m, RingMove)}


def _said(state: GygesState, rule: str, move: RingMove) -> Phrase:
    height = state._occ[move.start]
    ring, start, end = _ring(height), move.start, move.end
    if rule == "closest-line":
        rows = sorted(_playable_rows(state))
        return P("the {ring} on {start} is not on your closest line: play a ring from row {row}", ring=ring,
                 start=start, row=rows[0] if rows else "?")
    if rule == "own-throne":
        return P("the {ring} on {start} may not end on your own throne", ring=ring, start=start)
    if rule == "height":
        return P("a {ring} moves exactly {n} space: it cannot get from {start} to {end}",
                 "a {ring} moves exactly {n} spaces: it cannot get from {start} to {end}", ring=ring, n=height,
                 start=start, end=end)
    if rule == "occupied":
        return P("the {ring} on {start} cannot reach {end} without moving through an occupied space", ring=ring,
                 start=start, end=end)
    if rule == "connector":
        return P("the {ring} on {start} can reach {end} only by taking a connector twice", ring=ring, start=start,
                 end=end)
    bumped = _ring(state._occ[end])
    if rule == "bump-empty":
        return P("the {bumped} bumped from {end} goes to an empty space, and {to} is occupied", bumped=bumped,
                 end=end, to=move.bump_to)
    return P("the {bumped} bumped from {end} may not go to {to}, behind the line of rings closest to your opponent",
             bumped=bumped, end=end, to=move.bump_to)


def _fault(state: GygesState, move: RingMove) -> str | None:
    """The first rule, in a person's order, that ``move`` breaks by its own check; ``None``
    when none does alone (the move is legal, or only breaking two rules at once gets there)."""
    if state.is_legal(move):
        return None
    steps = ("closest-line", "own-throne", "height", "occupied", "connector")
    if move.bump_to is not None and _gets_there(reach(state, move.start), move.end, True):
        steps = ("bump-empty", "bump-behind")  # it may land there: only the bumped ring's new space is wrong
    for rule in steps:
        if broken(state, rule, move):
            return rule
    return None


def readings(state: GygesState, attempt: Attempt) -> tuple[RingMove, ...]:
    """The ring moves the board may show, against ``state``: rings by height (kind fidelity),
    or all alike (occupancy: only a ring that left one space for another reads)."""
    lifted, placed = Counter(attempt.lifted), Counter(attempt.placed)
    lift_only = [(s, t) for s, t in lifted if s not in {p for p, _ in placed}]
    place_only = [(s, t) for s, t in placed if s not in {p for p, _ in lifted}]
    both = sorted({s for s, _ in lifted} & {s for s, _ in placed})
    tokens = [t for _, t in attempt.lifted + attempt.placed]
    occupancy = all(t == OCCUPIED for t in tokens)
    if not (occupancy or all(t.isdigit() for t in tokens)) or sum(lifted.values()) > 2:
        return ()
    if attempt.is_single:
        # A ring from start to end; or, the same, one that landed on a ring of its own height
        # (of any height, where heights are not seen) and bumped it to ``end`` (R8, R11).
        (start, token), = attempt.lifted
        end = attempt.placed[0][0]
        if end in state._occ:
            return ()  # set on another ring (a stack): landed there, the turn not finished — no rule
        out = [RingMove(start, end)]
        if end not in "NS":
            out += [RingMove(start, y, end) for y in sorted(reach(state, start).landings)
                    if (occupancy or str(state._occ[y]) == token) and y != end]
        return tuple(out)
    if occupancy:
        return ()  # a bump shows as a plain move, a swap as nothing: nothing else reads
    if len(lift_only) == 1 and len(place_only) == 1 and len(both) == 1:
        # A bump: the start emptied, the landed-on ring replaced by the mover, that ring moved on.
        (start, mover), end, (to, token) = lift_only[0], both[0], place_only[0]
        if ((end, mover) in placed and (end, token) in lifted and (start, mover) in lifted
                and len(attempt.lifted) == 2 and len(attempt.placed) == 2):
            return (RingMove(start, end, to),)
        return ()
    if not lift_only and not place_only and len(both) == 2 and len(attempt.lifted) == 2:
        # Two rings swapped: either landed on the other and bumped it back onto its start.
        a, b = both
        return (RingMove(a, b, a), RingMove(b, a, b))
    return ()


def setup_fault(state: GygesState, attempt: Attempt) -> tuple[str, Phrase] | None:
    if attempt.lifted or len(attempt.placed) != 1:
        return None
    (space, token), = attempt.placed
    if not token.isdigit() and token != OCCUPIED:
        return None
    height = int(token) if token.isdigit() else 0  # occupancy: the height is not seen
    geo = _geometry()
    side = next((p for p in PLAYERS if space in geo.starting_line[p]), None)
    if side is None:
        return "setup-line", P("{space} is not on a starting line: rings are set up on the line in front of a "
                               "throne", space=space)
    line = geo.starting_line[side]
    if height in (1, 2, 3) and sum(1 for s in line if state._occ.get(s) == height) >= SETUP_PER_HEIGHT:
        return "setup-count", P("{side} has already set up {n} {rings}", side=P(side.capitalize()),
                                n=SETUP_PER_HEIGHT, rings=P(f"{HEIGHT_NAMES[height]} rings"))
    return None


def reposition_fault(state: GygesState, attempt: Attempt) -> tuple[str, Phrase] | None:
    """Game of Kings: the winning ring taken off the throne to a space behind the winner's line."""
    throne = THRONE[state.player]
    if not attempt.is_single or attempt.origin != throne:
        return None
    to = attempt.target
    legal = {m.end for m in state.legal_moves()}
    if to in "NS" or to in legal or to in state._occ:
        return None  # a throne, or a space it may go to: not this rule
    return "kings-reposition", P("the winning ring may not go to {to}, behind the line of rings closest to your "
                                 "opponent", to=to)


def why_illegal(state: GygesState, attempt: Attempt) -> Reason | None:
    found = None
    if state.stage == "over":
        found = "game-over", P("the game is over: {winner} captured the throne", winner=P(state.winner.capitalize()))
    elif state.stage == "setup":
        found = setup_fault(state, attempt)
    elif state.stage == "reposition":
        found = reposition_fault(state, attempt)
    if found is not None or state.stage != "play":
        return None if found is None else Reason(RULES[found[0]], found[1])
    moves = readings(state, attempt)
    if not moves:
        return None
    faults = [(_fault(state, m), m) for m in moves]
    if any(rule is None for rule, _ in faults):
        return None  # one reading breaks no single rule: no reason is certainly true
    # A plain move and a same-height bump show alike: say a rule only if every reading breaks it.
    # (The swap's two readings may break different rules: then neither is certain.)
    if len({rule for rule, _ in faults}) > 1:
        return None
    rule, move = faults[0]
    return Reason(RULES[rule], _said(state, rule, move))
