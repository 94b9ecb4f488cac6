"""A full Anacund game refereed from a board script: the players carry out every capture by hand.

The script is what a sensor reads: each placement; for a capture, the placed piece first (the
referee reports *partial* with the capture still to do), then the captured pieces lifted off
their squares, then lying beside them turned to the captor's colour (accepted). Once a player
lifts the wrong piece (illegal, with what to put back) and puts it back. A landlocked placement
is accepted as it stands, and its capture follows as the opponent's ply.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import Fidelity, View, get_game
from rules.games.anacund import Capture, Place
from decisions import StableView
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.cli.rules import main as rules_main
from tableref.sources.sim import BoardScript, Frame, SimulatedBoard
from tableref.stabiliser import Stabiliser

GAME = get_game("anacund")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "anacund"

# Default track (bonus t7). Captures: t20x21, t17x16, t13x12, t9x10, t25x26, t29x30,31, t18x19,
# t36x35, t5x6,7,8, t1x2,3,4; t23 is landlocked by B (x23); B's captured t7 lies beside the bonus.
GAME_TEXTS = (
    "t16 t22 t6 t15 t32 t21 t12 t20x21 t27 t11 t17x16 t13x12 t35 t10 t30 t14 t26 t9x10 t24 t31 t25x26 "
    "t29x30,31 t28 t19 t8 t18x19 t2 t34 t23 x23 t36x35 t4 t3 t7 t5x6,7,8 t1x2,3,4 t33"
).split()
WRONG_AT = "t20x21"  # here the player first lifts B's t15 instead of t21
INTERVAL = 0.1


class Tape:
    def __init__(self, fidelity):
        self.fidelity = fidelity
        self.frames = []

    def add(self, view, hidden=()):
        view = view.at_fidelity(self.fidelity)
        board = View({s: t for s, t in view.items() if s not in hidden})
        self.frames.append(Frame(round(len(self.frames) * INTERVAL, 6), board, frozenset(hidden)))

    def hold(self, view, frames=9):  # 0.8 s: longer than the stabiliser's 0.6 s
        for _ in range(frames):
            self.add(view)

    def hand(self, view, spaces):  # a hand over the spaces: never stable
        for _ in range(2):
            self.add(view, spaces)


def edit(view, put=None, lift=()):
    spaces = {s: t for s, t in view.items() if s not in lift}
    spaces.update(put or {})
    return View(spaces)


def build_script(fidelity):
    state = GAME.start()
    tape = Tape(fidelity)
    tape.hold(state.view(Fidelity.KIND))
    for text in GAME_TEXTS:
        move = state.parse_move(text)
        before, after = state.view(Fidelity.KIND), state.successor(move).view(Fidelity.KIND)
        spaces = state.move_spaces(move)
        tape.hand(before, spaces)
        if isinstance(move, Place):
            placed = edit(before, {f"t{move.square}": state.to_move})
            caught, own = state.captures(move.square)
            if caught and not own:
                tape.hold(placed)  # partial: the capture is still to be done
                squares = [f"t{i + 1}" for i in caught]
                if text == WRONG_AT:
                    tape.hold(edit(placed, lift=["t15"]))  # the wrong piece: illegal
                    tape.hold(placed)  # put back: partial again
                tape.hold(edit(placed, lift=squares))  # lifted, not yet beside: partial
                tape.hand(after, spaces)
        else:
            assert isinstance(move, Capture)  # lifted, turned and laid beside in one motion
        tape.hold(after)
        state = state.successor(move)
    tape.hold(state.view(Fidelity.KIND), 20)
    return BoardScript("anacund", fidelity, tuple(tape.frames), start=GAME.start().to_dict()), state


def referee_run(tmp_path, fidelity):
    script, final = build_script(fidelity)
    script = BoardScript.parse("\n".join(script.to_lines()), where="anacund.jsonl")  # as a file reads
    decisions = []
    with Journal(tmp_path / f"{fidelity.value}.sqlite3") as journal:
        ref = Referee.start(journal, "anacund", fidelity=fidelity, start=script.start_state())
        stab = Stabiliser()
        for obs in SimulatedBoard(script).observations():
            view = stab.feed(obs)
            if view is not None:
                decisions.extend(ref.handle(StableView(view)))
        record = journal.load(ref.record.id)
    return decisions, record, final


@pytest.mark.parametrize("fidelity", [Fidelity.KIND, Fidelity.OCCUPANCY], ids=lambda f: f.value)
def test_full_game_with_captures_carried_out_by_hand(tmp_path, fidelity):
    decisions, record, final = referee_run(tmp_path, fidelity)
    kinds = [d.kind for d in decisions]
    assert [d.move for d in decisions if d.kind == "accepted"] == GAME_TEXTS
    assert record.moves == GAME_TEXTS and record.state == final and record.finished
    assert "ambiguous" not in kinds and "taken_back" not in kinds

    # Every capture was reported partial first, with the capture still to do as pending fixes.
    n_captures = sum(1 for t in GAME_TEXTS if "x" in t[1:])
    partials = [d for d in decisions if d.kind == "partial"]
    assert len(partials) == 2 * n_captures + 1  # placed, lifted; once more after the wrong piece
    first = partials[0]
    assert first.candidates == ("t20x21",)
    occ = "occupied"
    tok = (lambda c: (c,)) if fidelity is Fidelity.KIND else (lambda c: (occ,))
    assert {(f.space, f.expected, f.observed) for f in first.pending} == {
        ("t21", (), tok("B")), ("s21", tok("A"), ())}

    # The wrong piece: illegal, with what to put back.
    illegal = [d for d in decisions if d.kind == "illegal"]
    assert len(illegal) == 1
    assert ("t15", tok("B"), ()) in {(f.space, f.expected, f.observed) for f in illegal[0].restore}
    i = decisions.index(illegal[0])
    assert decisions[i + 1].kind == "partial" and decisions[i + 1].candidates == ("t20x21",)

    # The landlocked placement is accepted as it stands; B's capture of it follows.
    accepted = [d for d in decisions if d.kind == "accepted"]
    t23 = next(d for d in accepted if d.move == "t23")
    assert "landlocked" in t23.description and t23.position["phase"] == "capture"

    # The end: scores counted from the final board, the bonus square (t7, B's captured piece
    # beside it) worth 1 + 5.
    assert kinds[-1] == "game_over"
    outcome = decisions[-1].outcome
    board = final.view(Fidelity.KIND)
    counted = {"A": 0, "B": 0}
    for space, (colour,) in board.items():
        counted[colour] += 6 if space in ("t7", "s7") else 1
    assert board["s7"] == ("B",)
    assert counted == {"A": 10, "B": 31} == outcome["scores"]
    assert outcome["winner"] == "B" and outcome["reason"] == "B has placed its last series of 3"


def test_cli_lists_the_hand_worked_positions_moves(capsys):
    assert rules_main(["rules", "moves", "--position", str(DOCS / "double-capture.json")]) == 0
    assert set(capsys.readouterr().out.split()) == {"t1", "t5", "t12x11,13", "t16", "t25", "t35"}
    assert rules_main(["rules", "start", "--game", "anacund", "--option", "track=12"]) == 2
    assert "2 squares; the track has 36" in capsys.readouterr().err


def test_landlocked_piece_lifted_first_reads_as_a_takeback_then_both_plies(tmp_path):
    # Lifting the landlocked piece shows exactly the board before it was placed: the referee
    # takes the placement back (it cannot tell the two apart). Laid beside, turned, the board
    # is the placement and its capture at once: both are accepted, and the record is right.
    start = GAME.from_dict(json.loads((DOCS / "suicide.json").read_text(encoding="utf-8")))
    placed = start.apply_text("t11")
    done = placed.apply_text("x11,12")
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "anacund", start=start)
        assert [d.kind for d in ref.handle(StableView(placed.view(Fidelity.KIND)))] == ["accepted"]
        lifted = edit(placed.view(Fidelity.KIND), lift=["t12"])  # the old piece first: partial
        out = ref.handle(StableView(lifted))
        assert [d.kind for d in out] == ["partial"] and {f.space for f in out[0].pending} == {"t11", "s11", "s12"}
        assert [d.kind for d in ref.handle(StableView(start.view(Fidelity.KIND)))] == ["taken_back"]
        out = ref.handle(StableView(done.view(Fidelity.KIND)))
        assert [d.move for d in out if d.kind == "accepted"] == ["t11", "x11,12"]
        assert journal.load(ref.record.id).state == done
