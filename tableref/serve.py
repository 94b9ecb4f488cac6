"""``tableref serve``: the service — a source read, refereed, journalled and shown on the web.

Wiring (one process)::

    source ─▶ Pump ─▶ Stabiliser ─StableView─▶ RefereeLoop ─decisions─▶ journal (first), LiveTable,
    (serial, gpio, camera, replay;               ▲                      panel LEDs/buzzer, board LEDs,
     or the SimBoard the page edits,             │                      health
     scanned every 0.1 s)                        │
    browsers ◀── SSE ◀── Broadcaster ◀── LiveTable (snapshot)
    browsers, panel buttons ── commands (confirm, undo, declare, new game) ──▶ RefereeLoop's queue

Threads: the referee's (RefereeLoop), the source's (Pump, or the simulated board's scanner;
a serial board adds its I/O thread), the panel's (gpiozero), and the HTTP server's (waitress:
its loop, and a fixed pool of workers). :class:`Service` starts them in ``start()``; ``close()`` stops them and releases
the devices, safe twice. The configuration is ``tableref.config`` (file, then flags).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from rules import Fidelity, RulesError, get_game

from hardware.panel import open_panel
from hardware.pins import default_pin_factory

from .config import Config, ConfigError, PanelConfig, SimulatedConfig, load_config
from decisions import Command, Decision, SeatError, Seats, StableView, StartGame, parse_seats
from .http_server import ServerLimits
from .journal import Journal, JournalError
from .malloc_tuning import tune_malloc
from .opponent import Opponent, OpponentSettings
from .opponent_config import OpponentConfig
from decisions.clock import ClockTick, SetTimeControl
from .clock import ClockError
from .clock_config import ClockSettings, with_clock_flag
from .referee import Referee, RefereeLoop
from .service import Feed, Health, LastDecision, SourceError, SourceStatus, open_feed, version
from .source_retry import Pump
from .stabiliser import Stabiliser

log = logging.getLogger(__name__)

DEFAULT_PORT = 8000


class Service:
    """The journal, the referee, the source, the panel and the web app, wired together.

    With no ``source`` (or a simulated one without a script) the board is the simulated one
    the page edits; any other source is read by a :class:`~tableref.source_retry.Pump` thread.
    ``panel``: the GPIO panel's configuration, or ``None`` for no panel. ``pin_factory``:
    gpiozero's backend for the panel and a GPIO matrix (default: this machine's, if any).

    ``threaded=False`` (for tests) starts no thread: commands are handled at once and each
    board edit is scanned at once, so a test sees every decision before its request returns.
    """

    def __init__(
        self,
        journal_path: str | Path,
        admin_path: str | Path,
        *,
        game: str = "gyges",
        options: Mapping[str, Any] | None = None,
        setup: str = "default",
        fidelity: Fidelity = Fidelity.KIND,
        settle: float = 0.6,
        readings: int = 3,
        scan_interval: float = 0.1,
        new: bool = False,
        threaded: bool = True,
        heartbeat: float = 15.0,
        pin_hash: str = "scrypt",
        source: Any = None,
        feed: Feed | None = None,
        panel: PanelConfig | None = None,
        pin_factory: Any = None,
        voice: Any = None,
        speaker: Any = None,
        hub: Any = None,
        hub_client_factory: Any = None,
        source_backoff: Any = None,
        seats: Seats | None = None,
        opponent: OpponentConfig | None = None,
        teach: bool | None = None,
        clock: ClockSettings | None = None,
        remote: Any = None,
        remote_client_factory: Any = None,
    ) -> None:
        self.journal_path = Path(journal_path)
        self.admin_path = Path(admin_path)
        self.game, self.options, self.setup = game, dict(options or {}), setup
        self.seats = seats or Seats()  # the sides the computer plays in a new game (a resumed game keeps its own)
        self.opponent_config = opponent or OpponentConfig()
        self.opponent: Opponent | None = None
        self.teach = (hub is None) if teach is None else teach  # [teach] destinations: on at home, off at a club
        self.clock_settings = clock or ClockSettings()  # [clock], --clock: docs/clock.md
        self._ticker: threading.Thread | None = None
        self.fidelity, self.new, self.threaded = fidelity, new, threaded
        self.scan_interval, self.heartbeat, self.pin_hash = scan_interval, heartbeat, pin_hash
        self.settle, self.readings = settle, readings
        self.stabiliser = Stabiliser(settle, readings)  # checks the numbers before anything opens
        self.source_config = source
        self.feed = feed
        self.source_backoff = source_backoff  # a failing source's waits (tableref.source_retry.Backoff; tests)
        self.panel_config = panel
        self.pin_factory = pin_factory
        self.voice_config = voice  # tableref.voice.VoiceConfig, or None: no voice
        self.speaker = speaker  # a tableref.voice.Speaker given (tests), else made from voice_config
        self.hub_config, self.hub_client_factory = hub, hub_client_factory  # [hub]: tableref.hub (docs/hub.md)
        self.publisher: Any = None
        self.remote_config, self.remote_client_factory = remote, remote_client_factory  # [remote]: docs/remote.md
        self.remote_link: Any = None
        self.camera_setup: Any = None  # the set-up page's side of a camera source
        self.notices: list[str] = []  # for the person starting it: what runs without what
        self.journal: Journal | None = None
        self.referee: Referee | None = None
        self.table: Any = None
        self.app: Any = None
        self.panel: Any = None
        self.started = time.time()
        self._started_mono = time.monotonic()
        self._last: LastDecision | None = None
        self._loop: RefereeLoop | None = None
        self._pump: Pump | None = None
        self._scanner: threading.Thread | None = None
        self._server: Any = None
        self._stop = threading.Event()
        self._scan_lock = threading.Lock()
        self._handle_lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Config, *, admin_path: Path | None = None, new: bool = False,
                    **kw: Any) -> "Service":
        src = config.source
        fidelity = getattr(src, "fidelity", Fidelity.KIND)
        browser = isinstance(src, SimulatedConfig) and src.script is None
        return cls(config.journal_path, admin_path or config.admin_path, game=config.game.name,
                   options=config.game.options, setup=config.game.setup, fidelity=fidelity,
                   settle=config.stabiliser.settle, readings=config.stabiliser.readings, new=new,
                   source=None if browser else src, panel=config.panel if config.panel.enabled else None,
                   voice=config.voice, hub=config.hub, seats=config.game.seats, opponent=config.opponent,
                   teach=config.teach.on(club=config.hub is not None), clock=config.clock, remote=config.remote,
                   **kw)

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> "Service":
        # Imported here: the web needs Flask, which the rest of tableref does not.
        from web import create_app
        from web.auth import AdminStore
        from web.boards import palette
        from web.live import LiveTable
        from web.simboard import SimBoard

        admin = AdminStore(self.admin_path, method=self.pin_hash)
        wants_pins = self.panel_config is not None or getattr(self.source_config, "kind", "") == "gpio"
        if wants_pins and self.pin_factory is None:
            found = default_pin_factory()
            self.pin_factory = found.factory
            if found.factory is None:
                self.notices.append(found.notice)
        if self.feed is None and self.source_config is not None:
            self.feed = open_feed(self.source_config, self.game, pin_factory=self.pin_factory)  # reads files only
        feed = self.feed
        if feed is not None:
            self.fidelity = feed.fidelity
        if hasattr(feed, "on_loop"):  # a looped video, back at its start: the game it films begins anew
            feed.on_loop = lambda: self.submit(StartGame(self.game, dict(self.options), self.setup))
        self.journal = Journal(self.journal_path, exclusive=True)  # one writer (tableref/journal_lock.py)
        try:
            self.referee = Referee.start(self.journal, self.game, options=feed.options if feed and feed.options
                                         is not None else self.options, fidelity=self.fidelity,
                                         start=feed.start_state if feed else None, setup=self.setup,
                                         resume=not self.new, seats=self.seats)
        except RulesError:
            self.journal.close()
            raise
        record = self.referee.record
        self.referee.teach = self.teach  # a Lifted decision for a piece in the hand (docs/teaching.md)
        self.referee.clock_now = time.monotonic  # the observations' own time base (docs/clock.md)
        if feed is not None and self.referee.ply > 0:
            feed.resume([s.view(self.fidelity) for s in record.states], Stabiliser(self.settle, self.readings))
        sim = None
        if feed is None:
            sim = SimBoard(get_game(record.game).board(), self.fidelity, record.state.view(self.fidelity),
                           palette=palette(record.game, record.options))
        self.table = LiveTable(
            game_id=record.id, state=record.state, moves=record.moves, options=record.options,
            fidelity=self.fidelity, submit=self.submit, sim=sim, on_sim_edit=self.scan if sim else None,
            journal_path=self.journal_path, teach=self.teach,
        )
        if self.speaker is None and self.voice_config is not None:
            from .voice import open_speaker

            self.speaker = open_speaker(self.voice_config)  # None when the level is "off"
        if getattr(feed, "spec", None) is not None:  # a camera: its set-up page (tableref/camera_setup.py)
            from .camera_setup import CameraSetup

            self.camera_setup = CameraSetup(feed.camera, feed.spec)  # type: ignore[union-attr]
            if feed.camera.reader is None:  # type: ignore[union-attr]
                self.notices.append("the camera is not calibrated yet: set it up on the page's /setup "
                                    "(admin PIN); the referee waits until then")
        self.app = create_app({"TABLEREF_TABLE": self.table, "TABLEREF_ADMIN": admin,
                               "TABLEREF_HEARTBEAT": self.heartbeat, "TABLEREF_HEALTH": self.health,
                               "TABLEREF_VOICE": self.speaker, "TABLEREF_CAMERA": self.camera_setup,
                               "TABLEREF_HINT_LEVEL": self.opponent_config.hint_level})
        if self.threaded:
            # Takes commands now, handles them once started. A live board's stale views are
            # coalesced; a recording's every settled view is judged.
            self._loop = RefereeLoop(self.referee, latest_view_only=not (feed is not None and feed.recorded))
        self._open_panel()
        if self.speaker is not None:  # says the decisions on its own thread; never delays them
            self.referee.subscribe(self.speaker.on_decision)
            if self.threaded:
                self.speaker.start()
        self.referee.subscribe(self.table.on_decision)
        self.referee.subscribe(self._note)
        # The computer's seats and hints: searched on the opponent's own thread, answered
        # through the referee's queue (never on the referee's thread).
        self.opponent = Opponent(self.submit, OpponentSettings(time_scale=self.opponent_config.time_scale))
        self.referee.subscribe(self.opponent.on_decision)
        if self.hub_config is not None:  # publishes from the journal on its own thread; never delays a decision
            from .hub.publisher import HubPublisher

            extra = {"client_factory": self.hub_client_factory} if self.hub_client_factory else {}
            self.publisher = HubPublisher(self.hub_config, self.journal_path, version=version(), **extra)
            self.publisher.on_players = self.table.set_players  # the pairing's names on the board's page
            self.publisher.on_control = lambda c: self.submit(SetTimeControl(c))  # the round's time control
            self.referee.subscribe(self.publisher.on_decision)
        if self.remote_config is not None:  # another table's moves: its own thread, never delays a decision
            from .remote.wiring import attach

            self.remote_link = attach(self, self.remote_client_factory)
        if feed is not None:
            self.referee.subscribe(feed.on_decision)
            feed.subscribe_status(self._on_source_status)
            self._on_source_status(feed.status)
        if self.threaded:
            self.opponent.start()
        self.referee.greeting()
        self.referee.setup_clock(self.clock_settings, time.monotonic())  # resumed from the journal, or begun
        if self.threaded:
            if self.publisher is not None:
                self.publisher.start()
            self._loop.start()
            if self.remote_link is not None:
                self.remote_link.start()
            if feed is not None:
                self._start_feed(feed)
            else:
                self._scanner = threading.Thread(target=self._scan_forever, name="board-scanner", daemon=True)
                self._scanner.start()
            self._ticker = threading.Thread(target=self._tick_forever, name="clock-tick", daemon=True)
            self._ticker.start()
        if sim is not None:
            self.scan()
        return self

    def _open_panel(self) -> None:
        if self.panel_config is None or self.pin_factory is None:
            return
        # The long press starts the configured game, with its options and set-up (issue 23).
        configured = StartGame(self.game, dict(self.options), self.setup, seats=self.seats)
        # Undo held mutes or unmutes the voice, when there is one (docs/voice.md).
        mute = {"on_undo_hold": self.speaker.toggle_mute} if self.speaker is not None else {}
        self.panel = open_panel(self.submit, pins=self.panel_config.pins, pin_factory=self.pin_factory,
                                new_game=configured, **mute)
        if self.panel is None:
            self.notices.append("the GPIO panel could not start (see the log); running without it")
            return
        self.referee.subscribe(self.panel.on_decision)

    def _start_feed(self, feed: Feed) -> None:
        self._pump = Pump(feed, self.stabiliser, self.submit, backoff=self.source_backoff)
        try:
            feed.start()
        except Exception as exc:  # a device that will not open (yet): the page says so, the pump retries
            again = "; trying again until it does" if feed.reopenable else ""
            self.notices.append(f"the source ({feed.name}) could not start: {exc}{again}; the page shows it lost")
            self._pump.start(failed=exc)
            return
        self._pump.start()

    def serve_http(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, limits: Any = None) -> str:
        """Start the HTTP server (waitress, tableref/http_server.py) in its own thread; returns
        the page's URL. ``limits``: a :class:`~tableref.http_server.ServerLimits` (default: its defaults)."""
        from .http_server import HttpServer, ServerLimits

        limits = limits or ServerLimits()
        self.app.config["TABLEREF_MAX_STREAMS"] = limits.max_streams  # web/stream.py refuses the one beyond
        server = HttpServer(self.app, host, port, limits)
        url = server.start()  # OSError when the port is taken
        self._server = server
        return url

    def close(self) -> None:
        """Stop serving, release the devices, let the referee finish what is queued, close
        the journal. Safe twice."""
        self._stop.set()
        if self.table is not None:
            self.table.broadcaster.close()  # ends every open event stream
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self.panel is not None:
            self.panel.close()  # no more button presses
            self.panel = None
        if self.speaker is not None:
            self.speaker.close()  # cuts what is being said
        if self.camera_setup is not None:
            self.camera_setup.close()  # a calibration step running stops
        if self._pump is not None:
            self._pump.stop()
            self._pump = None
        if self._scanner is not None:
            self._scanner.join(5)
            self._scanner = None
        if self._ticker is not None:
            self._ticker.join(5)
            self._ticker = None
        if self.opponent is not None:
            self.opponent.stop()  # a search in hand is cut short; its answer is never sent
        if self.remote_link is not None:  # before the referee stops: it hands moves to it
            self.remote_link.stop()  # what the other table has not confirmed stays in the journal
            self.remote_link = None
        if self._loop is not None:
            self._loop.stop(5)
            self._loop = None
        if self.publisher is not None:
            self.publisher.stop()  # what it has not sent stays in the journal for next time
            self.publisher = None
        if self.feed is not None:
            self.feed.close()
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    def __enter__(self) -> "Service":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the pipeline -----------------------------------------------------------------------

    def submit(self, command: Command) -> None:
        if self._loop is not None:
            self._loop.submit(command)
            return
        referee = self.referee
        with self._handle_lock:
            try:
                referee.handle(command)
            except (RulesError, JournalError) as exc:  # as RefereeLoop does: refused, not fatal
                referee.refuse(type(command).__name__, str(exc))
        if self.opponent is not None:  # unthreaded (tests): the computer answers here, in order
            self.opponent.run_pending()

    def scan(self) -> None:
        """Read the simulated board once, as a sensor scan: stable views go to the referee."""
        sim = self.table.sim
        with self._scan_lock:
            obs = sim.observation(time.monotonic())
            view = self.stabiliser.feed(obs)
            candidate, last, made = self.stabiliser.candidate, self.stabiliser.last_stable, self.stabiliser.made
        if sim.hand_over:
            self.table.set_source_status("hand", "hand over the board: waiting for it to move away")
        elif candidate is not None and candidate != last and view is None:
            self.table.set_source_status("settling", "the board is changing: waiting for it to settle")
        else:
            self.table.set_source_status("steady", "simulated board connected")
        if view is not None:
            self.submit(StableView(view, obs.time, made))

    def _scan_forever(self) -> None:
        while not self._stop.wait(self.scan_interval):
            try:
                self.scan()
            except Exception:  # a bad scan must not stop the board being read
                log.exception("board scan failed")

    def _tick_forever(self) -> None:
        """Once a second, the game clock's tick: a flag may fall with no board change at all."""
        while not self._stop.wait(1.0):
            self.submit(ClockTick(time.monotonic()))

    # -- watching ---------------------------------------------------------------------------

    def _on_source_status(self, status: SourceStatus) -> None:
        self.table.set_source_status(status.badge, status.text())
        if self.panel is not None:
            # Only a lost source is "disconnected" (red blinking, a chirp): one starting up,
            # connecting or re-syncing is on its way, and the panel keeps showing the game.
            self.panel.set_connected(status.connected or status.badge == "settling")

    def _note(self, decision: Decision) -> None:
        self._last = LastDecision(decision.kind, decision.ply, time.time())

    def health(self) -> Health:
        """The service's state for ``/api/health`` (any thread)."""
        snap = self.table.snapshot()
        if self.feed is not None:
            source = self.feed.status
        else:
            src = snap["source"]
            source = SourceStatus("simulated", "simulated board", src["status"], True, src["text"], self.started)
        panel = "on" if self.panel is not None else ("off" if self.panel_config is None else "unavailable")
        return Health(version(), self.started, time.monotonic() - self._started_mono, source, snap["game_id"],
                      snap["game"], snap["ply"], snap["to_move"], snap["outcome"] is not None, self._last, panel,
                      None if self.publisher is None else self.publisher.status())


