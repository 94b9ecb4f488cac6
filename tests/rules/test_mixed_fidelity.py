"""Mixed fidelity (issue 16 item 1): a view read at kind or identity fidelity may hold
OCCUPIED at a space — one piece seen there, not named. The history and the legal moves say
what it must be; the referee accepts, asks or refuses exactly as for a fully named board."""

from __future__ import annotations

import pytest

from rules import MORE, OCCUPIED, Fidelity, Verdict, View, explain, get_game
from decisions import Confirm, StableView, Undo
from tableref.journal import Journal
from tableref.referee import Referee

GYGES = get_game("gyges")
START = GYGES.default_setup()  # South to move; rings 1 2 3 3 2 1 on a1..f1 and a6..f6


def unnamed(view: View, *spaces: str) -> View:
    """``view`` with ``spaces`` read as OCCUPIED (something there, not named)."""
    return View({**view.to_dict(), **{s: [OCCUPIED] for s in spaces}})


def seen_after(*texts: str, unnamed_at: tuple[str, ...] = (), state=START) -> View:
    for t in texts:
        state = state.apply_text(t)
    return unnamed(state.view(Fidelity.KIND), *unnamed_at)


# -- the view's comparison -------------------------------------------------------------------

@pytest.mark.parametrize("seen, ok", [
    ((OCCUPIED,), True),                   # one piece, not named
    (("2",), True),                        # named right
    (("1",), False),                       # named wrong
    ((OCCUPIED, OCCUPIED), False),         # two pieces seen where one stands
    ((MORE, OCCUPIED), True),              # at least one
])
def test_an_unnamed_piece_stands_for_exactly_one_token(seen, ok):
    assert View({"b1": "2", "a1": "1"}).matches(View({"b1": seen, "a1": "1"})) is ok


def test_unnamed_never_matches_an_empty_space_and_counts_beside_named_tokens():
    assert not View({}).matches(View({"c3": OCCUPIED}))
    assert not View({}).matches(View({"c3": (OCCUPIED, MORE)}))
    pair = View({"O5": ("copper", "red-I")})
    assert pair.matches(View({"O5": ("copper", OCCUPIED)}))
    assert not pair.matches(View({"O5": ("gold", OCCUPIED)}))
    assert not pair.matches(View({"O5": (OCCUPIED,)}))  # one seen, two there: not the same count
    assert pair.matches(View({"O5": (OCCUPIED, MORE)}))


def test_resolved_names_only_what_the_expected_view_accounts_for():
    seen = View({"a1": OCCUPIED, "a2": OCCUPIED, "b1": "2"})
    got = seen.resolved(View({"a1": "1", "b1": "2"}))
    assert got == View({"a1": "1", "a2": OCCUPIED, "b1": "2"})  # a2: nothing expected, left as read
    assert seen.unnamed == {"a1", "a2"} and seen.fuzzy == {"a1", "a2"} and not seen.piles


# -- explain -------------------------------------------------------------------------------------

def test_history_names_the_piece_a_ring_that_left_and_one_that_appeared():
    e = explain(START, seen_after("a1-a2", unnamed_at=("a2",)))
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "a1-a2"
    assert e.candidates[0].state == START.apply_text("a1-a2")


def test_several_readings_of_the_unnamed_pieces_are_ambiguous_with_the_choices():
    # The 1 moved to a2, or it bumped the 2 on b1 to a2: with b1 and a2 unnamed both fit.
    e = explain(START, seen_after("a1-b1/a2", unnamed_at=("a2", "b1")))
    assert e.verdict is Verdict.AMBIGUOUS
    assert {c.text for c in e.candidates} == {"a1-a2", "a1-b1/a2"}
    # Named, the same board is one move.
    assert explain(START, seen_after("a1-b1/a2")).candidates[0].text == "a1-b1/a2"


def test_an_unnamed_piece_no_legal_move_can_put_there_is_illegal_with_what_to_restore():
    # North's ring gone from a6 (South is to move) and something unnamed on c4.
    gone = View({s: t for s, t in START.view(Fidelity.KIND).items() if s != "a6"})
    e = explain(START, unnamed(gone, "c4"))
    assert e.verdict is Verdict.ILLEGAL
    assert [(f.space, f.expected, f.observed) for f in e.restore] == [("a6", ("1",), ()), ("c4", (), (OCCUPIED,))]
    # Alone, an unnamed ring on c4 may be a bump under way (the bumped ring still in a hand).
    assert explain(START, unnamed(START.view(Fidelity.KIND), "c4")).verdict is Verdict.PARTIAL
    two = View({**START.view(Fidelity.KIND).to_dict(), "b1": [OCCUPIED, OCCUPIED]})
    assert [f.space for f in explain(START, two).restore] == ["b1"]


