"""The hub tests' helpers: a real Mosquitto process on a free 127.0.0.1 port, and waiting.
(A module of its own, not conftest: ``from mosquittohelp import`` finds whichever conftest the
run imported last.)"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from waiting import wait_for  # noqa: F401  (the hub tests import it from here)


def mosquitto_path() -> str | None:
    for name in ("mosquitto",):
        found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin")
        if found:
            return found
    return None


MOSQUITTO = mosquitto_path()
SHIPPED_CONF = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto" / "tableref.conf"
needs_mosquitto = pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed "
                                     "(sh scripts/ensure-mosquitto installs Debian's package where apt-get can)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One mosquitto process; ``kill()`` (SIGKILL) and ``start()`` again on the same port."""

    def __init__(self, directory: Path, *, password_file: Path | None = None, acl_file: Path | None = None,
                 extra: str = "", max_queued: int = 100000) -> None:
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.conf = self.dir / "mosquitto.conf"
        lines = [f"listener {self.port} 127.0.0.1", "persistence true", f"persistence_location {self.dir}/",
                 "autosave_interval 1", f"log_dest file {self.dir}/mosquitto.log", "log_type error",
                 "log_type warning", "log_type notice", f"max_queued_messages {max_queued}"]
        if os.geteuid() == 0:
            lines.append("user root")  # as root mosquitto would drop to its own user, locked out of tmp_path
        if password_file is not None:
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        else:
            lines += ["allow_anonymous true"]
        if acl_file is not None:
            lines.append(f"acl_file {acl_file}")
        self.conf.write_text("\n".join(lines) + "\n" + extra)
        self.proc: subprocess.Popen | None = None

    def use_shipped(self, password_file: Path, acl_file: Path) -> "Broker":
        """Run the club's config as shipped (deploy/mosquitto/tableref.conf) instead: only its
        files and its plain listener's port changed, this broker's log and persistence kept."""
        text = SHIPPED_CONF.read_text()
        text = text.replace("/etc/mosquitto/tableref.passwd", str(password_file))
        text = text.replace("/etc/mosquitto/tableref.acl", str(acl_file))
        assert "\nlistener 1883\n" in text
        text = text.replace("\nlistener 1883\n", f"\nlistener {self.port} 127.0.0.1\n")
        keep = [l for l in self.conf.read_text().splitlines()
                if l.startswith(("user", "log_", "persistence", "autosave"))]
        self.conf.write_text(text + "\n" + "\n".join(keep) + "\n")
        return self

    def start(self) -> "Broker":
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port}: {self.log()}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def log(self) -> str:
        path = self.dir / "mosquitto.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""
