"""Both game-record formats, both importers (issue 33, item 5): `tableref import` takes the JSON
record the page downloads (and `export --json` prints), told apart from the text record by its
content; the JSON one is checked as strictly as on the page."""

from __future__ import annotations

import json
import random

from rules import Fidelity, get_game
from tableref.cli import records as records_cli
from tableref.journal import Journal


def _played(path, plies=12, seed=4):
    gyges = get_game("gyges")
    options = gyges.parse_options({})
    state = gyges.start(options)
    rng = random.Random(seed)
    with Journal(path) as j:
        record = j.new_game(state, options, Fidelity.KIND.value)
        for _ in range(plies):
            move = rng.choice(state.legal_moves())
            text, state = state.move_text(move), state.successor(move)
            j.record_move(record, text, state)
        return record.id, list(record.moves)


def test_import_takes_the_json_record_the_page_downloads(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    game_id, moves = _played(journal)
    assert records_cli.main(["export", str(game_id), "--json", "--journal", str(journal)]) == 0
    file = tmp_path / "tableref-game-1.json"
    file.write_text(capsys.readouterr().out, encoding="utf-8")
    assert records_cli.main(["import", str(file), "--journal", str(journal), "--game", "gyges"]) == 0
    assert capsys.readouterr().out == (f"imported {file} as game 2 in {journal}: gyges, {len(moves)} moves, "
                                       "unfinished\n")
    with Journal(journal) as j:
        assert j.load(2).moves == moves and j.load(2).finished  # never resumed as the live game


def test_a_json_record_is_refused_in_one_line_naming_file_and_fault(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    game_id, _ = _played(journal)
    with Journal(journal) as j:
        data = j.export(game_id)
    cases = [
        ({**data, "moves": [*data["moves"], "a1-a9"]}, "game record: move 13 ('a1-a9')"),
        ({**data, "movez": []}, "unknown key 'movez'"),
    ]
    file = tmp_path / "bad.json"
    for bad, message in cases:
        file.write_text(json.dumps(bad), encoding="utf-8")
        assert records_cli.main(["import", str(file), "--journal", str(journal)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"tableref: {file}: ") and message in err and len(err.splitlines()) == 1, err
    file.write_text('{"tableref_game": 1,\n "game": }', encoding="utf-8")
    assert records_cli.main(["import", str(file), "--journal", str(journal)]) == 2
    assert capsys.readouterr().err.startswith(f"tableref: {file}: line 2: not valid JSON")
    file.write_text(json.dumps(data), encoding="utf-8")
    assert records_cli.main(["import", str(file), "--journal", str(journal), "--game", "anacund"]) == 2
    assert "a gyges game, not anacund (--game)" in capsys.readouterr().err
    with Journal(journal) as j:
        assert len(j.games()) == 1  # nothing written
