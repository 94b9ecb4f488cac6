"""DRIFT rulings settled against the rule text in issue 21 (docs/rules/drift.md D4, D5, D6, D19):
the exodus is lost only to barred spaces, never to the order pieces moved in; the exodus is owed
by the pieces in the home when the turn began; no moving along a river; a wrong drift puts back
only the wrong river."""

from __future__ import annotations

import json
import random

import pytest

from rules import Fidelity, InvalidStateError, SpaceFix, Verdict, View, explain
from rules.games.drift_exodus import exodus
from rules.games.drift_geometry import geometry

from test_drift import DOCS, GAME, doc, play, position, texts


def moving(state, piece):
    return {t for t in texts(state) if t.startswith(piece + " ")}


# -- D5: the order of moves never costs the exodus -------------------------------------------------


def test_d5_a_i_moved_first_would_strand_the_iii_and_ii_so_it_is_refused():
    st = doc("exodus-open")  # Red III-1, II-1, I-1 in O0, every way out free
    assert not moving(st, "red-I-1") and "end" not in texts(st)
    # The II may go first: the III may stay (the player's choice), and the I must then leave.
    ii = play(st, "red-II-1 O0-O2")
    assert moving(ii, "red-I-1") and not moving(ii, "red-III-1") and "end" not in texts(ii)
    done = play(ii, "red-I-1 O0-O1")
    assert "end" in texts(done)  # the III alone at home: nothing removed
    assert play(done, "end").to_dict()["pieces"]["red-III-1"] == "O0"
    # In rank order, nothing is refused.
    iii = play(st, "red-III-1 O0-O3")
    assert moving(iii, "red-II-1") and moving(iii, "red-I-1")


def test_d5_from_the_default_setup_only_a_iii_may_open_and_the_exodus_removes_nothing():
    st = GAME.default_setup()
    assert {t.split()[0] for t in texts(st)} == {"red-III-1", "red-III-2"}  # five of six must leave
    for move in ("red-III-1 O0-O3", "red-III-2 O0-O21", "red-II-1 O0-O2"):
        # A I now would strand a II (or more) that can leave: one piece may stay, not two.
        assert "end" not in texts(st) and not any(t.startswith("red-I-") for t in texts(st))
        st = play(st, move)
    assert "red-I-1 O0-O1" in texts(st)  # the other II may stay home
    st = play(st, "red-II-2 O0-O22")
    assert "end" not in texts(st) and "red-I-1 O0-O1" in texts(st)
    st = play(st, "red-I-1 O0-O1")
    assert "end" in texts(st)
    after = play(st, "end").to_dict()
    assert len([p for p in after["pieces"] if p.startswith("red")]) == 6 and after["to_move"] == "blue"


def barred_home(free):
    """exodus-barred (Red II-1, I-1, I-2 in O0, Blue on every neighbour, no attack wins) with
    the Blue piece on ``free`` taken off."""
    data = json.loads((DOCS / "exodus-barred.json").read_text())
    data["pieces"] = {k: v for k, v in data["pieces"].items() if v != free}
    return GAME.from_dict(data)


def test_d5_removal_only_when_the_ways_out_are_really_barred():
    st = barred_home("MR0")  # one way out, an arrow: whoever takes it blocks it
    assert exodus(st) == 1
    assert texts(st) == {"red-II-1 O0-MR0", "red-I-1 O0-MR0", "red-I-2 O0-MR0"}
    after = play(st, "red-II-1 O0-MR0")  # the Is cannot leave any more: one goes, one stays
    assert texts(after) == {"end remove red-I-1", "end remove red-I-2"}
    first_i = play(st, "red-I-1 O0-MR0")  # the II is stranded by rank, but it could not leave anyway
    assert texts(first_i) == {"end remove red-II-1"}


THREE = [{"colour": "red", "home": "circle"}, {"colour": "blue", "home": "square"},
         {"colour": "green", "home": "hexagon"}]


def test_d5_one_land_way_out_leads_on_and_a_pause_on_it_strands_nobody():
    # Red II-1, I-1, I-2 in O0; every neighbour but O1 held 4 or more against Red's 2+1+1.
    st = position({"red-II-1": "O0", "red-I-1": "O0", "red-I-2": "O0",
                   "blue-III-1": "OR0", "blue-I-1": "I0", "blue-III-2": "MR0", "blue-I-2": "M0",
                   "blue-II-1": "O23", "blue-II-2": "OR23", "green-III-1": "MR17", "green-I-1": "M17"},
                  to_move="red", players=THREE)
    assert exodus(st) == 2  # the II through O1 and on, then a I onto O1
    assert texts(st) == {"red-II-1 O0-O1", "red-II-1 O0-O2", "red-II-1 O0-OR1", "red-II-1 O0-MR1"}
    paused = play(st, "red-II-1 O0-O1")  # a hand pausing on O1: the II may still go on
    assert texts(paused) == {"red-II-1 O1-O2", "red-II-1 O1-OR1", "red-II-1 O1-MR1"}
    on = play(paused, "red-II-1 O1-O2")
    assert texts(on) == {"red-I-1 O0-O1", "red-I-2 O0-O1"}  # one position whichever I (D20)
    assert texts(play(on, "red-I-1 O0-O1")) >= {"end"}


