"""The board side: the journal published to the club hub, on a thread of its own.

The referee never waits on the network: :meth:`HubPublisher.on_decision` (a referee
subscriber) only notes the live board and wakes the publisher's thread. That thread reads
what the referee has committed from the journal (:class:`~.outbox.Outbox`) and publishes it
with QoS 1, at most ``window`` messages ahead of the hub's acknowledgements; the hub
acknowledges after its own commit, and the acknowledgement is written back to the journal.
After any outage (broker, Wi-Fi, hub) everything unacknowledged is sent again, in order:
on reconnecting, and whenever the oldest unacknowledged message stays unacknowledged for
``resend_after`` seconds — even while later ones are acknowledged (a broker that dropped part
of a game leaves a gap the hub cannot fill; the acknowledgements of later games keep coming).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from decisions import (
    Accepted, Ambiguous, Decision, GameOver, Illegal, NewGame, Partial, Restored, TakenBack, UnseenChosen, UnseenMoves,
)
from decisions.clock import Clocks
from .mqtt import ClientFactory, client_id, configure, is_failure, paho_client, refused_text, start_client
from .outbox import Cursor, Outbox
from .protocol import Ack, Live, Pairing, ProtocolError, Status, decode, encode, topic
from .settings import HubConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HubLink:
    """How the board's link to the hub is: for its page and ``tableref status``."""

    state: str  # starting | connecting | connected | refused | offline | stopped
    detail: str = ""
    broker: str = ""
    unacknowledged: int = 0  # journal messages the hub has not confirmed yet
    since: float = 0.0

    @property
    def connected(self) -> bool:
        return self.state == "connected"

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "detail": self.detail, "broker": self.broker,
                "unacknowledged": self.unacknowledged, "connected": self.connected}


@dataclass
class _Sent:
    """What this connection has sent of one game (beyond what the hub has acknowledged)."""

    header: bool
    seq: int
    end: str | None
    unseen: str | None = None


