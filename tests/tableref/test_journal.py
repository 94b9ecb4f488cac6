"""The journal: durable settings, round trips through load(), summaries, resume, tamper
detection, and the exported game record (docs/journal.md)."""

from __future__ import annotations

import json
import os
import random
import sqlite3

import pytest

from rules import Fidelity, get_game
from tableref.journal import SCHEMA_VERSION, Journal, JournalError
from tableref.referee import Referee

GYGES = get_game("gyges")
OPTIONS = GYGES.parse_options({})


@pytest.fixture
def path(tmp_path):
    return tmp_path / "journal.sqlite3"


@pytest.fixture
def journal(path):
    with Journal(path) as j:
        yield j


def play(journal, record, *texts):
    """Record ``texts`` as accepted moves; return the position reached."""
    state = record.state
    for t in texts:
        state = state.apply_text(t)
        journal.record_move(record, t, state)
    return state


def positions(start, *texts):
    out = [start]
    for t in texts:
        out.append(out[-1].apply_text(t))
    return out


def a_won_game(seed=1):
    """Moves (texts) of some complete Gygès game from the default setup."""
    rng = random.Random(seed)
    state, texts = GYGES.default_setup(), []
    while not state.is_game_over():
        moves = state.legal_moves()
        wins = [m for m in moves if state.successor(m).is_game_over()]
        m = wins[0] if wins else rng.choice(moves)
        texts.append(state.move_text(m))
        state = state.successor(m)
    return texts


def sql(path, statement, *args):
    db = sqlite3.connect(path)
    try:
        db.execute(statement, args)
        db.commit()
    finally:
        db.close()


# -- durability -------------------------------------------------------------------------------


def test_wal_and_synchronous_full_are_set(journal, path):
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert journal.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    # WAL is a property of the file: any other connection sees it too.
    other = sqlite3.connect(path)
    try:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        other.close()


def test_every_event_is_committed_when_the_call_returns(journal, path):
    record = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    play(journal, record, "a1-a2")
    assert not journal.db.in_transaction
    # A second connection (another process, after a crash) already sees the move.
    other = sqlite3.connect(path)
    try:
        rows = other.execute("SELECT game_id, seq, kind, move FROM events").fetchall()
    finally:
        other.close()
    assert rows == [(record.id, 0, "move", "a1-a2")]


def test_schema_version_is_recorded_and_checked(path):
    Journal(path).close()
    sql(path, "UPDATE meta SET value='99' WHERE key='schema'")
    with pytest.raises(JournalError) as err:
        Journal(path)
    assert str(path) in str(err.value) and "99" in str(err.value)
    sql(path, "UPDATE meta SET value=? WHERE key='schema'", str(SCHEMA_VERSION))
    Journal(path).close()


# -- round trips ---------------------------------------------------------------------------------


def test_new_game_record_move_undo_finish_round_trip_through_load(journal):
    start = GYGES.default_setup()
    record = journal.new_game(start, OPTIONS, "kind")
    assert record.states == [start] and record.moves == [] and record.next_seq == 0
    play(journal, record, "a1-a2", "f6-f5")
    back = journal.record_undo(record)
    assert back == positions(start, "a1-a2")[-1] == record.state
    play(journal, record, "a6-a5")
    assert record.next_seq == 4  # every event has a number, undos included

    loaded = journal.load(record.id)
    assert loaded.game == "gyges" and loaded.fidelity == "kind" and loaded.options == OPTIONS
    assert loaded.moves == ["a1-a2", "a6-a5"]
    assert loaded.states == positions(start, "a1-a2", "a6-a5")
    assert loaded.next_seq == 4 and not loaded.finished

    journal.finish(record)  # abandoned: finished without an outcome
    assert record.finished and journal.load(record.id).finished
    events = [(seq, kind, move) for seq, kind, move, _ in journal.iter_events(record.id)]
    assert events == [(0, "move", "a1-a2"), (1, "move", "f6-f5"), (2, "undo", None), (3, "move", "a6-a5")]


def test_a_move_that_ends_the_game_finishes_it_and_undo_reopens_it(journal):
    texts = a_won_game()
    record = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    final = play(journal, record, *texts)
    assert final.is_game_over() and record.finished
    summary = journal.games()[0]
    assert summary.finished is not None and summary.outcome == final.outcome().to_dict()
    assert journal.unfinished_game() is None

    journal.record_undo(record)
    assert not record.finished and not record.state.is_game_over()
    summary = journal.games()[0]
    assert summary.finished is None and summary.outcome is None and summary.moves == len(texts) - 1
    assert journal.unfinished_game() == record.id
    assert journal.load(record.id).moves == texts[:-1]


def test_undo_with_nothing_to_take_back_is_refused(journal):
    record = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    with pytest.raises(JournalError, match="nothing to take back"):
        journal.record_undo(record)
    assert list(journal.iter_events(record.id)) == []


