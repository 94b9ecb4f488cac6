"""Every game against the computer through the referee and the service's opponent: a person
plays random moves the board shows unmistakably, the computer's turns (level 1) are carried
out on the board as shown; nothing gets stuck, every turn of the computer's is recorded as
it chose it, to the end of the game or a number of moves."""

from __future__ import annotations

import random

import pytest

from decisions import Declare, StableView, parse_seats
from rules import Fidelity, Verdict, explain, get_game
from tableref.journal import Journal
from tableref.opponent import Opponent, OpponentSettings
from tableref.referee import Referee


@pytest.mark.parametrize("game, seats, plies", [
    ("gyges", "north:1", 120), ("gyges", "south:1", 120), ("anacund", "b:1", 120),
    ("annihilation", "black:1", 80), ("annelids", "green:1", 80),
    ("drift", "red:1,green:1", 80),  # two computer seats and a person (DRIFT's three players)
])
def test_a_person_against_the_computer_to_the_end_or_n_moves(tmp_path, game, seats, plies):
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, game, fidelity=Fidelity.KIND, start=get_game(game).default_setup(),
                            seats=parse_seats(seats))
        answers: list = []
        opponent = Opponent(answers.append, OpponentSettings(time_scale=100.0, seed=1))
        ref.subscribe(opponent.on_decision)
        chosen: list = []
        ref.subscribe(lambda d: chosen.append(d) if d.kind == "computer_move" and not d.done and not d.repeated
                      else None)

        def handle(command) -> None:
            ref.handle(command)
            opponent.run_pending()
            while answers:
                ref.handle(answers.pop(0))
                opponent.run_pending()

        ref.greeting()
        handle(StableView(ref.state.view(Fidelity.KIND)))
        rng = random.Random(0)
        while not ref.state.is_game_over() and ref.ply < plies:
            s, before = ref.state, ref.ply
            if ref.seats.is_computer(s.to_move):
                turn = ref._turn
                assert turn is not None, f"{s.to_move} (the computer) to move at {ref.ply}, but no move shown"
                handle(StableView(turn.states[-1].view(Fidelity.KIND)))  # a person carries it out
            else:
                moves = list(s.legal_moves())
                rng.shuffle(moves)
                m = next((m for m in moves if explain(s, s.successor(m).view(Fidelity.KIND),
                                                      Fidelity.KIND).verdict is Verdict.LEGAL), None)
                if m is None:  # only moves the board cannot show: declared on the page
                    handle(Declare(s.move_text(s.unseen_moves(Fidelity.KIND)[0])))
                else:
                    handle(StableView(s.successor(m).view(Fidelity.KIND)))
            assert ref.ply > before, f"nothing recorded at move {before + 1} ({s.to_move} to move)"
        record = journal.load(ref.record.id)
        played = [(st.to_move, text) for st, text in zip(record.states, record.moves)]
        by_computer = [text for side, text in played if ref.seats.is_computer(side)]
        assert by_computer == [step.move for d in chosen for step in d.steps][:len(by_computer)]
        assert chosen, "the computer never played"
