"""``tableref serve``: the simulated board, playable in a browser.

Wiring (one process)::

    web panel edits ─▶ SimBoard ─(scanned every 0.1 s)─▶ Stabiliser ─StableView─▶ RefereeLoop
                                                                                    │ decisions
    browsers ◀── SSE ◀── Broadcaster ◀── LiveTable (snapshot) ◀─────────────────────┘
    browsers ── commands (confirm, undo, declare, new game) ──▶ RefereeLoop's queue

Threads: the referee's (RefereeLoop), the board scanner's, and the HTTP server's (one per
request). :class:`Service` starts them in ``start()``; ``close()`` stops them, safe twice.
"""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rules import Fidelity, RulesError, get_game

from .decisions import Command, StableView
from .journal import Journal, JournalError
from .referee import Referee, RefereeLoop
from .service import default_journal_path
from .stabiliser import Stabiliser

log = logging.getLogger(__name__)

DEFAULT_PORT = 8000


class Service:
    """The journal, the referee, the simulated board and the web app, wired together.

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
    ) -> None:
        self.journal_path = Path(journal_path)
        self.admin_path = Path(admin_path)
        self.game, self.options, self.setup = game, dict(options or {}), setup
        self.fidelity, self.new, self.threaded = fidelity, new, threaded
        self.scan_interval, self.heartbeat, self.pin_hash = scan_interval, heartbeat, pin_hash
        self.stabiliser = Stabiliser(settle, readings)  # checks the numbers before anything opens
        self.journal: Journal | None = None
        self.referee: Referee | None = None
        self.table: Any = None
        self.app: Any = None
        self._loop: RefereeLoop | None = None
        self._scanner: threading.Thread | None = None
        self._server: Any = None
        self._server_thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._scan_lock = threading.Lock()
        self._handle_lock = threading.Lock()

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> "Service":
        # Imported here: the web needs Flask, which the rest of tableref does not.
        from web import create_app
        from web.auth import AdminStore
        from web.boards import palette
        from web.live import LiveTable
        from web.simboard import SimBoard

        admin = AdminStore(self.admin_path, method=self.pin_hash)
        self.journal = Journal(self.journal_path)
        try:
            self.referee = Referee.start(self.journal, self.game, options=self.options, fidelity=self.fidelity,
                                         setup=self.setup, resume=not self.new)
        except RulesError:
            self.journal.close()
            raise
        record = self.referee.record
        sim = SimBoard(get_game(record.game).board(), self.fidelity, record.state.view(self.fidelity),
                       palette=palette(record.game, record.options))
        self.table = LiveTable(
            game_id=record.id, state=record.state, moves=record.moves, options=record.options,
            fidelity=self.fidelity, submit=self.submit, sim=sim, on_sim_edit=self.scan,
            journal_path=self.journal_path,
        )
        self.referee.subscribe(self.table.on_decision)
        self.app = create_app({"TABLEREF_TABLE": self.table, "TABLEREF_ADMIN": admin,
                               "TABLEREF_HEARTBEAT": self.heartbeat})
        self.referee.greeting()
        if self.threaded:
            self._loop = RefereeLoop(self.referee)
            self._loop.start()
            self._scanner = threading.Thread(target=self._scan_forever, name="board-scanner", daemon=True)
            self._scanner.start()
        self.scan()
        return self

    def serve_http(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT) -> str:
        """Start the HTTP server in its own thread; returns the page's URL."""
        from werkzeug.serving import make_server

        try:
            self._server = make_server(host, port, self.app, threaded=True)
        except SystemExit:
            # werkzeug prints its own hint and exits when the port is taken: one error instead.
            raise OSError(errno.EADDRINUSE, "the port is in use by another program") from None
        self._server_thread = threading.Thread(target=self._server.serve_forever, name="http", daemon=True)
        self._server_thread.start()
        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        if ":" in shown:
            shown = f"[{shown}]"
        return f"http://{shown}:{self._server.server_port}/"

    def close(self) -> None:
        """Stop serving, let the referee finish what is queued, close the journal. Safe twice."""
        self._stop.set()
        if self.table is not None:
            self.table.broadcaster.close()  # ends every open event stream
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._server_thread is not None:
            self._server_thread.join(5)
            self._server_thread = None
        if self._scanner is not None:
            self._scanner.join(5)
            self._scanner = None
        if self._loop is not None:
            self._loop.stop(5)
            self._loop = None
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

    def scan(self) -> None:
        """Read the simulated board once, as a sensor scan: stable views go to the referee."""
        sim = self.table.sim
        with self._scan_lock:
            obs = sim.observation(time.monotonic())
            view = self.stabiliser.feed(obs)
            candidate, last = self.stabiliser.candidate, self.stabiliser.last_stable
        if sim.hand_over:
            self.table.set_source_status("hand", "hand over the board: waiting for it to move away")
        elif candidate is not None and candidate != last and view is None:
            self.table.set_source_status("settling", "the board is changing: waiting for it to settle")
        else:
            self.table.set_source_status("steady", "simulated board connected")
        if view is not None:
            self.submit(StableView(view, obs.time))

    def _scan_forever(self) -> None:
        while not self._stop.wait(self.scan_interval):
            try:
                self.scan()
            except Exception:  # a bad scan must not stop the board being read
                log.exception("board scan failed")


