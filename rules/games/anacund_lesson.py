"""Anacund's first lesson (seed: anacund.txt): the set-up, placing by group size, a capture, a
piece placed landlocked (captured at once), a conqueror, and how the game is scored. The
learner plays A; the lesson plays B, on the default track."""

from __future__ import annotations

from ..phrase import P
from ..lessons import BY_LESSON, Lesson, Step


def _group(n: int):
    """A piece from a group of ``n`` on a square numbered ``n``."""
    def check(before, moves, after) -> bool:
        m = before.parse_move(moves[-1])
        return m.group == n == before.track.number(m.square)
    return check


def _captures(before, moves, after) -> bool:
    """The placement captures B's run, and the placed piece is not itself between two of B's."""
    m = before.parse_move(moves[-1])
    caught, own = before.captures(m.square)
    return bool(caught) and not own and not _between(before, m.square)


def _conqueror(before, moves, after) -> bool:
    """Placed between two of B's pieces, it captures instead of being captured."""
    m = before.parse_move(moves[-1])
    caught, own = before.captures(m.square)
    return bool(caught) and not own and _between(before, m.square)


def _between(state, square: int) -> bool:
    n = len(state.cells)
    return state.cells[(square - 2) % n] == state.cells[square % n] == "B"


def _landlocked(before, moves, after) -> bool:
    """B's placement was landlocked: A captures it next, as a move of its own."""
    return bool(after.landlocked) and after.to_move == "A"


def _taken(before, moves, after) -> bool:
    return bool(before.landlocked) and not after.landlocked and after.cells[24] == "a"


B_DO = P("B plays: carry out B's placements on the board, as shown.")
B_THEN = P("B has placed its three pieces: your turn.")

LESSON = Lesson(
    game="anacund",
    you="A",
    title=P("Anacund: a first lesson"),
    setup="default",
    steps=(
        Step(P("Set up: the slats make a closed track of 36 numbered squares, one of them the bonus square. Each "
               "player has 18 pieces in 3 groups of 6 beside the board: A dark side up, B light side up."),
             P("The track is set up. A plays first: you are A, the lesson plays B. Each turn is three pieces.")),
        Step(P("Place a piece from a group of 6 on a square numbered 6: t22."),
             P("A piece from a group of 6 goes on a 6. That group now has 5."),
             ("t22",), reaches=_group(6), shows="a piece from a group of 6"),
        Step(P("Now a piece from that group of 5, on a square numbered 5: t26."),
             P("A piece from a group of 5 goes on a 5: the square depends on the size of the group you take "
               "it from."),
             ("t26",), reaches=_group(5), shows="a piece from a group of 5"),
        Step(P("Your third piece: from a group of 6, on t32."),
             P("Three pieces placed: your turn is over. You control the squares you put a piece on."),
             ("t32",), reaches=_group(6), shows="a piece from a group of 6"),
        Step(B_DO, B_THEN, ("t10", "t16", "t23"), BY_LESSON),
        Step(P("Place a piece from your group of 4 on t9, a 4."),
             P("Placed. Next, watch B's piece on t23: it sits beside your piece on t22."),
             ("t9",), reaches=_group(4), shows="a piece from a group of 4"),
        Step(P("Place a piece from a group of 6 on t15."),
             P("Placed: B's piece on t16 now has your piece on one side."),
             ("t15",), reaches=_group(6), shows="a piece from a group of 6"),
        Step(P("Capture: place a piece from a group of 5 on t24. B's piece on t23 is then landlocked between "
               "your pieces on t22 and t24: turn it to your side and lay it beside its square (s23)."),
             P("Captured: a piece or a run of pieces landlocked by two of the opponent's is theirs, laid beside "
               "the board. Nobody may play on t23 again."),
             ("t24x23",), reaches=_captures, shows="a capture"),
        Step(B_DO, P("B put a piece on t25, between your pieces on t24 and t26: it is landlocked."),
             ("t11", "t25"), BY_LESSON, reaches=_landlocked, shows="B's piece placed landlocked"),
        Step(P("A piece played where it is landlocked is captured at once: turn B's piece on t25 to your side "
               "and lay it beside its square (s25)."),
             P("Captured at once, as the rule says."),
             ("x25",), reaches=_taken, shows="the landlocked piece captured"),
        Step(P("B plays: carry out B's last placement of the turn, as shown."), B_THEN, ("t18",), BY_LESSON),
        Step(P("The conqueror: place a piece from a group of 3 on t17, between B's pieces on t16 and t18. It "
               "would be landlocked, but it captures B's piece on t16 (between your t15 and t17), so it stays: "
               "turn t16 to your side and lay it beside s16."),
             P("A piece that captures as it is played is a conqueror: the opponent's pieces are captured, not "
               "yours."),
             ("t17x16",), reaches=_conqueror, shows="a conqueror"),
    ),
    end=P("The game ends when B has placed its last three pieces. Each player scores 1 point for each piece of "
          "their colour on or beside the squares; the bonus square counts 1 + 5. Most points wins. Your first "
          "lesson is over."),
)
