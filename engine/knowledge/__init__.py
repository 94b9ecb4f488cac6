"""Per-game knowledge, registered by game name: what random playouts cannot see.

A game without an entry is played with :class:`Knowledge` itself: every legal move, uniform
random playouts, and at a cut-off the game's own scores (or a draw when it keeps none). A
sixth game therefore gets an opponent for free; its knowledge module can come later.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from rules import get_game
from rules.game import State

from ..api import Limit

DRAW = 0.5


class Knowledge:
    """The defaults; a game's module subclasses what it knows better."""

    game = ""
    # Plies a playout runs before the position is judged by :meth:`value` (None: to the end).
    playout_depth: int | None = 400  # a sixth game whose random games never end still returns
    # How many points of score difference make a game nearly decided (for the generic value).
    score_scale = 4.0
    # Progressive widening's first children, where the game's order is worth following (None:
    # the level's setting, usually every move at once).
    widen_base: int | None = None
    # ... and how fast it widens (children ≤ widen_base + widen_k·√visits; None: the level's).
    widen_k: float | None = None
    # The chance that a level slips (engine/levels.py), where the game's search alone does not
    # separate the levels; a game whose search does (cheap, exact playouts) keeps its own.
    slips: Mapping[int, float] | None = None
    # Whether a slip may be any move of a turn (the rest of the turn then searched again), not
    # only a move that ends it: where a turn's last move is rarely a real choice.
    slip_early = False
    # Whether a slip, once made, goes on for the rest of the turn (every later move of it slips
    # too): where one move off the first choice costs next to nothing, a whole turn does.
    slip_turn = False
    # A slip plays one of the search's 2nd to ``slip_among``-th choices (Stockfish's skill levels:
    # MultiPV 4); None: any move but the first choice, where the search's next choices are all but
    # as good as its first, so a slip among them costs nothing (docs/opponent.md, "The levels").
    slip_among: int | None = 4

    # A level's whole-turn limit in this game, where the level's own does not separate the
    # levels here (a level not named keeps its own; docs/opponent.md says why each game's).
    limits: Mapping[int, Limit] | None = None

    def slip(self, level: int, default: float) -> float:
        return default if self.slips is None else self.slips.get(level, 0.0)

    def limit(self, level: int, default: Limit) -> Limit:
        return default if self.limits is None else self.limits.get(level, default)

    def players(self, state: State) -> tuple[str, ...]:
        return tuple(get_game(state.game_name).players)

    def moves(self, state: State) -> Sequence:
        """The moves the engine (and the bench's baselines) choose from: the legal moves, less
        those no player would choose for itself (a game may override)."""
        return state.legal_moves()

    def order(self, state: State, moves: Sequence, rng: random.Random) -> list:
        """The order in which the search first tries the moves: best guesses first."""
        out = list(moves)
        rng.shuffle(out)
        return out

    def fallback(self, state: State, moves: Sequence, rng: random.Random):
        """A move of a turn under way when the budget is spent before it was searched: cheap."""
        return moves[rng.randrange(len(moves))]

    def playout_move(self, state: State, moves: Sequence, rng: random.Random):
        return moves[rng.randrange(len(moves))]

    def value(self, state: State, players: Sequence[str]) -> dict[str, float]:
        """Each player's expected result in [0, 1] for an unfinished position at the cut-off."""
        scores = state.scores()
        if not scores:
            return {p: DRAW for p in players}
        out = {}
        for p in players:
            mine = scores.get(p, 0)
            best_other = max((v for q, v in scores.items() if q != p), default=0)
            out[p] = 0.5 + 0.5 * math.tanh((mine - best_other) / self.score_scale)
        return out


def outcome_values(state: State, players: Sequence[str]) -> dict[str, float] | None:
    """A finished game's result per player (win 1, loss 0, draw 0.5); ``None`` while it goes on."""
    out = state.outcome()
    if out is None:
        return None
    if out.winner is None:
        return {p: DRAW for p in players}
    return {p: 1.0 if p == out.winner else 0.0 for p in players}


def score_lead(scores: Mapping[str, int], player: str) -> int:
    return scores.get(player, 0) - max((v for q, v in scores.items() if q != player), default=0)


_REGISTRY: dict[str, Knowledge] = {}
_DEFAULT = Knowledge()


def register(knowledge: Knowledge) -> Knowledge:
    _REGISTRY[knowledge.game] = knowledge
    return knowledge


def knowledge_for(game_name: str) -> Knowledge:
    _load_builtin()
    return _REGISTRY.get(game_name, _DEFAULT)


def _load_builtin() -> None:
    # Imported lazily, as rules.registry does its games: no import cycle with the modules.
    from . import anacund, annelids, annihilation, drift, gyges  # noqa: F401
