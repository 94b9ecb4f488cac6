"""Simulated boards: each a real journal, a real referee and a real MQTT publisher, playing
random legal games as if players moved pieces on a board (the referee sees board views, not
moves). The demo of a club night and the load generator of ``bench/hub_bench.py``.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rules import Fidelity

from decisions import Accepted, Ambiguous, Confirm, Declare, StableView, StartGame
from ..journal import Journal
from ..referee import Referee
from .mqtt import ClientFactory, paho_client
from .publisher import HubPublisher
from .settings import BrokerConfig, HubConfig

log = logging.getLogger(__name__)

FIDELITY = Fidelity.KIND


class SimTable:
    """One simulated table. Not thread-safe: one driver thread calls ``step`` (it is the
    referee's thread); the publisher has its own."""

    def __init__(self, name: str, journal_path: str | Path, broker: BrokerConfig | None, *, game: str = "anacund",
                 seed: int = 0, max_plies: int = 200, client_factory: ClientFactory = paho_client,
                 on_commit: Callable[[str, int, int, float], None] | None = None, **publisher_kw: Any) -> None:
        self.name, self.journal_path, self.broker, self.game = name, Path(journal_path), broker, game
        self.rng = random.Random(seed)
        self.max_plies = max_plies
        self.client_factory, self.publisher_kw = client_factory, publisher_kw
        self.on_commit = on_commit  # (board, game, seq, commit time): the bench's clock starts here
        self.journal: Journal | None = None
        self.referee: Referee | None = None
        self.publisher: HubPublisher | None = None
        self.games_finished = 0
        self.moves = 0  # moves the referee accepted (journalled), all games together

    def start(self) -> "SimTable":
        self.journal = Journal(self.journal_path)
        self.referee = Referee.start(self.journal, self.game, fidelity=FIDELITY, setup="default", computer=False)
        if self.broker is not None:
            self.publisher = HubPublisher(HubConfig(self.broker, self.name), self.journal_path,
                                          client_factory=self.client_factory, **self.publisher_kw)
            self.referee.subscribe(self.publisher.on_decision)
            self.publisher.start()
        self.referee.greeting()
        return self

    def stop(self) -> None:
        if self.publisher is not None:
            self.publisher.stop()
            self.publisher = None
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    def reconnect(self, broker: BrokerConfig) -> None:
        """A new publisher (after being cut off: a new Wi-Fi, or the old one back)."""
        if self.publisher is not None:
            self.publisher.stop()
        self.broker = broker
        self.publisher = HubPublisher(HubConfig(broker, self.name), self.journal_path,
                                      client_factory=self.client_factory, **self.publisher_kw)
        self.referee.subscribe(self.publisher.on_decision)
        self.publisher.start()

    def cut_off(self) -> None:
        """The board loses the hub (its Wi-Fi drops): it goes on refereeing and journalling."""
        if self.publisher is not None:
            self.publisher.stop()
            self.referee._subscribers.remove(self.publisher.on_decision)
            self.publisher = None

    @property
    def over(self) -> bool:
        return self.referee.state.is_game_over()

    def step(self) -> bool:
        """One random legal move, made on the board; True if the game is over after it."""
        ref = self.referee
        state = ref.state
        if state.is_game_over() or len(ref.record.moves) >= self.max_plies:
            self.new_game()
            return False
        moves = list(state.legal_moves())
        unseen = set(state.unseen_moves(FIDELITY))
        seen = [m for m in moves if m not in unseen] or moves
        move = self.rng.choice(seen)
        text = state.move_text(move)
        before = ref.record.next_seq
        if move in unseen:
            out = ref.handle(Declare(text))
        else:
            out = ref.handle(StableView(state.successor(move).view(FIDELITY), time.monotonic()))
            asked = next((d for d in out if isinstance(d, Ambiguous)), None)
            if asked is not None:
                choice = next((c for c in asked.choices if c.text == text or text in c.equivalent), asked.choices[0])
                out = ref.handle(Confirm(choice.number, choice.text))
        accepted = sum(isinstance(d, Accepted) for d in out)
        self.moves += accepted
        if not accepted:
            log.warning("%s: the referee did not take %s: %s", self.name, text, [d.kind for d in out])
        if self.on_commit is not None:
            now = time.time()
            for seq in range(before, ref.record.next_seq):
                self.on_commit(self.name, ref.record.id, seq, now)
        if ref.state.is_game_over():
            self.games_finished += 1
            return True
        return False

    def new_game(self) -> None:
        self.referee.handle(StartGame(self.game, setup="default",
                                      board=self._default_view()))

    def _default_view(self) -> Any:
        from rules import get_game

        game = get_game(self.game)
        return game.default_setup(game.parse_options({})).view(FIDELITY)

    def play_game(self) -> None:
        """Moves until the game is over (or ``max_plies``)."""
        for _ in range(self.max_plies):
            if self.step():
                return


def table_names(n: int, first: int = 1, width: int = 2) -> list[str]:
    width = max(width, len(str(first + n - 1)))
    return [f"table-{i:0{width}d}" for i in range(first, first + n)]


def start_tables(boards: int, broker: BrokerConfig, directory: Path, *, game: str = "anacund", seed: int = 1,
                 password_dir: Path | None = None, on_commit: Any = None, first: int = 1) -> list[SimTable]:
    """``boards`` tables, started (journals open, publishers connecting). paho waits on its
    sockets with select(), which fails past descriptor 1023: with ~9 descriptors a table
    (journal, outbox, socket), one process holds about 100 tables; more take more processes."""
    directory.mkdir(parents=True, exist_ok=True)
    tables = []
    for i, name in enumerate(table_names(boards, first), start=first - 1):
        b = broker
        if password_dir is not None:
            b = replace(broker, username=name, password_file=password_dir / f"{name}.password")
        tables.append(SimTable(name, directory / f"{name}.sqlite3", b, game=game, seed=seed * 1000 + i,
                               on_commit=on_commit).start())
    return tables


def drive(tables: list[SimTable], *, interval: float = 5.0, duration: float | None = None,
          stop: threading.Event | None = None, seed: int = 1) -> int:
    """Each table plays a move every ``interval`` s on average (exponential gaps), until ``stop``
    is set or ``duration`` passes; one driver thread (the tables' referees are cheap). Returns
    the moves played (accepted and journalled; a step that begins a new game plays none)."""
    stop = stop or threading.Event()
    before = sum(t.moves for t in tables)
    rng = random.Random(seed)
    due = [(time.monotonic() + rng.expovariate(1 / interval), i) for i in range(len(tables))]
    end = None if duration is None else time.monotonic() + duration
    while not stop.is_set() and (end is None or time.monotonic() < end):
        due.sort()
        at, i = due[0]
        wait = at - time.monotonic()
        if wait > 0 and stop.wait(min(wait, 0.5)):
            break
        if at > time.monotonic():
            continue
        tables[i].step()
        due[0] = (at + rng.expovariate(1 / interval), i)
    return sum(t.moves for t in tables) - before


def run_club(boards: int, broker: BrokerConfig, directory: Path, *, game: str = "anacund", interval: float = 5.0,
             duration: float | None = None, stop: threading.Event | None = None, seed: int = 1,
             password_dir: Path | None = None, on_commit: Any = None, first: int = 1) -> tuple[list[SimTable], int]:
    """``tableref hub simulate``: start the tables, play until stopped, stop them; the tables
    and the moves played."""
    tables = start_tables(boards, broker, directory, game=game, seed=seed, password_dir=password_dir,
                          on_commit=on_commit, first=first)
    played = 0
    try:
        played = drive(tables, interval=interval, duration=duration, stop=stop, seed=seed + first)
        drain(tables)
    finally:
        stop_tables(tables)
    return tables, played


def drain(tables: list[SimTable], timeout: float = 15.0) -> bool:
    """Wait (at most ``timeout`` s) until every table's publisher has everything acknowledged:
    stopping at once would leave the last moves in the journals, unsent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(t.publisher is None or (t.publisher.link.connected and not t.publisher.link.unacknowledged)
               for t in tables):
            return True
        time.sleep(0.1)
    return False


def stop_tables(tables: list[SimTable]) -> None:
    """Stop every table at once: a publisher waiting out a reconnection delay takes seconds to
    stop, and 200 of them one after another would take minutes."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=32) as pool:
        list(pool.map(lambda t: t.stop(), tables))
