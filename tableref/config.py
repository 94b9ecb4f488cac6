"""The service's configuration: one TOML file (read with :mod:`tomllib`) as typed, frozen values.

    config = load_config("/etc/tableref/tableref.toml")   # or Config.default(): no file
    config = config.with_overrides(port=8001)             # command-line flags win over the file

Every error is one :class:`ConfigError` naming the file, the key as a dotted path
(``source.serial.port``) and what is expected. Unknown keys are errors: a typo must not pass
silently as a default. Relative paths in the file are taken relative to the file's directory.
The keys, their types and defaults are documented in ``deploy/tableref.toml`` (which loads,
and is tested to) and in ``docs/deploy.md``.

Loading checks the file's own content; :meth:`Config.check_files` also reads the files it
names (wiring files, board scripts, calibration) without opening any device.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Union

from hardware.panel import PanelPins
from hardware.pins import PinConfigError, PinSpec, check_distinct, check_pin
from decisions import SeatError, Seats
from rules import Fidelity, RulesError, get_game

from .config_table import _got, _Table
from .hub.settings import HubConfig, read_board_hub
from .opponent_config import OpponentConfig, read_opponent
from .teach_config import TeachConfig, read_teach
from .remote.settings import RemoteConfig, read_remote
from .clock_config import ClockSettings, read_clock
from .voice.settings import VoiceConfig, read_voice

DEFAULT_GAME = "gyges"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000  # the same as `tableref serve --port`'s default and the README
SETUPS = ("default", "start")
SOURCE_KINDS = ("simulated", "serial", "gpio", "camera", "replay")
CAMERA_BACKENDS = ("auto", "picamera", "opencv")
JOURNAL_NAME = "journal.sqlite3"
ADMIN_NAME = "web-admin.json"


class ConfigError(ValueError):
    """A configuration that cannot be used: ``file``, ``key`` (dotted) and what is wrong."""

    def __init__(self, file: str, key: str, message: str) -> None:
        super().__init__(f"{file}: {key}: {message}" if key else f"{file}: {message}")
        self.file = file
        self.key = key
        self.message = message


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/tableref``, else ``~/.local/share/tableref``."""
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "tableref"


# -- the values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameConfig:
    name: str = DEFAULT_GAME
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # parsed, defaults filled
    setup: str = "default"  # a new game starts from the game's ready-to-play position, or "start"
    seats: Seats = field(default_factory=Seats)  # [game.seats]: the sides the computer plays (docs/opponent.md)


@dataclass(frozen=True)
class SimulatedConfig:
    """The built-in simulated board: played in the browser, or following a board script."""

    kind = "simulated"
    script: Path | None = None
    speed: float = 1.0
    fidelity: Fidelity = Fidelity.KIND


@dataclass(frozen=True)
class SerialConfig:
    """A sensor board's microcontroller on USB serial (docs/protocol.md)."""

    kind = "serial"
    port: str = ""  # a device path (/dev/tableref-board) or a pyserial URL (loop://, socket://host:port)
    wiring: Path | None = None  # None: the game's reference wiring (firmware_bridge/wiring/)
    baudrate: int = 115200


@dataclass(frozen=True)
class GpioConfig:
    """A reed-switch matrix wired to the Pi's own pins (docs/wiring.md)."""

    kind = "gpio"
    wiring: Path | None = None  # None: the built-in hardware/wiring/gyges-matrix.json
    rows: tuple[PinSpec, ...] | None = None  # None: the wiring file's pins
    columns: tuple[PinSpec, ...] | None = None
    interval: float = 0.02
    debounce: int = 2


