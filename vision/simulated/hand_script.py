"""Scripted camera games with the hand in them: when it reaches in, lifts, carries, pauses,
puts down and leaves — for the decision-time bench (``bench/decision_latency.py``) and the
slow-move tests (a Gygès bounce chain done slowly: the ring held over each ring it bounces
on for 0.4 s before it moves on).

:func:`hand_script` gives :class:`HandFrame` s (what stands on the board, the spaces under
the hand) at ``fps``; :func:`vision.simulated.video.script_frames` draws them with a hand over the
hidden spaces. Every frame with the hand in view says so (``hidden``); the time the hand
leaves after each move is ``HandScript.leaves``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rules.game import State
from rules.registry import get_game
from rules.view import Fidelity, View


@dataclass(frozen=True)
class HandFrame:
    t: float
    view: View  # what stands on the board (a piece in the hand is not on it)
    hidden: frozenset[str]  # spaces under the hand; empty: no hand in view
    move: int  # moves put down so far


@dataclass(frozen=True)
class HandTiming:
    """How the players move, in seconds."""

    fps: float = 30.0
    opening: float = 1.0  # the start position, still
    reach: float = 0.3  # the hand moving in
    lift: float = 0.3  # over the piece, lifting it (still)
    hover: float = 0.4  # held still over each space it pauses at
    hovers: int = 2  # pauses per move (a Gygès bounce chain: the rings bounced on)
    put: float = 0.2  # putting the piece down (still)
    still: float = 1.0  # the result, hand gone
    closing: float = 1.0
    lay_down: bool = False  # put the piece down on an intermediate space, fingers on it, then on
    withdraw: float = 0.0  # ... and take the hand away from it this long (the hard case)


@dataclass(frozen=True)
class HandScript:
    frames: tuple[HandFrame, ...]
    leaves: tuple[float, ...]  # per move: the first frame with the hand gone after putting it down
    intermediates: tuple[View, ...]  # positions laid down part-way (never to be accepted)

    def items(self) -> list[tuple[View, frozenset[str]]]:
        """``(view, hidden)`` per frame, as :func:`vision.simulated.video.script_frames` takes them."""
        return [(f.view, f.hidden) for f in self.frames]


def hand_script(start: State, moves: Sequence, *, timing: HandTiming = HandTiming(), seed: int = 0,
                fidelity: Fidelity = Fidelity.KIND) -> HandScript:
    rng = random.Random(seed)
    board = get_game(start.game_name).board()
    space_ids = set(board.space_ids)
    dt = 1.0 / timing.fps
    frames: list[HandFrame] = []
    leaves: list[float] = []
    laid: list[View] = []
    done = 0

    def hold(view: View, hidden: frozenset[str], seconds: float) -> None:
        for _ in range(max(1, int(round(seconds * timing.fps)))):
            frames.append(HandFrame(round(len(frames) * dt, 6), view, hidden, done))

    def near(space: str) -> frozenset[str]:
        """The space and a neighbour or two: a hand is wider than a piece."""
        if space not in space_ids:
            return frozenset()
        nbrs = sorted({n for n, _ in board.neighbours(space)})
        return frozenset([space, *rng.sample(nbrs, min(len(nbrs), rng.randint(1, 2)))])

    def moving(view: View, spaces: Sequence[str], n: int) -> None:
        """The hand sweeping over ``spaces``: a different cover every frame."""
        for i in range(n):
            hold(view, near(spaces[i % len(spaces)]) if spaces else frozenset(), dt)

    state = start
    hold(state.view(fidelity), frozenset(), timing.opening)
    for m in moves:
        before = state.view(fidelity)
        after_state = state.successor(m)
        after = after_state.view(fidelity)
        changed = sorted(before.diff(after))
        gone = {s: Counter(before.get_tokens(s)) - Counter(after.get_tokens(s)) for s in changed}
        origins = [s for s in changed if gone[s] and s in space_ids] or [s for s in changed if s in space_ids]
        dests = [s for s in changed if Counter(after.get_tokens(s)) - Counter(before.get_tokens(s))
                 and s in space_ids] or origins
        lifted = View({s: list((Counter(t) - gone.get(s, Counter())).elements()) for s, t in before.items()})
        moving(before, origins, max(2, int(timing.reach * timing.fps)))
        hold(lifted, frozenset().union(*(near(s) for s in origins)), timing.lift)
        # Pauses over other pieces on the way (the rings a Gygès ring bounces on).
        others = sorted(s for s in before if s in space_ids and s not in changed)
        for b in rng.sample(others, min(len(others), timing.hovers)):
            moving(lifted, [b], 2)
            hold(lifted, near(b), timing.hover)
        if timing.lay_down:
            x = _lay_down_space(state, m, fidelity, rng)
            if x is not None:
                space, view = x
                laid.append(view)
                fingers = near(space) - {space} or near(space)
                moving(lifted, [space], 2)
                hold(view, fingers, timing.hover)  # put down, the fingers still on it
                if timing.withdraw > 0:
                    hold(view, frozenset(), timing.withdraw)  # the hand away, the piece left there
                    moving(view, [space], 2)
                hold(lifted, near(space), timing.lift)  # picked up again
        moving(lifted, dests, 2)
        done += 1
        hold(after, frozenset().union(*(near(s) for s in dests)), timing.put)
        moving(after, [s for s in dests], 2)  # withdrawing
        leaves.append(round(len(frames) * dt, 6))
        hold(after, frozenset(), timing.still)
        state = after_state
    hold(state.view(fidelity), frozenset(), timing.closing)
    return HandScript(tuple(frames), tuple(leaves), tuple(laid))


def _lay_down_space(state: State, move, fidelity: Fidelity, rng: random.Random) -> tuple[str, View] | None:
    """Somewhere the mover might set the piece down part-way: the result of another legal
    move touching the same spaces it leaves (a position the rules would accept)."""
    before = state.view(fidelity)
    after = state.successor(move).view(fidelity)
    left = {s for s in before.diff(after) if not after.get_tokens(s)}
    options = []
    for other in state.legal_moves():
        if other == move:
            continue
        view = state.successor(other).view(fidelity)
        change = before.diff(view)
        if view != after and left and {s for s in change if not view.get_tokens(s)} == left and len(change) == 2:
            (space,) = change - left
            options.append((space, view))
    return rng.choice(options) if options else None
