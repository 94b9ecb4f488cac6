"""`tableref run` on a journal it cannot go on with (issue 33, item 4): a game played on the page
is not resumed from a script that never shows it, a run that plays nothing does not exit 0, and
a second process writing the same journal is refused before it writes anything."""

from __future__ import annotations

import subprocess
import sys

from rules import Fidelity, get_game
from tableref.cli import main
from tableref.journal import Journal
from tableref.sources.sim import render_script


def _page_game(journal):
    """What the page leaves: a Gygès game from the default setup, one move made."""
    gyges = get_game("gyges")
    options = gyges.parse_options({})
    start = gyges.default_setup(options)
    move = start.legal_moves()[0]
    with Journal(journal) as j:
        record = j.new_game(start, options, "kind")
        j.record_move(record, start.move_text(move), start.successor(move))


def _events(journal):
    with Journal(journal) as j:
        return [(g.id, g.moves) for g in j.games()]


def test_run_does_not_play_the_sample_onto_a_game_it_never_shows(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    _page_game(journal)
    assert main(["run", "--journal", str(journal), "--speed", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # not forty "illegal board" lines
    err = captured.err.splitlines()
    assert len(err) == 1 and "game 1 is unfinished at move 1" in err[0] and "tableref run --new" in err[0]
    assert _events(journal) == [(1, 1)]  # nothing written
    assert main(["run", "--journal", str(journal), "--speed", "0", "--new"]) == 0  # what it says to do
    assert capsys.readouterr().out.splitlines()[0] == "game 2 (gyges) started at move 0"


def test_a_run_that_plays_nothing_does_not_exit_0(tmp_path, capsys):
    gyges = get_game("gyges")
    start = gyges.from_dict({"game": "gyges", "to_move": "south", "phase": "play", "rings": {"a1": 1, "f6": 1}})
    texts = ["a1-b1", "f6-e6"]
    states, moves = [start], []
    for t in texts:
        moves.append(states[-1].parse_move(t))
        states.append(states[-1].successor(moves[-1]))
    script = tmp_path / "short.jsonl"
    render_script(start, moves, fidelity=Fidelity.KIND, seed=3, noise=False).dump(script)
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as j:  # every move of the script is already recorded
        record = j.new_game(start, gyges.parse_options({}), "kind")
        for t, s in zip(texts, states[1:]):
            j.record_move(record, t, s)
    assert main(["run", "--script", str(script), "--journal", str(journal), "--speed", "0"]) == 1
    assert "nothing was played" in capsys.readouterr().err


_HOLDER = """
import sys
from tableref.journal import Journal
j = Journal(sys.argv[1], exclusive=True)
print("ready", flush=True)
sys.stdin.read()
"""


def test_a_second_writer_is_told_the_pid_and_writes_nothing(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    _page_game(journal)
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(journal)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "ready\n"
        assert main(["run", "--journal", str(journal), "--speed", "0", "--new"]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err == (f"tableref: {journal}: journal in use by PID {holder.pid} (another tableref "
                                "writing it): stop that one first, or give this one its own --journal FILE\n")
        assert _events(journal) == [(1, 1)]  # no game 2 begun
    finally:
        holder.kill()  # killed, not closed: its lock file stays behind, naming a dead PID
        holder.wait()
    assert (tmp_path / "journal.sqlite3.lock").read_text() == f"{holder.pid}\n"
    assert main(["run", "--journal", str(journal), "--speed", "0", "--new"]) == 0  # a dead holder does not block
    assert [g for g, _ in _events(journal)] == [1, 2]


def test_one_process_may_open_its_own_journal_twice(tmp_path):
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal, exclusive=True), Journal(journal, exclusive=True):
        pass
    with Journal(journal, exclusive=True):  # released when the last one closed, taken again
        pass


def test_a_game_from_another_start_is_not_taken_for_the_scripts_even_before_a_move(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    gyges = get_game("gyges")
    options = gyges.parse_options({})
    with Journal(journal) as j:  # the page opened, no move made yet: the default setup
        j.new_game(gyges.default_setup(options), options, "kind")
    assert main(["run", "--journal", str(journal), "--speed", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "starts from another position" in captured.err


class _ClosedAfter:
    """A stdout whose reader leaves after ``lines`` lines (`tableref run | head`)."""

    def __init__(self, lines):
        self.left = lines

    def write(self, text):
        if self.left <= 0:
            raise BrokenPipeError(32, "Broken pipe")
        self.left -= text.count("\n")
        return len(text)

    def flush(self):
        pass


def test_a_reader_that_leaves_early_gets_no_traceback_and_the_game_is_kept(tmp_path, monkeypatch, caplog):
    journal = tmp_path / "journal.sqlite3"
    monkeypatch.setattr(sys, "stdout", _ClosedAfter(2))
    assert main(["run", "--journal", str(journal), "--speed", "0"]) == 141
    assert not [r for r in caplog.records if r.exc_info]  # no subscriber failing line after line
    with Journal(journal) as j:
        assert j.games()[0].outcome  # played to its end all the same
