"""The opponent searches off the referee's thread, in a worker process of its own: it answers
a request through ``submit``, a later change stops a search in hand (no answer sent), a worker
that dies is spawned again, and a position it cannot play is said, not a crash."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from decisions import NewGame, PlayComputerMove, ShowHint, Thinking
from rules import get_game

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from waiting import wait_for  # noqa: E402

from tableref.opponent import Opponent, OpponentSettings  # noqa: E402

GYGES = get_game("gyges")


def ask(token=1, purpose="move", level=1, state=None, game_id=1):
    state = state or GYGES.default_setup()
    return Thinking(game_id, 0, state.to_move, level, token, "gyges", state.to_dict(), purpose, state=state)


def test_answers_from_its_worker_process_and_spawns_it_again_if_it_dies():
    sent = []
    opp = Opponent(sent.append)
    opp.start()
    try:
        opp.on_decision(ask(1))
        wait_for(lambda: sent, 60, "the computer's move")
        [answer] = sent
        assert isinstance(answer, PlayComputerMove) and answer.token == 1
        state = GYGES.default_setup()
        for text in answer.moves:  # a whole, legal turn
            state = state.apply_text(text)
        assert state.to_move != GYGES.default_setup().to_move
        pid = opp._worker._proc.pid
        assert pid != os.getpid()
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not opp._worker.alive, 10, "the worker to die")
        opp.on_decision(ask(2, purpose="hint"))
        wait_for(lambda: len(sent) == 2, 60, "the hint after the worker was spawned again")
        assert isinstance(sent[1], ShowHint) and sent[1].token == 2
        assert opp._worker._proc.pid != pid
    finally:
        opp.stop()


def test_a_new_game_stops_the_search_in_hand_and_nothing_is_sent():
    sent = []
    # Level 5 in DRIFT runs to its time limit: long enough to be stopped mid-search.
    drift = get_game("drift").default_setup()
    request = Thinking(1, 0, drift.to_move, 5, 1, "drift", drift.to_dict(), "move", state=drift)
    opp = Opponent(sent.append, OpponentSettings(time_scale=20.0))
    opp.start()
    try:
        opp.on_decision(request)
        wait_for(lambda: opp._current is not None and opp._worker is not None, 30, "the search to start")
        opp.on_decision(NewGame(2, 0, "gyges", {}))
        wait_for(lambda: opp._current is None, 20, "the stopped search to return")
        assert sent == []
        assert opp.searched and opp.searched[-1][1].stopped
    finally:
        opp.stop()


def test_unthreaded_requests_wait_for_run_pending_on_the_callers_thread():
    sent = []
    # Level 1 stops at 40 simulations or 0.15 s, whichever comes first: on a loaded machine the
    # clock came first and the two searches differed. Time stretched 100-fold, the simulations
    # bind, and the same seed must give the same move.
    settings = OpponentSettings(seed=3, time_scale=100.0)
    opp = Opponent(sent.append, settings)
    opp.on_decision(ask(7))
    assert sent == []
    assert opp.run_pending() == 1
    assert isinstance(sent[0], PlayComputerMove) and sent[0].token == 7
    again = []
    other = Opponent(again.append, settings)
    other.on_decision(ask(7))
    other.run_pending()
    assert again == sent  # the same seed, the same move
