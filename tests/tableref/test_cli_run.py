"""`tableref run | replay | games | export` end to end on the built-in sample, and the
sample itself: the shipped file is its generator's output, and the referee accepts exactly
the sample game's positions."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from importlib import resources

import pytest

from rules import Fidelity, get_game
from tableref.cli import main
from decisions import StableView
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.sources.sample import sample_game, sample_script
from tableref.sources.sim import BoardScript, SimulatedBoard, render_script
from tableref.stabiliser import Stabiliser

MOVE_LINE = re.compile(r"^\s*\d+\. ")


def expected_states():
    start, moves = sample_game()
    states = [start]
    for m in moves:
        states.append(states[-1].successor(m))
    return states


def run_quietly(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    """One full run of the built-in sample into a fresh journal (read-only for the tests)."""
    journal = tmp_path_factory.mktemp("run") / "journal.sqlite3"
    code, out, err = run_quietly(["run", "--journal", str(journal), "--speed", "0"])
    assert code == 0, err
    return journal, out, err


def lines(text):
    return text.splitlines()


# -- run, replay, games ----------------------------------------------------------------------------


def test_run_referees_the_sample_to_a_south_win(sample_run):
    journal, out, err = sample_run
    assert lines(out)[0] == "game 1 (gyges) started at move 0"
    assert "     game over: south wins (throne captured)" in lines(out)
    assert lines(out)[-1] == "     game over: south wins (throne captured)"
    assert f"journal: {journal} (game 1; `tableref replay 1`)" in err


def test_replay_prints_the_moves_the_run_accepted_and_the_result(sample_run, capsys):
    journal, out, _ = sample_run
    accepted = [line for line in lines(out) if MOVE_LINE.match(line)]
    assert len(accepted) == len(expected_states()) - 1
    assert main(["replay", "1", "--journal", str(journal)]) == 0
    replay = lines(capsys.readouterr().out)
    assert replay[0] == f"game 1: gyges (kind sensing), {len(accepted)} moves"
    assert [line for line in replay if MOVE_LINE.match(line)] == accepted
    assert replay[-1] == "result: south wins (throne captured)"


def test_games_lists_the_game(sample_run, capsys):
    journal, _, _ = sample_run
    assert main(["games", "--journal", str(journal)]) == 0
    moves = len(expected_states()) - 1
    assert capsys.readouterr().out == f"1\tgyges\t{moves} moves\tsouth won\n"


def test_export_prints_the_game_record(sample_run, capsys):
    journal, _, _ = sample_run
    assert main(["export", "1", "--json", "--journal", str(journal)]) == 0
    record = json.loads(capsys.readouterr().out)
    start, moves = sample_game()
    assert record["tableref_game"] == 1 and record["game"] == "gyges" and record["fidelity"] == "kind"
    assert record["start"] == start.to_dict()
    assert record["outcome"] == {"winner": "south", "reason": "throne captured", "scores": {}}
    state = start
    for text in record["moves"]:
        state = state.apply_text(text)
    assert state == expected_states()[-1]


def test_running_again_after_a_finished_game_starts_game_2(sample_run, tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    shutil.copy(sample_run[0], journal)
    assert main(["run", "--journal", str(journal), "--speed", "0"]) == 0
    out = capsys.readouterr().out
    assert lines(out)[0] == "game 2 (gyges) started at move 0"
    assert lines(out)[-1] == "     game over: south wins (throne captured)"
    assert main(["games", "--journal", str(journal)]) == 0
    assert [line.split("\t")[0] for line in lines(capsys.readouterr().out)] == ["1", "2"]


def test_run_json_prints_one_json_object_with_a_kind_per_line(tmp_path, capsys):
    assert main(["run", "--journal", str(tmp_path / "j.sqlite3"), "--speed", "0", "--json"]) == 0
    decisions = [json.loads(line) for line in lines(capsys.readouterr().out)]
    assert all(isinstance(d, dict) and isinstance(d.get("kind"), str) for d in decisions)
    assert decisions[0]["kind"] == "new_game" and decisions[0]["game_id"] == 1 and decisions[0]["resumed"] is False
    assert decisions[-1] == {"kind": "game_over", "game_id": 1, "ply": len(expected_states()) - 1,
                             "outcome": {"winner": "south", "reason": "throne captured", "scores": {}}}
    accepted = [d for d in decisions if d["kind"] == "accepted"]
    assert [d["ply"] for d in accepted] == list(range(1, len(expected_states())))
    assert [d["position"] for d in accepted] == [s.to_dict() for s in expected_states()[1:]]


# -- resume --------------------------------------------------------------------------------------------


def test_run_resumes_an_unfinished_game_where_the_journal_left_it(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    states = expected_states()
    start, moves = sample_game()
    with Journal(journal) as j:  # as if the service had been killed after 20 moves
        record = j.new_game(start, get_game("gyges").parse_options({}), "kind")
        for before, m, after in zip(states, moves[:20], states[1:]):
            j.record_move(record, before.move_text(m), after)
    assert main(["run", "--journal", str(journal), "--speed", "0", "--json"]) == 0
    decisions = [json.loads(line) for line in lines(capsys.readouterr().out)]
    assert decisions[0]["kind"] == "new_game" and decisions[0]["resumed"] is True and decisions[0]["ply"] == 20
    assert [d["ply"] for d in decisions if d["kind"] == "accepted"] == list(range(21, len(states)))
    assert not [d for d in decisions if d["kind"] in ("taken_back", "ambiguous")]
    with Journal(journal) as j:
        assert len(j.games()) == 1
        assert j.load(1).states == states
        assert all(kind == "move" for _, kind, _, _ in j.iter_events(1))


def test_run_new_starts_another_game_even_if_one_is_unfinished(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as j:
        j.new_game(get_game("gyges").start(), get_game("gyges").parse_options({}), "kind")
    assert main(["run", "--journal", str(journal), "--speed", "0", "--new"]) == 0
    assert lines(capsys.readouterr().out)[0] == "game 2 (gyges) started at move 0"


def test_resume_after_a_repeated_position_does_not_replay_moves_already_made(tmp_path, capsys):
    gyges = get_game("gyges")
    start = gyges.from_dict({"game": "gyges", "to_move": "south", "phase": "play", "rings": {"a1": 1, "f6": 1}})
    texts = ["a1-b1", "f6-e6", "b1-a1", "e6-f6", "a1-a2", "f6-f5"]  # after 4 moves: the start again
    states, moves = [start], []
    for t in texts:
        moves.append(states[-1].parse_move(t))
        states.append(states[-1].successor(moves[-1]))
    assert states[4] == states[0]
    script = tmp_path / "repeat.jsonl"
    render_script(start, moves, fidelity=Fidelity.KIND, seed=3, noise=False).dump(script)
    journal = tmp_path / "journal.sqlite3"
    with Journal(journal) as j:  # killed after move 4
        record = j.new_game(start, gyges.parse_options({}), "kind")
        for t, s in zip(texts[:4], states[1:5]):
            j.record_move(record, t, s)
    assert main(["run", "--script", str(script), "--journal", str(journal), "--speed", "0", "--json"]) == 0
    decisions = [json.loads(line) for line in lines(capsys.readouterr().out)]
    assert not [d for d in decisions if d["kind"] in ("taken_back", "ambiguous")]
    assert [d["move"] for d in decisions if d["kind"] == "accepted"] == texts[4:]
    with Journal(journal) as j:
        assert [kind for _, kind, _, _ in j.iter_events(1)] == ["move"] * 6


# -- errors --------------------------------------------------------------------------------------------


def test_a_malformed_script_returns_2_with_one_line_naming_file_and_line(tmp_path, capsys):
    script = tmp_path / "bad.jsonl"
    script.write_text('{"board_script": 1, "game": "gyges", "fidelity": "kind"}\n'
                      '# a comment\n'
                      '{"t": 0, "board": {}}\n'
                      '{"t": 0.1, "board": {"a1": 2}\n', encoding="utf-8")
    journal = tmp_path / "journal.sqlite3"
    assert main(["run", "--script", str(script), "--journal", str(journal), "--speed", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = lines(captured.err)
    assert len(err) == 1 and err[0].startswith(f"tableref: {script}:4: not valid JSON")
    assert not journal.exists()  # nothing was opened for a script that does not parse


def test_a_missing_script_returns_2_naming_it(tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    assert main(["run", "--script", str(missing), "--journal", str(tmp_path / "j.sqlite3")]) == 2
    assert capsys.readouterr().err == f"tableref: {missing}: cannot read board script: No such file or directory\n"


def test_replay_of_an_unknown_game_returns_2_with_a_clear_message(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    assert main(["replay", "99", "--journal", str(journal)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"tableref: {journal}: no game 99\n"


def test_a_garbage_journal_returns_2_naming_it(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    journal.write_bytes(b"this is not a database, not even close" * 50)
    assert main(["games", "--journal", str(journal)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tableref: {journal}: not a usable journal") and len(lines(err)) == 1


# -- the shipped sample -----------------------------------------------------------------------------------


def test_the_shipped_sample_is_exactly_what_its_generator_produces():
    shipped = (resources.files("tableref") / "data" / "sample_gyges.jsonl").read_text(encoding="utf-8")
    assert shipped == "\n".join(sample_script().to_lines()) + "\n", (
        "tableref/data/sample_gyges.jsonl has drifted: regenerate it with `python -m tableref.sources.sample`"
    )


def test_the_referee_accepts_exactly_the_sample_games_positions(tmp_path):
    text = (resources.files("tableref") / "data" / "sample_gyges.jsonl").read_text(encoding="utf-8")
    script = BoardScript.parse(text, where="sample_gyges.jsonl")
    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, script.game, options=script.options, fidelity=script.fidelity,
                                start=script.start_state())
        published = []
        referee.subscribe(published.append)
        stabiliser = Stabiliser()
        for obs in SimulatedBoard(script).observations():  # synchronously: no thread needed
            view = stabiliser.feed(obs)
            if view is not None:
                referee.handle(StableView(view, obs.time))
        # Compared as positions: two notations can name one outcome.
        assert referee.record.states == expected_states()
        assert [d.position for d in published if d.kind == "accepted"] == [s.to_dict() for s in expected_states()[1:]]
        assert not [d for d in published if d.kind in ("taken_back", "ambiguous", "rejected")]
        assert journal.load(referee.record.id).states == expected_states()
        assert referee.record.finished
