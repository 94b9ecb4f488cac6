"""An Annelids game refereed from a board script: placements, a removal carried out by hand
(partial, with what is still to lift pending, then accepted), and a loss by last-annelid removal."""

from __future__ import annotations

import pytest

from rules import Fidelity, View, get_game
from decisions import StableView
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.sources.sim import BoardScript, Frame, SimulatedBoard
from tableref.stabiliser import Stabiliser

GAME = get_game("annelids")


def worm(tail, colour, heading, segs=()):
    return {"tail": tail, "colour": colour, "heading": heading, "segments": list(segs)}


# Green to move (2 placements). Blue's f6e annelid has its head against Green's g6n; Blue's
# c3ne annelid is curled round the square c3d4 with its head back at its own tail.
START = GAME.from_dict({
    "game": "annelids", "to_move": "green", "quota": 2, "placed": 0,
    "annelids": [
        worm("f6e", "blue", "N", ["g6nw"]),
        worm("c3ne", "blue", "SE", ["d3nw", "d4sw", "c4se"]),
        worm("g6e", "green", "N", ["g6ne", "g6n"]),
        worm("b11e", "green", "S"),
    ],
})
MOVES = ["b11e-b11se", "b11e-b10ne", "f6e-x", "c3ne-x"]


class _Tape:
    def __init__(self):
        self.frames: list[Frame] = []

    def hold(self, view: View, seconds: float = 1.0, hidden: frozenset = frozenset()) -> None:
        for _ in range(int(seconds * 10) + 1):
            board = View({s: t for s, t in view.items() if s not in hidden})
            self.frames.append(Frame(round(len(self.frames) * 0.1, 6), board, hidden))


def without(view: View, *spaces: str) -> View:
    return View({s: t for s, t in view.items() if s not in spaces})


def script(fidelity: Fidelity) -> BoardScript:
    states = [START]
    for text in MOVES:
        states.append(states[-1].apply_text(text))
    views = [s.view(fidelity) for s in states]
    tape = _Tape()
    tape.hold(views[0])
    for before, after in ((views[0], views[1]), (views[1], views[2])):  # Green's two placements
        tape.hold(before, 0.2, hidden=frozenset(before.diff(after) | {"b11s"}))  # a hand
        tape.hold(after)
    # Blue runs f6e's annelid into Green's g6n and takes it off by hand: the segment first
    # (held: the referee sees the board part-way), then the tail.
    tape.hold(without(views[2], "g6nw"))
    tape.hold(views[3])
    # Blue's last annelid runs into its own tail: the tail is lifted first, then the rest.
    tape.hold(without(views[3], "c3ne"))
    tape.hold(views[4], 2.0)
    return BoardScript(game="annelids", fidelity=fidelity, frames=tuple(tape.frames), start=START.to_dict(),
                       description="Annelids: a removal by hand, then Blue's last annelid")


@pytest.mark.parametrize("fidelity", [Fidelity.KIND, Fidelity.OCCUPANCY], ids=lambda f: f.value)
def test_scripted_game_through_the_referee(tmp_path, fidelity):
    path = tmp_path / "annelids.jsonl"
    script(fidelity).dump(path)
    loaded = BoardScript.from_file(path)
    assert loaded.start_state() == START
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "annelids", fidelity=fidelity, start=loaded.start_state())
        stab = Stabiliser()
        out = []
        for obs in SimulatedBoard(loaded).observations():
            view = stab.feed(obs)
            if view is not None:
                out += ref.handle(StableView(view))
        assert [d.kind for d in out] == [
            "accepted", "accepted", "partial", "accepted", "partial", "accepted", "game_over"]
        assert [d.move for d in out if d.kind == "accepted"] == MOVES
        first, second = (d for d in out if d.kind == "partial")
        assert first.candidates == ("f6e-x",)
        assert [(f.space, f.expected) for f in first.pending] == [("f6e", ())]  # the tail still to lift
        assert second.candidates == ("c3ne-x",)
        assert {f.space for f in second.pending} == {"d3nw", "d4sw", "c4se"}
        removal = next(d for d in out if d.kind == "accepted" and d.move == "f6e-x")
        assert "remove it from the board, tail and 1 segment" in removal.description
        assert out[-1].outcome["winner"] == "green" and out[-1].outcome["reason"] == "last annelid removed"
        record = journal.load(ref.record.id)
        assert record.moves == MOVES and record.finished
        assert journal.unfinished_game() is None
