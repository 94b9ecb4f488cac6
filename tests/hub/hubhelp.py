"""Shared by the hub tests: a hub on a broker, tables, and comparing the hub with the journals."""

from __future__ import annotations

from pathlib import Path

from tableref.hub.hub import Hub
from tableref.hub.settings import BrokerConfig, HubServerConfig
from tableref.hub.simulate import SimTable, table_names
from tableref.journal import Journal

from tableref.hub import credentials

from mosquittohelp import Broker, wait_for


def make_hub(port: int, data: Path, **kw) -> Hub:
    return Hub(HubServerConfig(broker=BrokerConfig(port=port, **kw), data_dir=data, event="Test night")).start()


def fake_club(tmp_path: Path, fake, boards: tuple[int, ...] = (1, 2)):
    """A hub on the in-memory broker ``fake`` (fakes.FakeBroker), its club app and simulated
    boards ``table-0N``: (hub, app, tables). Stop the tables, then the hub."""
    from hub_web import create_hub_app
    from web.auth import AdminStore

    hub = Hub(HubServerConfig(data_dir=tmp_path / "hub", event="Test night"), client_factory=fake.factory).start()
    wait_for(lambda: hub.link == "connected", 5, "the hub")
    app = create_hub_app(hub, AdminStore(tmp_path / "admin.json", method="scrypt:1024:8:1"))
    tables = [SimTable(f"table-0{i}", tmp_path / f"t{i}.sqlite3", BrokerConfig(), client_factory=fake.factory,
                       seed=i, poll=0.05).start() for i in boards]
    return hub, app, tables


def make_tables(n: int, port: int, directory: Path, *, game: str = "anacund", **kw) -> list[SimTable]:
    return [SimTable(name, directory / f"{name}.sqlite3", BrokerConfig(port=port), game=game, seed=i + 7,
                     resend_after=kw.pop("resend_after", 1.0), **kw).start()
            for i, name in enumerate(table_names(n))]


def journal_games(table: SimTable) -> dict[int, dict]:
    """Every game of a table's journal as the hub should hold it."""
    out = {}
    with Journal(table.journal_path) as j:
        for g in j.games():
            record = j.export(g.id)
            players = dict(j.db.execute("SELECT side, name FROM game_players WHERE game_id=?", (g.id,)).fetchall())
            record["players"] = players
            record["events"] = [tuple(r[:3]) for r in j.iter_events(g.id)]
            out[g.id] = record
    return out


def hub_games(hub: Hub, board: str) -> dict[int, dict]:
    out = {}
    for row in hub.store.games(board):
        record = hub.store.export(board, row.game)
        record["events"] = [(e["seq"], e["kind"], e["move"]) for e in hub.store.positions(board, row.game)]
        for key in ("board", "game_id", "round", "created"):
            record.pop(key)
        out[row.game] = record
    return out


def all_in(hub: Hub, tables: list[SimTable]) -> bool:
    """Every table's publisher has every message acknowledged, and the hub holds them all."""
    return all(t.publisher is not None and t.publisher.link.connected and t.publisher.link.unacknowledged == 0
               for t in tables) and all(hub_games(hub, t.name) == journal_games(t) for t in tables)


def wait_all_in(hub: Hub, tables: list[SimTable], timeout: float = 20.0) -> None:
    try:
        wait_for(lambda: all_in(hub, tables), timeout, "every journal to be in the hub, acknowledged", interval=0.2)
    except AssertionError as exc:
        lines = [str(exc)]
        for t in tables:
            mine, theirs = journal_games(t), hub_games(hub, t.name)
            diff = {g: sorted(k for k in set(mine[g]) | set(theirs.get(g, {}))
                              if mine[g].get(k) != theirs.get(g, {}).get(k)) for g in mine}
            lines.append(f"{t.name}: {t.publisher.link if t.publisher else None}; differs: {diff}")
            for g, keys in diff.items():
                if "events" in keys:  # the first events that differ, to say which side lacks what
                    a, b = mine[g]["events"], theirs.get(g, {}).get("events", [])
                    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                    lines.append(f"  game {g}: journal {len(a)} events, hub {len(b)}; from index {first}:"
                                 f" journal {a[first:first + 3]}, hub {b[first:first + 3]}")
        raise AssertionError("\n".join(lines)) from None


def secured_broker(tmp_path):
    """The club's Mosquitto as shipped (deploy/mosquitto/tableref.conf: passwords, the ACL, a
    client's id its username), users made by tableref.hub.credentials (real mosquitto_passwd)."""
    pw, acl = tmp_path / "passwd", tmp_path / "acl"
    hub_pw = credentials.add("hub", pw, acl, hub=True)
    for name in ("table-01", "table-02"):
        credentials.add(name, pw, acl, out=tmp_path / f"{name}.password")
    assert "topic write tableref/v1/table-01/journal" in acl.read_text()
    (tmp_path / "hub.password").write_text(hub_pw + "\n")
    return Broker(tmp_path / "broker").use_shipped(pw, acl).start()
