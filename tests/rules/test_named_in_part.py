"""A piece named in part (``kind:?``, rules/view.py): an Annelids tail whose colour the camera
sees plainly and whose dark cap — its heading — it does not. It stands for one token that
begins with its kind: history gives the rest (a tail never moves nor turns), and its colour
keeps a segment or the other player's tail from passing for it, as OCCUPIED would not."""

from __future__ import annotations

import pytest

from rules import OCCUPIED, Fidelity, Verdict, View, explain, get_game, in_part, named_in_part, why_not
from vision.simulated.sessions import scripted_game

ANNELIDS = get_game("annelids")


def tails_in_part(view: View) -> View:
    """``view`` with every tail's heading unseen: ``blue:N`` read ``blue:?``."""
    return View({s: [in_part(t.split(":")[0]) if ":" in t else t for t in toks] for s, toks in view.items()})


@pytest.mark.parametrize("seen, ok", [
    (("blue:?",), True),       # the colour seen, the heading not
    (("blue:N",), True),
    (("blue:S",), False),      # the heading seen wrong
    (("green:?",), False),     # the other player's tail
    (("segment",), False),
    ((OCCUPIED,), True),       # seen, not named at all
    (("blue:?", "blue:?"), False),  # two where one stands
])
def test_a_token_named_in_part_stands_for_exactly_one_token_it_begins(seen, ok):
    assert View({"e9e": "blue:N", "e9s": "segment"}).matches(View({"e9e": seen, "e9s": "segment"})) is ok


def test_in_part_never_matches_an_empty_space_nor_a_segment_and_counts_beside_named_tokens():
    assert named_in_part("blue:?") == "blue:" and named_in_part("blue:N") is None and named_in_part(OCCUPIED) is None
    assert not View({}).matches(View({"e9e": "blue:?"}))
    assert not View({"e9e": "segment"}).matches(View({"e9e": "blue:?"}))
    pair = View({"O5": ("blue:N", "blue:S")})
    assert pair.matches(View({"O5": ("blue:N", "blue:?")}))
    assert not pair.matches(View({"O5": ("blue:N", "blue:N")}))
    assert not pair.matches(View({"O5": ("blue:?",)}))
    seen = View({"e9e": "blue:?", "e9s": "segment"})
    assert seen.in_part == {"e9e"} and seen.fuzzy == {"e9e"} and not seen.unnamed
    assert seen.at_fidelity(Fidelity.OCCUPANCY) == View({"e9e": OCCUPIED, "e9s": OCCUPIED})
    assert seen.resolved(View({"e9e": "blue:N"})) == View({"e9e": "blue:N", "e9s": "segment"})


def test_every_move_of_whole_games_is_explained_with_every_tail_named_in_part():
    """Scripted Annelids games, every position read with no tail's heading seen: each move is
    accepted as played (or, where two positions fit, offered among them), never another."""
    accepted = 0
    for seed in (3, 11, 19):
        state, moves = scripted_game("annelids", seed, 24)
        for m in moves:
            succ = state.successor(m)
            e = explain(state, tails_in_part(succ.view(Fidelity.KIND)))
            assert e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS), (seed, state.move_text(m), e.verdict)
            if e.verdict is Verdict.LEGAL:
                assert e.candidates[0].state == succ, (seed, state.move_text(m))
                accepted += 1
            else:
                assert any(c.state == succ for c in e.candidates)
            assert explain(succ, tails_in_part(succ.view(Fidelity.KIND))).verdict is Verdict.UNCHANGED
            state = succ
    assert accepted >= 60


def test_a_tail_put_down_where_a_segment_belongs_is_not_taken_for_the_segment():
    """A player lays a spare blue tail where their annelid would grow. Read whole, or in part,
    it is not the segment the move puts there; read OCCUPIED (nothing of it named) it would be."""
    state, moves = scripted_game("annelids", 3, 1)
    grow = next(m for m in state.legal_moves() if type(m).__name__ == "Place")
    succ = state.successor(grow)
    (edge,) = state.view(Fidelity.KIND).diff(succ.view(Fidelity.KIND))
    board = succ.view(Fidelity.KIND).to_dict()
    colour = state.to_move
    for read, verdict in ((f"{colour}:N", Verdict.ILLEGAL), (in_part(colour), Verdict.ILLEGAL),
                          (OCCUPIED, Verdict.LEGAL)):
        e = explain(state, View({**board, edge: [read]}))
        assert e.verdict is verdict, (read, e.verdict)
    assert why_not(state, View({**board, edge: [in_part(colour)]})).attempt is None  # which tail: unsure
