"""Monte Carlo tree search (UCT) with values per player (max^n backup).

Each node keeps, per player, the sum of the results of the simulations through it; the player
to move at a node picks among its children by its own component (max^n). Consecutive nodes with
the same player to move are one player's turn being planned move by move, so a whole turn is
searched as one turn. Time and randomness come from outside: ``clock`` and ``rng``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rules.game import State

from .evaluator import Evaluator
from .knowledge import outcome_values


LEAN = 256  # nodes: a bigger tree keeps no state's memo (Gygès: ~40 kB of moves a state)


@dataclass(frozen=True)
class SearchSettings:
    explore: float = 0.7  # UCT's exploration constant (values are in [0, 1])
    # Progressive widening: a node with n visits has at most widen_base + widen_k·√n children,
    # tried in the knowledge's order; None: every move at once (UCT's usual "unvisited first").
    widen_base: int | None = None
    widen_k: float = 2.0


class Node:
    __slots__ = ("state", "move", "mover", "children", "untried", "visits", "totals", "terminal")

    def __init__(self, state: State, move, n_players: int) -> None:
        self.state = state
        self.move = move
        self.mover = state.to_move
        self.children: list[Node] = []
        self.untried: list | None = None  # filled on the first visit, in the knowledge's order
        self.visits = 0
        self.totals = [0.0] * n_players
        self.terminal: tuple[float, ...] | None = None

    def mean(self, i: int) -> float:
        return self.totals[i] / self.visits if self.visits else 0.5


class Budget:
    """Nodes and clock seconds still to spend, and the stop flag; polled between simulations."""

    def __init__(self, nodes: int | None, seconds: float | None, clock: Callable[[], float] | None,
                 stop: Callable[[], bool] | None) -> None:
        self.nodes, self.seconds, self.clock, self.stop_fn = nodes, seconds, clock, stop
        self.start = clock() if clock is not None else 0.0
        self.used_nodes = 0
        self.stopped = False

    def elapsed(self) -> float:
        return self.clock() - self.start if self.clock is not None else 0.0

    def share(self, fraction: float) -> tuple[int | None, float | None]:
        """A part of what is left: (nodes, clock deadline) for one search."""
        nodes = None if self.nodes is None else max(1, int((self.nodes - self.used_nodes) * fraction))
        deadline = None
        if self.seconds is not None:
            deadline = self.start + self.elapsed() + max(0.0, self.seconds - self.elapsed()) * fraction
        return nodes, deadline

    def stop_requested(self) -> bool:
        if not self.stopped and self.stop_fn is not None and self.stop_fn():
            self.stopped = True
        return self.stopped

    def exhausted(self) -> bool:
        if self.stopped:
            return True
        if self.nodes is not None and self.used_nodes >= self.nodes:
            return True
        return self.seconds is not None and self.elapsed() >= self.seconds


class Search:
    def __init__(self, evaluator: Evaluator, settings: SearchSettings, players: Sequence[str],
                 rng: random.Random) -> None:
        self.evaluator = evaluator
        self.settings = settings
        self.players = tuple(players)
        self.index = {p: i for i, p in enumerate(self.players)}
        self.rng = rng
        self.widen_base = settings.widen_base
        self.widen_k = settings.widen_k
        self.created = 0  # nodes made: past LEAN, states drop their memo (legal moves and the like)

    def widen_for(self, knowledge) -> None:
        """The game's own widening where the level sets none."""
        if self.settings.widen_base is None:
            self.widen_base = knowledge.widen_base
            if knowledge.widen_k is not None:
                self.widen_k = knowledge.widen_k

    def new_root(self, state: State) -> Node:
        return Node(state, None, len(self.players))

    def run(self, root: Node, budget: Budget, fraction: float = 1.0, at_least: int = 0) -> int:
        """Simulations from ``root`` until its share of the budget is spent; how many ran."""
        nodes, deadline = budget.share(fraction)
        done = 0
        while not budget.stop_requested():
            if done >= at_least and (budget.exhausted() or (nodes is not None and done >= nodes)
                                     or (deadline is not None and budget.clock() >= deadline)):
                break
            self.simulate(root)
            done += 1
            budget.used_nodes += 1
        return done

    # -- one simulation -------------------------------------------------------------------------

    def simulate(self, root: Node) -> None:
        path = [root]
        node = root
        while True:
            if node.terminal is not None:
                values = node.terminal
                break
            if node.untried is None:
                self._open(node)
                if node.terminal is not None:
                    values = node.terminal
                    break
            if node.untried and len(node.children) < self._width(node):
                move = node.untried.pop()  # kept reversed: the best guess is last
                child = Node(node.state.successor(move), move, len(self.players))
                node.children.append(child)
                path.append(child)
                done = outcome_values(child.state, self.players)
                if done is not None:
                    child.terminal = tuple(done[p] for p in self.players)
                    child.untried = []
                    values = child.terminal
                else:
                    values = self.evaluator.evaluate(child.state, self.players, self.rng)
                self.created += 1
                if self.created > LEAN:
                    child.state.forget()
                break
            node = self._select(node)
            path.append(node)
        for n in path:
            n.visits += 1
            t = n.totals
            for i, v in enumerate(values):
                t[i] += v

    def _open(self, node: Node) -> None:
        done = outcome_values(node.state, self.players)
        if done is not None:
            node.terminal = tuple(done[p] for p in self.players)
            node.untried = []
            return
        know = self.evaluator.knowledge(node.state)
        moves = know.moves(node.state)
        if not moves:  # no move and not over: judged where it stands
            value = know.value(node.state, self.players)
            node.terminal = tuple(value[p] for p in self.players)
            node.untried = []
            return
        node.untried = know.order(node.state, moves, self.rng)[::-1]
        if self.created > LEAN:
            node.state.forget()

    def _width(self, node: Node) -> int:
        base = self.widen_base
        if base is None:
            return 1 << 30
        return base + int(self.widen_k * math.sqrt(node.visits))

    def _select(self, node: Node) -> Node:
        i = self.index.get(node.mover, 0)
        log_n = math.log(node.visits + 1)
        c = self.settings.explore
        best, best_score = node.children[0], -1.0
        for child in node.children:
            score = child.totals[i] / child.visits + c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        return best

    # -- reading the tree -----------------------------------------------------------------------

    def ranked(self, node: Node) -> list[Node]:
        i = self.index.get(node.mover, 0)
        return sorted(node.children, key=lambda c: (-c.visits, -c.mean(i)))

    def value_of(self, node: Node, player: str) -> float:
        return node.mean(self.index.get(player, 0))
