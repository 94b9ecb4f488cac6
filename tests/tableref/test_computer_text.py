"""The computer opponent's decisions as the command line prints them (``decision.text()``:
``tableref run``, ``referee-serial``): one line each, the move in notation and in words, what
is left of a turn under way, the hint, the seats, an undo of the computer's move; and as JSON."""

from __future__ import annotations

import json

from decisions import (
    AskHint, PlayComputerMove, ShowHint, StableView, Undo, parse_seats,
)
from rules import Fidelity, get_game
from tableref.journal import Journal
from tableref.referee import Referee


def test_a_game_against_the_computer_prints_one_clear_line_per_decision(tmp_path):
    gyges = get_game("gyges")
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "gyges", setup="default", seats=parse_seats("north:1"))
        out = []
        ref.subscribe(out.append)
        ref.greeting()
        after = gyges.default_setup().apply_text("a1-a2")
        ref.handle(StableView(after.view(Fidelity.KIND)))
        ref.handle(PlayComputerMove(out[-1].token, ("a6-b6/a3",)))
        wrong = after.successor(next(m for m in after.legal_moves() if after.move_text(m) == "a6-a5"))
        ref.handle(StableView(wrong.view(Fidelity.KIND)))
        ref.handle(StableView(after.apply_text("a6-b6/a3").view(Fidelity.KIND)))
        ref.handle(AskHint(2))
        ref.handle(ShowHint(out[-1].token, ("b1-a1",)))
        ref.handle(Undo())
    lines = [d.text() for d in out]
    assert all("\n" not in line for line in lines)
    for d in out:
        json.dumps(d.to_dict())  # --json: every kind is plain JSON
    said = "\n".join(lines)
    assert "game 1 (gyges) started at move 0; north: the computer, level 1" in said
    assert "     the computer (north, level 1) is thinking" in said
    assert ("     the computer (north, level 1) plays: a6-b6/a3 (North: single ring a6 → b6, bumping the double "
            "ring to a3) — make it on the board") in lines
    assert any(line.startswith("     the computer (north, level 1) plays again: a6-b6/a3 (") for line in lines)
    assert "     a hint for south: the computer (level 2) is thinking" in lines
    assert "     hint for south (level 2): b1-a1 (South: double ring b1 → a1)" in lines
    assert "     took back a6-b6/a3 (the computer's move)" in lines and "     took back a1-a2" in lines


def test_a_turn_under_way_prints_what_is_left_of_it(tmp_path):
    anacund = get_game("anacund")
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "anacund", setup="default", seats=parse_seats("A:1"))
        out = []
        ref.subscribe(out.append)
        ref.greeting()
        s, texts = ref.state, []
        while s.to_move == "A":
            m = s.legal_moves()[0]
            texts.append(s.move_text(m))
            s = s.successor(m)
        ref.handle(PlayComputerMove(out[-1].token, tuple(texts)))
        ref.handle(StableView(anacund.default_setup().apply_text(texts[0]).view(Fidelity.KIND)))
    first, rest = [d.text() for d in out if d.kind == "computer_move"]
    assert first.startswith("     the computer (A, level 1) plays: ") and first.count("; then ") == len(texts) - 1
    assert rest.startswith(f"     the computer (A, level 1) goes on: {texts[1]} (")
    assert rest.count("; then ") == len(texts) - 2 and texts[0] not in rest.split(": ", 1)[1].split(" (")[0]
