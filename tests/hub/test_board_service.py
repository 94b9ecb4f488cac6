"""``tableref serve`` with a [hub] table: the service starts the publisher with itself, the
health (``/api/health``, ``tableref status``) says how the link is, and stopping keeps what was
not sent in the journal. Against a real Mosquitto, with a wrong password too."""

from __future__ import annotations


from tableref.config import load_config
from tableref.hub.hub import Hub
from tableref.hub.settings import BrokerConfig, HubServerConfig
from tableref.serve import Service
from tableref.cli.status import report

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import secured_broker

pytestmark = needs_mosquitto


def _config(tmp_path, port, extra=""):
    path = tmp_path / "board.toml"
    path.write_text(f'[game]\nname = "gyges"\n[data]\ndir = "{tmp_path}/data"\n'
                    f'[hub]\nbroker = "mqtt://127.0.0.1:{port}"\nboard = "table-07"\n{extra}')
    return load_config(path)


def test_serve_publishes_its_games_and_reports_the_link(broker, tmp_path):
    hub = Hub(HubServerConfig(broker=BrokerConfig(port=broker.port), data_dir=tmp_path / "hub")).start()
    service = Service.from_config(_config(tmp_path, broker.port), pin_hash="scrypt:1024:8:1").start()
    try:
        wait_for(lambda: service.publisher.link.connected, 10, "the board to reach the broker")
        wait_for(lambda: hub.store.games("table-07"), 10, "the board's game at the hub")
        health = service.health().to_dict()
        assert health["hub"]["state"] == "connected" and health["hub"]["board"] == "table-07"
        assert any(line.startswith("hub:     table-07 connected") for line in report(health, "http://x/"))
        wait_for(lambda: "table-07" in hub.boards and hub.boards["table-07"].live is not None, 10, "the live board")
    finally:
        service.close()
        service.close()  # safe twice
        hub.stop()
    assert service.publisher is None




def test_a_wrong_password_is_refused_and_the_health_says_so(tmp_path):
    b = secured_broker(tmp_path)
    (tmp_path / "wrong").write_text("guess\n")
    cfg = _config(tmp_path, b.port, f'password_file = "{tmp_path}/wrong"\n')
    service = Service.from_config(cfg, pin_hash="scrypt:1024:8:1").start()
    try:
        wait_for(lambda: service.publisher.link.state == "refused", 10, "the broker to refuse the board")
        line = next(l for l in report(service.health().to_dict(), "http://x/") if l.startswith("hub:"))
        assert "refused" in line and "wrong username or password" in line
    finally:
        service.close()
        b.stop()


def test_the_rounds_pairing_shows_the_players_names_on_the_boards_own_page(broker, tmp_path):
    hub = Hub(HubServerConfig(broker=BrokerConfig(port=broker.port), data_dir=tmp_path / "hub")).start()
    service = Service.from_config(_config(tmp_path, broker.port), pin_hash="scrypt:1024:8:1").start()
    try:
        wait_for(lambda: service.publisher.link.connected, 10, "the board to reach the broker")
        assert hub.push_pairing(2, "table-07", {"south": "Alice", "north": "Bob"})
        client = service.app.test_client()
        wait_for(lambda: client.get("/api/state").get_json()["names"].get("players"), 10, "the names on the page")
        assert client.get("/api/state").get_json()["names"] == {"players": {"south": "Alice", "north": "Bob"},
                                                                "round": 2}
    finally:
        service.close()
        hub.stop()

