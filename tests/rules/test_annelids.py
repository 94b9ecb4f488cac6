"""Annelids: the rulings of docs/rules/annelids.md, each with exact successor sets."""

from __future__ import annotations

import itertools
import json
import runpy
from collections import deque
from pathlib import Path

import pytest

from rules import (
    OCCUPIED,
    AmbiguousMoveError,
    Fidelity,
    IllegalMoveError,
    InvalidStateError,
    MoveSyntaxError,
    Verdict,
    View,
    explain,
    get_game,
    load_board,
)
from rules.games.annelids import START_TAILS, Remove
from rules.games.annelids_geometry import geometry

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules" / "annelids"
GAME = get_game("annelids")
BLUE_ROW = ["b1e", "e1e", "h1e", "k1e", "a4e", "d4e", "g4e", "j4e"]
GREEN_ROW = ["j12e", "g12e", "d12e", "a12e", "k9e", "h9e", "e9e", "b9e"]
PLACEMENTS_FROM_START = {
    "a4e-a4ne", "a4e-b4nw", "b1e-b1ne", "b1e-c1nw", "d4e-d4ne", "d4e-e4nw", "e1e-e1ne", "e1e-f1nw",
    "g4e-g4ne", "g4e-h4nw", "h1e-h1ne", "h1e-i1nw", "j4e-j4ne", "j4e-k4nw", "k1e-k1ne", "k1e-l1nw",
}
BLUE_LEGAL = ["e6nw", "e6n", "e6ne", "f6nw", "f6n", "f6ne", "f6e", "g6sw"]  # 5 before f6ne, 2 after


def doc(name):
    return GAME.from_dict(json.loads((DOCS / f"{name}.json").read_text()))


def texts(state):
    out = [state.move_text(m) for m in state.legal_moves()]
    assert len(out) == len(set(out))
    return set(out)


def worm(tail, colour, heading, segs=()):
    return {"tail": tail, "colour": colour, "heading": heading, "segments": list(segs)}


def position(annelids, to_move="blue", quota=1, placed=0):
    return GAME.from_dict({"game": "annelids", "to_move": to_move, "quota": quota, "placed": placed,
                           "annelids": annelids})


# -- the board ------------------------------------------------------------------------------------


def test_board_file_is_what_the_generator_writes():
    gen = runpy.run_path(str(ROOT / "tools" / "annelids_board.py"))
    assert (ROOT / "rules" / "boards" / "annelids.json").read_text(encoding="utf-8") == gen["render"]()


def test_board_counts_and_vertex_degrees():
    board, geo = load_board("annelids"), geometry()
    assert len(board.spaces) == 888 and len(geo.squares) == 121
    degrees = [len(es) for es in geo.at.values()]
    # 528 interior and rim vertices join three edges, 96 rim corners join two; none joins one.
    assert len(degrees) == 624 and degrees.count(3) == 528 and degrees.count(2) == 96
    for sq, sides in geo.squares.items():
        assert len({v for s in sides for v in geo.ends[s]}) == 4, sq


def test_extending_off_the_board_is_not_a_move():
    # a1w's south end is a rim corner: the only way on is the rim diagonal a1sw.
    s = position([worm("a1w", "blue", "S"), worm("l12e", "green", "N")])
    assert texts(s) == {"a1w-a1sw", "resign"}


# -- the starting layout ------------------------------------------------------------------------------


def _bfs(v):
    geo = geometry()
    dist, todo = {v: 0}, deque([v])
    while todo:
        x = todo.popleft()
        for y in geo.neighbour_vertices(x):
            if y not in dist:
                dist[y] = dist[x] + 1
                todo.append(y)
    return dist


