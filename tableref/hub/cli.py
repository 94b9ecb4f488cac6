"""``tableref hub``: the club hub, its simulated boards, and the boards' credentials."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from .settings import BrokerConfig, parse_url


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser("hub", help="the club hub: every board's games, standings, rounds (docs/hub.md)",
                              description="Run the club hub: subscribe to every board through the broker, store "
                                          "their games, serve the club page.")
    p.add_argument("--config", type=Path, default=None, help="the hub's config file (deploy/tableref-hub.toml)")
    p.add_argument("--host", default=None, help="address for the club page (default: the file's, else 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port for the club page (default 8080; 0 = any free)")
    p.set_defaults(func=cmd_hub)
    sub = p.add_subparsers(dest="hub_command")
    s = sub.add_parser("simulate", help="N simulated boards playing random legal games through the broker")
    s.add_argument("--boards", type=int, default=20)
    s.add_argument("--broker", default="mqtt://127.0.0.1:1883", help="broker URL (mqtt:// or mqtts://)")
    s.add_argument("--game", default="anacund", help="the game every table plays (default anacund)")
    s.add_argument("--interval", type=float, default=5.0, help="seconds between a table's moves, on average")
    s.add_argument("--duration", type=float, default=None, help="stop after this many seconds (default: Ctrl-C)")
    s.add_argument("--first", type=int, default=1, help="the number of the first table (table-01 by default)")
    s.add_argument("--dir", type=Path, default=None, help="where the tables' journals go (default: a temporary one)")
    s.add_argument("--password-dir", type=Path, default=None,
                   help="DIR/<table>.password for each table's own MQTT user (tableref hub credentials add --out)")
    s.set_defaults(func=cmd_simulate)
    c = sub.add_parser("credentials", help="a board's MQTT user and ACL entries (through mosquitto_passwd)")
    csub = c.add_subparsers(dest="credentials_command", required=True)
    a = csub.add_parser("add", help="add (or reset) a board's user: its password, and ACL lines for its own topics")
    a.add_argument("name", help="the board's name ([hub] board on that board)")
    a.add_argument("--config", type=Path, default=None, help="the hub's config file ([mosquitto] names the files)")
    a.add_argument("--password-file", type=Path, default=None, help="Mosquitto's password file")
    a.add_argument("--acl-file", type=Path, default=None, help="Mosquitto's ACL file")
    a.add_argument("--out", type=Path, default=None,
                   help="write the plain password here (mode 0600) for the board's [hub] password_file")
    a.add_argument("--hub", action="store_true", help="the hub's own user: may read every board and answer it")
    a.set_defaults(func=cmd_credentials)
    return p


# Every log line with its time (issue 33): a hub runs for a whole event, and what went wrong
# when is half the story. Local time, as the club's clocks show it.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging(level: int = logging.INFO) -> None:
    """The ``tableref hub`` commands' logging: timestamped lines on stderr (journald keeps them)."""
    logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stderr)


def _fail(message: str) -> int:
    print(f"tableref: {message}", file=sys.stderr)
    return 2


def cmd_hub(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from hub_web import create_hub_app
    from hub_web.server import Fanout, HubServer
    from web.auth import AdminError, AdminStore

    from ..config import ConfigError, _host, _port
    from .hub import Hub
    from .store import StoreError
    from .settings import check_files, load_server_config

    try:
        config = load_server_config(args.config)
        if args.host is not None:
            config = replace(config, host=_host(args.host, "--host", "<command line>"))
        if args.port is not None:
            config = replace(config, port=_port(args.port, "--port", "<command line>"))
        check_files(config.broker, config.where, "broker")
    except ConfigError as exc:
        return _fail(str(exc))
    setup_logging()
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    hub = server = None
    try:
        admin = AdminStore(config.admin_path)
        fanout = Fanout(lambda: hub.snapshot())
        hub = Hub(config, on_change=fanout.publish).start()
        server = HubServer(create_hub_app(hub, admin), fanout, config.host, config.port, threads=config.threads)
        url = server.start()
        print(f"tableref: hub for {config.event!r} on {config.broker.url} — club page {url}", flush=True)
        print(f"tableref: store {config.store_path}; Ctrl-C to stop", flush=True)
        if not admin.pin_set:
            print("tableref: first run: choose the hub's admin PIN in a browser on this machine", flush=True)
        while not stop.wait(0.5):
            pass
    except (StoreError, AdminError, OSError) as exc:
        return _fail(str(exc))
    finally:
        if server is not None:
            server.stop()
        if hub is not None:
            hub.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("tableref: hub stopped", flush=True)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..config import ConfigError, _Reader
    from .simulate import run_club

    if args.boards < 1 or args.interval <= 0 or args.first < 1:
        return _fail("--boards and --first must be >= 1 and --interval > 0")
    try:
        host, port, tls = parse_url(_Reader("<command line>", None), "--broker", args.broker)
    except ConfigError as exc:
        return _fail(str(exc))
    broker = BrokerConfig(host, port, tls)
    directory = args.dir or Path(tempfile.mkdtemp(prefix="tableref-club-"))
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    setup_logging(logging.WARNING)
    print(f"tableref: {args.boards} simulated tables playing {args.game} on {broker.url}, a move every "
          f"{args.interval:g} s each; journals in {directory}", flush=True)
    try:
        tables, played = run_club(args.boards, broker, directory, game=args.game, interval=args.interval,
                                  duration=args.duration, stop=stop, password_dir=args.password_dir,
                                  first=args.first)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"tableref: stopped; played {played} moves, {sum(t.games_finished for t in tables)} games finished",
          flush=True)
    return 0


def cmd_credentials(args: argparse.Namespace) -> int:
    from ..config import ConfigError
    from .credentials import CredentialsError, add
    from .settings import load_server_config

    try:
        config = load_server_config(args.config) if args.config is not None else None
    except ConfigError as exc:
        return _fail(str(exc))
    pw = args.password_file or (config.password_file if config else None)
    acl = args.acl_file or (config.acl_file if config else None)
    if pw is None or acl is None:
        return _fail("say where Mosquitto's password and ACL files are: --password-file and --acl-file, "
                     "or [mosquitto] in the hub's config file")
    try:
        password = add(args.name, pw, acl, out=args.out, hub=args.hub)
    except (CredentialsError, ValueError) as exc:
        return _fail(str(exc))
    if args.out is None:
        print(password)
    print(f"tableref: user {args.name} in {pw}, its topics in {acl}; reload Mosquitto (systemctl reload mosquitto)",
          file=sys.stderr)
    return 0
