"""Why an Annelids board is not a legal move (issue 31, item 2; ``rules/why.py``).

``why_illegal(state, attempt)`` reads what the players most plausibly did off the attempt —
segments put on edges, an annelid (or part of one) taken off, two segments moved across a
small square, a tail moved — and names the rule of the rule text it breaks. Every rule is a
check of its own (:data:`CHECKS`, in the order a player would think of them) that answers
only when it is certainly true of the attempt, and never of a board a legal move leaves
(``tests/rules/test_why_annelids.py``). The rules, with the rulings that read them, are listed
in ``docs/rules/annelids.md`` ("Rules a board can break").

Two segments put down at once (two placements between stable views) are read in both orders:
a reason is given only when every order whose first placement is legal breaks the same rule.
"""

from __future__ import annotations

from collections.abc import Callable

from ..phrase import P, Phrase
from ..view import OCCUPIED, Fidelity
from ..why import Attempt, Reason, Rule
from .annelids import BLUE, FIRST_TURN, SEGMENT, START_TAILS, AnnelidsState, Place, opponent
from .annelids_geometry import geometry

GAME = "annelids"


def _rule(rule_id: str, section: str, quote: str) -> Rule:
    return Rule(GAME, rule_id, section, quote)


# The seed's headings and words, as received (docs/rules/annelids.md lists them).
RULES: dict[str, Rule] = {r.id: r for r in (
    _rule("game-over", "Removing annelids", "When a player removes his or her last annelid, that player loses."),
    _rule("alternate", "Play", "Players move alternatingly, starting with Blue."),
    _rule("first-turn", "Play", "On Blue’s first move, he or she must place four segments on the cell edges "
          "adjacently extending from the flat ends of the blue tails."),
    _rule("quota", "Play", "For every following turn (including Green’s first), a player must place as many segments "
          "as he or she has surviving annelids at the beginning of the turn."),
    _rule("far-end", "Play", "Segments extend from annelid tails like chains, and can only extend from the farthest "
          "segment."),
    _rule("own-annelids", "Play", "Players may only extend their own annelids."),
    _rule("removal", "Removing annelids", "A player may remove an annelid by attempting to extend it into part of any "
          "annelid."),
    _rule("tails-stay", "Play", "Segments extend from annelid tails like chains"),
    _rule("reconnect-two", "Reconnection", "If two annelids pass by each other through a square in opposite "
          "directions, their heads and tails can be swapped as long as doing so brings them to a more intermediate "
          "length."),
    _rule("reconnect-segments", "Reconnection", "At any point during either player’s turn, the segments in the small "
          "square can be moved so that the following configuration occurs"),
    _rule("reconnect-owner", "Reconnection", "Reconnections are also allowed between two annelids of the same color, "
          "but may only be made by the player controlling the annelids during his or her turn."),
    _rule("reconnect-direction", "Reconnection", "Further, reconnections cannot be made when the annelids pass "
          "through the junction in the same direction."),
    _rule("reconnect-lengths", "Reconnection", "A reconnection is allowed if and only if the annelid with a larger "
          "number of segments before the junction also has a larger number of segments after the junction."),
)}


def _who(player: str) -> Phrase:
    return P(player.capitalize())


def _is_tail(token: str) -> bool:
    return ":" in token


def _first_turn(state: AnnelidsState) -> bool:
    """Blue's first turn is under way (or, Green to move with none placed, just ended): every
    segment on the board is one of its four."""
    if len(state.annelids) != sum(len(t) for t in START_TAILS.values()) or any(
            a.segments for a in state.annelids if a.colour != BLUE):
        return False  # an annelid removed, or Green has grown: later than the first turn
    segments = sum(len(a.segments) for a in state.annelids)
    if state.player == BLUE:
        return state.quota == FIRST_TURN and segments == state.placed
    return state.placed == 0 and segments == FIRST_TURN


# -- one segment put down ---------------------------------------------------------------------------


def _head_vertex(state: AnnelidsState, tail: str) -> str:
    return state.head(tail)[1]


