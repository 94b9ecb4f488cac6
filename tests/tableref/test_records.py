"""Game records (tableref/records.py, docs/records.md): the canonical text round trip for every
game, import into the journal, and every way a record can be wrong, refused with its line."""

from __future__ import annotations

import json
import random

import pytest

from rules import Fidelity, game_names, get_game
from tableref.cli import records as records_cli
from tableref.journal import Journal, JournalError
from tableref.records import (
    RecordError, Record, export_text, import_record, parse_record, read_record, record_from_journal, write_record,
)
from tableref.sources.sample import sample_game

DATE = 1_746_108_202  # 2025-05-01T14:03:22Z


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "journal.sqlite3") as j:
        yield j


def journal_playout(journal: Journal, name: str, seed: int, plies: int, *, setup: str = "start") -> int:
    """Journal a random legal playout (with a takeback on the way) of ``name``; its game id."""
    game = get_game(name)
    options = game.parse_options({})
    state = game.start(options) if setup == "start" else game.default_setup(options)
    record = journal.new_game(state, options, Fidelity.KIND.value)
    rng = random.Random(seed)
    for ply in range(plies):
        moves = state.legal_moves()
        if not moves:
            break
        move = moves[rng.randrange(len(moves))]
        text = state.move_text(move)
        state = state.successor(move)
        journal.record_move(record, text, state)
        if ply == 3:
            state = journal.record_undo(record)  # taken-back moves are not part of the record
    if state.is_game_over():
        journal.finish(record, state)
    return record.id


def sample_record() -> Record:
    start, moves = sample_game()
    texts, state = [], start
    for m in moves:
        texts.append(state.move_text(m))
        state = state.successor(m)
    options = get_game("gyges").parse_options({})
    return Record.replay(start, options, Fidelity.KIND, texts, DATE)


