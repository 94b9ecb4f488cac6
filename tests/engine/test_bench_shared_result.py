"""The bench's score of a game capped with players level at the top (bench/opponent.py): the
one win is shared, so a three-handed DRIFT game still hands out one point and chance stays ⅓."""

from __future__ import annotations

import random

from bench.opponent import Seat, play_game, shared_result


def test_two_level_at_the_top_share_the_win():
    assert shared_result(["red", "blue"], ["red", "blue"]) == {"red": 0.5, "blue": 0.5}
    assert shared_result(["red", "blue", "green"], ["red", "green"]) == {"red": 0.5, "blue": 0.0, "green": 0.5}


def test_three_level_at_the_top_get_a_third_each_not_a_half():
    result, capped = play_game("drift3", {c: Seat("random", 0.0) for c in ("red", "blue", "green")},
                               random.Random(1), 0, {})  # capped before a move: every score 0
    assert capped
    assert result == {"red": 1 / 3, "blue": 1 / 3, "green": 1 / 3}
    assert abs(sum(result.values()) - 1.0) < 1e-12


def test_a_two_handed_cap_level_at_the_top_is_a_draw():
    result, capped = play_game("drift", {c: Seat("random", 0.0) for c in ("red", "blue")}, random.Random(1), 0, {})
    assert capped and result == {"red": 0.5, "blue": 0.5}
