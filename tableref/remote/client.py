"""The link to the other table, on a thread of its own (docs/remote.md).

The referee never waits on the network: :meth:`RemoteLink.on_decision` (a referee subscriber)
only wakes the link's thread. That thread reads what the referee has committed from the journal
(:class:`~.store.LinkStore`), sends this table's own moves until the other table says it holds
them (:class:`~.link.Sender`), and commits the other table's moves to the journal's inbox before
acknowledging them, then hands them to the referee (:class:`~decisions.remote.RemoteMoves`).
paho's own thread only decodes and queues. The broker, its TLS and credentials are the club
hub's (tableref/hub/mqtt.py).
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from decisions import Command, Decision, Seats
from decisions.remote import RemoteLeft, RemoteMove, RemoteMoves, RemoteOver
from decisions.seats import TABLE_NAME, Seat
from rules import RulesError, get_game

from ..hub.mqtt import ClientFactory, configure, is_failure, paho_client, refused_text, start_client
from ..journal import JournalError
from .settings import RemoteConfig
from .link import Arrival, Sender, judge, wanted_welcome
from .store import LinkStore, MatchGame, welcome_setup
from .wire import CODE, Have, Join, Left, Move, Over, Refused, Welcome, WireError, decode, encode, inbox, topic

log = logging.getLogger(__name__)

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read out over the phone
CODE_LENGTH = 6
MAX_WRONG_CODES = 5  # wrong codes before an invitation is withdrawn (someone guessing)

StartGameFn = Callable[[str, dict[str, Any], str, Seats, "str | None"], None]


@dataclass(frozen=True)
class Invitation:
    code: str
    sides: tuple[str, ...]  # the sides the invited table plays
    game: str
    options: dict[str, Any]
    setup: str
    control: str | None
    wrong: int = 0


@dataclass(frozen=True)
class LinkStatus:
    """For the page and ``/api/health``."""

    state: str = "starting"  # starting | connecting | connected | refused | offline | stopped
    detail: str = ""
    table: str = ""
    peer: str = ""
    match: str = ""
    invite: str = ""  # the open invitation, as read out: "table-a K7M4QX"
    invite_sides: tuple[str, ...] = ()
    joining: str = ""  # the code this table asked to join with, until the game comes
    refused: str = ""  # why the last join was refused
    unacknowledged: int = 0  # this table's moves the other has not confirmed holding (sent or not)
    unsent: int = 0  # of those, the ones not sent on this connection yet (the link down, or just made)
    over: bool = False  # the match's game is finished here (played out, lost on time, or left)
    broker: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "detail": self.detail, "table": self.table, "peer": self.peer,
                "match": self.match, "invite": self.invite, "invite_sides": list(self.invite_sides),
                "joining": self.joining, "refused": self.refused, "unacknowledged": self.unacknowledged,
                "over": self.over}

    def health(self) -> dict[str, Any]:
        """``/api/health``'s ``remote`` (docs/remote.md, "Watching the link")."""
        return {"table": self.table, "broker": self.broker, "state": self.state,
                "connected": self.state == "connected", "detail": self.detail, "peer": self.peer,
                "match": self.match, "over": self.over, "unacknowledged": self.unacknowledged,
                "unsent": self.unsent}


def parse_code(text: str) -> tuple[str, str]:
    """("table-a", "K7M4QX") from what a person types or a link carries: "table-a K7M4QX",
    "table-a:K7M4QX", "table-a.k7m-4qx"."""
    words = text.strip().replace(":", " ").replace(".", " ").replace("/", " ").split()
    if len(words) < 2:
        raise ValueError("expected the inviting table's name and its code, such as 'table-a K7M4QX'")
    table, code = words[0], "".join(words[1:]).replace("-", "").upper()
    if not TABLE_NAME.match(table):
        raise ValueError(f"{table!r} is not a table's name")
    if not CODE.match(code):
        raise ValueError("the code is 4 to 12 letters and digits")
    return table, code


