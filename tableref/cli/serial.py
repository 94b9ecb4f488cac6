"""``tableref simulate-board`` and ``tableref referee-serial``: the serial sensor board.

    tableref simulate-board [--game gyges] [--wiring FILE] [--script FILE] [--speed K]
                            [--fault drop=P|flip=P|garbage=P|stall=T+D|unplug=T+D ...]
    tableref referee-serial --port PATH|URL --wiring FILE [--journal FILE] [--json]

``simulate-board`` runs the reference firmware on a virtual sensor matrix behind a pty and
prints the device path on the first line of stdout (then keeps running until Ctrl-C, or
``--hold`` seconds after the script ends). On stdin it takes ``place SPACE``, ``lift SPACE``,
``unplug``, ``replug``, ``stall SECONDS``, ``quit``, so a person can play on it.

``referee-serial`` referees a game read from a serial board, exactly as ``tableref run``
does from a board script: source → stabiliser → referee (journalled) → printed decisions,
plus the board's connection status and the board's LEDs showing what the players must do.

``tableref/cli/__init__.py`` calls :func:`add_parser` with its sub-parsers.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

from firmware_bridge.serial_board import CONNECTED, DISCONNECTED, SILENT, LinkStatus, SerialBoard
from firmware_bridge.simulator import BoardSimulator, FaultPlan
from firmware_bridge.wiring import Wiring, WiringError
from rules import View
from rules.view import OCCUPIED

from decisions import Decision
from ..journal import Journal
from ..referee import Referee
from ..board_leds import leds_for
from ..service import default_journal_path, play_observations
from ..sources.sim import BoardScript, BoardScriptError
from ..stabiliser import Stabiliser
from .answers import TerminalAnswers


def add_parser(subparsers: Any) -> None:
    sim = subparsers.add_parser("simulate-board", help="run a virtual serial sensor board on a pty; prints its device path")
    sim.add_argument("--game", default="gyges", help="the game whose board to simulate (default gyges)")
    sim.add_argument("--wiring", type=Path, default=None, help="wiring file (default: the game's reference wiring)")
    sim.add_argument("--script", type=Path, default=None, help="board script the pieces follow (default: an empty board)")
    sim.add_argument("--speed", type=float, default=1.0, help="script playback speed (default 1 = real time)")
    sim.add_argument("--fault", action="append", default=[], metavar="SPEC",
                     help="drop=P, flip=P, garbage=P (chances), stall=T+D, unplug=T+D (script seconds); repeatable")
    sim.add_argument("--seed", type=int, default=0, help="seed for the faults (default 0)")
    sim.add_argument("--link", type=Path, default=None, help="path for the device symlink (default: a new temp dir)")
    sim.add_argument("--wait-for-referee", action="store_true",
                     help="start the script only when a referee has connected (the firmware hears its first frame)")
    sim.add_argument("--hold", type=float, default=None,
                     help="exit this many seconds after the script ends (default: run until Ctrl-C or `quit`)")
    sim.set_defaults(func=cmd_simulate_board)

    ref = subparsers.add_parser("referee-serial", help="referee a game read from a serial sensor board")
    ref.add_argument("--port", required=True, help="serial device path or pyserial URL")
    ref.add_argument("--wiring", type=Path, required=True, help="the board's wiring file (docs/wiring.md)")
    ref.add_argument("--setup", choices=("start", "default"), default="start",
                     help="a new game begins from the game's start (default) or its default setup")
    ref.add_argument("--settle", type=float, default=0.6, help="seconds a reading must hold (default 0.6)")
    ref.add_argument("--readings", type=int, default=3, help="readings a view must hold for (default 3)")
    ref.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    ref.add_argument("--json", action="store_true", help="print decisions and board status as JSON lines")
    ref.add_argument("--no-leds", action="store_true", help="do not light the board's LEDs")
    ref.add_argument("--until-over", action="store_true", help="stop when the game is over")
    ref.add_argument("--timeout", type=float, default=None, help="stop after this many seconds")
    ref.add_argument("--journal", type=Path, default=None,
                     help="journal file (default: $TABLEREF_JOURNAL or ~/.local/share/tableref/journal.sqlite3)")
    ref.set_defaults(func=cmd_referee_serial)


def _fail(message: str) -> int:
    print(f"tableref: {message}", file=sys.stderr)
    return 2


# -- simulate-board ------------------------------------------------------------------------------


def cmd_simulate_board(args: argparse.Namespace) -> int:
    try:
        wiring = Wiring.from_file(args.wiring) if args.wiring else Wiring.builtin(args.game)
        faults = FaultPlan.parse(args.fault)
        frames: tuple = ()
        if args.script is not None:
            script = BoardScript.from_file(args.script)
            if script.game != wiring.game:
                return _fail(f"{args.script}: a {script.game} script cannot play on a {wiring.game} board")
            frames = script.frames
        sim = BoardSimulator(wiring, frames=frames, speed=args.speed, faults=faults, link_path=args.link, seed=args.seed,
                             wait_for_host=args.wait_for_referee)
    except (WiringError, BoardScriptError, ValueError) as exc:
        return _fail(str(exc))
    # Stopped by a service manager or a test: leave through `with`, so the pty and the
    # device symlink are cleaned up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with sim:
        print(sim.device_path, flush=True)
        print(f"simulated {wiring.game} board on {sim.pty_name} ({wiring.channel_count} channels); "
              f"`tableref referee-serial --port {sim.device_path} --wiring FILE` to referee it", file=sys.stderr)
        if args.wait_for_referee and frames:
            print("the script starts when a referee connects", file=sys.stderr, flush=True)
        if args.hold is not None:  # a scripted run: stdin is not for us
            sim.finished.wait()
            time.sleep(args.hold)
            return 0
        if _take_commands(sim, wiring):
            return 0
        while True:
            time.sleep(3600)  # stdin has ended: run until Ctrl-C


def _take_commands(sim: BoardSimulator, wiring: Wiring) -> bool:
    """Lines from stdin move pieces or pull the cable; True on ``quit``, False at end of input."""
    pieces: dict[str, str] = {}
    token = OCCUPIED if not wiring.tokens else next(iter(wiring.tokens.values()))
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd, rest = words[0], words[1:]
        if cmd == "quit":
            return True
        if cmd in ("place", "lift") and len(rest) >= 1 and rest[0] in wiring.channels:
            if cmd == "place":
                pieces[rest[0]] = rest[1] if len(rest) > 1 else token
            else:
                pieces.pop(rest[0], None)
            sim.set_view(View(pieces))
        elif cmd == "unplug":
            sim.unplug()
        elif cmd == "replug":
            sim.replug()
        elif cmd == "stall" and len(rest) == 1 and rest[0].replace(".", "", 1).isdigit():
            sim.stall(float(rest[0]))
        else:
            print(f"? {line.strip()!r}: place SPACE [TOKEN] | lift SPACE | unplug | replug | stall SECONDS | quit",
                  file=sys.stderr)
    return False


# -- referee-serial ------------------------------------------------------------------------------------


def cmd_referee_serial(args: argparse.Namespace) -> int:
    try:
        wiring = Wiring.from_file(args.wiring)
        stabiliser = Stabiliser(args.settle, args.readings)
    except (WiringError, ValueError) as exc:
        return _fail(str(exc))
    with Journal(args.journal or default_journal_path(), exclusive=True) as journal:
        # No opponent here (tableref serve with a serial config has one): a computer's game is not resumed.
        referee = Referee.start(journal, wiring.game, fidelity=wiring.fidelity, setup=args.setup, resume=not args.new,
                                computer=False)
        board = SerialBoard(args.port, wiring)

        def show(decision: Decision) -> None:
            print(json.dumps(decision.to_dict()) if args.json else decision.text(), flush=True)
            if not args.no_leds:
                leds = leds_for(decision)
                if leds is not None:
                    board.set_leds({s: v for s, v in leds.items() if s in wiring.channels})
            if args.until_over and decision.kind == "game_over":
                board.close()

        waiting, seen = [], []  # the board away (said once, until it is back); ever connected

        def show_status(status: LinkStatus) -> None:
            if args.json:
                print(json.dumps({"kind": "board", "state": status.state, "port": status.port,
                                  "detail": status.detail}), flush=True)
            else:
                print(f"     {status.text()}", flush=True)
            if status.state in (DISCONNECTED, SILENT) and not waiting:
                waiting.append(status)
                how = "to come back (plug it in again)" if seen else "(is it plugged in, and is this its port?)"
                print(f"tableref: waiting for the board on {status.port} {how}; the game is kept; Ctrl-C to stop",
                      file=sys.stderr, flush=True)
            elif status.state == CONNECTED:
                if waiting and seen:
                    print(f"tableref: the board on {status.port} is back; the game goes on", file=sys.stderr,
                          flush=True)
                waiting.clear()
                seen.append(status)

        answers = TerminalAnswers()  # an ambiguous move is answered on stdin (tableref/cli/answers.py)
        board.subscribe_status(show_status)
        referee.subscribe(show)
        referee.subscribe(answers.on_decision)
        referee.greeting()
        board.start()
        try:
            observations = board.observations()
            if args.timeout is not None:
                observations = _until(observations, time.monotonic() + args.timeout, board)
            play_observations(referee, observations, stabiliser,
                              on_loop=lambda loop: setattr(answers, "submit", loop.submit))
        finally:
            board.close()
        print(f"journal: {journal.path} (game {referee.record.id}; `tableref replay {referee.record.id}`)",
              file=sys.stderr)
    return 0


def _until(observations: Any, deadline: float, board: SerialBoard) -> Any:
    for obs in observations:
        yield obs
        if time.monotonic() >= deadline:
            board.close()
            return


def main(argv: list[str] | None = None) -> int:
    """These two commands alone (``python -m tableref.cli.serial ...``), for tests and scripts."""
    parser = argparse.ArgumentParser(prog="tableref")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
