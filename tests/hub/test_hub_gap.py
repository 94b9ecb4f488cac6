"""Issue 33, item 9: a gap the broker leaves in a game heals while the board keeps playing.

The hub restarts; meanwhile its persistent session's queue at the broker overflows
(``max_queued_messages``), so the broker drops part of a game. The board goes on playing: the
hub acknowledges its later events (the same seq, the gap still open) and its later games. The
publisher must resend after ``resend_after`` seconds without the *oldest* unacknowledged message
being acknowledged, not after ``resend_after`` seconds without any acknowledgement at all.
"""

from __future__ import annotations

import sqlite3

from tableref.hub.hub import Hub
from tableref.hub.settings import BrokerConfig, HubServerConfig
from tableref.hub.simulate import SimTable

from mosquittohelp import Broker, needs_mosquitto, wait_for
from hubhelp import make_hub, wait_all_in
from fakes import FakeBroker

RESEND = 2.0


def _acked_seq(path, game: int) -> int:
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT acked_seq FROM hub_outbox WHERE game_id=?", (game,)).fetchone()
        return -1 if row is None else row[0]
    finally:
        db.close()


def _play_until(table: SimTable, done, timeout: float, what: str) -> None:
    """The board plays a move every 0.2 s until ``done()`` (the acknowledgements keep coming)."""
    wait_for(lambda: (table.step(), done())[1], timeout, what, interval=0.2)


@needs_mosquitto
def test_a_gap_the_broker_left_heals_while_the_board_keeps_playing(tmp_path):
    broker = Broker(tmp_path / "broker", max_queued=5).start()
    hub = make_hub(broker.port, tmp_path / "hub")
    # The window far beyond what is played here: only the resend can heal the gap, not a full window.
    t = SimTable("table-01", tmp_path / "t.sqlite3", BrokerConfig(port=broker.port), window=10_000,
                 resend_after=RESEND, poll=0.05).start()
    try:
        for _ in range(3):
            t.step()
        wait_all_in(hub, [t])
        hub.stop()  # its session stays at the broker, which queues at most 5 messages for it
        for _ in range(25):
            t.step()
        gap_end = t.referee.record.next_seq - 1
        wait_for(lambda: t.publisher.link.unacknowledged == gap_end - 2, 10, "every move sent once (seq 0-2 are in)")
        # Back just after a resend (lost in the full queue, as in the issue): had the hub come back
        # in the middle of one, that resend would fill the gap by chance.
        sent = t.publisher.sent_messages
        wait_for(lambda: t.publisher.sent_messages >= sent + t.publisher.link.unacknowledged > sent, 10,
                 "the board's resend while the hub is away")
        hub = make_hub(broker.port, tmp_path / "hub")
        wait_for(lambda: hub.link == "connected", 10, "the hub back")
        _play_until(t, lambda: _acked_seq(t.journal_path, 1) >= gap_end, 15 * RESEND,
                    f"events up to seq {gap_end} of game 1 acknowledged while the board plays on")
        wait_all_in(hub, [t])
    finally:
        t.stop()
        hub.stop()
        broker.stop()


class _Dropping(FakeBroker):
    """Drops the board's journal messages of game 1 with seq in ``lost``, once each."""

    def __init__(self, lost):
        super().__init__()
        self.lost = set(lost)

    def route(self, sender, topic, payload, retain):
        if topic.endswith("/journal") and b'"type":"event","game":1,' in payload:
            seq = int(payload.split(b'"seq":')[1].split(b",")[0])
            if seq in self.lost:
                self.lost.discard(seq)
                return
        super().route(sender, topic, payload, retain)


def test_the_resend_follows_the_oldest_unacknowledged_event(tmp_path):
    """The same without a network: messages lost while later ones are acknowledged."""
    fb = _Dropping(range(3, 8))
    hub = Hub(HubServerConfig(data_dir=tmp_path / "hub"), client_factory=fb.factory).start()
    t = SimTable("table-01", tmp_path / "t.sqlite3", BrokerConfig(), client_factory=fb.factory, window=10_000,
                 resend_after=RESEND, poll=0.05).start()
    try:
        for _ in range(10):
            t.step()
        wait_for(lambda: not fb.lost and _acked_seq(t.journal_path, 1) == 2, 10, "seq 3-7 lost, 0-2 acknowledged")
        _play_until(t, lambda: _acked_seq(t.journal_path, 1) >= 9, 15 * RESEND,
                    "the lost events sent again while the board plays on")
        wait_all_in(hub, [t])
    finally:
        t.stop()
        hub.stop()
