"""Annihilation: exact successor sets on hand-built positions, one test per ruling in
docs/rules/annihilation.md. The positions are the files in docs/rules/annihilation/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import Fidelity, IllegalMoveError, InvalidStateError, MoveSyntaxError, Verdict, View, explain, get_game
from rules.games.annihilation import _geometry

GAME = get_game("annihilation")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "annihilation"
CENTRAL = _geometry().central


def doc(name):
    return GAME.from_dict(json.loads((DOCS / f"{name}.json").read_text()))


def pos(board, to_move="white", **extra):
    return GAME.from_dict({"game": "annihilation", "to_move": to_move, "board": board, **extra})


def moves(state, prefix=""):
    texts = [state.move_text(m) for m in state.legal_moves()]
    assert len(texts) == len(set(texts))
    return {t for t in texts if t.startswith(prefix)}


def play(state, text):
    return state.apply(state.parse_move(text))


def placements(state):
    return {f"0@{p}" for p in CENTRAL if p not in state.to_dict()["board"]}


# -- the board and the start -------------------------------------------------------------


def test_reference_board():
    geo = _geometry()
    assert len(CENTRAL) == 37 and len(geo.board.connectors) == 92
    assert geo.adj[geo.index["W"]] == (geo.index["a1"],) and geo.adj[geo.index["B"]] == (geo.index["g7"],)
    assert len(geo.adj[geo.index["d4"]]) == 6
    diag = geo.board.zone("line:diag0")
    assert diag == ("W", "a1", "b2", "c3", "d4", "e5", "f6", "g7", "B")


def test_start_and_view():
    s = GAME.start()
    assert s.to_move == "white" and s.scores() == {"white": 0, "black": 0}
    # 37 annihilator placements and 5 introductions (1, 2, 3, 5, 8) onto an empty point of emergence.
    assert moves(s) == placements(s) | {"1@W", "2@W", "3@W", "5@W", "8@W"}
    view = s.view(Fidelity.KIND)
    assert view["ex_white"] == ("W0", "W1", "W1", "W2", "W3", "W5", "W8")
    assert s.view(Fidelity.OCCUPANCY)["ex_black"] == ("occupied",) * 7
    assert GAME.start({"first": "black", "target": "30"}).to_dict()["target"] == 30


# -- the seed's own examples ----------------------------------------------------------------


def test_seed_example_introduction_knocks_the_5_three_points_forward():
    s = doc("seed-introduction")
    # The 5 on W takes the introduced carrier's charge in a straight line; an 8 takes it
    # all the way to Black's point of emergence, where it is annihilated and scores.
    assert moves(s) == placements(s) | {"1@W>a1", "2@W>b2", "3@W>c3", "8@W>B"}
    after = play(s, "3@W>c3")
    assert after.to_dict()["board"] == {"W": "W3", "c3": "W5"}
    assert "3 hit 5 there, 5 moved 3 to c3" in s.describe_move(s.parse_move("3@W>c3"))
    scored = play(s, "8@W>B")
    assert scored.scores() == {"white": 5, "black": 0} and scored.to_dict()["reserves"]["black"].count(5) == 2


def test_seed_example_self_emission_back_onto_the_point_of_emergence():
    s = doc("seed-self-emission")
    assert moves(s, "b2-") == {
        "b2-W>a1", "b2-Wx", "b2-a1", "b2-a2", "b2-a3", "b2-a4", "b2-b1", "b2-b5", "b2-c1", "b2-d1", "b2-e2",
    }
    # The 5 and 8 cannot push the 2 through the 3 on b2; the 1 moves it to a1.
    assert moves(s) == moves(s, "b2-") | placements(s) | {"1@W>a1"}
    after = play(s, "b2-W>a1")
    assert after.to_dict()["board"] == {"W": "W3", "a1": "W2"}
    assert s.describe_move(s.parse_move("b2-W>a1")).endswith("3 hit 2 at White's point of emergence, 2 moved 1 to a1")


# -- chains ------------------------------------------------------------------------------------


def test_chain_with_a_zero_force_self_emission():
    s = doc("zero-force-chain")
    assert moves(s, "b3-c3") == {
        "b3-c3x",  # reached c3 with no force left: both annihilated
        "b3-c3>b2", "b3-c3>b3", "b3-c3>c2", "b3-c3>c4", "b3-c3>d3", "b3-c3>d4",  # the 1 struck with 1
        "b3-c3>a1", "b3-c3>a3", "b3-c3>c1", "b3-c3>c5", "b3-c3>e5",  # struck with 2
        "b3-c3>e3x",  # ... and meeting the 2 on e3: annihilated
        "b3-c3>e3*>d2", "b3-c3>e3*>d3", "b3-c3>e3*>e2", "b3-c3>e3*>e4", "b3-c3>e3*>f3", "b3-c3>e3*>f4",
    }
    m = s.parse_move("b3-c3>e3*>f4")
    assert s.describe_move(m) == (
        "White self-emits the 3 on b3: 3 hit 1 at c3, 1 moved 2 to e3 and self-emitted into 2, 2 moved 1 to f4")
    assert s.successor(m).to_dict()["board"] == {"c3": "W3", "e3": "W1", "f4": "W2"}
    gone = play(s, "b3-c3>e3x").to_dict()
    assert gone["board"] == {"c3": "W3"} and sorted(gone["reserves"]["black"]) == [0, 1, 1, 1, 2, 2, 3, 5, 8]


def test_an_opponents_particle_may_not_self_emit_and_a_self_emitter_not_twice():
    # White's 3 strikes Black's 1, which meets Black's 2 with zero force: annihilation only.
    # (White's 1 on f6 leads, so the 3 may step forward onto c3 under rule 6.)
    s = pos({"b3": "W3", "c3": "B1", "e3": "B2", "f6": "W1"})
    assert moves(s, "b3-c3>e3") == {"b3-c3>e3x"}


def test_collision_with_an_annihilator():
    s = doc("annihilator")
    assert moves(s, "c3-") == {
        "c3-a1", "c3-a2", "c3-a3", "c3-b1", "c3-b2", "c3-b3", "c3-b4", "c3-c1", "c3-c2", "c3-c5", "c3-d2", "c3-d3x",
    }
    after = play(s, "c3-d3x").to_dict()
    assert after["board"] == {} and after["reserves"] == {"white": [0, 0, 1, 1, 3, 5, 8], "black": [1, 1, 2, 2, 3, 5, 8]}
    chained = doc("annihilator-chain")
    assert moves(chained, "3@") == {"3@W>c3x"}
    assert chained.describe_move(chained.parse_move("3@W>c3x")).endswith("5 moved 3 to c3 and met Black's annihilator: both annihilated")


def test_force_that_cannot_be_passed_on_is_lost():
    # The 5 on c2 strikes the 1 on d4 from c3 with 3 left; every line from d4 is blocked
    # within 3 points (b2 behind c3 included), so the force is lost and the 5 stops on c3.
    ring = {"c4": "B1", "e4": "B2", "d5": "B3", "d3": "B5", "e5": "B8", "b2": "B1"}
    s = pos({"c2": "W5", "d4": "W1", **ring})
    assert "c2-c3!d4" in moves(s)
    m = s.parse_move("c2-c3!d4")
    after = s.successor(m).to_dict()["board"]
    assert after["c3"] == "W5" and after["d4"] == "W1" and "c2" not in after
    assert s.describe_move(m).endswith("5 stopped at c3 against 1 at d4: force lost")


def test_introduction_onto_a_particle_that_cannot_move_is_not_a_turn():
    s = pos({"W": "W5", "a1": "W1", "b2": "W2"})
    assert moves(s, "3@") == set() and moves(s, "8@") == set()


# -- scoring ------------------------------------------------------------------------------------


def test_scoring_at_blacks_point_of_emergence():
    s = doc("score-at-black")
    m = s.parse_move("d4-f6>B")
    assert s.describe_move(m) == (
        "White self-emits the 5 on d4: 5 hit 3 at f6, 3 moved 2 to Black's point of emergence: annihilated, +3 White")
    after = s.successor(m)
    assert after.scores() == {"white": 3, "black": 0}
    assert after.to_dict()["board"] == {"f6": "W5"} and after.to_dict()["reserves"]["black"].count(3) == 2


def test_scoring_at_whites_point_of_emergence():
    s = doc("score-at-white")
    after = play(s, "d4-b2>W")
    assert after.scores() == {"white": 0, "black": 3} and after.to_move == "white"


def test_meeting_an_opponents_particle_on_the_point_of_emergence_scores_both():
    s = doc("meeting-at-black")
    # The 3 meets Black's 1 on B with zero force; it cannot self-emit into it (the 1 could
    # only go back to f6, where the 5 now stands): both annihilated, 3 + 1 for White.
    assert moves(s, "d4-f6>B") == {"d4-f6>Bx"}
    after = play(s, "d4-f6>Bx")
    assert after.scores() == {"white": 4, "black": 0}
    assert "both annihilated, +4 White" in s.describe_move(s.parse_move("d4-f6>Bx"))


def test_own_particles_annihilated_on_own_point_of_emergence_score_for_the_opponent():
    # Rule 7 is literal: whatever is annihilated on Black's point of emergence scores for White.
    s = pos({"B": "B1", "g7": "B1"}, "black")
    assert "g7-Bx" in moves(s)
    assert play(s, "g7-Bx").scores() == {"white": 2, "black": 0}


def test_reaching_the_target_ends_the_game_and_both_reaching_it_compares_totals():
    s = pos({"d4": "W5", "f6": "W3"}, scores={"white": 18, "black": 0})
    after = play(s, "d4-f6>B")
    assert after.is_game_over() and after.outcome().winner == "white" and after.outcome().scores["white"] == 21
    assert after.legal_moves() == ()
    assert GAME.from_dict(after.to_dict()) == after
    draw = GAME.from_dict({"game": "annihilation", "to_move": "black", "board": {}, "phase": "over",
                           "scores": {"white": 21, "black": 21}, "winner": None})
    assert draw.outcome().winner is None and "draw" in draw.outcome().reason
    higher = GAME.from_dict({"game": "annihilation", "to_move": "black", "board": {}, "phase": "over",
                             "scores": {"white": 20, "black": 23}, "winner": "black"})
    assert higher.outcome().winner == "black" and "higher total" in higher.outcome().reason
    low = GAME.start({"target": "3"})
    assert low.target == 3


# -- rule 6 ---------------------------------------------------------------------------------------


def test_rule6_lone_carrier_never_steps_towards_the_opponent():
    s = doc("rule6-lone")
    assert moves(s, "d4-") == {"d4-c3", "d4-c4", "d4-d3", "d4-d5", "d4-e4"}  # not e5


def test_rule6_circling_behind_another_carrier():
    s = doc("rule6-circling")
    # b3 and c2 need a forward step after the 2 has stepped behind the 1 on e2
    # (b2-a2-b3, b2-b1-c2); c3 stays forbidden (it is the forward step from b2 itself).
    assert moves(s, "b2-") == {"b2-W", "b2-a1", "b2-a2", "b2-a3", "b2-b1", "b2-b3", "b2-b4", "b2-c1", "b2-c2", "b2-d2"}


def _naive_ends(state, start):
    """Every end of a rest-ending self-emission by plain enumeration of all walks."""
    geo = _geometry()
    board = state.to_dict()["board"]
    mine = board[start][0]
    opp_pe = "B" if mine == "W" else "W"
    dist = geo.dist["black" if mine == "W" else "white"]
    others = [dist[geo.index[p]] for p, t in board.items() if t[0] == mine and t[1] != "0" and p != start]
    lead = min(others, default=10 ** 6)
    ends = set()

    def walk(cur, left, seen):
        for v in geo.adj[geo.index[cur]]:
            v = geo.ids[v]
            if v in seen or (v in board and v != start):
                continue
            if dist[geo.index[cur]] <= lead and dist[geo.index[v]] < dist[geo.index[cur]]:
                continue
            if left == 1:
                ends.add(v)
            else:
                walk(v, left - 1, seen | {v})

    walk(start, int(board[start][1]), {start})
    return {e for e in ends if e != opp_pe}


@pytest.mark.parametrize("seed", range(6))
def test_engine_agrees_with_a_naive_walk_enumerator(seed):
    import random

    rng = random.Random(seed)
    s = GAME.start()
    for _ in range(rng.randint(8, 30)):
        if s.is_game_over():
            break
        ms = s.legal_moves()
        emits = [m for m in ms if m.kind == "emit"]
        s = s.apply(rng.choice(emits if emits and rng.random() < 0.6 else ms))
    if s.is_game_over():
        return
    board = s.to_dict()["board"]
    mine = "W" if s.to_move == "white" else "B"
    for p, t in board.items():
        if t[0] == mine and t[1] != "0" and p in CENTRAL:
            engine = {m[len(p) + 1:] for m in moves(s, f"{p}-") if m[len(p) + 1:] in board.keys() | set(CENTRAL) | {"W", "B"}
                      and m[len(p) + 1:] not in board}
            assert engine == _naive_ends(s, p), (s.to_dict(), p)


# -- notation, sensing, persistence -----------------------------------------------------------------


def test_notation_errors():
    s = doc("score-at-black")
    with pytest.raises(MoveSyntaxError):
        s.parse_move("d4-f6>>B")
    with pytest.raises(MoveSyntaxError):
        s.parse_move("0@W")
    with pytest.raises(IllegalMoveError):
        s.parse_move("0@f6")  # f6 is occupied
    assert s.parse_move(" d4-f6>B ") == s.parse_move("d4-f6>B")


def test_occupancy_cannot_tell_an_annihilation_on_the_point_of_emergence():
    # Black's 8 meeting the 3 on B (+11 White) and Black's 8 knocking the 5 onto the 3 on B
    # (+8 White) leave boards that occupancy cannot tell apart.
    s = pos({"B": "B3", "e5": "B5", "c3": "B8", "a2": "W1"}, "black")
    groups = {}
    for m in s.legal_moves():
        groups.setdefault(s.successor(m).view(Fidelity.OCCUPANCY), set()).add(s.successor(m).score)
    assert any(len(scores) > 1 for scores in groups.values())


def test_same_board_with_different_scores_is_ambiguous():
    s = pos({"B": "B3", "e5": "B5", "c3": "B8", "a2": "W1"}, "black")
    outcomes = {}
    for m in s.legal_moves():
        outcomes.setdefault(s.successor(m).view(Fidelity.OCCUPANCY), []).append(s.successor(m))
    view, states = next((v, st) for v, st in outcomes.items() if len({x.score for x in st}) > 1)
    e = explain(s, view, Fidelity.OCCUPANCY)
    assert e.verdict is Verdict.AMBIGUOUS and len({c.state.score for c in e.candidates}) > 1


def test_partial_turn_lists_what_is_still_to_be_done():
    s = doc("score-at-black")
    after = play(s, "d4-f6>B")
    # The 5 is on f6, the 3 already taken off, but not yet put (flipped) in Black's reserve.
    board = {k: v for k, v in after.view(Fidelity.KIND).items() if k != "ex_black"}
    board["ex_black"] = s.view(Fidelity.KIND)["ex_black"]
    e = explain(s, View({**board, "ex_black": ()}), Fidelity.KIND)
    assert e.verdict is Verdict.PARTIAL
    assert any(f.space == "ex_black" and "B3" in f.expected for f in e.pending)


def test_bad_positions_are_refused_with_a_reason():
    with pytest.raises(InvalidStateError, match="point of emergence"):
        pos({"B": "W3"})
    with pytest.raises(InvalidStateError, match="annihilator"):
        pos({"W": "W0"})
    with pytest.raises(InvalidStateError, match="14 particles"):
        pos({"d4": "W5"}, reserves={"white": [], "black": []})
    with pytest.raises(InvalidStateError, match="phase"):
        pos({}, scores={"white": 25, "black": 0}, phase="play")
    with pytest.raises(InvalidStateError, match="no point"):
        pos({"z9": "W1"})


def test_round_trip_and_identity_reads_as_kind():
    s = play(doc("zero-force-chain"), "b3-c3>e3*>f4")
    assert GAME.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert s.view(Fidelity.IDENTITY) == s.view(Fidelity.KIND)