def test_unnamed_where_the_position_has_a_piece_is_no_change():
    assert explain(START, unnamed(START.view(Fidelity.KIND), "a1", "c1", "f6")).verdict is Verdict.UNCHANGED


def test_a_piece_lifted_with_its_neighbour_unnamed_is_partial_not_a_move():
    seen = unnamed(View({s: t for s, t in START.view(Fidelity.KIND).items() if s != "c1"}), "b1", "d1")
    assert explain(START, seen).verdict is Verdict.PARTIAL


@pytest.mark.parametrize("fidelity", [Fidelity.KIND, Fidelity.IDENTITY], ids=lambda f: f.value)
def test_every_game_names_an_unnamed_destination_from_history(fidelity):
    """In each game, a move whose new piece is read unnamed is still explained, and any
    unique accept is the true position."""
    from vision.simulated.sessions import scripted_game

    for game in ("anacund", "annelids", "annihilation", "drift", "gyges"):
        start, moves = scripted_game(game, 11, 12)
        state, legal = start, 0
        for m in moves:
            succ = state.successor(m)
            after = succ.view(fidelity)
            seen = after.to_dict()
            for s in state.view(fidelity).diff(after):  # each token that arrived: seen, not named
                old = list(state.view(fidelity).get_tokens(s))
                seen[s] = [t if t in old and not old.remove(t) else OCCUPIED for t in after.get_tokens(s)]
            e = explain(state, View(seen), fidelity)
            assert e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS, Verdict.UNCHANGED), (game, state.move_text(m))
            if e.verdict is Verdict.LEGAL:
                assert e.candidates[0].state == succ, (game, state.move_text(m))
                legal += 1
            elif e.verdict is Verdict.AMBIGUOUS:
                assert any(c.state == succ for c in e.candidates)
            state = succ
        assert legal > 0, game


# -- the referee ---------------------------------------------------------------------------------

@pytest.fixture
def referee(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=START)
        yield ref, journal


def test_referee_accepts_a_mixed_view_it_can_explain_and_journals_the_named_move(referee):
    ref, journal = referee
    out = ref.handle(StableView(seen_after("a1-a2", unnamed_at=("a2", "c1", "f6"))))
    assert [d.kind for d in out] == ["accepted"] and out[0].move == "a1-a2"
    assert journal.load(ref.record.id).moves == ["a1-a2"]


def test_referee_asks_when_the_unnamed_pieces_allow_two_moves_and_confirm_settles_it(referee):
    ref, journal = referee
    out = ref.handle(StableView(seen_after("a1-b1/a2", unnamed_at=("a2", "b1"))))
    assert [d.kind for d in out] == ["ambiguous"]
    bump = next(c for c in out[0].choices if c.text == "a1-b1/a2")
    assert [d.kind for d in ref.handle(Confirm(bump.number))] == ["accepted"]
    assert journal.load(ref.record.id).moves == ["a1-b1/a2"]


def test_referee_refuses_an_unexplained_mixed_view_with_what_to_put_back(referee):
    ref, _ = referee
    gone = View({s: t for s, t in START.view(Fidelity.KIND).items() if s != "a6"})
    out = ref.handle(StableView(unnamed(gone, "c4", "a1")))
    assert [d.kind for d in out] == ["illegal"] and [f.space for f in out[0].restore] == ["a6", "c4"]
    assert ref.ply == 0


def test_the_earlier_position_read_with_unnamed_pieces_is_a_takeback(referee):
    ref, _ = referee
    ref.handle(StableView(seen_after("a1-a2")))
    out = ref.handle(StableView(unnamed(START.view(Fidelity.KIND), "a1", "b1")))
    assert [d.kind for d in out] == ["taken_back"] and ref.ply == 0


def test_after_undo_only_the_spaces_truly_wrong_are_to_be_put_back(referee):
    ref, _ = referee
    ref.handle(StableView(seen_after("a1-a2", unnamed_at=("a2", "c1", "d1"))))
    out = ref.handle(Undo())
    illegal = [d for d in out if d.kind == "illegal"]
    assert illegal and sorted(f.space for f in illegal[0].restore) == ["a1", "a2"]
