"""Helpers for the web tests: a whole service with no threads, and an admin client."""

from __future__ import annotations

from tableref.serve import Service

LAN = {"REMOTE_ADDR": "192.168.1.20"}
PIN = "2468"
FAST_SCRYPT = "scrypt:1024:8:1"  # the real scheme, cheaper: these tests check the rules, not the cost


def make_service(tmp_path, **kw):
    kw.setdefault("settle", 0)
    kw.setdefault("readings", 1)
    kw.setdefault("pin_hash", FAST_SCRYPT)
    return Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", threaded=False, heartbeat=0.01, **kw).start()


def csrf(client) -> str:
    return client.get("/api/session").get_json()["csrf"]


def admin_client(svc, pin: str = PIN):
    """A loopback client that has chosen (or entered) the PIN; returns (client, post)."""
    client = svc.app.test_client()
    token = csrf(client)
    url = "/api/login" if svc.app.extensions["tableref_admin"].pin_set else "/api/pin"
    assert client.post(url, json={"pin": pin}, headers={"X-CSRF-Token": token}).status_code == 200

    def post(path, body=None, **kw):
        return client.post(path, json=body or {}, headers={"X-CSRF-Token": token}, **kw)

    return client, post


def state(client) -> dict:
    return client.get("/api/state").get_json()


def move(post, src, dst):
    r = post("/api/sim/move", {"space": src, "to": dst})
    assert r.status_code == 200, r.get_json()
    return r
