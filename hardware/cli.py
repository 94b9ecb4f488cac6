"""``tableref gpio ...``: check the Pi's pins and a wired matrix without running a game.

* ``tableref gpio check`` — which pin factory gpiozero finds (exit 1 with the reason if none);
* ``tableref gpio scan [--wiring FILE] [--count N]`` — scan the matrix and print the board as
  a grid (``#`` occupied, ``.`` empty, ``?`` not settled), once per change: put a magnet on
  each space in turn to check the wiring.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from .matrix import GpioMatrix, MatrixWiring, WiringError
from .pins import default_pin_factory


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("gpio", help="check the GPIO pins and a directly wired sensor matrix",
                                   description="Check the Pi's GPIO: the pin factory, and a wired matrix.")
    sub = parser.add_subparsers(dest="gpio_command", metavar="COMMAND", required=True)
    check = sub.add_parser("check", help="say which GPIO pin factory is available")
    check.set_defaults(func=run_check)
    scan = sub.add_parser("scan", help="scan a reed matrix and print the board whenever it changes")
    scan.add_argument("--wiring", help="wiring file (default: the built-in Gygès matrix)")
    scan.add_argument("--count", type=int, default=0, help="stop after N scans (default: until Ctrl-C)")
    scan.add_argument("--interval", type=float, default=0.05, help="seconds between scans (default 0.05)")
    scan.set_defaults(func=run_scan)
    return parser


def run_check(args: argparse.Namespace, *, out: TextIO | None = None, pin_factory: Any = None) -> int:
    out = out if out is not None else sys.stdout
    found = default_pin_factory() if pin_factory is None else None
    if found is not None and found.factory is None:
        print(_unavailable(found), file=out)
        return 1
    factory = pin_factory if pin_factory is not None else found.factory
    print(f"GPIO: using {type(factory).__name__}", file=out)
    return 0


def _unavailable(found: Any) -> str:
    # Not the service's notice ("running without the panel..."): these commands run nothing.
    return f"GPIO not available ({found.reason})"


def grid_text(wiring: MatrixWiring, occupied: set[str], unsettled: set[str]) -> str:
    """The matrix as rows of cells, in wiring order: ``a1:#`` etc."""
    lines = []
    for r, line in enumerate(wiring.grid):
        cells = []
        for space in line:
            if space is None:
                cells.append("     ")
            else:
                mark = "?" if space in unsettled else "#" if space in occupied else "."
                cells.append(f"{space:>3}:{mark}")
        lines.append(f"R{r + 1} " + " ".join(cells))
    return "\n".join(lines)


def run_scan(args: argparse.Namespace, *, out: TextIO | None = None, pin_factory: Any = None) -> int:
    out = out if out is not None else sys.stdout
    try:
        wiring = MatrixWiring.from_file(args.wiring) if args.wiring else MatrixWiring.builtin()
    except WiringError as exc:
        print(f"tableref: {exc}", file=sys.stderr)
        return 2
    if pin_factory is None:
        found = default_pin_factory()
        if found.factory is None:
            print(_unavailable(found), file=out)
            return 1
        pin_factory = found.factory
    last = None
    try:
        with GpioMatrix(wiring, pin_factory=pin_factory, interval=args.interval) as matrix:
            for obs in matrix.observations(limit=args.count or None):
                shown = (frozenset(obs.view), obs.unreadable)
                if shown != last:
                    last = shown
                    print(grid_text(wiring, set(obs.view), set(obs.unreadable)) + "\n", file=out, flush=True)
    except KeyboardInterrupt:
        pass
    return 0
