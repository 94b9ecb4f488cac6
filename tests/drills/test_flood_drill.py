"""Drill: a broken source floods the service with 10^4 observations a second.

A sensor gone mad pours out readings — random garbage, a loose space flickering, the whole
board hidden and shown, its clock stepping backwards — at 10,000 a second through the
stabiliser into the referee's thread (``play_observations``, as ``tableref run`` and the
serial source use it) for a few seconds (1.5 s quick, 5 s with ``TABLEREF_DRILLS=full``).
Memory stays bounded (tracemalloc), no garbage is ever accepted as a move, and the players'
commands (Confirm, Undo) are still answered within half a second throughout.

The second test: a source whose *clock* is broken too (racing ahead) makes every third
garbage reading "stable"; the referee's loop keeps only the newest pending board view, so a
Confirm is answered after at most a couple of views, not hundreds. The third: an observation
with no time (NaN) never settles.
"""

from __future__ import annotations

import random
import threading
import time
import tracemalloc


from drills_common import strength
from rules import Fidelity, Observation, View, get_game
from decisions import Confirm, StableView, Undo
from tableref.journal import Journal
from tableref.referee import Referee, RefereeLoop
from tableref.service import play_observations
from tableref.stabiliser import Stabiliser

RATE = 10_000
SECONDS = strength(1.5, 5.0)
ANSWER_BOUND = 0.5  # seconds for a Confirm or an Undo to be answered
GAME = get_game("gyges")
SPACES = sorted(GAME.board().space_ids)


def broken_source(rng: random.Random, board: View, seconds: float):
    """10^4 observations a second, paced on the wall clock, of every kind of wrong."""
    t0 = time.monotonic()
    n = 0
    while (now := time.monotonic()) - t0 < seconds:
        due = int((now - t0) * RATE)
        while n < due:
            n += 1
            kind = n % 4
            stamp = now - (0.5 if rng.random() < 0.01 else 0.0)  # now and then time steps back
            if kind == 0:  # garbage: random pieces on random spaces
                view = View({s: (rng.choice("123"),) for s in rng.sample(SPACES, rng.randint(0, 14))})
                yield Observation(view, stamp, Fidelity.KIND, "broken")
            elif kind == 1:  # a loose space flickering on the real board
                flicker = dict(board.items())
                flicker[rng.choice(SPACES)] = ("2",)
                yield Observation(View(flicker), stamp, Fidelity.KIND, "broken")
            elif kind == 2:  # the board hidden
                yield Observation(View(), stamp, Fidelity.KIND, "broken", frozenset(SPACES))
            else:
                yield Observation(board, stamp, Fidelity.KIND, "broken")
        time.sleep(0.0005)


def test_flood_of_observations_memory_bounded_and_referee_answers(tmp_path):
    rng = random.Random(5)
    start = GAME.default_setup()
    answers: list[tuple[float, str]] = []
    accepted = []
    loops: list[RefereeLoop] = []
    waits: list[float] = []

    def on_decision(d) -> None:
        if d.kind == "rejected":
            answers.append((time.monotonic(), d.command))
        elif d.kind == "accepted":
            accepted.append(d)

    def players() -> None:
        # Confirm and Undo all through the flood (no question is open, no move was made:
        # each must be answered, with a refusal, and quickly).
        time.sleep(0.1)
        end = time.monotonic() + SECONDS - 0.2
        k = 0
        while time.monotonic() < end:
            before = len(answers)
            t = time.monotonic()
            loops[0].submit(Confirm(1) if k % 2 == 0 else Undo())
            while len(answers) == before and time.monotonic() - t < 5:
                time.sleep(0.001)
            waits.append(time.monotonic() - t)
            k += 1
            time.sleep(0.05)

    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, "gyges", start=start)
        tracemalloc.start()
        try:
            base, _ = tracemalloc.get_traced_memory()
            poker = threading.Thread(target=players, daemon=True)
            # The players start once the loop exists: handed over by play_observations.
            play_observations(referee, broken_source(rng, start.view(Fidelity.KIND), SECONDS), Stabiliser(),
                              on_decision=on_decision, on_loop=lambda loop: (loops.append(loop), poker.start()))
            poker.join()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        record = journal.load(referee.record.id)
    assert len(waits) >= 5
    assert max(waits) < ANSWER_BOUND, f"slowest answer {max(waits):.3f} s"
    assert (peak - base) < 5_000_000, f"{(peak - base) / 1e6:.1f} MB more at the peak"
    assert not accepted and record.moves == [], "garbage was accepted as a move"


def test_flood_with_a_racing_clock_still_answers_confirm_promptly(tmp_path):
    start = GAME.default_setup()
    board = start.view(Fidelity.KIND)
    lifted = View({s: t for s, t in board.items() if s != "b1"})  # a ring in the hand: partial
    decisions: list[str] = []
    stabiliser = Stabiliser()
    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, "gyges", start=start)
        referee.subscribe(lambda d: decisions.append(d.command if d.kind == "rejected" else d.kind))
        loop = RefereeLoop(referee)
        loop.start()
        try:
            clock = 0.0
            for n in range(600):  # 0.06 s of a 10^4/s flood, its clock a second a reading
                clock += 1.0
                obs = Observation(lifted if (n // 3) % 2 else board, clock, Fidelity.KIND, "broken")
                view = stabiliser.feed(obs)
                if view is not None:
                    loop.submit(StableView(view, obs.time))
            mark = len(decisions)
            loop.submit(Confirm(1))
        finally:
            loop.stop(30)
    answered_after = decisions[mark:].index("confirm 1")
    # Coalesced (only the newest board matters), at most a couple of views go before it.
    assert answered_after <= 3, f"{answered_after} superseded views were judged before the Confirm"


def test_a_source_with_no_clock_never_settles_a_view():
    stabiliser = Stabiliser()
    board = GAME.default_setup().view(Fidelity.KIND)
    got = [stabiliser.feed(Observation(board, float("nan"), Fidelity.KIND, "broken")) for _ in range(10)]
    assert got == [None] * 10
