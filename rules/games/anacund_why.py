"""Anacund: why a board is not a legal move (issue 31, item 2; the frame is ``rules/why.py``).

The attempt is read as a placement (one piece put on a track square ``tN``) with the captures
carried out beside it (pieces lifted from the track, laid on the side strip ``sN``), or as
captures alone. The rules are checked in the order a person thinks of them: is the game still
on, whose turn, may a piece go on that square at all (dead, then its number), then the
captures: only landlocked pieces are taken, each laid beside its own square, turned. A rule is
named only when it is certainly what is wrong with the move it names; a board with two pieces
put on the track, or a piece moved along the side strip, gets none.
The rules, with the seed's words, are listed in ``docs/rules/anacund.md`` ("Rules a board can break").
"""

from __future__ import annotations

from ..phrase import Joined, P, Phrase
from ..view import OCCUPIED
from ..why import Attempt, Reason, Rule
from .anacund import PLAYERS, AnacundState, Place
from .anacund_track import FREE, OTHER

_CONTROL = "Control of squares and capture of the pieces"


def _rule(id_: str, section: str, quote: str) -> Rule:
    return Rule("anacund", id_, section, quote)


# In the order they are checked.
RULES: dict[str, Rule] = {r.id: r for r in (
    _rule("game-over", "End of the game", "The game is over when B has put the last series of 3."),
    _rule("in-turn", "How to play", "Each player, starting with A, puts 3 pieces in turn (and necessarily 3 ) "
          "on 3 squares of the board."),
    _rule("dead-square", _CONTROL, "from that moment on , nobody can play on those empty squares."),
    _rule("group-number", "How to play", "If a piece comes from a group of 6, it must be put on a number 6 square "
          "; from a group of 5, on a number 5 square, and so on."),
    _rule("not-landlocked", _CONTROL, "You lose this control when your piece, or a series of your pieces, is "
          "just landlocked by 2 pieces of your opponent."),
    _rule("beside", _CONTROL, "position them along the external side of the board, just beside the square(s) "
          "they occupied before"),
    _rule("turned", _CONTROL, "your pieces are captured by your opponent, who turns them on the side of his "
          "colour"),
)}


def _square(space: str) -> int | None:
    """The square number of a track space ``tN`` or a side-strip space ``sN``."""
    return int(space[1:]) if space[1:].isdigit() else None


def placement_fault(state: AnacundState, square: int, colour: str) -> str | None:
    """The first rule that putting a ``colour`` piece on ``square`` breaks, by its own check
    (``None``: the placement is legal, or no rule of the list says why)."""
    cell = state.cells[square - 1]
    if state.phase == "over":
        return "game-over"
    if state.landlocked:
        return None  # the landlocked run's capture is due: a placement now is no rule of the list
    if colour != state.to_move:
        return "in-turn"
    if cell.islower():
        return "dead-square"
    if cell != FREE:
        return None  # a second piece on a square: the text has no words for it
    if not any(isinstance(m, Place) and m.square == square for m in state.legal_moves()):
        return "group-number"
    return None


def capture_fault(state: AnacundState, attempt: Attempt, square: int | None,
                  at_once: bool = False) -> tuple[str, int, int | None] | None:
    """After a legal placement on ``square`` (or none), the first capture done wrong: a piece
    taken that is not landlocked, one laid beside another square, one not turned. Returns the
    rule, the square it concerns, and for ``beside`` the strip square it was laid by.
    ``at_once``: the placed piece was landlocked and is already laid beside (never seen on
    the track)."""
    if square is not None:
        caught, own = state.captures(square)
        captor = OTHER[state.to_move] if own else state.to_move
    elif state.landlocked:
        caught, captor = state.landlocked, state.to_move
    else:
        caught, captor = (), state.to_move
    taken = sorted(_square(s) for s, _ in attempt.lifted if s.startswith("t")) + ([square] if at_once else [])
    for k in taken:
        if k - 1 not in caught:
            return "not-landlocked", k, None
    laid = sorted((_square(s), t) for s, t in attempt.placed if s.startswith("s"))
    for k, token in laid:
        if k not in taken:
            # Laid by a square whose piece was not taken: beside the wrong square, if exactly one
            # taken piece has no strip piece of its own.
            astray = [j for j in taken if j not in {n for n, _ in laid}]
            return ("beside", astray[0], k) if len(astray) == 1 and len(laid) == len(taken) else None
    for k, token in laid:
        if token not in (captor, OCCUPIED):  # at occupancy a piece's side is not seen
            return "turned", k, None
    return None


def _groups(state: AnacundState) -> Joined:
    return Joined(tuple(g for g in state.groups[PLAYERS.index(state.to_move)] if g))


def _said(state: AnacundState, rule: str, square: int, colour: str, extra: int | None = None) -> Phrase:
    t = f"t{square}"
    if rule == "game-over":
        return P("the game is over: no piece is placed after B's last series of 3")
    if rule == "in-turn":
        return P("{player} is to place a piece, not {other}", player=state.to_move, other=colour)
    if rule == "dead-square":
        return P("{square} is dead: its pieces were captured, and nobody may play there", square=t)
    if rule == "group-number":
        return P("{square} is a {n}, and {player}'s groups hold {groups} pieces", square=t,
                 n=state.track.number(square), player=state.to_move, groups=_groups(state))
    if rule == "not-landlocked":
        return P("{owner}'s piece on {square} is not landlocked by 2 pieces of {other}: it is not captured",
                 owner=colour, square=t, other=OTHER[colour])
    if rule == "beside":
        return P("the piece captured on {square} goes beside it, on s{n}, not on s{wrong}", square=t, n=square,
                 wrong=extra)
    return P("the piece captured on {square} is turned to its captor's colour, {player}", square=t, player=colour)


def why_illegal(state: AnacundState, attempt: Attempt) -> Reason | None:
    if any(s.startswith("s") for s, _ in attempt.lifted):
        return None  # a captured piece moved: nothing a rule of the list says
    put = [(s, t) for s, t in attempt.placed if s.startswith("t")]
    if len(put) > 1:
        return None  # several pieces put on the track: not one move
    square, at_once = None, False
    if not put and not state.landlocked:
        # A piece laid beside a free square was put there and captured at once (landlocked,
        # R5): the placement is that square's, if it is one.
        free = {_square(s) for s, _ in attempt.placed if s.startswith("s") and state.cells[_square(s) - 1] == FREE}
        if len(free) == 1 and any(isinstance(m, Place) and m.square == min(free) for m in state.legal_moves()):
            square, at_once = min(free), state.captures(min(free))[1]
            if not at_once:
                return None
    if put:
        (space, colour), = put
        if colour == OCCUPIED:
            colour = state.to_move  # its side is not seen: the player to move's (ruling R9)
        square = _square(space)
        rule = placement_fault(state, square, colour)
        if rule is not None:
            return Reason(RULES[rule], _said(state, rule, square, colour))
        if not any(isinstance(m, Place) and m.square == square for m in state.legal_moves()):
            return None
    found = capture_fault(state, attempt, square, at_once)
    if found is None:
        return None
    rule, k, extra = found
    if rule == "not-landlocked":
        colour = state.cells[k - 1]  # whose piece it is, by the position (seen or not)
    elif rule == "turned":
        caught_by = OTHER[state.to_move] if square is not None and state.captures(square)[1] else state.to_move
        colour = caught_by
    else:
        colour = ""
    return Reason(RULES[rule], _said(state, rule, k, colour, extra))