@dataclass(frozen=True)
class CameraConfig:
    """A camera over the board (vision/)."""

    kind = "camera"
    calibration: Path = Path()
    backend: str = "auto"  # auto: the Pi camera if Picamera2 is importable, else OpenCV
    device: int | str | None = None  # picamera: camera number; opencv: index, file or stream URL
    fidelity: Fidelity = Fidelity.KIND
    paced: bool = False  # a video file plays at its own frame rate, not as fast as it is read
    lens: Path | None = None  # the lens file (tableref calibrate-lens); None: an ideal pinhole
    pieceset: Path | None = None  # the user's own pieces' sizes (vision/pieces/pieceset.py); None: the game's
    geometry: Path | None = None  # an own board's fit (the set-up page writes it); None: beside the calibration
    rings: Path | None = None  # Gygès's rings read without stickers: the lines `tableref calibrate --rings` learned
    loop: bool = False  # a video file starts again at its end, as a new game (demo-video: for a late viewer)
    size: tuple[int, int] | None = None  # the frame size read (a camera's main stream); None: the game's


@dataclass(frozen=True)
class ReplayConfig:
    """A recorded observation log (board script format, docs/board-script.md) played once."""

    kind = "replay"
    file: Path = Path()
    speed: float = 1.0


SourceConfig = Union[SimulatedConfig, SerialConfig, GpioConfig, CameraConfig, ReplayConfig]


@dataclass(frozen=True)
class StabiliserConfig:
    settle: float = 0.6
    readings: int = 3


@dataclass(frozen=True)
class WebConfig:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    # The HTTP server's limits (tableref/http_server.py, docs/deploy.md).
    threads: int = 6  # workers for pages and the API
    max_streams: int = 64  # live-update streams open at once; one more gets a 503
    idle_timeout: float = 30.0  # seconds a connection may send and take nothing before it is closed
    connections: int = 500  # open connections at once


@dataclass(frozen=True)
class PanelConfig:
    enabled: bool = True  # off a Pi the panel is skipped with a notice either way
    pins: PanelPins = field(default_factory=PanelPins)


@dataclass(frozen=True)
class DataConfig:
    dir: Path = field(default_factory=default_data_dir)
    journal: Path | None = None  # None: DIR/journal.sqlite3

    @property
    def journal_path(self) -> Path:
        return self.journal if self.journal is not None else self.dir / JOURNAL_NAME


