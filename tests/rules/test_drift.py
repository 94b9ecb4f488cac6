"""DRIFT: the rulings of docs/rules/drift.md, each held by a test, and the hand-worked positions
of docs/rules/drift/ with their exact legal-move sets."""

from __future__ import annotations

import json
import random
import runpy
from pathlib import Path

import pytest

from rules import (
    AmbiguousMoveError, Fidelity, IllegalMoveError, InvalidStateError, MoveSyntaxError, Verdict, View,
    explain, get_game, load_board,
)
from rules.games.drift_geometry import geometry

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules" / "drift"
GAME = get_game("drift")
GEO = geometry()
TWO = [{"colour": "red", "home": "circle"}, {"colour": "blue", "home": "square"}]


def doc(name):
    return GAME.from_dict(json.loads((DOCS / f"{name}.json").read_text()))


def texts(state):
    out = [state.move_text(m) for m in state.legal_moves()]
    assert len(out) == len(set(out))
    return set(out)


def position(pieces, to_move="blue", players=TWO, carrying=None, coins=None, repos=None, turn=None, **extra):
    """A position with the coins nobody placed lying on O18 (coins are conserved)."""
    n = len(players)
    coins = {k: list(v) for k, v in (coins or {}).items()}
    used = [*(carrying or {}).values(), *(t for r in (repos or {}).values() for t in r),
            *(t for v in coins.values() for t in v)]
    spare = [t for t in ("copper", "gold", "silver") for _ in range(n - used.count(t))]
    if spare:
        coins.setdefault("O18", []).extend(spare)
    data = {"game": "drift", "players": players, "to_move": to_move, "pieces": pieces,
            "carrying": carrying or {}, "coins": coins,
            "repositories": {p["colour"]: (repos or {}).get(p["colour"], []) for p in players},
            "turn": turn or {"moved": [], "current": None, "points": 0}, **extra}
    return GAME.from_dict(data)


def play(state, *moves):
    for m in moves:
        state = state.apply_text(m)
    return state


# -- the board ----------------------------------------------------------------------------------


def test_board_file_is_what_the_generator_writes():
    gen = runpy.run_path(str(ROOT / "tools" / "drift_board.py"))
    assert (ROOT / "rules" / "boards" / "drift.json").read_text(encoding="utf-8") == gen["render"]()


def test_reference_counts():
    board = load_board("drift")
    kinds = [s.kind for s in board.spaces]
    assert (kinds.count("land"), kinds.count("home"), kinds.count("arrow")) == (18 + 18 + 12, 6, 24 + 18 + 12)
    assert [len(GEO.land_rings[r]) for r in ("outer", "middle", "inner")] == [24, 18, 12]
    assert [r.size for r in GEO.rivers] == [24, 18, 12]
    assert [r.flow for r in GEO.rivers] == ["clockwise", "counter-clockwise", "clockwise"]
    assert [GEO.ids[GEO.home[m]] for m in GEO.markers] == ["O0", "O4", "O8", "O12", "O16", "O20"]
    assert [GEO.ids[GEO.marker_space[m]] for m in GEO.markers] == ["I0", "I2", "I4", "I6", "I8", "I10"]


def names(adj, space):
    return {GEO.ids[v] for v in adj[GEO.index[space]]}


def test_adjacency_follows_the_rivers_rotation():
    """D6/Board: a land space and an arrow touch while their sectors overlap."""
    rest, turned = GEO.adjacency((0, 0, 0)), GEO.adjacency((1, 1, 1))
    assert names(rest, "OR0") == {"O0", "O1", "I0"}  # the circle outcrop: the portal to I0
    assert names(turned, "OR0") == {"O1", "O2"}  # one arrow clockwise on
    assert names(rest, "MR0") == {"O0", "O1", "M0", "M1"}
    assert names(turned, "MR0") == {"O23", "O0", "M17", "M0"}  # counter-clockwise
    assert names(rest, "O0") == {"O1", "O23", "OR0", "OR23", "MR0", "MR17"}
    with pytest.raises(Exception, match="annuli"):
        type(GEO)({"name": "x"}, "test.json")


# -- hand-worked positions (docs/rules/drift/) ------------------------------------------------------

