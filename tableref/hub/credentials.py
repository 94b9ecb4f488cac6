"""``tableref hub credentials add NAME``: a board's own MQTT user, and the ACL lines that let
it publish only under its own topic and read only its own acknowledgements and commands (and,
for a game with another table, write to others' inboxes as itself and read its own).

The password is hashed into Mosquitto's password file by ``mosquitto_passwd`` (the runner is
a parameter, so tests can check the call; the hub tests run the real program). The plain
password is written to a file for the board (mode 0600) — ``[hub] password_file`` there.
Mosquitto reads both files again on SIGHUP (``systemctl reload mosquitto``).
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..remote.wire import ROOT as REMOTE_ROOT
from .protocol import ROOT, check_board_name

Runner = Callable[..., Any]


class CredentialsError(RuntimeError):
    """mosquitto_passwd missing or failing, or a file that cannot be written; names which."""


def acl_block(name: str, *, hub: bool = False) -> str:
    if hub:  # the hub reads every board and answers each
        return f"user {name}\ntopic readwrite {ROOT}/#\n"
    base = f"{ROOT}/{name}"
    # A game with another table (docs/remote.md): it writes to any table's inbox, but only as
    # itself (the broker vouches for the sender), and reads only its own inbox.
    return (f"user {name}\n"
            f"topic write {base}/journal\ntopic write {base}/live\ntopic write {base}/status\n"
            f"topic read {base}/ack\ntopic read {base}/command\n"
            f"topic write {REMOTE_ROOT}/+/{name}\ntopic read {REMOTE_ROOT}/{name}/+\n")


def _kind(acl_text: str, name: str) -> str | None:
    """"hub" or "board": what the ACL's block for user ``name`` lets it do; None: no such block."""
    lines = acl_text.splitlines()
    if f"user {name}" not in lines:
        return None
    block = lines[lines.index(f"user {name}") + 1:]
    block = block[:next((i for i, l in enumerate(block) if l.startswith("user ")), len(block))]
    return "hub" if f"topic readwrite {ROOT}/#" in block else "board"


def _check_kind(name: str, acl_file: Path, hub: bool) -> None:
    """A client's id is its username at the club's broker (use_username_as_clientid): a board
    user under the hub's name (or the hub's under a board's) would reset that user's password
    and take its session. Refused before mosquitto_passwd runs."""
    try:
        kind = _kind(acl_file.read_text(encoding="utf-8"), name) if acl_file.exists() else None
    except OSError as exc:
        raise CredentialsError(f"{acl_file}: cannot read: {exc.strerror}") from None
    want = "hub" if hub else "board"
    if kind is not None and kind != want:
        raise CredentialsError(f"{name} is already {'the hub' if kind == 'hub' else 'a board'}'s user in {acl_file}: "
                               f"choose another name for the {want} (a client's id is its username)")


def add(name: str, password_file: Path, acl_file: Path, *, out: Path | None = None, hub: bool = False,
        password: str | None = None, run: Runner = subprocess.run, tool: str | None = None) -> str:
    """Add (or reset) user ``name``; returns the password. The ACL block is written once."""
    if not hub:
        check_board_name(name)
    _check_kind(name, acl_file, hub)
    password = password or secrets.token_urlsafe(18)
    tool = tool or shutil.which("mosquitto_passwd") or shutil.which("mosquitto_passwd", path="/usr/sbin:/usr/bin")
    if tool is None:
        raise CredentialsError("mosquitto_passwd not found: install Debian's mosquitto (scripts/ensure-mosquitto)")
    args = [tool, "-b", str(password_file), name, password]
    if not password_file.exists():
        password_file.parent.mkdir(parents=True, exist_ok=True)
        args.insert(1, "-c")
    done = run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise CredentialsError(f"mosquitto_passwd failed on {password_file}: "
                               f"{(done.stderr or done.stdout).strip() or done.returncode}")
    try:
        text = acl_file.read_text(encoding="utf-8") if acl_file.exists() else ""
        if f"user {name}\n" not in text:
            with open(acl_file, "a", encoding="utf-8") as f:
                f.write(("\n" if text and not text.endswith("\n\n") else "") + acl_block(name, hub=hub))
        if out is not None:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(password + "\n")
    except OSError as exc:
        raise CredentialsError(f"{exc.filename}: cannot write: {exc.strerror}") from None
    return password
