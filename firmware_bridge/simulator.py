"""A virtual sensor board on a real pseudo-terminal: the reference firmware (``firmware/main.py``,
run unchanged under CPython with ``firmware/fake_machine.py``) scans a virtual sensor matrix
and talks over one end of a pty pair; the other end is a serial device the service (or a
person with a terminal program) opens exactly as it would a real board.

The device path handed out is a symlink that always points at the current pty, the way
``/dev/serial/by-id/...`` names a USB board: unplugging closes the pty (the host sees the
device vanish) and replugging opens a new one behind the same name, and the firmware boots
afresh. The board's pieces follow a board script's frames (``t``, ``view``,
``unreadable``; see docs/board-script.md) at ``speed`` times real time; a space a hand
hides keeps its reading, since a hand does not move a reed switch. Faults (:class:`FaultPlan`)
damage the bytes both ways, stall the firmware, or pull the cable, at script times.
"""

from __future__ import annotations

import errno
import importlib.util
import logging
import math
import os
import queue
import random
import sys
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from rules import View

from .protocol import Capability, Led, Reading
from .wiring import Wiring

log = logging.getLogger(__name__)

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
_firmware_lock = threading.Lock()
_firmware: ModuleType | None = None


def load_firmware() -> ModuleType:
    """The reference firmware module, loaded from ``firmware/main.py`` with the fake
    ``machine`` module installed under that name (once per process)."""
    global _firmware
    with _firmware_lock:
        if _firmware is None:
            if "machine" not in sys.modules:
                sys.modules["machine"] = _load_file("machine", FIRMWARE_DIR / "fake_machine.py")
            _firmware = _load_file("tableref_board_firmware", FIRMWARE_DIR / "main.py")
        return _firmware


