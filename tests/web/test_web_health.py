"""/api/health and `tableref status`: the source, the game, the last decision, uptime, version."""

from __future__ import annotations

import contextlib
import io
import socket
from datetime import datetime, timezone

from tableref.cli.status import main as status_main, report
from web import create_app
from web.auth import AdminStore
from webhelp import FAST_SCRYPT, admin_client, make_service, move


def status(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = status_main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_health_reports_the_source_game_last_decision_uptime_and_version(service):
    client = service.app.test_client()
    h = client.get("/api/health").get_json()
    assert h["source"] == {**h["source"], "kind": "simulated", "state": "steady", "connected": True}
    assert h["game"] == {"id": 1, "name": "gyges", "ply": 0, "to_move": "south", "over": False}
    assert h["last_decision"]["kind"] == "new_game" and h["ok"] is True and h["panel"] == "off"
    assert h["version"] and h["uptime"] >= 0 and datetime.fromisoformat(h["started"]).tzinfo is not None
    _, post = admin_client(service)
    move(post, "b1", "b3")
    h = client.get("/api/health").get_json()
    assert (h["game"]["ply"], h["game"]["to_move"], h["last_decision"]["kind"], h["last_decision"]["ply"]) == (
        1, "north", "accepted", 1)
    assert datetime.fromisoformat(h["last_decision"]["at"]) <= datetime.now(timezone.utc)


def test_health_is_open_to_the_lan_and_tells_a_hand_over_the_board(service):
    lan = service.app.test_client()
    _, post = admin_client(service)
    assert post("/api/sim/hand_over", {"over": True}).status_code == 200
    h = lan.get("/api/health", environ_base={"REMOTE_ADDR": "192.168.1.20"}).get_json()
    assert h["source"]["state"] == "hand" and "hand over the board" in h["source"]["detail"]


def test_an_app_without_a_health_provider_still_answers_from_the_table(tmp_path, service):
    app = create_app({"TABLEREF_TABLE": service.table, "TABLEREF_ADMIN": AdminStore(tmp_path / "b.json",
                                                                                    method=FAST_SCRYPT)})
    h = app.test_client().get("/api/health").get_json()
    assert h["game"]["id"] == 1 and h["uptime"] is None and h["last_decision"]["kind"] == "new_game"


def test_status_prints_a_running_service_and_exits_0(tmp_path):
    svc = make_service(tmp_path)
    try:
        url = svc.serve_http("127.0.0.1", 0).rstrip("/")
        code, out, err = status("--url", url)
        assert code == 0, err
        lines = out.splitlines()
        assert lines[0].startswith(f"tableref {svc.health().version} at {url}/, up ")
        assert lines[1] == "source:  simulated simulated board: steady (simulated board connected)"
        assert lines[2] == "game:    1 (gyges), move 0, south to move"
        assert lines[3].startswith("last:    new_game at move 0 ") and lines[3].endswith(" s ago")
        code, out, _ = status("--url", url, "--json")
        assert code == 0 and '"game"' in out
    finally:
        svc.close()


def test_status_exits_1_when_nothing_answers(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    code, out, err = status("--url", f"http://127.0.0.1:{port}", "--timeout", "2")
    assert code == 1 and out == ""
    assert err.startswith(f"tableref: no tableref service answers at http://127.0.0.1:{port}: ") and err.count("\n") == 1


def test_status_takes_the_address_from_a_config_file(tmp_path):
    cfg = tmp_path / "t.toml"
    cfg.write_text('[game]\nname = "gyges"\n[web]\nhost = "0.0.0.0"\nport = 1\n')
    code, _, err = status("--config", str(cfg), "--timeout", "2")
    assert code == 1 and "http://127.0.0.1:1" in err
    cfg.write_text('[game]\nname = "gyges"\n[web]\nport = "x"\n')
    code, _, err = status("--config", str(cfg))
    assert code == 2 and "web.port" in err


def test_the_report_says_when_the_board_is_not_read():
    data = {"version": "1", "uptime": 7300, "panel": "unavailable",
            "source": {"kind": "serial", "name": "/dev/tableref-board", "state": "disconnected", "connected": False,
                       "detail": "No such file"},
            "game": {"id": 4, "name": "drift", "ply": 12, "to_move": None, "over": True},
            "last_decision": {"kind": "game_over", "ply": 12, "at": "2026-01-01T10:00:00+00:00"}}
    lines = report(data, "http://pi:8000", now=datetime(2026, 1, 1, 10, 1, 5, tzinfo=timezone.utc))
    assert lines == [
        "tableref 1 at http://pi:8000/, up 2 h 1 min",
        "source:  serial /dev/tableref-board: disconnected (No such file) — NOT connected: the board is not being read",
        "game:    4 (drift), move 12, over",
        "last:    game_over at move 12 1 min 5 s ago",
        "panel:   unavailable",
    ]
