"""`tableref rules ...`: the command-line contract scripts build on (docs/cli.md)."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rules import Fidelity, get_game
from tableref.cli import rules as rules_cli
from tableref.cli.rules import main

REPO = Path(__file__).resolve().parents[2]
GYGES = get_game("gyges")
DEFAULT = GYGES.default_setup()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["rules", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write(tmp_path: Path, name: str, content: object) -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def lines(text: str) -> list[str]:
    assert text.endswith("\n") or text == ""
    return text.splitlines()


def full_view(state, fidelity=Fidelity.KIND) -> dict:
    return state.view(fidelity).to_dict()


# -- games / start ---------------------------------------------------------------------------


def test_games_lists_gyges(capsys):
    status, out, err = run(capsys, "games")
    assert status == 0 and err == ""
    assert "gyges" in lines(out)


def test_start_is_the_setup_phase_with_36_successors(capsys, tmp_path):
    status, out, err = run(capsys, "start", "--game", "gyges")
    assert status == 0 and err == ""
    assert len(lines(out)) == 1
    position = json.loads(out)
    assert position == GYGES.start().to_dict()
    assert position["phase"] == "setup" and position["rings"] == {}
    status, out, _ = run(capsys, "successors", "--position", write(tmp_path, "start.json", out))
    assert status == 0
    assert len(lines(out)) == 36


def test_default_setup_has_230_successors_that_round_trip(capsys, tmp_path):
    status, out, _ = run(capsys, "start", "--game", "gyges", "--setup", "default")
    assert status == 0
    assert json.loads(out) == DEFAULT.to_dict()
    status, out, err = run(capsys, "successors", "--position", write(tmp_path, "default.json", out))
    assert status == 0 and err == ""
    records = [json.loads(line) for line in lines(out)]
    assert len(records) == 230
    for record in records:
        assert set(record) == {"move", "position"}
        assert GYGES.from_dict(record["position"]).to_dict() == record["position"]


def test_successors_equal_applying_each_move_in_legal_order(capsys, tmp_path):
    state = DEFAULT.apply_text("a1-a2")  # north to move: a position other than the default
    status, out, _ = run(capsys, "successors", "--position", write(tmp_path, "p.json", state.to_dict()))
    assert status == 0
    records = [json.loads(line) for line in lines(out)]
    assert [r["move"] for r in records] == [state.move_text(m) for m in state.legal_moves()]
    for record in records:
        assert record["position"] == state.apply(state.parse_move(record["move"])).to_dict()


def test_start_options_reach_the_game(capsys):
    status, out, _ = run(
        capsys, "start", "--game", "gyges", "--option", "variant=kings", "--option", "south_captures=2"
    )
    assert status == 0
    position = json.loads(out)
    assert position["variant"] == "kings" and position["needed"] == {"south": 2, "north": 3}


def test_position_from_stdin(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(DEFAULT.to_dict())))
    status, out, _ = run(capsys, "moves", "--position", "-")
    assert status == 0 and len(lines(out)) == 230


def test_game_over_has_no_successors(capsys, tmp_path):
    over = {**DEFAULT.to_dict(), "phase": "over", "winner": "south", "rings": {"N": 1, "b1": 2}}
    status, out, err = run(capsys, "successors", "--position", write(tmp_path, "over.json", over))
    assert (status, out, err) == (0, "", "")


# -- moves -----------------------------------------------------------------------------------


def test_moves_and_describe(capsys, tmp_path):
    pos = write(tmp_path, "default.json", DEFAULT.to_dict())
    status, out, _ = run(capsys, "moves", "--position", pos)
    assert status == 0
    assert lines(out) == [DEFAULT.move_text(m) for m in DEFAULT.legal_moves()]
    status, out, _ = run(capsys, "moves", "--position", pos, "--describe")
    assert status == 0
    first = lines(out)[0]
    assert first == "a1-a2\tSouth: single ring a1 → a2"
    assert all(line.count("\t") == 1 for line in lines(out))


# -- explain ---------------------------------------------------------------------------------


def explain(capsys, tmp_path, observed: object, *extra: str, state=DEFAULT) -> tuple[int, dict, str]:
    pos = write(tmp_path, "pos.json", state.to_dict())
    obs = write(tmp_path, "obs.json", observed)
    status, out, err = run(capsys, "explain", "--position", pos, "--observed", obs, *extra)
    assert len(lines(out)) == (1 if status == 0 else 0)
    return status, (json.loads(out) if out else {}), err


def test_explain_legal(capsys, tmp_path):
    status, result, _ = explain(capsys, tmp_path, full_view(DEFAULT.apply_text("a1-a2")))
    assert status == 0
    assert result["verdict"] == "legal" and result["fidelity"] == "kind"
    assert result["candidates"] == [{"move": "a1-a2", "equivalent": []}]
    assert set(result) == {"verdict", "candidates", "restore", "pending", "unreadable", "fidelity"}


def test_explain_ambiguous_at_occupancy(capsys, tmp_path):
    observed = full_view(DEFAULT.apply_text("a1-a2"))
    status, result, _ = explain(capsys, tmp_path, observed, "--fidelity", "occupancy")
    assert status == 0
    assert result["verdict"] == "ambiguous" and result["fidelity"] == "occupancy"
    assert {c["move"] for c in result["candidates"]} == {"a1-a2", "a1-b1/a2"}


def test_explain_illegal_gives_restore_hints(capsys, tmp_path):
    observed = full_view(DEFAULT)
    observed["a3"] = observed.pop("a1")  # a single ring cannot go two spaces
    status, result, _ = explain(capsys, tmp_path, observed)
    assert status == 0
    assert result["verdict"] == "illegal" and result["candidates"] == []
    assert result["restore"] == [
        {"space": "a1", "expected": ["1"], "observed": []},
        {"space": "a3", "expected": [], "observed": ["1"]},
    ]


def test_explain_wrapper_form_fidelity_and_override(capsys, tmp_path):
    wrapped = {"view": full_view(DEFAULT.apply_text("a1-a2")), "unreadable": [], "fidelity": "occupancy"}
    status, result, _ = explain(capsys, tmp_path, wrapped)
    assert (status, result["verdict"], result["fidelity"]) == (0, "ambiguous", "occupancy")
    status, result, _ = explain(capsys, tmp_path, wrapped, "--fidelity", "kind")
    assert (status, result["verdict"], result["fidelity"]) == (0, "legal", "kind")


def test_explain_unreadable_and_unchanged(capsys, tmp_path):
    status, result, _ = explain(capsys, tmp_path, {"view": {}, "unreadable": ["c3", "a1"]})
    assert (status, result["verdict"], result["unreadable"]) == (0, "unreadable", ["a1", "c3"])
    observed = {s: t for s, t in full_view(DEFAULT).items()}
    observed["b1"] = ["2"]  # a list of one token reads the same as the token
    status, result, _ = explain(capsys, tmp_path, observed)
    assert (status, result["verdict"]) == (0, "unchanged")


# -- malformed input: exit 2, one line naming the file -----------------------------------------

OBS_OK = {"a1": "1"}
POS_OK = DEFAULT.to_dict()


def bad_position(rings):
    return {**POS_OK, "rings": rings}


MALFORMED_POSITIONS = {
    "missing": None,
    "not-json": '{"game": "gyges",\n  "rings": }',
    "empty": "",
    "array": [1, 2],
    "no-game": {"rings": {}},
    "game-not-string": {"game": 7},
    "unknown-game": {"game": "chess"},
    "bad-height": bad_position({"a1": 7}),
    "bad-space": bad_position({"z9": 1}),
    "bad-phase": {**POS_OK, "phase": "lunch"},
    "unplayable": bad_position({}),
    "duplicate-key": '{"game": "gyges", "game": "gyges", "rings": {}}',
    "nan": '{"game": "gyges", "rings": {"a1": NaN}}',
}


@pytest.mark.parametrize("command", ["successors", "moves", "explain"])
@pytest.mark.parametrize("case", sorted(MALFORMED_POSITIONS))
def test_malformed_position(capsys, tmp_path, command, case):
    content = MALFORMED_POSITIONS[case]
    pos = str(tmp_path / f"{case}.json") if content is None else write(tmp_path, f"{case}.json", content)
    extra = ["--observed", write(tmp_path, "obs.json", OBS_OK)] if command == "explain" else []
    status, out, err = run(capsys, command, "--position", pos, *extra)
    assert status == 2 and out == ""
    assert len(lines(err)) == 1 and err.startswith(f"tableref: {pos}: ")
    assert "Traceback" not in err


def test_malformed_messages_are_specific(capsys, tmp_path):
    pos = write(tmp_path, "pos.json", bad_position({"a1": 7}))
    _, _, err = run(capsys, "moves", "--position", pos)
    assert err == f"tableref: {pos}: gyges position: 'rings': a1: height must be 1, 2 or 3, not 7\n"
    pos = write(tmp_path, "broken.json", MALFORMED_POSITIONS["not-json"])
    _, _, err = run(capsys, "moves", "--position", pos)
    assert "not valid JSON" in err and "line 2, column 12" in err


MALFORMED_OBSERVED = {
    "missing": None,
    "not-json": "{'a1': '1'}",
    "array": ["a1"],
    "unknown-space": {"z9": "1"},
    "number-token": {"a1": 1},
    "null-token": {"a1": None},
    "wrapper-unknown-key": {"view": {}, "time": 3},
    "wrapper-view-not-object": {"view": ["a1"]},
    "wrapper-unknown-space": {"view": {"q1": "1"}},
    "unreadable-not-list": {"view": {}, "unreadable": "a1"},
    "unreadable-unknown-space": {"view": {}, "unreadable": ["a9"]},
    "unknown-fidelity": {"view": {}, "fidelity": "blurry"},
    "fidelity-not-string": {"view": {}, "fidelity": 2},
    "a-position-file": POS_OK,
}


@pytest.mark.parametrize("case", sorted(MALFORMED_OBSERVED))
def test_malformed_observed(capsys, tmp_path, case):
    content = MALFORMED_OBSERVED[case]
    pos = write(tmp_path, "pos.json", POS_OK)
    obs = str(tmp_path / f"{case}.json") if content is None else write(tmp_path, f"{case}.json", content)
    status, out, err = run(capsys, "explain", "--position", pos, "--observed", obs)
    assert status == 2 and out == ""
    assert len(lines(err)) == 1 and err.startswith(f"tableref: {obs}: ")


@pytest.mark.parametrize(
    "argv, where",
    [
        (["start", "--game", "chess"], "--game"),
        (["start", "--game", "gyges", "--option", "colour=red"], "--option"),
        (["start", "--game", "gyges", "--option", "variant"], "--option"),
        (["start", "--game", "gyges", "--option", "variant=blitz"], "--option"),
        (["start", "--game", "gyges", "--option", "south_captures=2"], "--option"),  # needs kings
        (["start", "--game", "gyges", "--setup", "random"], "--setup"),
    ],
)
def test_bad_arguments(capsys, argv, where):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert len(lines(err)) == 1 and err.startswith(f"tableref: {where}: ")


def test_bad_fidelity_argument(capsys, tmp_path):
    pos, obs = write(tmp_path, "pos.json", POS_OK), write(tmp_path, "obs.json", OBS_OK)
    status, out, err = run(capsys, "explain", "--position", pos, "--observed", obs, "--fidelity", "blurry")
    assert (status, out) == (2, "")
    assert err == "tableref: --fidelity: unknown fidelity 'blurry' (expected one of: occupancy, kind, identity)\n"


def test_both_from_stdin_is_refused(capsys):
    status, _, err = run(capsys, "explain", "--position", "-", "--observed", "-")
    assert status == 2 and len(lines(err)) == 1


def test_usage_errors_exit_2(capsys):
    assert main(["rules"]) == 2
    assert main(["rules", "start"]) == 2  # --game is required
    assert main(["rules", "moves"]) == 2
    capsys.readouterr()


# -- wiring ------------------------------------------------------------------------------------


def test_add_parser_in_a_larger_cli(capsys):
    parser = argparse.ArgumentParser(prog="tableref")
    sub = parser.add_subparsers(dest="command", required=True)
    other = sub.add_parser("play")
    other.add_argument("--game")
    rules_cli.add_parser(sub)
    args = parser.parse_args(["rules", "games"])
    assert args.func is rules_cli.run
    out, err = io.StringIO(), io.StringIO()
    assert args.func(args, out, err) == 0
    assert "gyges" in out.getvalue().split()


def test_subprocess_entry_point(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}

    def cli(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tableref.cli.rules", "rules", *argv],
            input=stdin, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60,
        )

    start = cli("start", "--game", "gyges", "--setup", "default")
    assert start.returncode == 0 and json.loads(start.stdout) == POS_OK
    moves = cli("moves", "--position", "-", stdin=start.stdout)
    assert moves.returncode == 0 and len(moves.stdout.splitlines()) == 230
    (tmp_path / "pos.json").write_text('{"game": "gyges", "rings": {"a1": 7}}')
    bad = cli("successors", "--position", "pos.json")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "tableref: pos.json: gyges position: 'rings': a1: height must be 1, 2 or 3, not 7\n"