class RemoteLink:
    def __init__(self, config: RemoteConfig, journal_path: str | Path, submit: Callable[[Command], None],
                 start_game: StartGameFn, *, client_factory: ClientFactory = paho_client, resend_after: float = 5.0,
                 poll: float = 0.5, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.config, self.journal_path, self.me = config, Path(journal_path), config.table
        self.submit, self.start_game = submit, start_game
        self.client_factory, self.resend_after, self.poll, self.clock = client_factory, resend_after, poll, clock
        self.wall = wall  # the journal's commit times are the wall clock's, not ``clock``'s
        self.on_status: Callable[[LinkStatus], None] | None = None  # the page's
        self.control_for: Callable[[str], str | None] = lambda game: None  # the configured clock of a game
        self._client: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._inbox: queue.Queue[tuple[str, Any]] = queue.Queue()  # (sender, message) from paho's thread
        self._lock = threading.Lock()
        self._status = LinkStatus(table=config.table, broker=config.broker.url)
        self._epoch = 0  # +1 per connection
        self._invite: Invitation | None = None  # open invitation (this service's run only)
        # Codes accepted, by the table that gave them: its Join comes again until the welcome
        # arrives, and one that comes before the new game is in the journal is no wrong code.
        self._accepted: dict[str, str] = {}
        self._joining: tuple[str, str] | None = None  # (host, code) asked to join
        # the link thread's own
        self._sender = Sender(resend_after)
        self._sender_match = ""
        self._welcome_at: float | None = None
        self._over_at: float | None = None
        self._left_at: float | None = None
        self._over_heard = False
        self._said_have: tuple[str, int, bool] | None = None
        self._handed: tuple[int, int] = (0, 0)  # (game, last ply) of the inbox handed to the referee
        self._conflicts: set[tuple[str, int, str]] = set()
        self._controls: dict[str, str | None] = {}  # match -> the time control this run invited with

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> "RemoteLink":
        if self._thread is not None:
            return self
        self._stop.clear()
        client = self._client = self.client_factory(self.config.broker.username or self.me)
        configure(client, self.config.broker)
        self._set(state="connecting")
        start_client(client, self.config.broker, on_connect=self._on_connect, on_disconnect=self._on_disconnect,
                     on_message=self._on_message, on_connect_fail=self._on_connect_fail)
        self._thread = threading.Thread(target=self._run, name="remote-link", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        client, self._client = self._client, None
        if client is not None:
            client.disconnect()
            client.loop_stop()
        self._set(state="stopped")

    @property
    def status(self) -> LinkStatus:
        return self._status

    def _set(self, **kw: Any) -> None:
        with self._lock:
            new = replace(self._status, **kw)
            if new == self._status:
                return
            if (new.state, new.detail) != (self._status.state, self._status.detail):
                log.info("remote %s: %s%s", self.config.broker.url, new.state, f" ({new.detail})" if new.detail else "")
            self._status = new
        if self.on_status is not None:
            self.on_status(new)

    # -- the page's side (any thread) ------------------------------------------------------------

    def invite(self, sides: tuple[str, ...], game: str, options: dict[str, Any], setup: str,
               control: str | None) -> str:
        """Open an invitation: the other table will play ``sides``. Returns the code as read out."""
        rules = get_game(game)
        opts = rules.parse_options(options)
        control = self.control_for(game) if control is None else control
        if control is not None and control.strip().lower() in ("off", "none", ""):
            control = None
        start = rules.default_setup(opts) if setup == "default" else rules.start(opts)
        unknown = [s for s in sides if s not in start.sides]
        if not sides or unknown or len(sides) >= len(start.sides):
            raise ValueError(f"choose the sides the other table plays, some of: {', '.join(start.sides)}")
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
        self._invite = Invitation(code, tuple(sides), game, dict(opts), setup, control)
        self._set(invite=f"{self.me} {code}", invite_sides=tuple(sides), refused="")
        return f"{self.me} {code}"

    def join(self, text: str) -> None:
        """Ask the inviting table for its game (ValueError: the code cannot be read)."""
        host, code = parse_code(text)
        if host == self.me:
            raise ValueError("that is this table's own invitation")
        self._joining = (host, code)
        self._set(joining=f"{host} {code}", refused="")
        self._wake.set()

    # -- the referee's side (its thread: nothing here may block) --------------------------------

    def on_decision(self, d: Decision) -> None:
        if d.kind in ("accepted", "new_game", "game_over", "flag_fall", "clock"):
            self._wake.set()

    # -- paho's thread ---------------------------------------------------------------------------

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
        if is_failure(reason):
            self._set(state="refused", detail=refused_text(reason))
            return
        client.subscribe(inbox(self.me), qos=1)
        with self._lock:
            self._epoch += 1
        self._set(state="connected", detail="")
        self._wake.set()

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        if self._status.state != "refused" and not self._stop.is_set():
            self._set(state="offline", detail="cannot connect to the broker; retrying, the journal keeps every move")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any = None,
                       properties: Any = None) -> None:
        if self._status.state != "refused" and not self._stop.is_set():
            self._set(state="offline", detail=f"lost the broker ({reason}); reconnecting, the journal keeps every move")

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        try:
            to, sender, msg = decode(message.topic, message.payload)
        except WireError as exc:
            log.warning("remote: dropped a message: %s", exc)
            return
        if to != self.me:
            log.warning("remote: dropped a message for %s (this table is %s)", to, self.me)
            return
        self._inbox.put((sender, msg))
        self._wake.set()

    # -- the link's thread -------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            store = LinkStore(self.journal_path, self.me)
        except JournalError as exc:
            log.error("remote: cannot read the journal: %s", exc)
            return
        epoch = -1
        try:
            while not self._stop.is_set():
                self._wake.wait(self.poll)
                self._wake.clear()
                try:
                    now = self.clock()
                    if epoch != self._epoch and self._status.state == "connected":
                        epoch = self._epoch
                        self._sender.connected(now)
                        self._said_have, self._welcome_at, self._left_at = None, None, None
                    self._step(store, now)
                except (JournalError, RulesError, OSError, ValueError) as exc:
                    log.error("remote link: %s; trying again", exc)
                    self._stop.wait(1.0)
                except Exception:  # the link must outlive a bad moment; it tries again
                    log.exception("remote link failed; trying again")
                    self._stop.wait(1.0)
        finally:
            store.close()

    def _step(self, store: LinkStore, now: float) -> None:
        game = store.current()
        if game is not None and game.match != self._sender_match:
            self._sender, self._sender_match = Sender(self.resend_after), game.match
            self._sender.connected(now)
            self._over_heard, self._said_have, self._welcome_at, self._left_at = False, None, None, None
        self._inbox_changed = False
        self._receive(store, game, now)
        if game is None or self._inbox_changed:
            game = store.current()
        connected = self._status.state == "connected"
        if self._joining is not None:
            if store.has_match(f"{self._joining[0]}.{self._joining[1]}"):
                self._joining = None
                self._set(joining="")
            elif connected:
                self._publish(self._joining[0], Join(self._joining[1]))  # again each wake until the game comes
        if game is None:
            self._set(peer="", match="", unacknowledged=0, unsent=0, over=False)
            return
        self._hand_over(game)
        if connected:
            self._send(game, now)
        mine = game.mine(self.wall())
        self._set(peer=game.peer, match=game.match, unacknowledged=self._sender.unacknowledged(mine),
                  unsent=sum(m.ply > self._sender.sent for m in mine) if connected else
                  self._sender.unacknowledged(mine), over=game.record.finished)

    _inbox_changed = False

    def _receive(self, store: LinkStore, game: MatchGame | None, now: float) -> None:
        kept: list[RemoteMove] = []
        while True:
            try:
                sender, msg = self._inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(msg, Join):
                self._on_join(store, sender, msg)
            elif isinstance(msg, Welcome):
                self._on_welcome(store, sender, msg)
            elif isinstance(msg, Refused):
                if self._joining is not None and (sender, msg.code) == self._joining:
                    self._joining = None
                    self._set(joining="", refused=f"{sender}: {msg.reason}")
            elif game is None or msg.match != game.match or sender != game.peer:
                if self._joining is not None and msg.match == f"{self._joining[0]}.{self._joining[1]}":
                    continue  # the game asked for is being set up here: its moves come again
                log.warning("remote: a %s from %s for match %s dropped: this table plays %s", msg.type, sender,
                            msg.match, f"{game.match} with {game.peer}" if game else "no match")
            elif isinstance(msg, Have):
                self._sender.on_have(msg.ply, now)
                self._over_heard = self._over_heard or msg.over
            elif isinstance(msg, Over):
                self.submit(RemoteOver(game.game_id, msg.ply, msg.outcome))
                self._said_have = None  # answered with a Have saying it is over here
            elif isinstance(msg, Left):
                if not game.record.finished:
                    log.info("remote: %s left match %s (a new game there): the game ends here too", sender, msg.match)
                    self.submit(RemoteLeft(game.game_id, msg.ply))
                self._over_heard = True  # finished there: nothing to tell it
                self._said_have = None  # answered with a Have saying it is over here (once the referee closed it)
            elif isinstance(msg, Move):
                move = self._take(game, msg, kept)
                if move is not None:
                    kept.append(move)
                self._said_have = None  # every move is answered: a lost Have makes a duplicate
        if kept and game is not None:
            store.keep(game.game_id, kept)  # committed before acknowledged
            self._inbox_changed = True

    def _take(self, game: MatchGame, msg: Move, kept: list[RemoteMove]) -> RemoteMove | None:
        held = game.held() + [m.move for m in kept]
        verdict = judge(msg.ply, msg.move, held)
        if verdict is Arrival.CONFLICT and (game.peer, msg.ply, msg.move) not in self._conflicts:
            self._conflicts.add((game.peer, msg.ply, msg.move))
            log.error("remote: %s says move %d was %r; this table holds %r: not kept", game.peer, msg.ply, msg.move,
                      held[msg.ply - 1])
        if verdict is not Arrival.NEXT:
            return None
        s = game.state_after_held()
        for m in kept:
            s = s.apply_text(m.move)
        try:
            if s.is_game_over() or not game.record.seats.is_remote(s.to_move):
                raise RulesError(f"it is {s.to_move}'s move, played at this table")
            s.apply_text(msg.move)
        except RulesError as exc:
            if (game.peer, msg.ply, msg.move) not in self._conflicts:
                self._conflicts.add((game.peer, msg.ply, msg.move))
                log.error("remote: %s's move %d %r refused: %s", game.peer, msg.ply, msg.move, exc)
            return None
        return RemoteMove(msg.ply, msg.move, dict(msg.times))

    def _on_join(self, store: LinkStore, sender: str, msg: Join) -> None:
        inv = self._invite
        if inv is not None and msg.code == inv.code:
            match = f"{self.me}.{inv.code}"
            self._invite = None
            self._accepted[inv.code] = sender
            self._set(invite="", invite_sides=())
            if not store.has_match(match):
                log.info("remote: %s accepted the invitation: match %s", sender, match)
                seats = Seats({s: Seat.remote(sender, match) for s in inv.sides})
                self._controls[match] = inv.control  # the journal's clock row may come after the game's
                self.start_game(inv.game, inv.options, inv.setup, seats, inv.control)
            return
        if self._accepted.get(msg.code) == sender:
            return  # asked again before the welcome came (the game may not be journalled yet)
        game = store.current()
        if game is not None and game.match == f"{self.me}.{msg.code}" and game.peer == sender:
            return  # asked again after a restart here: the welcome is on its way
        log.warning("remote: %s sent a wrong invitation code %r: refused", sender, msg.code)
        self._publish(sender, Refused(msg.code, "no such invitation (or it was withdrawn)"))
        if inv is not None:
            wrong = inv.wrong + 1
            self._invite = None if wrong >= MAX_WRONG_CODES else replace(inv, wrong=wrong)
            if self._invite is None:
                log.warning("remote: %d wrong codes: the invitation is withdrawn", wrong)
                self._set(invite="", invite_sides=())

    def _on_welcome(self, store: LinkStore, sender: str, msg: Welcome) -> None:
        if store.has_match(msg.match):
            self._said_have = None  # the host did not hear us yet: say it again
            return
        if self._joining is None or msg.match != f"{self._joining[0]}.{self._joining[1]}" or sender != self._joining[0]:
            log.warning("remote: a game from %s (match %s) that this table did not ask for: dropped", sender, msg.match)
            return
        theirs = {s: Seat.remote(sender, msg.match) for s, t in msg.sides.items() if t == sender}
        if not theirs or any(t not in (sender, self.me) for t in msg.sides.values()):
            log.warning("remote: %s's game names other tables (%s): dropped", sender, msg.sides)
            return
        log.info("remote: joined %s's game: match %s", sender, msg.match)
        self.start_game(msg.game, dict(msg.options), msg.setup, Seats(theirs), msg.control)

    def _hand_over(self, game: MatchGame) -> None:
        """The inbox's moves past the journal's go to the referee: once each, and again after a
        restart (the referee ignores what it has)."""
        pending = [m for m in game.inbox if m.ply > len(game.record.moves)]
        last = pending[-1].ply if pending else 0
        if pending and (game.game_id, last) != self._handed:
            self._handed = (game.game_id, last)
            self.submit(RemoteMoves(game.game_id, tuple(pending)))

    def _send(self, game: MatchGame, now: float) -> None:
        if game.is_host and wanted_welcome(True, self._sender, now, self._welcome_at, self.resend_after):
            setup = welcome_setup(game)
            if setup is not None:
                self._publish(game.peer, Welcome(game.match, game.record.game, dict(game.record.options), setup,
                                                 game.sides, self._controls.get(game.match, game.control)))
                self._welcome_at = now
        for out in self._sender.due(game.mine(self.wall()), now):
            self._publish(game.peer, Move(game.match, out.ply, out.move, dict(out.times)))
        held = len(game.held())
        finished = game.record.finished
        if (game.match, held, finished) != self._said_have:
            self._said_have = (game.match, held, finished)
            self._publish(game.peer, Have(game.match, held, finished))
        if game.left_here() and not self._over_heard and (self._left_at is None
                                                            or now - self._left_at >= self.resend_after):
            self._publish(game.peer, Left(game.match, len(game.record.moves)))  # until it holds the game over
            self._left_at = now
        if game.lost_here_on_time() and not self._over_heard and game.outcome is not None:
            if self._over_at is None or now - self._over_at >= self.resend_after:
                self._publish(game.peer, Over(game.match, len(game.record.moves), game.outcome))
                self._over_at = now

    def _publish(self, to: str, msg: Any) -> None:
        client = self._client
        if client is not None:
            client.publish(topic(to, self.me), encode(msg), qos=1)