def test_starting_layout_is_half_turn_symmetric():
    assert [t for t, _ in START_TAILS["blue"]] == BLUE_ROW and [t for t, _ in START_TAILS["green"]] == GREEN_ROW
    geo = geometry()
    pts = {e: geo.board.space(e) for e in BLUE_ROW + GREEN_ROW}
    w = geo.board.width_mm
    turned = {(round(w - pts[e].x, 1), round(w - pts[e].y, 1)) for e in BLUE_ROW}
    assert turned == {(round(pts[e].x, 1), round(pts[e].y, 1)) for e in GREEN_ROW}
    assert {h for _, h in START_TAILS["blue"]} == {"N"} and {h for _, h in START_TAILS["green"]} == {"S"}
    view = GAME.start().view(Fidelity.KIND)
    assert view.get_tokens("b1e") == ("blue:N",) and view.get_tokens("j12e") == ("green:S",)


def test_starting_layout_keeps_first_turns_apart():
    """The distance argument of docs/rules/annelids.md: no placement of Blue's first turn (4)
    or Green's first turn (8) can run into another annelid; every tail has a three-way start."""
    geo = geometry()
    tails = {c: [(e, geo.towards(e, h)) for e, h in START_TAILS[c]] for c in START_TAILS}
    flats = {e: v for c in tails for e, v in tails[c]}
    tips = {e: geo.other[(e, v)] for e, v in flats.items()}
    dist = {e: _bfs(v) for e, v in flats.items()}
    for c in tails:
        for (a, _), (b, _) in itertools.permutations(tails[c], 2):
            assert min(dist[a][flats[b]], dist[a][tips[b]]) >= 8, (a, b)
    for (g, _), (b, _) in itertools.product(tails["green"], tails["blue"]):
        assert dist[g][flats[b]] >= 12 and dist[g][tips[b]] >= 8 and dist[b][tips[g]] >= 8, (g, b)
    assert all(len(geo.at[v]) == 3 and len(geo.at[tips[e]]) == 3 for e, v in flats.items())


def test_blue_first_turn_never_meets_anything_exhaustively():
    frontier = {GAME.start()}
    for _ in range(4):
        nxt = set()
        for s in frontier:
            assert not any(isinstance(m, Remove) for m in s.legal_moves())
            nxt.update(s.successor(m) for m in s.legal_moves() if s.move_text(m) != "resign")
        frontier = nxt
    assert all(s.to_move == "green" and s.quota == 8 for s in frontier)


# -- quotas --------------------------------------------------------------------------------------------


def test_first_turn_quota_four_then_eight():
    s = doc("start")
    assert s == GAME.start() and s.quota == 4 and s.placed == 0
    assert texts(s) == PLACEMENTS_FROM_START | {"resign"}
    for t in ("b1e-b1ne", "b1e-b2se", "e1e-f1nw"):
        s = s.apply_text(t)
        assert s.to_move == "blue" and "resign" not in texts(s)
    assert s.left == 1
    s = s.apply_text("a4e-a4ne")
    assert s.to_move == "green" and s.quota == 8 and s.placed == 0
    assert texts(s) == {f"{t}-{e}" for t in GREEN_ROW for e in _two(t)} | {"resign"}


def _two(tail):
    col, row = tail[0], int(tail[1:-1])
    left, right = chr(ord(col)), chr(ord(col) + 1)
    return {f"{left}{row}se", f"{right}{row}sw"}


def test_quota_after_losses():
    s = doc("quota-after-losses")
    assert texts(s) == PLACEMENTS_FROM_START  # the turn's last placement: no resigning mid-turn
    s = s.apply_text("j4e-j4ne")
    assert s.to_move == "green" and s.quota == 3
    assert texts(s) == {f"{t}-{e}" for t in ("j12e", "g12e", "d12e") for e in _two(t)} | {"resign"}


def test_quota_is_set_at_the_start_of_the_turn_and_a_removal_uses_a_placement():
    s = doc("removal-other").apply_text("f6e-x")
    assert s.to_move == "blue" and s.quota == 2 and s.placed == 1
    s = s.apply_text("b2e-b2ne")
    assert s.to_move == "green" and s.quota == 2


# -- removals ----------------------------------------------------------------------------------------------


