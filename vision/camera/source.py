"""The camera as a source of observations: capture → lock → motion gate → reader.

Per frame: the lock is checked (markers tracked in small windows). While the lock is lost
or unconfirmed (a bumped camera, a hand over the corners) or anything moves, nothing is
emitted: decisions are frozen. Once the board has been still for ``settle_time`` (0.1 s) it is
read, and read again on the next still frame: only when two reads agree is the reading
emitted (a change the gate missed, lasting one frame, is never passed on). The reading is
then re-emitted, stamped with each still frame's time, so the stabiliser sees a steady
view, and re-read every ``reread`` seconds in case something changed too slowly for the
gate to notice. Each observation carries ``hands_clear_since`` (when the board last moved),
so the stabiliser decides a short quiet window after the hand leaves (docs/vision.md,
"Reaction time").

Without a reader (set-up mode: no calibration yet) the lock is still kept, so the set-up page
can show it, but nothing is read or emitted. :meth:`use` swaps the reader (and the lock, for
another sheet) from any thread; the source takes it at its next frame. ``latest`` is a
reference to the last frame read (nothing copied or encoded unless someone asks for it).

Once a second, while the board is locked and nothing moves over it, the paper's level is
measured where the sheet is, and a capture that can (the Pi camera) is asked for exposure
compensation when the paper clips or is too dark (:mod:`vision.camera.exposure`): a camera's
auto exposure meters the room, and a small sheet on a dark table comes out white.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from rules.view import Fidelity, Observation

from vision.read.lock import BoardLock, LockStatus
from vision.read.motion import MotionGate
from vision.readers.reader import Reader, Reading
from vision.sheets.layout import Sheet

from .capture import Capture, CapturedFrame
from .exposure import SheetExposure, paper_level

METER_EVERY = 1.0  # seconds between two looks at the paper's level


@dataclass
class SourceStats:
    frames: int = 0
    frozen: int = 0  # no lock, or not confirmed by enough markers
    moving: int = 0
    settling: int = 0
    reads: int = 0
    bumps: int = 0
    emitted: int = 0
    waiting: int = 0  # locked, but no reader yet (set-up mode)
    exposure_changes: int = 0  # exposure compensation asked of the camera (the paper clipped or dark)


class CameraSource:
    def __init__(self, capture: Capture, reader: Reader | None, *, fidelity: Fidelity | None = None,
                 settle_time: float = 0.1, reread: float = 1.0, lock: BoardLock | None = None,
                 gate: MotionGate | None = None, source: str = "camera", sheet: Sheet | None = None,
                 exposure: SheetExposure | None = None) -> None:
        if not settle_time >= 0:
            raise ValueError(f"settle_time must be >= 0 seconds, got {settle_time!r}")
        if reader is None and (fidelity is None or (sheet is None and lock is None)):
            raise ValueError("a camera source without a reader (set-up mode) needs the fidelity and the sheet")
        sheet = sheet or (lock.sheet if lock is not None else reader.sheet)  # type: ignore[union-attr]
        self.capture = capture
        self.reader = reader
        self.fidelity = fidelity or reader.fidelity  # type: ignore[union-attr]
        self.settle_time = float(settle_time)
        self.reread = float(reread)
        # The lock fits the markers through the reader's lens, as the service's own lock does.
        self.lock = lock or BoardLock(sheet, lens=getattr(reader, "lens", None))
        self.gate = gate or MotionGate(sheet)
        self.source = source
        self.stats = SourceStats()
        self.last_reading: Reading | None = None
        self.last_read_at: float | None = None  # the frame time of last_reading
        self.latest: CapturedFrame | None = None
        self._swap = threading.Lock()
        self._pending: tuple[Reader | None, BoardLock | None] | None = None
        # metering the sheet: only a capture that can take exposure compensation is asked
        self.exposure = exposure or SheetExposure()
        self._metered_at: float | None = None

    def use(self, reader: Reader | None, *, lock: BoardLock | None = None) -> None:
        """Read with ``reader`` from the next frame on (any thread); ``lock``: a new lock too,
        when the sheet changed (an own board's geometry). Nothing read before is passed on."""
        with self._swap:
            self._pending = (reader, lock)

    def _take_pending(self) -> None:
        with self._swap:
            pending, self._pending = self._pending, None
        if pending is None:
            return
        self.reader, lock = pending
        if lock is not None:
            self.lock = lock
            self.gate = MotionGate(lock.sheet)
        else:
            self.gate.reset()
        self.last_reading, self.last_read_at = None, None

    def __enter__(self) -> "CameraSource":
        self.capture.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.capture.close()

    def observations(self) -> Iterator[Observation]:
        self.capture.start()
        cached: Reading | None = None  # the last reading of this still spell
        confirmed = False  # ... and a second read of another frame agreed with it
        read_at = 0.0
        st = self.stats
        while True:
            frame = self.capture.read()
            if frame is None:
                return
            st.frames += 1
            if self._pending is not None:  # a new reader (a new calibration): start afresh
                self._take_pending()
                cached, confirmed = None, False
            self.latest = frame
            grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
            status = self.lock.update(grey)
            if status.bumped or status.relocked:
                st.bumps += status.bumped
                self.gate.reset()
            if not status.readable or status.H is None:
                st.frozen += 1
                cached, confirmed = None, False
                continue
            if self.reader is None:  # set-up mode: locked, shown on the set-up page, not read
                st.waiting += 1
                self._meter(frame.image, status, frame.t)
                continue
            gate = self.gate.update(frame.image, status.H, frame.t)
            if gate.moving:
                st.moving += 1
                cached, confirmed = None, False
                continue
            self._meter(frame.image, status, frame.t)
            if not gate.settled(self.settle_time):
                st.settling += 1
                continue
            if not confirmed or frame.t - read_at >= self.reread:
                reading = self.reader.read(frame.image, status.H)
                read_at = frame.t
                st.reads += 1
                self.last_reading, self.last_read_at = reading, frame.t
                # Emit only what two reads of different frames agree on: a change too small
                # or too brief for the gate (one frame) is never passed on as the board.
                confirmed = cached is not None and (reading.view, reading.unreadable) == (
                    cached.view, cached.unreadable)
                cached = reading
                if not confirmed:
                    continue
            assert cached is not None
            st.emitted += 1
            # The board has been still (no hand moving over it) since the last movement: the
            # stabiliser decides a short quiet window after that, not a settle time.
            yield Observation(cached.view, frame.t, self.fidelity, self.source, cached.unreadable,
                              hands_clear_since=frame.t - gate.still_for)

    @property
    def exposure_ev(self) -> float | None:
        """The exposure compensation asked of the camera for the sheet; None when the capture
        takes none (a webcam, a video): nothing is asked of it."""
        return self.exposure.ev if self._meters else None

    @property
    def _meters(self) -> bool:
        return bool(getattr(self.capture, "takes_exposure_value", False))

    def _meter(self, image: np.ndarray, status: LockStatus, t: float) -> None:
        """Ask the capture for exposure compensation if the sheet's paper clips or is too dark
        (at most once every :data:`METER_EVERY` seconds; nothing for a capture that cannot)."""
        if self._metered_at is not None and t - self._metered_at < METER_EVERY:
            return
        first = self._metered_at is None
        self._metered_at = t
        if not self._meters:
            return
        if first and self.exposure.ev != 0.0 and self.capture.set_exposure_value(self.exposure.ev):  # type: ignore[attr-defined]
            # the exposure the board was learned at (the calibration's), asked before anything is judged
            self.stats.exposure_changes += 1
            return
        ev = self.exposure.update(paper_level(image, status.H, self.lock.sheet), t)
        if ev is not None and self.capture.set_exposure_value(ev):  # type: ignore[attr-defined]
            self.stats.exposure_changes += 1
