"""The chimes are WAV files the project writes itself: each distinct, audible, click-free at its
ends; the drift reminder is three long notes and the computer's move a short then a long one,
as the panel's buzzer patterns."""

from __future__ import annotations

from hardware.panel import COMPUTER, DRIFT
from tableref.voice.audio import CHIMES, read_wav, write_chimes


def notes(sound, threshold=1000, window=0.01):
    """Runs of loud windows: (start s, length s)."""
    step = int(sound.rate * window)
    loud = [max(map(abs, sound.samples[i:i + step]), default=0) > threshold
            for i in range(0, len(sound.samples), step)]
    runs, start = [], None
    for i, on in enumerate(loud + [False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append((start * window, (i - start) * window))
            start = None
    return runs


def test_chimes_written_distinct_and_audible(tmp_path):
    files = write_chimes(tmp_path / "chimes")
    assert sorted(files) == sorted(CHIMES) == ["accepted", "computer", "drift", "illegal", "over"]
    sounds = {name: read_wav(path) for name, path in files.items()}
    assert len({path.read_bytes() for path in files.values()}) == 5
    for name, s in sounds.items():
        assert s.rms() > 3000, name
        assert abs(s.samples[0]) < 200 and abs(s.samples[-1]) < 200, f"{name} clicks"
    assert sounds["accepted"].duration < 0.3 < sounds["illegal"].duration < sounds["drift"].duration
    drift = notes(sounds["drift"])
    assert [round(length, 1) for _, length in drift] == [on for on, _ in DRIFT.beeps]  # 0.4 s each
    assert len(notes(sounds["accepted"])) == 2
    short, long_ = notes(sounds["computer"])
    assert [round(short[1], 2), round(long_[1], 1)] == [COMPUTER.beeps[0][0], COMPUTER.beeps[1][0]]