def placement(state: AnnelidsState, edge: str) -> tuple[str, Phrase, str | None] | None:
    """(rule id, said, the annelid's tail it names) for a segment put on the empty ``edge``
    where no legal placement of the player to move puts one; None if one does."""
    geo = geometry()
    ends = set(geo.ends[edge])
    heads = {a.tail: _head_vertex(state, a.tail) for a in state.annelids}
    if any(a.colour == state.player and heads[a.tail] in ends for a in state.annelids):
        return None  # at the far end of the mover's own annelid: a placement
    theirs = [a for a in state.annelids if a.colour != state.player and heads[a.tail] in ends]
    if theirs:
        a = theirs[0]
        other = a.colour
        if state.placed > 0:
            rule = "first-turn" if _first_turn(state) else "quota"
            return rule, P("the segment on {edge} grows {player}'s annelid from tail {tail}, but {mover} still has "
                           "{left} to place this turn", edge=edge, player=_who(other), tail=a.tail,
                           mover=_who(state.player), left=state.left), a.tail
        if state.player == BLUE and not any(x.segments for x in state.annelids):
            return "alternate", P("the segment on {edge} grows {player}'s annelid from tail {tail}, but {mover} "
                                  "moves first", edge=edge, player=_who(other), tail=a.tail,
                                  mover=_who(state.player)), a.tail
        rule = "first-turn" if _first_turn(state) else "alternate"
        return rule, P("the segment on {edge} grows {player}'s annelid from tail {tail}, but {player}'s turn is over: "
                       "{mover} to move", edge=edge, player=_who(other), tail=a.tail, mover=_who(state.player)), a.tail
    for a in sorted(state.annelids, key=lambda x: x.colour != state.player):
        touched = {v for e in a.edges for v in geo.ends[e]} - {heads[a.tail]}
        if touched & ends:
            if a.colour == state.player:
                return "far-end", P("the segment on {edge} is not at the far end of the annelid from tail {tail}: it "
                                    "grows only from its farthest segment", edge=edge, tail=a.tail), a.tail
            return "far-end", P("the segment on {edge} is not at the far end of any of {mover}'s annelids",
                                edge=edge, mover=_who(state.player)), None
    return "far-end", P("the segment on {edge} touches no annelid: segments extend an annelid from its far end",
                        edge=edge), None


# -- the checks, each true on its own ----------------------------------------------------------------

Check = Callable[[AnnelidsState, Attempt], "Phrase | None"]


def _game_over(state: AnnelidsState, attempt: Attempt) -> Phrase | None:
    if state.winner is None:
        return None
    if state.reason == "last annelid removed":
        return P("the game is over: {player} removed their last annelid", player=_who(opponent(state.winner)))
    return P("the game is over: {player} has won", player=_who(state.winner))


def _one_placed(state: AnnelidsState, attempt: Attempt, rule_id: str) -> Phrase | None:
    if attempt.lifted or len(attempt.placed) != 1 or state.winner is not None:
        return None
    found = placement(state, attempt.placed[0][0])
    return found[1] if found is not None and found[0] == rule_id else None


def _two_placed(state: AnnelidsState, attempt: Attempt, rule_id: str) -> Phrase | None:
    if attempt.lifted or len(attempt.placed) != 2 or state.winner is not None:
        return None
    (e1, _), (e2, _) = attempt.placed
    found = []
    for x, y in ((e1, e2), (e2, e1)):
        firsts = [m for m in state.legal_moves() if isinstance(m, Place) and m.edge == x]
        # x first: either it was a legal placement and y is judged after it, or x itself is wrong.
        found += [placement(state.successor(m), y) for m in firsts] or [placement(state, x)]
    if not found or any(f is None or f[0] != rule_id for f in found):
        return None
    if len({f[1] for f in found}) == 1:
        return found[0][1]
    tails = {f[2] for f in found}
    if rule_id == "far-end" and len(tails) == 1 and None not in tails:
        # Either could have come first: only one of the two can be at the far end.
        return P("the segments on {first} and {second} cannot both be at the far end of the annelid from tail "
                 "{tail}", first=e1, second=e2, tail=tails.pop())
    return None


