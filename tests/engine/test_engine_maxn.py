"""Max^n with three players (DRIFT three-handed): each node's player picks among its children by
its own component of the value vector, whoever that is — not the first player's, nor the root's —
and a simulation's whole vector is backed up through every node on its path."""

from __future__ import annotations

import random

from engine.evaluator import Evaluator
from engine.mcts import Budget, Node, Search, SearchSettings
from rules import get_game


def three_handed_turn_of(seat: int):
    """DRIFT three-handed, played on from the start until the player in ``seat`` is to move in
    the play stage, at the start of its turn."""
    state = get_game("drift").default_setup(None)
    rng = random.Random(4)
    while not (state.stage == "play" and state.seat == seat and not state.moved):
        moves = [m for m in state.legal_moves() if not m.after_end]
        state = state.successor(moves[rng.randrange(len(moves))])
    return state


class Fixed(Evaluator):
    def __init__(self, values) -> None:
        self.values = tuple(values)

    def evaluate(self, state, players, rng):
        return self.values


def test_the_player_to_move_picks_by_its_own_component():
    for seat in (0, 1, 2):
        state = three_handed_turn_of(seat)
        players = tuple(state.players)
        search = Search(Fixed((0.5, 0.5, 0.5)), SearchSettings(), players, random.Random(1))
        node = search.new_root(state)
        moves = [m for m in state.legal_moves() if not m.after_end][:3]
        for k, move in enumerate(moves):  # child k is the best for player k, the worst for the others
            child = Node(state.successor(move), move, 3)
            child.visits = 10
            child.totals = [9.0 if i == k else 1.0 for i in range(3)]
            node.children.append(child)
        node.visits = 30
        assert node.mover == players[seat]
        assert search._select(node).move == moves[seat]


def test_a_simulation_backs_up_every_players_value_along_its_path():
    state = three_handed_turn_of(2)
    players = tuple(state.players)
    search = Search(Fixed((0.1, 0.3, 0.6)), SearchSettings(), players, random.Random(1))
    root = search.new_root(state)
    search.run(root, Budget(40, None, None, None))
    assert root.visits == 40
    assert [round(t, 9) for t in root.totals] == [4.0, 12.0, 24.0]
    deeper = [c for c in root.children if c.children]
    assert deeper, "the tree grew below the root"
    for child in deeper + [g for c in deeper for g in c.children]:
        assert [round(t / child.visits, 9) for t in child.totals] == [0.1, 0.3, 0.6]
