"""Sound on the Pi: text-to-speech engines, the audio output, WAV files and the chimes.

Everything that starts a program goes through a :class:`Runner` (the backend parameter):
:class:`SubprocessRunner` on the Pi, a fake in tests. Speech is synthesised to a WAV file
first (``espeak-ng -w`` or ``piper --output_file``), then played by ``aplay`` (ALSA) or
``pw-play`` (PipeWire) as a child process the speaker can kill: an undo cuts the sentence.
"""

from __future__ import annotations

import array
import logging
import math
import shutil
import subprocess
import sys
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

ENGINES = ("espeak-ng", "piper")
OUTPUTS = ("auto", "aplay", "pw-play")
SYNTH_TIMEOUT = 20.0  # seconds: a sentence takes well under one on a Pi 4


class VoiceError(RuntimeError):
    """A sentence could not be synthesised or played; the message says which program and why."""


class Process(Protocol):
    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...

    def poll(self) -> int | None: ...


class Runner(Protocol):
    """Starts programs: ``which`` finds one, ``run`` waits for it, ``spawn`` does not."""

    def which(self, name: str) -> str | None: ...

    def run(self, argv: Sequence[str], *, input: bytes | None = None, timeout: float = SYNTH_TIMEOUT) -> None: ...

    def spawn(self, argv: Sequence[str]) -> Process: ...


