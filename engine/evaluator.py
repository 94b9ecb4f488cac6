"""Evaluators: what a new leaf of the search is worth, apart from the search (OpenSpiel's split).

An evaluator answers ``evaluate(state, rng)``: each player's expected result in [0, 1], as a
tuple in the order of ``players``. The default runs a playout, truncated where the game's
knowledge says random play says little, and judges the cut-off position by that knowledge.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence

from rules.game import State

from .knowledge import Knowledge, knowledge_for, outcome_values


class Evaluator(ABC):
    """The interface: values per player, and the order in which a node's moves are tried."""

    def knowledge(self, state: State) -> Knowledge:
        return knowledge_for(state.game_name)

    @abstractmethod
    def evaluate(self, state: State, players: Sequence[str], rng: random.Random) -> tuple[float, ...]:
        """Each player's expected result in [0, 1] from ``state``, in ``players``' order."""


class PlayoutEvaluator(Evaluator):
    """A (truncated) playout, then the game's knowledge at the cut-off.

    ``depth`` overrides the knowledge's ``playout_depth`` (0: judge the leaf itself)."""

    def __init__(self, depth: int | None = -1, knowledge: Knowledge | None = None) -> None:
        self.depth = depth  # -1: the game's own choice
        self._knowledge = knowledge

    def knowledge(self, state: State) -> Knowledge:
        return self._knowledge or knowledge_for(state.game_name)

    def evaluate(self, state: State, players: Sequence[str], rng: random.Random) -> tuple[float, ...]:
        know = self.knowledge(state)
        depth = know.playout_depth if self.depth == -1 else self.depth
        plies = 0
        while True:
            done = outcome_values(state, players)
            if done is not None:
                return tuple(done[p] for p in players)
            if depth is not None and plies >= depth:
                break
            moves = know.moves(state)
            if not moves:
                break
            state = state.successor(know.playout_move(state, moves, rng))
            plies += 1
        value = know.value(state, players)
        return tuple(value[p] for p in players)
