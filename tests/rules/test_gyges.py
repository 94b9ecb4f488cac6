"""Gygès: exact successor sets on hand-built positions, one test per ruling in docs/rules/gyges.md."""

from __future__ import annotations

import pytest

from rules import (
    Fidelity,
    IllegalMoveError,
    InvalidStateError,
    MoveSyntaxError,
    Verdict,
    explain,
    get_game,
)

GAME = get_game("gyges")
GRID = [f"{c}{r}" for r in range(1, 7) for c in "abcdef"]


def pos(rings, to_move="south", **extra):
    return GAME.from_dict({"game": "gyges", "to_move": to_move, "rings": rings, "winner": None, **extra})


def moves(state):
    return {state.move_text(m) for m in state.legal_moves()}


def test_start_is_setup_with_36_placements():
    s = GAME.start()
    assert s.phase == "setup"
    assert len(s.legal_moves()) == 2 * 6 * 3  # two starting lines, six spaces, three heights


def test_setup_counts_and_hand_over_to_south():
    s = GAME.start()
    for text in ["1@a1", "1@b1", "2@c1", "2@d1", "3@e1"]:
        s = s.apply_text(text)
    # South has used both singles and both doubles: only a triple may go on f1.
    assert {t for t in moves(s) if t.endswith("1") and "@" in t} == {"3@f1"}
    with pytest.raises(IllegalMoveError):
        s.apply_text("1@f1")
    for text in ["3@f1", "1@a6", "1@b6", "2@c6", "2@d6", "3@e6", "3@f6"]:
        s = s.apply_text(text)
    assert s.phase == "play" and s.to_move == "south"
    assert s == GAME.from_dict({**s.to_dict()})


def test_default_setup_and_its_successor_count():
    s = GAME.default_setup()
    assert s.view(Fidelity.KIND).to_dict()["c1"] == ["3"]
    # Perft-style: 230 distinct outcomes for South's first move from the default setup.
    assert len(s.legal_moves()) == 230
    assert all(m.start[1] == "1" for m in s.legal_moves())


def test_single_ring_moves_one_step_from_the_nearest_row():
    # Ruling 1: only the nearest non-empty row plays; the a6 ring is not South's to move.
    assert moves(pos({"c3": 1, "a6": 1})) == {"c3-b3", "c3-d3", "c3-c2", "c3-c4"}


def test_double_ring_never_reuses_a_connector_nor_ends_on_its_start():
    # Ruling 2: exactly two steps, no connector twice: every end is two steps away.
    assert moves(pos({"c3": 2, "a6": 1})) == {
        "c3-a3", "c3-e3", "c3-c1", "c3-c5", "c3-b2", "c3-b4", "c3-d2", "c3-d4",
    }


def test_throne_capture_and_own_throne_never_entered():
    # Ruling 3: the opponent's throne is entered as a segment's last step and wins.
    assert moves(pos({"c6": 1})) == {"c6-b6", "c6-d6", "c6-c5", "c6-N"}
    # North's own throne is never entered.
    assert moves(pos({"c6": 1}, "north")) == {"c6-b6", "c6-d6", "c6-c5"}


def test_throne_is_not_passed_through_mid_segment():
    # a6→N→f6 would pass through the throne: f6 and b6 are unreachable for a double on a6.
    assert moves(pos({"a6": 2})) == {"a6-a4", "a6-b5", "a6-c6", "a6-N"}


def test_capture_ends_the_game():
    s = pos({"c6": 1}).apply_text("c6-N")
    assert s.is_game_over() and s.outcome().winner == "south"
    assert s.legal_moves() == ()
    assert s.to_dict()["rings"] == {"N": 1}


def test_bounce_and_bump_off_an_occupied_space():
    # Ruling 4: landing on b2 → bounce (a single: one more step) or bump it anywhere allowed.
    plain = {"b1-a1", "b1-c1", "b1-a2", "b1-c2", "b1-b3"}
    bumps = {f"b1-b2/{z}" for z in GRID if z not in ("b2", "f6")}  # the vacated b1 included
    assert moves(pos({"b1": 1, "b2": 1, "f6": 3})) == plain | bumps


def test_bump_may_not_reposition_behind_the_opponents_nearest_row():
    s = pos({"c1": 1, "c2": 2, "d4": 1})
    plain = {"c1-b1", "c1-d1", "c1-a2", "c1-b3", "c1-e2", "c1-d3", "c1-c4"}
    bumps = {f"c1-c2/{z}" for z in GRID if int(z[1]) <= 4 and z not in ("c2", "d4")}
    assert moves(s) == plain | bumps
    with pytest.raises(IllegalMoveError):
        s.apply_text("c1-c2/c5")  # row 5 is behind North's nearest row (4)
    after = s.apply_text("c1-c2/c1")
    assert after.to_dict()["rings"] == {"c1": 2, "c2": 1, "d4": 1}