def test_a_journal_written_closed_and_reopened_keeps_everything(path):
    start = GYGES.start()
    with Journal(path) as j:
        one = j.new_game(start, OPTIONS, "kind")
        play(j, one, "1@a1", "2@a6", "3@b1")
        j.record_undo(one)
        two = j.new_game(GYGES.default_setup(), OPTIONS, "occupancy")
        play(j, two, "c1-c4")
        j.finish(two)
        before = [j.export(one.id), j.export(two.id)], j.games()
    with Journal(path) as j:
        assert ([j.export(one.id), j.export(two.id)], j.games()) == before
        again = j.load(one.id)
        assert again.moves == ["1@a1", "2@a6"] and again.states == positions(start, "1@a1", "2@a6")
        assert again.next_seq == 4
        # ...and it goes on from where it was: the next event takes the next number.
        play(j, again, "3@b1")
    with Journal(path) as j:
        assert j.load(one.id).moves == ["1@a1", "2@a6", "3@b1"]
        assert [e[0] for e in j.iter_events(one.id)] == [0, 1, 2, 3, 4]


# -- summaries and resume ---------------------------------------------------------------------------


def test_games_summary_counts_moves_minus_undos_and_reports_status(journal):
    a = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    play(journal, a, "a1-a2", "f6-f5", "b1-b2")
    journal.record_undo(a)
    journal.record_undo(a)
    b = journal.new_game(GYGES.default_setup(), OPTIONS, "occupancy")
    play(journal, b, "c1-c4")
    journal.finish(b)  # abandoned
    c = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    final = play(journal, c, *a_won_game())

    ga, gb, gc = journal.games()
    assert (ga.id, ga.game, ga.fidelity, ga.moves, ga.finished, ga.outcome) == (a.id, "gyges", "kind", 1, None, None)
    assert (gb.id, gb.fidelity, gb.moves, gb.outcome) == (b.id, "occupancy", 1, None) and gb.finished is not None
    assert gc.moves == len(c.moves) and gc.finished is not None
    assert gc.outcome == {"winner": final.outcome().winner, "reason": "throne captured", "scores": {}}
    assert ga.created <= gb.created <= gc.created


def test_unfinished_game_is_the_latest_unfinished(journal):
    assert journal.unfinished_game() is None
    ids = [journal.new_game(GYGES.default_setup(), OPTIONS, "kind") for _ in range(4)]
    journal.finish(ids[1])
    journal.finish(ids[3])
    assert journal.unfinished_game() == ids[2].id
    journal.finish(ids[2])
    assert journal.unfinished_game() == ids[0].id
    journal.finish(ids[0])
    assert journal.unfinished_game() is None


def test_referee_resumes_the_latest_unfinished_game_of_the_same_game_and_fidelity(journal):
    start = GYGES.default_setup()
    record = journal.new_game(start, OPTIONS, "kind")
    play(journal, record, "a1-a2")
    ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=start)
    assert ref.record.id == record.id and ref.ply == 1
    # Another fidelity is another game: a new one is started and the old one left alone.
    other = Referee.start(journal, "gyges", fidelity=Fidelity.OCCUPANCY, start=start)
    assert other.record.id != record.id and other.ply == 0
    assert journal.unfinished_game() == other.record.id
    # resume=False always starts afresh.
    fresh = Referee.start(journal, "gyges", fidelity=Fidelity.OCCUPANCY, start=start, resume=False)
    assert fresh.record.id not in (record.id, other.record.id)


def test_a_game_whose_last_move_ended_it_is_not_resumed_even_if_finish_was_lost(journal):
    record = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    play(journal, record, *a_won_game())
    # What the file holds if the process died after the move's commit, before finish()'s.
    journal.db.execute("UPDATE games SET finished=NULL, outcome=NULL WHERE id=?", (record.id,))
    ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=GYGES.default_setup())
    assert not ref.state.is_game_over()


def test_resume_does_not_continue_a_game_with_other_options(journal):
    record = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    play(journal, record, "a1-a2")
    kings = {"variant": "kings"}
    ref = Referee.start(journal, "gyges", options=kings, fidelity=Fidelity.KIND, start=GYGES.default_setup(kings))
    assert ref.record.options["variant"] == "kings"


# -- verification and bad files ----------------------------------------------------------------------


@pytest.fixture
def two_moves(path):
    with Journal(path) as j:
        record = j.new_game(GYGES.default_setup(), OPTIONS, "kind")
        play(j, record, "a1-a2", "f6-f5")
    return record.id


def test_load_detects_a_tampered_position(path, two_moves):
    wrong = GYGES.default_setup().apply_text("a1-b3").to_dict()  # a legal position, but not the recorded one
    sql(path, "UPDATE events SET position=? WHERE game_id=? AND seq=0", json.dumps(wrong), two_moves)
    with Journal(path) as j, pytest.raises(JournalError) as err:
        j.load(two_moves)
    msg = str(err.value)
    assert f"game {two_moves}, event 0" in msg and str(path) in msg and "position" in msg


def test_load_detects_a_tampered_move(path, two_moves):
    # Another legal move: it replays, but not to the position recorded beside it.
    sql(path, "UPDATE events SET move='a1-b3' WHERE game_id=? AND seq=0", two_moves)
    with Journal(path) as j, pytest.raises(JournalError) as err:
        j.load(two_moves)
    assert f"game {two_moves}, event 0" in str(err.value) and "differs" in str(err.value)


