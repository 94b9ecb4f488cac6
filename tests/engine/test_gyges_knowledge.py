"""Gygès' judgement of a position (engine/knowledge/gyges.py), on positions built from the
rules' own states."""

from __future__ import annotations

import random

from engine import knowledge_for
from engine.knowledge.gyges import advance, landings, playable, threats
from rules import get_game

GAME = get_game("gyges")
KNOW = knowledge_for("gyges")
BOTH = ("south", "north")


def random_play(rng, lo, hi):
    """A position after ``lo``..``hi`` random plies from the setup (None: the game ended)."""
    s = GAME.default_setup()
    for _ in range(rng.randrange(lo, hi)):
        s = s.successor(rng.choice(s.legal_moves()))
        if s.is_game_over():
            return None
    return s


def pos(rings, to_move="south"):
    return GAME.from_dict({"game": "gyges", "to_move": to_move, "rings": rings})


def test_threats_count_the_rings_the_legal_moves_bring_to_the_throne():
    """Counted from each ring's reach, as the legal moves would list them (for the mover, and
    for the other player as if it were its move)."""
    rng, checked = random.Random(3), 0
    while checked < 40:
        s = random_play(rng, 2, 16)
        if s is None:
            continue
        for player in BOTH:
            turned = GAME.from_dict({**s.to_dict(), "to_move": player})
            listed = {m.start for m in turned.legal_moves() if m.end in "NS"}
            row, rings = playable(s, player)
            assert threats(rings) == len(listed)
            assert {int(m.start[1]) for m in turned.legal_moves()} == {row}
            checked += 1


def test_a_mover_who_can_take_the_throne_has_all_but_won():
    # South's single on f6 steps into North's throne.
    s = pos({"a1": 2, "f6": 1, "a6": 3}, "south")
    assert threats(playable(s, "south")[1]) == 0  # f6 is not South's row: a1 is nearer
    s = pos({"f6": 1, "a6": 3}, "south")
    assert KNOW.value(s, BOTH)["south"] > 0.9


def test_a_ring_the_opponent_can_bring_to_the_throne_costs_the_mover():
    # North moves from row 2 (its nearest): a double on e2 goes e1 and into South's throne; a
    # single there cannot. South's a1 reaches nothing either way.
    quiet = pos({"a1": 3, "e2": 1}, "south")
    threatened = pos({"a1": 3, "e2": 2}, "south")
    assert threats(playable(quiet, "north")[1]) == 0
    assert threats(playable(threatened, "north")[1]) == 1
    assert KNOW.value(threatened, BOTH)["south"] < KNOW.value(quiet, BOTH)["south"]
    assert KNOW.value(threatened, BOTH)["south"] < 0.5


def features(s, player):
    row, rings = playable(s, player)
    return threats(rings), landings(rings), advance(player, row)


def test_a_quiet_position_is_better_for_the_mover_whose_nearest_row_has_advanced():
    """No threat either way: South moving from row 2 (row 1 empty behind it: its rings nearer
    North's throne, and fewer near its own) is better off than from row 1, all else equal."""
    back = pos({"a1": 1, "f4": 2, "c6": 3, "d6": 3}, "south")
    ahead = pos({"a2": 1, "f4": 2, "c6": 3, "d6": 3}, "south")
    assert features(back, "south") == (0, 0, 0) and features(ahead, "south") == (0, 0, 1)
    assert features(back, "north") == features(ahead, "north") == (0, 2, 0)
    assert KNOW.value(ahead, BOTH)["south"] > KNOW.value(back, BOTH)["south"] > 0.5
    # And the same for North, whose rows count from the other side.
    assert KNOW.value(pos({"a5": 1, "f3": 2, "c1": 3, "d1": 3}, "north"), BOTH)["north"] > \
        KNOW.value(pos({"a6": 1, "f3": 2, "c1": 3, "d1": 3}, "north"), BOTH)["north"]


def test_a_quiet_position_is_better_for_the_mover_with_a_ring_to_land_on():
    """A ring the mover can land on (to bounce off or bump away) is worth having."""
    bare = pos({"a2": 1, "f4": 2, "c6": 3, "d6": 3}, "south")
    more = pos({"a2": 1, "b2": 2, "f4": 2, "c6": 3, "d6": 3}, "south")
    assert features(bare, "south") == (0, 0, 1) and features(more, "south") == (0, 1, 1)
    assert features(bare, "north") == features(more, "north")
    assert KNOW.value(more, BOTH)["south"] > KNOW.value(bare, BOTH)["south"]


def test_the_search_tries_a_win_first_then_moves_that_leave_no_throne_move():
    """The order is the judgement one move ahead: a throne move first; else the first four
    (the tree's first children) leave the opponent no throne move where four such exist."""
    rng, wins_seen, safe_seen = random.Random(11), 0, 0
    while wins_seen < 2 or safe_seen < 3:
        s = random_play(rng, 2, 20)
        if s is None:
            continue
        moves = s.legal_moves()
        first = KNOW.order(s, moves, random.Random(0))[0]
        assert sorted(KNOW.order(s, moves, random.Random(0)), key=str) == sorted(moves, key=str)
        if any(m.end in "NS" for m in moves):
            assert first.end in "NS"
            wins_seen += 1
            continue

        def loses(m):
            after = s.successor(m)
            return threats(playable(after, after.to_move)[1]) > 0

        losing = [m for m in moves if loses(m)]
        if 2 * len(losing) >= len(moves) and len(moves) - len(losing) >= 4:
            # at least half of them lose: a random order would put one in the first four
            assert not any(loses(m) for m in KNOW.order(s, moves, random.Random(0))[:4])
            safe_seen += 1


def test_a_node_rich_in_bumps_judges_at_most_order_most_moves_a_win_still_first(monkeypatch):
    """Ordering every one of a thousand bump destinations took longer than level 1's whole turn,
    and the search cannot stop an order under way: at most ORDER_MOST moves are judged."""
    from engine.knowledge import gyges as module

    rng = random.Random(5)
    while True:
        s = random_play(rng, 4, 30)
        if s is not None and len(s.legal_moves()) > 2 * module.ORDER_MOST:
            break
    moves = s.legal_moves()
    judged = []
    real_value = KNOW.value
    monkeypatch.setattr(KNOW, "value", lambda state, players: judged.append(state) or real_value(state, players))
    order = KNOW.order(s, moves, random.Random(0))
    assert sorted(order, key=str) == sorted(moves, key=str)
    assert len(judged) <= module.ORDER_MOST
    scores = [real_value(s.successor(m), BOTH)[s.to_move] for m in order[:module.ORDER_MOST]
              if s.successor(m).outcome() is None]
    assert scores == sorted(scores, reverse=True)  # the judged ones best first
    wins = [m for m in moves if m.end in "NS"]
    assert order[:len(wins)] == wins or sorted(order[:len(wins)], key=str) == sorted(wins, key=str)