EXACT = {
    "rank-order": {
        "blue-III-1 I3-I2", "blue-III-1 I3-I4", "blue-III-1 I3-IR2", "blue-III-1 I3-IR3",
        "blue-II-1 I7-I5", "blue-II-1 I7-I6", "blue-II-1 I7-I8", "blue-II-1 I7-I9", "blue-II-1 I7-IR5",
        "blue-II-1 I7-IR6", "blue-II-1 I7-IR7", "blue-II-1 I7-IR8", "blue-II-1 I7-OR11", "blue-II-1 I7-OR12",
        "blue-II-1 I7-OR15", "blue-II-1 I7-OR16",
        "blue-I-1 I11-I0", "blue-I-1 I11-I10", "blue-I-1 I11-IR10", "blue-I-1 I11-IR11", "drift", "end"},
    "river-exit": {
        "blue-II-1 IR5-I4", "blue-II-1 IR5-I5", "blue-II-1 IR5-I6", "blue-II-1 IR5-I7", "blue-II-1 IR5-M7", "blue-II-1 IR5-M8", "blue-II-1 IR5-M9", "blue-II-1 IR5-M10",
        "blue-II-1 IR5-MR7", "blue-II-1 IR5-MR8", "blue-II-1 IR5-MR9", "blue-II-1 IR5-OR11",
        "blue-II-1 IR5-OR12", "drift", "end"},
    "portal": {
        "blue-I-1 OR11-O11", "blue-I-1 OR11-O12", "blue-I-2 I6-I5", "blue-I-2 I6-I7", "blue-I-2 I6-IR5",
        "blue-I-2 I6-IR6", "blue-I-2 I6-OR12", "drift", "end"},
    "land-and-river-support": {
        "blue-I-1 OR12-I6", "blue-I-2 O13-MR10", "blue-I-2 O13-O14", "blue-I-2 O13-OR13", "blue-II-1 O10-MR6",
        "blue-II-1 O10-MR7", "blue-II-1 O10-MR8", "blue-II-1 O10-O11", "blue-II-1 O10-O8", "blue-II-1 O10-O9",
        "blue-II-1 O10-OR10", "blue-II-1 O10-OR11", "blue-II-1 O10-OR8", "blue-II-1 O10-OR9",
        "blue-II-1 O10xO12", "drift", "end"},
    "same-river": {
        "blue-II-1 OR12-I5", "blue-II-1 OR12-I6", "blue-II-1 OR12-I7", "blue-II-1 OR12-IR5", "blue-II-1 OR12-IR6",
        "blue-II-1 OR12-MR9", "blue-II-1 OR12-MR10", "blue-II-1 OR12-O13", "blue-II-1 OR12-O14",
        "blue-II-1 OR12xO12", "blue-III-1 OR11-I4", "blue-III-1 OR11-I5",
        "blue-III-1 OR11-I6", "blue-III-1 OR11-I7", "blue-III-1 OR11-I8", "blue-III-1 OR11-IR4",
        "blue-III-1 OR11-IR5", "blue-III-1 OR11-IR6", "blue-III-1 OR11-IR7", "drift", "end"},
    "repository-defence": {
        "blue-I-1 MR0-M0", "blue-I-1 MR0-M1", "blue-I-1 MR0-O1", "blue-II-1 OR0-I0", "blue-II-1 OR0-I1",
        "blue-II-1 OR0-I11", "blue-II-1 OR0-IR0", "blue-II-1 OR0-IR11", "blue-II-1 OR0-MR1", "blue-II-1 OR0-O1",
        "blue-III-1 O2-MR1", "blue-III-1 O2-MR2",
        "blue-III-1 O2-MR3", "blue-III-1 O2-O1", "blue-III-1 O2-O3", "blue-III-1 O2-O4", "blue-III-1 O2-O5",
        "blue-III-1 O2-OR1", "blue-III-1 O2-OR2", "blue-III-1 O2-OR3", "blue-III-1 O2-OR4", "drift", "end"},
    "chain-eviction": {
        "blue-I-1 O0-MR0", "blue-I-1 O0-MR17", "blue-I-1 O0-O1", "blue-I-1 O0-O23", "blue-I-1 O0-OR0",
        "blue-I-1 O0-OR23", "blue-I-1 drop copper", "blue-III-1 O4-MR1", "blue-III-1 O4-MR2",
        "blue-III-1 O4-MR3", "blue-III-1 O4-MR4", "blue-III-1 O4-O1", "blue-III-1 O4-O2", "blue-III-1 O4-O3",
        "blue-III-1 O4-O5", "blue-III-1 O4-OR1", "blue-III-1 O4-OR2", "blue-III-1 O4-OR3", "blue-III-1 O4-OR4",
        "blue-III-1 O4-OR5", "blue-III-1 O4xO6", "drift", "end"},
    "coins-pilfer": {
        "blue-I-1 O0-MR0", "blue-I-1 O0-MR17", "blue-I-1 O0-O23", "blue-I-1 O0-OR0", "blue-I-1 O0-OR23",
        "blue-I-1 pilfer copper", "blue-I-1 pilfer gold", "blue-I-2 O1-MR0", "blue-I-2 O1-MR1",
        "blue-I-2 O1-O2", "blue-I-2 O1-OR0", "blue-I-2 O1-OR1", "blue-I-2 drop gold", "drift", "end"},
    "coins-deposit": {
        "blue-I-1 O12-MR8", "blue-I-1 O12-MR9", "blue-I-1 O12-O11", "blue-I-1 O12-O13", "blue-I-1 O12-OR11",
        "blue-I-1 O12-OR12", "blue-I-1 take gold", "blue-I-2 O8-MR5", "blue-I-2 O8-MR6", "blue-I-2 O8-O7",
        "blue-I-2 O8-OR7", "blue-I-2 O8-OR8", "blue-I-2 drop silver", "blue-II-1 O9-MR6", "blue-II-1 O9-MR7",
        "blue-II-1 O9-O10", "blue-II-1 O9-O11", "blue-II-1 O9-OR10", "blue-II-1 O9-OR8", "blue-II-1 O9-OR9",
        "drift", "end"},
    # The I may not go first: it would strand the III and the II, who can leave (D5).
    "exodus-open": {f"red-{p}-1 O0-{s}" for p, reach in (
        ("III", "O1 O2 O3 O21 O22 O23 OR0 OR1 OR2 OR21 OR22 OR23 MR0 MR1 MR16 MR17"),
        ("II", "O1 O2 O22 O23 OR0 OR1 OR22 OR23 MR0 MR1 MR16 MR17")) for s in reach.split()},
    # Red's home held one piece when the turn began: no exodus, `end` (and Blue's moves) at once.
    "exodus-evicted": {f"{p}{s}" for p, reach in (
        ("red-III-1 O4", "-O1 -O2 -O3 -O5 -OR1 -OR2 -OR3 -OR4 -OR5 -MR1 -MR2 -MR3 -MR4 xO6"),
        ("red-II-1 O0", "-O1 -O2 -O22 -O23 -OR0 -OR1 -OR22 -OR23 -MR0 -MR1 -MR16 -MR17"),
        ("red-I-1 O8", "-O7 -O9 -OR7 -OR8 -MR5 -MR6"),
        ("blue-II-1 O6", "-O5 -O7 -OR4 -OR5 -OR6 -OR7 -MR3 -MR4 -MR5 xO8"),
        ("blue-III-1 I9", "-I0 -I6 -I7 -I8 -I10 -I11 -IR6 -IR7 -IR8 -IR9 -IR10 -IR11 -OR15 -OR16 -OR19 -OR20"))
        for s in reach.split()} | {"end"},
    "exodus-barred": {"end remove red-II-1 red-I-1", "end remove red-II-1 red-I-2"},
}


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact_legal_moves_of_the_hand_worked_positions(name):
    assert texts(doc(name)) == EXACT[name]


