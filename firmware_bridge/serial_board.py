"""The serial sensor board as a source of observations (the link: I/O).

:class:`SerialBoard` talks to the board's microcontroller over USB serial through pyserial:
it takes a port path, a pyserial URL (``loop://``, ``rfc2217://...``) or an already-open
serial object as its backend. ``start()`` starts one I/O thread that owns the port; it
handshakes (hello, ack, full scan), keeps the board's readings, and turns them into
:class:`~rules.view.Observation` values through the board's :class:`~.wiring.Wiring`,
one whenever the readings change and one every ``tick`` seconds, into a bounded queue that
:meth:`observations` yields from. Nothing the referee does waits on the port: LED requests
are stored and sent by the I/O thread.

Trust: a reading is believed only while the link is *in sync* — after a full scan, with
every later frame's sequence number in order and no damaged bytes on the line since. Any
sequence gap, CRC error, garbage, truncated or malformed frame drops sync and asks for a
full scan; until it comes, observations mark every space unreadable, so the stabiliser
waits. A pulled cable publishes status ``disconnected`` and is reopened with exponential
backoff; the game itself is the referee's and is never touched here.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import serial

try:  # pyserial's POSIX port raises termios.error (not an OSError) from a tty that vanished
    import termios

    _TTY_ERRORS: tuple[type[BaseException], ...] = (termios.error,)
except ImportError:  # Windows
    _TTY_ERRORS = ()

from rules import Observation, View

from .protocol import (
    PROTOCOL_VERSION,
    Ack,
    AckStatus,
    Capability,
    Change,
    FrameParser,
    FullScan,
    Heartbeat,
    Hello,
    Led,
    MessageError,
    MessageType,
    Reading,
    RequestHello,
    RequestScan,
    SetLeds,
    decode,
    encode,
)
from .wiring import Wiring

log = logging.getLogger(__name__)

# Link states, as published in LinkStatus.state.
CONNECTING = "connecting"  # port open, waiting for the board's hello
SYNCING = "syncing"  # hello accepted, waiting for the first full scan
CONNECTED = "connected"  # in sync: readings are trusted
RESYNCING = "resyncing"  # something was lost or damaged: waiting for a full scan
SILENT = "silent"  # port open but the board has said nothing for a while
WRONG_BOARD = "wrong_board"  # the board's hello does not fit the wiring file
DISCONNECTED = "disconnected"  # the port cannot be opened or was lost
CLOSED = "closed"

_HELLO_RETRY = 0.5  # seconds between hello requests while waiting for one
_SCAN_RETRY = 0.25  # seconds between full scan requests while out of sync
SENT_REMEMBERED = 16  # our last frames, known again if the line echoes them


@dataclass(frozen=True)
class LinkStatus:
    state: str
    port: str
    detail: str = ""
    time: float = 0.0

    def text(self) -> str:
        return f"board {self.port}: {self.state}" + (f" ({self.detail})" if self.detail else "")


@dataclass
class LinkStats:
    frames: int = 0
    garbage_bytes: int = 0
    bad_length: int = 0
    crc_errors: int = 0
    truncated: int = 0
    bad_messages: int = 0  # good CRC, but not a message the board may send
    echoed: int = 0  # Pi-to-board frames read back (a loopback or an echoing line)
    seq_gaps: int = 0
    full_scans: int = 0
    changes: int = 0
    resyncs: int = 0
    refused: int = 0  # commands the board acked as refused
    connects: int = 0
    disconnects: int = 0
    dropped_observations: int = 0  # the consumer fell behind the bounded queue
    write_errors: int = 0


class SerialBoard:
    """A source of observations from a serial sensor board. See the module docstring."""

    _END = object()

    def __init__(
        self,
        backend: str | Any,
        wiring: Wiring,
        *,
        baudrate: int = 115200,
        tick: float = 0.02,
        backoff: tuple[float, float] = (0.1, 2.0),
        silence: float = 1.5,
        queue_size: int = 256,
        source: str = "serial",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not tick > 0 or not silence > 0 or not 0 < backoff[0] <= backoff[1] or queue_size < 1:
            raise ValueError("tick, silence and backoff must be positive (backoff: first <= most); queue_size >= 1")
        self.backend = backend
        self.port_name = backend if isinstance(backend, str) else str(getattr(backend, "port", None) or backend)
        self.wiring = wiring
        self.baudrate = baudrate
        self.tick = tick
        self.backoff = backoff
        self.silence = silence
        self.source = source
        self.clock = clock
        self.stats = LinkStats()
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=queue_size)
        self._subscribers: list[Callable[[LinkStatus], None]] = []
        self._status = LinkStatus(CLOSED, self.port_name)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._leds: tuple[Led, ...] = (Led.OFF,) * wiring.channel_count
        self._leds_dirty = False
        self._all_spaces = wiring.space_ids
        self._parser = FrameParser()
        self._reset_session()

    # -- public API (any thread) ------------------------------------------------------------------

    def start(self) -> "SerialBoard":
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="serial-board", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the I/O thread, release the port, end :meth:`observations`. Safe twice."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            while not self._queue.empty():  # readings after close are of no use to anyone
                self._queue.get_nowait()
            self._put(self._END)
        if self._status.state != CLOSED:
            self._set_status(CLOSED)

    def __enter__(self) -> "SerialBoard":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def status(self) -> LinkStatus:
        return self._status

    @property
    def fidelity(self):
        return self.wiring.fidelity

    def subscribe_status(self, callback: Callable[[LinkStatus], None]) -> None:
        """``callback(status)`` on every change of status, from the I/O thread."""
        self._subscribers.append(callback)

    def set_leds(self, leds: Mapping[str, Led]) -> None:
        """Light spaces (others go off). Returns at once; the I/O thread sends it."""
        channels = self.wiring.channels
        unknown = [s for s in leds if s not in channels]
        if unknown:
            raise ValueError(f"set_leds: {unknown[0]!r} is not a wired space")
        states = [Led.OFF] * self.wiring.channel_count
        for space, led in leds.items():
            states[channels[space]] = Led(led)
        with self._lock:
            self._leds = tuple(states)
            self._leds_dirty = True

    def observations(self) -> Iterator[Observation]:
        """Observations until :meth:`close` (blocks while waiting for the next one)."""
        while True:
            try:
                item = self._queue.get(timeout=0.2)
            except queue.Empty:
                if self._thread is None and self._stop.is_set():
                    return
                continue
            if item is self._END:
                return
            yield item

    # -- status and output -------------------------------------------------------------------------

    def _set_status(self, state: str, detail: str = "") -> None:
        if (state, detail) == (self._status.state, self._status.detail):
            return
        self._status = LinkStatus(state, self.port_name, detail, self.clock())
        log.info("%s", self._status.text())
        for callback in list(self._subscribers):
            try:
                callback(self._status)
            except Exception:  # a broken subscriber must not stop the link
                log.exception("status subscriber %r failed", callback)

    def _put(self, item: Any) -> None:
        while True:
            try:
                self._queue.put_nowait(item)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()  # the oldest reading is the least useful
                    self.stats.dropped_observations += 1
                except queue.Empty:
                    pass

    def _observe(self, now: float) -> None:
        if self._in_sync:
            view, unreadable = self._view, self._unreadable
        else:
            view, unreadable = View(), self._all_spaces
        self._put(Observation(view, now, self.wiring.fidelity, self.source, unreadable))
        self._last_obs = now

    # -- the I/O thread -------------------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            if self._status.state != DISCONNECTED:
                self._set_status(CONNECTING)
            try:
                port = self._open()
            except (serial.SerialException, OSError, ValueError, *_TTY_ERRORS) as exc:
                self._set_status(DISCONNECTED, _reason(exc))
                self._wait_out(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self.stats.connects += 1
            try:
                self._session(port)
            except (serial.SerialException, OSError, *_TTY_ERRORS) as exc:
                self._lost(_reason(exc))
            except Exception as exc:  # noqa: BLE001 - a fault of ours must not end the link for good
                log.exception("serial link to %s failed; reopening", self.port_name)
                self._lost(f"link fault: {_reason(exc)}")
                self._wait_out(delay)  # not a busy loop if it happens again at once
            finally:
                self._in_sync = False
                self._release(port)

    def _lost(self, reason: str) -> None:
        self.stats.disconnects += 1
        self._in_sync = False  # nothing read before the loss can be trusted after it
        self._set_status(DISCONNECTED, reason)
        self._observe(self.clock())  # tell the stabiliser at once that nothing is known

    def _wait_out(self, seconds: float) -> None:
        """Sleep ``seconds`` while still ticking unreadable observations."""
        end = self.clock() + seconds
        while not self._stop.is_set():
            now = self.clock()
            if now >= end:
                return
            self._observe(now)
            self._stop.wait(min(self.tick, end - now))

    def _open(self) -> Any:
        if isinstance(self.backend, str):
            return serial.serial_for_url(self.backend, baudrate=self.baudrate, timeout=self.tick, write_timeout=0.2)
        port = self.backend
        if not port.is_open:
            port.open()
        port.timeout = self.tick
        return port

    def _release(self, port: Any) -> None:
        # A serial object handed in is the link's from start() on: closed on loss (to be
        # reopened) and on close(), like a port the link opened itself.
        try:
            port.close()
        except (serial.SerialException, OSError, *_TTY_ERRORS) as exc:
            log.warning("closing %s: %s", self.port_name, exc)

    def _reset_session(self) -> None:
        self._parser.reset()  # its counters run on across sessions, its buffer does not
        self._hello: Hello | None = None
        self._readings: list[Reading] | None = None
        self._view, self._unreadable = View(), frozenset()
        self._in_sync = False
        self._expected_seq: int | None = None
        self._out_seq = 0
        self._sent: deque[bytes] = deque(maxlen=SENT_REMEMBERED)
        self._last_hello_req = self._last_scan_req = -1e9
        self._last_rx = self._last_obs = 0.0

    def _send(self, port: Any, message: Any) -> None:
        data = encode(self._out_seq, message)
        # Remembered so that the same bytes coming back (a line that echoes, as loop:// does)
        # are known as ours, whatever their type: an Ack is sent by both sides.
        self._sent.append(data)
        try:
            port.write(data)
        except serial.SerialTimeoutException:
            self.stats.write_errors += 1  # the board is not reading: the retry timers resend
        self._out_seq = (self._out_seq + 1) & 0xFF

    def _session(self, port: Any) -> None:
        self._reset_session()
        try:
            port.reset_input_buffer()  # stale bytes from before: the resync makes them moot
        except (AttributeError, serial.SerialException, OSError, *_TTY_ERRORS):
            pass
        with self._lock:
            self._leds_dirty = any(self._leds)
        now = self._last_rx = self.clock()
        self._set_status(CONNECTING)
        self._send(port, RequestHello())
        self._last_hello_req = now
        parser = self._parser
        while not self._stop.is_set():
            waiting = port.in_waiting
            data = port.read(min(max(1, waiting), 4096))
            now = self.clock()
            before = parser.stats.errors + parser.stats.garbage_bytes
            if data:
                self._last_rx = now
                frames = parser.feed(data)
            elif parser.pending:
                frames = parser.expire()  # a whole quiet tick with half a frame: it is truncated
            else:
                frames = []
            self._copy_parser_stats()
            if parser.stats.errors + parser.stats.garbage_bytes != before:
                self._lose_sync(port, now, "damaged bytes on the line")
            changed = False
            for frame in frames:
                changed |= self._on_frame(port, frame, now)
            self._timers(port, now)
            if changed or now - self._last_obs >= self.tick:
                self._observe(now)

    def _copy_parser_stats(self) -> None:
        p, s = self._parser.stats, self.stats
        s.frames, s.garbage_bytes, s.bad_length = p.frames, p.garbage_bytes, p.bad_length
        s.crc_errors, s.truncated = p.crc_errors, p.truncated

    def _timers(self, port: Any, now: float) -> None:
        if now - self._last_rx > self.silence:
            if self._status.state != SILENT:
                self._lose_sync(port, now, "")
                self._set_status(SILENT, f"nothing heard for {now - self._last_rx:.1f} s")
            if now - self._last_hello_req >= _HELLO_RETRY:
                self._send(port, RequestHello())
                self._last_hello_req = now
            return
        if self._hello is None:
            if now - self._last_hello_req >= _HELLO_RETRY:
                self._send(port, RequestHello())
                self._last_hello_req = now
        elif not self._in_sync and now - self._last_scan_req >= _SCAN_RETRY:
            self._send(port, RequestScan())
            self._last_scan_req = now
        if self._hello is not None:
            with self._lock:
                leds, dirty, self._leds_dirty = self._leds, self._leds_dirty, False
            if dirty:
                self._send(port, SetLeds(leds))

    def _lose_sync(self, port: Any, now: float, reason: str) -> None:
        if self._in_sync:
            self._in_sync = False
            self.stats.resyncs += 1
            self._set_status(RESYNCING, reason)
        if self._hello is not None and now - self._last_scan_req >= 0.05:
            self._send(port, RequestScan())
            self._last_scan_req = now

    def _on_frame(self, port: Any, frame: Any, now: float) -> bool:
        """Handle one good frame; True if the trusted readings changed."""
        try:
            msg = decode(frame)
        except MessageError as exc:
            self.stats.bad_messages += 1
            self._lose_sync(port, now, f"bad message: {exc}")
            return False
        if msg.type >= MessageType.REQUEST_HELLO or frame.raw in self._sent:
            self.stats.echoed += 1  # our own frame came back: not the board's sequence
            if frame.raw in self._sent:
                self._sent.remove(frame.raw)  # once: the board's own identical frame may follow
            return False
        gap = self._expected_seq is not None and frame.seq != self._expected_seq
        self._expected_seq = (frame.seq + 1) & 0xFF
        if isinstance(msg, Hello):
            return self._on_hello(port, msg, frame.seq, now)
        if self._hello is None:
            return False  # nothing is understood before the board has said what it is
        if isinstance(msg, FullScan):
            return self._on_full_scan(port, msg, now)
        if gap:
            self.stats.seq_gaps += 1
            self._lose_sync(port, now, "sequence gap")
            return False
        if isinstance(msg, Change):
            return self._on_change(port, msg, now)
        if isinstance(msg, Ack) and msg.status is AckStatus.REFUSED:
            self.stats.refused += 1
        elif not isinstance(msg, (Ack, Heartbeat)):
            self.stats.bad_messages += 1
        if self._status.state == SILENT:
            self._set_status(RESYNCING, "the board speaks again")
        return False

    def _on_hello(self, port: Any, hello: Hello, seq: int, now: float) -> bool:
        was_in_sync = self._in_sync
        problem = (f"protocol {hello.protocol}, this link speaks {PROTOCOL_VERSION}"
                   if hello.protocol != PROTOCOL_VERSION else self.wiring.check_capabilities(hello.capabilities))
        if problem:
            self._hello, self._in_sync = None, False
            self._set_status(WRONG_BOARD, f"{hello.firmware} {'.'.join(map(str, hello.version))}: {problem}")
            return was_in_sync
        self._send(port, Ack(seq))
        first = self._hello is None
        self._hello = hello
        self._in_sync = False  # a hello means the board (re)started: everything is read afresh
        if first:
            self._set_status(SYNCING, f"{hello.firmware} {'.'.join(map(str, hello.version))}, "
                                      f"{len(hello.capabilities)} channels")
        elif was_in_sync:
            self._set_status(RESYNCING, "the board restarted")
        self._send(port, RequestScan())
        self._last_scan_req = now
        with self._lock:
            self._leds_dirty = any(self._leds)
        return was_in_sync

    def _on_full_scan(self, port: Any, scan: FullScan, now: float) -> bool:
        assert self._hello is not None
        if len(scan.readings) != len(self._hello.capabilities) or not self._fits(enumerate(scan.readings)):
            self.stats.bad_messages += 1
            self._lose_sync(port, now, "full scan does not fit the board's channels")
            return False
        self.stats.full_scans += 1
        self._readings = list(scan.readings)
        was = (self._in_sync, self._view, self._unreadable)
        self._in_sync = True
        self._view, self._unreadable = self.wiring.read(self._readings)
        self._set_status(CONNECTED, f"{self._hello.firmware} {'.'.join(map(str, self._hello.version))}")
        return was != (True, self._view, self._unreadable)

    def _on_change(self, port: Any, change: Change, now: float) -> bool:
        assert self._hello is not None
        if not self._in_sync or self._readings is None:
            return False  # a full scan is on its way and supersedes it
        if not self._fits(change.changes):
            self.stats.bad_messages += 1
            self._lose_sync(port, now, "change names a channel the board does not have")
            return False
        self.stats.changes += 1
        for channel, reading in change.changes:
            self._readings[channel] = reading
        old = (self._view, self._unreadable)
        self._view, self._unreadable = self.wiring.read(self._readings)
        return old != (self._view, self._unreadable)

    def _fits(self, pairs: Any) -> bool:
        """Every (channel, reading) is one the hello's capabilities allow."""
        assert self._hello is not None
        caps = self._hello.capabilities
        for channel, reading in pairs:
            if channel >= len(caps):
                return False
            cap = caps[channel]
            if cap is Capability.NONE and reading is not Reading.EMPTY:
                return False
            if cap is Capability.OCCUPANCY and reading > Reading.PRESENT:
                return False
        return True


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