def _placed(rule_id: str) -> Check:
    def check(state: AnnelidsState, attempt: Attempt) -> Phrase | None:
        return _one_placed(state, attempt, rule_id) or _two_placed(state, attempt, rule_id)

    return check


def _lifted_annelid(state: AnnelidsState, attempt: Attempt):
    """The one annelid every lifted piece belongs to, when nothing was put down."""
    if attempt.placed or not attempt.lifted or state.winner is not None:
        return None
    occ = state._index()[0]
    owners = {occ[s][0] for s, _ in attempt.lifted if s in occ}
    if len(owners) != 1 or any(s not in occ for s, _ in attempt.lifted):
        return None
    return state.annelids[owners.pop()]


def _own_annelids(state: AnnelidsState, attempt: Attempt) -> Phrase | None:
    a = _lifted_annelid(state, attempt)
    if a is None or a.colour == state.player:
        return None
    return P("pieces of {player}'s annelid from tail {tail} were taken off: {mover} extends, and so removes, only "
             "{mover}'s own annelids", player=_who(a.colour), tail=a.tail, mover=_who(state.player))


def _removal(state: AnnelidsState, attempt: Attempt) -> Phrase | None:
    a = _lifted_annelid(state, attempt)
    if a is None or a.colour != state.player:
        return None
    occ = state._index()[0]
    last, head = state.head(a.tail)
    if any(e in occ for e in geometry().onward[(last, head)]):
        return None  # its far end runs into an annelid: it may be removed
    return P("pieces of the annelid from tail {tail} were taken off: an annelid leaves the board whole, when its far "
             "end runs into an annelid, and this one's meets none", tail=a.tail)


def _tails_stay(state: AnnelidsState, attempt: Attempt) -> Phrase | None:
    if state.winner is not None or len(attempt.lifted) != 1 or len(attempt.placed) != 1:
        return None
    (start, token), (end, put) = attempt.lifted[0], attempt.placed[0]
    if not (_is_tail(token) and _is_tail(put)) or token.split(":")[0] != put.split(":")[0]:
        return None
    return P("the tail on {start} was moved to {end}: a tail stays where it is, its annelid grows from it",
             start=start, end=end)


def _square_of(attempt: Attempt) -> str | None:
    """The small square a reconnection attempt moves segments across: every piece lifted from
    one side, every one put down on another side, of one square."""
    squares = geometry().square_of
    where = {squares.get(s, (None,))[0] for s, _ in attempt.lifted + attempt.placed}
    if len(where) != 1 or None in where or not attempt.lifted or not attempt.placed:
        return None
    if len(attempt.lifted) > 2 or len(attempt.placed) > 2 or any(t != SEGMENT for _, t in attempt.placed):
        return None
    return where.pop()


def reconnection_fault(state: AnnelidsState, square: str) -> tuple[str, Phrase] | None:
    """Which rule a reconnection at ``square`` breaks now (None: it is allowed). Mirrors
    ``AnnelidsState._reconnected``, condition by condition, saying which one fails."""
    geo = geometry()
    occ, paths, _ = state._index()
    sides = geo.squares[square]
    taken = [s for s in sides if s in occ]
    if len(taken) != 2 or sides[(sides.index(taken[0]) + 2) % 4] != taken[1]:
        return "reconnect-two", P("no two annelids pass each other through the square {square}", square=square)
    i = sides.index(taken[0])
    (na, ia), (nb, ib) = occ[taken[0]], occ[taken[1]]
    a, b = state.annelids[na], state.annelids[nb]
    if na == nb:
        return "reconnect-two", P("only the annelid from tail {tail} passes through the square {square}: a "
                                  "reconnection swaps the heads of two annelids", tail=a.tail, square=square)
    if ia < 0 or ib < 0:
        tail = taken[0] if ia < 0 else taken[1]
        return "reconnect-segments", P("the tail on {edge} is in the square {square}: only segments are moved in a "
                                       "reconnection", edge=tail, square=square)
    if state.player not in (a.colour, b.colour):
        return "reconnect-owner", P("both annelids through the square {square} are {player}'s: only {player} may "
                                    "reconnect them, on {player}'s turn", square=square, player=_who(a.colour))
    a_in, b_out = paths[na][ia], paths[nb][ib + 1]
    free = [sides[(i + 1) % 4], sides[(i + 3) % 4]]
    join_a = next(s for s in free if a_in in geo.ends[s])
    if b_out not in geo.ends[join_a]:
        return "reconnect-direction", P("the annelids from tails {tail} and {other} pass through the square {square} "
                                        "the same way", tail=a.tail, other=b.tail, square=square)
    a_after, b_after = len(a.segments) - ia - 1, len(b.segments) - ib - 1
    if (ia - ib) * (a_after - b_after) <= 0:
        return "reconnect-lengths", P("the annelid from tail {tail} has {before} segments before the square {square} "
                                      "and {after} after it, the one from tail {other} {other_before} and "
                                      "{other_after}: the longer before must be the longer after", tail=a.tail,
                                      before=ia, after=a_after, square=square, other=b.tail, other_before=ib,
                                      other_after=b_after)
    return None