def test_every_documented_position_round_trips():
    paths = sorted(DOCS.glob("*.json"))
    assert {p.stem for p in paths} == set(EXACT)
    for path in paths:
        data = json.loads(path.read_text())
        assert GAME.from_dict(data).to_dict() == data, path.name


# -- rulings --------------------------------------------------------------------------------------


def test_d3_rank_order_and_one_action_per_piece():
    st = doc("rank-order")  # Blue III-1 has moved one step and has a point left
    after_ii = play(st, "blue-II-1 I7-I8")
    assert not any(t.startswith("blue-III-1") for t in texts(after_ii))  # the III is done
    assert {t for t in texts(after_ii) if t.startswith("blue-II-1")} == {
        "blue-II-1 I8-I7", "blue-II-1 I8-I9", "blue-II-1 I8-IR7", "blue-II-1 I8-IR8", "blue-II-1 I8-OR15",
        "blue-II-1 I8-OR16"}  # its last point: back, on, into the inner river, or through the portal
    after_i = play(after_ii, "blue-I-1 I11-I10")
    assert texts(after_i) == {"end", "drift"}  # the I went last: nothing else may move
    # Moving a piece in two goes is one move's worth of points, not two.
    go = play(doc("river-exit"), "blue-II-1 IR5-M8")
    assert go.points == 1 and play(go, "blue-II-1 M8-M7").points == 0


