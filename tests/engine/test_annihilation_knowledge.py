"""Annihilation's leaf judgement (engine/knowledge/annihilation.py): positions built from the
rules' own states, where the judgement must prefer the plainly better of two."""

from __future__ import annotations

import random

from engine import Engine, Limit, knowledge_for
from rules import get_game
from rules.games.annihilation import AnnihilationState

PLAYERS = ("white", "black")
KNOW = knowledge_for("annihilation")


def position(board, to_move="white", scores=(0, 0)) -> AnnihilationState:
    return AnnihilationState.from_dict({"board": board, "to_move": to_move,
                                        "scores": {"white": scores[0], "black": scores[1]}})


def white(state) -> float:
    return KNOW.value(state, PLAYERS)["white"]


# White's 5 on its point of emergence W: White's 8 introduced there knocks it the 8 points of
# the long diagonal onto Black's point of emergence, which scores 5 (``8@W>B``).
CAN_SCORE = {"W": "W5"}
CANNOT = {"d4": "W5"}  # the same particles, none of them able to reach B in one turn


def test_the_positions_say_what_the_test_assumes():
    assert position(CAN_SCORE).turn_points()[position(CAN_SCORE).parse_move("8@W>B")] == (5, 0)
    assert all(g == (0, 0) for g in position(CANNOT).turn_points().values())
    assert all(g == (0, 0) for g in position(CAN_SCORE, "black").turn_points().values())


def test_a_lead_is_better_than_a_deficit():
    assert white(position(CANNOT, scores=(6, 2))) > 0.5 > white(position(CANNOT, scores=(2, 6)))
    assert white(position(CANNOT, scores=(6, 2))) > white(position(CANNOT, scores=(4, 2)))


def test_points_the_mover_can_take_at_once_count():
    assert white(position(CAN_SCORE)) > white(position(CANNOT)) == 0.5


def test_points_the_other_could_take_next_count_against_the_mover():
    # Black to move; White threatens 8@W>B next turn.
    threatened, quiet = position(CAN_SCORE, "black"), position(CANNOT, "black")
    assert KNOW.value(threatened, PLAYERS)["black"] < KNOW.value(quiet, PLAYERS)["black"]


def test_a_point_weighs_more_near_the_target():
    early = white(position(CANNOT, scores=(3, 0))) - 0.5
    late = white(position(CANNOT, scores=(18, 15))) - 0.5
    assert late > early > 0


def test_a_turn_that_reaches_the_target_is_all_but_won():
    near = position(CAN_SCORE, scores=(16, 12))
    assert white(near) > 0.95
    assert white(near) > white(position(CAN_SCORE, scores=(12, 12)))


def test_scoring_turns_are_tried_first():
    state = position(CAN_SCORE)
    order = KNOW.order(state, state.legal_moves(), random.Random(1))
    assert state.move_text(order[0]) == "8@W>B"
    assert len(order) == len(state.legal_moves())


def test_turn_points_agree_with_the_positions_after_each_turn():
    game, rng = get_game("annihilation"), random.Random(5)
    state, seen = game.default_setup(), 0
    while not state.is_game_over() and seen < 40:
        before = state.score
        for move, (w, b) in state.turn_points().items():
            after = state.successor(move).score
            assert (after[0] - before[0], after[1] - before[1]) == (w, b), state.move_text(move)
        moves = state.legal_moves()
        state = state.successor(moves[rng.randrange(len(moves))])
        seen += 1


def test_the_engine_scores_when_it_can():
    state = position(CAN_SCORE)
    for seed in range(3):
        result = Engine(5).play(state, Limit(nodes=60), rng=random.Random(seed))
        assert result.texts == ("8@W>B",)
        assert result.evaluation > 0.6


def test_level_one_keeps_a_smaller_search_of_its_own_within_the_levels_envelope():
    from engine import LEVELS

    state = position(CANNOT)
    own, level = Engine(1).limit_for(state), LEVELS[0].limit
    assert own.nodes < level.nodes and own.time <= level.time
    assert Engine(1).play(state, rng=random.Random(2)).nodes <= own.nodes  # no clock: nodes alone
    assert Engine(2).limit_for(state).nodes > own.nodes