def test_bounce_chain_reaches_the_throne():
    # a1 lands on a2 (double) → bounces two → lands on a4 (triple) → three more: a5, a6, N.
    s = pos({"a1": 1, "a2": 2, "a4": 3})
    assert "a1-N" in moves(s)
    # Without the bounce rings, a single on a1 could never get there.
    assert "a1-N" not in moves(pos({"a1": 1, "f4": 3}))


def test_bouncing_off_the_same_ring_twice():
    # c1 (single) lands on c2 (single), bounces one step to b2... but to reach d2 via c2 twice
    # it must bounce off c2 again using a different connector: c1→c2, c2→c3?, etc.
    s = pos({"c1": 1, "c2": 1, "c3": 1, "f6": 1})
    # c1→c2 (land) →c3 (land) →c2? uses c2-c3 twice: illegal. c1→c2 →b2 ends; b2 is reachable.
    texts = moves(s)
    assert "c1-b2" in texts and "c1-c4" in texts and "c1-d3" in texts
    assert "c1-c1" not in texts


def test_blocked_nearest_row_falls_back_to_the_next():
    # Row 1 is all doubles/triples hemmed in by row 2: none can take a first step.
    rings = {"a1": 2, "b1": 2, "c1": 3, "d1": 3, "e1": 2, "f1": 3,
             "a2": 1, "b2": 1, "c2": 2, "d2": 3, "e2": 1, "f2": 1}
    s = pos(rings)
    texts = moves(s)
    assert texts and all(t[1] == "2" for t in texts)
    # North's nearest row is row 2, so a bump can only go back to the vacated start.
    for m in s.legal_moves():
        if m.bump_to:
            assert m.bump_to == m.start
    assert "a2-a1/a2" in texts and "a2-a3" in texts


def test_occupancy_cannot_tell_bump_from_plain_move():
    s = GAME.default_setup()
    plain = s.apply_text("a1-a2")
    e = explain(s, plain.view(Fidelity.OCCUPANCY), Fidelity.OCCUPANCY)
    assert e.verdict is Verdict.AMBIGUOUS
    assert {c.text for c in e.candidates} == {"a1-a2", "a1-b1/a2"}
    # With kind sensing the heights differ and the move is plain.
    e = explain(s, plain.view(Fidelity.KIND), Fidelity.KIND)
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "a1-a2"


def test_same_height_bump_is_the_same_outcome_as_a_plain_move():
    # A single bumping a single to z leaves the same position as moving to z: one outcome.
    s = pos({"b1": 1, "b2": 1, "f6": 3})
    e = explain(s, s.apply_text("b1-b3").view(Fidelity.KIND), Fidelity.KIND)
    assert e.verdict is Verdict.LEGAL
    assert set(e.candidates[0].texts) == {"b1-b3", "b1-b2/b3"}


def test_game_of_kings_reposition_and_extra_turn():
    s = pos({"c6": 1, "a6": 2}, variant="kings", needed={"south": 2, "north": 3})
    s = s.apply_text("c6-N")
    assert s.phase == "reposition" and s.to_move == "north" and not s.is_game_over()
    assert s.scores() == {"south": 1, "north": 0}
    # North repositions the winning ring, not behind South's nearest row (row 6, the a6 ring
    # once the winning ring is lifted): only the empty spaces of row 6.
    assert moves(s) == {"N/b6", "N/c6", "N/d6", "N/e6", "N/f6"}
    s = s.apply_text("N/d6")
    assert s.phase == "play" and s.to_move == "south"  # the winner plays again
    assert s.to_dict()["rings"] == {"a6": 2, "d6": 1}


def test_game_of_kings_needs_the_handicap_count():
    s = pos({"c6": 1, "a6": 2}, variant="kings", captures={"south": 1, "north": 0}, needed={"south": 2, "north": 3})
    s = s.apply_text("c6-N")
    assert s.is_game_over() and s.outcome().winner == "south"


def test_kings_option_from_the_game():
    s = GAME.default_setup({"variant": "kings", "north_captures": "1"})
    assert s.to_dict()["needed"] == {"south": 3, "north": 1}
    with pytest.raises(InvalidStateError):
        GAME.default_setup(["north_captures=2"])  # needs variant=kings
    with pytest.raises(InvalidStateError):
        GAME.start(["speed=fast"])


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"rings": {"z9": 1}}, "no space 'z9'"),
        ({"rings": {"a1": 4}}, "height must be 1, 2 or 3"),
        ({"rings": {f"{c}{r}": 1 for c in "abc" for r in (2, 3)}}, "6 single rings"),
        ({"rings": {"a1": 1}, "to_move": "east"}, "'to_move'"),
        ({"rings": {"a1": 1, "N": 1}}, "throne"),
        ({"rings": "a1"}, "'rings' must be"),
        ({"rings": {"a3": 1}, "phase": "setup"}, "starting lines"),
    ],
)
def test_bad_positions_say_what_is_wrong(bad, words):
    with pytest.raises(InvalidStateError, match="gyges position") as info:
        GAME.from_dict({"game": "gyges", **bad})
    assert words in str(info.value)