def test_d6_entering_a_river_ends_the_move_and_exit_uses_the_full_move():
    st = play(doc("rank-order"), "blue-II-1 I7-IR6")
    assert st.points == 0 and not any(t.startswith("blue-II-1") for t in texts(st))
    # From IR5 a II exits to a bank (1) and goes on a step or into another river (2): river-exit.
    assert "blue-II-1 IR5-M10" in texts(doc("river-exit"))
    # No moving along a river: never from an arrow straight to another arrow of its river.
    adj = GEO.adjacency((0, 0, 0))
    assert all(GEO.river_of[v] < 0 for r in GEO.rivers for a in r.arrows for v in adj[a])


def test_d7_portal_both_ways():
    st = doc("portal")
    assert {"blue-I-2 I6-OR12"} <= texts(st)  # inner marker space → outer arrow by the outcrop
    assert "blue-I-1 OR11-I6" not in texts(st)  # I6 is occupied
    assert "blue-I-1 OR11-I6" in texts(play(st, "blue-I-2 I6-I5"))  # once I6 is free
    st2 = position({"blue-I-1": "OR11"})
    assert texts(st2) >= {"blue-I-1 OR11-I6", "blue-I-1 OR11-O11", "blue-I-1 OR11-O12"}


def describe(st, text):
    return st.describe_move(st.parse_move(text))


def test_d9_attacks_with_support_from_land_and_river():
    st = doc("land-and-river-support")
    assert describe(st, "blue-II-1 O10xO12") == \
        "Blue II-1 attacks Red II-1 at O12: 2+1+1 vs 2+1: Red II-1 goes home to O0"
    after = play(st, "blue-II-1 O10xO12")
    assert after.to_dict()["pieces"]["blue-II-1"] == "O12" and after.points == 0
    assert after.to_dict()["pieces"]["red-II-1"] == "O0"
    assert st.move_spaces(st.parse_move("blue-II-1 O10xO12")) == {"O10", "O12", "O0"}
    # Without the river supporter it would be 3 vs 3: no attack.
    weaker = position({"blue-II-1": "O10", "blue-I-2": "O13", "red-II-1": "O12", "red-I-1": "MR9"})
    assert not any("x" in t.split()[-1] for t in texts(weaker))


def test_d11_pieces_in_the_initiators_river_do_not_count():
    st = doc("same-river")
    # From OR12 itself Blue II-1 would have 2 (Blue III-1 on OR11 is in the same river) vs 3+1;
    # from O13 (one point spent) the III on OR11 counts: 2+3 vs 3+1.
    assert describe(st, "blue-II-1 OR12xO12") == \
        "Blue II-1 attacks Red III-1 at O12: 2+3 vs 3+1: Red III-1 goes home to O0"
    assert not any(t.startswith("blue-III-1") and "x" in t for t in texts(st))


def test_d12_repository_defends_its_home_only_with_its_piece_in_it():
    st = doc("repository-defence")
    assert not any("x" in t for t in texts(st))  # 3+2+1 = 6 vs 2+9
    outside = position({"blue-III-1": "O2", "blue-II-1": "OR0", "blue-I-1": "MR0", "red-II-1": "O1"})
    assert "blue-III-1 O2xO1" in texts(outside)
    empty = position({"blue-III-1": "O2"})
    assert "blue-III-1 O2-O0" in texts(empty) and "blue-III-1 O2-O23" in texts(empty)  # alone it is no bar