def test_removal_by_extension_into_another_annelid():
    s = doc("removal-other")
    assert texts(s) == {"b2e-b2ne", "b2e-c2nw", "f6e-g7sw", "f6e-x", "resign"}
    after = s.apply_text("f6e-x")
    assert {"f6e", "g6nw"}.isdisjoint(after.view(Fidelity.KIND))
    assert after.view(Fidelity.KIND).get_tokens("g6n") == ("segment",)  # the one run into stays
    assert s.move_spaces(s.parse_move("f6e-x")) == {"f6e", "g6nw"}
    assert "tail and 1 segment" in s.describe_move(s.parse_move("f6e-x"))


def test_self_removal():
    s = doc("self-removal")
    assert texts(s) == {"c3ne-c3n", "c3ne-x", "j2e-j2ne", "j2e-k2nw", "resign"}
    after = s.apply_text("c3ne-x")
    assert after.outcome() is None and [a.tail for a in after.annelids] == ["g10e", "j2e"]


def test_loss_by_removing_the_last_annelid():
    s = doc("last-annelid")
    assert texts(s) == {"c3ne-c3n", "c3ne-x", "resign"}
    end = s.apply_text("c3ne-x")
    assert end.outcome().winner == "green" and end.outcome().reason == "last annelid removed"
    assert end.legal_moves() == () and end.scores() == {"blue": 0, "green": 1}
    assert GAME.from_dict(json.loads(json.dumps(end.to_dict()))) == end


# -- reconnections -----------------------------------------------------------------------------------------


def test_reconnection_allowed_five_two_against_two_one():
    s = doc("reconnect-legal")
    assert texts(s) == {"d6ne-g5n", "d6ne-g5nw", "~f6g7", "resign"}
    after = s.apply_text("~f6g7")
    blue, green = after.annelid("d6ne"), after.annelid("g6e")
    assert blue.segments == ("e6nw", "e6n", "e6ne", "f6nw", "f6n", "f7se", "f7e")
    assert green.segments == ("g6ne", "g6n", "g6nw", "f6e", "g6sw")
    # Free: the placement is still to make; control follows the tails; not reversible.
    assert after.placed == 0 and after.to_move == "blue"
    assert texts(after) == {"d6ne-f7ne", "d6ne-g7nw", "resign"}
    assert s.move_spaces(s.parse_move("~f6g7")) == {"f6ne", "g6nw", "g7sw", "f7se"}


def test_reconnection_refused_when_it_would_not_bring_lengths_closer():
    assert texts(doc("reconnect-illegal")) == {"d6ne-f6se", "d6ne-g6sw", "resign"}  # 5+1 vs 2+2
    equal = position([worm("e6ne", "blue", "SE", BLUE_LEGAL[3:]), worm("g6e", "green", "N", ["g6ne", "g6n", "g7sw", "f7e"])])
    assert "~f6g7" not in texts(equal)  # 2+2 vs 2+1: equal before the junction


def test_same_direction_passes_are_refused():
    assert texts(doc("same-direction")) == {"d6ne-g5n", "d6ne-g5nw", "resign"}


def test_a_tail_in_the_junction_cannot_be_moved():
    s = position([worm("d6ne", "blue", "SE", BLUE_LEGAL), worm("g7sw", "green", "NW", ["f7e"])])
    assert "~f6g7" not in texts(s)


def test_mixed_colours_either_player_to_move_may_reconnect():
    data = json.loads((DOCS / "reconnect-legal.json").read_text())
    data["to_move"] = "green"
    s = GAME.from_dict(data)
    assert "~f6g7" in texts(s)
    assert s.apply_text("~f6g7").annelid("g6e").segments[2] == "g6nw"


def test_same_colour_only_by_the_owner_on_their_turn():
    pair = [worm("d6ne", "blue", "SE", BLUE_LEGAL), worm("g6e", "blue", "N", ["g6ne", "g6n", "g7sw", "f7e"]),
            worm("a12e", "green", "S")]
    assert "~f6g7" in texts(position(pair, "blue"))
    assert "~f6g7" not in texts(position(pair, "green"))


# -- resignation, notation, views, explain -------------------------------------------------------------------