def test_notation_errors_are_distinct():
    s = GAME.default_setup()
    with pytest.raises(MoveSyntaxError):
        s.parse_move("a1 to a2")
    with pytest.raises(IllegalMoveError):
        s.parse_move("a1-a5")
    assert s.parse_move("a1-b1/a3").bump_to == "a3"


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"rings": {}}, "no ring on the grid"),
        ({"phase": "setup", "rings": {f"{c}{r}": h for c, h in zip("abcdef", (1, 2, 3, 3, 2, 1)) for r in (1, 6)}},
         "phase is 'play'"),
        ({"rings": {"a1": 1}, "variant": "kings", "captures": {"south": 3, "north": 0}}, "not over"),
        ({"rings": {"a1": 1, "N": 2}, "phase": "reposition", "to_move": "north"}, "only in the 'kings' variant"),
    ],
)
def test_positions_the_engine_could_not_play_are_refused(bad, words):
    with pytest.raises(InvalidStateError) as info:
        GAME.from_dict({"game": "gyges", **bad})
    assert words in str(info.value)


def test_options_given_as_a_mapping_are_checked_like_text():
    with pytest.raises(InvalidStateError):
        GAME.start({"variant": "kings", "south_captures": -3})
    with pytest.raises(InvalidStateError):
        GAME.start({"variant": 5})
    assert GAME.start({"variant": "kings", "south_captures": 2}).to_dict()["needed"]["south"] == 2


def _naive_moves(state):
    """An independent reference: enumerate every path explicitly (no memo, no bitmasks)."""
    board = GAME.board()
    occ = {s: h for s, h in state.to_dict()["rings"].items()}
    player = state.to_move
    own, enemy = ("S", "N") if player == "south" else ("N", "S")
    rows = sorted({int(s[1]) for s in occ}, reverse=player == "north")

    def nearest(rings, who):
        r = [int(s[1]) for s in rings]
        return min(r) if who == "south" else max(r)

    for row in rows:
        found = set()
        for start in [s for s in occ if int(s[1]) == row]:
            h = occ[start]

            def walk(pos, left, used):
                for nb, con in board.neighbours(pos):
                    if con.key in used or nb == own:
                        continue
                    if nb == enemy:
                        if left == 1:
                            found.add(f"{start}-{enemy}")
                        continue
                    full = nb in occ and nb != start
                    if left > 1:
                        if not full:
                            walk(nb, left - 1, used | {con.key})
                    elif not full:
                        if nb != start:
                            found.add(f"{start}-{nb}")
                    else:
                        after = {s: v for s, v in occ.items() if s not in (start, nb)}
                        after[nb] = h
                        limit = nearest(after, "north" if player == "south" else "south")
                        for z in GRID:
                            if z not in after and (int(z[1]) <= limit if player == "south" else int(z[1]) >= limit):
                                found.add(f"{start}-{nb}/{z}")
                        walk(nb, occ[nb], used | {con.key})

            walk(start, h, frozenset())
        if found:
            return found
    return set()


def test_engine_agrees_with_a_naive_path_enumerator():
    import random

    rng = random.Random(5)
    checked = 0
    for game in range(6):
        s = GAME.default_setup()
        while not s.is_game_over() and checked < 60 * (game + 1):
            assert moves(s) == _naive_moves(s), s.to_dict()
            checked += 1
            s = s.successor(rng.choice(s.legal_moves()))
    assert checked >= 100


def test_reach_agrees_with_the_legal_moves_for_either_player():
    """``reach`` (the engine's cheap look at a ring) says what ``legal_moves`` lists: the ends
    of plain moves, the rings landed on (bumps), a throne entry — for the mover, and for the
    other player as if it were its move."""
    import random

    rng = random.Random(5)
    checked = 0
    for _ in range(30):
        s = GAME.default_setup()
        for _ in range(rng.randrange(2, 14)):
            s = s.successor(rng.choice(s.legal_moves()))
            if s.is_game_over():
                break
        if s.is_game_over():
            continue
        for player in ("south", "north"):
            turned = GAME.from_dict({**s.to_dict(), "to_move": player})
            listed = turned.legal_moves()
            for start in {m.start for m in listed}:
                ends, landings, captures = s.reach(start, player)
                mine = [m for m in listed if m.start == start]
                assert ends == {m.end for m in mine if not m.bump_to and m.end not in "NS"}
                assert landings == {m.end for m in mine if m.bump_to}
                assert captures == any(m.end in "NS" for m in mine)
                checked += 1
    assert checked > 100
