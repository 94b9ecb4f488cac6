"""Past one club (docs/scale.md): a club's Mosquitto bridged to a central one, end to end —
boards on the club broker, the hub on the central one; journals up, acknowledgements and
pairings down. And the deploy files: the Mosquitto config and the hub's example config load."""

from __future__ import annotations

from pathlib import Path

from tableref.hub.settings import load_server_config

from mosquittohelp import Broker, needs_mosquitto, wait_for
from hubhelp import hub_games, journal_games, make_hub, make_tables, wait_all_in

pytestmark = needs_mosquitto
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _bridge_lines(central_port: int) -> str:
    text = (DEPLOY / "mosquitto" / "bridge-central.conf").read_text()
    keep = [l for l in text.splitlines() if l.startswith(("connection", "cleansession", "topic", "remote_clientid"))]
    return "\n".join([*keep, f"address 127.0.0.1:{central_port}"]) + "\n"


def test_a_club_broker_bridged_to_a_central_one_carries_the_games_and_the_acks(tmp_path):
    central = Broker(tmp_path / "central").start()
    club = Broker(tmp_path / "club", extra=_bridge_lines(central.port)).start()
    hub = make_hub(central.port, tmp_path / "hub")
    tables = make_tables(4, club.port, tmp_path / "boards")
    try:
        wait_for(lambda: hub.link == "connected", 10, "the hub on the central broker")
        hub.store.add_round()
        for t in tables:
            hub.store.set_pairing(1, t.name, {"A": f"{t.name}-a", "B": f"{t.name}-b"})
            wait_for(lambda: hub.push_pairing(1, t.name, {"A": f"{t.name}-a", "B": f"{t.name}-b"}), 5, "push")
        wait_for(lambda: all(t.publisher.pairing is not None for t in tables), 15, "the pairings down the bridge")
        for t in tables:
            t.play_game()
        wait_all_in(hub, tables, timeout=20)
        for t in tables:
            assert hub_games(hub, t.name) == journal_games(t)
            assert hub_games(hub, t.name)[1]["players"] == {"A": f"{t.name}-a", "B": f"{t.name}-b"}
    finally:
        for t in tables:
            t.stop()
        hub.stop()
        club.stop()
        central.stop()


def test_the_deploy_mosquitto_config_starts_a_broker(tmp_path):
    text = (DEPLOY / "mosquitto" / "tableref.conf").read_text()
    pw, acl = tmp_path / "passwd", tmp_path / "acl"
    pw.write_text("")
    acl.write_text((DEPLOY / "mosquitto" / "tableref.acl").read_text())
    b = Broker(tmp_path / "b")
    listener = next(l for l in b.conf.read_text().splitlines() if l.startswith("listener"))
    text = text.replace("/etc/mosquitto/tableref.passwd", str(pw)).replace("/etc/mosquitto/tableref.acl", str(acl))
    text = text.replace("listener 1883", listener)
    keep = [l for l in b.conf.read_text().splitlines() if l.startswith(("user", "log_dest"))]
    b.conf.write_text(text + "\n" + "\n".join(keep) + "\n")
    b.start()
    b.stop()


def test_the_example_hub_config_loads():
    cfg = load_server_config(DEPLOY / "tableref-hub.toml")
    assert cfg.broker.username == "hub" and cfg.port == 8080 and cfg.event == "Club night"
    assert cfg.acl_file == Path("/etc/mosquitto/tableref.acl")