def test_resignation_at_the_start_of_a_turn():
    end = GAME.start().apply_text("resign")
    assert end.outcome().winner == "green" and end.outcome().reason == "resignation"
    assert end.legal_moves() == ()
    assert end.view(Fidelity.KIND) == GAME.start().view(Fidelity.KIND)


def test_notation():
    s = doc("removal-other")
    assert s.parse_move("g7sw") == s.parse_move("f6e-g7sw")  # a bare edge when only one annelid fits
    with pytest.raises(MoveSyntaxError):
        s.parse_move("f6e->g7sw")
    with pytest.raises(IllegalMoveError):
        s.parse_move("b2e-x")  # nothing to run into
    with pytest.raises(IllegalMoveError):
        s.parse_move("~c3d4")
    # Two heads at one vertex: a bare edge is ambiguous.
    two = position([worm("f6e", "blue", "N"), worm("f6ne", "blue", "SE"), worm("a12e", "green", "S")], quota=2)
    assert texts(two) == {"f6e-g6nw", "f6ne-g6nw", "f6e-x", "f6ne-x", "resign"}
    with pytest.raises(AmbiguousMoveError):
        two.parse_move("g6nw")


def test_views_tails_read_colour_and_heading_segments_alike():
    s = doc("removal-other")
    kind = s.view(Fidelity.KIND)
    assert kind.get_tokens("f6e") == ("blue:N",) and kind.get_tokens("g6nw") == ("segment",)
    assert kind.get_tokens("g6n") == ("segment",) and s.view(Fidelity.IDENTITY) == kind
    assert set(s.view(Fidelity.OCCUPANCY).values()) == {(OCCUPIED,)}


@pytest.mark.parametrize("fidelity", [Fidelity.OCCUPANCY, Fidelity.KIND])
def test_explain_recognises_a_reconnection(fidelity):
    s = doc("reconnect-legal")
    e = explain(s, s.apply_text("~f6g7").view(fidelity), fidelity)
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "~f6g7"


@pytest.mark.parametrize("fidelity", [Fidelity.OCCUPANCY, Fidelity.KIND])
def test_a_removal_half_done_is_partial_with_what_remains_pending(fidelity):
    s = doc("removal-other")
    half = View({k: v for k, v in s.view(fidelity).items() if k != "g6nw"})
    e = explain(s, half, fidelity)
    assert e.verdict is Verdict.PARTIAL and [c.text for c in e.candidates] == ["f6e-x"]
    assert [(f.space, f.expected) for f in e.pending] == [("f6e", ())]
    done = View({k: v for k, v in half.items() if k != "f6e"})
    assert explain(s, done, fidelity).verdict is Verdict.LEGAL


# -- position files ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("data, words", [
    ({"annelids": [worm("b1e", "blue", "E"), worm("a12e", "green", "S")]}, "points N or S"),
    ({"annelids": [worm("b1e", "blue", "N", ["c3n"]), worm("a12e", "green", "S")]}, "does not continue"),
    ({"annelids": [worm("b1e", "blue", "N", ["b1ne"]), worm("b1ne", "green", "SE")]}, "already taken"),
    ({"annelids": [worm("b1e", "blue", "N")]}, "green has no annelid"),
    ({"annelids": [worm("b1e", "blue", "N"), worm("a12e", "green", "S")], "quota": 2, "placed": 2}, "'placed'"),
    ({"annelids": [worm("z9e", "blue", "N")]}, "'tail'"),
])
def test_bad_positions_say_what_is_wrong(data, words):
    with pytest.raises(InvalidStateError, match=words):
        GAME.from_dict({"game": "annelids", **data})


def test_every_documented_position_round_trips():
    for path in sorted(DOCS.glob("*.json")):
        data = json.loads(path.read_text())
        assert GAME.from_dict(data).to_dict() == data, path.name


def test_is_taken_names_tails_and_segments_only():
    s = doc("removal-other")
    for a in s.annelids:
        assert s.is_taken(a.tail)
        assert all(s.is_taken(e) for e in a.segments)
    # the free edges a head can grow onto are not taken; the one run into is
    assert not s.is_taken("b2ne") and not s.is_taken("c2nw")
    assert s.is_taken("g6n")