# -- the command ------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``serve`` on ``subparsers`` (``func=cmd_serve``)."""
    p = subparsers.add_parser(
        "serve", help="the service: referee the board, with the live web page, replay and JSON API",
        description="Referee a game read from the configured source (default: the simulated board, played in "
                    "the browser), with the live page, replay and JSON API. Flags win over the config file.",
    )
    p.add_argument("--config", type=Path, default=None,
                   help="config file (deploy/tableref.toml is the example); without it: the simulated board")
    p.add_argument("--host", default=None,
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=int, default=None, help=f"port (default {DEFAULT_PORT}; 0 = any free)")
    p.add_argument("--game", default=None, help="the game to referee (default gyges)")
    p.add_argument("--option", dest="options", metavar="KEY=VALUE", action="append", default=[],
                   help="a game option; repeatable")
    p.add_argument("--setup", choices=("default", "start"), default=None,
                   help="default: the game's ready-to-play position (default); start: where setup begins")
    p.add_argument("--fidelity", choices=[f.value for f in Fidelity], default=None,
                   help="what the simulated sensor tells apart (default kind)")
    p.add_argument("--settle", type=float, default=None, help="seconds a reading must hold (default 0.6)")
    p.add_argument("--readings", type=int, default=None, help="readings a view must hold for (default 3)")
    p.add_argument("--computer", metavar="SIDE:LEVEL", action="append", default=[],
                   help="the computer plays SIDE at LEVEL 1-5 (north:3; DRIFT: red:2); repeatable; "
                        "over the config's [game.seats]; a new game only (a resumed game keeps its seats)")
    p.add_argument("--clock", metavar="CONTROL", default=None,
                   help='the game clock: "10+5" (Fischer), "10d5" (Bronstein), "40/90,30", "default" (the '
                        'game\'s own) or "off" (over [clock] control; docs/clock.md)')
    p.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    p.add_argument("--journal", type=Path, default=None,
                   help="journal file (default: the config's data.dir, else $TABLEREF_JOURNAL or "
                        "~/.local/share/tableref/journal.sqlite3)")
    p.add_argument("--admin-file", type=Path, default=None,
                   help="where the admin PIN's hash is kept (default: web-admin.json beside the journal)")
    p.set_defaults(func=cmd_serve)
    return p


