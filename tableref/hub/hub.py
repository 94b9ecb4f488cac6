"""The hub process: subscribes to every board, stores their games, acknowledges what it
has committed, pushes pairings, and keeps the live view the club page streams.

Threads: paho's network thread (``on_message`` decodes and queues, nothing more) and the
writer ("hub-writer"): it takes what is queued in batches, commits each batch to the store
in one transaction, *then* publishes the acknowledgements and the page's updates.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from rules import Fidelity, get_game

from .mqtt import (
    ClientFactory, client_id, configure, is_failure, paho_client, refused_text, start_client, subscription_refused,
)
from .protocol import (
    MAX_PAYLOAD, ROOT, GameEnd, GameEvent, GameHeader, Live, Pairing, ProtocolError, Status, UnseenState, decode, encode,
    topic,
)
from .readable import BAD_DATA, header_fault, record_fault
from .settings import HubServerConfig
from .store import HubStore

log = logging.getLogger(__name__)

# What the hub reads: every board's journal and status (QoS 1: none lost), its live view (QoS 0).
SUBSCRIPTIONS = ((f"{ROOT}/+/journal", 1), (f"{ROOT}/+/status", 1), (f"{ROOT}/+/live", 0))


@dataclass
class Counters:
    received: int = 0
    stored: int = 0  # journal messages committed (repeats included: stored once, counted here)
    malformed: int = 0
    oversized: int = 0
    acks: int = 0
    batches: int = 0

    replaced: int = 0  # games refused: a board's journal replaced under the same name
    unreadable: int = 0  # games stored as sent that the rules cannot read (readable.py; one log line each)

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class BoardView:
    """One table as the club page shows it."""

    name: str
    online: bool = False
    live: Live | None = None
    last_seen: float = 0.0
    last_event: float = 0.0  # the board's commit time of the newest event stored
    events: int = 0  # events stored this run
    view: dict[str, Any] = field(default_factory=dict)  # the position as pieces on spaces
    to_move: str | None = None
    seats: dict[str, str] = field(default_factory=dict)  # the newest game's computer sides: "computer:N"
    seats_game: int = 0

    def to_dict(self) -> dict[str, Any]:
        live = self.live
        return {"name": self.name, "online": self.online, "last_seen": self.last_seen,
                "game": live.game if live else None, "rules": live.name if live else None,
                "ply": live.ply if live else 0, "status": live.status if live else None,
                "last": live.last if live else None, "outcome": live.outcome if live else None,
                "players": live.players if live else {}, "view": self.view, "to_move": self.to_move,
                "clock": live.clock if live else None,
                "last_event": self.last_event,
                "seats": self.seats if live is not None and live.game == self.seats_game else {}}


class Hub:
    def __init__(self, config: HubServerConfig, *, client_factory: ClientFactory = paho_client,
                 batch: int = 500, on_change: Any = None) -> None:
        self.config = config
        self.client_factory, self.batch = client_factory, batch
        self.on_change = on_change  # (kind, data) after each commit: the page's broadcaster
        self.counters = Counters()
        self.boards: dict[str, BoardView] = {}
        self.store: HubStore | None = None
        self.link = "starting"
        self.link_detail = ""
        self._client: Any = None
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._unreadable: dict[tuple[str, int], str] = {}  # (board, game) → why: the writer's thread
        self._undrawn: set[tuple[str, int]] = set()  # (board, game) whose live position did not read, said once

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> "Hub":
        if self._thread is not None:
            return self
        self.store = HubStore(self.config.store_path)
        self._stop.clear()
        self._thread = threading.Thread(target=self._write_forever, name="hub-writer", daemon=True)
        self._thread.start()
        client = self._client = self.client_factory(client_id(self.config.broker, "tableref-hub"), persistent=True)
        configure(client, self.config.broker)
        client.max_queued_messages_set(0)
        start_client(client, self.config.broker, on_connect=self._on_connect, on_disconnect=self._on_disconnect,
                     on_message=self._on_message, on_subscribe=self._on_subscribe)
        return self

    def stop(self) -> None:
        """Stop taking messages, commit what is queued, close the store. Safe twice."""
        client, self._client = self._client, None
        if client is not None:
            client.disconnect()
            client.loop_stop()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None
        if self.store is not None:
            self.store.close()
            self.store = None

    close = stop

    def __enter__(self) -> "Hub":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the broker's side (paho's thread) ---------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if is_failure(reason):
            self.link, self.link_detail = "refused", refused_text(reason)
            log.error("hub: the broker refused the hub: %s", self.link_detail)
            return
        # "connected" once the broker has granted them (_on_subscribe): until then the hub hears nothing.
        self.link, self.link_detail = "subscribing", ""
        client.subscribe(list(SUBSCRIPTIONS))

    def _on_subscribe(self, client: Any, userdata: Any, mid: Any, codes: Any, properties: Any = None) -> None:
        refused = [t for (t, _), code in zip(SUBSCRIPTIONS, codes) if subscription_refused(code)]
        if refused:
            self.link = "refused"
            self.link_detail = f"the broker refused the hub's subscription to {', '.join(refused)}: its ACL must let the hub read them"
            log.error("hub: %s", self.link_detail)
            return
        self.link, self.link_detail = "connected", ""
        log.info("hub: connected to %s", self.config.broker.url)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any = None,
                       properties: Any = None) -> None:
        if self.link != "refused":
            self.link, self.link_detail = "offline", f"lost the broker ({reason}); reconnecting"
            if self._client is not None:  # not on the hub's own stop
                log.warning("hub: %s: %s", self.config.broker.url, self.link_detail)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self.counters.received += 1
        if len(message.payload) > MAX_PAYLOAD:
            self.counters.oversized += 1
            log.warning("hub: dropped %d bytes on %s (at most %d)", len(message.payload), message.topic, MAX_PAYLOAD)
            return
        try:
            board, msg = decode(message.topic, message.payload)
        except ProtocolError as exc:
            self.counters.malformed += 1
            log.warning("hub: dropped a message: %s", exc)
            return
        self._queue.put((board, msg, time.time()))

    # -- the writer's thread ------------------------------------------------------------------------

    def _write_forever(self) -> None:
        while True:
            try:
                first = self._queue.get(timeout=0.2)
            except queue.Empty:
                if self._stop.is_set():
                    return
                continue
            batch = [first]
            while len(batch) < self.batch:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._handle(batch)
            except Exception:  # a store fault must not end the hub: the boards will resend
                log.exception("hub: a batch of %d messages could not be stored; the boards will send it again",
                              len(batch))
                time.sleep(0.5)

    def _handle(self, batch: list[tuple[str, Any, float]]) -> None:
        journal = [(b, m) for b, m, _ in batch if isinstance(m, (GameHeader, GameEvent, GameEnd, UnseenState))]
        for board, m in journal:
            if isinstance(m, GameHeader) and (board, m.game) not in self._unreadable:
                self._unreadable_if(board, m.game, header_fault(
                    {"game": m.name, "options": m.options, "fidelity": m.fidelity, "start": m.start}))
        # The page is told once the batch is written, before the commit's fsync (tens of ms on a
        # busy disk): it shows the boards, whose journals hold the moves. Acknowledgements wait
        # for the commit.
        shown = False

        def show(fresh: list[GameEvent]) -> None:
            nonlocal shown
            shown = True
            self._show(batch, fresh, len(journal))

        acks = self.store.apply(journal, staged=show) if journal else []  # committed before anything is acknowledged
        if not shown:
            self._show(batch, [], 0)
        self.counters.stored += len(journal)
        self.counters.replaced = len(self.store.replaced)
        self.counters.batches += 1
        client = self._client
        for board, ack in acks:
            if client is not None:
                client.publish(topic(board, "ack"), encode(ack), qos=1)
                self.counters.acks += 1
        # A game's moves are read through the rules once it ends (a replay: well under a second
        # for the longest game); one under way is judged where it is shown (hub_web).
        for board, m in journal:
            if isinstance(m, GameEnd) and (board, m.game) not in self._unreadable:
                try:
                    record = self.store.export(board, m.game)
                except KeyError:
                    continue  # no header yet: judged when the end comes again
                self._unreadable_if(board, m.game, record_fault(record))

    def _unreadable_if(self, board: str, game: int, fault: str | None) -> None:
        """Well-formed nonsense (issue 33): kept as the board sent it, acknowledged (the board is
        not held up resending it), counted, and said once, naming where and what."""
        if fault is None or (board, game) in self._unreadable:
            return
        self._unreadable[(board, game)] = fault
        self.counters.unreadable = len(self._unreadable)
        log.warning("hub: %s game %d (%s) is stored as sent but cannot be read through the rules: %s", board, game,
                    topic(board, "journal"), fault)

    def _show(self, batch: list[tuple[str, Any, float]], fresh: list[GameEvent], journal: int) -> None:
        """The tables as the batch leaves them, to the page (never raises: it runs inside the
        store's transaction)."""
        try:
            changed: dict[str, BoardView] = {}
            drawn: dict[str, Live] = {}  # the last live snapshot of each board in the batch: drawn once
            with self._lock:
                for board, m, at in batch:
                    view = self.boards.get(board)
                    if view is None:
                        view = self.boards[board] = BoardView(board)
                    view.last_seen = at
                    if isinstance(m, Status):
                        view.online = m.state == "online"
                    elif isinstance(m, Live):
                        view.live = drawn[board] = m
                        view.online = True
                    elif isinstance(m, GameEvent):
                        view.events += 1
                        view.last_event = max(view.last_event, m.created)
                        view.online = True  # the position itself follows on the live topic
                    if isinstance(m, GameHeader) and m.game >= view.seats_game:
                        view.seats, view.seats_game = dict(m.seats), m.game
                    if isinstance(m, GameHeader) and (view.live is None or view.live.game < m.game):
                        view.live = drawn[board] = Live(m.game, m.name, 0, m.start, "ok", None, None, m.players,
                                                        m.created)
                    changed[board] = view
                for board, live in drawn.items():  # a busy board's earlier snapshots are never shown: not drawn
                    key = (board, live.game)
                    view, to_move, fault = ({}, None, None) if key in self._unreadable else \
                        _pieces(live.name, live.position)
                    if fault is not None and key not in self._undrawn:  # said once a game, not on every move
                        self._undrawn.add(key)
                        log.warning("hub: %s game %d's live position (%s) does not read: %s", board, live.game,
                                    topic(board, "live"), fault)
                    self.boards[board].view, self.boards[board].to_move = view, to_move
                data = [v.to_dict() for v in changed.values()]
            if self.on_change is not None and data:
                # Each event's commit time on its board: a spectator can see how fresh the page is.
                self.on_change("boards", {"boards": data, "journal": journal, "commits": [m.created for m in fresh]})
        except Exception:  # the page's view must never cost the store its batch
            log.exception("hub: the page's update failed")

    # -- the arbiter's side ----------------------------------------------------------------------------

    def push_pairing(self, rnd: int, board: str, players: dict[str, str], control: str | None = None) -> bool:
        """The pairing to the board's command topic (retained: a board that connects later gets it),
        with the round's time control if it has one."""
        client = self._client
        if client is None or self.link != "connected":
            return False
        client.publish(topic(board, "command"), encode(Pairing(rnd, players, self.config.event, control)), qos=1,
                       retain=True)
        return True

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            boards = [v.to_dict() for _, v in sorted(self.boards.items())]
        return {"event": self.config.event, "link": self.link, "link_detail": self.link_detail,
                "boards": boards, "counters": self.counters.to_dict()}


def _pieces(game: str, position: dict[str, Any]) -> tuple[dict[str, Any], str | None, str | None]:
    """The position as the board drawing wants it (pieces per space), who is to move, and why
    it does not read (None: it does)."""
    try:
        state = get_game(game).from_dict(position)
        return state.view(Fidelity.KIND).to_dict(), state.to_move, None
    except BAD_DATA as exc:
        return {}, None, f"{game}: {exc}"
