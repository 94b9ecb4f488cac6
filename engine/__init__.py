"""The computer opponent's engine: plays any registered game through the game contract.

Pure: no I/O, threads, wall clock or global randomness of its own — the caller passes the
``rng``, the ``clock`` and ``stop``. MCTS (UCT, values per player) with an evaluator apart from
the search, and per-game knowledge where random playouts are weak (``engine/knowledge/``).
See docs/opponent.md.
"""

from .api import Analysis, Limit, PlayResult
from .errors import EngineError, GameOverError, UnknownLevelError
from .evaluator import Evaluator, PlayoutEvaluator
from .knowledge import Knowledge, knowledge_for
from .levels import LEVELS, Level, get_level
from .mcts import SearchSettings
from .players import Engine, GreedyPlayer, RandomPlayer

__all__ = [
    "Analysis", "Engine", "EngineError", "Evaluator", "GameOverError", "GreedyPlayer", "Knowledge", "LEVELS",
    "Level", "Limit", "PlayResult", "PlayoutEvaluator", "RandomPlayer", "SearchSettings", "UnknownLevelError",
    "get_level", "knowledge_for",
]