class HubPublisher:
    def __init__(self, config: HubConfig, journal_path: str | Path, *,
                 client_factory: ClientFactory = paho_client, window: int = 100, resend_after: float = 5.0,
                 poll: float = 0.5, clock: Callable[[], float] = time.monotonic, version: str = "") -> None:
        self.config, self.journal_path = config, Path(journal_path)
        self.client_factory, self.window, self.resend_after, self.poll = client_factory, window, resend_after, poll
        self.clock, self.version = clock, version
        self.board = config.board
        self._client: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._inbox: queue.Queue[Any] = queue.Queue()  # acks and commands, from paho's thread
        self._lock = threading.Lock()
        self._link = HubLink("starting", broker=config.broker.url, since=time.time())
        self._epoch = 0  # +1 per connection: what was sent before it is sent again
        self._live: Live | None = None
        self._live_dirty = False
        self.pairing: Pairing | None = None
        self._sent: dict[int, _Sent] = {}  # publisher thread only
        self._oldest: tuple | None = None  # publisher thread only: see _fill
        self.sent_messages = 0
        self.on_players: Callable[[dict[str, str], int | None], None] | None = None  # the board's page
        self.on_control: Callable[[str], None] | None = None  # the round's time control, to the referee

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> "HubPublisher":
        if self._thread is not None:
            return self
        self._stop.clear()
        client = self._client = self.client_factory(client_id(self.config.broker, f"tableref-board-{self.board}"))
        configure(client, self.config.broker)
        client.will_set(topic(self.board, "status"), encode(Status("offline", time.time(), self.version)),
                        qos=1, retain=True)
        self._set_link("connecting")
        start_client(client, self.config.broker, on_connect=self._on_connect, on_disconnect=self._on_disconnect,
                     on_message=self._on_message, on_connect_fail=self._on_connect_fail)
        self._thread = threading.Thread(target=self._run, name="hub-publisher", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Say goodbye (status offline), stop the thread and the client. Safe twice."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        client, self._client = self._client, None
        if client is not None:
            try:
                if self._link.connected:
                    client.publish(topic(self.board, "status"), encode(Status("offline", time.time(), self.version)),
                                   qos=1, retain=True).wait_for_publish(1.0)
            except (RuntimeError, ValueError, OSError) as exc:
                log.info("hub: goodbye not sent: %s", exc)
            client.disconnect()
            client.loop_stop()
        self._set_link("stopped")

    close = stop

    def __enter__(self) -> "HubPublisher":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def link(self) -> HubLink:
        return self._link

    def status(self) -> dict[str, Any]:
        """For ``/api/health`` and ``tableref status``: the link, and the players of the pairing."""
        pairing = self.pairing
        return {**self._link.to_dict(), "board": self.board,
                "players": dict(pairing.players) if pairing else {}, "round": pairing.round if pairing else None}

    def _set_link(self, state: str, detail: str = "", **kw: Any) -> None:
        with self._lock:
            if (state, detail) != (self._link.state, self._link.detail):
                log.info("hub %s: %s%s", self.config.broker.url, state, f" ({detail})" if detail else "")
                self._link = replace(self._link, state=state, detail=detail, since=time.time(), **kw)
            elif kw:
                self._link = replace(self._link, **kw)

    # -- the referee's side (its thread: nothing here may block) ----------------------------------

    def on_decision(self, d: Decision) -> None:
        if isinstance(d, (UnseenMoves, UnseenChosen)):
            self._wake.set()  # the journal's unseen groups changed: the hub gets them anew
            return
        live = self._live
        players = self.pairing.players if self.pairing else {}
        if isinstance(d, NewGame):
            live = Live(d.game_id, d.game, d.ply, d.position, "ok", None, None, players, time.time())
        elif live is None:
            return
        elif isinstance(d, (Accepted, TakenBack)):
            live = replace(live, game=d.game_id, ply=d.ply, position=d.position, status="ok", outcome=None,
                           last=d.move if isinstance(d, Accepted) else None, at=time.time())
        elif isinstance(d, GameOver):
            live = replace(live, outcome=d.outcome, at=time.time())
        elif isinstance(d, Clocks):  # every table's clocks live on the club page (docs/clock.md)
            shown = {"control": d.control, "times": dict(d.times), "running": d.running, "paused": d.paused,
                     "flagged": d.flagged, "at": time.time()}
            live = replace(live, clock=shown, at=time.time())
        elif isinstance(d, (Partial, Illegal, Ambiguous, Restored)):
            live = replace(live, status="ok" if isinstance(d, Restored) else d.kind, at=time.time())
        else:
            return
        self._live, self._live_dirty = live, True
        self._wake.set()

    # -- paho's thread ------------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if is_failure(reason):
            self._set_link("refused", refused_text(reason))
            return
        client.publish(topic(self.board, "status"), encode(Status("online", time.time(), self.version)),
                       qos=1, retain=True)
        client.subscribe([(topic(self.board, "ack"), 1), (topic(self.board, "command"), 1)])
        with self._lock:
            self._epoch += 1
        self._live_dirty = self._live is not None
        self._set_link("connected")
        self._wake.set()

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        if self._link.state != "refused" and not self._stop.is_set():
            self._set_link("offline", "cannot connect to the broker (network, address, or its TLS certificate "
                                      "not signed by ca_file); retrying, the journal keeps every move")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any = None,
                       properties: Any = None) -> None:
        if self._link.state != "refused" and not self._stop.is_set():
            self._set_link("offline", f"lost the broker ({reason}); reconnecting, the journal keeps every move")

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            _, msg = decode(message.topic, message.payload)
        except ProtocolError as exc:
            log.warning("hub: dropped a message: %s", exc)
            return
        self._inbox.put(msg)
        self._wake.set()

    # -- the publisher's thread ---------------------------------------------------------------

    def _run(self) -> None:
        outbox = Outbox(self.journal_path)
        low, epoch = 0, -1
        progress_at = self.clock()
        oldest: tuple | None = None  # the oldest message the hub has not acknowledged, as last seen
        try:
            while not self._stop.is_set():
                woken = self._wake.wait(self.poll)
                if woken:
                    # Cleared only when seen set: a move committed between a timed-out wait and
                    # the clear would be erased, and its journal not read until the next move.
                    self._wake.clear()
                try:
                    self._drain(outbox)
                    if self._oldest != oldest:
                        # Progress is the oldest unacknowledged message acknowledged, not any
                        # acknowledgement: a gap the broker left (its queue full while the hub was
                        # away) stays open while later events and games are acknowledged (issue 33).
                        oldest, progress_at = self._oldest, self.clock()
                    if not self._link.connected:
                        continue
                    if epoch != self._epoch:
                        epoch, progress_at = self._epoch, self.clock()
                        self._sent.clear()  # a new connection: every unacknowledged message again
                    elif self._link.unacknowledged and self.clock() - progress_at > self.resend_after:
                        log.info("hub: %s not acknowledged for %.0f s: sending the unacknowledged again",
                                 _describe(oldest), self.resend_after)
                        self._sent.clear()
                        progress_at = self.clock()
                    elif not woken:
                        continue  # nothing new: the journal is not read again (200 boards on one hub PC)
                    self._publish_live()
                    low = self._fill(outbox, low, self._sent)
                except Exception:  # the publisher must outlive a bad moment; it tries again
                    log.exception("hub publisher failed; retrying")
                    self._stop.wait(1.0)
        finally:
            outbox.close()

    def _drain(self, outbox: Outbox) -> None:
        while True:
            try:
                msg = self._inbox.get_nowait()
            except queue.Empty:
                return
            if isinstance(msg, Ack):
                outbox.ack(msg)
            elif isinstance(msg, Pairing):
                self.pairing = msg
                self._apply_pairing(outbox)
                if msg.control is not None and self.on_control is not None:
                    self.on_control(msg.control)  # the round's time control (docs/clock.md)

    def _apply_pairing(self, outbox: Outbox) -> None:
        """The pairing names the players of the game under way when it comes, else of the next
        game begun; once a game of its round has ended with a result, it names no other."""
        latest = outbox.latest_game()
        if self.pairing is None or latest is None or outbox.round_spent(self.pairing.round):
            return
        game, finished = latest
        players = dict(self.pairing.players)
        if not finished and outbox.set_players(game, players, self.pairing.round):
            self._sent.pop(game, None)  # its header goes again, with the names
        if self._live is not None:
            self._live, self._live_dirty = replace(self._live, players=players), True
        if self.on_players is not None:
            self.on_players(players, self.pairing.round)

    def _publish(self, leaf: str, payload: bytes, *, qos: int = 1, retain: bool = False) -> None:
        client = self._client
        if client is not None:
            client.publish(topic(self.board, leaf), payload, qos=qos, retain=retain)
            self.sent_messages += 1

    def _publish_live(self) -> None:
        if self._live_dirty and self._live is not None:
            self._live_dirty = False
            self._publish("live", encode(self._live), qos=0, retain=True)

    def _fill(self, outbox: Outbox, low: int, sent: dict[int, _Sent]) -> int:
        """Publish what is next of every game not yet all in, keeping ``window`` in flight."""
        cursors = outbox.cursors(low)
        if cursors and self.pairing is not None and not cursors[-1].finished:
            if not outbox.players(cursors[-1].game)[0]:  # a game begun since the pairing came
                self._apply_pairing(outbox)
                cursors = outbox.cursors(low)
        budget = self.window - sum(self._in_flight(c, sent) for c in cursors)
        waiting = 0
        for c in cursors:
            s = sent.setdefault(c.game, _Sent(c.header_acked, c.acked_seq, c.acked_end, c.acked_unseen))
            s.seq = max(s.seq, c.acked_seq)
            s.header = s.header or c.header_acked
            if not s.header and budget > 0:
                self._publish("journal", encode(outbox.header(c.game)))
                s.header, budget = True, budget - 1
            if s.seq < c.last_seq and budget > 0:
                for event in outbox.events(c.game, s.seq, budget):
                    self._publish("journal", encode(event))
                    s.seq, budget = event.seq, budget - 1
            if c.finished and s.seq == c.last_seq and s.end != c.end_key and budget > 0:
                end = outbox.end(c.game)
                if end is not None:
                    self._publish("journal", encode(end))
                    s.end, budget = end.key, budget - 1
            if c.unseen_due and s.seq == c.last_seq and s.unseen != c.unseen_key and budget > 0:
                # after the events it rewrites: the hub has them to rewrite
                state = outbox.unseen(c.game)
                self._publish("journal", encode(state))
                s.unseen, budget = state.key, budget - 1
            waiting += (not c.header_acked) + (c.last_seq - c.acked_seq) + (c.finished and c.acked_end != c.end_key) \
                + c.unseen_due
        self._oldest = next((_first_waiting(c) for c in cursors if _first_waiting(c) is not None), None)
        self._set_link(self._link.state, self._link.detail, unacknowledged=waiting)
        # Games wholly in (and never to change: a later game exists) are not read again.
        for c in cursors[:-1]:
            if not c.settled:
                break
            low = c.game + 1
            sent.pop(c.game, None)
        return low

    @staticmethod
    def _in_flight(c: Cursor, sent: dict[int, _Sent]) -> int:
        s = sent.get(c.game)
        if s is None:
            return 0
        return (s.header and not c.header_acked) + max(0, s.seq - c.acked_seq) + \
            (s.end is not None and s.end != c.acked_end) + (s.unseen is not None and s.unseen != c.acked_unseen)


def _first_waiting(c: Cursor) -> tuple | None:
    """What the hub lacks first of this game (in the order it is sent), or None."""
    if not c.header_acked:
        return (c.game, "header")
    if c.acked_seq < c.last_seq:
        return (c.game, "event", c.acked_seq + 1)
    if c.finished and c.acked_end != c.end_key:
        return (c.game, "end", c.end_key)
    if c.unseen_due:
        return (c.game, "unseen", c.unseen_key)
    return None


def _describe(oldest: tuple | None) -> str:
    if oldest is None:
        return "nothing"
    game, what, *rest = oldest
    return f"game {game}'s {what}" + (f" {rest[0]}" if what == "event" else "")
