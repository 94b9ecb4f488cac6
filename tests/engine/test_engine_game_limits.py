"""A game may keep its own whole-turn limit per level (``Knowledge.limits``, docs/opponent.md
"The levels"): the engine, the service and the bench all search with it; a level the game
does not name keeps the level's own."""

from __future__ import annotations

import random

import pytest

from engine import LEVELS, Engine, Limit, knowledge_for
from rules import get_game

from test_engine_slip import midgame  # pytest puts this folder on the path


@pytest.fixture
def gyges_limits(monkeypatch):
    know = knowledge_for("gyges")
    monkeypatch.setattr(know, "limits", {2: Limit(nodes=17, time=0.05)})
    return know


def test_a_games_own_limit_is_the_levels_limit_there(gyges_limits):
    state = midgame(3)
    assert Engine(2).limit_for(state) == Limit(nodes=17, time=0.05)
    assert Engine(3).limit_for(state) == LEVELS[2].limit  # not named: the level's own
    other = get_game("anacund").default_setup()
    assert Engine(2).limit_for(other) == knowledge_for("anacund").limit(2, LEVELS[1].limit)


def test_play_without_a_limit_searches_the_games_own_node_budget(gyges_limits):
    state = midgame(5)
    result = Engine(2).play(state, rng=random.Random(1))  # no clock: the node budget alone
    assert result.nodes <= 17


def test_the_service_and_the_bench_search_with_the_games_own_limit(gyges_limits):
    from bench.opponent import Seat
    from tableref.opponent import _play

    state = midgame(7)
    seat = Seat("2", 0.0)  # speed 0: node budgets only
    assert seat.play(state, random.Random(2)).nodes <= 17
    result = _play(state, 2, 1.0, 4, clock=lambda: 0.0, stop=lambda: False)
    assert result.nodes <= 17


@pytest.mark.parametrize("game", ["anacund", "annelids"])
def test_a_turn_of_several_moves_spends_its_whole_budget(game):
    """Each later move of a turn is searched again with a share of what is left, the last
    with all of it: a turn that stopped searching once its chosen child had a few dozen
    visits spent about half its budget (Anacund's levels 3-5 then stood ~1.7× apart)."""
    state = get_game(game).default_setup()
    for nodes in (400, 1500):
        result = Engine(5).play(state, Limit(nodes=nodes), rng=random.Random(2))
        assert len(result.moves) > 1
        assert result.nodes >= 0.97 * nodes
