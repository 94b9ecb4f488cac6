"""The web's parts on their own: broadcaster, simulated board, board geometry, fix arrows."""

from __future__ import annotations

import threading

import pytest

from rules import OCCUPIED, Fidelity, SpaceFix, View, get_game
from web.boards import board_data, palette, space_labels
from web.broadcast import Broadcaster
from web.live import _fixes
from web.simboard import SimBoard, SimBoardError

GYGES = get_game("gyges")


def test_broadcaster_numbers_events_and_replays_what_was_missed():
    b = Broadcaster(capacity=10)
    first = b.publish("decision", {"n": 1})
    second = b.publish("board", {"n": 2})
    assert (first.seq, second.seq) == (1, 2) and second.id == f"{b.run}-2"
    assert b.parse_id(first.id) == 1 and b.after(1) == [second] and b.after(2) == []
    assert b.parse_id(f"{b.run}-99") is None  # from the future: not this run's
    assert b.parse_id("abc-1") is None and b.parse_id(None) is None


def test_broadcaster_reports_a_gap_once_events_have_left_the_log():
    b = Broadcaster(capacity=2)
    for i in range(4):
        b.publish("decision", {"n": i})
    assert b.after(0) is None and b.after(1) is None and [e.seq for e in b.after(2)] == [3, 4]
    with pytest.raises(ValueError):
        Broadcaster(capacity=0)


def test_broadcaster_wait_wakes_on_publish_and_on_close():
    b = Broadcaster()
    got = []
    t = threading.Thread(target=lambda: got.append(b.wait(0, timeout=5)))
    t.start()
    b.publish("decision", {})
    t.join(5)
    assert [e.seq for e in got[0]] == [1]
    assert b.wait(1, timeout=0.01) == []
    t = threading.Thread(target=lambda: got.append(b.wait(1, timeout=5)))
    t.start()
    b.close()
    b.close()  # twice is fine
    t.join(5)
    assert got[1] == [] and b.closed


def sim(fidelity=Fidelity.KIND):
    start = GYGES.default_setup()
    return SimBoard(GYGES.board(), fidelity, start.view(fidelity), palette=("1", "2", "3"))


def test_sim_take_and_put_keep_the_hand_as_a_stack():
    s = sim()
    assert s.take("a1") == "1" and s.take("b1") == "2"
    assert s.hand == ("1", "2") and "a1" not in s.view
    assert s.put("a3") == "2"  # the last piece picked up
    assert s.put("a4", "1") == "1" and s.hand == ()
    assert s.view["a3"] == ("2",) and s.view["a4"] == ("1",)
    assert s.put("c3", "3") == "3"  # from the box
    s.take("c3")
    assert s.discard() == "3" and s.hand == ()


def test_sim_refuses_impossible_edits_with_the_reason():
    s = sim()
    with pytest.raises(SimBoardError, match="a3 is empty"):
        s.take("a3")
    with pytest.raises(SimBoardError, match="holds no '3'"):
        s.take("a1", "3")
    with pytest.raises(SimBoardError, match="no space 'q1' on the gyges board"):
        s.put("q1", "1")
    with pytest.raises(SimBoardError, match="hand is empty"):
        s.put("a3")
    with pytest.raises(SimBoardError, match="no piece '7'"):
        s.put("a3", "7")
    with pytest.raises(SimBoardError, match="hand is empty"):
        s.discard()


def test_sim_observation_is_unreadable_under_a_hand():
    s = sim()
    obs = s.observation(1.5)
    assert obs.time == 1.5 and obs.is_complete and obs.view == GYGES.default_setup().view(Fidelity.KIND)
    s.set_hand_over(True)
    obs = s.observation(2.0)
    assert not obs.is_complete and obs.view == View() and "a1" in obs.unreadable


def test_sim_at_occupancy_only_knows_occupied():
    s = sim(Fidelity.OCCUPANCY)
    assert s.palette == (OCCUPIED,) and s.view["a1"] == (OCCUPIED,)
    assert s.to_dict()["palette"] == [OCCUPIED]


def test_sim_reset_can_change_to_another_games_board():
    s = sim()
    ann = get_game("annihilation")
    s.take("a1")
    s.reset(ann.start().view(Fidelity.KIND), ("W0",), ann.board())
    assert s.board.name == "annihilation" and s.hand == () and "ex_white" in s.view
    with pytest.raises(SimBoardError, match="no space 'ex_white' on the gyges board"):
        s.reset(ann.start().view(Fidelity.KIND), board=GYGES.board())


def test_fixes_pair_a_missing_piece_with_the_piece_too_many_as_an_arrow():
    out = _fixes((SpaceFix("a1", ("1",), ()), SpaceFix("a5", (), ("1",)), SpaceFix("c4", (), ("2",)),
                  SpaceFix("d4", ("3",), ())))
    assert out["arrows"] == [{"from": "a5", "to": "a1", "token": "1"}]
    assert out["take"] == [{"space": "c4", "token": "2"}] and out["put"] == [{"space": "d4", "token": "3"}]
    assert len(out["fixes"]) == 4


def test_a_piles_fix_takes_off_a_wrong_top_and_never_says_take_more():
    # O0 should hold Red's pile; the camera sees Blue's I on top of something.
    out = _fixes((SpaceFix("O0", ("red-I", "red-II", "red-III"), ("blue-I", "more")),))
    assert out["take"] == [{"space": "O0", "token": "blue-I"}] and out["put"] == [] and out["arrows"] == []


def test_board_geometry_fits_pieces_and_finds_edges():
    assert board_data("gyges")["cell_mm"] == 50.0
    ann = board_data("annelids")
    x1, y1, x2, y2 = ann["segments"]["a1n"]
    s = next(s for s in ann["spaces"] if s["id"] == "a1n")
    assert (x1 + x2) / 2 == pytest.approx(s["x"], abs=0.2) and (y1 + y2) / 2 == pytest.approx(s["y"], abs=0.2)


def test_labels_and_palettes():
    assert space_labels("gyges", {}) == {}
    assert space_labels("anacund", {"track": "12*3"}) == {"t1": "1", "t2": "2★", "t3": "3"}
    assert space_labels("anacund", {"track": None}) == {}
    assert palette("anacund", {}) == ("A", "B")
    assert palette("gyges", {}) == ("1", "2", "3")
