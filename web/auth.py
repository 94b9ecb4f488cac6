"""The admin PIN, the session cookie and CSRF protection.

Anyone who can reach the page may watch. Every state-changing request (any method but
GET/HEAD/OPTIONS) must carry the session's CSRF token, and every control also needs an
admin session: one that has given the PIN. The PIN is chosen on first run, from the
machine itself (a loopback client), and stored only as a scrypt hash in the admin file,
beside the key that signs session cookies.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, jsonify, request, session
from werkzeug.security import check_password_hash, generate_password_hash

from rules.strict import expect_keys, loads

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PIN_LENGTH = (4, 12)
PIN_HASH = "scrypt"  # werkzeug's scrypt: n=2**15, r=8, p=1


class AdminError(RuntimeError):
    """The admin file cannot be read or written; the message names it."""


class AdminStore:
    """The admin file: ``{"pin": <scrypt hash or null>, "secret_key": <hex>}``, mode 0600."""

    def __init__(self, path: str | Path, *, method: str = PIN_HASH) -> None:
        self.path = Path(path)
        self.method = method  # how a new PIN is hashed (tests pass a cheaper scrypt)
        self._lock = threading.Lock()
        self._pin_hash: str | None = None
        if self.path.exists():
            try:
                text = self.path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise AdminError(f"{self.path}: admin file unreadable: {exc}") from None
            where = f"{self.path}: admin file"  # (delete it to choose a new PIN)
            data = expect_keys(loads(text, where=where, error=AdminError), required=("pin", "secret_key"),
                               where=where, error=AdminError)
            if not isinstance(data.get("secret_key"), str) \
                    or not isinstance(data.get("pin"), (str, type(None))):
                raise AdminError(f"{self.path}: admin file must be an object with 'secret_key' and 'pin' "
                                 "(delete it to choose a new PIN)")
            self._secret = data["secret_key"]
            self._pin_hash = data["pin"]
        else:
            self._secret = secrets.token_hex(32)
            self._save()

    @property
    def secret_key(self) -> str:
        return self._secret

    @property
    def pin_set(self) -> bool:
        return self._pin_hash is not None

    @property
    def pin_version(self) -> str:
        """Changes whenever the PIN does, so sessions logged in with an old PIN end."""
        return hmac.new(self._secret.encode(), (self._pin_hash or "").encode(), "sha256").hexdigest()[:16]

    def set_pin(self, pin: str) -> None:
        check_pin_text(pin)
        with self._lock:
            self._pin_hash = generate_password_hash(pin, method=self.method)
            self._save()

    def check_pin(self, pin: str) -> bool:
        return self._pin_hash is not None and isinstance(pin, str) and check_password_hash(self._pin_hash, pin)

    def _save(self) -> None:
        text = json.dumps({"pin": self._pin_hash, "secret_key": self._secret})
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.path)  # all or nothing: a crash never leaves half a file
        except OSError as exc:
            raise AdminError(f"{self.path}: cannot write admin file: {exc.strerror}") from None


def check_pin_text(pin: object) -> str:
    lo, hi = PIN_LENGTH
    if not isinstance(pin, str) or not pin.isdigit() or not lo <= len(pin) <= hi:
        raise ValueError(f"the PIN must be {lo} to {hi} digits")
    return pin


class Throttle:
    """After ``limit`` wrong PINs in a row from one address, refuse it for ``lockout`` s."""

    def __init__(self, limit: int = 5, lockout: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.lockout, self._clock = limit, lockout, clock
        self._failures: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    def wait_left(self, who: str) -> float:
        with self._lock:
            count, since = self._failures.get(who, (0, 0.0))
            if count < self.limit:
                return 0.0
            return max(0.0, since + self.lockout - self._clock())

    def failed(self, who: str) -> None:
        with self._lock:
            count, _ = self._failures.get(who, (0, 0.0))
            if count >= self.limit:
                count = 0  # the lockout has passed: a fresh count
            self._failures[who] = (count + 1, self._clock())

    def succeeded(self, who: str) -> None:
        with self._lock:
            self._failures.pop(who, None)


# -- request checks -----------------------------------------------------------------------------


def store() -> AdminStore:
    return current_app.extensions["tableref_admin"]


def csrf_token() -> str:
    token = session.get("csrf")
    if not isinstance(token, str):
        token = session["csrf"] = secrets.token_urlsafe(32)
    return token


def _said(msgid: str, **values: Any) -> str:
    """An error the page shows as it is (the PIN dialog, a toast), in the reader's language."""
    from .i18n import page_language
    from tableref.i18n import catalog

    return catalog(page_language())._(msgid, **values)


def check_csrf() -> Any:
    """``before_request``: refuse a state-changing request without the session's token."""
    if request.method in SAFE_METHODS:
        return None
    expected = session.get("csrf")
    given = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    if not isinstance(expected, str) or not given or not hmac.compare_digest(expected, given):
        return jsonify(error="missing or wrong CSRF token: reload the page and try again"), 403
    return None


def is_admin() -> bool:
    return store().pin_set and session.get("admin") == store().pin_version


def is_local() -> bool:
    addr = request.remote_addr or ""
    return addr == "::1" or addr.startswith("127.")


def admin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not is_admin():
            why = "enter the admin PIN first" if store().pin_set else "choose an admin PIN first (on the Pi itself)"
            return jsonify(error=_said("controls need the admin PIN: {why}", why=_said(why))), 403
        return view(*args, **kwargs)

    return wrapper


# -- routes -------------------------------------------------------------------------------------

bp = Blueprint("auth", __name__)


def _session_info() -> dict[str, Any]:
    return {"admin": is_admin(), "pin_set": store().pin_set, "can_set_pin": not store().pin_set and is_local(),
            "csrf": csrf_token()}


@bp.get("/api/session")
def session_info() -> Any:
    return jsonify(_session_info())


def _pin_from_request() -> Any:
    body = request.get_json(silent=True)
    if isinstance(body, dict):
        return body.get("pin")
    return request.form.get("pin")


@bp.post("/api/login")
def login() -> Any:
    throttle: Throttle = current_app.extensions["tableref_throttle"]
    who = request.remote_addr or "?"
    wait = throttle.wait_left(who)
    if wait > 0:
        return jsonify(error=_said("too many wrong PINs: try again in {s} s", s=f"{wait:.0f}")), 429
    if not store().pin_set:
        return jsonify(error=_said("no admin PIN has been chosen yet")), 409
    if not store().check_pin(_pin_from_request()):
        throttle.failed(who)
        return jsonify(error=_said("wrong PIN")), 403
    throttle.succeeded(who)
    session["admin"] = store().pin_version
    session.permanent = True
    return jsonify(_session_info())


@bp.post("/api/logout")
def logout() -> Any:
    session.pop("admin", None)
    return jsonify(_session_info())


@bp.post("/api/pin")
def set_pin() -> Any:
    """Choose the PIN on first run (from the machine itself), or change it as admin."""
    if store().pin_set and not is_admin():
        return jsonify(error="only the admin can change the PIN"), 403
    if not store().pin_set and not is_local():
        return jsonify(error="the first PIN must be chosen on the Pi itself (http://127.0.0.1)"), 403
    try:
        store().set_pin(check_pin_text(_pin_from_request()))
    except ValueError:
        lo, hi = PIN_LENGTH
        return jsonify(error=_said("the PIN must be {lo} to {hi} digits", lo=lo, hi=hi)), 400
    except AdminError as exc:
        return jsonify(error=str(exc)), 500
    session["admin"] = store().pin_version
    session.permanent = True
    return jsonify(_session_info())
