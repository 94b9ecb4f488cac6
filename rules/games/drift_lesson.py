"""DRIFT's first lesson (seed: drift.txt): the set-up, moving by rank, river entry, the drift
phase, and leaving a river with a full move. Two players and one piece of each rank keep it
short; the learner plays Red (the circle, who goes first), the lesson plays Blue. A turn's end
the board cannot show (``end``) is declared by the lesson after the learner's last move."""

from __future__ import annotations

from ..phrase import P
from ..lessons import BY_LESSON, Lesson, Step


def _pieces(state) -> dict:
    return state.to_dict()["pieces"]


def _rank_three(before, moves, after) -> bool:
    return _pieces(after)["red-III-1"] == "O3" and _pieces(before)["red-III-1"] == "O0"


def _river_entry(before, moves, after) -> bool:
    """Into a river from the home riverbank, its move ended there, and Red's turn over."""
    return _pieces(after)["red-II-1"].startswith("OR") and after.to_move == "blue"


def _drifted(before, moves, after) -> bool:
    """Every river turned, Red's II carried along on its arrow."""
    turned = before.to_dict()["rotations"], after.to_dict()["rotations"]
    return before.phase == "drift" and after.phase == "play" and all(turned[0][r] != turned[1][r] for r in turned[0])


def _river_exit(before, moves, after) -> bool:
    return _pieces(before)["red-II-1"].startswith("OR") and _pieces(after)["red-II-1"].startswith("O") \
        and not _pieces(after)["red-II-1"].startswith("OR")


LESSON = Lesson(
    game="drift",
    you="red",
    title=P("DRIFT: a first lesson"),
    setup="default",
    options={"players": "red:circle,blue:square", "ranks": "1,1,1"},
    steps=(
        Step(P("Set up: copper coins on the outer land ring, gold on the middle one, silver on the inner one; "
               "each player's pieces and repository on their home riverbank. Here two players with one piece of "
               "each rank: III moves 3, II moves 2, I moves 1."),
             P("The board is set up. The circle goes first: you are Red, the lesson plays Blue.")),
        Step(P("Move your pieces by rank, III first: move your III from your home, O0, three spaces along the "
               "outer land ring, to O3."),
             P("Your III has moved. A piece need not use all its points, and no two pieces may end on one "
               "space."),
             ("red-III-1 O0-O3",), reaches=_rank_three, shows="a rank III move"),
        Step(P("River entry: move your II from your home into the outer river, onto the arrow OR0. Your I may stay "
               "at home, so your turn then ends."),
             P("A piece that enters a river ends its move there, whatever points it has left. It will drift with "
               "the river."),
             ("red-II-1 O0-OR0", "end"), reaches=_river_entry, shows="river entry"),
        Step(P("Blue plays: carry out Blue's moves on the board, as shown."),
             P("Blue has moved: the round is over."),
             ("blue-III-1 O8-O5", "blue-II-1 O8-O10", "end"), BY_LESSON),
        Step(P("The drift phase: turn each of the three rivers one arrow in its own direction: the outer and inner "
               "ones clockwise, the middle one counter-clockwise. Your II rides along on its arrow."),
             P("Everything in a river drifted one arrow. A drift phase follows every round, before the next one "
               "begins."),
             ("drift",), reaches=_drifted, shows="the drift phase"),
        Step(P("Leave the river: your II may use its whole move when it exits. Move it from its arrow to O2."),
             P("Out of the river onto the land: it may move on, enter a river again, or attack next turn."),
             ("red-II-1 OR0-O2", "end"), reaches=_river_exit, shows="a river exit"),
    ),
    end=P("To win DRIFT, be the first to bring one coin of each type (copper, gold, silver) home to your "
          "repository: only a I may pick up, carry and drop a coin, each as its one-point move. Your first lesson "
          "is over."),
)
