"""The board's [hub] table and the hub's own file: every key validated, each error naming it."""

from __future__ import annotations

import pytest

from tableref.config import ConfigError, load_config
from tableref.hub.settings import load_server_config


def _board(tmp_path, hub: str):
    path = tmp_path / "board.toml"
    path.write_text(f'[game]\nname = "gyges"\n[hub]\n{hub}')
    return path


def test_a_full_hub_table_reads(tmp_path):
    (tmp_path / "pw").write_text("secret\n")
    (tmp_path / "ca.crt").write_text("x")
    cfg = load_config(_board(tmp_path, 'broker = "mqtts://hub.local"\nboard = "t-7"\npassword_file = "pw"\n'
                                       'ca_file = "ca.crt"\n'))
    b = cfg.hub.broker
    assert (cfg.hub.board, b.host, b.port, b.tls, b.username) == ("t-7", "hub.local", 8883, True, "t-7")
    assert b.password() == "secret" and b.url == "mqtts://hub.local:8883"
    cfg.check_files()
    assert load_config(_board(tmp_path, 'broker = "mqtt://h:1999"\nboard = "x"\n')).hub.broker.port == 1999


@pytest.mark.parametrize("text, key, words", [
    ('board = "t1"\n', "hub.broker", "missing"),
    ('broker = "mqtt://h"\n', "hub.board", "missing"),
    ('broker = "http://h"\nboard = "t1"\n', "hub.broker", "mqtt://HOST"),
    ('broker = "mqtt://h:99999"\nboard = "t1"\n', "hub.broker", "not a broker URL"),
    ('broker = "mqtt://user@h"\nboard = "t1"\n', "hub.broker", "no user"),
    ('broker = "mqtt://h"\nboard = "t 1"\n', "hub.board", "letters, digits"),
    ('broker = "mqtt://h"\nboard = "t/1"\n', "hub.board", "letters, digits"),
    ('broker = "mqtt://h"\nboard = "t1"\nusername = "a b"\n', "hub.username", "without spaces"),
    ('broker = "mqtt://h"\nboard = "t1"\nca_file = "ca"\n', "hub.ca_file", "mqtts://"),
    ('broker = "mqtt://h"\nboard = "t1"\nport = 1\n', "hub.port", "unknown key"),
    ('broker = 5\nboard = "t1"\n', "hub.broker", "expected a broker URL"),
])
def test_each_bad_key_is_named(tmp_path, text, key, words):
    with pytest.raises(ConfigError) as err:
        load_config(_board(tmp_path, text))
    assert err.value.key == key and words in str(err.value)


def test_unreadable_password_file_is_named_on_check(tmp_path):
    cfg = load_config(_board(tmp_path, 'broker = "mqtt://h"\nboard = "t1"\npassword_file = "nope"\n'))
    with pytest.raises(ConfigError, match="hub.password_file: .*nope: cannot read"):
        cfg.check_files()


def test_the_hubs_own_file(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text('[broker]\nbroker = "mqtt://127.0.0.1:1884"\n[web]\nport = 8099\n[data]\ndir = "d"\n'
                    '[event]\nname = "Spring open"\n')
    cfg = load_server_config(path)
    assert (cfg.broker.port, cfg.port, cfg.event, cfg.store_path) == (1884, 8099, "Spring open", tmp_path / "d" /
                                                                      "hub.sqlite3")
    path.write_text('[web]\nthreads = 1\n')
    with pytest.raises(ConfigError, match="web.threads"):
        load_server_config(path)
    path.write_text('[evnt]\nname = "x"\n')
    with pytest.raises(ConfigError, match="did you mean 'event'"):
        load_server_config(path)
