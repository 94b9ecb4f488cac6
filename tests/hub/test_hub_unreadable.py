"""Issue 33, item 11: well-formed nonsense from a board — a header naming a game the hub does
not know, an empty start, an illegal move — published on the board's own topic to a real
Mosquitto. The hub stores it as sent and acknowledges it, says so in one log line and its
counters, and every page and download answers 2xx/4xx with the reason: never a 500."""

from __future__ import annotations

import io
import logging
import time
import zipfile

import paho.mqtt.client as mqtt

from hub_web import create_hub_app
from rules import get_game
from tableref.hub.protocol import Ack, GameEnd, GameEvent, GameHeader, Live, decode, encode, topic
from web.auth import AdminStore

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import make_hub

pytestmark = needs_mosquitto


def _anacund():
    state = get_game("anacund").default_setup()
    move = state.legal_moves()[0]
    after = state.successor(move)
    return state.to_dict(), state.move_text(move), after.to_dict()


def _messages():
    """board → its messages: each a well-formed game the rules cannot read."""
    start, first, after = _anacund()
    now = time.time()
    won = {"winner": "A", "reason": "claimed", "scores": {}}
    return {
        "table-u": [GameHeader(1, "chess", {}, "kind", start, now)],
        "table-e": [GameHeader(1, "anacund", {}, "kind", {}, now)],
        # the first move twice: the second is not legal (the other side is to move, the piece gone)
        "table-i": [GameHeader(1, "anacund", {}, "kind", start, now),
                    GameEvent(1, 0, "move", first, after, now), GameEvent(1, 1, "move", first, after, now),
                    GameEnd(1, 2, won, now)],
    }


def test_nonsense_from_a_board_is_kept_marked_and_never_a_500(broker, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="tableref.hub")
    hub = make_hub(broker.port, tmp_path / "hub")
    acks: list[Ack] = []
    board = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="nonsense", protocol=mqtt.MQTTv311)
    board.on_message = lambda c, u, m: acks.append(decode(m.topic, m.payload)[1])
    board.connect("127.0.0.1", broker.port)
    board.loop_start()
    messages = _messages()
    try:
        board.subscribe([(topic(b, "ack"), 1) for b in messages])
        wait_for(lambda: hub.link == "connected", 10, "the hub")
        for b, ms in messages.items():
            for m in ms:
                board.publish(topic(b, "journal"), encode(m), qos=1).wait_for_publish(5)
        for ply in range(3):  # a board's live view of a game that does not read, move after move
            live = Live(1, "chess", ply, {"e4": "P"}, "ok", None, None, {}, time.time())
            board.publish(topic("table-x", "live"), encode(live), qos=1).wait_for_publish(5)
            wait_for(lambda: "table-x" in hub.boards and hub.boards["table-x"].live.ply == ply, 10, "the live view")
        wait_for(lambda: hub.counters.unreadable == 3, 10, "the three games counted unreadable")
        # Stored as sent and acknowledged: the boards are not held up resending them.
        wait_for(lambda: {(a.game, a.header, a.seq) for a in acks} >= {(1, True, -1), (1, True, 1)}, 10, "the acks")
        assert hub.store.positions("table-i", 1)[1]["move"] == messages["table-i"][1].move
        assert hub.counters.malformed == 0
        lines = [r.getMessage() for r in caplog.records if "cannot be read" in r.getMessage()]
        assert len(lines) == 3, lines  # one line each: what and where
        assert any("table-u game 1" in l and "unknown game 'chess'" in l for l in lines), lines
        assert any("table-e game 1" in l and "start:" in l for l in lines), lines
        assert any("table-i game 1" in l and "move 2" in l for l in lines), lines
        lines = [r.getMessage() for r in caplog.records if "live position" in r.getMessage()]
        assert len(lines) == 1 and "table-x game 1" in lines[0] and "unknown game 'chess'" in lines[0], lines

        app = create_hub_app(hub, AdminStore(tmp_path / "admin.json", method="scrypt:1024:8:1"))
        c = app.test_client()
        for b, words in (("table-u", "unknown game 'chess'"), ("table-e", "start:")):
            r = c.get(f"/api/games/{b}/1")
            assert r.status_code == 422 and words in r.get_json()["error"], (b, r.status_code, r.get_data())
            assert f"{b} game 1" in r.get_json()["error"]
        r = c.get("/api/games/table-i/1")  # the board's positions can be shown; the record says why it is unread
        assert r.status_code == 200 and "move 2" in r.get_json()["unreadable"], r.get_data()
        assert len(r.get_json()["steps"]) == 2
        for b in messages:
            r = c.get(f"/api/games/{b}/1/record")
            assert r.status_code == 409 and "does not replay" in r.get_json()["error"], (b, r.get_data())
            assert c.get(f"/api/games/{b}/1/record?format=json").status_code == 200
        for url in ("/api/games", "/api/standings", "/api/event.zip", "/archive", "/standings", "/api/club",
                    "/archive/table-u/1"):
            assert c.get(url).status_code == 200, url
        names = zipfile.ZipFile(io.BytesIO(c.get("/api/event.zip").data)).namelist()
        assert {"table-u/game-1.json", "table-e/game-1.json", "table-i/game-1.json"} <= set(names)

        # The arbiter's corrections say why too.
        h = {"X-CSRF-Token": c.get("/api/session").get_json()["csrf"]}
        assert c.post("/api/pin", json={"pin": "2468"}, headers=h).status_code == 200
        r = c.post("/api/games/table-u/1/correct", json={"by": "Arb", "kind": "result", "winner": None}, headers=h)
        assert r.status_code == 409 and "unknown game 'chess'" in r.get_json()["error"], r.get_data()
        r = c.post("/api/games/table-i/1/correct", json={"by": "Arb", "kind": "moves", "from": 3, "moves": []},
                   headers=h)
        assert r.status_code == 400 and "move 2" in r.get_json()["error"], r.get_data()
    finally:
        board.loop_stop()
        board.disconnect()
        hub.stop()
