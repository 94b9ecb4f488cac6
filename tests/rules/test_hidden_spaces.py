"""Hidden spaces (issue 24 item 3): a space a piece in front hides from the camera is read
HIDDEN — anything, or nothing, may be there. It never blocks a move made elsewhere, and a move
that changes it is never accepted (nor is any other way the board may have come about): a piece
carried there and one still in a player's hand look alike, so it is awaited until seen."""

from __future__ import annotations

import random

import pytest

from rules import HIDDEN, Fidelity, Verdict, View, explain, get_game

GYGES = get_game("gyges")
START = GYGES.default_setup()  # South to move; rings 1 2 3 3 2 1 on a1..f1 and a6..f6


def hide(view: View, *spaces: str) -> View:
    return View({**view.to_dict(), **{s: [HIDDEN] for s in spaces}})


def test_a_hidden_space_stands_for_anything_nothing_included():
    assert View({"b1": "2"}).matches(View({"b1": HIDDEN}))
    assert View({}).matches(View({"b1": HIDDEN}))
    assert View({"O5": ("copper", "red-I")}).matches(View({"O5": HIDDEN}))
    seen = View({"b1": HIDDEN, "a1": "1"})
    assert seen.hidden == {"b1"} and "b1" in seen.fuzzy
    assert seen.resolved(View({"a1": "1"})) == View({"a1": "1"})  # resolved to empty
    assert seen.at_fidelity(Fidelity.OCCUPANCY).get_tokens("b1") == (HIDDEN,)


def test_a_move_elsewhere_is_accepted_with_an_untouched_space_hidden():
    after = START.apply_text("a1-a2").view(Fidelity.KIND)
    e = explain(START, hide(after, "e6", "f1"))
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "a1-a2"
    assert explain(START, hide(START.view(Fidelity.KIND), "c1", "d4")).verdict is Verdict.UNCHANGED


def test_a_move_onto_a_hidden_space_is_awaited_never_accepted():
    # The 1 from a1 to a2 with a2 hidden: a1 empty is also a ring lifted and still in the hand.
    after = START.apply_text("a1-a2").view(Fidelity.KIND)
    e = explain(START, hide(after, "a2"))
    assert e.verdict is Verdict.PARTIAL
    assert "a1-a2" in {c.text for c in e.candidates}
    # Shown, the same move is accepted.
    assert explain(START, after).verdict is Verdict.LEGAL


def test_nothing_is_accepted_when_another_explanation_changes_the_hidden_space():
    # The 1 on a1 bounced off b1's 2 to a2 (a1-b1/a2): a1 empty, a 2 on a2, a 1 on b1. With b1
    # hidden, the moves that fit all change b1: nothing is accepted while it stays hidden.
    after = START.apply_text("a1-b1/a2").view(Fidelity.KIND)
    e = explain(START, hide(after, "b1"))
    assert e.verdict in (Verdict.PARTIAL, Verdict.ILLEGAL)
    assert e.verdict is not Verdict.LEGAL


@pytest.mark.parametrize("game", ["anacund", "annelids", "annihilation", "drift", "gyges"])
def test_every_game_hidden_spaces_never_give_a_wrong_accept(game):
    """Random playouts: each legal move seen with random spaces hidden. A move that changes no
    hidden space is explained as that position (or ambiguously with it); a move that changes
    one is never accepted."""
    from vision.simulated.sessions import scripted_game

    rng = random.Random(5)
    start, moves = scripted_game(game, 7, 14)
    state, accepted, awaited = start, 0, 0
    for m in moves:
        succ = state.successor(m)
        before, after = state.view(Fidelity.KIND), succ.view(Fidelity.KIND)
        spaces = sorted(state.board.space_ids) if hasattr(state, "board") else sorted(set(before) | set(after))
        changed = before.diff(after)
        for touch in (False, True):
            pool = [s for s in spaces if (s in changed) == touch]
            if not pool:
                continue
            hidden = set(rng.sample(pool, min(len(pool), 1 if touch else 3)))
            e = explain(state, hide(after, *hidden))
            if touch:
                assert e.verdict not in (Verdict.LEGAL, Verdict.AMBIGUOUS), (game, state.move_text(m), hidden)
                awaited += 1
            else:
                assert e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS, Verdict.PARTIAL), (game, state.move_text(m))
                if e.verdict is Verdict.LEGAL:
                    assert e.candidates[0].state == succ, (game, state.move_text(m), hidden)
                    accepted += 1
                elif e.verdict is Verdict.AMBIGUOUS:
                    assert any(c.state == succ for c in e.candidates)
        state = succ
    assert accepted > 0 and awaited > 0, game


# -- the referee ---------------------------------------------------------------------------------

@pytest.fixture
def referee(tmp_path):
    from tableref.journal import Journal
    from tableref.referee import Referee

    with Journal(tmp_path / "j.sqlite3") as journal:
        yield Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=START), journal


def test_referee_accepts_a_move_beside_a_hidden_space_and_waits_on_one_into_it(referee):
    from decisions import StableView

    ref, journal = referee
    out = ref.handle(StableView(hide(START.apply_text("a1-a2").view(Fidelity.KIND), "f1")))
    assert [d.kind for d in out] == ["accepted"] and journal.load(ref.record.id).moves == ["a1-a2"]
    after = ref.record.states[-1]
    # North's ring from a6 to a5, a5 hidden behind something: never accepted unasked (the ring
    # may still be in a hand); the players are asked, and nothing is journalled until they say.
    out = ref.handle(StableView(hide(after.apply_text("a6-a5").view(Fidelity.KIND), "a5")))
    assert [d.kind for d in out] == ["ambiguous"] and [c.text for c in out[0].choices] == ["a6-a5"]
    assert journal.load(ref.record.id).moves == ["a1-a2"]
    # Seen, it is accepted.
    assert [d.kind for d in ref.handle(StableView(after.apply_text("a6-a5").view(Fidelity.KIND)))] == ["accepted"]


def test_players_confirm_a_move_onto_a_hidden_space(referee):
    from decisions import Confirm, StableView

    ref, journal = referee
    ref.handle(StableView(START.apply_text("a1-a2").view(Fidelity.KIND)))
    after = ref.record.states[-1]
    out = ref.handle(StableView(hide(after.apply_text("a6-a5").view(Fidelity.KIND), "a5")))
    assert [d.kind for d in ref.handle(Confirm(out[0].choices[0].number))] == ["accepted"]
    assert journal.load(ref.record.id).moves == ["a1-a2", "a6-a5"]


def test_an_earlier_position_is_no_takeback_where_the_takeback_would_change_a_hidden_space(referee):
    from decisions import StableView

    ref, _ = referee
    ref.handle(StableView(START.apply_text("a1-a2").view(Fidelity.KIND)))
    # The start again, but a2 (where the ring stands now) hidden: it may still be there.
    out = ref.handle(StableView(hide(START.view(Fidelity.KIND), "a2")))
    assert "taken_back" not in [d.kind for d in out] and ref.ply == 1
    assert [d.kind for d in ref.handle(StableView(START.view(Fidelity.KIND)))] == ["taken_back"]
