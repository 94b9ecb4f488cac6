"""The link's resend, duplicate and order logic (tableref/remote/link.py), pure: every time is
passed in, nothing sleeps."""

from __future__ import annotations

from tableref.remote.link import Arrival, Outgoing, Sender, judge, wanted_welcome

MINE = [Outgoing(1, "a1-a2"), Outgoing(3, "b1-b2"), Outgoing(5, "c1-c3")]


def plies(out):
    return [m.ply for m in out]


def test_each_move_is_sent_once_per_connection_in_order():
    s = Sender(resend_after=5)
    s.connected(0.0)
    assert plies(s.due(MINE[:1], 0.1)) == [1]
    assert s.due(MINE[:1], 0.2) == []  # sent, waiting for the other table
    assert plies(s.due(MINE[:2], 0.3)) == [3]  # a new move: only it
    assert s.unacknowledged(MINE[:2]) == 2


def test_acknowledged_moves_are_never_sent_again():
    s = Sender(resend_after=5)
    s.connected(0.0)
    s.due(MINE, 0.0)
    s.on_have(4, 1.0)
    assert s.acked == 4 and s.unacknowledged(MINE) == 1
    assert s.due(MINE, 100.0) == [MINE[2]]  # only the unacknowledged, after the wait
    s.on_have(5, 101.0)
    assert s.due(MINE, 1000.0) == [] and s.unacknowledged(MINE) == 0


def test_a_lost_message_is_sent_again_after_resend_after_not_before():
    s = Sender(resend_after=5)
    s.connected(0.0)
    assert plies(s.due(MINE, 0.0)) == [1, 3, 5]
    assert s.due(MINE, 4.9) == []  # the broker may still deliver it
    assert plies(s.due(MINE, 5.0)) == [1, 3, 5]  # nothing acknowledged for 5 s: all again, in order
    assert s.due(MINE, 9.9) == []
    s.on_have(1, 9.95)  # progress: the timer starts again from it
    assert s.due(MINE, 14.9) == []
    assert plies(s.due(MINE, 14.95)) == [3, 5]


def test_a_new_connection_sends_everything_unacknowledged_at_once():
    s = Sender(resend_after=5)
    s.connected(0.0)
    s.due(MINE, 0.0)
    s.on_have(2, 0.5)
    s.connected(1.0)  # the broker restarted, or this table did
    assert not s.heard
    assert plies(s.due(MINE, 1.0)) == [3, 5]


def test_a_table_that_holds_less_than_it_said_is_sent_what_it_lacks():
    s = Sender(resend_after=5)
    s.connected(0.0)
    s.due(MINE, 0.0)
    s.on_have(5, 0.1)
    s.on_have(2, 0.2)  # never trusted backwards, but what it lacks goes again
    assert s.acked == 5
    assert s.sent == 2


def test_a_restarted_table_knows_nothing_acknowledged_and_sends_all():
    s = Sender(resend_after=5)  # as after a reboot: acked 0
    s.connected(50.0)
    assert plies(s.due(MINE, 50.0)) == [1, 3, 5]  # the other table drops the duplicates


def test_arrivals_next_duplicate_gap_conflict():
    held = ["a1-a2", "f6-f5"]
    assert judge(3, "b1-b2", held) is Arrival.NEXT
    assert judge(2, "f6-f5", held) is Arrival.DUPLICATE
    assert judge(1, "a1-a2", held) is Arrival.DUPLICATE
    assert judge(4, "c1-c2", held) is Arrival.GAP  # ply 3 missing: dropped, the sender goes back
    assert judge(2, "f6-f4", held) is Arrival.CONFLICT
    assert judge(1, "x", []) is Arrival.NEXT


def test_reordered_and_doubled_deliveries_leave_the_game_in_order():
    """The receiving side of a whole exchange: messages doubled and out of order, acknowledged
    with what is held; the sender's resend fills the gaps. The game ends up in order, each move once."""
    game = [f"m{i}" for i in range(1, 9)]
    held: list[str] = []
    deliveries = [3, 1, 1, 2, 5, 4, 4, 3, 8, 6, 7, 6, 8]
    for ply in deliveries:
        if judge(ply, game[ply - 1], held) is Arrival.NEXT:
            held.append(game[ply - 1])
    assert held == game[:len(held)]
    # what was dropped (a gap) comes again from the sender, from the gap on
    for ply in range(len(held) + 1, len(game) + 1):
        assert judge(ply, game[ply - 1], held) is Arrival.NEXT
        held.append(game[ply - 1])
    assert held == game


def test_the_host_sends_the_game_until_the_guest_answers():
    s = Sender()
    s.connected(0.0)
    assert wanted_welcome(True, s, 0.0, None, 5)
    assert not wanted_welcome(True, s, 4.0, 0.0, 5)
    assert wanted_welcome(True, s, 5.0, 0.0, 5)
    assert not wanted_welcome(False, s, 5.0, None, 5)  # the guest never sends it
    s.on_have(0, 6.0)
    assert not wanted_welcome(True, s, 60.0, 5.0, 5)
