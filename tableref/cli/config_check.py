"""``tableref config check FILE``: validate a config file as ``serve`` would, without starting.

It reads the file and every file it names (wiring, board script, calibration); no device is
opened. Exit 0 and a summary on stdout, or exit 2 and one line ``tableref: FILE: KEY: what``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..config import Config, ConfigError, load_config


def add_parser(subparsers: Any) -> None:
    """Register ``config`` (with ``check``) on ``subparsers``."""
    parser = subparsers.add_parser("config", help="check a configuration file",
                                   description="Check a tableref configuration file (docs/deploy.md).")
    sub = parser.add_subparsers(dest="config_command", metavar="COMMAND", required=True)
    check = sub.add_parser("check", help="validate a config file and the files it names; print what it sets up")
    check.add_argument("file", type=Path)
    check.set_defaults(func=cmd_check)


def summary(config: Config) -> list[str]:
    src = config.source
    detail = {
        "simulated": lambda: f"script {src.script}" if src.script else "played in the browser",
        "serial": lambda: f"{src.port}, wiring {src.wiring or 'built in'}",
        "gpio": lambda: f"wiring {src.wiring or 'built in'}",
        "camera": lambda: f"{src.backend} {'' if src.device is None else src.device}".rstrip()
                          + f", calibration {src.calibration}" + (", paced" if src.paced else ""),
        "replay": lambda: f"{src.file} at speed {src.speed:g}",
    }[src.kind]()
    options = ", ".join(f"{k}={v}" for k, v in config.game.options.items() if v is not None) or "no options"
    computer = ", ".join(f"{side} at level {n}" for side, n in config.game.seats.computers.items()) or "no side"
    return [
        f"game: {config.game.name} ({options}; setup {config.game.setup})",
        f"computer: plays {computer}; hints at level {config.opponent.hint_level}",
        f"source: {src.kind}: {detail}",
        f"stabiliser: settle {config.stabiliser.settle:g} s over {config.stabiliser.readings} readings",
        f"web: http://{config.web.host}:{config.web.port}/",
        f"panel: {'on (if GPIO is available)' if config.panel.enabled else 'off'}",
        f"teaching: {_teaching(config)}",
        f"journal: {config.journal_path}",
    ]


def _teaching(config: Config) -> str:
    """Whether a lifted piece shows where it may go (docs/teaching.md), and why."""
    club = config.hub is not None
    on = "on" if config.teach.on(club=club) else "off"
    why = "[teach] destinations" if config.teach.destinations is not None else "at a club ([hub])" if club else "at home"
    return f"{on} ({why}; the page's admin can change it)"


def cmd_check(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.file)
        config.check_files()
    except ConfigError as exc:
        print(f"tableref: {exc}", file=sys.stderr)
        return 2
    print(f"{args.file}: ok")
    for line in summary(config):
        print(f"  {line}")
    device = getattr(config.source, "device", None)
    if isinstance(device, str) and device.startswith("/dev/") and not Path(device).exists():
        # Not an error: a USB camera may be plugged in after the service starts, which waits for it.
        print(f"  note: source.camera.device {device} is not there now (not plugged in, or a typo?): "
              "serve waits for it, trying every 30 s")
    return 0
