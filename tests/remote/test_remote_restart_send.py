"""A table killed between its move and the move's clock row sends the move once restarted.

The link waits a moment (CLOCK_WAIT) for a move's clock row so that the move goes out with its
times; the wait is measured on the wall clock, the journal's commit times' own. It was measured
on time.monotonic against those epoch times — never past — so a move whose row never came (the
service SIGKILLed in between, a power cut) was never sent: the other table waited for ever."""

from __future__ import annotations

from types import SimpleNamespace

from tableref.remote.store import CLOCK_WAIT, MatchGame

EPOCH = 1_795_950_997.0  # a commit time as the journal keeps it (seconds since 1970)


def a_game(times):
    to_move = ["south", "north", "south", "north"]
    seats = SimpleNamespace(is_remote=lambda side: side == "north", remotes={})
    record = SimpleNamespace(moves=["e1-e3", "a6-c5", "d1-e1"], seats=seats, id=2, finished=False,
                             states=[SimpleNamespace(to_move=t) for t in to_move])
    created = [EPOCH - 60.0, EPOCH - 30.0, EPOCH]
    return MatchGame(record, "table-a.T8GTQ2", "table-b", "table-a", None, created, times, True, "10+5")


def test_a_move_whose_clock_row_never_came_goes_out_without_times():
    game = a_game([{"south": 600000, "north": 600000}, {"south": 600000, "north": 599000}, None])
    assert [m.ply for m in game.mine(EPOCH + 0.5)] == [1]  # just made: its row is on its way
    late = game.mine(EPOCH + CLOCK_WAIT + 1.0)
    assert [m.ply for m in late] == [1, 3] and late[1].times == ()


def test_a_move_with_its_clock_row_goes_out_with_its_times():
    game = a_game([{"south": 600000}, {"south": 600000}, {"south": 598000, "north": 599000}])
    out = game.mine(EPOCH + 0.1)
    assert [m.ply for m in out] == [1, 3] and dict(out[1].times) == {"south": 598000, "north": 599000}


def test_the_link_sends_it_by_the_wall_clock_whatever_its_own_clock_reads(tmp_path):
    """The link's own clock (time.monotonic in the service: seconds since boot) is not the
    journal's; a link that judged the wait by it held the move for ever."""
    from tableref.hub.settings import BrokerConfig
    from tableref.remote.client import RemoteLink
    from tableref.remote.settings import RemoteConfig
    from tableref.remote.wire import Move, decode

    class Published:
        def __init__(self) -> None:
            self.sent = []

        def publish(self, topic, payload, qos=0):
            self.sent.append(decode(topic, payload if isinstance(payload, bytes) else payload.encode())[2])

    game = a_game([{"south": 600000, "north": 600000}, {"south": 600000, "north": 599000}, None])
    since_boot = 4_000.0
    link = RemoteLink(RemoteConfig(BrokerConfig("127.0.0.1", 1883), "table-a"), tmp_path / "j.sqlite3",
                      submit=lambda cmd: None, start_game=lambda *a: None,
                      clock=lambda: since_boot, wall=lambda: EPOCH + CLOCK_WAIT + 1.0)
    link._client = wire = Published()
    link._welcome_at = since_boot  # the game was just sent (the welcome is not what is tested)
    link._send(game, since_boot)
    assert [m.ply for m in wire.sent if isinstance(m, Move)] == [1, 3]
