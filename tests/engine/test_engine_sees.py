"""Tests that fail if the search breaks: in positions where few moves win at once, the engine
finds the win (random play would miss it), and it does not hand the opponent a win in one
where it can avoid it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import Engine, Limit, RandomPlayer, knowledge_for
from rules import get_game

ROOT = Path(__file__).resolve().parents[2]


def winning_turn_position(name: str, seed: int, share: int = 4):
    """A position reached by seeded random play where the mover can win this very move, but
    at most one in ``share`` of its moves do."""
    game = get_game(name)
    know = knowledge_for(name)
    rng = random.Random(seed)
    for _ in range(200):
        state = game.default_setup()
        while not state.is_game_over():
            moves = know.moves(state)
            wins = [m for m in moves if (lambda o: o is not None and o.winner == state.to_move)(
                state.successor(m).outcome())]
            if wins and len(wins) * share <= len(moves) and len(moves) >= 4:
                return state, len(wins), len(moves)
            state = state.successor(moves[rng.randrange(len(moves))])
    raise AssertionError(f"{name}: no such position in 200 random games")


@pytest.mark.parametrize("name,share", [("gyges", 4), ("annihilation", 4)])
def test_the_engine_takes_a_win_random_play_would_miss(name, share):
    state, wins, moves = winning_turn_position(name, seed=17, share=share)
    for seed in range(3):
        result = Engine(2).play(state, Limit(nodes=200), rng=random.Random(seed))
        after = state
        for m in result.moves:
            after = after.successor(m)
        assert after.outcome() is not None and after.outcome().winner == state.to_move, \
            f"{name}: {wins} of {moves} moves win, the engine played {result.texts}"
        assert result.evaluation > 0.8


def test_annelids_does_not_remove_its_own_last_annelid():
    """The game ends when a player's last annelid goes; where some moves do that to the mover
    and others do not, the engine keeps its annelid."""
    game, know, rng, tried = get_game("annelids"), knowledge_for("annelids"), random.Random(8), 0
    while tried < 3:
        state = game.default_setup()
        while not state.is_game_over():
            moves = know.moves(state)
            lose = [m for m in moves if state.successor(m).is_game_over()]
            if lose and len(lose) < len(moves):
                break
            state = state.successor(moves[rng.randrange(len(moves))])
        if state.is_game_over():
            continue
        tried += 1
        result = Engine(2).play(state, Limit(nodes=200), rng=random.Random(tried))
        after = state.successor(result.moves[0])
        assert not (after.is_game_over() and after.outcome().winner != state.to_move), result.texts


def test_drift_deposits_the_last_coin():
    data = json.loads((ROOT / "docs/rules/drift/coins-deposit.json").read_text())
    data["repositories"]["blue"] = ["copper", "gold"]  # Blue's I carries silver, standing at home
    data["coins"]["O18"] = ["copper", "silver"]
    state = get_game("drift").from_dict(data)
    moves = knowledge_for("drift").moves(state)
    assert len(moves) > 10
    result = Engine(1).play(state, rng=random.Random(1))
    after = state
    for m in result.moves:
        after = after.successor(m)
    assert after.outcome() is not None and after.outcome().winner == "blue", result.texts


def test_gyges_blocks_or_avoids_a_throne_threat_better_than_random():
    """From seeded random openings, positions where some of South's moves leave North a win in
    one and some do not (at least half of them do): level 2 rarely allows it; random play would
    half the time or more."""
    game, know = get_game("gyges"), knowledge_for("gyges")
    rng = random.Random(23)
    found = []
    while len(found) < 4:
        state = game.default_setup()
        for _ in range(rng.randrange(4, 30)):
            if state.is_game_over():
                break
            state = state.successor(rng.choice(state.legal_moves()))
        if state.is_game_over() or state.to_move != "south":
            continue
        moves = state.legal_moves()
        if any(state.successor(m).is_game_over() for m in moves):
            continue  # a win now: the other test's

        def loses(m):
            after = state.successor(m)
            return any(r.end in "NS" for r in after.legal_moves())  # a ring onto a throne wins

        bad = [m for m in moves if loses(m)]
        if 0 < len(bad) < len(moves) // 2:
            continue  # mostly safe positions say little
        if bad and len(bad) < len(moves):
            found.append(state)
    blunders = 0
    for k, state in enumerate(found):
        move = Engine(2).play(state, Limit(nodes=len(state.legal_moves()) + 100), rng=random.Random(k)).moves[0]
        after = state.successor(move)
        blunders += any(after.successor(r).is_game_over() for r in after.legal_moves())
    assert blunders <= 1, f"{blunders} of {len(found)}: the engine left a throne open"
    assert know.game == "gyges"