# -- the command ------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``serve`` on ``subparsers`` (``func=cmd_serve``)."""
    p = subparsers.add_parser(
        "serve", help="serve the live web page with the simulated board (playable in a browser)",
        description="Referee a game on the simulated board, with the live page, replay and JSON API.",
    )
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = any free)")
    p.add_argument("--game", default="gyges", help="the game to referee (default gyges)")
    p.add_argument("--option", dest="options", metavar="KEY=VALUE", action="append", default=[],
                   help="a game option; repeatable")
    p.add_argument("--setup", choices=("default", "start"), default="default",
                   help="default: the game's ready-to-play position (default); start: where setup begins")
    p.add_argument("--fidelity", choices=[f.value for f in Fidelity], default=Fidelity.KIND.value,
                   help="what the simulated sensor tells apart (default kind)")
    p.add_argument("--settle", type=float, default=0.6, help="seconds a reading must hold (default 0.6)")
    p.add_argument("--readings", type=int, default=3, help="readings a view must hold for (default 3)")
    p.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    p.add_argument("--journal", type=Path, default=None,
                   help="journal file (default: $TABLEREF_JOURNAL or ~/.local/share/tableref/journal.sqlite3)")
    p.add_argument("--admin-file", type=Path, default=None,
                   help="where the admin PIN's hash is kept (default: web-admin.json beside the journal)")
    p.set_defaults(func=cmd_serve)
    return p


def cmd_serve(args: argparse.Namespace) -> int:
    from web.auth import AdminError

    journal_path = args.journal or default_journal_path()
    admin_path = args.admin_file or journal_path.with_name("web-admin.json")
    if not 0 <= args.port <= 65535:
        print(f"tableref: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    stop = threading.Event()
    try:
        game = get_game(args.game)
        options = game.parse_options(args.options)
        service = Service(journal_path, admin_path, game=args.game, options=options, setup=args.setup,
                          fidelity=Fidelity(args.fidelity), settle=args.settle, readings=args.readings, new=args.new)
    except (RulesError, ValueError) as exc:
        print(f"tableref: {exc}", file=sys.stderr)
        return 2
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        service.start()
        url = service.serve_http(args.host, args.port)
        record = service.referee.record
        print(f"tableref: {game.title} game {record.id} on the simulated board — open {url}", flush=True)
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            print("tableref: listening on the network: phones on the LAN can watch; controls need the PIN",
                  flush=True)
        if not service.app.extensions["tableref_admin"].pin_set:
            print("tableref: first run: choose the admin PIN on this machine's browser", flush=True)
        print(f"tableref: journal {journal_path}; Ctrl-C to stop", flush=True)
        while not stop.wait(0.5):
            pass
    except (JournalError, AdminError, RulesError) as exc:
        print(f"tableref: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tableref: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        service.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("tableref: stopped", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m tableref.serve``: the command on its own, before it is wired into cli.py."""
    parser = argparse.ArgumentParser(prog="tableref")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", *(argv if argv is not None else sys.argv[1:])])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