def test_load_detects_a_move_that_does_not_replay(path, two_moves):
    sql(path, "UPDATE events SET move='f6-f3' WHERE game_id=? AND seq=1", two_moves)
    with Journal(path) as j, pytest.raises(JournalError) as err:
        j.load(two_moves)
    assert f"game {two_moves}, event 1" in str(err.value) and "'f6-f3' does not replay" in str(err.value)


def test_load_detects_a_missing_event(path, two_moves):
    sql(path, "DELETE FROM events WHERE game_id=? AND seq=0", two_moves)
    with Journal(path) as j, pytest.raises(JournalError, match=f"game {two_moves}, event 1: expected event 0"):
        j.load(two_moves)


def test_load_of_an_unknown_game_names_it(journal):
    with pytest.raises(JournalError, match="no game 7"):
        journal.load(7)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET position='{not json' WHERE seq=1",
        "UPDATE events SET move=NULL WHERE seq=0",
        "UPDATE games SET options='[[[' ",
        "UPDATE games SET start='nope'",
    ],
    ids=["position-not-json", "null-move", "options-not-json", "start-not-json"],
)
def test_load_reports_an_unreadable_column_as_a_journal_error(path, two_moves, statement):
    sql(path, statement)
    with Journal(path) as j, pytest.raises(JournalError, match=f"game {two_moves}"):
        j.load(two_moves)


def test_games_list_reports_an_unreadable_outcome_as_a_journal_error(path, two_moves):
    sql(path, "UPDATE games SET outcome='{{' ")
    with Journal(path) as j, pytest.raises(JournalError, match="outcome"):
        j.games()


@pytest.mark.parametrize("size", [10, 100, 4096, 20000])
def test_a_garbage_file_is_a_journal_error_naming_the_path(path, size):
    path.write_bytes(random.Random(size).randbytes(size))
    with pytest.raises(JournalError) as err:
        Journal(path)
    assert str(path) in str(err.value) and "not a usable journal" in str(err.value)


def test_a_path_that_cannot_be_a_file_is_a_journal_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(JournalError) as err:
        Journal(blocker / "journal.sqlite3")  # its parent is a file
    assert str(blocker) in str(err.value)


def test_closing_twice_is_safe_and_a_closed_journal_says_so(path):
    j = Journal(path)
    j.close()
    j.close()
    with pytest.raises(JournalError, match="closed"):
        j.games()
    with Journal(path) as k:
        pass
    k.close()


# -- export --------------------------------------------------------------------------------------------


def test_export_is_the_documented_game_record(journal):
    start = GYGES.start()
    record = journal.new_game(start, OPTIONS, "kind")
    play(journal, record, "1@a1", "2@a6")
    journal.record_undo(record)
    exported = journal.export(record.id)
    assert list(exported) == ["tableref_game", "game", "options", "fidelity", "start", "moves", "outcome"]
    assert exported == {
        "tableref_game": 1,
        "game": "gyges",
        "options": {"variant": "standard", "south_captures": None, "north_captures": None},
        "fidelity": "kind",
        "start": start.to_dict(),
        "moves": ["1@a1"],  # taken-back moves are not in the record
        "outcome": None,
    }
    assert json.loads(json.dumps(exported)) == exported


def test_an_exported_won_game_replays_from_its_record_alone(journal):
    texts = a_won_game(seed=5)
    record = journal.new_game(GYGES.default_setup(), OPTIONS, "kind")
    final = play(journal, record, *texts)
    exported = json.loads(json.dumps(journal.export(record.id)))
    state = get_game(exported["game"]).from_dict(exported["start"])
    for text in exported["moves"]:
        state = state.apply_text(text)
    assert state == final
    assert exported["outcome"] == final.outcome().to_dict() and exported["outcome"]["winner"] in ("south", "north")


def test_the_sqlite_file_has_the_documented_tables(journal):
    tables = {
        name: [row[1] for row in journal.db.execute(f"PRAGMA table_info({name})")]
        for (name,) in journal.db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
    }
    assert tables == {
        "meta": ["key", "value"],
        "games": ["id", "game", "options", "fidelity", "start", "created", "finished", "outcome"],
        "events": ["game_id", "seq", "kind", "move", "position", "created"],
        # the club hub's (docs/hub.md): what the hub has acknowledged; the players from a pairing
        "hub_outbox": ["game_id", "header", "acked_seq", "acked_end"],
        "game_players": ["game_id", "side", "name", "round"],
        "game_seats": ["game_id", "side", "seat"],  # the sides the computer played
        # moves never seen one by one, with every sequence that reaches the board (issue 24)
        "unseen": ["game_id", "ply", "count", "alternatives", "chosen"],
    }
    with pytest.raises(sqlite3.IntegrityError):
        journal.db.execute("INSERT INTO events VALUES (1, 0, 'redo', NULL, '{}', 0)")
    assert os.path.exists(str(journal.path) + "-wal")
