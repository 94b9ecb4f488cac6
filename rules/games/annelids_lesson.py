"""Annelids' first lesson (seed: annelids.txt): the set-up, Blue's first turn of four segments
extending from the tails' flat ends, the quota of a turn (one segment per surviving annelid),
a reconnection, and a removal; how the game is won. The learner plays Blue; the lesson plays
Green."""

from __future__ import annotations

from ..phrase import P
from ..lessons import BY_LESSON, Lesson, Step


def _annelid(state, tail: str) -> dict | None:
    return next((a for a in state.to_dict()["annelids"] if a["tail"] == tail), None)


def _grown(before, moves, after) -> bool:
    return len(_annelid(after, "d4e")["segments"]) == len(_annelid(before, "d4e")["segments"]) + len(moves)


def _quota(before, moves, after) -> bool:
    """Blue's second turn: as many placements as Blue has annelids (8)."""
    return before.to_dict()["quota"] == 8 and after.to_move == "blue"


def _reconnected(before, moves, after) -> bool:
    """The two annelids swapped ends: their lengths came nearer each other."""
    length = lambda s, t: len(_annelid(s, t)["segments"])  # noqa: E731
    return (abs(length(after, "a4e") - length(after, "d4e")) < abs(length(before, "a4e") - length(before, "d4e"))
            and after.to_move == "blue")


def _removed(before, moves, after) -> bool:
    return _annelid(before, "d4e") is not None and _annelid(after, "d4e") is None and after.to_move == "green"


LESSON = Lesson(
    game="annelids",
    you="blue",
    title=P("Annelids: a first lesson"),
    setup="default",
    steps=(
        Step(P("Set up: each player has 8 annelid tails on the board, as the start shows; a tail is directional, "
               "and segments extend from its flat end along the cells' edges."),
             P("The board is set up. Blue plays first: you are Blue, the lesson plays Green.")),
        Step(P("Blue's first turn places four segments. Extend the annelid whose tail is on d4e by one segment, "
               "onto d4ne."),
             P("A segment extends an annelid like a chain, from its farthest segment only."),
             ("d4e-d4ne",), reaches=_grown, shows="a segment placed"),
        Step(P("Place your first turn's other three segments on the same annelid, as shown: d4n, d5sw, c5se."),
             P("Four segments placed: your first turn is over. Any annelid may get as many or as few as you like."),
             ("d4e-d4n", "d4e-d5sw", "d4e-c5se"), reaches=_grown, shows="the first turn's segments"),
        Step(P("Green plays: carry out Green's eight placements on the board, as shown."),
             P("Green has placed 8 segments, as many as it has annelids: your turn."),
             ("e9e-e9se", "b9e-c9sw", "e9e-e8n", "e9e-e9sw", "b9e-c8nw", "b9e-b8e", "e9e-d9se", "e9e-d8n"),
             BY_LESSON),
        Step(P("From now on a turn places as many segments as you have annelids: 8. Place six of them, as "
               "shown, bringing your annelids from a4e and d4e side by side."),
             P("Six placed: two left this turn."),
             ("d4e-c4n", "a4e-b4nw", "d4e-c5sw", "a4e-b4n", "a4e-b4ne", "d4e-b5e"), reaches=_quota,
             shows="a turn's quota"),
        Step(P("Reconnection: your two annelids pass each other through the small square between b4 and c5 in "
               "opposite directions. Move its two segments onto the square's other two sides."),
             P("Reconnected: the two annelids swapped their heads, which brings their lengths nearer each other. "
               "A reconnection may be made at any point of a turn and places no segment."),
             ("~b4c5",), reaches=_reconnected, shows="a reconnection"),
        Step(P("Extend the annelid from d4e onto b4ne."),
             P("One placement left this turn."),
             ("d4e-b4ne",)),
        Step(P("Removal: extend the annelid from d4e once more, into the annelid beside it. It is removed from the "
               "board, tail and segments."),
             P("An annelid extended into any annelid is removed; that counts as a placement. Your turn is over: you "
               "now have 7 annelids."),
             ("d4e-x",), reaches=_removed, shows="a removal"),
    ),
    end=P("Annelids is won by leaving your opponent with no legal moves: a player who removes their last annelid "
          "loses. There are no draws. Your first lesson is over."),
)
