"""The players: the searching :class:`Engine`, and the bench's baselines, all with one shape.

``play(state, limit=None, *, rng, clock=None, stop=None) -> PlayResult`` returns a whole turn:
the move and every further move while the same player is to move and the game goes on.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from rules.game import State

from .api import Analysis, Limit, PlayResult
from .errors import EngineError, GameOverError
from .evaluator import Evaluator, PlayoutEvaluator
from .knowledge import Knowledge, knowledge_for
from .levels import Level, get_level
from .mcts import Budget, Node, Search

MAX_TURN = 256  # moves in one turn: far above any game's (a guard against a rules bug looping)


def _candidates(know: Knowledge, state: State):
    if state.is_game_over():
        raise GameOverError(f"{state.game_name}: the game is over")
    moves = know.moves(state)
    if not moves:
        raise GameOverError(f"{state.game_name}: {state.to_move} has no legal move")
    return moves


def _texts(states_moves) -> tuple[str, ...]:
    return tuple(s.move_text(m) for s, m in states_moves)


class Engine:
    """MCTS at a level; ``evaluator`` replaces the per-game playouts and knowledge."""

    def __init__(self, level: int | Level = 3, *, evaluator: Evaluator | None = None) -> None:
        self.level = get_level(level)
        self.evaluator = evaluator or PlayoutEvaluator()

    def play(self, state: State, limit: Limit | None = None, *, rng: random.Random,
             clock: Callable[[], float] | None = None, stop: Callable[[], bool] | None = None) -> PlayResult:
        slip = self.evaluator.knowledge(state).slip(self.level.number, self.level.slip)
        return self._think(state, limit, rng, clock, stop, slip)[0]

    def limit_for(self, state: State) -> Limit:
        """The level's whole-turn limit in this state's game (a game may keep its own)."""
        return self.evaluator.knowledge(state).limit(self.level.number, self.level.limit)

    def analyse(self, state: State, limit: Limit | None = None, *, rng: random.Random,
                clock: Callable[[], float] | None = None, stop: Callable[[], bool] | None = None) -> Analysis:
        best, search, root = self._think(state, limit, rng, clock, stop, 0.0)  # a hint never slips
        ranked = tuple((c.move, state.move_text(c.move), c.visits, search.value_of(c, root.mover))
                       for c in search.ranked(root))
        if not ranked or ranked[0][0] != best.moves[0]:  # a forced or fallback first move
            ranked = ((best.moves[0], best.texts[0], 0, best.evaluation),) + tuple(r for r in ranked if r[0] != best.moves[0])
        return Analysis(best, ranked)

    # -- the turn -----------------------------------------------------------------------------

    def _think(self, state: State, limit: Limit | None, rng: random.Random,
               clock: Callable[[], float] | None, stop: Callable[[], bool] | None,
               slip: float) -> tuple[PlayResult, Search, Node]:
        if not isinstance(rng, random.Random):
            raise EngineError("rng: pass a random.Random (the engine keeps no randomness of its own)")
        if limit is None:
            # The level's own limit; without a clock only its node budget (deterministic).
            own = self.limit_for(state)
            limit = own if clock is not None else Limit(nodes=own.nodes)
        if limit.time is not None and clock is None:
            raise ValueError("Limit(time=…) needs a clock (e.g. time.monotonic)")
        if limit.time is None and limit.nodes is None and stop is None:
            raise ValueError("an unbounded search: give Limit(nodes=…) or Limit(time=…, clock) or stop")
        know = self.evaluator.knowledge(state)
        moves = _candidates(know, state)
        search = Search(self.evaluator, self.level.settings, know.players(state), rng)
        search.widen_for(know)
        budget = Budget(limit.nodes, limit.time, clock, stop)
        mover = state.to_move
        root = node = search.new_root(state)
        # A turn of several moves keeps half the budget for the moves after the first; each
        # later move is searched again with half of what is left, the turn's last with all of
        # it (a turn that stopped searching once its chosen child had a few dozen visits spent
        # about half its budget: Anacund's levels 3-5, cut by time on a Pi, then stood ~1.7×
        # apart in simulations instead of their caps' 2-3×).
        several = not _last_of_turn(root, moves[:3])
        chosen: list[tuple[State, object]] = []
        evaluation = None
        while len(chosen) < MAX_TURN:
            cands = moves if node is root else know.moves(node.state)
            if len(cands) == 1 and node is not root:
                child = self._child(search, node, cands[0])
            else:
                if node is root:
                    # a forced move is only judged, not searched
                    search.run(node, budget, 0.05 if len(moves) == 1 else 0.5 if several else 1.0)
                elif not budget.exhausted():
                    search.run(node, budget, 1.0 if _last_of_turn(node, cands[:3]) else 0.5)
                child, slip = self._best(search, node, know, rng, slip)
            if evaluation is None:
                evaluation = search.value_of(child, mover) if child.visits else 0.5
            chosen.append((node.state, child.move))
            node = child
            if node.state.is_game_over() or node.state.to_move != mover:
                break
        result = PlayResult(tuple(m for _, m in chosen), _texts(chosen), float(evaluation),
                            budget.used_nodes, budget.elapsed() if clock is not None else 0.0,
                            self.level.number, budget.stopped)
        return result, search, root

    @staticmethod
    def _child(search: Search, node: Node, move) -> Node:
        for c in node.children:
            if c.move == move:
                return c
        child = Node(node.state.successor(move), move, len(search.players))
        node.children.append(child)
        if node.untried:
            node.untried = [m for m in node.untried if m != move]
        return child

    def _slip(self, search: Search, node: Node, know: Knowledge, ranked: list[Node], visited: int,
              rng: random.Random) -> Node | None:
        """The move a slip plays: one of the search's 2nd to 4th choices, or, where the game
        says so (``Knowledge.slip_among`` None), any move but the first choice — never one that
        loses at once, and one that ends the turn unless the game lets a slip come early."""
        def allowed(c: Node) -> bool:
            return (know.slip_early or _ends_turn(node, c)) and not _loses_at_once(node, c)

        if know.slip_among is not None:
            others = [c for c in ranked[1:min(visited, know.slip_among)] if allowed(c)]
            return others[rng.randrange(len(others))] if others else None
        moves = [m for m in know.moves(node.state) if m != ranked[0].move]
        rng.shuffle(moves)
        for move in moves[:8]:  # a few tries: most moves of a turn are allowed
            child = self._child(search, node, move)
            if allowed(child):
                return child
        return None

    def _best(self, search: Search, node: Node, know: Knowledge, rng: random.Random,
              slip: float) -> tuple[Node, float]:
        """The move to play here, and the turn's slip after it. A turn slips at most once, with
        the level's chance drawn at its first real choice, so a turn of many moves is handicapped
        no more than a turn of one; once drawn, 1.0 (slip when allowed) or 0.0 (not this turn),
        and after a slip 0.0 — or 1.0 where the game's slip is the rest of the turn too
        (``Knowledge.slip_turn``).
        The slip is a move that ends the turn: a slip early in a turn of several moves left the
        rest of it to a tree grown under another move, all but random at a low level's budget
        (Annelids' level 1 then lost to random play a third of the time) — unless the game says
        a slip may come early (``Knowledge.slip_early``: the rest of the turn is searched again)."""
        visited = [c for c in node.children if c.visits]
        if visited:
            ranked = search.ranked(node)
            if slip and len(visited) > 1:
                if slip < 1.0:
                    slip = 1.0 if rng.random() < slip else 0.0
                if slip and not _wins_at_once(node, ranked[0]):
                    other = self._slip(search, node, know, ranked, len(visited), rng)
                    if other is not None:
                        return other, 1.0 if know.slip_turn else 0.0
            return ranked[0], slip
        # Nothing searched here (the budget or stop() ran out): the knowledge's cheap choice.
        if node.untried is None:
            first = know.fallback(node.state, know.moves(node.state), rng)
        else:
            first = node.untried[-1] if node.untried else node.children[0].move
        return self._child(search, node, first), slip


def _last_of_turn(node: Node, moves) -> bool:
    """None of these moves (a node's first few) goes on with the mover's turn: its last move."""
    by_move = {c.move: c for c in node.children}
    for move in moves:
        child = by_move.get(move)
        after = child.state if child is not None else node.state.successor(move)
        if not after.is_game_over() and after.to_move == node.mover:
            return False
    return True


def _ends_turn(node: Node, child: Node) -> bool:
    return child.state.is_game_over() or child.state.to_move != node.mover


def _loses_at_once(node: Node, child: Node) -> bool:
    """The move ends the game and another player has won it (a draw is no loss)."""
    out = child.state.outcome()
    return out is not None and out.winner is not None and out.winner != node.mover


def _wins_at_once(node: Node, child: Node) -> bool:
    """The move ends the game and the mover has won it (a slip never passes over a win)."""
    out = child.state.outcome()
    return out is not None and out.winner == node.mover


class RandomPlayer:
    """A uniformly random choice among the moves a player would choose for itself."""

    level = None

    def play(self, state: State, limit: Limit | None = None, *, rng: random.Random,
             clock: Callable[[], float] | None = None, stop: Callable[[], bool] | None = None) -> PlayResult:
        know = knowledge_for(state.game_name)
        _candidates(know, state)
        mover, chosen = state.to_move, []
        while len(chosen) < MAX_TURN:
            moves = know.moves(state)
            move = moves[rng.randrange(len(moves))]
            chosen.append((state, move))
            state = state.successor(move)
            if state.is_game_over() or state.to_move != mover:
                break
        return PlayResult(tuple(m for _, m in chosen), _texts(chosen), 0.5, 0, 0.0, None)


class GreedyPlayer:
    """One move of lookahead on the game's own result: an immediate win, else the move that most
    raises its own score (then lowers the best opponent's), ties at random; never an immediate loss
    when another move exists."""

    level = None

    def play(self, state: State, limit: Limit | None = None, *, rng: random.Random,
             clock: Callable[[], float] | None = None, stop: Callable[[], bool] | None = None) -> PlayResult:
        know = knowledge_for(state.game_name)
        _candidates(know, state)
        mover, chosen = state.to_move, []
        while len(chosen) < MAX_TURN:
            best, best_key = None, None
            for move in know.moves(state):
                after = state.successor(move)
                out = after.outcome()
                result = 1 if out is None or out.winner is None else (2 if out.winner == mover else 0)
                scores = after.scores()
                others = max((v for p, v in scores.items() if p != mover), default=0)
                key = (result, scores.get(mover, 0), -others, rng.random())
                if best_key is None or key > best_key:
                    best, best_key = move, key
            chosen.append((state, best))
            state = state.successor(best)
            if state.is_game_over() or state.to_move != mover:
                break
        return PlayResult(tuple(m for _, m in chosen), _texts(chosen), 0.5, 0, 0.0, None)
