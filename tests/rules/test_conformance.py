"""One conformance suite over every registered game (OpenSpiel style)."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from rules import MORE, OCCUPIED, Fidelity, InvalidStateError, MoveSyntaxError, Verdict, View, explain, game_names, get_game

GAMES = game_names()
SEEDS = (1, 2, 3)
MAX_PLIES = 400
MOVES_CHECKED_PER_STATE = 6


def playout(game_name: str, seed: int, *, setup: bool):
    """A random game from the start (with setup) or from the default setup, as a list of states."""
    game = get_game(game_name)
    rng = random.Random(seed)
    state = game.start() if setup else game.default_setup()
    states = [state]
    while not state.is_game_over() and len(states) < MAX_PLIES:
        moves = state.legal_moves()
        assert moves, f"{game_name}: a position that is not over has no legal move"
        state = state.apply(rng.choice(moves))
        states.append(state)
    return states


@pytest.fixture(scope="module", params=[(g, s, setup) for g in GAMES for s in SEEDS for setup in (True, False)],
                ids=lambda p: f"{p[0]}-seed{p[1]}-{'setup' if p[2] else 'ready'}")
def game_playout(request):
    name, seed, setup = request.param
    return name, seed, playout(name, seed, setup=setup)


def test_registry_lists_games():
    assert "gyges" in GAMES
    for name in GAMES:
        assert get_game(name).name == name


def test_playout_states_round_trip(game_playout):
    name, _, states = game_playout
    game = get_game(name)
    for s in states:
        data = json.loads(json.dumps(s.to_dict()))
        again = game.from_dict(data)
        assert again == s and hash(again) == hash(s)
        assert again.to_dict() == s.to_dict()


def test_playout_ends_or_runs_long(game_playout):
    _, _, states = game_playout
    last = states[-1]
    if last.is_game_over():
        assert last.legal_moves() == () or list(last.legal_moves()) == []
        assert last.outcome() is not None


def test_apply_leaves_original_untouched(game_playout):
    name, seed, states = game_playout
    rng = random.Random(seed)
    for s in states[:: max(1, len(states) // 20)]:
        before = json.dumps(s.to_dict(), sort_keys=True)
        for m in rng.sample(list(s.legal_moves()), min(5, len(s.legal_moves()))):
            s.apply(m)
        assert json.dumps(s.to_dict(), sort_keys=True) == before


def test_notation_round_trips(game_playout):
    _, seed, states = game_playout
    rng = random.Random(seed)
    for s in states[:: max(1, len(states) // 25)]:
        for m in rng.sample(list(s.legal_moves()), min(10, len(s.legal_moves()))):
            assert s.parse_move(s.move_text(m)) == m


def test_garbage_notation_is_a_syntax_error(game_playout):
    _, _, states = game_playout
    with pytest.raises(MoveSyntaxError):
        states[0].parse_move("!!not a move!!")


@pytest.mark.parametrize("fidelity", list(Fidelity), ids=lambda f: f.value)
def test_every_legal_move_is_explained_by_its_successor(game_playout, fidelity):
    name, seed, states = game_playout
    rng = random.Random(seed * 7919 + hash(fidelity.value) % 1000)
    checked = 0
    for s in states[:: max(1, len(states) // 30)]:
        moves = list(s.legal_moves())
        for m in rng.sample(moves, min(MOVES_CHECKED_PER_STATE, len(moves))):
            succ = s.apply(m)
            changed = s.view(Fidelity.IDENTITY).diff(succ.view(Fidelity.IDENTITY))
            assert changed <= s.move_spaces(m), f"{name}: move_spaces misses a changed space for {s.move_text(m)}"
            e = explain(s, succ.view(fidelity), fidelity)
            if e.verdict is Verdict.UNCHANGED:
                # Only a move the sensor cannot see (a pass) may look like nothing happened.
                assert s.view(fidelity) == succ.view(fidelity)
                continue
            assert e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS), (s.move_text(m), e.verdict)
            owners = [c for c in e.candidates if c.has_move(m)]
            assert len(owners) == 1, f"{name}: {s.move_text(m)} not among the candidates at {fidelity.value}"
            assert owners[0].state == succ
            checked += 1
    assert checked > 0


def coarsened(view: View, rng: random.Random, share: float) -> View:
    """``view`` as a camera that cannot name every piece reads it: about ``share`` of the
    occupied spaces read unnamed — one piece as OCCUPIED; a space of several tokens with one
    of them unnamed, all of them, or (OCCUPIED, MORE) when it cannot even count them."""
    out = {}
    for space, tokens in view.items():
        if rng.random() >= share:
            out[space] = tokens
        elif len(tokens) == 1:
            out[space] = (OCCUPIED,)
        else:
            how = rng.randrange(3)
            if how == 0:
                i = rng.randrange(len(tokens))
                out[space] = tokens[:i] + (OCCUPIED,) + tokens[i + 1:]
            else:
                out[space] = (OCCUPIED,) * len(tokens) if how == 1 else (OCCUPIED, MORE)
    return View(out)


def may_show(exact: View, seen: View) -> bool:
    """The test's own oracle (not View.matches): can a board whose exact view is ``exact``
    be read as ``seen``? Per space: the named tokens are there, each OCCUPIED is one more
    token, MORE any number more (at least one thing there)."""
    for space in set(exact) | set(seen):
        have, read = Counter(exact.get_tokens(space)), Counter(seen.get_tokens(space))
        more, unnamed = read.pop(MORE, 0), read.pop(OCCUPIED, 0)
        extra = Counter(have)
        if OCCUPIED in have:  # an occupancy view: OCCUPIED is the name of every token
            read[OCCUPIED], unnamed = unnamed, 0
        extra.subtract(read)
        if min(extra.values(), default=0) < 0:
            return False
        left = sum(extra.values())
        if not (left >= unnamed and sum(have.values()) > 0 if more else left == unnamed):
            return False
    return True


@pytest.mark.parametrize("fidelity", list(Fidelity), ids=lambda f: f.value)
def test_every_legal_move_is_explained_from_a_mixed_view(game_playout, fidelity):
    """Mixed fidelity (issue 16): random spaces of the successor read as OCCUPIED. The true
    move is always among the candidates, and a unique accept is always the true position."""
    name, seed, states = game_playout
    rng = random.Random(seed * 104729 + len(fidelity.value))
    checked = unique = 0
    for s in states[:: max(1, len(states) // 30)]:
        moves = list(s.legal_moves())
        for m in rng.sample(moves, min(MOVES_CHECKED_PER_STATE, len(moves))):
            succ = s.successor(m)
            seen = coarsened(succ.view(fidelity), rng, rng.choice((0.3, 0.6, 1.0)))
            assert may_show(succ.view(fidelity), seen) and succ.view(fidelity).matches(seen)
            e = explain(s, seen, fidelity)
            where = f"{name}: {s.move_text(m)} read as {seen.to_dict()} at {fidelity.value}"
            if e.verdict is Verdict.UNCHANGED:
                # What the move changed was all read unnamed: the board may still be as it was.
                assert may_show(s.view(fidelity), seen), where
                continue
            assert e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS), (where, e.verdict)
            owners = [c for c in e.candidates if c.has_move(m)]
            assert len(owners) == 1 and owners[0].state == succ, where
            if e.verdict is Verdict.LEGAL:
                assert e.candidates[0].state == succ, where  # never a wrong unique accept
                unique += 1
            for c in e.candidates:  # every choice offered is one the board may show
                assert may_show(c.state.view(fidelity), seen), where
            checked += 1
    assert checked > 0 and (fidelity is Fidelity.OCCUPANCY or unique > 0)


@pytest.mark.parametrize("fidelity", [Fidelity.KIND, Fidelity.IDENTITY], ids=lambda f: f.value)
def test_a_mixed_view_is_never_accepted_as_a_position_it_cannot_show(game_playout, fidelity):
    """Boards that are no legal successor (a piece gone, a stray piece) read with random
    spaces unnamed: whatever is accepted must be a position the board may show."""
    name, seed, states = game_playout
    rng = random.Random(seed * 7 + 3)
    spaces = sorted(get_game(name).board().space_ids)
    for s in states[:: max(1, len(states) // 8)]:
        moves = list(s.legal_moves())
        if not moves:
            continue
        succ = s.successor(rng.choice(moves))
        wrong = dict(succ.view(fidelity).to_dict())
        if wrong and rng.random() < 0.5:
            del wrong[rng.choice(sorted(wrong))]
        else:
            wrong[rng.choice(spaces)] = [OCCUPIED]
        seen = coarsened(View(wrong), rng, 0.4)
        e = explain(s, seen, fidelity)
        if e.verdict is Verdict.ILLEGAL:
            assert e.restore, f"{name}: illegal with nothing to put back"
        for c in e.candidates if e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS) else ():
            assert may_show(c.state.view(fidelity), seen), f"{name}: accepted {c.text} for {seen.to_dict()}"
            assert c.state.view(fidelity).matches(seen) is True


def test_bad_position_is_one_clear_error():
    for name in GAMES:
        game = get_game(name)
        with pytest.raises(InvalidStateError):
            game.from_dict({"game": name, "to_move": 42, "rings": "nope"})
        with pytest.raises(ValueError):
            game.from_dict(["not", "an", "object"])
