"""The hand-worked positions of docs/rules/gyges.md, through `tableref rules moves`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tableref.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "gyges"
GRID = [f"{c}{r}" for r in range(1, 7) for c in "abcdef"]

EXACT = {
    "lone-single": {"c3-b3", "c3-c2", "c3-c4", "c3-d3"},
    "double-two-steps": {"c3-a3", "c3-b2", "c3-b4", "c3-c1", "c3-c5", "c3-d2", "c3-d4", "c3-e3"},
    "throne-entry": {"c6-N", "c6-b6", "c6-c5", "c6-d6"},
    "throne-not-passed": {"a6-N", "a6-a4", "a6-b5", "a6-c6"},
    "bounce-or-bump": {"b1-a1", "b1-c1", "b1-a2", "b1-c2", "b1-b3"}
    | {f"b1-b2/{z}" for z in GRID if z not in ("b2", "f6")},
    "bump-limit": {"c1-b1", "c1-d1", "c1-a2", "c1-b3", "c1-e2", "c1-d3", "c1-c4"}
    | {f"c1-c2/{z}" for z in GRID if int(z[1]) <= 4 and z not in ("c2", "d4")},
    "kings-reposition": {"N/b6", "N/c6", "N/d6", "N/e6", "N/f6"},
}


def moves_of(capsys, name):
    assert main(["rules", "moves", "--position", str(DOCS / f"{name}.json")]) == 0
    return capsys.readouterr().out.split()


@pytest.mark.parametrize("name", sorted(EXACT))
def test_exact_successor_sets(capsys, name):
    texts = moves_of(capsys, name)
    assert len(texts) == len(set(texts))
    assert set(texts) == EXACT[name]


def test_bounce_chain(capsys):
    texts = moves_of(capsys, "bounce-chain")
    assert len(texts) == 56 and "a1-N" in texts


def test_blocked_row(capsys):
    texts = moves_of(capsys, "blocked-row")
    assert len(texts) == 53 and all(t[1] == "2" for t in texts)
    # Hand-worked in full for the two singles on a2 and b2:
    assert {t for t in texts if t.startswith("a2-")} == {
        "a2-a3", "a2-a1/a2", "a2-b2/a2", "a2-b1/a2", "a2-c2/a2", "a2-b3", "a2-d3", "a2-c4"}
    assert {t for t in texts if t.startswith("b2-")} == {
        "b2-a2/b2", "b2-a3", "b2-a1/b2", "b2-b1/b2", "b2-c2/b2", "b2-b3", "b2-d3", "b2-c4"}
    assert {t for t in texts if t.startswith("c2-")} == {"c2-b3", "c2-c4", "c2-d3"}


def test_successors_give_the_position_after_each_move(capsys):
    assert main(["rules", "successors", "--position", str(DOCS / "throne-entry.json")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    won = next(line for line in lines if line["move"] == "c6-N")
    assert won["position"]["winner"] == "south" and won["position"]["rings"] == {"N": 1}
