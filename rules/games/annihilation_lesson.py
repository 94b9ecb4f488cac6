"""Annihilation's first lesson (seed: annihilation.txt): the set-up, a carrier introduced on the
point of emergence (rule 1), emission transference as another is introduced (rules 1 and 4), an
annihilator placed (rule 2), a self-emission (rule 3), and annihilation at the opponent's point
of emergence with its score (rules 5 and 7). The learner plays White; the lesson plays Black."""

from __future__ import annotations

import re

from ..phrase import P
from ..lessons import BY_LESSON, Lesson, Step


def _board(state) -> dict:
    return state.to_dict()["board"]


def _introduced(before, moves, after) -> bool:
    return "W" not in _board(before) and _board(after).get("W", "").startswith("W")


def _transference(before, moves, after) -> bool:
    """The carrier on the point of emergence was knocked on as far as the new one's charge."""
    m = re.fullmatch(r"([1-8])@W>([a-g]\d)", moves[-1])
    return m is not None and _board(after).get(m.group(2)) == _board(before)["W"]


def _annihilator(before, moves, after) -> bool:
    space = moves[-1].partition("@")[2]
    return moves[-1].startswith("0@") and _board(after).get(space) == "W0"


def _self_emission(before, moves, after) -> bool:
    start, _, end = moves[-1].partition("-")
    return _board(before).get(start) == _board(after).get(end) and start not in _board(after)


def _at_emergence(before, moves, after) -> bool:
    """Knocked onto Black's point of emergence: annihilated there, with Black's particle, and
    White scores their charges."""
    return (after.scores()["white"] > before.scores()["white"] and "B" in _board(before)
            and "B" not in _board(after))


BLACK_DO = P("Black plays: carry out Black's move on the board, as shown.")
BLACK_THEN = P("Black has moved: your turn.")

LESSON = Lesson(
    game="annihilation",
    you="white",
    title=P("Annihilation: a first lesson"),
    setup="start",
    steps=(
        Step(P("Set up: each player has 1 annihilator (charge 0) and 6 charge carriers (1, 1, 2, 3, 5, 8), "
               "their own shade up, in their ex nihilo zone. The central zone is empty."),
             P("The board is set up. You are White and play first; the lesson plays Black. Reach 20 points to "
               "win.")),
        Step(P("Introduce a charge carrier: put a 1 from your ex nihilo zone on your point of emergence, W. That "
               "is your whole turn."),
             P("A carrier enters play on its point of emergence; it moves on only when another is placed "
               "there."),
             ("1@W",), reaches=_introduced, shows="a carrier introduced"),
        Step(BLACK_DO, BLACK_THEN, ("0@a2",), BY_LESSON),
        Step(P("Emission transference: introduce your other 1 on W. Its charge knocks the 1 already there one "
               "point forward along the line of force, to a1."),
             P("The particle hit moves exactly the force transferred to it (not its own charge), along one line "
               "of force."),
             ("1@W>a1",), reaches=_transference, shows="emission transference"),
        Step(BLACK_DO, BLACK_THEN, ("1@B",), BY_LESSON),
        Step(P("Place your annihilator on an empty point of the central zone: a3."),
             P("An annihilator never moves: any particle that collides with it is annihilated along with it."),
             ("0@a3",), reaches=_annihilator, shows="an annihilator placed"),
        Step(BLACK_DO, BLACK_THEN, ("1@B>g7",), BY_LESSON),
        Step(P("Self-emission: your 1 on a1 is in the central zone, so it may move by its own charge. Move it "
               "one point, to b1."),
             P("A self-emitting carrier travels exactly its charge, along any lines of force it chooses; if it "
               "collides on the way, the force left passes to the particle it hits."),
             ("a1-b1",), reaches=_self_emission, shows="a self-emission"),
        Step(BLACK_DO, BLACK_THEN, ("g7-f7",), BY_LESSON),
        Step(P("Annihilation at the point of emergence: introduce your 8 on W. It knocks your 1 there eight "
               "points along the long line of force, all the way to Black's point of emergence, B, where it "
               "meets Black's 1 with no force left. Take both off the board: each is flipped over and goes to the ex "
               "nihilo zone of the shade now face up."),
             P("A particle that ends on the opponent's point of emergence is annihilated, and so is the "
               "opponent's particle it meets there with zero force: you score their charges, 1 + 1."),
             ("8@W>Bx",), reaches=_at_emergence, shows="annihilation at the point of emergence"),
    ),
    end=P("Points are scored by annihilating particles at your opponent's point of emergence: their charges. "
          "The first to 20 points wins. Your first lesson is over."),
)
