"""The [voice] table: every key validated with an error naming it; the example file's voice;
the engine chosen from it (Piper only with an installed voice file, never downloaded)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tableref.config import Config, ConfigError, load_config
from tableref.voice import VoiceConfig, open_speaker
from tableref.voice.audio import EspeakEngine, PiperEngine

from voicefakes import Clock, FakeRunner

ROOT = Path(__file__).parents[2]


def voice(text: str) -> VoiceConfig:
    return Config.from_dict(tomllib.loads('[game]\nname = "gyges"\n[voice]\n' + text), where="t.toml",
                            base=Path("/etc/tableref")).voice


def test_defaults_and_the_example_file():
    assert Config.default().voice == VoiceConfig()
    assert VoiceConfig().level == "quiet" and VoiceConfig().enabled
    example = load_config(ROOT / "deploy" / "tableref.toml").voice
    assert (example.level, example.language, example.engine, example.volume, example.reminder_interval) == \
        ("quiet", "en", "espeak-ng", 80, 20.0)


def test_every_key_read():
    v = voice('level = "normal"\nlanguage = "fr"\nengine = "piper"\npiper_model = "voices/fr.onnx"\n'
              'volume = 40\nreminder_interval = 12.5\noutput = "pw-play"\nchimes = false\nvoice = "fr-be"')
    assert v == VoiceConfig("normal", "fr", "piper", "fr-be", Path("/etc/tableref/voices/fr.onnx"), 40, 12.5,
                            "pw-play", False)


@pytest.mark.parametrize("text, message", [
    ('level = "loud"', 'voice.level: expected one of "off", "quiet", "normal", got \'loud\''),
    ('language = "de"', 'voice.language: expected one of "en", "fr", got \'de\''),
    ('engine = "festival"', "voice.engine: expected one of"),
    ('engine = "piper"', "voice.piper_model: missing: engine = \"piper\" needs the path"),
    ("volume = 101", "voice.volume: expected an integer 0-100, got 101"),
    ("volume = -1", "voice.volume: expected an integer >= 0"),
    ('volume = "loud"', "voice.volume: expected an integer, got string"),
    ("reminder_interval = 0", "voice.reminder_interval: expected a number > 0"),
    ('output = "pulse"', "voice.output: expected one of"),
    ('voice = "fr fr"', "voice.voice: expected an espeak-ng voice name"),
    ("chimes = 1", "voice.chimes: expected true or false"),
    ("volumes = 3", "voice.volumes: unknown key (did you mean 'volume'?)"),
])
def test_bad_keys_are_named(text, message):
    with pytest.raises(ConfigError) as err:
        voice(text)
    assert message in str(err.value) and str(err.value).startswith("t.toml: voice.")


def test_the_engine_follows_the_config(tmp_path):
    runner = FakeRunner(("espeak-ng", "piper", "aplay"))
    assert open_speaker(VoiceConfig(level="off"), runner=runner) is None
    sp = open_speaker(VoiceConfig(language="fr", voice="fr-be"), runner=runner, clock=Clock())
    assert isinstance(sp.engine, EspeakEngine) and sp.engine.voice == "fr-be"
    model = tmp_path / "fr.onnx"
    sp = open_speaker(VoiceConfig(engine="piper", piper_model=model), runner=runner, clock=Clock())
    assert isinstance(sp.engine, PiperEngine)
    assert sp.engine.available() == f"the Piper voice file {model} is missing (voice.piper_model)"
    model.write_bytes(b"onnx")
    assert sp.engine.available() is None
    sp.engine.synthesise("Drift done", "en", tmp_path / "out.wav")
    argv, text = runner.runs[-1]
    assert argv == ["piper", "--model", str(model), "--output_file", str(tmp_path / "out.wav")] and text == "Drift done"
    sp.engine.synthesise("x", "fr", tmp_path / "o.wav")
    assert FakeRunner(("aplay",)).which("piper") is None
    assert PiperEngine(FakeRunner(("aplay",)), model=model).available().startswith("piper is not installed")
