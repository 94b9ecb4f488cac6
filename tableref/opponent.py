"""The computer opponent in the service: searches off the referee's thread — in a process of
its own.

A referee subscriber. It hears the referee's :class:`~decisions.Thinking` requests (a computer
seat to move, or a person's hint) and answers each with :class:`~decisions.PlayComputerMove` or
:class:`~decisions.ShowHint` through ``submit`` (the referee loop's queue), never by calling the
referee. A later decision that changes the game (a move, an undo, a new game) stops the search
in hand: the referee would drop its answer anyway (the token), so the CPU is given back at once.

Why a process: the search is pure Python, and a thread searching beside the referee takes the
interpreter's lock in 5 ms slices: a person's move then waited 20 ms instead of 3.5 (p50) and
52 instead of 10 (p95) on the bench (bench/opponent_latency.py). A worker process searches on
another core (a Pi has four) and the referee's decisions are as fast as with no computer. It is
spawned at the first request (a table that never plays the computer pays nothing), spawned
again if it dies, and stopped with the service.

``start()`` starts the one thread ("opponent") that talks to the worker; without it (the
service's ``threaded=False``, for tests) requests wait until :meth:`run_pending` searches them
on the caller's thread, in this process.
"""

from __future__ import annotations

import logging
import multiprocessing
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from decisions import Command, Decision, PlayComputerMove, ShowHint, Thinking
from engine import Engine, EngineError, Limit, PlayResult
from rules import RulesError, get_game

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
    process: bool = True  # search in a worker process (False: on the opponent's thread)


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
        self._worker: _Worker | None = None  # spawned at the first request the thread searches

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
        if self._worker is not None:
            self._worker.close()
            self._worker = None

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
            self._answer(item, in_worker=self.settings.process)

    def _answer(self, request: Thinking, *, in_worker: bool = False) -> None:
        with self._lock:
            self._current = request
            self._stop_current.clear()
        try:
            if in_worker:
                result = self._search_in_worker(request)
            else:
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

    def _seed(self, request: Thinking) -> int | str:
        return self.settings.seed if self.settings.seed is not None else f"{request.game}:{request.game_id}:{request.ply}"

    def search(self, request: Thinking, *, stop: Callable[[], bool] = lambda: False) -> PlayResult:
        """The engine's whole turn for ``request`` at its level, within the level's limit, here."""
        state = request.state if request.state is not None else get_game(request.game).from_dict(request.position)
        started = time.process_time()
        result = _play(state, request.level, self.settings.time_scale, self._seed(request), self.clock, stop)
        _log_result(request, result, time.process_time() - started)
        return result

    def _search_in_worker(self, request: Thinking) -> PlayResult | None:
        """The same search in the worker process; ``None`` if the worker died (logged; the next
        request spawns a new one, and the referee asks again at the next change)."""
        if self._worker is None or not self._worker.alive:
            self._worker = _Worker()
        job = (request.game, request.position, request.level, self.settings.time_scale, self._seed(request))
        answer = self._worker.run(job, self._stop_current)
        if answer is None:
            log.error("the computer's search process ended unexpectedly; it is started again at the next request")
            self._worker.close()
            self._worker = None
            return None
        if isinstance(answer, str):
            raise EngineError(answer)
        result, cpu = answer
        _log_result(request, result, cpu)
        return result


def _play(state: Any, level: int, time_scale: float, seed: int | str, clock: Callable[[], float],
          stop: Callable[[], bool]) -> PlayResult:
    engine = Engine(level)
    limit = engine.limit_for(state)
    if limit.time is not None and time_scale != 1.0:
        limit = Limit(time=limit.time * time_scale, nodes=limit.nodes)
    return engine.play(state, limit, rng=random.Random(seed), clock=clock, stop=stop)


def _log_result(request: Thinking, result: PlayResult, cpu: float) -> None:
    log.info("the computer (%s, level %s) %s: %s in %.2f s CPU, %s simulations, evaluation %.2f",
             request.side, request.level, "hint" if request.purpose == "hint" else "plays",
             " ".join(result.texts), cpu, result.nodes, result.evaluation)


class _Worker:
    """One search process and its pipe. Spawned (not forked: the service has threads), so
    it imports only the rules and the engine."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._stop = ctx.Event()
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_worker_main, args=(child, self._stop), name="tableref-opponent",
                                 daemon=True)
        self._proc.start()
        child.close()

    @property
    def alive(self) -> bool:
        return self._proc.is_alive()

    def run(self, job: tuple, stop: threading.Event) -> Any:
        """The worker's answer to ``job``: (PlayResult, CPU seconds), an error text, or
        ``None`` if it died. ``stop`` set meanwhile is passed on: it answers at once, stopped."""
        self._stop.clear()
        try:
            self._conn.send(job)
            while not self._conn.poll(0.05):
                if stop.is_set():
                    self._stop.set()
                if not self._proc.is_alive():
                    return None
            return self._conn.recv()
        except (EOFError, OSError):
            return None

    def close(self) -> None:
        self._stop.set()
        try:
            self._conn.send(None)
        except (OSError, ValueError):
            pass  # already gone
        self._proc.join(2)
        if self._proc.is_alive():
            self._proc.terminate()
            self._proc.join(2)
        self._conn.close()


def _worker_main(conn: Any, stop: Any) -> None:
    """The search process: one job at a time, until told to end (``None``) or the pipe closes."""
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        game, position, level, time_scale, seed = job
        started = time.process_time()
        try:
            state = get_game(game).from_dict(position)
            result = _play(state, level, time_scale, seed, time.monotonic, stop.is_set)
            # The moves themselves stay here: the service reads the turn from its notation.
            answer: Any = (replace(result, moves=()), time.process_time() - started)
        except (EngineError, RulesError) as exc:  # a position it cannot play: said, not a crash
            answer = f"{type(exc).__name__}: {exc}"
        try:
            conn.send(answer)
        except (OSError, ValueError):
            return
