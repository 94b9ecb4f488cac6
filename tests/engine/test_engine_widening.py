"""A game may keep its own rate of progressive widening (``Knowledge.widen_k``): a node with n
visits has at most widen_base + widen_k·√n children; a game that names none keeps the level's."""

from __future__ import annotations

import math
import random

from engine.evaluator import PlayoutEvaluator
from engine.knowledge import knowledge_for
from engine.knowledge.drift import Drift
from engine.mcts import Budget, Search, SearchSettings
from rules import get_game


def drift_two_handed():
    game = get_game("drift")
    return game.default_setup(game.parse_options({"players": "red:circle,blue:square"}))


class Narrow(Drift):
    widen_base = 2
    widen_k = 0.5


class LevelsOwn(Drift):
    widen_k = None


def root_children(knowledge, sims: int = 200) -> int:
    state = drift_two_handed()
    search = Search(PlayoutEvaluator(0, knowledge), SearchSettings(), tuple(state.players), random.Random(3))
    search.widen_for(knowledge)
    root = search.new_root(state)
    search.run(root, Budget(sims, None, None, None))
    return len(root.children)


def test_a_games_own_widening_rate_bounds_the_children():
    assert root_children(Narrow()) <= 2 + int(0.5 * math.sqrt(200))


def test_a_game_naming_no_rate_keeps_the_levels():
    wide = root_children(LevelsOwn())
    assert wide > 4 + int(1.0 * math.sqrt(200))  # more than a rate of 1 would allow: the level's 2
    assert wide <= 4 + int(SearchSettings().widen_k * math.sqrt(200))


def test_drift_widens_at_its_own_rate():
    know = knowledge_for("drift")
    assert root_children(know) <= know.widen_base + int(know.widen_k * math.sqrt(200))
