"""The levels below the top slip (docs/opponent.md, "Levels"): with the level's chance a move
is one of the search's second to fourth choices instead of its first; a proven win is never
passed over, the top level never slips and a hint never does."""

from __future__ import annotations

import random

import pytest

from engine.knowledge import Knowledge
from engine import LEVELS, Engine, Limit, knowledge_for
from engine.levels import Level
from rules import get_game

from test_engine_sees import winning_turn_position  # pytest puts this folder on the path

ALWAYS = 0.99


@pytest.fixture(autouse=True)
def gyges_slips_as_the_levels(monkeypatch, request):
    """These tests hold the slip's mechanics on Gygès positions with a level's own chance;
    Gygès keeps chances of its own (test_a_game_may_keep_its_own_slips)."""
    if request.node.name != "test_a_game_may_keep_its_own_slips":
        monkeypatch.setattr(knowledge_for("gyges"), "slips", None)


def slipping(level: int, slip: float) -> Level:
    base = LEVELS[level - 1]
    return Level(base.number, base.name, base.description, base.limit, base.settings, slip=slip)


def midgame(seed: int):
    game, rng = get_game("gyges"), random.Random(seed)
    while True:
        state = game.default_setup()
        for _ in range(14):
            if state.is_game_over():
                break
            state = state.successor(rng.choice(state.legal_moves()))
        if state.is_game_over() or state.phase != "play" or len(state.legal_moves()) <= 8:
            continue
        if not any(state.successor(m).is_game_over() for m in state.legal_moves()):
            return state  # no win in one: a win is never slipped past (the test below)


def test_slip_falls_level_by_level_and_the_top_never_slips():
    slips = [lv.slip for lv in LEVELS]
    assert slips == sorted(slips, reverse=True) and len(set(slips)) == len(slips)
    assert slips[-1] == 0.0 and slips[0] > 0.0
    with pytest.raises(ValueError, match="slip"):
        slipping(1, 1.0)


def test_a_slip_plays_one_of_the_searchs_next_three_choices():
    """Same seed, same tree: the search runs alike in play() and analyse() up to the choice, so
    a slipping play's move is the analysis' 2nd–4th and a never-slipping play's is its 1st."""
    slipped = 0
    for seed in range(8):
        state = midgame(seed)
        limit = Limit(nodes=120)
        ranked = [r[0] for r in Engine(3).analyse(state, limit, rng=random.Random(seed)).ranked]
        assert Engine(slipping(3, 0.0)).play(state, limit, rng=random.Random(seed)).moves[0] == ranked[0]
        move = Engine(slipping(3, ALWAYS)).play(state, limit, rng=random.Random(seed)).moves[0]
        assert move in ranked[:4]
        slipped += move != ranked[0]
    assert slipped >= 6, f"a level that slips 99 % of the time played the search's first choice {8 - slipped} of 8"


def plays_the_win(seeds: int) -> None:
    """A level that always slips still plays the win it has in a turn, seed after seed."""
    state, wins, moves = winning_turn_position("gyges", seed=17)
    for seed in range(seeds):
        result = Engine(slipping(1, ALWAYS)).play(state, Limit(nodes=200), rng=random.Random(seed))
        after = state
        for m in result.moves:
            after = after.successor(m)
        assert after.outcome() is not None and after.outcome().winner == state.to_move, result.texts


def test_a_slipping_level_never_passes_over_a_win():
    plays_the_win(8)


def test_a_hint_never_slips():
    state = midgame(3)
    limit = Limit(nodes=120)
    for seed in range(6):
        best = Engine(slipping(2, ALWAYS)).analyse(state, limit, rng=random.Random(seed))
        assert best.best.moves[0] == best.ranked[0][0]
        assert best.best.moves[0] == Engine(slipping(2, 0.0)).play(state, limit, rng=random.Random(seed)).moves[0]


def test_a_game_may_keep_its_own_slips():
    """Anacund's search separates its levels by itself; its level 1 slips little (a slip there
    costs a placement's points) and the levels from 3 up never do."""
    know = knowledge_for("anacund")
    assert know.slip(1, 0.85) == 0.2 and know.slip(5, 0.0) == 0.0 and know.slip(4, 0.25) == 0.0
    assert Knowledge().slip(4, 0.25) == 0.25  # a game with no slips of its own: the level's
    assert knowledge_for("gyges").slip(1, 0.85) == 0.95 and knowledge_for("gyges").slip(5, 0.0) == 0.0
    state = get_game("anacund").default_setup()
    limit = Limit(nodes=60)
    for seed in range(4):  # level 4 slips 25 % in the other games, never in Anacund
        got = Engine(4).play(state, limit, rng=random.Random(seed)).moves
        assert got == Engine(slipping(4, 0.0)).play(state, limit, rng=random.Random(seed)).moves


