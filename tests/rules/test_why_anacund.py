"""Anacund, why not (issue 31, item 2): a position per rule a board can break, where that rule
is the reason; positions where two rules could apply give the true one; several pieces moved
give none; and over random play every reason is true of the move it names, by that rule's own
check, which agrees with legal_moves."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from rules import Fidelity, Verdict, View, explain, get_game, why_not
from rules.games.anacund import PLAYERS, Place
from rules.games.anacund_track import FREE, OTHER
from rules.games.anacund_why import RULES
from seeds import seed_text

GAME = get_game("anacund")
ROOT = Path(__file__).resolve().parents[2]


def doc(name):
    return GAME.from_dict(json.loads((ROOT / "docs/rules/anacund" / f"{name}.json").read_text(encoding="utf-8")))


def board(state, put=(), take=()):
    """The board with ``put`` pieces ``(space, colour)`` added and ``take`` spaces emptied."""
    v = {s: list(t) for s, t in state.view(Fidelity.KIND).to_dict().items()}
    for space in take:
        v.pop(space)
    for space, colour in put:
        v.setdefault(space, []).append(colour)
    return View({s: tuple(sorted(t)) for s, t in v.items() if t})


def reason(state, view):
    assert explain(state, view, Fidelity.KIND).verdict is Verdict.ILLEGAL
    return why_not(state, view, Fidelity.KIND).reason


def rule_of(state, view):
    r = reason(state, view)
    return None if r is None else r.rule.id


# -- a position per rule ---------------------------------------------------------------------------


def test_group_number():
    s = GAME.start()  # t1 is a 2: A's groups hold 6 pieces each
    r = reason(s, board(s, put=[("t1", "A")]))
    assert r.rule.id == "group-number" and r.rule.section == "How to play"
    assert r.said.text == "t1 is a 2, and A's groups hold 6, 6, 6 pieces"


def test_in_turn():
    s = GAME.start()
    r = reason(s, board(s, put=[("t10", "B")]))  # t10 is a 6: only the turn is wrong
    assert r.rule.id == "in-turn" and r.said.text == "A is to place a piece, not B"


def test_dead_square():
    s = doc("dead-squares")  # t11's pieces were captured: s11 holds them
    r = reason(s, board(s, put=[("t11", "A")]))
    assert r.rule.id == "dead-square" and r.rule.section == "Control of squares and capture of the pieces"
    assert r.said.text == "t11 is dead: its pieces were captured, and nobody may play there"


def test_not_landlocked():
    s = doc("double-capture")  # A on t12 captures B's t11 and t13; B's t20 is free to stay
    view = board(s, put=[("t12", "A"), ("s11", "A"), ("s13", "A"), ("s20", "A")], take=["t11", "t13", "t20"])
    r = reason(s, view)
    assert r.rule.id == "not-landlocked"
    assert r.said.text == "B's piece on t20 is not landlocked by 2 pieces of A: it is not captured"


def test_not_landlocked_without_a_placement():
    s = doc("double-capture")
    assert rule_of(s, board(s, put=[("s10", "B")], take=["t10"])) == "not-landlocked"


def test_beside():
    s = doc("double-capture")
    view = board(s, put=[("t12", "A"), ("s11", "A"), ("s14", "A")], take=["t11", "t13"])
    r = reason(s, view)
    assert r.rule.id == "beside" and r.said.text == "the piece captured on t13 goes beside it, on s13, not on s14"


def test_turned():
    s = doc("double-capture")
    view = board(s, put=[("t12", "A"), ("s11", "A"), ("s13", "B")], take=["t11", "t13"])
    r = reason(s, view)
    assert r.rule.id == "turned" and r.said.text == "the piece captured on t13 is turned to its captor's colour, A"


def test_the_landlocked_run_taken_by_the_placer_is_not_turned():
    s = doc("suicide")  # A on t11 is landlocked with t12: B captures them, turned to B
    view = board(s, put=[("s11", "A"), ("s12", "A")], take=["t12"])
    assert rule_of(s, view) == "turned"


def test_game_over():
    rng = random.Random(3)
    s = GAME.start()
    while not s.is_game_over():
        s = s.successor(rng.choice(s.legal_moves()))
    dead = next(f"t{i + 1}" for i, c in enumerate(s.cells) if c.islower())
    r = reason(s, board(s, put=[(dead, "A")]))
    assert r.rule.id == "game-over" and r.rule.section == "End of the game"


def test_at_occupancy_the_square_and_the_captures_still_read():
    s = GAME.start()
    seen = board(s, put=[("t1", "A")]).at_fidelity(Fidelity.OCCUPANCY)
    assert why_not(s, seen, Fidelity.OCCUPANCY).reason.rule.id == "group-number"
    assert why_not(s, board(s, put=[("t10", "B")]).at_fidelity(Fidelity.OCCUPANCY), Fidelity.OCCUPANCY).reason is None
    s = doc("double-capture")
    seen = board(s, put=[("t12", "A"), ("s11", "A"), ("s13", "A"), ("s20", "A")], take=["t11", "t13", "t20"])
    r = why_not(s, seen.at_fidelity(Fidelity.OCCUPANCY), Fidelity.OCCUPANCY).reason
    assert r.rule.id == "not-landlocked" and r.said.text.startswith("B's piece on t20")
    unturned = board(s, put=[("t12", "A"), ("s11", "A"), ("s13", "B")], take=["t11", "t13"])
    assert explain(s, unturned.at_fidelity(Fidelity.OCCUPANCY), Fidelity.OCCUPANCY).verdict is Verdict.LEGAL


# -- two rules could apply: the true one -----------------------------------------------------------


def test_a_dead_square_of_the_right_number_is_dead():
    data = json.loads((ROOT / "docs/rules/anacund/dead-squares.json").read_text(encoding="utf-8"))
    numbers = data["track"].replace("*", "")
    numbers = numbers[:10] + numbers[12] + numbers[11] + numbers[10] + numbers[13:]  # t11 a 4, t13 a 5
    s = GAME.from_dict({**data, "track": numbers[:17] + "*" + numbers[17:]})
    assert s.track.number(11) in s.groups[0]  # by its number a piece of A's groups could go there: it is dead
    assert rule_of(s, board(s, put=[("t11", "A")])) == "dead-square"


def test_a_wrong_square_with_a_capture_is_the_square():
    s = doc("double-capture")  # t2 is not a 5; taking t11 beside it changes nothing of that
    assert rule_of(s, board(s, put=[("t2", "A"), ("s11", "A")], take=["t11"])) == "group-number"


def test_a_piece_taken_that_is_not_captured_is_not_the_wrong_side():
    s = doc("double-capture")  # t20 taken, laid by t21: it was never captured at all
    view = board(s, put=[("t12", "A"), ("s11", "A"), ("s13", "A"), ("s21", "A")], take=["t11", "t13", "t20"])
    assert rule_of(s, view) == "not-landlocked"


def test_several_pieces_moved():
    s = doc("double-capture")
    why = why_not(s, board(s, put=[("t16", "A"), ("t31", "A")], take=["t10", "t14"]), Fidelity.KIND)
    assert why.reason is None and why.several


def test_every_rule_is_listed_in_the_docs():
    doc_text = (ROOT / "docs/rules/anacund.md").read_text(encoding="utf-8")
    section = re.sub(r"\s+", " ", doc_text.split("## Rules a board can break", 1)[1].split("\n## ", 1)[0])
    for rule in RULES.values():
        assert f"`{rule.id}`" in section and rule.quote in section, rule.id


def test_every_rule_has_the_seeds_words():
    seed = re.sub(r"\s+", " ", seed_text("anacund"))
    for rule in RULES.values():
        assert rule.quote in seed, rule.id
        assert rule.section in seed


# -- the checks agree with legal_moves -------------------------------------------------------------


def _states(seed, n):
    rng = random.Random(seed)
    s, out = GAME.start(), []
    while len(out) < n:
        if s.is_game_over():
            s = GAME.start()
        out.append(s)
        s = s.successor(rng.choice(s.legal_moves()))
    return out, rng


def _wrong_boards(s, rng):
    """A piece of the mover on a square no legal move places on, one of the other player, a
    piece taken off the track, and a legal placement's capture laid wrong."""
    legal = {m.square for m in s.legal_moves() if isinstance(m, Place)}
    squares = [i + 1 for i, c in enumerate(s.cells) if c == FREE or c.islower()]
    for sq in rng.sample(squares, min(4, len(squares))):
        if sq not in legal:
            yield board(s, put=[(f"t{sq}", s.to_move)])
        yield board(s, put=[(f"t{sq}", OTHER[s.to_move])])
    pieces = [i + 1 for i, c in enumerate(s.cells) if c in OTHER]
    for sq in rng.sample(pieces, min(2, len(pieces))):
        yield board(s, put=[(f"s{sq}", s.to_move)], take=[f"t{sq}"])
    for m in [m for m in s.legal_moves() if isinstance(m, Place) and s.captures(m.square)[0] and not s.captures(m.square)[1]][:2]:
        caught, own = s.captures(m.square)
        captor = OTHER[s.to_move] if own else s.to_move
        laid = [(f"s{i + 1}", captor) for i in caught]
        k = rng.randrange(len(laid))
        laid[k] = (laid[k][0], OTHER[captor]) if rng.random() < 0.5 else (f"s{(caught[k] + 1) % 36 + 1}", captor)
        yield board(s, put=[(f"t{m.square}", s.to_move), *laid], take=[f"t{i + 1}" for i in caught])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_reason_over_random_play_is_true_of_the_move_it_names(seed):
    states, rng = _states(seed, 60)
    said = set()
    for s in states:
        sizes = set(s.groups[PLAYERS.index(s.to_move)]) - {0}
        for view in _wrong_boards(s, rng):
            if explain(s, view, Fidelity.KIND).verdict is not Verdict.ILLEGAL:
                continue
            why = why_not(s, view, Fidelity.KIND)
            if why.reason is None:
                continue
            rule = why.reason.rule.id
            said.add(rule)
            put = [(int(sp[1:]), c) for sp, c in why.attempt.placed if sp.startswith("t")]
            taken = [int(sp[1:]) for sp, _ in why.attempt.lifted if sp.startswith("t")]
            if rule == "in-turn":
                assert put[0][1] != s.to_move
            elif rule == "dead-square":
                assert s.cells[put[0][0] - 1].islower()
                assert not any(isinstance(m, Place) and m.square == put[0][0] for m in s.legal_moves())
            elif rule == "group-number":
                sq = put[0][0]
                assert not any(isinstance(m, Place) and m.square == sq for m in s.legal_moves())
                # its number is no group's, and every group still has a free square of its own number
                assert s.track.number(sq) not in sizes
                free = {s.track.number(i + 1) for i, c in enumerate(s.cells) if c == FREE}
                assert sizes <= free
            elif rule == "not-landlocked":
                placed = put[0][0] if put else None
                caught = set(s.captures(placed)[0]) if placed else set(s.landlocked)
                assert any(k - 1 not in caught for k in taken)
            elif rule in ("beside", "turned"):
                assert put and any(isinstance(m, Place) and m.square == put[0][0] for m in s.legal_moves())
            else:
                assert rule == "game-over" and s.is_game_over()
    assert {"group-number", "in-turn", "not-landlocked"} <= said, said
