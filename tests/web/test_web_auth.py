"""The PIN, the session cookie and CSRF: watching is open, acting needs both."""

from __future__ import annotations

import json

import pytest

from web.auth import AdminError, AdminStore, Throttle
from webhelp import LAN, PIN, admin_client, csrf, state

CONTROLS = [
    ("/api/confirm", {"number": 1}),
    ("/api/undo", {}),
    ("/api/declare", {"move": "resign"}),
    ("/api/new-game", {"game": "gyges"}),
    ("/api/sim/take", {"space": "a1"}),
    ("/api/journal/import", {}),
]


def test_first_run_session_offers_the_pin_to_the_machine_itself_only(service):
    local = service.app.test_client().get("/api/session").get_json()
    assert local["pin_set"] is False and local["can_set_pin"] is True and local["admin"] is False
    assert len(local["csrf"]) > 20
    lan = service.app.test_client().get("/api/session", environ_base=LAN).get_json()
    assert lan["can_set_pin"] is False


@pytest.mark.parametrize("path,body", CONTROLS)
def test_a_state_changing_request_without_the_csrf_token_is_refused(service, path, body):
    client, _ = admin_client(service)
    r = client.post(path, json=body)
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    r = client.post(path, json=body, headers={"X-CSRF-Token": "not-the-token"})
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]


@pytest.mark.parametrize("path,body", CONTROLS)
def test_a_lan_client_without_the_pin_cannot_act(service, path, body):
    admin_client(service)  # the PIN exists
    client = service.app.test_client()
    token = client.get("/api/session", environ_base=LAN).get_json()["csrf"]
    r = client.post(path, json=body, headers={"X-CSRF-Token": token}, environ_base=LAN)
    assert r.status_code == 403 and "PIN" in r.get_json()["error"]
    assert state(client)["ply"] == 0  # and nothing happened


def test_watching_needs_nothing(service):
    client = service.app.test_client()
    for path in ("/", "/replay", "/replay/1", "/api/state", "/api/games", "/api/board/gyges", "/api/journal",
                 "/api/journal/1"):
        assert client.get(path, environ_base=LAN).status_code == 200, path


def test_the_first_pin_cannot_be_chosen_from_the_lan(service):
    client = service.app.test_client()
    token = client.get("/api/session", environ_base=LAN).get_json()["csrf"]
    r = client.post("/api/pin", json={"pin": PIN}, headers={"X-CSRF-Token": token}, environ_base=LAN)
    assert r.status_code == 403
    assert not service.app.extensions["tableref_admin"].pin_set


def test_a_lan_client_with_the_pin_can_act(service):
    admin_client(service)
    client = service.app.test_client()
    token = client.get("/api/session", environ_base=LAN).get_json()["csrf"]
    r = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token}, environ_base=LAN)
    assert r.status_code == 200 and r.get_json()["admin"] is True
    r = client.post("/api/sim/move", json={"space": "b1", "to": "b3"}, headers={"X-CSRF-Token": token},
                    environ_base=LAN)
    assert r.status_code == 200
    assert state(client)["moves"] == ["b1-b3"]


def test_logout_ends_control(service):
    client, post = admin_client(service)
    assert post("/api/logout").get_json()["admin"] is False
    assert post("/api/undo").status_code == 403


def test_pin_rules(service):
    client = service.app.test_client()
    token = csrf(client)
    for bad in ("12", "abcd", "1234567890123", ""):
        r = client.post("/api/pin", json={"pin": bad}, headers={"X-CSRF-Token": token})
        assert r.status_code == 400 and "4 to 12 digits" in r.get_json()["error"]
    admin_client(service)
    # A second client cannot replace the PIN without being admin.
    other = service.app.test_client()
    r = other.post("/api/pin", json={"pin": "9999"}, headers={"X-CSRF-Token": csrf(other)})
    assert r.status_code == 403


def test_wrong_pins_are_refused_then_locked_out(service):
    admin_client(service)
    client = service.app.test_client()
    token = csrf(client)
    for _ in range(5):
        r = client.post("/api/login", json={"pin": "0000"}, headers={"X-CSRF-Token": token})
        assert r.status_code == 403 and r.get_json()["error"] == "wrong PIN"
    r = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert r.status_code == 429  # even the right PIN waits out the lockout


def test_changing_the_pin_ends_other_admin_sessions(service):
    first, post1 = admin_client(service)
    second, post2 = admin_client(service)
    assert post2("/api/pin", {"pin": "13579"}).status_code == 200
    assert post1("/api/undo").status_code == 403
    assert first.get("/api/session").get_json()["admin"] is False
    assert second.get("/api/session").get_json()["admin"] is True


def test_the_pin_is_stored_hashed_with_scrypt(service, tmp_path):
    admin_client(service)
    text = (tmp_path / "admin.json").read_text()
    data = json.loads(text)
    assert PIN not in text and data["pin"].startswith("scrypt:")
    assert (tmp_path / "admin.json").stat().st_mode & 0o077 == 0
    again = AdminStore(tmp_path / "admin.json")  # a restart keeps the PIN and the cookie key
    assert again.check_pin(PIN) and not again.check_pin("1111")
    assert again.secret_key == service.app.secret_key


def test_a_malformed_admin_file_is_one_clear_error_and_is_left_alone(tmp_path):
    path = tmp_path / "admin.json"
    path.write_text("{not json")
    with pytest.raises(AdminError, match="admin.json: admin file: line 1: not valid JSON"):
        AdminStore(path)
    path.write_text('{"pin": 5}')
    with pytest.raises(AdminError, match="admin.json: admin file: missing key 'secret_key'"):
        AdminStore(path)
    path.write_text('{"pin": 5, "secret_key": "ab"}')
    with pytest.raises(AdminError, match="must be an object with 'secret_key' and 'pin'"):
        AdminStore(path)
    path.write_text('{"pin": null, "secret_key": "ab", "pin_hint": "1234"}')
    with pytest.raises(AdminError, match="admin.json: admin file: unknown key 'pin_hint'"):
        AdminStore(path)
    assert path.read_text() == '{"pin": null, "secret_key": "ab", "pin_hint": "1234"}'


def test_throttle_forgets_after_the_lockout():
    now = [0.0]
    t = Throttle(limit=2, lockout=10, clock=lambda: now[0])
    t.failed("x")
    assert t.wait_left("x") == 0
    t.failed("x")
    assert t.wait_left("x") == 10
    now[0] = 11
    assert t.wait_left("x") == 0
    t.failed("x")  # a fresh count after the lockout
    assert t.wait_left("x") == 0


def test_session_cookie_is_httponly_and_samesite(service):
    client = service.app.test_client()
    r = client.get("/api/session")
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_the_service_hashes_pins_with_full_strength_scrypt_by_default(tmp_path):
    store = AdminStore(tmp_path / "admin.json")
    store.set_pin("4321")
    assert json.loads((tmp_path / "admin.json").read_text())["pin"].startswith("scrypt:32768:8:1$")