def test_a_turn_slips_at_most_once():
    """The chance is drawn once, at the turn's first real choice: a turn of several moves (an
    Annelids turn, DRIFT's pieces) is not handicapped more than a turn of one — with every move
    free to slip, level 1 lost Annelids to random play (39 of 100)."""
    state = midgame(5)
    engine = Engine(slipping(1, ALWAYS))
    know = knowledge_for("gyges")
    _, search, root = engine._think(state, Limit(nodes=120), random.Random(1), None, None, 0.0)
    first = search.ranked(root)[0]
    child, after = engine._best(search, root, know, random.Random(1), ALWAYS)
    assert child is not first and after == 0.0  # slipped here: no more slips in this turn
    child, after = engine._best(search, root, know, random.Random(1), 0.0)
    assert child is first and after == 0.0
    slips = []
    for seed in range(40):  # drawn once: 30 % of turns slip, and the draw is remembered
        child, after = engine._best(search, root, know, random.Random(seed), 0.3)
        assert after == 0.0
        slips.append(child is not first)
    assert 4 <= sum(slips) <= 20


def test_in_a_turn_of_several_moves_the_slip_is_its_last_move():
    """Anacund's turn is three placements: a slip drawn at the first is kept for the last (a
    slip early in the turn left the rest of it to a thin tree: all but random at level 1)."""
    state = get_game("anacund").default_setup()
    engine = Engine(slipping(1, ALWAYS))
    know = knowledge_for("anacund")
    _, search, root = engine._think(state, Limit(nodes=200), random.Random(1), None, None, 0.0)
    assert all(c.state.to_move == root.mover for c in root.children)  # the turn goes on
    child, after = engine._best(search, root, know, random.Random(1), ALWAYS)
    assert child is search.ranked(root)[0] and after == 1.0  # not here: kept for the last move


def test_a_game_may_let_a_slip_come_early_in_the_turn(monkeypatch):
    """DRIFT's turn ends on a move that is rarely a real choice (the end, or a last step), so
    a slip kept for it slipped ~6 turns in 10 of those drawn: there it may be the turn's first
    move, the rest of the turn searched again."""
    state = get_game("anacund").default_setup()
    engine = Engine(slipping(1, ALWAYS))
    know = knowledge_for("anacund")
    monkeypatch.setattr(know, "slip_early", True)
    _, search, root = engine._think(state, Limit(nodes=200), random.Random(1), None, None, 0.0)
    child, after = engine._best(search, root, know, random.Random(1), ALWAYS)
    assert child is not search.ranked(root)[0] and after == 0.0  # slipped at the first placement
    assert child.state.to_move == root.mover  # and the turn goes on
    result = engine._think(state, Limit(nodes=200), random.Random(1), None, None, 1.0)[0]
    assert len(result.moves) == 3  # a whole turn still comes back


def test_a_game_may_let_a_slip_be_the_rest_of_the_turn(monkeypatch):
    """DRIFT's slip of one move cost next to nothing (the rest of the turn searched again), so
    its levels barely parted: there a slip goes on for the rest of the turn
    (``Knowledge.slip_turn``), every later move of it off the search's first choice."""
    state = get_game("anacund").default_setup()
    engine = Engine(slipping(1, ALWAYS))
    know = knowledge_for("anacund")
    monkeypatch.setattr(know, "slip_early", True)
    monkeypatch.setattr(know, "slip_turn", True)
    result, search, root = engine._think(state, Limit(nodes=300), random.Random(1), None, None, 0.0)
    child, after = engine._best(search, root, know, random.Random(1), ALWAYS)
    assert child is not search.ranked(root)[0] and after == 1.0  # slipped, and the turn goes on slipping
    node = root  # down the turn the search chose: each later placement slips too, once drawn
    for move in result.moves[:2]:
        node = next(c for c in node.children if c.move == move)
        assert sum(1 for c in node.children if c.visits) > 1
        for seed in range(3):
            child, after = engine._best(search, node, know, random.Random(seed), 1.0)
            assert child is not search.ranked(node)[0] and after == 1.0
    monkeypatch.setattr(know, "slip_turn", False)
    assert engine._best(search, root, know, random.Random(1), ALWAYS)[1] == 0.0  # once only


def test_a_game_may_let_a_slip_be_any_move(monkeypatch):
    """Where the search's next choices are all but as good as its first (Annihilation's quiet
    moves), a slip among them costs nothing: such a game's slip is any move but the first
    choice (``Knowledge.slip_among`` None) — still never past a win."""
    monkeypatch.setattr(knowledge_for("gyges"), "slip_among", None)
    outside = 0
    for seed in range(8):
        state = midgame(seed)
        limit = Limit(nodes=120)
        ranked = [r[0] for r in Engine(3).analyse(state, limit, rng=random.Random(seed)).ranked]
        move = Engine(slipping(3, ALWAYS)).play(state, limit, rng=random.Random(seed)).moves[0]
        assert move != ranked[0] and move in state.legal_moves()
        outside += move not in ranked[:4]
    assert outside >= 4, f"a slip among every move stayed in the search's first four {8 - outside} of 8 times"
    plays_the_win(4)