def _fail(message: str) -> int:
    print(f"tableref: {message}", file=sys.stderr)
    return 2


def build_service(args: argparse.Namespace) -> tuple[Config, Service]:
    """The configuration (file, then flags) and the service it describes, nothing started.
    ``ConfigError``/``RulesError``/``ValueError`` say what is wrong."""
    if args.port is not None and not 0 <= args.port <= 65535:
        raise ConfigError("<command line>", "", f"--port must be 0..65535, got {args.port}")
    config = load_config(args.config) if args.config is not None else Config.default()
    config = config.with_overrides(host=args.host, port=args.port, game=args.game, journal=args.journal)
    config.check_files()
    src = config.source
    if args.fidelity is not None:
        if src.kind not in ("simulated", "camera") or getattr(src, "script", None) is not None:
            raise ConfigError("<command line>", "--fidelity", f"a {src.kind} source reads at the fidelity its "
                                                               "wiring or recording gives; leave --fidelity out")
        src = replace(src, fidelity=Fidelity(args.fidelity))
    if src.kind == "camera":
        from .service import camera_available

        missing = camera_available()
        if missing:
            raise ConfigError(config.where, "source.kind", f"\"camera\": {missing}")
    game = replace(config.game)
    if args.options:
        given = {k: v for k, v in config.game.options.items() if v is not None}
        for pair in args.options:
            key, sep, value = pair.partition("=")
            if not sep:
                raise ConfigError("<command line>", "--option", f"expected KEY=VALUE, got {pair!r}")
            given[key.strip()] = value.strip()
        game = replace(game, options=get_game(config.game.name).parse_options(given))
    if args.setup is not None:
        game = replace(game, setup=args.setup)
    if args.computer:
        try:
            given = parse_seats(args.computer, where="--computer")
            start = get_game(game.name).start(game.options)
            seats = given.checked(start.sides, where="--computer")
        except SeatError as exc:
            raise ConfigError("<command line>", "--computer", str(exc).removeprefix("--computer: ")) from None
        game = replace(game, seats=Seats({**game.seats.by_side, **seats.by_side}))
    stab = replace(config.stabiliser, **{k: v for k, v in (("settle", args.settle), ("readings", args.readings))
                                         if v is not None})
    try:
        clock = with_clock_flag(config.clock, getattr(args, "clock", None))
    except ClockError as exc:
        raise ConfigError("<command line>", "--clock", str(exc)) from None
    config = replace(config, source=src, game=game, stabiliser=stab, clock=clock)
    return config, Service.from_config(config, admin_path=args.admin_file, new=args.new)


