"""The board's publisher and the hub through an in-memory broker (fakes.py): the outbox's
logic — window, resend after an outage, acknowledgements written back — without a network."""

from __future__ import annotations

import sqlite3
import threading

from tableref.hub.hub import Hub
from tableref.hub.protocol import decode
from tableref.hub.settings import BrokerConfig, HubServerConfig
from tableref.hub.simulate import SimTable

from mosquittohelp import wait_for
from fakes import FakeBroker
from hubhelp import wait_all_in


def _setup(tmp_path, window=5):
    fb = FakeBroker()
    hub = Hub(HubServerConfig(data_dir=tmp_path / "hub"), client_factory=fb.factory).start()
    t = SimTable("table-01", tmp_path / "t.sqlite3", BrokerConfig(), client_factory=fb.factory, window=window,
                 resend_after=0.3, poll=0.05).start()
    return fb, hub, t


def _acked(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT game_id, header, acked_seq FROM hub_outbox ORDER BY game_id").fetchall()
    finally:
        db.close()


def test_moves_played_while_the_broker_is_down_go_after_it_and_acks_reach_the_journal(tmp_path):
    fb, hub, t = _setup(tmp_path, window=5)
    try:
        fb.go_down()
        t.play_game()  # ~38 moves journalled while nothing can be sent
        fb.log.clear()
        fb.come_up()
        n = t.referee.record.next_seq
        wait_for(lambda: _acked(t.journal_path) == [(1, 1, n - 1)], 10, "every event acknowledged, in the journal")
        sent = [topic for c, topic in fb.log if c.startswith("tableref-board") and topic.endswith("/journal")]
        assert len(sent) >= n + 2  # header, every event, the end
        assert hub.store.export("table-01", 1)["moves"] == t.referee.record.moves
    finally:
        t.stop()
        hub.stop()


def test_unacknowledged_messages_go_again_after_an_outage_in_order(tmp_path):
    fb, hub, t = _setup(tmp_path, window=100)
    try:
        for _ in range(5):
            t.step()
        n = t.referee.record.next_seq
        # Every event of the first five moves acknowledged, not only none in flight: the publisher
        # picks events up from the journal as it polls, and one still unsent would be counted below.
        wait_for(lambda: _acked(t.journal_path) == [(1, 1, n - 1)] and t.publisher.link.unacknowledged == 0
                 and t.publisher.link.connected, 10, "first moves in")
        hub_client = next(c for c in fb.clients if c.client_id == "tableref-hub")
        hub_client.connected = False  # the hub drops off (its messages are lost), the board does not
        for _ in range(5):
            t.step()
        wait_for(lambda: t.publisher.link.unacknowledged == 5, 5, "five moves waiting")
        hub_client.connected = True
        wait_for(lambda: t.publisher.link.unacknowledged == 0, 10, "the resend after no acknowledgement")
        assert hub.store.export("table-01", 1)["moves"] == t.referee.record.moves
    finally:
        t.stop()
        hub.stop()


def test_a_refused_connection_is_reported_on_the_link(tmp_path):
    fb = FakeBroker()
    original = fb.factory

    def refusing(client_id, **kw):
        c = original(client_id, **kw)
        c.refuse = 5
        return c
    t = SimTable("table-01", tmp_path / "t.sqlite3", BrokerConfig(), client_factory=refusing).start()
    try:
        assert t.publisher.link.state == "refused"
        assert "wrong username or password" in t.publisher.link.detail
        t.step()  # refereeing goes on
        assert t.referee.record.next_seq == 1
    finally:
        t.stop()


def test_the_last_will_and_status_are_retained(tmp_path):
    fb, hub, t = _setup(tmp_path)
    try:
        board_client = next(c for c in fb.clients if c.client_id == "tableref-board-table-01")
        topic, payload, retain = board_client.will
        assert retain and decode(topic, payload)[1].state == "offline"
        assert decode("tableref/v1/table-01/status", fb.retained["tableref/v1/table-01/status"])[1].state == "online"
        t.step()
        live = lambda: decode("tableref/v1/table-01/live", fb.retained["tableref/v1/table-01/live"])[1]  # noqa: E731
        wait_for(lambda: "tableref/v1/table-01/live" in fb.retained and live().ply == 1, 5,
                 "the live snapshot after the first move")
        assert live().last == t.referee.record.moves[0]
    finally:
        t.stop()
        hub.stop()


class _LateWake(threading.Event):
    """The publisher's wake-up, whose wait times out just as a move is made: on a loaded board
    the referee's ``set`` lands between the timed-out ``wait`` and the publisher's next step."""

    def __init__(self):
        super().__init__()
        self.late = None  # called once, on the publisher's thread, after a wait that timed out

    def wait(self, timeout=None):
        woken = super().wait(timeout)
        if not woken and self.late is not None:
            self.late()
            self.late = None  # after the move: the test waits for it
        return woken


def test_a_move_made_as_the_publishers_wait_times_out_is_sent(tmp_path):
    fb, hub, t = _setup(tmp_path, window=100)
    try:
        for _ in range(3):
            t.step()
        wait_all_in(hub, [t], timeout=10)
        wake = t.publisher._wake = _LateWake()
        wake.late = t.step  # the driver is waiting here: only one thread moves the referee
        wait_for(lambda: wake.late is None, 5, "the move made as the wait timed out")
        assert t.referee.record.next_seq == 4
        # Nothing else comes to wake the publisher (every earlier message acknowledged, no resend due).
        wait_all_in(hub, [t], timeout=3)
    finally:
        t.stop()
        hub.stop()
