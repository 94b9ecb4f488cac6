"""Piles: a sensor that sees only the top of a pile (DRIFT's home) reads it as its top token(s)
and MORE; the referee matches that against what the rules say lies there."""

import json
from pathlib import Path

import pytest

from rules import MORE, OCCUPIED, Fidelity, Verdict, View, explain, get_game

HOME = ("red-I", "red-II", "red-III")


@pytest.mark.parametrize("seen, ok", [
    (("red-III", MORE), True),              # the top, more beneath
    (("red-I", "red-II", MORE), True),      # two on top side by side
    (("red-I", "red-II", "red-III", MORE), True),  # all of them, and "maybe more" (none)
    (("blue-I", MORE), False),              # a piece that is not there
    (("red-I", "red-I", MORE), False),      # counts matter: one red-I only
])
def test_a_pile_matches_only_what_can_lie_in_it(seen, ok):
    assert View({"O0": HOME, "O1": "copper"}).matches(View({"O0": seen, "O1": "copper"})) is ok


def test_an_empty_space_is_no_pile_and_other_spaces_must_be_equal():
    assert not View({}).matches(View({"O0": ("red-I", MORE)}))
    assert not View({"O0": HOME}).matches(View({"O0": ("red-I", MORE), "O5": "copper"}))
    assert View({"O0": HOME}).matches(View({"O0": HOME}))  # no pile: plain equality
    assert not View({"O0": HOME}).matches(View({"O0": ("red-III",)}))  # read as one piece: wrong


def test_resolved_fills_in_only_the_piles_the_expected_view_accounts_for():
    seen = View({"O0": ("red-III", MORE), "O8": ("blue-I", MORE), "O5": "copper"})
    expected = View({"O0": HOME, "O8": ("red-I",)})
    got = seen.resolved(expected)
    assert got["O0"] == HOME and got["O8"] == ("blue-I", MORE) and got["O5"] == ("copper",)
    assert seen.piles == {"O0", "O8"} and View({"O5": "copper"}).resolved(expected) == View({"O5": "copper"})


def test_occupancy_keeps_the_pile_mark():
    assert View({"O0": ("red-III", MORE)}).at_fidelity(Fidelity.OCCUPANCY)["O0"] == (MORE, OCCUPIED)


def _piled(view: View, homes=("O0", "O8", "O16")) -> View:
    """What a camera reads of ``view``: each home's top (its last token) and MORE."""
    return View({s: ((t[-1], MORE) if s in homes and t else t) for s, t in view.items()})


def test_drift_start_with_piled_homes_is_unchanged_and_a_placement_is_legal():
    start = get_game("drift").start()
    assert explain(start, _piled(start.view(Fidelity.KIND))).verdict is Verdict.UNCHANGED
    after = start.successor(start.parse_move("copper O5"))
    e = explain(start, _piled(after.view(Fidelity.KIND)))
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "copper O5"


def test_a_foreign_top_on_a_home_is_illegal_with_the_home_to_put_right():
    start = get_game("drift").start()
    seen = View({**_piled(start.view(Fidelity.KIND)).to_dict(), "O0": ["blue-I", MORE]})
    e = explain(start, seen)
    assert e.verdict is Verdict.ILLEGAL and [f.space for f in e.restore] == ["O0"]


# Red's home crowded and barred (docs/rules/drift/exodus-barred.json): Red ends the turn removing
# its II and a I (under the pile's top: unseen) and Blue moves: one board change, two moves.
# (Before issue 21 this was played from the start with Red moving its II first, stranding its
# IIIs; that order is no longer a legal move.)
BARRED = Path(__file__).resolve().parents[2] / "docs" / "rules" / "drift" / "exodus-barred.json"


def test_a_move_inside_a_pile_is_found_with_the_next_move_seen():
    game = get_game("drift")
    state = game.from_dict(json.loads(BARRED.read_text()))
    ended = state.successor(state.parse_move("end remove red-II-1 red-I-1"))
    after = ended.successor(ended.parse_move("blue-III-1 O1-O2"))
    # Alone, the removal is not seen (the pile's top is as the rules allow)...
    removal_only = _piled(ended.view(Fidelity.KIND))
    assert removal_only["O0"] == (MORE, "red-I") and explain(state, removal_only).verdict is Verdict.UNCHANGED
    # ... and with Blue's move it is found as the first of two.
    e = explain(state, _piled(after.view(Fidelity.KIND)))
    assert e.verdict is Verdict.LEGAL, e
    assert e.candidates[0].state.view(Fidelity.KIND) == after.view(Fidelity.KIND)
    assert len(e.candidates[0].moves) == 2 and e.candidates[0].text.startswith("end remove red-II-1")
