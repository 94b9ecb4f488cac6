"""The speaker: a referee subscriber that says the decisions out loud, on its own thread.

``on_decision`` (the referee's thread) only puts the decision in an inbox and wakes the
speaker's thread, so speech never delays a decision. The thread phrases what has arrived
(:class:`~tableref.voice.sentences.Narrator`) into a short queue in which a newer sentence of
a topic replaces an older one still waiting (three quick moves: the latest, not a backlog)
and a move sentence left waiting past ``stale_after`` seconds is dropped (the board's status,
the scores, reminders and game over stay true until replaced, so they wait their turn). An undo or a new game
cuts the sentence being spoken (its player process is killed) and empties the queue; so does
muting (the panel's long press on undo, the page's admin toggle).

A reminder phase (DRIFT's drift) is said on entry and again every ``reminder_interval``
seconds until a move leaves it ("Drift done"). Time is ``clock()``, injected: tests drive
:meth:`Speaker.pump` with their own clock and no thread.

With no audio output (neither ``aplay`` nor ``pw-play``) or no engine, the speaker logs it
once and stays silent; nothing it does can stop the referee.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from decisions import Decision

from .audio import Engine, Output, Runner, VoiceError, find_output, read_wav, write_chimes, write_wav
from .sentences import LEVELS, SUPERSEDES, Narrator, Utterance

log = logging.getLogger(__name__)

CUTTING = frozenset({"taken_back", "new_game"})  # the game undone or replaced: stop talking about it
# Sentences still true however long they waited (a newer one of their topic replaces them):
# the board's status, the scores, a reminder, game over, the computer's move to carry out and a
# hint (a move makes both stale). Only the commentary goes stale by age.
TIMELESS = frozenset({"status", "score", "reminder", "over", "computer", "hint"})
INBOX = 256  # decisions waiting to be phrased, at most (each carries its whole position)


@dataclass(frozen=True)
class Said:
    """One utterance the speaker played (or began to): ``cut`` if it was stopped part-way."""

    text: str
    topic: str
    cue: str | None
    ply: int
    at: float
    cut: bool = False
    silent: bool = False  # no output or engine: nothing could be heard


@dataclass(frozen=True)
class VoiceStatus:
    """For the page and ``/api/voice``."""

    level: str
    language: str
    engine: str
    muted: bool
    output: str | None  # aplay, pw-play, or None: silent
    problem: str | None  # why nothing can be heard, if so

    def to_dict(self) -> dict[str, object]:
        return {"level": self.level, "language": self.language, "engine": self.engine, "muted": self.muted,
                "output": self.output, "problem": self.problem}


class Speaker:
    def __init__(
        self,
        runner: Runner,
        engine: Engine | None,
        *,
        language: str = "en",
        level: str = "quiet",
        volume: int = 80,
        reminder_interval: float = 20.0,
        chimes: bool = True,
        output: str = "auto",
        clock: Callable[[], float] = time.monotonic,
        stale_after: float = 8.0,
        max_pending: int = 3,
        work_dir: Path | None = None,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"voice level must be one of {', '.join(LEVELS)}, got {level!r}")
        if not reminder_interval > 0:
            raise ValueError(f"reminder interval must be > 0 seconds, got {reminder_interval!r}")
        self.runner, self.engine = runner, engine
        self.narrator = Narrator(language)
        self.level, self.volume, self.reminder_interval = level, int(volume), float(reminder_interval)
        self.chimes, self.prefer_output, self.clock = chimes, output, clock
        self.stale_after, self.max_pending = stale_after, max_pending
        self.said: deque[Said] = deque(maxlen=500)
        self._work_dir, self._own_dir = work_dir, work_dir is None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._inbox: list[Decision] = []
        self._queue: list[tuple[Utterance, float]] = []
        self._generation = 0
        self._playing: object = None  # the player process being waited on
        self._speaking = False  # an utterance taken from the queue is being synthesised or played
        self._muted = False
        self._next_reminder: float | None = None
        self._ready = False
        self._output: Output | None = None
        self._problem: str | None = None
        self._chime_files: dict[str, Path] = {}
        self._count = 0
        self._thread: threading.Thread | None = None
        self._stopping = False

    # -- the referee's side (any thread; must stay cheap) -------------------------------------------

    def on_decision(self, decision: Decision) -> None:
        with self._lock:
            if self.level == "off":
                return
            self._inbox.append(decision)
            del self._inbox[:-INBOX]  # no thread pumping it (threaded=False): memory stays bounded
            if decision.kind in CUTTING:
                self._cut()
        self._wake.set()

    @property
    def muted(self) -> bool:
        return self._muted

    def set_muted(self, muted: bool) -> bool:
        """Mute (cuts what is being said) or unmute (says so). Returns the new state."""
        with self._lock:
            changed, self._muted = muted != self._muted, muted
            if muted:
                self._cut()
            elif changed:
                self._queue.append((Utterance(self.narrator.c._("Voice on"), "notice", "quiet"), self.clock()))
        self._wake.set()
        log.info("voice %s", "muted" if muted else "on")
        return muted

    def toggle_mute(self) -> bool:
        """For the panel's long press on undo: returns True if now muted."""
        return self.set_muted(not self._muted)

    @property
    def idle(self) -> bool:
        """Nothing waiting, nothing being played (reminders aside)."""
        with self._lock:
            return not self._inbox and not self._queue and not self._speaking

    def status(self) -> VoiceStatus:
        problem = self._problem if self._ready else None
        return VoiceStatus(self.level, self.narrator.language, self.engine.name if self.engine else "none",
                           self._muted, self._output.name if self._output else None, problem)

    def _cut(self) -> None:
        """(lock held) Stop the sentence being spoken and forget those waiting."""
        self._generation += 1
        self._queue.clear()
        playing = self._playing
        if playing is not None:
            try:
                playing.kill()  # type: ignore[attr-defined]
            except OSError:  # already ended
                pass

    # -- the thread ---------------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._stopping = False
            self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Cut what is being said and end the thread. Safe twice."""
        with self._lock:
            self._stopping = True
            self._cut()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def close(self) -> None:
        self.stop()
        if self._own_dir and self._work_dir is not None:
            shutil.rmtree(self._work_dir, ignore_errors=True)
            self._work_dir, self._ready = None, False

    def __enter__(self) -> "Speaker":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        while not self._stopping:
            due = self._next_reminder
            wait = None if due is None else max(0.0, due - self.clock())
            self._wake.wait(wait if wait is None else min(wait, 1.0))
            self._wake.clear()
            if self._stopping:
                return
            try:
                self.pump()
            except Exception:  # the voice must never take the service down; the error is logged
                log.exception("voice: speaking failed")

    # -- phrasing and speaking (the speaker's thread, or a test) -----------------------------------------

    def pump(self) -> list[Said]:
        """Phrase what has arrived, say what is due, until nothing is left. Returns what was said."""
        out: list[Said] = []
        while not self._stopping:
            now = self.clock()
            self._phrase(now)
            item = self._next(now)
            if item is None:
                return out
            try:
                said = self._say(*item)
            finally:
                with self._lock:
                    self._speaking = False
            if said is not None:
                self.said.append(said)
                out.append(said)
        return out

    def _phrase(self, now: float) -> None:
        with self._lock:
            decisions, self._inbox = self._inbox, []
        for d in decisions:
            for u in self.narrator.on(d):
                self._enqueue(u, now)
        reminder = self.narrator.reminder
        if reminder is None:
            self._next_reminder = None
        elif self._next_reminder is None:
            self._next_reminder = now + self.reminder_interval
        elif now >= self._next_reminder:
            u = self.narrator.reminder_utterance()
            if u is not None:
                self._enqueue(u, now)

    def _enqueue(self, u: Utterance, now: float) -> None:
        if u.topic == "reminder":
            self._next_reminder = now + self.reminder_interval
        if self._muted or not u.said_at(self.level):
            return
        stale = SUPERSEDES.get(u.topic, frozenset({u.topic}))
        with self._lock:
            self._queue = [(q, t) for q, t in self._queue if q.topic not in stale]
            self._queue.append((u, now))
            while len(self._queue) > self.max_pending:  # a short queue: the oldest commentary goes first
                i = next((i for i, (q, _) in enumerate(self._queue) if q.topic not in TIMELESS), 0)
                del self._queue[i]

    def _next(self, now: float) -> tuple[Utterance, int] | None:
        with self._lock:
            while self._queue:
                u, queued = self._queue.pop(0)
                if u.topic in TIMELESS or now - queued <= self.stale_after:
                    self._speaking = True
                    return u, self._generation
                log.debug("voice: dropped stale %r", u.text)
            return None

    def _say(self, u: Utterance, generation: int) -> Said | None:
        if self._muted:
            return None
        self._prepare()
        at = self.clock()
        if self._output is None:
            return Said(u.text, u.topic, u.cue, u.ply, at, silent=True)
        cut = False
        if u.cue and self.chimes and u.cue in self._chime_files:
            cut = self._play(self._chime_files[u.cue], generation)
        if not cut and self.engine is not None and self._problem is None:
            self._count += 1
            wav = self._dir() / f"say-{self._count % 8}.wav"
            try:
                self.engine.synthesise(u.text, self.narrator.language, wav)
                if self.volume < 100:
                    write_wav(wav, read_wav(wav).scaled(self.volume))
            except VoiceError as exc:
                log.error("voice: cannot say %r: %s", u.text, exc)
                return Said(u.text, u.topic, u.cue, u.ply, at, silent=True)
            cut = self._play(wav, generation)
        return Said(u.text, u.topic, u.cue, u.ply, at, cut=cut, silent=self.engine is None or bool(self._problem))

    def _play(self, wav: Path, generation: int) -> bool:
        """Play a WAV; True if it was cut (an undo, a new game, a mute) before or while playing."""
        assert self._output is not None
        with self._lock:
            if generation != self._generation:
                return True
        try:  # started outside the lock: a fork must never hold up the referee's on_decision
            proc = self.runner.spawn(self._output.argv(wav))
        except VoiceError as exc:
            self._warn_once("play", f"voice: cannot play sound through {self._output.name}: {exc}")
            return False
        with self._lock:
            self._playing = proc
            if generation != self._generation:  # cut while it was starting
                proc.kill()
        code: int | None = None
        try:
            code = proc.wait(60.0)  # a sentence is seconds long; a stuck player is ended below
        except Exception:  # subprocess.TimeoutExpired (its type depends on the runner)
            proc.kill()
        with self._lock:
            self._playing = None
            cut = generation != self._generation
        if code and not cut:  # a card missing or busy: said once, the referee carries on
            self._warn_once("player", f"voice: {self._output.name} exited {code} playing {wav.name}; "
                                      "check the sound card (aplay -l) and voice.output")
        return cut

    # -- first use ------------------------------------------------------------------------------------

    def _dir(self) -> Path:
        if self._work_dir is None:
            self._work_dir = Path(tempfile.mkdtemp(prefix="tableref-voice-"))
        elif not self._work_dir.is_dir():
            self._work_dir.mkdir(parents=True)
        return self._work_dir

    def _prepare(self) -> None:
        if self._ready:
            return
        self._ready = True
        self._output = find_output(self.runner, self.prefer_output)
        if self._output is None:
            which = "aplay or pw-play" if self.prefer_output == "auto" else self.prefer_output
            self._problem = f"no audio output: {which} not found (Debian: apt install alsa-utils)"
            self._warn_once("output", f"voice: {self._problem}; staying silent")
            return
        if self.engine is None:
            self._problem = "no speech engine configured"
        else:
            self._problem = self.engine.available()
        if self._problem:
            self._warn_once("engine", f"voice: {self._problem}; chimes only")
        if self.chimes:
            try:
                files = write_chimes(self._dir() / "chimes")
                self._chime_files = {n: write_wav(p, read_wav(p).scaled(self.volume)) for n, p in files.items()}
            except (OSError, VoiceError) as exc:
                self._warn_once("chimes", f"voice: cannot write the chimes: {exc}")

    _warned: set[str] = set()

    def _warn_once(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned = self._warned | {key}
            log.warning("%s", message)
