"""Whole games through the referee with the speaker subscribed: DRIFT's drift reminder said,
repeated every interval (an injected clock, no sleeping) until the rivers are seen turned, then
"Drift done"; an Annihilation game whose spoken scores are the journal's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rules import Fidelity, View, get_game
from decisions import Declare, StableView
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.sources.sim import BoardScript, SimulatedBoard, render_script
from tableref.stabiliser import Stabiliser
from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine

from voicefakes import Clock, FakeRunner

DRIFT = get_game("drift")
START = DRIFT.from_dict(json.loads((Path(__file__).parents[1] / "tableref" / "drift_midgame.json").read_text()))
REMIND = {"en": "End of the round: turn the three rivers", "fr": "Fin de la manche : tournez les trois rivières"}
DONE = {"en": "Drift done", "fr": "Dérive faite"}


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def with_rotation(view, river, tokens):
    spaces = dict(view)
    spaces[f"rotation:{river}"] = tokens
    return View(spaces)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_drift_reminder_repeats_until_the_rivers_are_seen_turned(journal, tmp_path, lang):
    runner, clock = FakeRunner(), Clock()
    sp = Speaker(runner, EspeakEngine(runner), language=lang, level="quiet", reminder_interval=20.0,
                 clock=clock, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "drift", fidelity=Fidelity.KIND, start=START)
    ref.subscribe(sp.on_decision)
    ref.greeting()
    said: list[tuple[float, str]] = []

    def pump():
        said.extend((clock() - 1000.0, s.text) for s in sp.pump())

    for text, how in [("red-I-1 O2-O1", "board"), ("end", "declare"), ("blue-III-1 O9xO6", "board"),
                      ("blue-I-1 M10-M11", "board"), ("green-II-1 O15-OR14", "board")]:
        after = ref.state.successor(ref.state.parse_move(text)).view(Fidelity.KIND)
        out = ref.handle(Declare(text) if how == "declare" else StableView(after))
        assert [d.kind for d in out] == ["accepted"], out
        clock.advance(5)
        pump()
    assert said == []  # quiet: the moves themselves are not said
    ref.handle(Declare("end"))  # Green ends the round: the drift phase
    pump()
    assert said == [(25, REMIND[lang])] and ref.state.phase == "drift"
    assert runner.played[-2].endswith("drift.wav")  # the drift pattern, then the sentence
    for _ in range(3):  # nobody turns the rivers: said again every 20 s, and only then
        clock.advance(10)
        pump()
        clock.advance(10)
        pump()
    assert said == [(25, REMIND[lang]), (45, REMIND[lang]), (65, REMIND[lang]), (85, REMIND[lang])]
    before = ref.state.view(Fidelity.KIND)
    turned = ref.state.successor(ref.state.parse_move("drift")).view(Fidelity.KIND)
    view = with_rotation(before, "outer", turned.get_tokens("rotation:outer"))  # one river turned
    assert [d.kind for d in ref.handle(StableView(view))] == ["partial"]
    clock.advance(20)
    pump()
    assert said[-1] == (105, REMIND[lang])  # part-way is not done: still reminded
    assert said[-2][1].startswith({"en": "Still to do: turn the", "fr": "Reste à faire : tournez la"}[lang])
    for river in ("middle", "inner"):
        view = with_rotation(view, river, turned.get_tokens(f"rotation:{river}"))
    out = ref.handle(StableView(view))
    assert [d.kind for d in out] == ["accepted"] and out[0].move == "drift"
    clock.advance(1)
    pump()
    assert said[-1] == (106, DONE[lang])
    clock.advance(60)
    pump()
    assert said[-1] == (106, DONE[lang])  # no reminder once the drift is done
    assert [t for _, t in said].count(REMIND[lang]) == 5


TOTALS = re.compile(r"White (\d+), Black (\d+)$")
SCRIPT = ["0@f5", "0@b4", "8@W", "5@B", "1@W>a1", "1@B>g7", "a1-W>g7*>f6", "f6-g7>g6", "g6-f5x", "g7-B>d4",
          "2@W>b2", "d4-c4", "b2-W>a1", "0@c6", "a1-W>a1", "3@B>e5", "1@W>a1*>c1", "e5-B>g7", "c1-a1>g7x",
          "c4-c5", "a1-W>g7", "c5-d5", "g7-g6", "8@B>Wx", "g6-f5", "8@B>W"]


def test_annihilation_spoken_scores_are_the_journals(journal, tmp_path):
    game = get_game("annihilation")
    start = game.start()
    state, moves = start, []
    for text in SCRIPT:
        moves.append(state.parse_move(text))
        state = state.successor(moves[-1])
    path = tmp_path / "annihilation.jsonl"
    render_script(start, moves, fidelity=Fidelity.KIND, seed=4).dump(path)
    script = BoardScript.from_file(path)

    runner = FakeRunner()
    sp = Speaker(runner, EspeakEngine(runner), level="normal", clock=Clock(), work_dir=tmp_path / "v")
    ref = Referee.start(journal, "annihilation", fidelity=Fidelity.KIND, start=script.start_state())
    ref.subscribe(sp.on_decision)
    ref.greeting()
    stab = Stabiliser()
    spoken_scores: list[tuple[int, str]] = []
    for obs in SimulatedBoard(script).observations():
        view = stab.feed(obs)
        if view is not None and ref.handle(StableView(view)):
            spoken_scores += [(s.ply, s.text) for s in sp.pump() if s.topic in ("score", "over")]
    record = journal.load(ref.record.id)
    assert list(record.moves) == SCRIPT and record.state.is_game_over()
    assert spoken_scores == [
        (24, "Black scores 13. White 0, Black 13"),
        (26, "Black scores 8. White 0, Black 21"),
        (26, "Game over: Black wins (Black reached 20 points). White 0, Black 21"),
    ]
    for ply, text in spoken_scores:  # each total said is the journal's score after that move
        white, black = map(int, TOTALS.search(text).groups())
        assert dict(record.states[ply].scores()) == {"white": white, "black": black}
    assert "Black scores" in runner.spoken[-2] and runner.spoken[-1].startswith("Game over")
