"""The hub's configuration: the board's ``[hub]`` table (read by ``tableref.config``) and the
hub's own file (``tableref hub --config FILE``, example ``deploy/tableref-hub.toml``).

Both name the broker the same way::

    broker = "mqtt://club-hub.local:1883"     # or mqtts://HOST:8883 (TLS, ca_file = the club's CA)
    username = "table-07"                      # the board's: its name by default
    password_file = "/etc/tableref/hub-password"
    ca_file = "/etc/tableref/club-ca.crt"      # mqtts only; default: the system's CAs

Every error is a ``ConfigError`` naming the file and the dotted key, as everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .protocol import check_board_name

SCHEMES = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class BrokerConfig:
    host: str = "127.0.0.1"
    port: int = 1883
    tls: bool = False
    username: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"

    def password(self) -> str | None:
        """The password file's first line (read when connecting, so it can be rotated)."""
        if self.password_file is None:
            return None
        return self.password_file.read_text(encoding="utf-8").splitlines()[0] if \
            self.password_file.stat().st_size else ""


@dataclass(frozen=True)
class HubConfig:
    """A board's ``[hub]`` table: where to publish, and as whom."""

    broker: BrokerConfig
    board: str


@dataclass(frozen=True)
class HubServerConfig:
    """The hub's own file: ``[broker]``, ``[event]``, ``[web]``, ``[data]``, ``[mosquitto]``."""

    broker: BrokerConfig = field(default_factory=BrokerConfig)
    event: str = "Club night"
    host: str = "127.0.0.1"
    port: int = 8080
    data_dir: Path = field(default_factory=lambda: Path.home() / ".local" / "share" / "tableref-hub")
    threads: int = 16  # the WSGI server's worker threads (event streams are not among them)
    password_file: Path | None = None  # Mosquitto's password file, for `tableref hub credentials add`
    acl_file: Path | None = None
    where: str = "<defaults>"

    @property
    def store_path(self) -> Path:
        return self.data_dir / "hub.sqlite3"

    @property
    def admin_path(self) -> Path:
        return self.data_dir / "hub-admin.json"


def parse_url(reader: Any, key: str, text: str) -> tuple[str, int, bool]:
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise reader.error(key, f"not a broker URL ({exc}): expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]") \
            from None
    if parts.scheme not in SCHEMES or not parts.hostname or parts.path not in ("", "/") or parts.query \
            or parts.username:
        raise reader.error(key, f"expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (no user, path or query), "
                                f"got {text!r}")
    return parts.hostname, port if port is not None else SCHEMES[parts.scheme], parts.scheme == "mqtts"


def read_broker(reader: Any, t: Any, *, default_user: str | None) -> BrokerConfig:
    """The broker keys of table ``t`` (a ``tableref.config._Table``)."""
    url = t.get("broker", str, required=True, expect='a broker URL such as "mqtt://club-hub.local:1883"')
    host, port, tls = parse_url(reader, t.path("broker"), url)
    username = t.get("username", str, default_user)
    if username is not None and (not username.strip() or any(c.isspace() or c in "#+/:" for c in username)):
        raise reader.error(t.path("username"), f"expected a name without spaces, '/', '#', '+' or ':', got {username!r}")
    password_file = reader.path(t, "password_file")
    ca_file = reader.path(t, "ca_file")
    if ca_file is not None and not tls:
        raise reader.error(t.path("ca_file"), "a CA file is for TLS: use an mqtts:// broker URL")
    if password_file is not None and username is None:
        raise reader.error(t.path("password_file"), "a password needs a username")
    return BrokerConfig(host, port, tls, username, password_file, ca_file)


def read_board_hub(reader: Any, t: Any | None) -> HubConfig | None:
    """The board's optional ``[hub]`` table (None: the board publishes nothing)."""
    if t is None:
        return None
    name = t.get("board", str, required=True, expect="this board's name, such as \"table-07\"")
    try:
        check_board_name(name)
    except ValueError as exc:
        raise reader.error(t.path("board"), str(exc)) from None
    broker = read_broker(reader, t, default_user=name)
    t.done()
    return HubConfig(broker, name)


def check_files(broker: BrokerConfig, where: str, prefix: str) -> None:
    """Read the password and CA files now, as connecting will (ConfigError naming the key)."""
    from ..config import ConfigError

    for key, path in (("password_file", broker.password_file), ("ca_file", broker.ca_file)):
        if path is None:
            continue
        try:
            with open(path, "rb") as f:
                f.read(1)
        except OSError as exc:
            raise ConfigError(where, f"{prefix}.{key}", f"{path}: cannot read: {exc.strerror}") from None


def load_server_config(path: str | Path | None) -> HubServerConfig:
    """The hub's config file (None: every default, a broker on 127.0.0.1:1883 without a password)."""
    import tomllib

    from ..config import ConfigError, _host, _port, _Reader, _Table

    if path is None:
        return HubServerConfig()
    where = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(where, "", f"cannot read config file: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(where, "", f"not valid TOML: {exc}") from None
    reader = _Reader(where, Path(path).parent)
    top = _Table(reader, data, "")
    kw: dict[str, Any] = {"where": where}
    t = top.table("broker")
    if t is not None:
        kw["broker"] = read_broker(reader, t, default_user=None)
        t.done()
    t = top.table("event")
    if t is not None:
        name = t.get("name", str, "Club night")
        if not name.strip() or len(name) > 80:
            raise ConfigError(where, t.path("name"), f"expected a name of 1-80 characters, got {name!r}")
        kw["event"] = name
        t.done()
    t = top.table("web")
    if t is not None:
        kw["host"] = _host(t.get("host", str, "127.0.0.1"), t.path("host"), where)
        kw["port"] = _port(t.get("port", int, 8080), t.path("port"), where)
        kw["threads"] = reader.whole(t, "threads", 16, least=2)
        t.done()
    t = top.table("data")
    if t is not None:
        kw["data_dir"] = reader.path(t, "dir", required=True)
        t.done()
    t = top.table("mosquitto")
    if t is not None:
        kw["password_file"] = reader.path(t, "password_file")
        kw["acl_file"] = reader.path(t, "acl_file")
        t.done()
    top.done()
    return HubServerConfig(**kw)