def crowded_positions(count, seed=21):
    """Random positions from play, with 2-4 of the mover's pieces moved into its home as its
    turn begins, then some of its turn played."""
    rng = random.Random(seed)
    out = []
    st = GAME.default_setup({"players": "red:circle,blue:square,green:hexagon"})
    while len(out) < count:
        if st.is_game_over() or st.phase != "play":
            st = st.apply(rng.choice(st.legal_moves())) if not st.is_game_over() else \
                GAME.default_setup({"players": "red:circle,blue:square,green:hexagon"})
            continue
        data = st.to_dict()
        home = geometry().ids[st.home_list[st.seat]]
        mine = [p for p in data["pieces"] if p.startswith(st.to_move + "-")]
        if not any(v == home and not k.startswith(st.to_move + "-") for k, v in data["pieces"].items()):
            for pid in rng.sample(mine, min(len(mine), rng.randrange(2, 5))):
                data["pieces"][pid] = home
                data["carrying"].pop(pid, None)
            for pid, coin in st.to_dict()["carrying"].items():
                if pid not in data["carrying"]:  # a carrier moved home: its coin lies there
                    data["coins"].setdefault(home, []).append(coin)
            data["turn"] = {"moved": [], "current": None, "points": 0}
            crowded = GAME.from_dict(data)
            for _ in range(rng.randrange(0, 4)):
                own = [m for m in crowded.legal_moves() if not m.after_end and m.kind != "end"]
                if not own:
                    break
                crowded = crowded.successor(rng.choice(own))
            out.append(crowded)
        for _ in range(rng.randrange(1, 12)):
            if st.is_game_over():
                break
            st = st.apply(rng.choice(st.legal_moves()))
    return out


def test_d5_the_refusal_is_exactly_the_loss_of_pieces_that_could_leave():
    """While the home is crowded, a piece move is refused exactly when fewer of the crowd could
    leave after it than before (the generator's shortcuts agree with the definition)."""
    from rules.games.drift_moves import piece_moves

    refused = kept = 0
    for st in crowded_positions(120):
        can = exodus(st)
        legal = {m for m in st.legal_moves() if not m.after_end}
        for m in piece_moves(st._with(crowd=frozenset())):  # the same moves, no exodus filter
            ok = exodus(st.successor(m)) >= can
            assert (m in legal) == ok, st.move_text(m)
            refused += not ok
            kept += ok
    assert refused > 20 and kept > 200


# -- D4: the exodus is owed by the pieces in the home when the turn began --------------------------


def test_d4_pieces_sent_home_during_the_turn_owe_no_exodus():
    st = doc("exodus-evicted")  # Red II-1 alone in O0; Red I-1 in Blue's home O8
    assert "end" in texts(st)
    after = play(st, "red-III-1 O4xO6")  # Blue II-1 goes home to O8: Red I-1 is evicted to O0
    assert after.to_dict()["pieces"]["red-I-1"] == after.to_dict()["pieces"]["red-II-1"] == "O0"
    assert "end" in texts(after) and after.to_dict()["turn"]["crowded"] == []
    again = GAME.from_dict(json.loads(json.dumps(after.to_dict())))
    assert again == after and "end" in texts(again)
    # Red's next turn begins with two pieces at home: then they owe the exodus.
    nxt = play(after, "end", "end", "drift")
    assert nxt.to_move == "red" and nxt.to_dict()["turn"]["crowded"] == ["red-II-1", "red-I-1"]
    assert "end" not in texts(nxt)


def test_d4_the_position_file_remembers_the_crowd():
    st = play(doc("exodus-open"), "red-III-1 O0-O3")
    data = st.to_dict()
    assert data["turn"]["crowded"] == ["red-III-1", "red-II-1", "red-I-1"]
    assert GAME.from_dict(data) == st
    # An older file without it reads the home as it is now.
    old = json.loads((DOCS / "exodus-open.json").read_text())
    del old["turn"]["crowded"]
    assert GAME.from_dict(old) == doc("exodus-open")


@pytest.mark.parametrize("crowded, words", [
    (["red-III-1"], "not one"),
    (["red-III-1", "blue-III-1"], "the mover's"),
    (["red-III-1", "red-II-2"], "the mover's"),
    ("red-III-1", "must list pieces"),
])
def test_d4_a_bad_crowd_says_what_is_wrong(crowded, words):
    data = json.loads((DOCS / "exodus-open.json").read_text())
    data["turn"]["crowded"] = crowded
    with pytest.raises(InvalidStateError, match=words):
        GAME.from_dict(data)


# -- D6: no moving along a river ------------------------------------------------------------------


