"""Two ``tableref serve`` services in this process through a real Mosquitto (as
tests/remote/test_remote_services.py): the link as ``/api/health`` and ``tableref status`` show it —
connected or not, this table's moves the other has not confirmed (and how many are not sent yet),
the other table's name — through the broker killed with a move made meanwhile; then table A
starts a new game and the match ends at table B too: B's game with A is closed as it stood (the
two journals the same unfinished game), B says so on its page and begins a game of its own, and
both links hold the match over (docs/remote.md, "A new game ends the match")."""

from __future__ import annotations


import pytest

from mosquittohelp import MOSQUITTO, Broker
from remotehelp import remote_game, service, show, wait
from rules import Fidelity, get_game
from tableref.cli.status import report
from tableref.journal import Journal

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed (scripts/ensure-mosquitto)")
KIND = Fidelity.KIND
URL = "http://127.0.0.1:8000"


def health(svc):
    """What ``GET /api/health`` answers."""
    resp = svc.app.test_client().get("/api/health")
    assert resp.status_code == 200
    return resp.get_json()


def remote_line(svc):
    [line] = [x for x in report(health(svc), URL) if x.startswith("remote:")]
    return line


def test_the_link_in_health_and_a_new_game_ending_the_match(tmp_path):
    broker = Broker(tmp_path / "broker").start()
    a = service(tmp_path, "table-a", broker.port)
    b = service(tmp_path, "table-b", broker.port)
    try:
        wait(lambda: a.remote_link.status.state == "connected" and b.remote_link.status.state == "connected",
             "both connected")
        h = health(a)["remote"]
        broker_url = f"mqtt://127.0.0.1:{broker.port}"
        assert (h["table"], h["connected"], h["peer"], h["broker"]) == ("table-a", True, "", broker_url)
        assert remote_line(a) == f"remote:  table-a connected at {broker_url}; no match"

        code = a.remote_link.invite(("north",), "gyges", {}, "default", None)
        b.remote_link.join(code)
        wait(lambda: health(a)["remote"]["peer"] == "table-b" and health(b)["remote"]["peer"] == "table-a",
             lambda: f"the match on both: {health(a)['remote']} {health(b)['remote']}")
        match = health(a)["remote"]["match"]
        assert match == f"table-a.{code.split()[1]}" and health(b)["remote"]["match"] == match

        broker.kill()  # a move made while the link is down: waiting, not sent, said so
        wait(lambda: not health(a)["remote"]["connected"], "A sees the broker gone")
        start = get_game("gyges").default_setup()
        first = next(m for m in start.legal_moves() if start.successor(m).view(KIND) != start.view(KIND))
        state = start.successor(first)
        show(a, state)
        wait(lambda: a.table.snapshot()["ply"] == 1, "south's move at A")
        wait(lambda: health(a)["remote"]["unacknowledged"] == 1, lambda: f"the move waiting: {health(a)['remote']}")
        h = health(a)["remote"]
        assert (h["state"], h["connected"], h["unsent"], h["over"]) == ("offline", False, 1, False)
        line = remote_line(a)
        assert "table-a offline" in line and "NOT connected" in line, line
        assert line.endswith(f"playing table-b (match {match}); 1 move not yet confirmed by table-b (1 not sent yet)")

        broker.start()
        wait(lambda: health(a)["remote"]["unacknowledged"] == 0, lambda: f"the move confirmed: {health(a)['remote']}")
        assert remote_line(a).endswith(f"playing table-b (match {match}); every move confirmed by table-b")
        wait(lambda: (b.table.snapshot()["remote"] or {}).get("turn") and b.table.snapshot()["remote"]["turn"]["steps"],
             "south's move shown at B")
        show(b, state)  # carried out at B
        wait(lambda: b.table.snapshot()["ply"] == 1, "south's move carried out at B")

        said_b = []
        b.referee.subscribe(said_b.append)
        a.table.new_game("gyges", {}, "default")  # A leaves the match: B is told
        wait(lambda: not any(s.startswith("remote:") for s in b.table.snapshot()["seats"].values()),
             lambda: f"B's own game: {b.table.snapshot()['seats']}")
        # The page's seats change with B's new game; the decisions reach this list on B's
        # referee thread, maybe a moment later on a loaded machine.
        wait(lambda: "new_game" in [d.kind for d in said_b], lambda: f"B's new game said: {[d.kind for d in said_b]}")
        kinds = [d.kind for d in said_b]
        assert kinds.index("match_ended") < kinds.index("new_game"), kinds
        ended = next(d for d in said_b if d.kind == "match_ended")
        assert ended.table == "table-a" and ended.ply == 1
        fr = b.table.snapshot()["i18n"]["fr"]
        assert fr[ended.text().strip()] == "table-a a mis fin à la partie : celle-ci est close en l'état"
        wait(lambda: health(a)["remote"]["over"] and health(b)["remote"]["over"], "the match over on both links")
        wait(lambda: a.remote_link._over_heard, "A heard that B holds the match over (it stops sending 'left')")
        assert remote_line(b).endswith(f"played table-a (match {match}, over); every move confirmed by table-a")
    finally:
        a.close()
        b.close()
        broker.stop()
    ga, gb = remote_game(a.journal_path), remote_game(b.journal_path)
    # The same game at both, closed as it stood: finished, no outcome (abandoned), one move
    assert ga["moves"] == gb["moves"] == [start.move_text(first)]
    assert {k: v for k, v in ga.items() if k != "seats"} == {k: v for k, v in gb.items() if k != "seats"}
    assert ga["finished"] is True and ga["outcome"] in (None, "null")  # abandoned: no outcome
    with Journal(b.journal_path) as j:  # B's game after it: people at both sides
        last = j.load(j.db.execute("SELECT MAX(id) FROM games").fetchone()[0])
        assert not last.seats.remotes and not last.finished and last.game == "gyges"
