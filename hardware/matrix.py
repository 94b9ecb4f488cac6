"""A reed-switch (or Hall-switch) matrix wired straight to the Pi's pins: the ``gpio`` source.

Each space has a switch and a diode in series between one *row* line and one *column* line.
The scan drives one row low at a time (the others stay high); a column input, pulled up,
reads low exactly where a closed switch joins it to the low row. The diodes stop a current
sneaking back through three closed switches, which would light a phantom fourth ("ghosting").
6 rows x 7 columns = 42 crossings from 13 pins: enough for Gygès's 38 spaces.

Which crossing is which space comes from a **wiring file** (``hardware/wiring/*.json``)::

    {"wiring": 1, "board": "gyges", "description": "...",
     "rows": [5, 6, 13, 19, 26, 16],            # BCM pins, one per row line
     "columns": [20, 21, 4, 11, 9, 10, 8],      # BCM pins, one per column line
     "grid": [["a1", "b1", ..., "S"], ...]}     # grid[row][column]: a space id or null

Each space is debounced: it changes only after ``debounce`` scans in a row agree, and is
reported ``unreadable`` until its first settled reading. Readings are occupancy
(:data:`rules.view.OCCUPIED`); the stabiliser then waits out hands and lifted pieces.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rules.board import Board
from rules.strict import expect_keys, loads
from rules.view import OCCUPIED, Fidelity, Observation, View

from .pins import PinConfigError, PinSpec, check_distinct, check_pin, gpio_name

VERSION = 1
_REQUIRED = ("wiring", "rows", "columns", "grid")
_OPTIONAL = ("board", "description")


class WiringError(ValueError):
    """A wiring file is malformed or does not fit the board; the message says what and where."""


@dataclass(frozen=True)
class MatrixWiring:
    """Row and column pins and which space sits at each crossing."""

    rows: tuple[PinSpec, ...]
    columns: tuple[PinSpec, ...]
    grid: tuple[tuple[str | None, ...], ...]  # grid[row][column]
    board: str = ""
    description: str = ""

    @property
    def spaces(self) -> dict[str, tuple[int, int]]:
        """Space id -> (row index, column index)."""
        return {s: (r, c) for r, line in enumerate(self.grid) for c, s in enumerate(line) if s is not None}

    # -- reading ------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, *, where: str = "<wiring>", board: Board | None = None) -> "MatrixWiring":
        return cls.from_dict(loads(text, where=where, error=WiringError), where=where, board=board)

    @classmethod
    def from_file(cls, path: str | Path, *, board: Board | None = None) -> "MatrixWiring":
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise WiringError(f"{where}: cannot read wiring file: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise WiringError(f"{where}: not UTF-8 text ({exc.reason})") from None
        return cls.parse(text, where=where, board=board)

    @classmethod
    def builtin(cls, name: str = "gyges-matrix", *, board: Board | None = None) -> "MatrixWiring":
        """A reference wiring shipped in ``hardware/wiring/``."""
        ref = resources.files("hardware") / "wiring" / f"{name}.json"
        if not ref.is_file():
            raise WiringError(f"no built-in wiring {name!r} (hardware/wiring/{name}.json)")
        return cls.parse(ref.read_text(encoding="utf-8"), where=f"hardware/wiring/{name}.json", board=board)

    @classmethod
    def from_dict(cls, data: object, *, where: str = "<wiring>", board: Board | None = None) -> "MatrixWiring":
        expect_keys(data, required=_REQUIRED, optional=_OPTIONAL, where=where, error=WiringError)
        version = data.get("wiring")
        if isinstance(version, bool) or version != VERSION:
            raise WiringError(f"{where}: 'wiring' must be {VERSION} (the format version), got {version!r}")
        for key in ("board", "description"):
            if not isinstance(data.get(key, ""), str):
                raise WiringError(f"{where}: {key!r} must be a string")
        rows = _pins(data.get("rows"), f"{where}: rows")
        columns = _pins(data.get("columns"), f"{where}: columns")
        try:
            check_distinct({**{f"row {i + 1}": p for i, p in enumerate(rows)},
                            **{f"column {i + 1}": p for i, p in enumerate(columns)}}, where)
        except PinConfigError as exc:
            raise WiringError(str(exc)) from None
        grid = data.get("grid")
        if not isinstance(grid, list) or len(grid) != len(rows):
            raise WiringError(f"{where}: 'grid' must be a list of {len(rows)} rows (one per row pin)")
        lines: list[tuple[str | None, ...]] = []
        seen: dict[str, tuple[int, int]] = {}
        for r, line in enumerate(grid):
            if not isinstance(line, list) or len(line) != len(columns):
                raise WiringError(f"{where}: grid row {r + 1} must list {len(columns)} entries (one per column pin)")
            for c, space in enumerate(line):
                if space is None:
                    continue
                if not isinstance(space, str) or not space:
                    raise WiringError(f"{where}: grid row {r + 1}, column {c + 1}: expected a space id or null, got {space!r}")
                if space in seen:
                    r0, c0 = seen[space]
                    raise WiringError(f"{where}: space {space!r} is wired twice (row {r0 + 1} column {c0 + 1}, "
                                      f"row {r + 1} column {c + 1})")
                seen[space] = (r, c)
            lines.append(tuple(line))
        wiring = cls(tuple(rows), tuple(columns), tuple(lines), data.get("board", ""), data.get("description", ""))
        if board is not None:
            wiring.check_board(board, where=where)
        return wiring

    def check_board(self, board: Board, *, where: str = "<wiring>") -> None:
        """Every space of ``board`` wired, and nothing else."""
        wired, known = set(self.spaces), set(board.space_ids)
        extra = sorted(wired - known)
        if extra:
            raise WiringError(f"{where}: spaces not on the {board.name} board: {', '.join(extra)}")
        missing = sorted(known - wired)
        if missing:
            raise WiringError(f"{where}: spaces of the {board.name} board not wired: {', '.join(missing)}")

    def with_pins(self, rows: Sequence[PinSpec] | None = None, columns: Sequence[PinSpec] | None = None) -> "MatrixWiring":
        """The same grid on other pins (a configuration overriding the file's)."""
        new_rows = tuple(rows) if rows is not None else self.rows
        new_cols = tuple(columns) if columns is not None else self.columns
        if len(new_rows) != len(self.rows) or len(new_cols) != len(self.columns):
            raise WiringError(f"matrix pins: {len(self.rows)} rows and {len(self.columns)} columns expected, "
                              f"got {len(new_rows)} and {len(new_cols)}")
        data = {"wiring": VERSION, "board": self.board, "description": self.description,
                "rows": list(new_rows), "columns": list(new_cols), "grid": [list(line) for line in self.grid]}
        return MatrixWiring.from_dict(data, where="matrix pins")


def _pins(value: object, where: str) -> list[PinSpec]:
    if not isinstance(value, list) or not value:
        raise WiringError(f"{where}: expected a non-empty list of pins")
    out = []
    for i, pin in enumerate(value):
        try:
            out.append(check_pin(pin, f"{where}[{i}]"))
        except PinConfigError as exc:
            raise WiringError(str(exc)) from None
    return out


class MatrixClosed(RuntimeError):
    """The matrix is not started (or was closed while scanning)."""


class _Debounce:
    """A space's settled reading: it changes after ``needed`` agreeing raw readings."""

    __slots__ = ("state", "pending", "count")

    def __init__(self) -> None:
        self.state: bool | None = None  # None: never settled yet
        self.pending = False
        self.count = 0

    def feed(self, raw: bool, needed: int) -> None:
        if raw == self.state:
            self.count = 0
            return
        if self.count and raw == self.pending:
            self.count += 1
        else:
            self.pending, self.count = raw, 1
        if self.count >= needed:
            self.state, self.count = raw, 0


class GpioMatrix:
    """Scans the matrix and yields occupancy :class:`~rules.view.Observation`\\ s.

    ``start()`` claims the pins, ``close()`` frees them (both safe twice; also a context
    manager). :meth:`read` scans once; :meth:`observations` scans every ``interval`` seconds
    until :meth:`stop` (or ``limit`` readings). ``settle`` waits after selecting a row, for
    slow lines or Hall switches powered by the row. ``clock``/``sleep`` are injectable so
    tests and replays never wait.
    """

    def __init__(self, wiring: MatrixWiring, *, pin_factory: Any, rows: Sequence[PinSpec] | None = None,
                 columns: Sequence[PinSpec] | None = None, interval: float = 0.02, debounce: int = 2,
                 settle: float = 0.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, source: str = "gpio") -> None:
        if rows is not None or columns is not None:
            wiring = wiring.with_pins(rows, columns)
        if isinstance(debounce, bool) or not isinstance(debounce, int) or debounce < 1:
            raise ValueError(f"debounce must be a whole number of scans >= 1, got {debounce!r}")
        if not interval >= 0 or not settle >= 0:
            raise ValueError(f"interval and settle must be >= 0 seconds, got {interval!r} and {settle!r}")
        self.wiring = wiring
        self.pin_factory = pin_factory
        self.interval = float(interval)
        self.debounce = debounce
        self.settle = float(settle)
        self.source = source
        self._clock = clock
        self._sleep = sleep
        self._spaces = wiring.spaces
        self._by_row: list[list[tuple[int, str]]] = [[] for _ in wiring.rows]
        for space, (r, c) in sorted(self._spaces.items(), key=lambda kv: kv[1]):
            self._by_row[r].append((c, space))
        self._state = {s: _Debounce() for s in self._spaces}
        self._row_devices: list[Any] = []
        self._column_devices: list[Any] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    # -- life cycle -------------------------------------------------------------------------------

    def start(self) -> None:
        from gpiozero import DigitalInputDevice, DigitalOutputDevice

        with self._lock:
            if self._row_devices:
                return
            rows: list[Any] = []
            cols: list[Any] = []
            try:
                # Rows first, all high (inactive), so no column is pulled low while opening.
                for pin in self.wiring.rows:
                    rows.append(DigitalOutputDevice(gpio_name(pin), active_high=False, initial_value=False,
                                                    pin_factory=self.pin_factory))
                for pin in self.wiring.columns:
                    cols.append(DigitalInputDevice(gpio_name(pin), pull_up=True, pin_factory=self.pin_factory))
            except Exception:
                for dev in rows + cols:
                    dev.close()
                raise
            self._row_devices, self._column_devices = rows, cols

    def close(self) -> None:
        with self._lock:
            devices = self._row_devices + self._column_devices
            self._row_devices, self._column_devices = [], []
        for dev in devices:
            dev.close()

    def __enter__(self) -> "GpioMatrix":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stop(self) -> None:
        """End :meth:`observations` after the current scan (from any thread)."""
        self._stopping.set()

    # -- scanning ----------------------------------------------------------------------------------

    def scan_raw(self) -> frozenset[str]:
        """One pass over the rows: the spaces whose switch is closed now (no debouncing)."""
        closed: set[str] = set()
        with self._lock:
            if not self._row_devices:
                raise MatrixClosed("GpioMatrix: start() it before scanning")
            for r, row in enumerate(self._row_devices):
                row.on()  # active low: this row's line goes to 0 V
                try:
                    if self.settle:
                        self._sleep(self.settle)
                    for c, space in self._by_row[r]:
                        if self._column_devices[c].is_active:  # pulled low through switch and diode
                            closed.add(space)
                finally:
                    row.off()
        return frozenset(closed)

    def read(self) -> Observation:
        """Scan once, debounce, and report what is settled."""
        closed = self.scan_raw()
        now = self._clock()
        occupied, unsettled = {}, []
        for space, db in self._state.items():
            db.feed(space in closed, self.debounce)
            if db.state is None:
                unsettled.append(space)
            elif db.state:
                occupied[space] = (OCCUPIED,)
        return Observation(View(occupied), now, Fidelity.OCCUPANCY, self.source, frozenset(unsettled))

    def observations(self, limit: int | None = None) -> Iterator[Observation]:
        """Scan every ``interval`` seconds (on a fixed schedule, so scan time is absorbed),
        until :meth:`stop`, :meth:`close` or ``limit`` readings."""
        self.start()
        next_t = self._clock()
        count = 0
        try:
            while not self._stopping.is_set() and (limit is None or count < limit):
                try:
                    obs = self.read()
                except MatrixClosed:
                    return  # closed from another thread: the run is over
                yield obs
                count += 1
                next_t += self.interval
                delay = next_t - self._clock()
                if delay > 0:
                    self._sleep(delay)
                else:
                    next_t = self._clock()  # fell behind: do not try to catch up in a burst
        finally:
            self._stopping.clear()  # stop() ends this run only; a later run scans again
