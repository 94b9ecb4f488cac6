"""The engine plays every registered game through the game contract: whole legal turns to the
end of a game, deterministic for a seed, stop() and the time limit honoured, errors named.

No timing thresholds here: speed and strength are the bench's (bench/opponent.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import (
    LEVELS, Analysis, Engine, EngineError, GameOverError, GreedyPlayer, Limit, PlayResult, RandomPlayer,
    UnknownLevelError, get_level, knowledge_for,
)
from rules import game_names, get_game

ROOT = Path(__file__).resolve().parents[2]
TWO_HANDED = {"players": "red:circle,blue:square"}
# (game, options) for every registered game; DRIFT two-handed and three-handed (its default).
SETUPS = [(n, TWO_HANDED if n == "drift" else None) for n in game_names()] + [("drift", None)]
MAX_TURNS = 600  # far above any level-1 game seen (DRIFT three-handed: ~180 turns)


def start(name, options=None):
    game = get_game(name)
    return game.default_setup(game.parse_options(options) if options else None)


def play_turn(state, result: PlayResult):
    """Apply a whole turn, checking each move is legal and the turn is one player's, whole."""
    mover = state.to_move
    assert result.moves and len(result.moves) == len(result.texts)
    for k, (move, text) in enumerate(zip(result.moves, result.texts)):
        assert not state.is_game_over()
        assert state.to_move == mover, "a turn holds one player's moves only"
        assert state.is_legal(move), f"{state.game_name}: {text} is not legal"
        assert state.move_text(move) == text
        state = state.successor(move)
        if k < len(result.moves) - 1:
            assert not state.is_game_over() and state.to_move == mover, "the turn ended before its last move"
    assert state.is_game_over() or state.to_move != mover, "the turn is not whole"
    return state


@pytest.mark.parametrize("name,options", SETUPS, ids=[f"{n}{'-2p' if o else ''}" for n, o in SETUPS])
def test_level_1_plays_every_game_to_the_end(name, options):
    # Level 1's search on a small node budget: whole games stay quick to test.
    state, rng, engine, limit = start(name, options), random.Random(7), Engine(1), Limit(nodes=8)
    turns = 0
    while not state.is_game_over():
        assert turns < MAX_TURNS, f"{name}: no end after {turns} turns"
        result = engine.play(state, limit, rng=rng)
        assert 0.0 <= result.evaluation <= 1.0 and result.level == 1 and not result.stopped
        assert result.nodes <= 8 and result.time == 0.0
        state = play_turn(state, result)
        turns += 1
    assert state.outcome() is not None


@pytest.mark.parametrize("player", [RandomPlayer(), GreedyPlayer()], ids=["random", "greedy"])
@pytest.mark.parametrize("name", game_names())
def test_baselines_play_whole_legal_turns(name, player):
    state, rng = start(name, TWO_HANDED if name == "drift" else None), random.Random(3)
    for _ in range(12):
        if state.is_game_over():
            break
        state = play_turn(state, player.play(state, rng=rng))


@pytest.mark.parametrize("name,options", SETUPS[:-1], ids=[n for n, _ in SETUPS[:-1]])
def test_play_is_deterministic_for_a_seed(name, options):
    state = start(name, options)
    for _ in range(3):  # a few turns in, where the positions differ from the start
        state = play_turn(state, RandomPlayer().play(state, rng=random.Random(11)))
        if state.is_game_over():
            pytest.skip("the random opening ended the game")
    a = Engine(2).play(state, Limit(nodes=60), rng=random.Random(5))
    b = Engine(2).play(state, Limit(nodes=60), rng=random.Random(5))
    assert a == b


class FakeClock:
    """Each reading advances by ``tick``: the search sees time pass without any sleeping."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick, self.readings = 100.0, tick, 0

    def __call__(self) -> float:
        self.readings += 1
        self.now += self.tick
        return self.now


@pytest.mark.parametrize("name", game_names())
def test_the_time_limit_is_honoured_on_the_clock_passed_in(name):
    state = start(name, TWO_HANDED if name == "drift" else None)
    clock = FakeClock(0.01)
    result = Engine(5).play(state, Limit(time=0.5), rng=random.Random(1), clock=clock)
    play_turn(state, result)
    # Polled between simulations: the search stops once 0.5 s have passed on that clock.
    # (A turn of several moves may finish early: each later move gets a share of what is left.)
    assert 0 < result.nodes < 60
    assert 0.0 < result.time <= 0.5 + 0.01 * 40


def test_a_time_limit_without_a_clock_is_refused():
    with pytest.raises(ValueError, match="clock"):
        Engine(1).play(start("gyges"), Limit(time=1.0), rng=random.Random(1))


@pytest.mark.parametrize("name", game_names())
def test_stop_is_honoured_and_the_turn_is_still_whole(name):
    state = start(name, TWO_HANDED if name == "drift" else None)
    polls = []

    def stop() -> bool:
        polls.append(1)
        return len(polls) > 5

    result = Engine(5).play(state, Limit(nodes=100_000), rng=random.Random(2), stop=stop)
    assert result.stopped and result.nodes <= 5
    play_turn(state, result)


def test_a_finished_game_is_refused():
    state = start("anacund")
    rng = random.Random(4)
    while not state.is_game_over():
        state = play_turn(state, RandomPlayer().play(state, rng=rng))
    for player in (Engine(1), RandomPlayer(), GreedyPlayer()):
        with pytest.raises(GameOverError):
            player.play(state, rng=rng)
    assert issubclass(GameOverError, EngineError)


def test_levels_and_an_unknown_level():
    assert len(LEVELS) >= 5 and [lv.number for lv in LEVELS] == list(range(1, len(LEVELS) + 1))
    nodes = [lv.limit.nodes for lv in LEVELS]
    assert nodes == sorted(nodes) and all(lv.limit.time for lv in LEVELS)
    assert get_level(3) is LEVELS[2] and get_level(LEVELS[0]) is LEVELS[0]
    with pytest.raises(UnknownLevelError, match="levels: 1"):
        get_level(9)
    with pytest.raises(UnknownLevelError):
        Engine(0)


@pytest.mark.parametrize("name", ["gyges", "annihilation", "anacund"])
def test_analyse_ranks_the_first_moves_best_first(name):
    state = start(name)
    analysis = Engine(3).analyse(state, Limit(nodes=120), rng=random.Random(9))
    assert isinstance(analysis, Analysis)
    assert analysis.ranked[0][0] == analysis.best.moves[0]
    assert analysis.best.moves[0] in {r[0] for r in analysis.ranked}
    visits = [r[2] for r in analysis.ranked]
    assert visits == sorted(visits, reverse=True)
    for move, text, _, value in analysis.ranked:
        assert state.is_legal(move) and state.move_text(move) == text and 0.0 <= value <= 1.0


def test_drift_engine_never_plays_another_players_move():
    state = start("drift", TWO_HANDED)
    know = knowledge_for("drift")
    rng = random.Random(1)
    for _ in range(20):
        result = Engine(1).play(state, Limit(nodes=20), rng=rng)
        assert not any(getattr(m, "after_end", False) for m in result.moves)
        state = play_turn(state, result)
    assert all(not m.after_end for m in know.moves(state))


def test_rng_must_be_passed_in():
    with pytest.raises(EngineError):
        Engine(1).play(start("gyges"), rng=None)  # type: ignore[arg-type]
