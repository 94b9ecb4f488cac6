"""TLS with a CA of the club's own (docs/hub.md): the commands of the doc make the CA and the
broker's certificate; the board connects with mqtts:// and ca_file, and a board trusting
another CA is refused. And ``tableref hub credentials add`` from the command line."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tableref.hub.settings import BrokerConfig

from mosquittohelp import Broker, needs_mosquitto, wait_for
from hubhelp import hub_games, journal_games, make_hub, wait_all_in
from tableref.hub.simulate import SimTable

pytestmark = needs_mosquitto


def _ca(d, name):
    run = lambda *a: subprocess.run(a, cwd=d, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-days", "30", "-subj",
        f"/CN={name}", "-keyout", f"{name}.key", "-out", f"{name}.crt")
    return d / f"{name}.crt"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_mqtts_with_the_clubs_own_ca(tmp_path):
    ca = _ca(tmp_path, "club-ca")
    other = _ca(tmp_path, "other-ca")
    ext = tmp_path / "san.ext"
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run = lambda *a: subprocess.run(a, cwd=tmp_path, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-new", "-nodes", "-newkey", "rsa:2048", "-subj", "/CN=localhost", "-keyout", "hub.key",
        "-out", "hub.csr")
    run("openssl", "x509", "-req", "-in", "hub.csr", "-CA", "club-ca.crt", "-CAkey", "club-ca.key",
        "-CAcreateserial", "-days", "30", "-extfile", "san.ext", "-out", "hub.crt")
    b = Broker(tmp_path / "broker")
    conf = b.conf.read_text().replace(f"listener {b.port} 127.0.0.1",
                                      f"listener {b.port} 127.0.0.1\ncafile {ca}\ncertfile {tmp_path}/hub.crt\n"
                                      f"keyfile {tmp_path}/hub.key")
    b.conf.write_text(conf)  # the broker's one listener speaks TLS
    b.start()
    hub = make_hub(b.port, tmp_path / "hub", tls=True, ca_file=ca, host="localhost")
    good = SimTable("table-01", tmp_path / "t1.sqlite3", BrokerConfig("localhost", b.port, True, ca_file=ca),
                    resend_after=1.0).start()
    bad = SimTable("table-02", tmp_path / "t2.sqlite3", BrokerConfig("localhost", b.port, True, ca_file=other)).start()
    try:
        for _ in range(5):
            good.step()
            bad.step()
        wait_all_in(hub, [good])
        assert hub_games(hub, "table-01") == journal_games(good)
        assert hub.store.games("table-02") == []
        link = wait_for(lambda: bad.publisher.link.state == "offline" and bad.publisher.link, 10, "the TLS refusal")
        assert "TLS certificate" in link.detail
    finally:
        good.stop()
        bad.stop()
        hub.stop()
        b.stop()


def test_credentials_add_from_the_command_line(tmp_path):
    pw, acl, out = tmp_path / "passwd", tmp_path / "acl", tmp_path / "t7.password"
    done = subprocess.run([sys.executable, "-m", "tableref", "hub", "credentials", "add", "table-07",
                           "--password-file", str(pw), "--acl-file", str(acl), "--out", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert pw.read_text().startswith("table-07:") and out.stat().st_mode & 0o777 == 0o600
    assert "topic write tableref/v1/table-07/journal" in acl.read_text()
    assert out.read_text().strip() not in pw.read_text()  # only the hash is in Mosquitto's file
    again = subprocess.run([sys.executable, "-m", "tableref", "hub", "credentials", "add", "table/07",
                            "--password-file", str(pw), "--acl-file", str(acl)], capture_output=True, text=True)
    assert again.returncode == 2 and "board name must be" in again.stderr
    assert acl.read_text().count("user table-07") == 1
