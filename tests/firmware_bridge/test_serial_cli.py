"""`tableref simulate-board` in its own process, refereed by `tableref referee-serial` over the
pty it prints; and bad input gives one clear line and exit 2."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from rules import Fidelity, explain, get_game
from tableref.journal import Journal
from tableref.board_leds import leds_for
from tableref.cli.serial import main
from tableref.sources.sim import render_script

ROOT = Path(__file__).resolve().parents[2]
WIRING_FILE = ROOT / "firmware_bridge" / "wiring" / "gyges.json"


def plain_moves():
    """Two moves from the default setup that a reed board shows unambiguously."""
    s = get_game("gyges").default_setup()
    for m in s.legal_moves():
        n = s.successor(m)
        if "/" in s.move_text(m) or explain(s, n.view(Fidelity.OCCUPANCY), Fidelity.OCCUPANCY).verdict.value != "legal":
            continue
        for m2 in n.legal_moves():
            after = n.successor(m2)
            if "/" not in n.move_text(m2) and explain(n, after.view(Fidelity.OCCUPANCY), Fidelity.OCCUPANCY).verdict.value == "legal":
                return s, [m, m2]
    raise AssertionError("no plain moves")


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_simulated_board_refereed_by_referee_serial(tmp_path):
    start, moves = plain_moves()
    script = render_script(start, moves, fidelity=Fidelity.OCCUPANCY, seed=3, noise=False)
    script_file = tmp_path / "two.jsonl"
    script.dump(script_file)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sim = subprocess.Popen(
        [sys.executable, "-m", "tableref.cli.serial", "simulate-board", "--script", str(script_file),
         "--speed", "5", "--hold", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, text=True)
    try:
        device = sim.stdout.readline().strip()
        assert device.endswith("ttyBOARD"), sim.stderr.read()
        journal = tmp_path / "j.sqlite3"
        code, out, err = run(["referee-serial", "--port", device, "--wiring", str(WIRING_FILE), "--setup", "default",
                              "--journal", str(journal), "--json", "--settle", "0.2",
                              "--timeout", str(script.duration / 5 + 1.5)])
    finally:
        sim.terminate()
        sim.wait(10)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [d["move"] for d in lines if d["kind"] == "accepted"] == [start.move_text(moves[0]),
                                                                   start.successor(moves[0]).move_text(moves[1])]
    board_states = [d["state"] for d in lines if d["kind"] == "board"]
    assert board_states[:3] == ["connecting", "syncing", "connected"] and board_states[-1] == "closed"
    with Journal(journal) as j:
        assert len(j.load(j.games()[0].id).moves) == 2


def test_referee_serial_refuses_a_bad_wiring_file(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text('{"wiring": 1, "game": "gyges", "channels": []}')
    code, out, err = run(["referee-serial", "--port", "loop://", "--wiring", str(bad)])
    assert code == 2 and err.startswith(f"tableref: {bad}: 'channels'") and err.count("\n") == 1


def test_simulate_board_refuses_a_bad_fault_and_a_script_of_another_game(tmp_path):
    code, out, err = run(["simulate-board", "--fault", "melt=1"])
    assert code == 2 and "unknown fault 'melt'" in err
    code, out, err = run(["simulate-board", "--fault", "drop=2"])
    assert code == 2 and "drop|flip|garbage=CHANCE" in err
    other = tmp_path / "other.jsonl"
    other.write_text('{"board_script": 1, "game": "anacund", "fidelity": "occupancy"}\n')
    code, out, err = run(["simulate-board", "--script", str(other)])
    assert code == 2 and "cannot play on a gyges board" in err


def test_leds_show_where_a_piece_must_go_and_what_to_put_right():
    from rules.explain import SpaceFix
    from decisions import Accepted, Illegal, Partial

    partial = Partial(1, 0, ("a1-a3",), (SpaceFix("a3", ("occupied",), ()), SpaceFix("b2", (), ("occupied",))))
    assert {k: v.name for k, v in leds_for(partial).items()} == {"a3": "ON", "b2": "BLINK"}
    illegal = Illegal(1, 0, (SpaceFix("a5", (), ("occupied",)),))
    assert {k: v.name for k, v in leds_for(illegal).items()} == {"a5": "BLINK"}
    assert leds_for(Accepted(1, 1, "a1-a3", "", {})) == {}
