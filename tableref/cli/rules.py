"""``tableref rules ...``: the rules engine from the command line, for scripts.

A stable contract (see ``docs/cli.md``): every command prints JSON or plain lines on
stdout and exits 0; malformed input prints one line ``tableref: WHERE: WHAT`` on stderr
and exits 2 (never a traceback). WHERE is the file name as given (``<stdin>`` for ``-``)
or the offending option (``--game``, ``--option``, ``--fidelity``, ``--setup``).

    tableref rules games
    tableref rules start --game NAME [--option KEY=VALUE ...] [--setup start|default]
    tableref rules successors --position FILE
    tableref rules moves --position FILE [--describe]
    tableref rules explain --position FILE --observed FILE [--fidelity occupancy|kind|identity]

``tableref/cli/__init__.py`` calls :func:`add_parser` with its sub-parsers and then
``args.func(args)``; :func:`main` builds a parser holding only this group, for tests and
``python -m tableref.cli.rules rules ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from typing import Any, TextIO

import rules
from rules import Fidelity, Game, State, View
from rules.strict import refuse_duplicates

EXIT_OK = 0
EXIT_INPUT = 2  # malformed input or usage
EXIT_PIPE = 141  # stdout closed early (128 + SIGPIPE), e.g. piped into `head`
EXIT_INTERRUPTED = 130

SETUPS = ("start", "default")
OBSERVED_KEYS = ("view", "unreadable", "fidelity")


class InputError(Exception):
    """Malformed input: ``where`` (a file name or an option) and what is wrong with it."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


# -- argparse ------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``rules`` and its sub-commands on ``subparsers``; leaves get ``func=run``."""
    parser = subparsers.add_parser(
        "rules",
        help="query the rules engine: games, start positions, moves, explain a board",
        description="Query the rules engine. Output is JSON or plain lines; exit 0, or 2 on malformed input.",
    )
    sub = parser.add_subparsers(dest="rules_command", metavar="COMMAND", required=True)

    p = sub.add_parser("games", help="the registered games, one per line")
    p.set_defaults(func=run)

    p = sub.add_parser("start", help="a starting position as one line of JSON")
    p.add_argument("--game", dest="rules_game", metavar="NAME", required=True, help="the game (see `rules games`)")
    p.add_argument(
        "--option", dest="rules_options", metavar="KEY=VALUE", action="append", default=[],
        help="a game option; repeatable (gyges: variant=standard|kings, south_captures=N, north_captures=N)",
    )
    p.add_argument(
        "--setup", dest="rules_setup", metavar="{start,default}", default="start",
        help="start: where setup begins (default); default: the game's documented ready-to-play position",
    )
    p.set_defaults(func=run)

    for name, text in (
        ("successors", "every legal move and the position it leads to, one JSON object per line"),
        ("moves", "the legal moves' notation, one per line"),
    ):
        p = sub.add_parser(name, help=text)
        _position_arg(p)
        if name == "moves":
            p.add_argument(
                "--describe", dest="rules_describe", action="store_true",
                help="print a description after each move, separated by a tab",
            )
        p.set_defaults(func=run)

    p = sub.add_parser("explain", help="which legal move(s) turned the position into the observed board")
    _position_arg(p)
    p.add_argument(
        "--observed", dest="rules_observed", metavar="FILE", required=True,
        help="what the sensors read: JSON space -> token(s), or {\"view\": ..., \"unreadable\": [...], \"fidelity\": ...}"
        " ('-' for stdin)",
    )
    p.add_argument(
        "--fidelity", dest="rules_fidelity", metavar="{occupancy,kind,identity}", default=None,
        help="how much the sensors tell apart (default: the observed file's, else kind)",
    )
    p.set_defaults(func=run)
    return parser


