"""Anacund: exact successor sets on hand-built positions, one test per ruling in docs/rules/anacund.md."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rules import (
    AmbiguousMoveError,
    Fidelity,
    IllegalMoveError,
    InvalidStateError,
    MoveSyntaxError,
    Verdict,
    View,
    explain,
    get_game,
)
from rules.games.anacund import Capture, Place
from rules.games.anacund_track import DEFAULT_SLATS, DEFAULT_TRACK, parse_track

GAME = get_game("anacund")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "anacund"
TEACH = "123456*" + "123456" * 5  # square n is numbered ((n - 1) % 6) + 1; bonus t6


def doc(name):
    return GAME.from_dict(json.loads((DOCS / f"{name}.json").read_text(encoding="utf-8")))


def pos(pieces, groups, track=TEACH, **extra):
    return GAME.from_dict({"game": "anacund", "track": track, "groups": groups, "pieces": pieces, **extra})


def moves(state):
    return {state.move_text(m) for m in state.legal_moves()}


def play(state, *texts):
    for t in texts:
        state = state.apply_text(t)
    return state


# -- the track (R1) -----------------------------------------------------------------------------


def test_default_track_read_from_its_slats():
    # Slats 421 | 21 16 24 31 31 53 1*3 45 43 65 45 56 65 24 62 | 632, read clockwise from the
    # top-left square: tops left to right, right end down, bottoms right to left, left end up.
    assert DEFAULT_TRACK == "2123351*44645626632245655353311461124"
    assert parse_track(DEFAULT_SLATS) == DEFAULT_TRACK
    assert parse_track(DEFAULT_TRACK) == DEFAULT_TRACK
    s = GAME.start()
    assert s.track.bonus == 7 and s.to_dict()["track"] == DEFAULT_TRACK
    assert GAME.default_setup() == s


@pytest.mark.parametrize("text, message", [
    ("123456" * 6, "no bonus square"),
    ("1*23456*" + "123456" * 5, "2 bonus squares"),
    ("123456*" + "123456" * 4, "30 squares"),
    ("123456*" + "123456" * 4 + "123455", "5 appears 7 times, 6 appears 5 times"),
    ("123457*" + "123456" * 5, "numbered 1 to 6, not 7"),
    ("12345x*" + "123456" * 5, "unexpected 'x'"),
    ("421-21-16-24", "4 slats"),
    ("42-21-16-24-31-31-53-1*3-45-43-65-45-56-65-24-62-6321", "slat 1 ('42') has 2 squares"),
    ("421-213-6-24-31-31-53-1*3-45-43-65-45-56-65-24-62-632", "slat 2 ('213') has 3 squares"),
    ("", "empty track"),
])
def test_track_validation_errors(text, message):
    with pytest.raises(InvalidStateError) as err:
        GAME.start({"track": text})
    assert message in str(err.value) and "option track=" in str(err.value)
    with pytest.raises(InvalidStateError, match="'track'"):
        GAME.from_dict({"game": "anacund", "track": text or " ", "groups": {"A": [6] * 3, "B": [6] * 3}})


def test_shape_option():
    assert GAME.start({"shape": "line"}).track.loop is False
    with pytest.raises(InvalidStateError, match="loop, line"):
        GAME.start({"shape": "circle"})


# -- placing (R2, R3) ----------------------------------------------------------------------------


def test_start_places_on_the_sixes_three_per_turn():
    s = GAME.start({"track": TEACH})
    assert moves(s) == {"t6", "t12", "t18", "t24", "t30", "t36"}
    s = play(s, "t6")
    assert s.to_move == "A" and s.placed_this_turn() == 1
    # Groups 5, 6, 6: a 5 or a 6.
    assert moves(s) == {"t5", "t11", "t17", "t23", "t29", "t35", "t12", "t18", "t24", "t30", "t36"}
    s = play(s, "t12", "t11")
    assert s.to_move == "B" and s.to_dict()["groups"] == {"A": [6, 5, 4], "B": [6, 6, 6]}
    s = play(s, "t18", "t24", "t23")
    assert s.to_move == "A"


def test_group_size_placement():
    assert moves(doc("group-size")) == {"t12", "t24", "t36", "t5", "t17", "t29", "t35",
                                        "t4", "t10", "t22", "t28", "t34"}


def test_fallback_when_no_square_of_that_number_is_free():
    s = doc("fallback")
    free = [n for n in range(1, 37) if n % 6 != 0]
    assert moves(s) == {f"t{n}/6" for n in free} | {"t3", "t9", "t15", "t21", "t27", "t33"}
    assert s.parse_move("t3") == Place(3, 3) and s.parse_move("t3/6") == Place(3, 6)
    assert s.parse_move("t1") == Place(1, 6)  # only the group of 6 can reach t1
    with pytest.raises(IllegalMoveError, match="no group of 5"):
        s.parse_move("t1/5")
    # The board cannot show which group the piece came from: the referee must ask.
    e = explain(s, s.apply_text("t3").view(Fidelity.KIND), Fidelity.KIND)
    assert e.verdict is Verdict.AMBIGUOUS and {c.text for c in e.candidates} == {"t3", "t3/6"}


def test_fallback_from_two_groups_is_an_ambiguous_notation():
    # All sixes and fives are taken; A holds a group of 6, of 5 and of 1.
    s = pos({"t5": "A", "t6": "A", "t11": "A", "t12": "A", "t17": "A", "t18": "A",
             "t23": "B", "t24": "B", "t29": "B", "t30": "B", "t35": "B", "t36": "B"},
            {"A": [6, 5, 1], "B": [4, 4, 4]})
    with pytest.raises(AmbiguousMoveError) as err:
        s.parse_move("t2")
    assert set(err.value.candidates) == {"t2/6", "t2/5"}
    assert s.parse_move("t1") == Place(1, 1)


def test_fallback_never_arises_from_the_start():
    # Each group places exactly one piece on each number and each number has six squares, so
    # a free square of the group's number always remains unless a past error took one.
    for seed in range(20):
        rng, s = random.Random(seed), GAME.start()
        while not s.is_game_over():
            ms = s.legal_moves()
            assert all(isinstance(m, Capture) or m.group == s.track.number(m.square) for m in ms)
            s = s.apply(rng.choice(ms))
        assert s.outcome().reason == "B has placed its last series of 3"


# -- capturing (R4-R7) ---------------------------------------------------------------------------


def test_double_capture():
    s = doc("double-capture")
    assert moves(s) == {"t1", "t5", "t12x11,13", "t16", "t25", "t35"}
    after = s.apply_text("t12")
    assert after.view(Fidelity.KIND).to_dict() == {
        "t10": ["A"], "t12": ["A"], "t14": ["A"], "t30": ["A"], "t20": ["B"], "s11": ["A"], "s13": ["A"]}
    assert s.move_spaces(s.parse_move("t12")) == {"t12", "t11", "s11", "t13", "s13"}
    assert after.scores() == {"A": 6, "B": 1}


def test_conqueror_exception():
    s = doc("conqueror")
    assert moves(s) == {"t1", "t5", "t11x10", "t16", "t25", "t35"}
    after = s.apply_text("t11x10")
    assert after.to_dict()["pieces"]["t11"] == "A" and after.to_dict()["pieces"]["s10"] == "A"
    assert after.phase == "play" and after.to_move == "A"


def test_suicide_placement_is_captured_at_once():
    s = doc("suicide")
    assert moves(s) == {"t1", "t5", "t11", "t16", "t25", "t35"}
    placed = s.apply_text("t11")
    assert placed.phase == "capture" and placed.to_move == "B"
    assert moves(placed) == {"x11,12"}
    assert GAME.from_dict(placed.to_dict()) == placed and placed.to_dict()["landlocked"] == [11, 12]
    done = placed.apply_text("x11,12")
    assert done.to_move == "A" and done.placed_this_turn() == 1
    kind = done.view(Fidelity.KIND)
    assert "t11" not in kind and "t12" not in kind and kind["s11"] == ("B",) and kind["s12"] == ("B",)
    assert not any(m.split("/")[0].split("x")[0] in ("t11", "t12") for m in moves(done))
    with pytest.raises(IllegalMoveError, match="landlocked run t11, t12 must be captured first"):
        placed.parse_move("t1")


def test_dead_squares_break_runs():
    s = doc("dead-squares")
    assert moves(s) == {"t13", "t16", "t18", "t23", "t27", "t36"}
    assert s.apply_text("t23").phase == "play"  # t22 is dead: the run t23-t24 is not landlocked
    with pytest.raises(IllegalMoveError, match="t11 is dead"):
        s.parse_move("t11/6")


def test_loop_wraps_and_line_has_ends():
    assert moves(doc("loop-wrap")) == {"t2x1,36", "t5", "t12", "t18", "t25", "t30"}
    assert moves(doc("line-ends")) == {"t2", "t5", "t12", "t18", "t25", "t30"}
    after = doc("loop-wrap").apply_text("t2")
    assert {"s1", "s36"} <= set(after.view(Fidelity.KIND))


def test_runs_on_an_open_line_stop_at_the_ends():
    # t1 B, t2 A placed: on the loop t36 A closes t1; on a line t1 touches the end.
    pieces = {"t36": "A", "t1": "B", "t12": "A", "t18": "A", "t24": "B", "t30": "B"}
    groups = {"A": [5, 5, 5], "B": [5, 5, 5]}
    track = "15*2346" + "123456" * 5  # t2 is a 5
    assert parse_track(track)
    loop = pos(pieces, groups, track=track)
    line = pos(pieces, groups, track=track, shape="line")
    assert "t2x1" in moves(loop) and "t2" in moves(line)


# -- scoring (R8) ---------------------------------------------------------------------------------


FINAL = "AAaBBb" * 6  # every square filled: runs of two, each bounded by a dead square


def final(bonus):
    digits = "123456" * 6
    track = digits[:bonus] + "*" + digits[bonus:]
    pieces = {}
    for i, c in enumerate(FINAL, start=1):
        pieces[f"t{i}" if c.isupper() else f"s{i}"] = c.upper()
    return pos(pieces, {"A": [0, 0, 0], "B": [0, 0, 0]}, track=track)


@pytest.mark.parametrize("bonus, scores, winner", [
    (1, {"A": 23, "B": 18}, "A"),  # a piece of A on the bonus square
    (3, {"A": 23, "B": 18}, "A"),  # a piece captured by A lies beside it
    (4, {"A": 18, "B": 23}, "B"),
    (6, {"A": 18, "B": 23}, "B"),  # a piece captured by B lies beside it
])
def test_scores_count_pieces_on_and_beside_the_squares_and_the_bonus(bonus, scores, winner):
    s = final(bonus)
    assert s.is_game_over() and s.legal_moves() == ()
    o = s.outcome()
    assert dict(o.scores) == scores and o.winner == winner
    assert o.reason == "B has placed its last series of 3"


def test_equal_scores_are_a_draw(monkeypatch):
    # With all 36 pieces down the points total 36 + 5 = 41, so a finished game cannot tie;
    # the rule is still applied as written.
    s = final(1)
    assert sum(s.scores().values()) == 41
    monkeypatch.setattr(type(s), "scores", lambda self: {"A": 20, "B": 20})
    assert s.outcome().winner is None


# -- notation, views, positions -------------------------------------------------------------------


@pytest.mark.parametrize("text, error", [
    ("zz", MoveSyntaxError), ("t37", MoveSyntaxError), ("t0", MoveSyntaxError), ("12", MoveSyntaxError),
    ("t10", IllegalMoveError), ("t2", IllegalMoveError), ("t12x11", IllegalMoveError), ("x10", IllegalMoveError),
    ("t12/4", IllegalMoveError),
])
def test_notation_errors(text, error):
    s = doc("double-capture")  # t10 is occupied, t2 is no 5, t12 captures 11 and 13, A holds only 5s
    with pytest.raises(error):
        s.parse_move(text)


def test_notation_round_trip_and_descriptions():
    s = doc("double-capture")
    m = s.parse_move("T12X11,13")
    assert s.move_text(m) == "t12x11,13"
    assert "captures B's t11, t13" in s.describe_move(m) and "s11, s13" in s.describe_move(m)
    placed = doc("suicide").apply_text("t11")
    assert "landlocked t11, t12" in placed.describe_move(placed.legal_moves()[0])


def test_views_at_every_fidelity():
    after = doc("double-capture").apply_text("t12")
    occ = after.view(Fidelity.OCCUPANCY)
    assert set(occ) == set(after.view(Fidelity.KIND)) and occ["s11"] == ("occupied",)
    assert after.view(Fidelity.IDENTITY) == after.view(Fidelity.KIND)


@pytest.mark.parametrize("fidelity", list(Fidelity), ids=lambda f: f.value)
def test_capture_is_partial_until_done_and_a_wrong_piece_is_illegal(fidelity):
    s = doc("double-capture")
    after = s.apply_text("t12")
    board = s.view(Fidelity.KIND).to_dict()
    board["t12"] = ["A"]
    placed = View(board)
    e = explain(s, placed, fidelity)
    assert e.verdict is Verdict.PARTIAL and [c.text for c in e.candidates] == ["t12x11,13"]
    assert {f.space for f in e.pending} == {"t11", "s11", "t13", "s13"}
    half = View({k: v for k, v in placed.items() if k != "t11"})
    assert explain(s, half, fidelity).verdict is Verdict.PARTIAL
    wrong = View({k: v for k, v in placed.items() if k != "t20"})  # B's t20 is not captured
    e = explain(s, wrong, fidelity)
    assert e.verdict is Verdict.ILLEGAL
    assert {(f.space, f.expected) for f in e.restore} == {
        ("t20", s.view(fidelity)["t20"]), ("t12", ())}
    e = explain(s, after.view(fidelity), fidelity)
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "t12x11,13"


def test_suicide_placement_and_its_capture_in_one_go_are_understood():
    s = doc("suicide")
    done = play(s, "t11", "x11,12")
    e = explain(s, done.view(Fidelity.KIND), Fidelity.KIND)
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "t11 x11,12"


def test_positions_round_trip():
    for f in sorted(DOCS.glob("*.json")):
        s = doc(f.stem)
        assert GAME.from_dict(json.loads(json.dumps(s.to_dict()))) == s


GROUPS = {"A": [5, 5, 5], "B": [5, 5, 5]}
BASE = {"t6": "A", "t18": "A", "t30": "A", "t12": "B", "t24": "B", "t36": "B"}


@pytest.mark.parametrize("change, message", [
    ({"groups": {"A": [5, 5, 5]}}, "missing key 'groups.B'"),
    ({"groups": {"A": [5, 5, 7], "B": [5, 5, 5]}}, "'groups' must be"),
    ({"pieces": {**BASE, "t40": "A"}}, "no space 't40'"),
    ({"pieces": {**BASE, "t1": "C"}}, "colour must be 'A' or 'B'"),
    ({"pieces": {**BASE, "t1": "A", "s1": "B"}}, "is dead and stays empty"),
    ({"pieces": {**BASE, "t1": "A"}}, "A has placed 3, but 4 are on the track"),
    ({"groups": {"A": [5, 5, 5], "B": [5, 5, 4]}, "pieces": {**BASE, "t1": "B"}},
     "after 7 placements A has placed 4 and B 3"),
    ({"groups": {"A": [5, 5, 4], "B": [6, 6, 6]}, "pieces": {"t6": "A", "t18": "A", "t30": "A", "t5": "A"}},
     "after 4 placements A has placed 3 and B 1"),
    ({"pieces": {"t6": "A", "t7": "B", "t8": "A", "t30": "A", "t24": "B", "t36": "B"}}, "the run t7 has"),
    ({"to_move": "B"}, "'to_move' is 'B'"),
    ({"phase": "over"}, "'phase' is 'over'"),
    ({"landlocked": [6]}, "must be pieces of B"),
    ({"landlocked": [12]}, "not a whole run"),
    ({"rings": {}}, "unknown key 'rings'"),
    ({"shape": "circle"}, "'shape' must be"),
])
def test_position_validation(change, message):
    data = {"game": "anacund", "track": TEACH, "groups": GROUPS, "pieces": BASE, **change}
    with pytest.raises(InvalidStateError, match=message.replace("(", r"\(").replace(")", r"\)")):
        GAME.from_dict(data)