def test_d13_chain_eviction_and_the_dropped_coin():
    st = doc("chain-eviction")
    move = st.parse_move("blue-III-1 O4xO6")
    assert st.move_spaces(move) == {"O4", "O6", "O0", "O8"}
    assert st.describe_move(move) == "Blue III-1 attacks Red II-1 at O6: 3 vs 2: Red II-1 goes home to O0"
    after = st.successor(move).to_dict()
    assert after["pieces"] == {"blue-III-1": "O6", "red-II-1": "O0", "blue-I-1": "O8", "red-I-1": "O0"}
    assert after["carrying"] == {} and after["coins"]["O0"] == ["copper"]  # dropped where it was evicted


def test_d14_defeated_in_its_own_home_leaves_play():
    st = position({"blue-III-1": "O2", "blue-III-2": "OR0", "blue-II-1": "MR0", "blue-II-2": "O23",
                   "blue-I-1": "MR17", "red-I-1": "O0"})
    text = "blue-III-1 O2xO0"
    assert describe(st, text).endswith("leaves play (defeated in its own home)")
    after = play(st, text).to_dict()["pieces"]
    assert "red-I-1" not in after and after["blue-III-1"] == "O0"


def test_d10_a_coin_carrier_neither_attacks_nor_supports_but_defends():
    carrier = position({"blue-I-1": "O11", "red-I-1": "O12"}, carrying={"blue-I-1": "gold"})
    assert not any("x" in t for t in texts(carrier))
    supported = position({"blue-II-1": "O10", "blue-I-1": "O13", "red-II-1": "O12"}, carrying={"blue-I-1": "gold"})
    assert "blue-II-1 O10xO12" not in texts(supported)  # 2 (the carrier adds nothing) vs 2
    defends = position({"blue-III-1": "O10", "red-II-1": "O12", "red-I-1": "O13"}, carrying={"red-I-1": "gold"})
    assert "blue-III-1 O10xO12" not in texts(defends)  # 3 vs 2+1: the carrier defends
    alone = position({"blue-III-1": "O10", "red-II-1": "O12", "red-I-1": "O14"}, carrying={"red-I-1": "gold"})
    assert describe(alone, "blue-III-1 O10xO12") == "Blue III-1 attacks Red II-1 at O12: 3 vs 2: Red II-1 goes home to O0"


def test_d15_coins_take_drop_deposit_and_the_turn_after():
    st = doc("coins-deposit")
    took = play(st, "blue-I-1 take gold")
    assert took.to_dict()["carrying"] == {"blue-I-1": "gold", "blue-I-2": "silver"} and "O12" not in took.to_dict()["coins"]
    assert not any(t.startswith("blue-I-1") for t in texts(took))  # its whole move
    dep = play(st, "blue-I-2 drop silver")
    assert dep.to_dict()["repositories"]["blue"] == ["copper", "silver"]
    assert st.move_spaces(st.parse_move("blue-I-2 drop silver")) == {"O8", "repo-square"}
    assert dep.view(Fidelity.KIND)["repo-square"] == ("copper", "silver")
    # Moving first spends the point: no pick-up after a step.
    stepped = play(st, "blue-I-1 O12-O11")
    assert "blue-I-1 take gold" not in texts(stepped)


def test_d16_pilfer_and_d17_carriers_barred_from_homes():
    st = doc("coins-pilfer")
    after = play(st, "blue-I-1 pilfer gold").to_dict()
    assert after["repositories"]["red"] == ["copper"] and after["carrying"] == {"blue-I-1": "gold", "blue-I-2": "gold"}
    assert "blue-I-2 O1-O0" not in texts(st)  # carrying: not into Red's home
    own = position({"blue-I-1": "O9"}, carrying={"blue-I-1": "copper"}, repos={"blue": ["copper"]})
    assert "blue-I-1 O9-O8" not in texts(own)  # its own home already has a copper
    fresh = position({"blue-I-1": "O9"}, carrying={"blue-I-1": "gold"}, repos={"blue": ["copper"]})
    assert "blue-I-1 O9-O8" in texts(fresh)


def test_d18_coins_in_rivers_do_not_block_and_drift_along():
    st = position({"blue-I-1": "O12"}, coins={"OR12": ["gold"]})
    assert "blue-I-1 O12-OR12" in texts(st)
    on = play(st, "blue-I-1 O12-OR12")
    assert "blue-I-1 take gold" not in texts(on)
    drifted = play(on, "drift")  # Blue was the round's last player: the rivers turn
    assert drifted.to_dict()["coins"]["OR12"] == ["gold"] and drifted.rots == (1, 1, 1)
    red_done = play(drifted, "end")
    assert "blue-I-1 take gold" in texts(red_done)