def _reconnection(rule_id: str) -> Check:
    def check(state: AnnelidsState, attempt: Attempt) -> Phrase | None:
        if state.winner is not None:
            return None
        square = _square_of(attempt)
        if square is None:
            return None
        occ = state._index()[0]
        if any(s not in occ for s, _ in attempt.lifted) or any(s in occ for s, _ in attempt.placed):
            return None
        fault = reconnection_fault(state, square)
        return fault[1] if fault is not None and fault[0] == rule_id else None

    return check


# In the order a player would think of them: is the game on, whose turn, where a segment may
# go, what may come off, then the reconnection's conditions in the text's order.
CHECKS: tuple[tuple[str, Check], ...] = (
    ("game-over", _game_over),
    ("alternate", _placed("alternate")),
    ("first-turn", _placed("first-turn")),
    ("quota", _placed("quota")),
    ("own-annelids", _own_annelids),
    ("far-end", _placed("far-end")),
    ("removal", _removal),
    ("tails-stay", _tails_stay),
    ("reconnect-two", _reconnection("reconnect-two")),
    ("reconnect-segments", _reconnection("reconnect-segments")),
    ("reconnect-owner", _reconnection("reconnect-owner")),
    ("reconnect-direction", _reconnection("reconnect-direction")),
    ("reconnect-lengths", _reconnection("reconnect-lengths")),
)


def named(state: AnnelidsState, attempt: Attempt) -> Attempt:
    """The attempt with its pieces named: at occupancy a piece lifted is the position's (a tail
    or a segment), and a piece put down a segment (tails are never put down in play)."""
    if not any(t == OCCUPIED for _, t in attempt.lifted + attempt.placed):
        return attempt
    here = {s: t[0] for s, t in state.view(Fidelity.KIND).items()}
    return Attempt(tuple((s, here.get(s, SEGMENT) if t == OCCUPIED else t) for s, t in attempt.lifted),
                   tuple((s, SEGMENT if t == OCCUPIED else t) for s, t in attempt.placed))


def diagnose(state: AnnelidsState, attempt: Attempt) -> tuple[str, Phrase] | None:
    """(rule id, the attempt said with why) of the first rule the attempt certainly breaks."""
    attempt = named(state, attempt)
    if not (attempt.lifted or attempt.placed):
        return None
    for rule_id, check in CHECKS:
        said = check(state, attempt)
        if said is not None:
            return rule_id, said
    return None


def holds(state: AnnelidsState, attempt: Attempt, rule_id: str) -> bool:
    """Whether ``rule_id``'s own check (alone, whatever the others say) finds the attempt breaks it."""
    attempt = named(state, attempt)
    return any(check(state, attempt) is not None for rid, check in CHECKS if rid == rule_id)


def why_illegal(state: AnnelidsState, attempt: Attempt) -> Reason | None:
    found = diagnose(state, attempt)
    return None if found is None else Reason(RULES[found[0]], found[1])