class SubprocessRunner:
    """The real programs, through :mod:`subprocess`."""

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def run(self, argv: Sequence[str], *, input: bytes | None = None, timeout: float = SYNTH_TIMEOUT) -> None:
        try:
            done = subprocess.run(list(argv), input=input, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise VoiceError(f"{argv[0]}: {exc}") from None
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise VoiceError(f"{argv[0]} exited {done.returncode}" + (f": {why[-1]}" if why else ""))

    def spawn(self, argv: Sequence[str]) -> Process:
        try:
            return subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise VoiceError(f"{argv[0]}: {exc}") from None


# -- engines --------------------------------------------------------------------------------------


class Engine(Protocol):
    name: str

    def available(self) -> str | None:
        """Why this engine cannot speak here, or None if it can."""

    def synthesise(self, text: str, language: str, out: Path) -> None: ...


# espeak-ng's voice for each catalog language (its own names: `espeak-ng --voices`).
ESPEAK_VOICES = {"en": "en-gb", "fr": "fr-fr"}


class EspeakEngine:
    """espeak-ng (Debian package ``espeak-ng``): small, fast, every language."""

    name = "espeak-ng"

    def __init__(self, runner: Runner, *, voice: str | None = None, speed: int = 160,
                 command: str = "espeak-ng") -> None:
        self.runner, self.voice, self.speed, self.command = runner, voice, speed, command

    def available(self) -> str | None:
        if self.runner.which(self.command) is None:
            return f"{self.command} is not installed (Debian: apt install espeak-ng)"
        return None

    def synthesise(self, text: str, language: str, out: Path) -> None:
        voice = self.voice or ESPEAK_VOICES.get(language, language)
        self.runner.run([self.command, "-v", voice, "-s", str(self.speed), "-w", str(out), "--stdin"],
                        input=text.encode("utf-8"))


class PiperEngine:
    """Piper (neural voices): ``model`` is a voice file (``*.onnx`` with its ``.onnx.json``)
    installed beforehand; it is never downloaded by the referee."""

    name = "piper"

    def __init__(self, runner: Runner, *, model: Path, command: str | None = None) -> None:
        self.runner, self.model = runner, Path(model)
        self.command = command or piper_command(runner)

    def available(self) -> str | None:
        if self.runner.which(self.command) is None:
            return f"{self.command} is not installed (pip install piper-tts, or the piper release for the Pi)"
        if not self.model.is_file():
            return f"the Piper voice file {self.model} is missing (voice.piper_model)"
        return None

    def synthesise(self, text: str, language: str, out: Path) -> None:
        self.runner.run([self.command, "--model", str(self.model), "--output_file", str(out)],
                        input=text.encode("utf-8"))


def piper_command(runner: Runner) -> str:
    """``piper`` on the PATH, else the one ``pip install piper-tts`` put beside this Python
    (a service started as ``.venv/bin/tableref`` has no venv on its PATH)."""
    if runner.which("piper") is None:
        beside = str(Path(sys.executable).parent / "piper")
        if runner.which(beside) is not None:
            return beside
    return "piper"


# -- output ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Output:
    """A WAV player: ``aplay`` (ALSA) or ``pw-play`` (PipeWire)."""

    name: str
    path: str

    def argv(self, wav: Path) -> list[str]:
        return [self.path, "-q", str(wav)] if self.name == "aplay" else [self.path, str(wav)]


def find_output(runner: Runner, prefer: str = "auto") -> Output | None:
    """The player to use, or None. ``auto``: ALSA's aplay where there is one (it reaches
    PipeWire too through pipewire-alsa, and works for a system service), else pw-play."""
    names = ("aplay", "pw-play") if prefer == "auto" else (prefer,)
    for name in names:
        path = runner.which(name)
        if path:
            return Output(name, path)
    return None


# -- WAV files ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sound:
    """A mono or stereo 16-bit WAV's samples."""

    rate: int
    channels: int
    samples: array.array  # 'h', interleaved

    @property
    def duration(self) -> float:
        return len(self.samples) / (self.rate * self.channels)

    def rms(self) -> float:
        if not self.samples:
            return 0.0
        return math.sqrt(sum(s * s for s in self.samples) / len(self.samples))

    def voiced(self, threshold: int = 500, window: float = 0.02) -> float:
        """Seconds in windows whose peak exceeds ``threshold``: speech, not silence."""
        step = max(1, int(self.rate * self.channels * window))
        loud = sum(1 for i in range(0, len(self.samples), step)
                   if max(map(abs, self.samples[i:i + step]), default=0) > threshold)
        return loud * step / (self.rate * self.channels)

    def scaled(self, volume: int) -> "Sound":
        if volume >= 100:
            return self
        import numpy as np  # in one C loop: the GIL is not held sample by sample while the referee works

        k = max(0, volume) / 100.0
        data = (np.frombuffer(self.samples, dtype=np.int16).astype(np.float32) * k).astype(np.int16)
        return Sound(self.rate, self.channels, array.array("h", data.tobytes()))


def read_wav(path: Path) -> Sound:
    try:
        with wave.open(str(path), "rb") as w:
            if w.getsampwidth() != 2:
                raise VoiceError(f"{path}: {8 * w.getsampwidth()}-bit WAV, expected 16-bit")
            frames = w.readframes(w.getnframes())
            rate, channels = w.getframerate(), w.getnchannels()
    except (OSError, EOFError, wave.Error) as exc:
        raise VoiceError(f"{path}: not a readable WAV file: {exc}") from None
    samples = array.array("h")
    samples.frombytes(frames[: len(frames) // 2 * 2])
    if sys.byteorder == "big":
        samples.byteswap()
    return Sound(rate, channels, samples)


def write_wav(path: Path, sound: Sound) -> Path:
    data = array.array("h", sound.samples)
    if sys.byteorder == "big":
        data.byteswap()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(sound.channels)
        w.setsampwidth(2)
        w.setframerate(sound.rate)
        w.writeframes(data.tobytes())
    return path


# -- chimes ---------------------------------------------------------------------------------------

CHIME_RATE = 22050
# name -> notes as (frequency Hz or 0 for a rest, seconds). Accepted: a rising pair; illegal:
# a low falling pair, longer; drift: three long notes as the panel's buzzer (0.4 s on, 0.2 off);
# over: a falling arpeggio.
CHIMES: dict[str, tuple[tuple[float, float], ...]] = {
    "accepted": ((660.0, 0.07), (0.0, 0.02), (880.0, 0.09)),
    "illegal": ((247.0, 0.16), (0.0, 0.04), (196.0, 0.26)),
    "drift": ((523.0, 0.4), (0.0, 0.2), (523.0, 0.4), (0.0, 0.2), (392.0, 0.4)),
    "over": ((784.0, 0.12), (659.0, 0.12), (523.0, 0.12), (392.0, 0.36)),
    # the computer's move to carry out: short then long, as the panel's buzzer pattern
    "computer": ((587.0, 0.06), (0.0, 0.1), (784.0, 0.3)),
}


def chime(notes: Sequence[tuple[float, float]], rate: int = CHIME_RATE, level: float = 0.5) -> Sound:
    """Sine notes with a short fade in and out (no clicks)."""
    out = array.array("h")
    fade = int(0.008 * rate)
    for freq, seconds in notes:
        n = int(seconds * rate)
        for i in range(n):
            if freq <= 0:
                out.append(0)
                continue
            env = min(1.0, i / fade, (n - 1 - i) / fade) if fade else 1.0
            out.append(int(32767 * level * env * math.sin(2 * math.pi * freq * i / rate)))
    return Sound(rate, 1, out)


def write_chimes(directory: Path) -> dict[str, Path]:
    """Generate the chimes' WAV files in ``directory`` (made if missing); their paths by name."""
    directory.mkdir(parents=True, exist_ok=True)
    return {name: write_wav(directory / f"{name}.wav", chime(notes)) for name, notes in CHIMES.items()}