def test_d4_d5_the_forced_exodus():
    st = doc("exodus-open")
    assert "end" not in texts(st)
    one = play(st, "red-III-1 O0-O3")
    assert "end" not in texts(one) and not any(t.startswith("blue") for t in texts(one))
    two = play(one, "red-II-1 O0-O2")
    assert "end" in texts(two)
    barred = doc("exodus-barred")
    after = play(barred, "end remove red-II-1 red-I-1")
    assert after.to_dict()["pieces"].get("red-I-2") == "O0" and "red-II-1" not in after.to_dict()["pieces"]
    assert after.to_move == "blue"
    assert barred.move_spaces(barred.parse_move("end remove red-II-1 red-I-1")) == {"O0"}
    with pytest.raises(AmbiguousMoveError):
        barred.parse_move("end")
    # Which I stays does not matter to the rules: one position (D20).
    assert after == play(barred, "end remove red-II-1 red-I-2")


def test_turns_end_by_declaring_or_by_the_next_players_piece():
    st = position({"red-II-1": "O6", "blue-II-1": "O10"}, to_move="red")
    moves = texts(st)
    assert "end" in moves and "blue-II-1 O10-O11" in moves and "drift" not in moves
    move = st.parse_move("blue-II-1 O10-O11")
    assert move.after_end and st.describe_move(move).startswith("Red's turn ends; Blue II-1 O10 → O11")
    after = st.successor(move)
    assert after.to_move == "blue" and after.current >= 0
    # The round's last player: the drift itself ends the turn.
    last = play(st, "end")
    assert "drift" in texts(last) and last.parse_move("drift").after_end


def test_d19_drift_phase_verified_from_the_board():
    st = play(position({"red-II-1": "O6"}, to_move="red"), "end", "end")
    assert st.phase == "drift" and texts(st) == {"drift"} and st.to_move == "red"
    current, after = st.view(Fidelity.KIND), play(st, "drift").view(Fidelity.KIND)
    assert current.diff(after) == {"rotation:outer", "rotation:middle", "rotation:inner"}
    assert explain(st, after).verdict is Verdict.LEGAL
    half = View({**current, "rotation:outer": ("1",)})
    e = explain(st, half)
    assert e.verdict is Verdict.PARTIAL and [c.text for c in e.candidates] == ["drift"]
    assert [(f.space, f.expected) for f in e.pending] == [("rotation:inner", ("1",)), ("rotation:middle", ("1",))]
    wrong = View({**current, "rotation:middle": ("1",), "rotation:outer": ("1",), "rotation:inner": ("11",)})
    e = explain(st, wrong)
    assert e.verdict is Verdict.ILLEGAL
    assert ("rotation:inner", ("0",), ("11",)) in {(f.space, f.expected, f.observed) for f in e.restore}
    slipped = dict(after.items())
    slipped["I5"] = slipped.pop("O6")  # a piece knocked far off its space while turning
    assert explain(st, View(slipped)).verdict is Verdict.ILLEGAL
    assert play(st, "drift").phase == "play"


def test_d20_look_alike_pieces_are_one_position_so_kind_does_not_ask():
    st = GAME.default_setup()
    a, b = st.parse_move("red-III-1 O0-O3"), st.parse_move("red-III-2 O0-O3")
    assert st.successor(a) == st.successor(b) and hash(st.successor(a)) == hash(st.successor(b))
    e = explain(st, st.successor(a).view(Fidelity.KIND), Fidelity.KIND)
    assert e.verdict is Verdict.LEGAL
    e = explain(st, st.successor(b).view(Fidelity.IDENTITY), Fidelity.IDENTITY)
    assert e.verdict is Verdict.LEGAL and e.candidates[0].text == "red-III-2 O0-O3"


def test_win_and_game_over():
    st = position({"blue-I-1": "O8"}, carrying={"blue-I-1": "gold"}, repos={"blue": ["copper", "silver"]})
    won = play(st, "blue-I-1 drop gold")
    assert won.phase == "over" and won.outcome().winner == "blue" and won.legal_moves() == ()
    assert won.scores() == {"red": 0, "blue": 3}
    assert GAME.from_dict(won.to_dict()) == won and won.to_dict()["phase"] == "over"