def _on_the(config: Config, service: Service) -> str:
    feed = service.feed
    if feed is None:
        return "the simulated board"
    return {"serial": "serial board", "gpio": "GPIO sensor matrix", "camera": "camera",
            "replay": "replay of", "simulated": "simulated board playing"}[feed.kind] + f" {feed.name}"


def cmd_serve(args: argparse.Namespace) -> int:
    from web.auth import AdminError

    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "task queue depth" lines: load is shown by /api/health
    tune_malloc()  # before any thread: memory stays flat over an evening (tableref/malloc_tuning.py)
    stop = threading.Event()
    try:
        config, service = build_service(args)
    except (ConfigError, RulesError, ValueError) as exc:
        return _fail(str(exc))
    host, port = config.web.host, config.web.port
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        service.start()
        try:
            web = config.web
            url = service.serve_http(host, port, ServerLimits(web.threads, web.max_streams, web.idle_timeout,
                                                              web.connections))
        except OSError as exc:
            return _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        record = service.referee.record
        title = get_game(record.game).title
        print(f"tableref: {title} game {record.id} on {_on_the(config, service)} — open {url}", flush=True)
        for notice in service.notices:
            print(f"tableref: {notice}", flush=True)
        if host not in ("127.0.0.1", "localhost", "::1"):
            print("tableref: listening on the network: phones on the LAN can watch; controls need the PIN",
                  flush=True)
        if not service.app.extensions["tableref_admin"].pin_set:
            print("tableref: first run: choose the admin PIN on this machine's browser", flush=True)
        print(f"tableref: journal {config.journal_path}; Ctrl-C to stop", flush=True)
        while not stop.wait(0.5):
            pass
    except (JournalError, AdminError, RulesError, SourceError) as exc:
        return _fail(str(exc))
    finally:
        service.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("tableref: stopped", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m tableref.serve``: the command on its own."""
    parser = argparse.ArgumentParser(prog="tableref")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", *(argv if argv is not None else sys.argv[1:])])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
