"""The sample Gygès game played onto a mock reed matrix, scanned by GpioMatrix, settled by the
stabiliser and refereed at occupancy — with the panel's buttons answering the referee's
questions (occupancy cannot tell a ring's height when it is placed, nor a bump from a plain
move), and its lights following along."""

from __future__ import annotations

import pytest

from hardware.matrix import GpioMatrix, MatrixWiring
from hardware.panel import LightMode, Panel, PanelPins
from hardware.schedule import ManualScheduler
from rules import Fidelity, get_game
from decisions import Confirm, StableView
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.sources.sample import SEED, sample_game
from tableref.sources.sim import render_script
from tableref.stabiliser import Stabiliser

BOARD = get_game("gyges").board()
WIRING = MatrixWiring.builtin(board=BOARD)
PINS = PanelPins()


def lands_on(state, choice):
    """The position a choice leads to (its text is a move or a sequence of moves)."""
    if choice.takeback:
        return None
    for text in choice.text.split():
        state = state.apply_text(text)
    return state


@pytest.fixture(scope="module")
def game():
    start, moves = sample_game()
    states = [start]
    for m in moves:
        states.append(states[-1].successor(m))
    script = render_script(start, moves, fidelity="occupancy", seed=SEED)
    return start, states, script


def test_sample_game_through_matrix_stabiliser_referee_and_panel(tmp_path, mock_factory, reed_board, game):
    start, states, script = game
    board = reed_board(WIRING)
    now = [0.0]
    sched = ManualScheduler()
    decisions, commands = [], []
    asked = 0
    with Journal(tmp_path / "j.sqlite3") as journal, \
            GpioMatrix(WIRING, pin_factory=mock_factory, debounce=2, clock=lambda: now[0]) as matrix, \
            Panel(commands.append, pin_factory=mock_factory, scheduler=sched) as panel:
        ref = Referee.start(journal, "gyges", fidelity=Fidelity.OCCUPANCY, start=start)
        ref.subscribe(decisions.append)
        ref.subscribe(panel.on_decision)
        ref.greeting()
        stabiliser = Stabiliser()
        occupied: set[str] = set()
        for frame in script.frames:
            # A hand over a reed switch changes nothing: hidden spaces keep what they held.
            occupied = {s for s in occupied if s in frame.unreadable} | set(frame.view)
            board.place(occupied)
            for half in (0.0, 0.05):  # two scans per 0.1 s frame: the debounce needs both
                now[0] = frame.t + half
                view = stabiliser.feed(matrix.read())
                if view is None:
                    continue
                for d in ref.handle(StableView(view, now[0])):
                    if d.kind != "ambiguous":
                        continue
                    # The players pick the choice matching the real game with the buttons:
                    # cycle to it, then confirm.
                    asked += 1
                    target = states[ref.ply + 1]
                    wanted = [c.number for c in d.choices if lands_on(ref.state, c) == target]
                    assert len(wanted) == 1, (d.text(), target.to_dict())
                    for _ in range(wanted[0] - 1):
                        mock_factory.pin(PINS.cycle).drive_low()
                        mock_factory.pin(PINS.cycle).drive_high()
                    assert panel.highlighted == wanted[0] and panel.lights.mode is LightMode.WAITING
                    mock_factory.pin(PINS.confirm).drive_low()
                    mock_factory.pin(PINS.confirm).drive_high()
                    chosen = next(c for c in d.choices if c.number == wanted[0])
                    assert commands[-1] == Confirm(wanted[0], chosen.text)
                    answer = ref.handle(commands[-1])
                    assert answer[0].kind == "accepted" and answer[0].confirmed
                sched.advance(0.05)
        record = journal.load(ref.record.id)
        assert record.states == states  # every position of the real game, in order
        assert record.finished and record.state.is_game_over()
        assert panel.lights.mode is LightMode.OVER
    kinds = [d.kind for d in decisions]
    assert asked >= 10  # every placement of a height with others left, and the bumps
    assert kinds.count("accepted") == len(states) - 1 and kinds[-1] == "game_over"
    assert "illegal" not in kinds and "rejected" not in kinds and "taken_back" not in kinds
    assert len(commands) == asked  # the buttons sent the confirms and nothing else
