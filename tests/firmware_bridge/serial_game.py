"""Shared by the serial board tests: the sample Gygès game as an occupancy board script, and
a referee pipeline that confirms ambiguous readings with the known game."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager

from firmware_bridge.serial_board import CONNECTED, SerialBoard
from firmware_bridge.simulator import BoardSimulator
from firmware_bridge.wiring import Wiring
from rules import Fidelity, get_game
from decisions import Ambiguous, Confirm, Decision, StableView
from tableref.referee import Referee, RefereeLoop
from tableref.serve import Service
from tableref.service import SerialFeed
from tableref.sources.sample import sample_game
from tableref.sources.sim import render_script
from tableref.stabiliser import Stabiliser

SPEED = 10.0  # script seconds per wall second: the 94 s sample plays in under 10 s


def game_states(moves_count: int | None = None):
    start, moves = sample_game()
    moves = moves if moves_count is None else moves[:moves_count]
    states = [start]
    for m in moves:
        states.append(states[-1].successor(m))
    return start, moves, states


def occupancy_script(moves_count: int | None = None, seed: int = 13):
    """What a reed-switch board reads of the sample game (hands do not show on reeds)."""
    start, moves, states = game_states(moves_count)
    return render_script(start, moves, fidelity=Fidelity.OCCUPANCY, seed=seed), states


def confirmer(referee: Referee, states: Sequence) -> Callable[[Ambiguous], int | None]:
    """Pick the choice that leads to the known game's next position(s), as the players would."""

    def choose(question: Ambiguous) -> int | None:
        here = referee.state
        for choice in question.choices:
            if choice.takeback:
                continue
            s = here
            texts = choice.text.split()
            for text in texts:
                s = s.successor(s.parse_move(text))
            if referee.ply + len(texts) < len(states) and s == states[referee.ply + len(texts)]:
                return choice.number
        return None

    return choose


def referee_board(board: SerialBoard, referee: Referee, stabiliser: Stabiliser, states: Sequence,
                  *, deadline: float, stop: threading.Event | None = None) -> list[Decision]:
    """tableref.service.play_observations, plus the players' confirmations through the
    referee's own queue; ends at game over, at ``stop``, or at ``deadline``."""
    decisions: list[Decision] = []
    loop = RefereeLoop(referee, latest_view_only=False)  # as play_observations: the script runs at 10x, every view counts
    choose = confirmer(referee, states)
    finished = threading.Event()

    def on_decision(d: Decision) -> None:
        decisions.append(d)
        if isinstance(d, Ambiguous):
            n = choose(d)
            if n is not None:
                # The players answer at once, on the referee's own thread, before anything
                # else is handled: a Confirm(n) queued behind the next board view would be
                # read against that view's question (choice numbers are not tied to a question).
                referee.handle(Confirm(n))
        if d.kind == "game_over" or (d.kind == "accepted" and d.ply >= len(states) - 1):
            finished.set()

    referee.subscribe(on_decision)
    loop.start()
    try:
        for obs in board.observations():
            view = stabiliser.feed(obs)
            if view is not None:
                loop.submit(StableView(view, obs.time))
            if finished.is_set() or (stop is not None and stop.is_set()) or time.monotonic() > deadline:
                break
    finally:
        loop.stop()
    return decisions


def wait_until(what: str, condition: Callable[[], object], timeout: float = 20.0):
    """``condition()``'s first true answer, polled every 10 ms; AssertionError naming ``what``
    after ``timeout`` seconds (generous: a machine busy with other work)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = condition()
        if found:
            return found
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def lit_spaces(sim, wiring) -> dict[str, str]:
    """The simulated firmware's LED states by space, those not off."""
    from firmware_bridge.protocol import Led

    states = sim.leds()
    return {space: states[ch].name for space, ch in wiring.channels.items() if states and states[ch] != Led.OFF}


@contextmanager
def gyges_service_on_firmware(tmp_path, deadline: float = 20.0, **service_options):
    """A Gygès ``tableref serve`` service refereeing the reference firmware behind a pty, the
    board set up and connected: yields (the simulated board, its feed, the service, the
    decisions it has published so far)."""
    wiring = Wiring.builtin("gyges")
    sim = BoardSimulator(wiring, scan_ms=2)
    with sim:
        sim.set_view(get_game("gyges").default_setup().view(wiring.fidelity))  # set up before switching on
        feed = SerialFeed(str(sim.device_path), wiring, baudrate=115200)
        service = Service(tmp_path / "journal.sqlite3", tmp_path / "admin.json", game="gyges", setup="default",
                          settle=0.1, readings=2, feed=feed, **service_options)
        with service:
            decisions: list[Decision] = []
            service.referee.subscribe(decisions.append)
            wait_until("the board connected", lambda: feed.board.status.state == CONNECTED, deadline)
            yield sim, feed, service, decisions
