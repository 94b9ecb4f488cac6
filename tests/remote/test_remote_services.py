"""Two ``tableref serve`` services in this process, each on its own simulated board and journal,
through a real Mosquitto: invite, join, moves each way carried out on the other board, the
broker killed and restarted mid-game, a move made while it is down; both journals the same game.
(The same end to end with two real processes and chromium: tests/browser/test_browser_remote.py.)"""

from __future__ import annotations

import random
import time

import pytest

from mosquittohelp import MOSQUITTO, Broker
from remotehelp import remote_game, service, show, wait
from rules import Fidelity, get_game

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed (scripts/ensure-mosquitto)")
KIND = Fidelity.KIND


def ply(svc):
    return svc.table.snapshot()["ply"]


def test_two_tables_play_through_a_broker_restart(tmp_path):
    broker = Broker(tmp_path / "broker").start()
    a = service(tmp_path, "table-a", broker.port)
    b = service(tmp_path, "table-b", broker.port)
    try:
        wait(lambda: a.remote_link.status.state == "connected" and b.remote_link.status.state == "connected",
             "both connected")
        code = a.remote_link.invite(("north",), "gyges", {}, "default", "10+5")
        b.remote_link.join(code)
        wait(lambda: b.table.snapshot()["seats"].get("south", "").startswith("remote:table-a:")
             and a.table.snapshot()["seats"].get("north", "").startswith("remote:table-b:"), "the game on both")
        rng = random.Random(34)
        state = get_game("gyges").default_setup()
        tables = {"south": (a, b), "north": (b, a)}
        for n in range(12):
            here, there = tables[state.to_move]
            moves = [m for m in state.legal_moves() if state.successor(m).view(KIND) != state.view(KIND)]
            state = state.successor(rng.choice(moves))
            if n == 5:
                broker.kill()  # mid-game: the move is made while the broker is down
            show(here, state)
            wait(lambda: ply(here) == n + 1, lambda: f"move {n + 1} at its own table: {here.table.snapshot()['board_status']}")
            if n == 5:
                time.sleep(1.0)
                broker.start()
            wait(lambda: (there.table.snapshot()["remote"] or {}).get("turn") and
                 there.table.snapshot()["remote"]["turn"]["steps"], f"move {n + 1} shown at the other table")
            show(there, state)  # carried out there
            wait(lambda: ply(there) == n + 1, f"move {n + 1} carried out at the other table")
        wait(lambda: a.remote_link.status.unacknowledged == 0 and b.remote_link.status.unacknowledged == 0,
             "everything acknowledged")
    finally:
        a.close()
        b.close()
        broker.stop()
    ga, gb = remote_game(a.journal_path), remote_game(b.journal_path)
    assert ga["moves"] == gb["moves"] and len(ga["moves"]) == 12
    assert {k: v for k, v in ga.items() if k != "seats"} == {k: v for k, v in gb.items() if k != "seats"}
    assert ga["seats"] == {"north": "table-b"} and gb["seats"] == {"south": "table-a"}
