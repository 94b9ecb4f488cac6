"""The computer opponent in the service: searches off the referee's thread.

A referee subscriber. It hears the referee's :class:`~decisions.Thinking` requests (a computer
seat to move, or a person's hint) and answers each with :class:`~decisions.PlayComputerMove` or
:class:`~decisions.ShowHint` through ``submit`` (the referee loop's queue), never by calling the
referee. A later decision that changes the game (a move, an undo, a new game) stops the search
in hand: the referee would drop its answer anyway (the token), so the CPU is given back at once.

``start()`` starts its one thread ("opponent"); without it (the service's ``threaded=False``,
for tests) requests wait until :meth:`run_pending` searches them on the caller's thread.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from decisions import Command, Decision, PlayComputerMove, ShowHint, Thinking
from engine import Engine, EngineError, Limit

log = logging.getLogger(__name__)

# Decisions after which a search in hand is for a position no longer on the table.
_OUTDATING = ("new_game", "accepted", "taken_back")


@dataclass(frozen=True)
class OpponentSettings:
    """``time_scale`` multiplies every level's own time limit (a slower Pi than a Pi 4: more
    than 1 keeps the level's strength; 0 < scale < 1 answers faster). ``seed``: None draws one
    per request from the game and ply, so a replayed game gets the same moves."""

    time_scale: float = 1.0
    seed: int | None = None


class Opponent:
    def __init__(self, submit: Callable[[Command], None], settings: OpponentSettings | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.submit = submit
        self.settings = settings or OpponentSettings()
        self.clock = clock
        self._queue: queue.Queue[Thinking | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._current: Thinking | None = None  # the request being searched
        self._stop_current = threading.Event()
        self.searched: list[tuple[Thinking, object]] = []  # (request, PlayResult): for status and tests

    # -- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="opponent", daemon=True)
            self._thread.start()

    def stop(self, timeout: float | None = 5.0) -> None:
        if self._thread is not None:
            self._stop_current.set()
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    # -- the referee's side ---------------------------------------------------------------------------

    def on_decision(self, decision: Decision) -> None:
        """Only notes: never searches on the referee's thread."""
        if isinstance(decision, Thinking):
            with self._lock:
                current = self._current
            if current is not None and current.purpose == decision.purpose:
                self._stop_current.set()  # a newer request of the same kind outdates it
            self._queue.put(decision)
        elif decision.kind in _OUTDATING:
            with self._lock:
                if self._current is not None:
                    self._stop_current.set()
            self._drop_queued()

    def _drop_queued(self) -> None:
        kept = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                kept.append(item)
        for item in kept:
            self._queue.put(item)

    # -- searching --------------------------------------------------------------------------------------

    def run_pending(self) -> int:
        """Search every waiting request on this thread (the unthreaded service); how many."""
        done = 0
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return done
            if item is not None:
                self._answer(item)
                done += 1

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            self._answer(item)

    def _answer(self, request: Thinking) -> None:
        with self._lock:
            self._current = request
            self._stop_current.clear()
        try:
            result = self.search(request, stop=self._stop_current.is_set)
        except EngineError as exc:  # the position has no move for it: the referee is told, nothing played
            log.error("the computer could not play %s at move %s: %s", request.side, request.ply + 1, exc)
            return
        finally:
            with self._lock:
                self._current = None
        if result is None:
            return
        self.searched.append((request, result))
        if result.stopped:  # outdated while searching: the referee has moved on
            return
        if request.purpose == "hint":
            self.submit(ShowHint(request.token, tuple(result.texts), result.evaluation))
        else:
            self.submit(PlayComputerMove(request.token, tuple(result.texts), result.evaluation))

    def search(self, request: Thinking, *, stop: Callable[[], bool] = lambda: False):
        """The engine's whole turn for ``request`` at its level, within the level's limit."""
        engine = Engine(request.level)
        limit = engine.level.limit
        if limit.time is not None and self.settings.time_scale != 1.0:
            limit = Limit(time=limit.time * self.settings.time_scale, nodes=limit.nodes)
        seed = self.settings.seed if self.settings.seed is not None else f"{request.game}:{request.game_id}:{request.ply}"
        rng = random.Random(seed)
        state = request.state
        if state is None:
            from rules import get_game

            state = get_game(request.game).from_dict(request.position)
        started = time.process_time()
        result = engine.play(state, limit, rng=rng, clock=self.clock, stop=stop)
        log.info("the computer (%s, level %s) %s: %s in %.2f s CPU, %s simulations, evaluation %.2f",
                 request.side, request.level, "hint" if request.purpose == "hint" else "plays",
                 " ".join(result.texts), time.process_time() - started, result.nodes, result.evaluation)
        return result