@dataclass(frozen=True)
class Config:
    game: GameConfig = field(default_factory=GameConfig)
    source: SourceConfig = field(default_factory=SimulatedConfig)
    stabiliser: StabiliserConfig = field(default_factory=StabiliserConfig)
    web: WebConfig = field(default_factory=WebConfig)
    panel: PanelConfig = field(default_factory=PanelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    where: str = "<defaults>"  # the file it came from, for messages
    voice: VoiceConfig = field(default_factory=VoiceConfig)  # [voice]: docs/voice.md
    hub: HubConfig | None = None  # [hub]: publish to the club hub (docs/hub.md)
    opponent: OpponentConfig = field(default_factory=OpponentConfig)  # [opponent]: docs/opponent.md
    teach: TeachConfig = field(default_factory=TeachConfig)  # [teach]: docs/teaching.md
    clock: ClockSettings = field(default_factory=ClockSettings)  # [clock]: docs/clock.md
    remote: RemoteConfig | None = None  # [remote]: a game with another table (docs/remote.md)

    @property
    def journal_path(self) -> Path:
        return self.data.journal_path

    @property
    def admin_path(self) -> Path:
        """Where the web page keeps the admin PIN's hash: beside the journal."""
        return self.journal_path.with_name(ADMIN_NAME)

    @classmethod
    def default(cls) -> "Config":
        """No config file: Gygès on the simulated board; the journal is ``$TABLEREF_JOURNAL`` if
        set, else ``$XDG_DATA_HOME/tableref/journal.sqlite3``."""
        game = get_game(DEFAULT_GAME)
        data = DataConfig()
        if os.environ.get("TABLEREF_JOURNAL"):
            journal = Path(os.environ["TABLEREF_JOURNAL"])
            data = DataConfig(journal.parent, journal)
        return cls(game=GameConfig(DEFAULT_GAME, MappingProxyType(game.parse_options({}))), data=data)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "<config>", base: Path | None = None) -> "Config":
        """Validate a parsed TOML document. Relative paths are joined to ``base`` if given."""
        return _Reader(where, base).config(data)

    def with_overrides(self, *, host: str | None = None, port: int | None = None, game: str | None = None,
                       journal: Path | str | None = None) -> "Config":
        """Command-line flags over the file. Another ``game`` than the file's drops the file's
        options (they belong to the other game). Errors name the flag (``--port``)."""
        web, cfg_game, data = self.web, self.game, self.data
        if host is not None:
            web = replace(web, host=_host(host, "--host", "<command line>"))
        if port is not None:
            web = replace(web, port=_port(port, "--port", "<command line>"))
        if game is not None and game != self.game.name:
            try:
                options = get_game(game).parse_options({})
            except RulesError as exc:
                raise ConfigError("<command line>", "--game", str(exc)) from None
            cfg_game = replace(self.game, name=game, options=MappingProxyType(options))
        if journal is not None:
            data = replace(data, journal=Path(journal))
        return replace(self, web=web, game=cfg_game, data=data)

    def check_files(self) -> None:
        """Read every file the configuration names, as the service will on start (no device is
        opened); ConfigError naming the key of the first that is missing or wrong."""
        from .config_files import check_files  # imported here: it reads this module's classes

        check_files(self)


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; :class:`ConfigError` on any fault."""
    where = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(where, "", f"cannot read config file: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(where, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        text = str(exc)
        at = re.search(r"\s*\(at line (\d+), column (\d+)\)$", text)
        if at:
            why = text[:at.start()]
            if why.startswith(("Cannot overwrite", "Cannot declare")):  # tomllib names no key: name it
                lines = raw.decode("utf-8").splitlines()[int(at.group(1)) - 1:][:1] or [""]
                why = f"{lines[0].split('#')[0].split('=')[0].strip()!r} given twice"
            raise ConfigError(where, "", f"line {at.group(1)}, column {at.group(2)}: not valid TOML: "
                                         f"{why}") from None
        raise ConfigError(where, "", f"not valid TOML: {text}") from None
    return Config.from_dict(data, where=where, base=Path(path).parent)


# -- reading ----------------------------------------------------------------------------------

def _matrix_pins(source: GpioConfig) -> dict[str, Any]:
    """The sensor matrix's pins named by their config keys (for the duplicate-pin check)."""
    pins = {f"source.gpio.rows[{i}]": p for i, p in enumerate(source.rows or ())}
    pins.update({f"source.gpio.columns[{i}]": p for i, p in enumerate(source.columns or ())})
    return pins


def gpio_roles(panel: PanelConfig, source: SourceConfig, wiring: Any = None) -> dict[str, PinSpec]:
    """Every header pin the configured devices will claim, named by role: the panel's (if
    enabled, defaults included) and the GPIO matrix's rows and columns — configured, else the
    wiring's (``wiring``: the file's MatrixWiring once read; the built-in one when no file is
    named). A wiring file not yet read adds only the configured pins."""
    roles: dict[str, PinSpec] = {}
    if panel.enabled:
        roles.update({f"panel.pins.{k}": v for k, v in panel.pins.to_dict().items()})
    if isinstance(source, GpioConfig):
        if wiring is None and source.wiring is None:
            from hardware.matrix import MatrixWiring

            wiring = MatrixWiring.builtin()
        whose = "built-in wiring" if source.wiring is None else f"wiring {source.wiring}"
        for key, given, lines in (("rows", source.rows, "row"), ("columns", source.columns, "column")):
            if given is not None:
                roles.update({f"source.gpio.{key}[{i}]": p for i, p in enumerate(given)})
            elif wiring is not None:
                roles.update({f"matrix {lines} {i + 1} ({whose})": p for i, p in enumerate(getattr(wiring, key))})
    return roles


