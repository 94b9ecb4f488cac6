"""Real speech: espeak-ng (Debian; scripts/ensure-espeak installs it) synthesises the referee's
sentences to WAV, in English and French; each is checked to be speech, not silence, and as long
as its sentence. One speaker run uses the real espeak-ng with only the player faked."""

from __future__ import annotations

import shutil

import pytest

from rules import SpaceFix, get_game
from decisions import Accepted, GameOver, Illegal, NewGame
from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine, SubprocessRunner, read_wav
from tableref.voice.sentences import Narrator

from voicefakes import FakeRunner

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="espeak-ng is not installed (scripts/ensure-espeak installs it with apt-get)")

SPEED = 160  # words per minute, the engine's default here


def sentences(lang):
    n = Narrator(lang)
    start = get_game("annihilation").start()
    out = [u.text for u in n.on(NewGame(1, 0, "annihilation", start.to_dict()))]
    m = start.legal_moves()[0]
    out += [u.text for u in n.on(Accepted(1, 1, start.move_text(m), start.describe_move(m),
                                          start.successor(m).to_dict()))]
    out += [u.text for u in n.on(Illegal(1, 1, (SpaceFix("c3", ("W8",), ()), SpaceFix("d4", (), ("B5",)))))]
    out += [u.text for u in n.on(GameOver(1, 1, {"winner": "white", "scores": {"white": 21, "black": 9}}))]
    return out


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_each_sentence_is_speech_of_its_length(tmp_path, lang):
    engine = EspeakEngine(SubprocessRunner(), speed=SPEED)
    lengths = []
    for i, text in enumerate(sentences(lang)):
        wav = tmp_path / f"{i}.wav"
        engine.synthesise(text, lang, wav)
        sound = read_wav(wav)
        words = len(text.split())
        expected = words * 60 / SPEED
        assert sound.rms() > 300, f"silent: {text!r}"
        assert sound.voiced() > 0.5 * expected, f"too little speech in {text!r}"
        assert 0.4 * expected < sound.duration < 2.5 * expected + 0.6, \
            f"{text!r}: {words} words, {sound.duration:.2f} s (expected about {expected:.2f} s)"
        lengths.append((words, sound.duration))
    # More words, more speech: the longest sentence lasts longer than the shortest.
    lengths.sort()
    assert lengths[-1][1] > lengths[0][1]


def test_french_voice_differs_from_english(tmp_path):
    engine = EspeakEngine(SubprocessRunner())
    engine.synthesise("Partie terminée : Blanc gagne", "fr", tmp_path / "fr.wav")
    engine.synthesise("Partie terminée : Blanc gagne", "en", tmp_path / "en.wav")
    assert (tmp_path / "fr.wav").read_bytes() != (tmp_path / "en.wav").read_bytes()


class RealSpeech(FakeRunner):
    """espeak-ng for real; the player faked (there is no sound card on a test machine)."""

    def __init__(self):
        super().__init__(("espeak-ng", "aplay"))
        self._real = SubprocessRunner()

    def run(self, argv, *, input=None, timeout=20.0):
        self.runs.append((list(argv), (input or b"").decode()))
        self._real.run(argv, input=input, timeout=timeout)

    def spawn(self, argv):
        import shutil as sh

        sh.copy(argv[-1], f"{argv[-1]}.played-{len(self.spawned)}")  # the file as it was played
        return super().spawn(argv)


def test_the_speaker_says_a_decision_with_real_espeak(tmp_path):
    runner = RealSpeech()
    sp = Speaker(runner, EspeakEngine(runner), language="fr", level="quiet", volume=50, work_dir=tmp_path)
    sp.on_decision(NewGame(1, 0, "gyges", get_game("gyges").default_setup({}).to_dict()))
    sp.on_decision(Illegal(1, 0, (SpaceFix("c3", ("2",), ()),)))
    [said] = sp.pump()
    assert said.text == "Illégal : remettez l'anneau double en c3" and not said.silent
    chime, speech = (read_wav(p.argv[-1] + f".played-{i}") for i, p in enumerate(runner.spawned))
    assert runner.played[0].endswith("illegal.wav") and 0.3 < chime.duration < 1.0
    assert speech.voiced() > 1.0 and speech.rms() > 150
    assert runner.spawned[1].argv[:2] == ["/usr/bin/aplay", "-q"]
