"""referee-serial's questions can be answered (issue 33, item 6): an occupancy board cannot
tell the first Gygès move from a bump, and the answer is typed on stdin; simulate-board can
wait for the referee before playing; a board that goes away is said to be waited for."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from decisions import Ambiguous, Choice, Confirm, Undo
from firmware_bridge.simulator import BoardSimulator
from firmware_bridge.wiring import Wiring
from rules import Fidelity, get_game
from tableref.cli.answers import NOBODY, TerminalAnswers
from tableref.cli.serial import main
from tableref.sources.sim import render_script

ROOT = Path(__file__).resolve().parents[2]
WIRING_FILE = ROOT / "firmware_bridge" / "wiring" / "gyges.json"
QUESTION = Ambiguous(1, 0, (Choice(1, "a1-a2", "a1 to a2"), Choice(2, "a1-b1/a2", "a1 bumps b1 to a2")))


def test_a_typed_number_confirms_that_choice_of_the_question_shown():
    sent, err = [], io.StringIO()
    answers = TerminalAnswers(sent.append, stdin=io.StringIO(""), err=err, readable=True)
    answers.on_decision(QUESTION)
    assert "answer 1/2" in err.getvalue()
    answers.answer("2\n")
    answers.answer("u\n")
    answers.answer("7\n")
    assert sent == [Confirm(2, "a1-b1/a2"), Undo()]
    assert "'7': type 1/2, or u" in err.getvalue()


def test_where_nobody_can_answer_the_first_question_says_the_way_that_works():
    err = io.StringIO()
    answers = TerminalAnswers(lambda c: None, stdin=io.StringIO(""), err=err, readable=False)
    answers.on_decision(QUESTION)
    answers.on_decision(QUESTION)
    assert err.getvalue() == f"tableref: {NOBODY}\n"


def test_the_simulated_board_waits_for_the_referee_before_playing():
    start = get_game("gyges").default_setup()
    move = start.parse_move("a1-a2")
    script = render_script(start, [move], fidelity=Fidelity.OCCUPANCY, seed=1, noise=False)
    wiring = Wiring.from_file(WIRING_FILE)
    with BoardSimulator(wiring, frames=script.frames, speed=50, wait_for_host=True) as sim:
        time.sleep(script.duration / 50 + 0.5)
        assert not sim.finished.is_set() and not sim.host_heard.is_set()  # nobody connected: not played
        from firmware_bridge.serial_board import SerialBoard

        with SerialBoard(str(sim.device_path), wiring):
            assert sim.host_heard.wait(10)
            assert sim.finished.wait(10)


def test_referee_serial_asks_and_takes_the_answer_typed_on_stdin(tmp_path, monkeypatch):
    start = get_game("gyges").default_setup()
    move = start.parse_move("a1-a2")  # on reeds also a1 bumping b1 to a2: a question
    script = render_script(start, [move], fidelity=Fidelity.OCCUPANCY, seed=3, noise=False)
    script_file = tmp_path / "one.jsonl"
    script.dump(script_file)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sim = subprocess.Popen(
        [sys.executable, "-m", "tableref.cli.serial", "simulate-board", "--script", str(script_file),
         "--speed", "5", "--hold", "30", "--wait-for-referee"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT, text=True)
    read_end, write_end = os.pipe()
    os.write(write_end, b"1\n")  # typed ahead: read at the first question
    os.close(write_end)
    monkeypatch.setattr(sys, "stdin", os.fdopen(read_end))
    out, err = io.StringIO(), io.StringIO()
    try:
        device = sim.stdout.readline().strip()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["referee-serial", "--port", device, "--wiring", str(WIRING_FILE), "--setup", "default",
                         "--journal", str(tmp_path / "j.sqlite3"), "--json", "--settle", "0.2",
                         "--timeout", str(script.duration / 5 + 3)])
    finally:
        sim.terminate()
        sim.wait(10)
    assert code == 0, err.getvalue()
    decisions = [json.loads(line) for line in out.getvalue().splitlines()]
    kinds = [d["kind"] for d in decisions if d["kind"] != "board"]
    assert "illegal" not in kinds  # the board played only once the referee was there
    question = next(d for d in decisions if d["kind"] == "ambiguous")
    assert question["choices"][0]["text"] == "a1-a2"
    accepted = [d for d in decisions if d["kind"] == "accepted"]
    assert [(d["move"], d["confirmed"]) for d in accepted] == [("a1-a2", True)]
    assert "answer 1/2" in err.getvalue()


def test_referee_serial_says_it_waits_for_a_board_that_is_not_there(tmp_path, capsys):
    assert main(["referee-serial", "--port", str(tmp_path / "ttyNONE"), "--wiring", str(WIRING_FILE),
                 "--journal", str(tmp_path / "j.sqlite3"), "--timeout", "0.5"]) == 0
    err = capsys.readouterr().err
    assert f"tableref: waiting for the board on {tmp_path / 'ttyNONE'}" in err and "the game is kept" in err
