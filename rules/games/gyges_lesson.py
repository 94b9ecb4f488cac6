"""Gygès' first lesson (seed: gyges.txt): the set-up, a move of each height, the closest-line
rule, a bounce, a bump and reposition, and reaching the throne. The learner plays South; the
lesson plays North from the ready-to-play position (rings 1 2 3 3 2 1 on each starting line)."""

from __future__ import annotations

from ..phrase import P
from ..lessons import BY_LESSON, Lesson, Step


def _ring(before, moves) -> tuple:
    m = before.parse_move(moves[-1])
    return m, before._occ[m.start]


def _plain(height: int):
    """A ring of ``height`` moved onto an empty space, as many spaces as its height."""
    def check(before, moves, after) -> bool:
        m, h = _ring(before, moves)
        return h == height and m.bump_to is None and m.end not in before._occ and _apart(m.start, m.end) <= h
    return check


def _apart(a: str, b: str) -> int:
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1]) - int(b[1]))


def _bounce(before, moves, after) -> bool:
    """Ended farther than its height allows, on no bump: it bounced off a ring on its way.
    Played from the closest line while a farther ring waited (the closest-line rule)."""
    m, h = _ring(before, moves)
    return m.bump_to is None and _apart(m.start, m.end) > h and any(before._occ.get(s) for s in ("f2", "b3", "c4"))


def _bump(before, moves, after) -> bool:
    m, _ = _ring(before, moves)
    return m.bump_to is not None and after._occ.get(m.bump_to) == before._occ[m.end]


def _throne(before, moves, after) -> bool:
    return after.is_game_over() and after.outcome().winner == "south"


NORTH_DO = P("North plays: carry out North's move on the board, as shown.")
NORTH_THEN = P("North has moved: your turn.")

LESSON = Lesson(
    game="gyges",
    you="south",
    title=P("Gygès: a first lesson"),
    setup="default",
    game_over=True,
    steps=(
        Step(P("Set up: each player puts 2 single, 2 double and 2 triple rings on the six spaces of their "
               "starting line, in front of their throne. Here South has single, double, triple, triple, double, "
               "single on a1 to f1, and North the same on a6 to f6."),
             P("The board is set up. South plays first: you are South, the lesson plays North.")),
        Step(P("Move the single ring on f1 one space forward, to f2: a ring moves as many spaces as its height."),
             P("A single ring moves one space. It ended on an empty space, so your turn is over."),
             ("f1-f2",), reaches=_plain(1), shows="a single ring's move"),
        Step(NORTH_DO, NORTH_THEN, ("a6-a5",), BY_LESSON),
        Step(P("Move the double ring on b1 two spaces, b2 then b3: a double ring moves exactly two spaces "
               "along the connectors."),
             P("Two spaces for a double ring. A ring need not go straight, but it may not pass through an "
               "occupied space nor take a connector twice."),
             ("b1-b3",), reaches=_plain(2), shows="a double ring's move"),
        Step(NORTH_DO, NORTH_THEN, ("f6-f5",), BY_LESSON),
        Step(P("Move the triple ring on c1 three spaces forward, to c4."),
             P("Three spaces for a triple ring."),
             ("c1-c4",), reaches=_plain(3), shows="a triple ring's move"),
        Step(NORTH_DO, NORTH_THEN, ("b6-a6",), BY_LESSON),
        Step(P("You must move a ring of your closest line: row 1 still has rings, so f2, b3 and c4 must wait. "
               "Move the triple ring on d1 to c1, b1, then onto the single ring on a1, and jump off it one more "
               "space (its height), to a2."),
             P("It landed on a ring and bounced: a ring you land on lets you go on as many spaces as its "
               "height, and you may bounce again."),
             ("d1-a2",), reaches=_bounce, shows="a bounce from the closest line"),
        Step(NORTH_DO, NORTH_THEN, ("a6-a4",), BY_LESSON),
        Step(P("Move the single ring on a1 onto the triple ring on a2 and bump it: put the triple ring on an "
               "empty space, e3, and leave your single ring on a2."),
             P("A bump: instead of jumping off, you moved the ring you landed on to an empty space. It may not "
               "go behind the line of rings closest to your opponent."),
             ("a1-a2/e3",), reaches=_bump, shows="a bump and reposition"),
        Step(NORTH_DO, NORTH_THEN, ("c6-a6",), BY_LESSON),
        Step(P("Reach the throne: move the double ring on e1 two spaces onto the triple ring on e3, jump three "
               "onto the double ring on e6, then two: f6, and North's throne."),
             P("Your ring landed on North's throne: you captured it and won."),
             ("e1-N",), reaches=_throne, shows="the throne captured"),
    ),
    end=P("Gygès is won by landing a ring on your opponent's throne. Your first lesson is over."),
)