def _position_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--position", dest="rules_position", metavar="FILE", required=True,
        help="a position file (the JSON `rules start` prints; '-' for stdin); its \"game\" field names the game",
    )


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run one ``rules`` sub-command; returns the exit status (0, or 2 on malformed input).

    ``out``/``err`` default to ``sys.stdout``/``sys.stderr`` as they are at call time."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    command = getattr(args, "rules_command", None)
    handler = _COMMANDS.get(command)
    try:
        if handler is None:
            raise InputError("rules", f"unknown command {command!r} (expected one of: {', '.join(_COMMANDS)})")
        handler(args, out)
        out.flush()
    except InputError as exc:
        err.write(f"tableref: {_one_line(str(exc))}\n")
        return EXIT_INPUT
    except BrokenPipeError:
        _silence_stdout(out)
        return EXIT_PIPE
    except KeyboardInterrupt:
        err.write("tableref: interrupted\n")
        return EXIT_INTERRUPTED
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """``tableref rules ...`` on its own: ``main(["rules", "games"])``."""
    parser = argparse.ArgumentParser(prog="tableref", description="tableref (rules commands only)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_parser(subparsers)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage errors (2) and --help (0)
        return exc.code if isinstance(exc.code, int) else EXIT_INPUT
    return args.func(args)


# -- the commands ------------------------------------------------------------------------------


def _cmd_games(args: argparse.Namespace, out: TextIO) -> None:
    for name in rules.game_names():
        out.write(name + "\n")


def _cmd_start(args: argparse.Namespace, out: TextIO) -> None:
    game = _game(args.rules_game, "--game")
    setup = args.rules_setup
    if setup not in SETUPS:
        raise InputError("--setup", f"unknown setup {setup!r} (expected one of: {', '.join(SETUPS)})")
    try:
        options = game.parse_options(args.rules_options)
        state = game.default_setup(options) if setup == "default" else game.start(options)
    except ValueError as exc:
        raise InputError("--option", str(exc)) from None
    _write_json(out, state.to_dict())


def _cmd_successors(args: argparse.Namespace, out: TextIO) -> None:
    where, state = _load_position(args.rules_position)
    for move in _legal_moves(state, where):
        try:
            line = {"move": state.move_text(move), "position": state.successor(move).to_dict()}
        except ValueError as exc:
            raise InputError(where, str(exc)) from None
        _write_json(out, line)


def _cmd_moves(args: argparse.Namespace, out: TextIO) -> None:
    where, state = _load_position(args.rules_position)
    for move in _legal_moves(state, where):
        try:
            text = state.move_text(move)
            if args.rules_describe:
                text += "\t" + _one_line(state.describe_move(move))
        except ValueError as exc:
            raise InputError(where, str(exc)) from None
        out.write(text + "\n")


def _cmd_explain(args: argparse.Namespace, out: TextIO) -> None:
    if args.rules_position == "-" and args.rules_observed == "-":
        raise InputError("--observed", "only one of --position and --observed can be '-' (stdin)")
    where, state = _load_position(args.rules_position)
    game = rules.get_game(state.game_name)
    observed_where, view, unreadable, file_fidelity = _load_observed(args.rules_observed, game)
    if args.rules_fidelity is not None:
        fidelity = _fidelity(args.rules_fidelity, "--fidelity")
    elif file_fidelity is not None:
        fidelity = file_fidelity
    else:
        fidelity = Fidelity.KIND
    try:
        explanation = rules.explain(state, view, fidelity, unreadable=unreadable)
    except ValueError as exc:
        raise InputError(where, str(exc)) from None
    result = explanation.to_dict()
    result["fidelity"] = fidelity.value
    _write_json(out, result)


_COMMANDS = {
    "games": _cmd_games,
    "start": _cmd_start,
    "successors": _cmd_successors,
    "moves": _cmd_moves,
    "explain": _cmd_explain,
}


# -- input -------------------------------------------------------------------------------------


def _game(name: str, where: str) -> Game:
    try:
        # On the command line a game may be named by its title too (Gygès); in a file, by its name.
        return rules.get_game(rules.game_named(name) if where == "--game" else name)
    except ValueError as exc:
        raise InputError(where, str(exc)) from None


def _fidelity(text: object, where: str) -> Fidelity:
    if not isinstance(text, str):
        raise InputError(where, f"fidelity must be a string (occupancy, kind or identity), not {text!r}")
    try:
        return Fidelity.parse(text)
    except ValueError as exc:
        raise InputError(where, str(exc)) from None


def _load_position(path: str) -> tuple[str, State]:
    """The position in ``path`` ('-' for stdin) as (name for messages, state)."""
    where, data = _read_json(path)
    if not isinstance(data, Mapping):
        raise InputError(where, f"position: expected a JSON object, got {_json_type(data)}")
    if "game" not in data:
        raise InputError(where, f"position: no 'game' field (known games: {', '.join(rules.game_names())})")
    name = data["game"]
    if not isinstance(name, str):
        raise InputError(where, f"position: 'game' must be a string, not {name!r}")
    game = _game(name, where)
    try:
        return where, game.from_dict(data)
    except ValueError as exc:
        raise InputError(where, str(exc)) from None


def _legal_moves(state: State, where: str) -> tuple:
    try:
        return tuple(state.legal_moves())
    except ValueError as exc:  # e.g. a position the rules accept but cannot play on
        raise InputError(where, str(exc)) from None


def _load_observed(path: str, game: Game) -> tuple[str, View, frozenset[str], Fidelity | None]:
    """The observed file: (name for messages, view, unreadable spaces, its fidelity or None)."""
    where, data = _read_json(path)
    if not isinstance(data, Mapping):
        raise InputError(where, f"observed: expected a JSON object, got {_json_type(data)}")
    board = game.board()
    fidelity: Fidelity | None = None
    unreadable: frozenset[str] = frozenset()
    if "view" in data:
        extra = [k for k in data if k not in OBSERVED_KEYS]
        if extra:
            raise InputError(
                where, f"observed: unknown key {extra[0]!r} (expected only: {', '.join(OBSERVED_KEYS)})"
            )
        raw_view = data["view"]
        if "fidelity" in data:
            try:
                fidelity = _fidelity(data["fidelity"], where)
            except InputError as exc:
                raise InputError(where, f"observed: 'fidelity': {exc.message}") from None
        raw_unreadable = data.get("unreadable", [])
        if not isinstance(raw_unreadable, list) or not all(isinstance(s, str) for s in raw_unreadable):
            raise InputError(where, "observed: 'unreadable' must be a list of space ids")
        for space in raw_unreadable:
            if not board.has_space(space):
                raise InputError(where, f"observed: 'unreadable': no space {space!r} on the {game.name} board")
        unreadable = frozenset(raw_unreadable)
        label = "observed: 'view'"
    elif "game" in data and not board.has_space("game"):
        raise InputError(where, "observed: this is a position file (it has a 'game' field); expected space -> token(s)")
    else:
        raw_view = data
        label = "observed"
    try:
        view = View.from_dict(raw_view, where=label)
    except ValueError as exc:
        raise InputError(where, str(exc)) from None
    for space in raw_view:
        if not board.has_space(space):
            raise InputError(where, f"{label}: no space {space!r} on the {game.name} board")
    return where, view, unreadable, fidelity


def _read_json(path: str) -> tuple[str, Any]:
    """Read and parse a JSON file ('-' for stdin); returns (name for messages, data)."""
    where = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8-sig") as f:
                text = f.read()
    except UnicodeDecodeError as exc:
        raise InputError(where, f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError(where, f"cannot read: {exc.strerror or exc}") from None
    if not text.strip():
        raise InputError(where, "empty file, expected JSON")
    try:
        return where, json.loads(text, object_pairs_hook=refuse_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(where, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except ValueError as exc:  # from the hooks, or an integer too long to convert
        raise InputError(where, f"not valid JSON: {exc}") from None
    except RecursionError:
        raise InputError(where, "not valid JSON: nested too deeply") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    return "a number"


# -- output ------------------------------------------------------------------------------------


def _write_json(out: TextIO, data: Any) -> None:
    out.write(json.dumps(data, ensure_ascii=False) + "\n")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _silence_stdout(out: TextIO) -> None:
    """After a closed pipe, point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        fd = out.fileno()
    except (OSError, ValueError, AttributeError):
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
