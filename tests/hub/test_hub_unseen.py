"""Moves never seen one by one reach the hub, with a real Mosquitto: the open question, then
the players' later choice on the board (the journal's events rewritten) — the hub's record and
its text download equal the board's own ``tableref export``, and a late or repeated copy of
the unseen message changes nothing."""

from __future__ import annotations

import paho.mqtt.client as mqtt

from hub_web import create_hub_app
from rules import Fidelity, get_game
from decisions import ChooseUnseen, StableView
from tableref.hub.protocol import UnseenState, encode, topic
from tableref.journal import Journal
from tableref.records import export_text
from web.auth import AdminStore

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import make_hub, make_tables

pytestmark = needs_mosquitto

GYGES = get_game("gyges")
PLAYED = ("d1-c1/d5", "c6-d6/b3")  # two moves the board saw as one change (tests/tableref/test_unseen_record.py)


def _board_text(table) -> str:
    with Journal(table.journal_path) as j:
        return export_text(j, 1)


def _board_events(table) -> list:
    with Journal(table.journal_path) as j:
        return [(s, k, m, p) for s, k, m, p in j.db.execute(
            "SELECT seq, kind, move, position FROM events WHERE game_id=1 ORDER BY seq")]


def _hub_events(hub, board) -> list:
    import json
    return [(e["seq"], e["kind"], e["move"], json.dumps(e["position"])) for e in hub.store.positions(board, 1)]


def _in(hub, t, *, chosen) -> bool:
    record = hub.store.export(t.name, 1) if hub.store.games(t.name) else {}
    groups = record.get("unseen", [])
    return (t.publisher.link.unacknowledged == 0 and len(groups) == 1 and (groups[0]["chosen"] is not None) == chosen
            and _hub_events(hub, t.name) == _board_events(t))


def test_an_unseen_choice_made_later_reaches_the_hub(broker, tmp_path):
    hub = make_hub(broker.port, tmp_path / "hub")
    t = make_tables(1, broker.port, tmp_path / "boards", game="gyges")[0]
    app = create_hub_app(hub, AdminStore(tmp_path / "admin.json", method="scrypt:1024:8:1")).test_client()
    try:
        wait_for(lambda: hub.link == "connected" and t.publisher.link.connected, 10, "the hub and the board")
        shown = GYGES.default_setup().apply_text(PLAYED[0]).apply_text(PLAYED[1])
        asked = t.referee.handle(StableView(shown.view(Fidelity.KIND)))[-1]
        assert asked.kind == "unseen" and len(asked.alternatives) > 1
        wait_for(lambda: _in(hub, t, chosen=False), 10, "the open question at the hub")
        text = app.get(f"/api/games/{t.name}/1/record").get_data(as_text=True)
        assert text == _board_text(t) and "not yet chosen" in text

        # Play goes on; later the players say which they played (the page's POST /api/unseen
        # submits this same command to the referee).
        nxt = shown.legal_moves()[0]
        t.referee.handle(StableView(shown.apply(nxt).view(Fidelity.KIND)))
        number = asked.alternatives.index(" ".join(PLAYED)) + 1
        assert number != 1  # the one recorded first was another: events are rewritten
        assert t.referee.handle(ChooseUnseen(0, number))[0].kind == "unseen_chosen"
        wait_for(lambda: _in(hub, t, chosen=True), 10, "the players' choice at the hub")
        record = hub.store.export(t.name, 1)
        assert record["moves"][:2] == list(PLAYED) and record["unseen"][0]["chosen"] == number - 1
        text = app.get(f"/api/games/{t.name}/1/record").get_data(as_text=True)
        assert text == _board_text(t) and "the players chose" in text
        steps = app.get(f"/api/games/{t.name}/1").get_json()["steps"]
        assert [s["move"] for s in steps[:2]] == list(PLAYED)

        # A late copy of the open state (queued somewhere during an outage) and a repeat of
        # the chosen one: nothing changes.
        with Journal(t.journal_path) as j:
            groups = [{**g.to_dict(), "chosen": None} for g in j.load(1).unseen]
        stale = UnseenState(1, 2, groups, [])
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="late-copy")
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        client.publish(topic(t.name, "journal"), encode(stale), qos=1).wait_for_publish(5)
        t.publisher._sent.clear()  # the board sends everything unacknowledged again (none is)
        received = hub.counters.received
        client.publish(topic(t.name, "journal"), encode(stale), qos=1).wait_for_publish(5)
        wait_for(lambda: hub.counters.received > received, 5, "the hub to take the late copy")
        client.loop_stop()
        client.disconnect()
        assert hub.store.export(t.name, 1) == record
        assert app.get(f"/api/games/{t.name}/1/record").get_data(as_text=True) == _board_text(t)
        assert hub.counters.malformed == 0
    finally:
        t.stop()
        hub.stop()
