"""``tableref hub credentials add NAME``: a board's own MQTT user, and the ACL lines that let
it publish only under its own topic and read only its own acknowledgements and commands.

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

from .protocol import ROOT, check_board_name

Runner = Callable[..., Any]


class CredentialsError(RuntimeError):
    """mosquitto_passwd missing or failing, or a file that cannot be written; names which."""


def acl_block(name: str, *, hub: bool = False) -> str:
    if hub:  # the hub reads every board and answers each
        return f"user {name}\ntopic readwrite {ROOT}/#\n"
    base = f"{ROOT}/{name}"
    return (f"user {name}\n"
            f"topic write {base}/journal\ntopic write {base}/live\ntopic write {base}/status\n"
            f"topic read {base}/ack\ntopic read {base}/command\n")


def add(name: str, password_file: Path, acl_file: Path, *, out: Path | None = None, hub: bool = False,
        password: str | None = None, run: Runner = subprocess.run, tool: str | None = None) -> str:
    """Add (or reset) user ``name``; returns the password. The ACL block is written once."""
    if not hub:
        check_board_name(name)
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
