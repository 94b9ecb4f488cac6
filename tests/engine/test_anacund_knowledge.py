"""Anacund's glance at a placement (engine/knowledge/anacund.py): the order a search tries its
placements in, and level 1's choice where its few simulations decide little. Positions are the
rules' own states on the default track (bonus t7, a 1; its neighbours t6 a 5 and t8 a 4)."""

from __future__ import annotations

import random

from engine import knowledge_for
from engine.knowledge.anacund import exposure, glance, reach, settled
from rules import get_game
from rules.games.anacund import AnacundState, Place

GAME = get_game("anacund")
TRACK = GAME.default_setup().track


def position(pieces: dict[int, str], groups) -> AnacundState:
    """The default track with ``pieces`` (square -> 'A', 'B', or 'a'/'b' dead) and the groups."""
    cells = ["."] * 36
    for square, c in pieces.items():
        cells[square - 1] = c
    return AnacundState(TRACK, "".join(cells), groups)


def test_the_default_track_is_as_these_tests_read_it():
    assert TRACK.bonus == 7 and TRACK.number(7) == 1
    assert (TRACK.number(6), TRACK.number(8), TRACK.number(12)) == (5, 4, 5)


def test_a_landlocked_placement_is_judged_after_its_own_capture():
    # A to place from groups of 5 (on the 5s); t12 stands between B's t11 and t13: landlocked.
    state = position({11: "B", 13: "B", 35: "B", 16: "A", 22: "A", 32: "A"}, ((5, 5, 5), (5, 5, 5)))
    assert state.to_move == "A"
    doomed, safe = Place(12, 5), Place(21, 5)
    assert state.captures(12) == ((11,), True)
    assert settled(state, doomed).cells[11] == "b"  # captured by B, the next ply
    assert glance(state, doomed) < glance(state, safe)
    for seed in range(5):
        order = knowledge_for("anacund").order(state, state.legal_moves(), random.Random(seed))
        assert order[-1] == doomed


def test_a_run_one_placement_from_capture_is_at_risk_and_a_dead_end_makes_it_safe():
    # A's t7 (the bonus) against B's t8, t6 free: B's groups reach the 5s next turn.
    groups = ((1, 6, 6), (3, 6, 6))
    open_ = position({7: "A", 8: "B"}, groups)
    assert 5 in reach(open_, "B")
    assert exposure(open_, "A") > 6  # the bonus run is all but lost
    dead_end = position({7: "A", 8: "B", 6: "a"}, groups)
    assert exposure(dead_end, "A") == 0.0
    assert reach(position({}, ((6, 6, 6), (6, 6, 6))), "B") == {6, 5, 4}
    far = position({7: "A", 8: "B"}, ((1, 6, 6), (2, 1, 1)))  # B reaches 2 and 1 only
    assert exposure(far, "A") == 0.0


def test_the_bonus_square_is_taken_when_safe_and_left_when_the_opponent_closes_it():
    # A places from a group of 1 (t2, t7, …) or of 6. With B on t8 and t6 free, the bonus piece
    # would be captured next turn (a 12-point swing): a plain placement is better.
    groups = ((1, 6, 6), (3, 6, 6))
    exposed = position({8: "B", 20: "B", 24: "B", 16: "A", 22: "A", 32: "A", 15: "A", 10: "A"}, groups)
    assert exposed.to_move == "A"
    bonus = Place(7, 1)
    assert bonus in exposed.legal_moves()
    assert glance(exposed, bonus) < max(glance(exposed, m) for m in exposed.legal_moves() if m != bonus)
    safe = position({8: "B", 6: "a", 20: "B", 16: "A", 22: "A", 32: "A", 15: "A", 10: "A"}, groups)
    assert safe.to_move == "A"
    assert max(safe.legal_moves(), key=lambda m: glance(safe, m)) == bonus


def test_the_first_half_of_a_capture_is_seen_while_the_turn_goes_on():
    # B's piece on the bonus t7 (B took five from a group, then its last); A has placed one of
    # this turn's three and holds a group of 5: t6 closes one end, and the group then gives a 4
    # for t8 — a capture of the bonus in two placements, which a plain 5 elsewhere is not.
    b = {7: "B", 22: "B", 21: "B", 25: "B", 18: "B", 13: "B"}
    a = {10: "A", 16: "A", 32: "A", 12: "A", 31: "A", 27: "A", 35: "A"}
    state = position({**a, **b}, ((5, 3, 3), (6, 5, 1)))
    assert state.to_move == "A" and state.placed_this_turn() == 1
    assert max(state.legal_moves(), key=lambda m: glance(state, m)) == Place(6, 5)
    after = state.successor(Place(6, 5))
    assert after.to_move == "A" and after.captures(8) == ((6,), False)  # t8 takes it (cell t7)
    # As the turn's last placement the threat is worth less (the opponent moves first), still
    # more than nothing.
    last = position({**a, **b, 34: "A"}, ((5, 3, 2), (6, 5, 1)))
    assert last.to_move == "A" and last.placed_this_turn() == 2
    now = glance(state, Place(6, 5)) - glance(state, Place(23, 5))
    later = glance(last, Place(6, 5)) - glance(last, Place(23, 5))
    assert now > later > 0


def test_each_level_searches_about_three_times_the_one_below_within_the_think_time_caps():
    """With the glance the levels' usual budgets no longer parted them (level 2 beat level 1
    54.5 % of 200 games): Anacund keeps its own, about three times the search a level."""
    from engine import LEVELS, Engine

    state = GAME.default_setup()
    limits = [Engine(lv.number).limit_for(state) for lv in LEVELS]
    assert limits[0] == LEVELS[0].limit  # level 1 keeps the level's own
    for lower, upper in zip(limits, limits[1:]):
        assert upper.nodes >= 3 * lower.nodes and upper.time >= lower.time
    assert limits[0].time <= 0.3 and limits[-1].time <= 2.5  # p95 inside 0.5 s and 3 s on a Pi 4
