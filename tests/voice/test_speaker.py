"""The speaker's queue and thread: stale sentences dropped, an undo cuts the sentence being
spoken (its player killed), mute, levels, and silence (logged once) without an audio output."""

from __future__ import annotations

import logging
import time

import pytest

from rules import Fidelity, View, get_game
from decisions import GameOver, NewGame, StableView, Undo
from tableref.journal import Journal
from tableref.referee import Referee, RefereeLoop
from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine, read_wav

from voicefakes import Clock, FakeRunner


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def speaker(runner, clock=None, **kw):
    kw.setdefault("level", "normal")
    return Speaker(runner, EspeakEngine(runner), clock=clock or Clock(), **kw)


def play_moves(ref, n):
    s = ref.state
    for _ in range(n):
        s = s.successor(s.legal_moves()[0])
        ref.handle(StableView(s.view(Fidelity.KIND)))
    return s


def test_three_quick_moves_say_the_latest_not_a_backlog(journal, tmp_path):
    runner = FakeRunner()
    sp = speaker(runner, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    play_moves(ref, 3)  # three decisions arrive before the speaker's thread gets to them
    assert not sp.idle
    said = sp.pump()
    assert sp.idle
    assert [s.topic for s in said] == ["move"]
    last = ref.record.states[-2].describe_move(ref.record.states[-2].parse_move(ref.record.moves[-1]))
    assert said[0].text == last.replace("→", "to").replace("  ", " ")
    assert runner.spoken == [said[0].text]
    # the accepted chime, then the sentence
    assert [p.rsplit("/", 1)[-1] for p in runner.played] == ["accepted.wav", "say-1.wav"]


def test_a_sentence_left_waiting_too_long_is_dropped(journal, tmp_path):
    runner, clock = FakeRunner(), Clock()
    sp = speaker(runner, clock, stale_after=5.0, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    play_moves(ref, 1)
    sp._phrase(clock())  # phrased now, but the thread is busy ...
    clock.advance(6.0)  # ... for longer than stale_after
    assert sp.pump() == []
    assert runner.spoken == []


def test_game_over_waits_its_turn_however_long_the_sentence_before_it(journal, tmp_path):
    runner, clock = FakeRunner(), Clock()
    sp = speaker(runner, clock, stale_after=5.0, work_dir=tmp_path / "v", chimes=False)
    sp.on_decision(NewGame(1, 0, "gyges", get_game("gyges").default_setup({}).to_dict()))
    sp.on_decision(GameOver(1, 0, {"winner": "south", "reason": "a ring on the throne", "scores": {}}))
    sp._phrase(clock())
    clock.advance(20.0)  # the sentence before it took 20 s
    assert [s.text for s in sp.pump()] == ["Game over: South wins"]  # the new game's was stale


def test_an_undo_cuts_the_sentence_being_spoken(journal, tmp_path):
    runner = FakeRunner(hold=True)  # the player plays until killed
    sp = speaker(runner, work_dir=tmp_path / "v", chimes=False)
    ref = Referee.start(journal, "gyges", setup="default")
    loop = RefereeLoop(ref)
    ref.subscribe(sp.on_decision)
    with sp:
        loop.start()
        try:
            s = ref.state.successor(ref.state.legal_moves()[0])
            loop.submit(StableView(s.view(Fidelity.KIND)))
            playing = runner.wait_spawned(1)  # the move's sentence is being spoken
            assert not playing.killed
            loop.submit(Undo())
            for _ in range(500):
                if playing.killed:
                    break
                time.sleep(0.01)
            assert playing.killed, "the undo did not cut the sentence"
            after = runner.wait_spawned(2)  # then the takeback is said
            after.finish()
            runner.wait_spawned(3)  # then what to put back: being said when the speaker closes
        finally:
            loop.stop(5)
    said = list(sp.said)
    assert (said[0].topic, said[0].cut) == ("move", True)
    assert (said[1].topic, said[1].cut) == ("undo", False)  # "Took back ...", played to its end
    # then "Illegal: put ... back" (the board still shows the undone move), cut by close()
    assert [(s.topic, s.cut) for s in said[2:]] == [("status", True)]
    assert ref.record.moves == []


def test_mute_cuts_and_silences_unmute_says_so(journal, tmp_path):
    runner = FakeRunner()
    sp = speaker(runner, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    assert sp.toggle_mute() is True
    play_moves(ref, 1)
    assert sp.pump() == [] and runner.spoken == []
    assert sp.toggle_mute() is False
    assert [s.text for s in sp.pump()] == ["Voice on"]
    play_moves(ref, 1)
    assert [s.topic for s in sp.pump()] == ["move"]


def test_quiet_says_only_what_must_not_be_missed(journal, tmp_path):
    runner = FakeRunner()
    sp = speaker(runner, level="quiet", work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    s = play_moves(ref, 1)
    assert sp.pump() == []  # an accepted move: not at quiet
    view = dict(s.view(Fidelity.KIND))
    view.pop(sorted(view)[0])
    ref.handle(StableView(View(view)))
    [said] = sp.pump()
    assert said.text.startswith("Illegal: put the") and said.cue == "illegal"


def test_off_says_nothing(journal, tmp_path):
    runner = FakeRunner()
    sp = speaker(runner, level="off", work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    play_moves(ref, 2)
    assert sp.pump() == [] and runner.spawned == []


def test_no_audio_output_logs_once_and_stays_silent(journal, tmp_path, caplog):
    runner = FakeRunner(programs=("espeak-ng",))  # neither aplay nor pw-play
    sp = speaker(runner, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    with caplog.at_level(logging.WARNING):
        play_moves(ref, 1)
        first = sp.pump()
        play_moves(ref, 1)
        second = sp.pump()
    assert [s.silent for s in first + second] == [True, True]
    assert runner.runs == [] and runner.spawned == []
    assert caplog.text.count("no audio output") == 1
    assert sp.status().problem.startswith("no audio output")


def test_no_engine_plays_the_chimes_only(journal, tmp_path, caplog):
    runner = FakeRunner(programs=("pw-play",))
    sp = speaker(runner, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    play_moves(ref, 1)
    [said] = sp.pump()
    assert said.silent and runner.runs == []
    assert [p.argv[0] for p in runner.spawned] == ["/usr/bin/pw-play"]
    assert runner.played[0].endswith("accepted.wav")
    assert "espeak-ng is not installed" in caplog.text


def test_volume_scales_what_is_played(tmp_path):
    runner = FakeRunner()
    start = get_game("gyges").default_setup({}).to_dict()
    for volume, d in ((100, "a"), (25, "b")):
        sp = speaker(runner, volume=volume, work_dir=tmp_path / d, chimes=False)
        sp.on_decision(NewGame(1, 0, "gyges", start))
        sp.pump()
    a, b = (read_wav(tmp_path / d / "say-1.wav").rms() for d in ("a", "b"))
    assert a > 1000 and b == pytest.approx(a * 0.25, rel=0.02)


def test_a_broken_engine_is_logged_and_the_speaker_goes_on(journal, tmp_path, caplog):
    class Failing(FakeRunner):
        def run(self, argv, *, input=None, timeout=20.0):
            from tableref.voice.audio import VoiceError
            raise VoiceError("espeak-ng exited 1: no voice")

    runner = Failing()
    sp = speaker(runner, work_dir=tmp_path / "v", chimes=False)
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    play_moves(ref, 1)
    [said] = sp.pump()
    assert said.silent and "no voice" in caplog.text
    assert len(ref.record.moves) == 1


def test_a_player_that_fails_is_logged_once(journal, tmp_path, caplog):
    runner = FakeRunner(player_code=1)  # aplay on a machine with no sound card
    sp = speaker(runner, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default")
    ref.subscribe(sp.on_decision)
    for _ in range(2):
        play_moves(ref, 1)
        sp.pump()
    assert len(runner.spawned) == 4  # chime and sentence, twice: it keeps trying
    assert caplog.text.count("aplay exited 1") == 1 and "check the sound card" in caplog.text