def _load_file(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ScriptFrame(Protocol):
    t: float
    view: View
    unreadable: frozenset[str]


# -- faults ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FaultPlan:
    """What goes wrong on the cable. Rates are chances per byte (``drop``, ``flip``: one
    random bit) or per frame written (``garbage``: a burst of 1–64 random bytes first);
    ``stalls``, ``unplugs`` and ``floods`` (random bytes poured onto the line, ~256 kB/s)
    are (script time, seconds of script time) pairs."""

    drop: float = 0.0
    flip: float = 0.0
    garbage: float = 0.0
    stalls: tuple[tuple[float, float], ...] = ()
    unplugs: tuple[tuple[float, float], ...] = ()
    floods: tuple[tuple[float, float], ...] = ()

    @classmethod
    def parse(cls, specs: Iterable[str]) -> "FaultPlan":
        """``drop=P``, ``flip=P``, ``garbage=P``, ``stall=T+D``, ``unplug=T+D``, ``flood=T+D``."""
        rates: dict[str, float] = {}
        spans: dict[str, list[tuple[float, float]]] = {"stall": [], "unplug": [], "flood": []}
        for spec in specs:
            key, sep, value = spec.partition("=")
            try:
                if not sep:
                    raise ValueError
                if key in ("drop", "flip", "garbage"):
                    rate = float(value)
                    if not 0 <= rate <= 1:
                        raise ValueError
                    rates[key] = rate
                elif key in spans:
                    at, plus, length = value.partition("+")
                    start, span = float(at), float(length) if plus else 1.0
                    if not (math.isfinite(start) and math.isfinite(span) and span > 0):
                        raise ValueError
                    spans[key].append((start, span))
                else:
                    raise KeyError(key)
            except KeyError:
                raise ValueError(f"--fault {spec!r}: unknown fault {key!r} "
                                 "(drop, flip, garbage, stall, unplug, flood)") from None
            except ValueError:
                raise ValueError(f"--fault {spec!r}: expected drop|flip|garbage=CHANCE (0..1) or "
                                 "stall|unplug|flood=TIME+SECONDS") from None
        return cls(stalls=tuple(spans["stall"]), unplugs=tuple(spans["unplug"]), floods=tuple(spans["flood"]), **rates)


@dataclass
class SimStats:
    boots: int = 0
    unplugs: int = 0
    stalls: int = 0
    bytes_out: int = 0  # board -> host, as written (after faults)
    bytes_in: int = 0  # host -> board, as read (after faults)
    dropped: int = 0
    flipped: int = 0
    garbage_bytes: int = 0
    unread: int = 0  # bytes lost because the host was not reading (pty full)


# -- the cable ------------------------------------------------------------------------------------


class _Cable:
    """One pty pair and the stable symlink to its device end."""

    def __init__(self, link_path: Path, faults: FaultPlan, rng: random.Random, stats: SimStats) -> None:
        self.link_path = link_path
        self.faults, self.rng, self.stats = faults, rng, stats
        self.master: int | None = None
        self.slave: int | None = None
        self.device = ""

    @property
    def plugged(self) -> bool:
        return self.master is not None

    def plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo or line editing: the device end must pass bytes through
        os.set_blocking(master, False)
        self.master, self.slave, self.device = master, slave, os.ttyname(slave)
        tmp = self.link_path.with_name(self.link_path.name + ".new")
        if tmp.is_symlink():
            tmp.unlink()
        os.symlink(self.device, tmp)
        os.replace(tmp, self.link_path)

    def unplug(self) -> None:
        if self.link_path.is_symlink():
            self.link_path.unlink()
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None

    def flood(self, size: int) -> None:
        """Pour random bytes onto the line (a noisy cable, a board gone mad)."""
        if self.master is None:
            return
        burst = self.rng.randbytes(size)
        self.stats.garbage_bytes += size
        try:
            os.write(self.master, burst)
        except (BlockingIOError, OSError):
            self.stats.unread += size

    def _damage(self, data: bytes) -> bytes:
        f, rng = self.faults, self.rng
        if not (f.drop or f.flip):
            return data
        out = bytearray()
        for b in data:
            if f.drop and rng.random() < f.drop:
                self.stats.dropped += 1
                continue
            if f.flip and rng.random() < f.flip:
                b ^= 1 << rng.randrange(8)
                self.stats.flipped += 1
            out.append(b)
        return bytes(out)

    def read(self) -> bytes:
        if self.master is None:
            return b""
        try:
            data = os.read(self.master, 4096)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:  # no host has the device open
                return b""
            raise
        data = self._damage(data)
        self.stats.bytes_in += len(data)
        return data

    def write(self, data: bytes) -> None:
        if self.master is None:
            return
        if self.faults.garbage and self.rng.random() < self.faults.garbage:
            burst = self.rng.randbytes(self.rng.randint(1, 64))
            self.stats.garbage_bytes += len(burst)
            data = burst + data
        data = self._damage(data)
        try:
            written = os.write(self.master, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            written = 0
        self.stats.unread += len(data) - written
        self.stats.bytes_out += written


class _Port:
    """The firmware's port object: what ``main.UsbPort`` is on the Pico."""

    def __init__(self, cable: _Cable) -> None:
        self.cable = cable

    def read(self) -> bytes:
        return self.cable.read()

    def write(self, data: bytes) -> None:
        self.cable.write(bytes(data))


# -- the matrix -----------------------------------------------------------------------------------


class SensorMatrix:
    """Switches at row × column crossings, read through the firmware's own pins."""

    def __init__(self, rows: int, cols: int) -> None:
        self.closed = [[False] * cols for _ in range(rows)]
        self.cols = cols
        self.row_pins: list[Any] = []

    def set_cell(self, cell: int, closed: bool) -> None:
        self.closed[cell // self.cols][cell % self.cols] = closed

    def attach(self, row_pins: Sequence[Any], col_pins: Sequence[Any]) -> None:
        self.row_pins = list(row_pins)
        for c, pin in enumerate(col_pins):
            pin.source = self._column_reader(c)

    def _column_reader(self, c: int) -> Callable[[], int]:
        def level() -> int:
            # A closed switch in a row driven low pulls the column low through its diode.
            for r, row in enumerate(self.row_pins):
                if row.value() == 0 and self.closed[r][c]:
                    return 0
            return 1
        return level


# -- the simulator ----------------------------------------------------------------------------------


class BoardSimulator:
    """The firmware on a virtual matrix behind a pty. ``start()`` opens the pty and starts
    the board's thread; ``device_path`` is what to open; ``close()`` ends it (safe twice)."""

    def __init__(
        self,
        wiring: Wiring,
        *,
        frames: Sequence[ScriptFrame] = (),
        speed: float = 1.0,
        faults: FaultPlan = FaultPlan(),
        link_path: str | Path | None = None,
        scan_ms: int = 5,
        debounce: int = 3,
        heartbeat_ms: int = 500,
        full_scan_ms: int = 2000,
        seed: int = 0,
        ticks_offset: int = 0,
        autoplay: bool = True,
        wait_for_host: bool = False,
    ) -> None:
        """``autoplay=False``: the script waits for :meth:`play`; ``wait_for_host``: for the first
        frame a host sends the firmware (a referee has connected: its first view is the start)."""
        if not (isinstance(speed, (int, float)) and speed > 0 and math.isfinite(speed)):
            raise ValueError(f"speed must be a positive number, got {speed!r}")
        self.wiring = wiring
        self.frames = tuple(frames)
        self.speed = float(speed)
        self.faults = faults
        self.settings = dict(scan_ms=scan_ms, debounce=debounce, heartbeat_ms=heartbeat_ms, full_scan_ms=full_scan_ms)
        self.ticks_offset = ticks_offset  # to start the firmware's clock near its wrap
        self.stats = SimStats()
        self.finished = threading.Event()  # the script has been played to its end
        self.history: deque[tuple[float, tuple[int, ...]]] = deque(maxlen=100_000)  # debounced readings
        self._rng = random.Random(seed)
        self._own_dir: str | None = None
        if link_path is None:
            self._own_dir = tempfile.mkdtemp(prefix="tableref-board-")
            link_path = Path(self._own_dir) / "ttyBOARD"
        self.device_path = Path(link_path)
        self._cable = _Cable(self.device_path, faults, self._rng, self.stats)
        channels = wiring.channel_count
        polar = wiring.reads is Capability.POLARITY
        self._cells = {c: ((2 * c, 2 * c + 1) if polar else (c,)) for c in range(channels)}
        self._polarity = {c: cells for c, cells in self._cells.items() if len(cells) == 2}
        cols = 7
        self._matrix = SensorMatrix(-(-(2 * channels if polar else channels) // cols), cols)
        self._commands: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._board: Any = None
        self._stall_until = 0.0
        self._unplugged_until = 0.0
        self._playing = threading.Event()  # the script's clock runs
        self.host_heard = threading.Event()  # a host's frame has reached the firmware
        self._wait_for_host = wait_for_host
        if autoplay and not wait_for_host:
            self._playing.set()

    # -- control (any thread) ------------------------------------------------------------------

    def start(self) -> "BoardSimulator":
        if self._thread is None:
            self._cable.plug()
            self._boot()
            self._thread = threading.Thread(target=self._run, name="board-simulator", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        self._cable.unplug()
        if self._own_dir is not None:
            try:
                os.rmdir(self._own_dir)
            except OSError as exc:
                log.warning("could not remove %s: %s", self._own_dir, exc)
            self._own_dir = None

    def __enter__(self) -> "BoardSimulator":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pty_name(self) -> str:
        return self._cable.device

    def set_view(self, view: View) -> None:
        """Put the pieces as ``view`` shows (tokens: occupancy, or the wiring's pole tokens)."""
        self._commands.put(lambda: self._apply(view, frozenset()))

    def unplug(self, seconds: float | None = None) -> None:
        """Pull the cable (for ``seconds`` of wall time, or until :meth:`replug`)."""
        self._commands.put(lambda: self._unplug(seconds))

    def play(self) -> None:
        """Start the script (when made with ``autoplay=False``: after the host has connected)."""
        self._playing.set()

    def replug(self) -> None:
        self._commands.put(self._replug)

    def stall(self, seconds: float) -> None:
        """Freeze the firmware for ``seconds`` of wall time (it neither reads nor sends)."""
        self._commands.put(lambda: self._stall(seconds))

    def leds(self) -> tuple[Led, ...]:
        board = self._board
        return tuple(Led(v) for v in board.leds) if board is not None else ()

    # -- the board's thread ----------------------------------------------------------------------

    def _boot(self) -> None:
        fw = load_firmware()
        fake = sys.modules["machine"]
        rows = [fake.Pin(i, fake.Pin.OUT, value=1) for i in range(len(self._matrix.closed))]
        cols = [fake.Pin(100 + i, fake.Pin.IN, fake.Pin.PULL_UP) for i in range(self._matrix.cols)]
        self._matrix.attach(rows, cols)
        self._board = fw.SensorBoard(rows, cols, _Port(self._cable), fake.Pin(200, fake.Pin.OUT),
                                     channels=self.wiring.channel_count, polarity=self._polarity, **self.settings)
        handle = self._board.handle  # the firmware's own, unchanged: heard here on its way in

        def heard(seq: int, kind: int, payload: bytes) -> None:
            if not self.host_heard.is_set():
                self.host_heard.set()
                if self._wait_for_host:
                    self._playing.set()
            handle(seq, kind, payload)

        self._board.handle = heard
        self.stats.boots += 1

    def _apply(self, view: View, hidden: frozenset[str]) -> None:
        channels = self.wiring.channels
        for space, channel in channels.items():
            if space in hidden:
                continue  # a hand over a reed switch does not open or close it
            tokens = view.get_tokens(space)
            cells = self._cells[channel]
            if len(cells) == 1:
                self._matrix.set_cell(cells[0], bool(tokens))
            else:
                north = any(t == self.wiring.tokens.get(Reading.NORTH) for t in tokens)
                south = any(t == self.wiring.tokens.get(Reading.SOUTH) for t in tokens)
                self._matrix.set_cell(cells[0], north)
                self._matrix.set_cell(cells[1], south)

    def _unplug(self, seconds: float | None) -> None:
        if self._cable.plugged:
            self._cable.unplug()
            self._board = None  # USB carries the board's power: it is off
            self.stats.unplugs += 1
        self._unplugged_until = time.monotonic() + seconds if seconds is not None else math.inf

    def _replug(self) -> None:
        self._unplugged_until = 0.0
        if not self._cable.plugged:
            self._cable.plug()
            self._boot()

    def _stall(self, seconds: float) -> None:
        self._stall_until = time.monotonic() + seconds
        self.stats.stalls += 1

    def _run(self) -> None:
        wall0 = time.monotonic()
        t0 = self.frames[0].t if self.frames else 0.0
        next_frame = 0
        pending_faults = sorted([(at, span, "stall") for at, span in self.faults.stalls]
                                + [(at, span, "unplug") for at, span in self.faults.unplugs]
                                + [(at, span, "flood") for at, span in self.faults.floods])
        flood_until = 0.0
        last_readings: tuple[int, ...] | None = None
        if not self.frames:
            self.finished.set()
        while not self._stop.is_set():
            now = time.monotonic()
            if not self._playing.is_set():
                wall0 = now  # the script's clock starts when play() is called
            script_t = t0 + (now - wall0) * self.speed
            while True:
                try:
                    self._commands.get_nowait()()
                except queue.Empty:
                    break
            while next_frame < len(self.frames) and self.frames[next_frame].t <= script_t:
                f = self.frames[next_frame]
                self._apply(f.view, frozenset(f.unreadable))
                next_frame += 1
                if next_frame == len(self.frames):
                    self.finished.set()
            while pending_faults and pending_faults[0][0] <= script_t:
                _, span, kind = pending_faults.pop(0)
                if kind == "stall":
                    self._stall(span / self.speed)
                elif kind == "flood":
                    flood_until = now + span / self.speed
                else:
                    self._unplug(span / self.speed)
            if now < flood_until:
                self._cable.flood(256)
            if now >= self._unplugged_until and not self._cable.plugged:
                self._replug()
            if self._board is not None and now >= self._stall_until:
                ticks = (int((now - wall0) * 1000) + self.ticks_offset) & (load_firmware().TICKS_PERIOD - 1)
                try:
                    self._board.poll(ticks)
                except OSError as exc:  # the pty went away under the firmware
                    log.warning("board simulator: %s", exc)
                readings = tuple(self._board.stable or ())
                if readings != last_readings:
                    last_readings = readings
                    self.history.append((now, readings))
            self._stop.wait(0.001)

    def views_seen(self) -> set[View]:
        """Every view the firmware's debounced readings have shown (for tests)."""
        out = set()
        for _, readings in list(self.history):
            if len(readings) == self.wiring.channel_count:
                view, unreadable = self.wiring.read([Reading(r) for r in readings])
                if not unreadable:
                    out.add(view)
        return out