def test_d1_setup_then_play():
    st = GAME.start()
    assert st.phase == "setup" and len(st.legal_moves()) == 18 + 18 + 12
    assert "copper O0" not in texts(st) and "copper O1" in texts(st)  # never on a home
    rng = random.Random(5)
    for _ in range(9):
        st = st.apply(rng.choice(st.legal_moves()))
    assert st.phase == "play" and st.to_move == "red"
    assert sorted(t for _, t in st.lying) == ["copper"] * 3 + ["gold"] * 3 + ["silver"] * 3


def test_options_players_and_ranks():
    two = GAME.default_setup({"players": "blue:star,red:square"})
    assert two.players == ("red", "blue") and two.to_move == "red"  # clockwise from the circle
    six = GAME.default_setup({"players": "red:circle,blue:triangle,green:square,yellow:pentagon,"
                                         "white:hexagon,black:star", "ranks": "1,2,3"})
    assert len(six.locs) == 36 and len(six.lying) == 18
    assert len(texts(six)) > 10
    rng = random.Random(1)
    for _ in range(150):
        six = six.apply(rng.choice(six.legal_moves()))
        assert GAME.from_dict(json.loads(json.dumps(six.to_dict()))) == six
    for bad in ({"players": "red:circle"}, {"players": "red:circle,red:square"}, {"players": "pink:circle,red:star"},
                {"ranks": "2,2"}, {"ranks": "3,3,3"}):
        with pytest.raises(InvalidStateError):
            GAME.start(bad)


def test_notation_and_errors():
    st = doc("chain-eviction")
    for m in st.legal_moves():
        assert st.parse_move(st.move_text(m)) == m
    with pytest.raises(MoveSyntaxError):
        st.parse_move("blue III O4 O6")
    with pytest.raises(IllegalMoveError, match="blue to move"):
        st.parse_move("blue-III-1 O4-O12")
    assert st.parse_move("  blue-III-1   O4xO6 ") == st.parse_move("blue-III-1 O4xO6")


@pytest.mark.parametrize("change, words", [
    ({"players": [{"colour": "red", "home": "circle"}]}, "'players'"),
    ({"players": list(reversed(TWO))}, "turn order"),
    ({"pieces": {"red-III-1": "O5", "blue-III-1": "O5"}}, "share O5"),
    ({"pieces": {"red-IV-1": "O5"}}, "no piece"),
    ({"pieces": {"red-III-1": "Z9"}}, "not a land space"),
    ({"coins": {"O3": ["copper"]}}, "copper coins"),
    ({"carrying": {"red-III-1": "gold"}, "pieces": {"red-III-1": "O3"}}, "only a \\(I\\)"),
    ({"rotations": {"outer": 24, "middle": 0, "inner": 0}}, "rotations.outer"),
    ({"phase": "over"}, "'phase' is 'over'"),
    ({"turn": {"moved": ["red-III-1"], "current": None, "points": 0}}, "only blue's pieces"),
])
def test_bad_positions_say_what_is_wrong(change, words):
    data = doc("portal").to_dict()
    data.update(change)
    with pytest.raises(InvalidStateError, match=words):
        GAME.from_dict(data)


def test_explain_is_unchanged_by_a_declared_end_and_sees_a_battle_under_way():
    st = doc("land-and-river-support")
    end = st.parse_move("end")
    assert st.successor(end).view(Fidelity.KIND) == st.view(Fidelity.KIND)
    lifted = View({s: t for s, t in st.view(Fidelity.KIND).items() if s != "O12"})
    e = explain(st, lifted)
    assert e.verdict is Verdict.PARTIAL and "blue-II-1 O10xO12" in [c.text for c in e.candidates]


def test_d14_a_crowded_home_cannot_be_attacked():
    ring = {"blue-III-1": "O1", "blue-III-2": "O23", "blue-II-1": "OR0", "blue-II-2": "OR23", "blue-I-1": "MR0",
            "blue-I-2": "MR17"}
    alone = position({**ring, "red-I-1": "O0"})
    assert describe(alone, "blue-III-1 O1xO0") == \
        "Blue III-1 attacks Red I-1 at O0: 3+3+2+2+1+1 vs 1+9: Red I-1 leaves play (defeated in its own home)"
    crowded = position({**ring, "red-I-1": "O0", "red-I-2": "O0"})
    assert not any("x" in t for t in texts(crowded))
