"""``tableref`` — the command line. ``tableref --help`` lists the commands; docs/cli.md
documents the ``rules`` group, whose output scripts rely on."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from importlib import resources
from pathlib import Path

from hardware import cli as gpio_cli
from rules import RulesError, game_named

from .. import clock_journal, serve
from ..clock import clock_text
from ..hub import cli as hub_cli
from ..journal import Journal, JournalError
from ..referee import Referee
from ..service import default_journal_path, play_observations
from ..sources.sim import BoardScript, BoardScriptError, SimulatedBoard
from ..stabiliser import Stabiliser

SAMPLE_SCRIPT = "sample_gyges.jsonl"


def _journal_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--journal", type=Path, default=None,
                   help="journal file (default: $TABLEREF_JOURNAL or ~/.local/share/tableref/journal.sqlite3)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tableref", description="Referee physical board games.")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="referee a game from the simulated board (a board script)")
    run.add_argument("--script", type=Path, default=None,
                     help=f"board script to play (default: the built-in {SAMPLE_SCRIPT})")
    run.add_argument("--speed", type=float, default=20.0,
                     help="playback speed: 1 = real time, 0 = as fast as possible (default 20)")
    run.add_argument("--settle", type=float, default=0.6, help="seconds a reading must hold (default 0.6)")
    run.add_argument("--readings", type=int, default=3, help="readings a view must hold for (default 3)")
    run.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    run.add_argument("--json", action="store_true", help="print decisions as JSON lines")
    _journal_arg(run)
    run.set_defaults(func=cmd_run)

    replay = sub.add_parser("replay", help="print a recorded game move by move")
    replay.add_argument("game_id", type=int)
    _journal_arg(replay)
    replay.set_defaults(func=cmd_replay)

    games = sub.add_parser("games", help="list the games in the journal")
    _journal_arg(games)
    games.set_defaults(func=cmd_games)

    # The command modules, imported here rather than with the package, so that
    # ``python -m tableref.cli.serial`` runs its module once.
    from . import config_check, demo_video, records, serial, status, vision
    from . import rules as rules_group  # not to be confused with the rules package

    rules_group.add_parser(sub)
    records.add_parser(sub)
    config_check.add_parser(sub)
    serial.add_parser(sub)
    serve.add_parser(sub)
    status.add_parser(sub)
    vision.add_parser(sub)
    demo_video.add_parser(sub)
    gpio_cli.add_parser(sub)
    hub_cli.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _name_games(args)
        return args.func(args)
    except (RulesError, JournalError, BoardScriptError) as exc:
        print(f"tableref: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _name_games(args: argparse.Namespace) -> None:
    """Every command's ``--game`` as the registered name, whether it was given by name or by
    title, in any case, with or without accents (``Gygès``); an unknown one is refused here, once,
    with the games there are (UnknownGameError, a RulesError: one line, exit 2)."""
    for dest in ("game", "rules_game"):
        given = getattr(args, dest, None)
        if isinstance(given, str):
            try:
                setattr(args, dest, game_named(given))
            except RulesError as exc:
                raise RulesError(f"--game: {exc}") from None


def _open_journal(args: argparse.Namespace, *, exclusive: bool = False) -> Journal:
    return Journal(args.journal or default_journal_path(), exclusive=exclusive)


def cmd_run(args: argparse.Namespace) -> int:
    if args.script is None:
        text = (resources.files("tableref") / "data" / SAMPLE_SCRIPT).read_text(encoding="utf-8")
        script = BoardScript.parse(text, where=SAMPLE_SCRIPT)
    else:
        script = BoardScript.from_file(args.script)
    stabiliser = Stabiliser(args.settle, args.readings)  # validates before anything is opened
    with _open_journal(args, exclusive=True) as journal:
        referee = Referee.start(
            journal,
            script.game,
            options=script.options,
            fidelity=script.fidelity,
            start=script.start_state(),
            resume=not args.new,
            computer=False,  # a recording plays both sides: a game the computer plays is not resumed
        )
        board = SimulatedBoard(script, speed=args.speed)
        start = script.start_state()
        other_start = start is not None and referee.record.states[0] != start
        if referee.ply > 0 or other_start:
            # The physical board kept its position while we were down: pick up from there.
            history = [s.view(script.fidelity) for s in referee.record.states]
            if other_start or not board.skip_past(history, Stabiliser(args.settle, args.readings)):
                # Not this script's game (one played on the page, say): playing the script from
                # its start onto it would only be refused, board after board. Nothing written yet.
                game_id = referee.record.id
                why = "starts from another position" if other_start else "never shows its position"
                print(f"tableref: {script.game} game {game_id} is unfinished at move {referee.ply}, and "
                      f"{args.script or SAMPLE_SCRIPT} {why}, so it cannot go on with it: "
                      f"`tableref run --new` starts a new game from the script (game {game_id} is kept as "
                      "it is)", file=sys.stderr)
                return 2
        played, gone = [], []

        def show(decision) -> None:
            if decision.to_dict()["kind"] in _PLAYED:
                played.append(decision)
            if gone:
                return
            line = json.dumps(decision.to_dict()) if args.json else decision.text()
            try:
                print(line, flush=True)
            except BrokenPipeError:  # `tableref run | head`: the reader left; the game is still journalled
                gone.append(True)
                _stdout_to_devnull()

        referee.subscribe(show)
        referee.greeting()
        play_observations(referee, board.observations(), stabiliser)
        print(f"journal: {journal.path} (game {referee.record.id}; `tableref replay {referee.record.id}`)",
              file=sys.stderr)
    if gone:
        return 141  # as the rules group: stdout closed early, nothing more said
    if not played:
        print(f"tableref: nothing was played: no board of {args.script or SAMPLE_SCRIPT} was a move of game "
              f"{referee.record.id} (each was refused, or the script ends where the game stood)", file=sys.stderr)
        return 1
    return 0


def _stdout_to_devnull() -> None:
    """After a broken pipe: what is still buffered, and Python's flush at exit, go nowhere
    instead of raising again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file (a test's): nothing will flush it at exit


# Decisions that move the game on: a run that publishes none of them has played nothing.
_PLAYED = frozenset({"accepted", "taken_back", "game_over"})


def cmd_replay(args: argparse.Namespace) -> int:
    with _open_journal(args) as journal:
        record = journal.load(args.game_id)
        print(f"game {record.id}: {record.game} ({record.fidelity} sensing), {len(record.moves)} moves")
        for side, level in record.seats.computers.items():
            print(f"     {side}: the computer, level {level}")
        state = record.states[0]
        unseen = {g.ply: g for g in record.unseen}
        control = clock_journal.control_of(journal, record.id)  # the game clock's times (docs/clock.md)
        times = clock_journal.move_times(journal, record.id) if control else []
        if control:
            print(f"     clock: {control}")
        for ply, text in enumerate(record.moves, start=1):
            group = unseen.get(ply - 1)
            if group is not None:
                how = "not yet chosen" if group.is_open else "as the players chose"
                print(f"     moves {ply}-{ply + group.count - 1} never seen one by one ({how}); any of: "
                      + "; ".join(group.alternatives))
            move = state.parse_move(text)
            by = " (the computer)" if record.seats.is_computer(state.to_move) else ""
            left = times[ply - 1] if ply - 1 < len(times) else None
            clock = "  [" + " ".join(f"{s} {clock_text(t)}" for s, t in left.items()) + "]" if left else ""
            print(f"{ply:3d}. {text:<10} {state.describe_move(move)}{by}{clock}")
            state = state.successor(move)
        outcome = state.outcome()
        stored = journal.summary(record.id).outcome if outcome is None and record.finished else None
        if outcome is not None:
            print(f"result: {'draw' if outcome.winner is None else outcome.winner + ' wins'} ({outcome.reason})")
        elif stored:  # a result the board did not give: lost on time
            won = f"{stored['winner']} wins" if stored.get("winner") else "no winner named"
            print(f"result: {won} ({stored.get('reason')})")
        elif record.finished:
            print("result: abandoned")
        else:
            print("result: in progress")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    with _open_journal(args) as journal:
        for g in journal.games():
            if g.outcome:
                status = f"{g.outcome.get('winner') or 'draw'} won" if g.outcome.get("winner") else "draw"
            else:
                status = "abandoned" if g.finished else "in progress"
            print(f"{g.id}\t{g.game}\t{g.moves} moves\t{status}")
    return 0
