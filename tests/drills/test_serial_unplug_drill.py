"""Drill: the serial cable pulled at random moments of busy traffic, so at random byte positions.

The reference firmware runs on the simulator behind a pty; a player keeps moving pieces (a
change frame every few milliseconds, plus heartbeats and full scans), and the cable is
pulled (the simulator's unplug fault: the pty closes, the board loses power) at random
times for random spells, cutting the stream wherever it happens to be — mid-frame, between
frames, mid-handshake. Afterwards: the link never handed out a reading the board did not
have, it said "nothing is known" while the cable was out, it came back every time, and its
last reading is the board as it stands. Quick: 4 pulls; ``TABLEREF_DRILLS=full``: 20.
"""

from __future__ import annotations

import random
import threading
import time

from drills_common import strength
from firmware_bridge.serial_board import CONNECTED, DISCONNECTED, SerialBoard
from firmware_bridge.simulator import BoardSimulator
from firmware_bridge.wiring import Wiring
from rules import Fidelity, get_game

WIRING = Wiring.builtin("gyges")
PULLS = int(strength(4, 20))


def busy_views(n: int, seed: int):
    """Positions of a random Gygès game at occupancy: what the player keeps setting up."""
    rng = random.Random(seed)
    state = get_game("gyges").default_setup()
    views = [state.view(Fidelity.OCCUPANCY)]
    while len(views) < n and not state.is_game_over():
        state = state.successor(rng.choice(state.legal_moves()))
        views.append(state.view(Fidelity.OCCUPANCY))
    return views


def test_cable_pulled_at_random_points_of_the_stream(tmp_path):
    rng = random.Random(7)
    views = busy_views(40, 3)
    observations = []
    statuses = []
    sim = BoardSimulator(WIRING, scan_ms=2, debounce=2, heartbeat_ms=50, full_scan_ms=300, seed=11)
    board = SerialBoard(str(sim.device_path), WIRING, tick=0.01, backoff=(0.01, 0.05))
    board.subscribe_status(statuses.append)
    playing = threading.Event()
    playing.set()

    def player() -> None:
        k = 0
        while playing.is_set():
            sim.set_view(views[k % len(views)])
            k += 1
            time.sleep(rng.uniform(0.003, 0.02))

    def consume() -> None:
        for obs in board.observations():
            observations.append(obs)

    with sim, board:
        reader = threading.Thread(target=consume, daemon=True)
        reader.start()
        deadline = time.monotonic() + 5
        while board.status.state != CONNECTED and time.monotonic() < deadline:
            time.sleep(0.005)
        assert board.status.state == CONNECTED
        mover = threading.Thread(target=player, daemon=True)
        mover.start()
        for pull in range(PULLS):
            time.sleep(rng.uniform(0.05, 0.4))  # a random point of the traffic
            sim.unplug(rng.uniform(0.05, 0.3))
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not (
                    board.stats.disconnects > pull and board.status.state == CONNECTED):
                time.sleep(0.002)  # the next pull once the link is back
            assert board.status.state == CONNECTED, f"pull {pull}: the link did not come back"
        time.sleep(0.5)
        playing.clear()
        mover.join()
        final = views[7]
        sim.set_view(final)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (
                board.status.state == CONNECTED and observations and observations[-1].view == final
                and not observations[-1].unreadable):
            time.sleep(0.01)
        truth = sim.views_seen()
        last = observations[-1]
    reader.join(5)

    assert sim.stats.unplugs == PULLS
    # Every pull was noticed and recovered from: one connection per plug-in.
    assert board.stats.connects == PULLS + 1, board.stats
    names = [s.state for s in statuses]
    assert names.count(DISCONNECTED) >= 1 and CONNECTED in names[names.index(DISCONNECTED):]
    # Never a reading the board did not have, however the stream was cut.
    complete = [o.view for o in observations if not o.unreadable]
    wrong = {v for v in complete if v not in truth}
    assert not wrong, f"{len(wrong)} readings the board never had"
    # While the cable was out the link said it knew nothing (every space unreadable).
    outages = [o for o in observations if o.unreadable]
    assert outages and all(o.unreadable == WIRING.space_ids and not o.view for o in outages)
    # And once back, it reads the board as it stands.
    assert (last.view, last.unreadable) == (final, frozenset())
