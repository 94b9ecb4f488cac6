"""``tableref status``: ask a running ``tableref serve`` how it is (its ``/api/health``).

    tableref status [--url http://127.0.0.1:8000] [--config FILE] [--json] [--timeout S]

Prints the source's connection, the game, the last decision and the uptime; the club hub's link
and another table's (connected, the moves it has not confirmed, its name) when configured. Exit 0
when the service answers (whatever it says), 1 when it cannot be reached or does not answer as a
tableref service, 2 for a bad config file. ``tableref/cli/__init__.py`` calls
:func:`add_parser`.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

DEFAULT_URL = "http://127.0.0.1:8000"


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("status", help="how a running `tableref serve` is: source, game, last decision",
                              description="Ask a running `tableref serve` for its health (/api/health).")
    p.add_argument("--url", default=None, help=f"the service's address (default {DEFAULT_URL}, or the "
                                               "--config file's web.host and web.port)")
    p.add_argument("--config", type=Path, default=None, help="take the address from this config file")
    p.add_argument("--json", action="store_true", help="print the health as JSON")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for an answer (default 5)")
    p.set_defaults(func=cmd_status)


def service_url(args: argparse.Namespace) -> str:
    if args.url:
        return args.url.rstrip("/")
    if args.config is not None:
        from ..config import load_config

        web = load_config(args.config).web
        host = "127.0.0.1" if web.host in ("0.0.0.0", "::", "") else web.host
        return f"http://{f'[{host}]' if ':' in host else host}:{web.port}"
    return DEFAULT_URL


def fetch(url: str, timeout: float) -> dict[str, Any]:
    """The health JSON at ``url``; ``OSError`` (with the reason) if it cannot be had."""
    try:
        with urllib.request.urlopen(f"{url}/api/health", timeout=timeout) as resp:
            body = resp.read()
    except urllib.error.HTTPError as exc:
        raise OSError(f"HTTP {exc.code} from {url}/api/health: not a tableref service of this version?") from None
    except urllib.error.URLError as exc:
        raise OSError(str(exc.reason)) from None
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise OSError(f"{url}/api/health did not answer JSON: not a tableref service?") from None
    if not isinstance(data, dict) or not isinstance(data.get("game"), dict) or not isinstance(data.get("source"), dict):
        raise OSError(f"{url}/api/health answered something else than a tableref health report")
    return data


def _ago(at: str | None, now: datetime) -> str:
    if not at:
        return ""
    try:
        then = datetime.fromisoformat(at)
    except ValueError:
        return f" at {at}"
    return f" {_duration((now - then).total_seconds())} ago"


def _duration(seconds: float) -> str:
    s = max(0, int(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


def report(data: dict[str, Any], url: str, now: datetime | None = None) -> list[str]:
    """The health as the lines ``tableref status`` prints."""
    now = now or datetime.now(timezone.utc)
    src, game, last = data["source"], data["game"], data.get("last_decision")
    uptime = data.get("uptime")
    head = f"tableref {data.get('version') or '?'} at {url}/"
    if isinstance(uptime, (int, float)):
        head += f", up {_duration(uptime)}"
    state = src.get("state", "?") + (f" ({src['detail']})" if src.get("detail") else "")
    mark = "" if src.get("connected") else " — NOT connected: the board is not being read"
    if game.get("over"):
        where = "over"
    else:
        where = f"{game.get('to_move')} to move" if game.get("to_move") else "in progress"
    lines = [
        head,
        f"source:  {src.get('kind')} {src.get('name')}: {state}{mark}",
        f"game:    {game.get('id')} ({game.get('name')}), move {game.get('ply')}, {where}",
    ]
    if last:
        lines.append(f"last:    {last.get('kind')} at move {last.get('ply')}{_ago(last.get('at'), now)}")
    if data.get("panel"):
        lines.append(f"panel:   {data['panel']}")
    hub = data.get("hub")
    if isinstance(hub, dict):  # the club hub (docs/hub.md): refused = wrong username or password
        detail = f": {hub['detail']}" if hub.get("detail") else ""
        waiting = f"; {hub['unacknowledged']} to send" if hub.get("unacknowledged") else ""
        lines.append(f"hub:     {hub.get('board')} {hub.get('state')} at {hub.get('broker')}{detail}{waiting}")
    remote = data.get("remote")
    if isinstance(remote, dict):  # another table (docs/remote.md)
        lines.append(remote_line(remote))
    return lines


def remote_line(remote: dict[str, Any]) -> str:
    """"remote:  table-a connected at mqtt://…; playing table-b (match …); 2 moves not yet
    confirmed by table-b (1 not sent yet)"."""
    state = remote.get("state", "?")
    mark = "" if remote.get("connected") else " — NOT connected: moves wait in the journal"
    detail = f" ({remote['detail']})" if remote.get("detail") and not remote.get("connected") else ""
    line = f"remote:  {remote.get('table')} {state} at {remote.get('broker')}{detail}{mark}"
    peer = remote.get("peer")
    if not peer:
        return line + "; no match"
    line += f"; {'played' if remote.get('over') else 'playing'} {peer} (match {remote.get('match')}"
    line += ", over)" if remote.get("over") else ")"
    waiting, unsent = remote.get("unacknowledged") or 0, remote.get("unsent") or 0
    if waiting:
        line += f"; {waiting} move{'s' if waiting != 1 else ''} not yet confirmed by {peer}"
        line += f" ({unsent} not sent yet)" if unsent else " (sent)"
    else:
        line += f"; every move confirmed by {peer}"
    return line


def cmd_status(args: argparse.Namespace) -> int:
    from ..config import ConfigError

    try:
        url = service_url(args)
    except ConfigError as exc:
        print(f"tableref: {exc}", file=sys.stderr)
        return 2
    try:
        data = fetch(url, args.timeout)
    except OSError as exc:
        print(f"tableref: no tableref service answers at {url}: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print("\n".join(report(data, url)))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m tableref.cli.status``: the command on its own."""
    parser = argparse.ArgumentParser(prog="tableref")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["status", *(argv if argv is not None else sys.argv[1:])])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
