"""A fake of the programs the speaker starts (tableref.voice.audio.Runner): espeak-ng writes a
WAV whose length follows the text, as the real one does; the player "plays" until released or
killed, so a test can undo mid-sentence."""

from __future__ import annotations

import array
import math
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from tableref.voice.audio import Sound, write_wav


class FakeProcess:
    def __init__(self, argv: list[str], hold: bool, code: int = 0) -> None:
        self.argv = argv
        self.code = code
        self.killed = False
        self._done = threading.Event()
        if not hold:
            self._done.set()

    def wait(self, timeout: float | None = None) -> int:
        if not self._done.wait(timeout):
            raise TimeoutError("still playing")
        return -9 if self.killed else self.code

    def poll(self) -> int | None:
        return (-9 if self.killed else 0) if self._done.is_set() else None

    def kill(self) -> None:
        self.killed = True
        self._done.set()

    def finish(self) -> None:
        self._done.set()


class FakeRunner:
    def __init__(self, programs: Sequence[str] = ("espeak-ng", "aplay"), *, hold: bool = False,
                 player_code: int = 0) -> None:
        self.programs = set(programs)
        self.hold = hold
        self.player_code = player_code  # what the player exits with (1: aplay with no sound card)
        self.runs: list[tuple[list[str], str]] = []  # (argv, text on stdin)
        self.spawned: list[FakeProcess] = []
        self.spawn_event = threading.Event()
        self._lock = threading.Lock()

    def which(self, name: str) -> str | None:
        return f"/usr/bin/{name}" if name in self.programs else None

    def run(self, argv: Sequence[str], *, input: bytes | None = None, timeout: float = 20.0) -> None:
        argv = list(argv)
        text = (input or b"").decode("utf-8")
        with self._lock:
            self.runs.append((argv, text))
        out = Path(argv[argv.index("-w") + 1] if "-w" in argv else argv[argv.index("--output_file") + 1])
        seconds = 0.06 * len(text.split()) + 0.1
        rate = 8000
        samples = array.array("h", (int(8000 * math.sin(i / 5)) for i in range(int(rate * seconds))))
        write_wav(out, Sound(rate, 1, samples))

    def spawn(self, argv: Sequence[str]) -> FakeProcess:
        proc = FakeProcess(list(argv), self.hold, self.player_code)
        with self._lock:
            self.spawned.append(proc)
        self.spawn_event.set()
        return proc

    @property
    def played(self) -> list[str]:
        """The WAV files given to the player, in order."""
        return [p.argv[-1] for p in self.spawned]

    @property
    def spoken(self) -> list[str]:
        return [text for argv, text in self.runs]

    def wait_spawned(self, n: int, timeout: float = 5.0) -> FakeProcess:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                if len(self.spawned) >= n:
                    return self.spawned[n - 1]
            time.sleep(0.005)
        raise AssertionError(f"the player was not started {n} times within {timeout} s")


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
