"""End to end with a real Mosquitto: 20 simulated boards through an event of two rounds."""

from __future__ import annotations


from tableref.hub.standings import results, standings

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import hub_games, journal_games, make_hub, make_tables, wait_all_in

pytestmark = needs_mosquitto


def _pair(hub, rnd, tables, names):
    for i, t in enumerate(tables):
        players = {"A": names[(2 * i + rnd) % len(names)], "B": names[(2 * i + 1 + 3 * rnd) % len(names)]}
        hub.store.set_pairing(rnd, t.name, players)
        assert hub.push_pairing(rnd, t.name, players)
    wait_for(lambda: all(t.publisher.pairing is not None and t.publisher.pairing.round == rnd for t in tables), 10,
             f"every board to have round {rnd}'s pairing")


def test_twenty_boards_two_rounds_hub_equals_journals(broker, tmp_path):
    hub = make_hub(broker.port, tmp_path / "hub")
    tables = make_tables(20, broker.port, tmp_path / "boards")
    try:
        wait_for(lambda: hub.link == "connected", 10, "the hub to connect")
        names = [f"Player {i:02d}" for i in range(40)]
        for rnd in (1, 2):
            assert hub.store.add_round() == rnd
            _pair(hub, rnd, tables, names)
            for t in tables:
                if rnd == 2:
                    t.new_game()
                t.play_game()
                assert t.over, f"{t.name}: the game did not end"
        wait_all_in(hub, tables)
        for t in tables:
            mine = journal_games(t)
            assert hub_games(hub, t.name) == mine  # record for record: moves, events, outcome, players
            assert len(mine) == 2 and all(g["outcome"] is not None for g in mine.values())
        # Standings from the hub equal those worked out from the journals themselves.
        res = results(hub.store.pairings(), hub.store.games())
        assert all(r.outcome is not None for r in res) and len(res) == 40
        expected: dict[str, list] = {}
        for t in tables:
            for g in journal_games(t).values():
                for side, name in g["players"].items():
                    win = g["outcome"]["winner"]
                    row = expected.setdefault(name, [0, 0, 0, 0])
                    row[0 if win == side else 1 if win is None else 2] += 1
                    row[3] += g["outcome"]["scores"][side]
        got = {l.name: [l.wins, l.draws, l.losses, l.score] for l in standings(res)}
        assert got == expected
        assert hub.counters.malformed == 0 and hub.counters.oversized == 0
    finally:
        for t in tables:
            t.stop()
        hub.stop()
