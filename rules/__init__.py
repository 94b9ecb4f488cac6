"""Pure game logic: boards as data, frozen states, moves, ``explain``. No I/O, no threads.

The public surface (python-chess style)::

    from rules import get_game, Fidelity, explain
    game = get_game("gyges")
    state = game.default_setup()
    move = state.parse_move("a1-a3")
    state = state.apply(move)
"""

from .board import Area, Board, Connector, Space, load_board
from .errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidStateError,
    MoveSyntaxError,
    RulesError,
    UnknownGameError,
)
from .explain import Candidate, Explanation, SpaceFix, Verdict, explain
from .game import Game, Move, OptionSpec, Outcome, State
from .phrase import Joined, P, Phrase
from .registry import game_named, game_names, get_game, register
from .view import HIDDEN, MORE, OCCUPIED, Fidelity, Observation, View, in_part, named_in_part
from .why import Attempt, Reason, Rule, WhyNot, attempt_of, why_not

__all__ = [
    "Area", "Board", "Connector", "Space", "load_board",
    "AmbiguousMoveError", "IllegalMoveError", "InvalidBoardError", "InvalidStateError",
    "MoveSyntaxError", "RulesError", "UnknownGameError",
    "Candidate", "Explanation", "SpaceFix", "Verdict", "explain",
    "Game", "Move", "OptionSpec", "Outcome", "State",
    "Joined", "P", "Phrase",
    "game_named", "game_names", "get_game", "register",
    "HIDDEN", "MORE", "OCCUPIED", "Fidelity", "Observation", "View", "in_part", "named_in_part",
    "Attempt", "Reason", "Rule", "WhyNot", "attempt_of", "why_not",
]