SAMPLE = write_record(sample_record())


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def edited(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def refused(text: str, **kw) -> RecordError:
    with pytest.raises(RecordError) as info:
        parse_record(text, where="game.txt", **kw)
    return info.value


# -- the round trip -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", game_names())
def test_export_import_export_is_byte_identical_for_every_game(journal, name):
    first_id = journal_playout(journal, name, seed=7, plies=30)
    first = export_text(journal, first_id)
    record = parse_record(first, where="first.txt", game=name)
    second_id = import_record(journal, record)
    assert second_id != first_id
    assert export_text(journal, second_id) == first
    # and what was imported replays to the same game, position by position
    original, imported = journal.load(first_id), journal.load(second_id)
    assert imported.moves == original.moves
    assert imported.states == original.states
    assert imported.options == original.options and imported.fidelity == original.fidelity
    assert imported.finished  # never resumed as the live game


def test_a_finished_game_round_trips_with_its_result_and_date(journal):
    record = parse_record(SAMPLE, where="sample.txt")
    assert record.outcome is not None and record.outcome.winner == "south"
    assert "Result: south wins (throne captured)" in SAMPLE
    assert "Date: 2025-05-01T14:03:22Z" in SAMPLE
    assert lines_of(SAMPLE)[-1] == "End" and SAMPLE.endswith("End\n")
    game_id = import_record(journal, record)
    assert export_text(journal, game_id) == SAMPLE
    summary = journal.summary(game_id)
    assert summary.created == DATE and summary.outcome["winner"] == "south"
    assert journal.export(game_id)["moves"] == list(record.moves)


def test_a_game_from_a_custom_position_records_the_position(journal):
    game = get_game("gyges")
    start = game.default_setup(game.parse_options({})).apply_text("a1-a2")
    rec = Record.replay(start, game.parse_options({}), Fidelity.OCCUPANCY, ["f6-f5"], DATE)
    text = write_record(rec)
    start_line = next(line for line in lines_of(text) if line.startswith("Start: "))
    assert json.loads(start_line[len("Start: "):]) == start.to_dict()
    again = parse_record(text)
    assert again.start == start and again.fidelity is Fidelity.OCCUPANCY
    assert write_record(again) == text
    assert "Start: default" in write_record(Record.replay(game.default_setup({}), game.parse_options({}),
                                                          Fidelity.KIND, [], DATE))


def test_drift_records_its_players_and_moves_with_spaces(journal):
    game_id = journal_playout(journal, "drift", seed=3, plies=25, setup="default")
    text = export_text(journal, game_id)
    assert "Players: red, blue, green" in text
    assert any(" " in line.split(". ", 1)[1] for line in lines_of(text) if line[:1].isdigit())
    assert write_record(parse_record(text)) == text


def test_comments_and_blank_lines_are_ignored_and_the_text_stays_canonical():
    noisy = SAMPLE.replace("Moves: ", "# a note\n\nMoves: ").replace("\n1. ", "\n\n# the game\n1. ") + "\n# after\n"
    assert write_record(parse_record(noisy)) == SAMPLE


def test_a_non_canonical_but_readable_header_order_is_accepted():
    lines = lines_of(SAMPLE)
    header = lines[2:12]
    shuffled = "\n".join([lines[0], lines[1], *reversed(header[1:]), header[0], *lines[12:]]) + "\n"
    assert write_record(parse_record(shuffled)) == SAMPLE


# -- refused, with the line that is wrong -------------------------------------------------------


def line_no(text: str, start: str) -> int:
    return next(i for i, line in enumerate(lines_of(text), start=1) if line.startswith(start))


def test_an_illegal_move_is_refused_with_its_line():
    bad = edited(SAMPLE, "\n14. ", "\n14. a1-a1\n#")
    err = refused(bad)
    assert err.line == line_no(bad, "14. ")
    assert f"game.txt:{err.line}: move 14 'a1-a1'" in str(err)


def test_an_unreadable_move_is_refused_with_its_line():
    bad = edited(SAMPLE, "\n3. 3@c1", "\n3. zz9?")
    err = refused(bad)
    assert err.line == line_no(bad, "3. ") and "move 3 'zz9?'" in str(err)


def test_a_move_after_the_game_is_over_is_refused():
    bad = SAMPLE.replace("Moves: 35", "Moves: 36").replace("\nEnd\n", "\n36. a1-a2\nEnd\n")
    err = refused(bad)
    assert err.line == line_no(bad, "36. ") and "already over" in str(err)


@pytest.mark.parametrize("cut", ["mid-header", "after-header", "mid-move", "before-end"])
def test_a_truncated_record_is_refused_as_truncated(cut):
    lines = lines_of(SAMPLE)
    text = {
        "mid-header": "\n".join(lines[:6]) + "\n",
        "after-header": "\n".join(lines[:12]) + "\n",
        "mid-move": SAMPLE[: SAMPLE.index("\n20. ") + 6],  # "20. c" — cut inside the notation
        "before-end": "\n".join(lines[:-1]) + "\n",
    }[cut]
    err = refused(text)
    assert "truncated" in str(err)
    assert err.line == max(i for i, line in enumerate(lines_of(text), start=1) if line.strip())  # where it stops


def test_a_record_of_another_game_than_expected_is_refused_on_its_game_line(journal):
    game_id = journal_playout(journal, "annelids", seed=1, plies=6)
    text = export_text(journal, game_id)
    err = refused(text, game="gyges")
    assert err.line == line_no(text, "Game: ")
    assert "record of annelids, expected a record of gyges" in str(err)


@pytest.mark.parametrize("old,new,key,says", [
    ("Format: tableref-record 1", "Format: tableref-record 2", "Format:", "reads version 1"),
    ("Game: gyges", "Game: chess", "Game:", "unknown game 'chess'"),
    ('"variant": "standard"', '"variant": "queens"', "Options:", "variant"),
    ('Options: {', 'Options: {"colour": 1, ', "Options:", "unknown option 'colour'"),
    ('Options: {', 'Options: [', "Options:", "JSON object"),
    ("Fidelity: kind", "Fidelity: smell", "Fidelity:", "unknown fidelity"),
    ("Start: start", 'Start: {"game": "gyges"}', "Start:", ""),
    ("Players: south, north", "Players: north, south", "Players:", "expected 'south, north'"),
    ("Date: 2025-05-01T14:03:22Z", "Date: yesterday", "Date:", "UTC time"),
    ("Result: south wins (throne captured)", "Result: north wins (throne captured)", "Result:", "the moves give"),
    ("Scores: none", "Scores: south 3", "Scores:", "the moves give 'none'"),
    ("Moves: 35", "Moves: many", "Moves:", "number of moves"),
], ids=["format", "game", "option-value", "option-unknown", "options-json", "fidelity", "start", "players", "date",
        "result", "scores", "moves"])
def test_every_header_field_is_checked_on_its_line(old, new, key, says):
    bad = edited(SAMPLE, old, new)
    err = refused(bad)
    assert err.line == line_no(bad, key), str(err)
    assert says in str(err)


def test_the_move_count_must_match_the_move_lines():
    bad = edited(SAMPLE, "Moves: 35", "Moves: 34")
    err = refused(bad)
    assert err.line == line_no(bad, "35. ") and "header says 34 moves" in str(err)
    bad = edited(SAMPLE, "Moves: 35", "Moves: 36")
    err = refused(bad)
    assert err.line == line_no(bad, "End") and "header says 36" in str(err)


@pytest.mark.parametrize("bad,line_start,says", [
    (SAMPLE.replace("\n7. ", "\n8. ", 1), "8. ", "expected move 7, got move 8"),
    (SAMPLE + "36. a1-a2\n", "36. ", "after the 'End' line"),
    (SAMPLE.replace("Game: gyges\n", "Game: gyges\nGame:  gyges\n"), "Game:  gyges", "given twice"),
    (SAMPLE.replace("Scores: none\n", "Score: none\n"), "Score:", "expected a header line"),
    (SAMPLE.replace("Game: gyges\n", ""), "1. ", "'Game' missing"),
    (SAMPLE.replace("\n5. ", "\nfive: "), "five", "expected a move line"),
], ids=["numbering", "after-end", "twice", "unknown-key", "missing-key", "not-a-move"])
def test_structural_faults_name_their_line(bad, line_start, says):
    err = refused(bad)
    assert says in str(err)
    assert err.line == line_no(bad, line_start)


def test_not_a_record_at_all():
    assert "not a tableref game record" in str(refused(""))
    assert "not a tableref game record" in str(refused(json.dumps({"tableref_game": 1})))


def test_an_unreadable_file_names_the_file(tmp_path):
    with pytest.raises(RecordError, match="missing.txt: cannot read game record"):
        read_record(tmp_path / "missing.txt")
    latin = tmp_path / "latin.txt"
    latin.write_bytes(SAMPLE.replace("Scores: none", "Scores: \xe9").encode("latin-1"))
    with pytest.raises(RecordError, match="latin.txt: not UTF-8"):
        read_record(latin)


def test_a_failed_import_writes_nothing(journal):
    record = sample_record()
    before = journal.games()
    with pytest.raises(JournalError, match="move 13 'a1-a1' does not replay"):
        journal.import_game(record.start, record.options, "kind", [*record.moves[:12], "a1-a1"], created=DATE)
    assert journal.games() == before


def test_record_from_journal_leaves_taken_back_moves_out(journal):
    game_id = journal_playout(journal, "gyges", seed=5, plies=10)
    rec = record_from_journal(journal, game_id)
    assert list(rec.moves) == journal.load(game_id).moves and len(rec.moves) == 9


# -- the commands ---------------------------------------------------------------------------------


def test_export_and_import_commands(journal, tmp_path, capsys):
    game_id = journal_playout(journal, "gyges", seed=2, plies=16)
    path = str(journal.path)
    assert records_cli.main(["export", str(game_id), "--journal", path]) == 0
    text = capsys.readouterr().out
    assert text == export_text(journal, game_id)
    assert records_cli.main(["export", str(game_id), "--json", "--journal", path]) == 0
    assert json.loads(capsys.readouterr().out) == journal.export(game_id)

    file = tmp_path / "game.txt"
    file.write_text(text, encoding="utf-8")
    assert records_cli.main(["import", str(file), "--journal", path, "--game", "gyges"]) == 0
    out = capsys.readouterr().out
    new_id = journal.games()[-1].id
    assert f"as game {new_id}" in out and "gyges, 15 moves, unfinished" in out
    assert export_text(journal, new_id).splitlines()[2:] == text.splitlines()[2:]

    file.write_text(edited(text, "\n4. ", "\n4. f6-f1\n#"), encoding="utf-8")
    count = len(journal.games())
    assert records_cli.main(["import", str(file), "--journal", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tableref: {file}:{line_no(file.read_text(), '4. ')}: move 4 'f6-f1'")
    assert len(journal.games()) == count
    assert records_cli.main(["export", "99", "--journal", path]) == 2
    assert "no game 99" in capsys.readouterr().err


def test_commands_take_the_journal_from_a_config_file(tmp_path, capsys):
    data = tmp_path / "data"
    config = tmp_path / "tableref.toml"
    config.write_text(f'[game]\nname = "gyges"\n[data]\ndir = "{data}"\n', encoding="utf-8")
    file = tmp_path / "sample.txt"
    file.write_text(SAMPLE, encoding="utf-8")
    assert records_cli.main(["import", str(file), "--config", str(config)]) == 0
    assert (data / "journal.sqlite3").exists()
    capsys.readouterr()
    assert records_cli.main(["export", "1", "--config", str(config)]) == 0
    assert capsys.readouterr().out == SAMPLE
