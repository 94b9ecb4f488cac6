"""rules/teach.py: where a lifted piece may go, for all five games (issue 31, items 1 and 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import Fidelity, View, get_game
from rules import teach
from rules.games.drift_moves import ATTACK, STEP
from rules.games.drift_geometry import geometry
from rules.games.gyges import RingMove

DRIFT_DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "drift"


def lifted(state, space, fidelity=Fidelity.KIND, token=None):
    """The current position's view with one piece (``token``, or the last) off ``space``."""
    spaces = dict(state.view(fidelity))
    toks = list(spaces[space])
    toks.remove(token if token is not None else toks[-1])
    spaces[space] = toks
    return View(spaces)


def gyges(rings, player="south"):
    return get_game("gyges").from_dict({"game": "gyges", "rings": rings, "to_move": player})


# -- Gygès ------------------------------------------------------------------------------------------


def test_gyges_lift_lights_exactly_the_ends_of_the_rings_legal_moves():
    state = get_game("gyges").default_setup()
    for space in ("a1", "b1", "c1", "d1", "e1", "f1"):
        found = teach.destinations(state, lifted(state, space), Fidelity.KIND)
        ends = {m.end for m in state.legal_moves() if isinstance(m, RingMove) and m.start == space}
        assert found is not None and set(found.destinations) == ends and ends
        assert found.space == space and found.to_move == "south" and found.side is None
        assert {state.move_text(m) for m in found.moves} == {
            state.move_text(m) for m in state.legal_moves() if m.start == space}


def test_gyges_a_ring_landing_on_one_of_its_height_ends_there_not_where_the_bumped_one_goes():
    # a double on c1 lands on the double on c3 and may bump it on: the positions read it as a
    # ring gone straight to the bumped one's new space; the move ends on c3.
    state = gyges({"c1": 2, "c3": 2, "a6": 1, "f6": 3})
    found = teach.destinations(state, lifted(state, "c1"), Fidelity.KIND)
    assert "c3" in found.destinations
    assert set(found.destinations) == {m.end for m in state.legal_moves() if m.start == "c1"}
    assert ("c3", "bounce") in found.marks  # it may bounce off it too: shown differently


def test_gyges_a_ring_of_a_row_that_cannot_move_has_nowhere_to_go():
    state = get_game("gyges").default_setup()
    found = teach.destinations(state, lifted(state, "c6"), Fidelity.KIND)  # north's ring, south to move
    assert found is not None and found.destinations == () and not found.movable


def test_gyges_occupancy_board_names_the_ring_from_the_position():
    state = get_game("gyges").default_setup()
    found = teach.destinations(state, lifted(state, "c1", Fidelity.OCCUPANCY), Fidelity.OCCUPANCY)
    assert found.piece == "occupied"
    assert set(found.destinations) == {m.end for m in state.legal_moves() if m.start == "c1"}


def test_not_a_lift_is_none():
    state = get_game("gyges").default_setup()
    view = dict(state.view(Fidelity.KIND))
    assert teach.destinations(state, View(view), Fidelity.KIND) is None  # unchanged
    view["a2"] = view.pop("a1")  # a move made, not a piece in the hand
    assert teach.destinations(state, View(view), Fidelity.KIND) is None
    both = lifted(state, "a1")
    both = View({s: t for s, t in both.items() if s != "b1"})  # two pieces lifted
    assert teach.destinations(state, both, Fidelity.KIND) is None


# -- DRIFT --------------------------------------------------------------------------------------------


def test_drift_lift_lights_its_steps_and_attacks_and_marks_the_attacks():
    state = get_game("drift").from_dict(json.loads((DRIFT_DOCS / "land-and-river-support.json").read_text()))
    ids = geometry().ids
    piece = state.roster.index["blue-II-1"]
    space = ids[state.locs[piece]]
    found = teach.destinations(state, lifted(state, space, token="blue-II"), Fidelity.KIND)
    mine = [m for m in state.legal_moves() if m.piece == piece and m.kind in (STEP, ATTACK)]
    assert set(found.destinations) == {ids[m.space] for m in mine}
    attacks = {ids[m.space] for m in mine if m.kind == ATTACK}
    assert attacks and set(dict(found.marks)) == attacks and set(dict(found.marks).values()) == {"attack"}
    assert found.side == "blue" == found.to_move


def test_drift_a_piece_of_the_wrong_player_says_whose_it_is():
    state = get_game("drift").default_setup()  # red to move
    found = teach.destinations(state, lifted(state, "O8"), Fidelity.KIND)
    assert found.destinations == () and found.side == "blue" and found.to_move == "red" and found.wrong_player


def test_drift_lift_from_home_pile_counts_the_piece_lifted_only():
    state = get_game("drift").default_setup()
    found = teach.destinations(state, lifted(state, "O0", token="red-III"), Fidelity.KIND)
    assert {state.roster.kind[m.piece] for m in found.moves} == {"red-III"} and found.destinations
    first = teach.destinations(state, lifted(state, "O0", token="red-I"), Fidelity.KIND)
    assert first.destinations == () and not first.wrong_player  # rank III moves first (D3)


# -- placements ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["anacund", "annelids", "annihilation"])
def test_placements_are_where_a_piece_from_off_the_board_may_go(game):
    state = get_game(game).default_setup()
    found = teach.placements(state)
    assert found.destinations and found.moves
    after = {s for m in found.moves for s in state.move_spaces(m)}
    assert set(found.destinations) <= after


def test_annihilation_emergence_lifts_from_the_ex_nihilo_zone():
    state = get_game("annihilation").default_setup()
    found = teach.destinations(state, lifted(state, "ex_white", token="W5"), Fidelity.KIND)
    assert found.destinations == ("W",) and found.side == "white"
    assert all(state.move_text(m).startswith("5@W") for m in found.moves)
    black = teach.destinations(state, lifted(state, "ex_black", token="B5"), Fidelity.KIND)
    assert black.destinations == () and black.wrong_player


def test_piece_moves_for_a_space_named_on_the_page():
    state = get_game("gyges").default_setup()
    shown = teach.piece_moves(state, "a1")
    assert set(shown.destinations) == {m.end for m in state.legal_moves() if m.start == "a1"}
    assert shown.to_dict(state)["moves"][0] == state.move_text(shown.moves[0])