def test_d6_a_piece_that_left_a_river_may_not_enter_it_again_in_that_move():
    st = doc("river-exit")  # Blue II-1 on IR5
    assert not moving(st, "blue-II-1") & {"blue-II-1 IR5-IR4", "blue-II-1 IR5-IR6"}
    assert {"blue-II-1 IR5-MR7", "blue-II-1 IR5-OR11"} <= texts(st)  # other rivers, from a bank
    # Going on after a pause is the same move: still not back into the inner river.
    paused = play(st, "blue-II-1 IR5-M8")
    assert paused.to_dict()["turn"]["left_river"] == "inner"
    assert moving(paused, "blue-II-1") == {"blue-II-1 M8-M7", "blue-II-1 M8-M9", "blue-II-1 M8-MR7",
                                           "blue-II-1 M8-MR8"}
    assert GAME.from_dict(paused.to_dict()) == paused
    # A III on IR2 reaches no arrow of the inner river.
    iii = position({"blue-III-1": "IR2"})
    assert not {t for t in texts(iii) if t.split("-")[-1].startswith("IR")}
    assert any("-MR" in t for t in texts(iii))
    # Through the portal and back is moving along the outer river too.
    portal = position({"blue-II-1": "OR0"})
    assert "blue-II-1 OR0-OR23" not in texts(portal) and "blue-II-1 OR0-I0" in texts(portal)
    assert "blue-II-1 OR0-IR0" in texts(portal)


def test_d6_nor_attack_into_it():
    st = position({"blue-II-1": "IR5", "red-I-1": "IR6", "red-I-2": "MR9"})
    assert "blue-II-1 IR5xIR6" not in texts(st)  # from I6 (2 vs 1) it would be back in the inner river
    assert "blue-II-1 IR5xMR9" in texts(st)  # another river: 2 vs 1
    from_bank = position({"blue-II-1": "I6", "red-I-1": "IR6"})
    assert "blue-II-1 I6xIR6" in texts(from_bank)


@pytest.mark.parametrize("left, words", [("sideways", "left_river"), ("inner", "left_river")])
def test_d6_a_bad_left_river_says_what_is_wrong(left, words):
    data = doc("river-exit").to_dict()
    data["turn"]["left_river"] = left  # no piece is under way
    with pytest.raises(InvalidStateError, match=words):
        GAME.from_dict(data)



# -- D19: a wrong drift puts back only the wrong river ---------------------------------------------


def drift_phase():
    st = play(position({"red-II-1": "O6"}, to_move="red"), "end", "end")
    assert st.phase == "drift"
    return st


def test_d19_a_wrong_drift_keeps_the_rivers_turned_right():
    st = drift_phase()
    current = st.view(Fidelity.KIND)
    wrong = View({**current, "rotation:outer": ("1",), "rotation:middle": ("1",), "rotation:inner": ("11",)})
    e = explain(st, wrong)
    assert e.verdict is Verdict.ILLEGAL
    fixes = st.restore(wrong, e.restore)
    assert [(f.space, f.expected, f.observed) for f in fixes] == [("rotation:inner", ("0",), ("11",))]
    assert [st.describe_fix(f) for f in fixes] == ["turn the inner river one arrow clockwise"]
    # Put back as said, the board is part-way to the drift.
    assert explain(st, View({**wrong, "rotation:inner": ("0",)})).verdict is Verdict.PARTIAL
    # A piece knocked off as well is still to put back; so is a river turned too far.
    slipped = dict(wrong.items())
    slipped["I5"] = slipped.pop("O6")
    slipped["rotation:outer"] = ("2",)
    fixes = st.restore(View(slipped), explain(st, View(slipped)).restore)
    assert [f.space for f in fixes] == ["I5", "O6", "rotation:inner", "rotation:outer"]
    assert [st.describe_fix(f) for f in fixes] == [
        None, None, "turn the inner river one arrow clockwise", "turn the outer river two arrows counter-clockwise"]


@pytest.mark.parametrize("space, expected, observed, words", [
    ("rotation:middle", "0", "17", "turn the middle river one arrow counter-clockwise"),  # turned the wrong way
    ("rotation:middle", "1", "0", "turn the middle river one arrow counter-clockwise"),  # still to turn (pending)
    ("rotation:outer", "5", "11", "turn the outer river six arrows counter-clockwise"),
    ("rotation:outer", "5", "23", "turn the outer river six arrows clockwise"),
    ("rotation:inner", "occupied", "occupied", None),
    ("O6", "red-II", "", None),
])
def test_d19_how_to_turn_a_river_back_the_shorter_way(space, expected, observed, words):
    fix = SpaceFix(space, (expected,), (observed,) if observed else ())
    assert drift_phase().describe_fix(fix) == words


def test_d19_outside_the_drift_every_changed_river_goes_back():
    st = position({"red-II-1": "O6"}, to_move="red")  # Red is not the round's last: no drift yet
    turned = View({**st.view(Fidelity.KIND), "rotation:outer": ("1",)})
    e = explain(st, turned)
    assert e.verdict is Verdict.ILLEGAL and st.restore(turned, e.restore) == e.restore
    last = play(st, "end")  # Blue's turn, the round's last: the drift may end it
    turned = View({**last.view(Fidelity.KIND), "rotation:outer": ("1",), "rotation:middle": ("17",)})
    fixes = last.restore(turned, explain(last, turned).restore)
    assert [f.space for f in fixes] == ["rotation:middle"]