def check_gpio_roles(where: str, panel: PanelConfig, source: SourceConfig, wiring: Any = None) -> None:
    """The one check that no header pin is given two roles across every configured device."""
    try:
        check_distinct(gpio_roles(panel, source, wiring), "GPIO pins")
    except PinConfigError as exc:
        raise ConfigError(where, "", str(exc)) from None


class _Reader:
    def __init__(self, where: str, base: Path | None) -> None:
        self.where, self.base = where, base

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(self.where, key, message)

    def path(self, table: _Table, name: str, *, required: bool = False, base: Path | None = None) -> Path | None:
        text = table.get(name, str, required=required, expect="a path (a string)")
        if text is None:
            return None
        if not text.strip():
            raise self.error(table.path(name), "expected a path, got an empty string")
        p = Path(text).expanduser()
        base = base if base is not None else self.base
        return p if p.is_absolute() or base is None else base / p

    def number(self, table: _Table, name: str, default: float, *, positive: bool = False) -> float:
        value = table.get(name, float, default)
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            raise self.error(table.path(name), f"expected a number {'> 0' if positive else '>= 0'}, got {value!r}")
        return value

    def whole(self, table: _Table, name: str, default: int, *, least: int) -> int:
        value = table.get(name, int, default)
        if value < least:
            raise self.error(table.path(name), f"expected an integer >= {least}, got {value!r}")
        return value

    def choice(self, table: _Table, name: str, choices: tuple[str, ...], default: str | None = None) -> str:
        expect = "one of " + ", ".join(f'"{c}"' for c in choices)
        value = table.get(name, str, default, required=default is None, expect=expect)
        if value not in choices:
            raise self.error(table.path(name), f"expected {expect}, got {value!r}")
        return value

    def fidelity(self, table: _Table, default: Fidelity) -> Fidelity:
        return Fidelity(self.choice(table, "fidelity", tuple(f.value for f in Fidelity), default.value))

    # -- sections -------------------------------------------------------------------------------

    def config(self, data: Mapping[str, Any]) -> Config:
        top = _Table(self, data, "")
        game_t = top.table("game")
        if game_t is None:
            raise self.error("game", 'missing: expected a [game] table with name = "gyges" (or another game)')
        game = self.game(game_t)
        source_t = top.table("source")
        source = SimulatedConfig() if source_t is None else self.source(source_t, game)
        stabiliser = self.stabiliser(top.table("stabiliser"))
        web = self.web(top.table("web"))
        panel = self.panel(top.table("panel"), source)
        data_cfg = self.data(top.table("data"))
        voice = read_voice(self, top.table("voice"))
        hub = read_board_hub(self, top.table("hub"))
        opponent = read_opponent(self, top.table("opponent"))
        teach = read_teach(self, top.table("teach"))
        clock = read_clock(self, top.table("clock"))
        remote = read_remote(self, top.table("remote"))
        top.done()
        return Config(game, source, stabiliser, web, panel, data_cfg, self.where, voice, hub, opponent, teach, clock,
                      remote)


    def game(self, t: _Table) -> GameConfig:
        name = t.get("name", str, required=True, expect='a game name such as "gyges"')
        try:
            game = get_game(name)
        except RulesError as exc:
            raise self.error(t.path("name"), str(exc)) from None
        setup = self.choice(t, "setup", SETUPS, "default")
        given: dict[str, Any] = {}
        opts = t.table("options")
        if opts is not None:
            for key, value in opts.data.items():
                where = opts.path(key)
                if key not in game.options:
                    known = ", ".join(game.options) or "none"
                    raise self.error(where, f"{name} has no option {key!r} (known: {known})")
                if isinstance(value, (dict, list, bool)) or not isinstance(value, (str, int, float)):
                    raise self.error(where, f"expected a string or a number ({game.options[key].help}), "
                                            f"got {_got(value)}")
                try:
                    game.options[key].parse(str(value))
                except ValueError as exc:
                    raise self.error(where, f"got {value!r}: {exc}; expected {game.options[key].help}") from None
                given[key] = value
        options = game.parse_options(given)
        seats = Seats()
        seats_t = t.table("seats")
        if seats_t is not None:
            try:
                start = game.start(options)
                seats = Seats.from_dict(seats_t.data, where=seats_t.key).checked(
                    start.sides, where=seats_t.key)
            except SeatError as exc:
                said = str(exc).removeprefix(f"{seats_t.key}: ").removeprefix(f"{seats_t.key}.")
                raise self.error(seats_t.key, f"{said} (each side = \"computer:N\" or \"person\")") from None
        t.done()
        return GameConfig(name, MappingProxyType(options), setup, seats)

    def source(self, t: _Table, game: GameConfig) -> SourceConfig:
        kind = self.choice(t, "kind", SOURCE_KINDS)
        # Every table present is checked, the one chosen by `kind` is used: switching sources
        # is then a one-word edit, and a typo in a table not in use is still caught.
        readers = {"simulated": self.simulated, "serial": self.serial, "gpio": self.gpio,
                   "camera": self.camera, "replay": self.replay}
        chosen: SourceConfig | None = None
        for name, read in readers.items():
            sub = t.table(name)
            if sub is not None:
                value = read(sub)
                sub.done()
                if name == kind:
                    chosen = value
        t.done()
        if chosen is None:
            if kind == "simulated":
                return SimulatedConfig()
            if kind == "gpio":
                return GpioConfig()
            raise self.error(f"source.{kind}", f'missing: source.kind is "{kind}", so a [source.{kind}] table '
                                               f"is expected ({self._required[kind]})")
        return chosen

    _required = {"serial": 'port = "/dev/tableref-board" at least', "camera": 'calibration = "FILE" at least',
                 "replay": 'file = "FILE" at least'}

    def simulated(self, t: _Table) -> SimulatedConfig:
        return SimulatedConfig(self.path(t, "script"), self.number(t, "speed", 1.0), self.fidelity(t, Fidelity.KIND))

    def serial(self, t: _Table) -> SerialConfig:
        port = t.get("port", str, required=True, expect="a device path or a pyserial URL (a string)")
        if not port.strip():
            raise self.error(t.path("port"), "expected a device path or a pyserial URL, got an empty string")
        wiring = self.path(t, "wiring")
        baud = self.whole(t, "baudrate", 115200, least=1)
        return SerialConfig(port, wiring, baud)

    def pin_list(self, t: _Table, name: str) -> tuple[PinSpec, ...] | None:
        value = t.get(name, list, expect="an array of pins (BCM numbers or names like \"GPIO17\")")
        if value is None:
            return None
        if not value:
            raise self.error(t.path(name), "expected a non-empty array of pins")
        try:
            return tuple(check_pin(pin, f"{t.path(name)}[{i}]") for i, pin in enumerate(value))
        except PinConfigError as exc:
            raise ConfigError(self.where, "", str(exc)) from None

    def gpio(self, t: _Table) -> GpioConfig:
        cfg = GpioConfig(self.path(t, "wiring"), self.pin_list(t, "rows"), self.pin_list(t, "columns"),
                         self.number(t, "interval", 0.02), self.whole(t, "debounce", 2, least=1))
        try:
            check_distinct(_matrix_pins(cfg), "source.gpio")
        except PinConfigError as exc:
            raise ConfigError(self.where, "", str(exc)) from None
        return cfg

    def camera(self, t: _Table) -> CameraConfig:
        calibration = self.path(t, "calibration", required=True)
        backend = self.choice(t, "backend", CAMERA_BACKENDS, "auto")
        device = t.get("device", (int, str), expect="a camera number, or a device path, video file or URL")
        if isinstance(device, int) and device < 0:
            raise self.error(t.path("device"), f"expected a camera number >= 0, got {device}")
        if isinstance(device, str) and not device.strip():
            raise self.error(t.path("device"), "expected a device path, video file or URL, got an empty string")
        if backend == "picamera" and isinstance(device, str):
            raise self.error(t.path("device"), f"the Pi camera is chosen by number (0, 1), got {device!r}")
        paced = t.get("paced", bool, False)
        return CameraConfig(calibration, backend, device, self.fidelity(t, Fidelity.KIND), paced,  # type: ignore[arg-type]
                            lens=self.path(t, "lens"), pieceset=self.path(t, "pieceset"), geometry=self.path(t, "geometry"),
                            rings=self.path(t, "rings"), loop=t.get("loop", bool, False), size=self.frame_size(t, "size"))

    def frame_size(self, t: _Table, name: str) -> tuple[int, int] | None:
        value = t.get(name, list, expect="[width, height] in pixels, e.g. [1920, 1080]")
        if value is None:
            return None
        if len(value) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            raise self.error(t.path(name), f"expected [width, height] in whole pixels, e.g. [1920, 1080], got {value!r}")
        w, h = value
        if not (320 <= w <= 4608 and 240 <= h <= 2592) or w % 2 or h % 2:
            raise self.error(t.path(name), f"expected an even width 320-4608 and height 240-2592 (a camera's "
                                           f"modes), got {w}x{h}")
        return (w, h)

    def replay(self, t: _Table) -> ReplayConfig:
        return ReplayConfig(self.path(t, "file", required=True), self.number(t, "speed", 1.0))  # type: ignore[arg-type]

    def stabiliser(self, t: _Table | None) -> StabiliserConfig:
        if t is None:
            return StabiliserConfig()
        cfg = StabiliserConfig(self.number(t, "settle", 0.6), self.whole(t, "readings", 3, least=1))
        t.done()
        return cfg

    def web(self, t: _Table | None) -> WebConfig:
        if t is None:
            return WebConfig()
        host = _host(t.get("host", str, DEFAULT_HOST), t.path("host"), self.where)
        port = _port(t.get("port", int, DEFAULT_PORT), t.path("port"), self.where)
        threads = self.whole(t, "threads", WebConfig.threads, least=1)
        streams = self.whole(t, "max_streams", WebConfig.max_streams, least=1)
        idle = self.number(t, "idle_timeout", WebConfig.idle_timeout, positive=True)
        if idle < 1:
            raise self.error(t.path("idle_timeout"), f"expected a number of seconds >= 1, got {idle!r}")
        connections = self.whole(t, "connections", WebConfig.connections, least=streams + threads)
        t.done()
        return WebConfig(host, port, threads, streams, idle, connections)

    def panel(self, t: _Table | None, source: SourceConfig) -> PanelConfig:
        cfg = PanelConfig()
        if t is not None:
            enabled = t.get("enabled", bool, True)
            pins_t = t.table("pins")
            pins = PanelPins()
            if pins_t is not None:
                try:
                    pins = PanelPins.from_dict(pins_t.data, where="panel.pins")
                except PinConfigError as exc:
                    raise ConfigError(self.where, "", str(exc)) from None
            t.done()
            cfg = PanelConfig(enabled, pins)
        # The matrix and the panel share the header: one pin cannot serve both (a wiring
        # file's own pins are checked with the file, in check_files).
        check_gpio_roles(self.where, cfg, source)
        return cfg

    def data(self, t: _Table | None) -> DataConfig:
        if t is None:
            return DataConfig()
        directory = self.path(t, "dir") or default_data_dir()
        journal = self.path(t, "journal", base=directory)  # relative to the data directory
        t.done()
        return DataConfig(directory, journal)


def _host(value: str, key: str, where: str) -> str:
    if not value.strip() or any(c.isspace() for c in value):
        raise ConfigError(where, key, f"expected an address such as 127.0.0.1 or 0.0.0.0, got {value!r}")
    return value


def _port(value: object, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
        raise ConfigError(where, key, f"expected a port number 0-65535 (0: any free port), got {value!r}")
    return value
