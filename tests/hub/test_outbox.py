"""The journal as the outbox: an older journal gains the hub's tables on open (nothing else
changes); acknowledgements never move backwards; players stored from a pairing resend the header."""

from __future__ import annotations

import sqlite3

from rules import get_game
from tableref.hub.outbox import Outbox
from tableref.hub.protocol import Ack
from tableref.journal import Journal

OLD_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games(id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL, fidelity TEXT NOT NULL,
    start TEXT NOT NULL, created REAL NOT NULL, finished REAL, outcome TEXT);
CREATE TABLE events(game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('move', 'undo')), move TEXT, position TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (game_id, seq));
INSERT INTO meta VALUES ('schema', '1');
"""


def test_an_older_journal_gains_the_hub_tables_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    game = get_game("anacund")
    start = game.default_setup(game.parse_options({}))
    db.close()
    with Journal(path) as j:  # the old file opens; the record is written as ever
        record = j.new_game(start, game.parse_options({}), "kind")
        move = start.legal_moves()[0]
        j.record_move(record, start.move_text(move), start.apply(move))
    outbox = Outbox(path)
    try:
        [c] = outbox.cursors(0)
        assert (c.game, c.last_seq, c.header_acked, c.acked_seq) == (1, 0, False, -1)
        outbox.ack(Ack(1, True, 0))
        outbox.ack(Ack(1, False, -1))  # a stale acknowledgement does not move it back
        [c] = outbox.cursors(0)
        assert (c.header_acked, c.acked_seq) == (True, 0)
        assert outbox.set_players(1, {"A": "Ada", "B": "Bo"}, 1)
        assert not outbox.set_players(1, {"A": "Ada", "B": "Bo"}, 1)  # the same again: nothing to send
        [c] = outbox.cursors(0)
        assert not c.header_acked  # the names go to the hub with the header, again
        assert outbox.header(1).players == {"A": "Ada", "B": "Bo"}
        outbox.ack(Ack(1, True, 0))  # a late acknowledgement of the header without the names
        assert not outbox.cursors(0)[0].header_acked
        outbox.ack(Ack(1, True, 0, None, 1))  # the hub holds round 1's names
        assert outbox.cursors(0)[0].header_acked
    finally:
        outbox.close()
    with Journal(path) as j:
        assert j.load(1).moves == [start.move_text(move)]
        assert j.export(1)["players"] == {"A": "Ada", "B": "Bo"}  # the names are in the board's own record


OLD_HUB_OUTBOX = """
CREATE TABLE hub_outbox(game_id INTEGER PRIMARY KEY REFERENCES games(id), header INTEGER NOT NULL DEFAULT 0,
    acked_seq INTEGER NOT NULL DEFAULT -1, acked_end TEXT);
"""


def test_a_choice_after_a_game_is_all_in_makes_it_due_again(tmp_path):
    """A journal whose hub_outbox predates the unseen message gains its column; a game the hub
    holds whole (earlier than the outbox's low mark) is sent again once the players choose."""
    from rules import Fidelity
    from decisions import ChooseUnseen, StableView
    from tableref.referee import Referee

    path = tmp_path / "j.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA + OLD_HUB_OUTBOX)
    db.close()
    gyges = get_game("gyges")
    shown = gyges.default_setup().apply_text("d1-c1/d5").apply_text("c6-d6/b3")
    with Journal(path) as j:
        ref = Referee.start(j, "gyges", start=gyges.default_setup())
        asked = ref.handle(StableView(shown.view(Fidelity.KIND)))[-1]
        j.finish(ref.record)
        Referee.start(j, "gyges", start=gyges.default_setup())  # a later game: the first is behind
        outbox = Outbox(path)
        try:
            [c1, c2] = outbox.cursors(0)
            assert c1.unseen_due and c1.unseen_key == outbox.unseen(1).key and not outbox.unseen(1).rewritten
            end = outbox.end(1)
            outbox.ack(Ack(1, True, 1, end.key, None, c1.unseen_key))
            assert not outbox.cursors(0)[0].unseen_due and outbox.cursors(0)[0].settled
            assert [c.game for c in outbox.cursors(2)] == [2]  # settled, not read again
            number = asked.alternatives.index("d1-c1/d5 c6-d6/b3") + 1
            ref.handle(ChooseUnseen(0, number))
            due = outbox.cursors(2)
            assert [c.game for c in due] == [1, 2] and due[0].unseen_due  # due again
            state = outbox.unseen(1)
            assert [e["move"] for e in state.rewritten] == ["d1-c1/d5", "c6-d6/b3"]
            assert state.groups[0]["chosen"] == number - 1 and state.order == (2, 1)
        finally:
            outbox.close()
