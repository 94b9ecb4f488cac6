"""``tableref export`` and ``tableref import``: game records in and out of the journal.

    tableref export GAME_ID [--json] [--journal FILE | --config FILE]
    tableref import FILE [--game NAME] [--journal FILE | --config FILE]

``export`` prints the text record (docs/records.md) by default, or with ``--json`` the JSON
record of docs/journal.md. ``import`` takes either (told apart by content), checks the whole
record before anything is written and journals it as a finished game. Errors print one line ``tableref: FILE:LINE: what`` on
stderr and exit 2. The journal is ``--journal``, else the one the config file names, else the
default (``$TABLEREF_JOURNAL`` or ``~/.local/share/tableref/journal.sqlite3``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rules import RulesError

from ..config import ConfigError, load_config
from ..journal import Journal, JournalError
from ..records import RecordError, export_text, import_record, parse_record, result_text
from ..service import default_journal_path

EXIT_INPUT = 2


def add_parser(subparsers: Any) -> None:
    """Register ``export`` and ``import`` on ``subparsers`` (``func=`` set on each)."""
    export = subparsers.add_parser("export", help="print a journalled game as a game record (text, or --json)",
                                   description="Print a journalled game as a game record (docs/records.md).")
    export.add_argument("game_id", type=int, help="the game's number (`tableref games`)")
    export.add_argument("--json", action="store_true", help="the JSON record of docs/journal.md instead of text")
    _journal_args(export)
    export.set_defaults(func=cmd_export)

    imp = subparsers.add_parser("import", help="check a game record (text or JSON) and add it to the journal",
                                description="Check a game record (docs/records.md) move by move and journal it "
                                            "as a finished game.")
    imp.add_argument("file", type=Path, help="the record: text (.txt) or JSON (the page's download); - reads stdin")
    imp.add_argument("--game", default=None, help="refuse a record of any other game")
    _journal_args(imp)
    imp.set_defaults(func=cmd_import)


def _journal_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--journal", type=Path, default=None,
                   help="journal file (default: the --config file's, else $TABLEREF_JOURNAL or "
                        "~/.local/share/tableref/journal.sqlite3)")
    p.add_argument("--config", type=Path, default=None, help="use the journal this config file names")


def _journal_path(args: argparse.Namespace) -> Path:
    if args.journal is not None:
        return args.journal
    if args.config is not None:
        return load_config(args.config).journal_path
    return default_journal_path()


def _fail(message: object) -> int:
    print(f"tableref: {message}", file=sys.stderr)
    return EXIT_INPUT


def cmd_export(args: argparse.Namespace) -> int:
    try:
        with Journal(_journal_path(args)) as journal:
            out = json.dumps(journal.export(args.game_id), indent=1) + "\n" if args.json \
                else export_text(journal, args.game_id)
    except (ConfigError, JournalError, RulesError) as exc:
        return _fail(exc)
    sys.stdout.write(out)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    try:
        if str(args.file) == "-":
            text, where = sys.stdin.read(), "<stdin>"
        else:
            text, where = _read_text(args.file), str(args.file)
        if looks_like_json(text):  # the page's download, or `export --json`: told apart by content
            return _import_json(args, text, where)
        record = parse_record(text, where=where, game=args.game)
        with Journal(_journal_path(args)) as journal:
            game_id = import_record(journal, record)
            path = journal.path
    except (RecordError, ConfigError, JournalError, RulesError) as exc:
        return _fail(exc)
    print(f"imported {args.file} as game {game_id} in {path}: {record.game}, {len(record.moves)} moves, "
          f"{result_text(record.final)}")
    return 0


def looks_like_json(text: str) -> bool:
    """A JSON record is an object; a text record starts with a comment or ``Format:``."""
    return text.lstrip("\ufeff \t\r\n").startswith("{")


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(str(path), None, f"cannot read game record: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise RecordError(str(path), None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _import_json(args: argparse.Namespace, text: str, where: str) -> int:
    """The JSON record (docs/journal.md), checked by the page's own importer (web/records.py)."""
    from rules import get_game
    from rules.strict import loads
    from web import records as json_records  # the one reader of the JSON record

    try:
        data = loads(text.lstrip("\ufeff"), where=where, error=json_records.RecordError)
        if args.game is not None and isinstance(data, dict) and data.get("game") != get_game(args.game).name:
            raise json_records.RecordError(f"game record: a {data.get('game')} game, not {args.game} (--game)")
        with Journal(_journal_path(args)) as journal:
            game_id = json_records.import_record(journal, data)
            stored, path = journal.load(game_id), journal.path
    except json_records.RecordError as exc:
        message = str(exc)
        return _fail(message if message.startswith(where) else f"{where}: {message}")
    except (ConfigError, JournalError, RulesError) as exc:
        return _fail(exc)
    print(f"imported {args.file} as game {game_id} in {path}: {stored.game}, {len(stored.moves)} moves, "
          f"{result_text(stored.state)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m tableref.cli.records export|import ...``: the command on its own."""
    parser = argparse.ArgumentParser(prog="tableref")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
