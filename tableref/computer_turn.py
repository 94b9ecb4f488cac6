"""A computer seat's turn on a real board: what a person must carry out, and whether the board
shows it.

The referee owns the game record; this module only answers its questions about a turn the
opponent chose: the steps in words with the spaces hands lift from and put down on (for the
page, the voice, a serial board's LEDs), how many of the turn's moves the board shows done, and
what to put back when it shows anything else. Pure: no threads, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from decisions import Step
from rules import Fidelity, SpaceFix, State, View


def steps_of(state: State, moves: tuple[Any, ...]) -> tuple[Step, ...]:
    """Each move of a turn from ``state``, with where pieces leave and arrive (a bumped ring,
    a captured or removed piece count among them), read off the positions, not the notation."""
    out, s = [], state
    for m in moves:
        after = s.successor(m)
        before_v, after_v = s.view(Fidelity.IDENTITY), after.view(Fidelity.IDENTITY)
        lift, place = [], []
        for space in sorted(before_v.diff(after_v)):
            was, now = list(before_v.get_tokens(space)), list(after_v.get_tokens(space))
            for t in list(was):  # what stays on the space is neither lifted nor put down
                if t in now:
                    was.remove(t)
                    now.remove(t)
            if was:
                lift.append(space)
            if now:
                place.append(space)
        phrase = s.move_phrase(m)
        out.append(Step(s.move_text(m), phrase.text, tuple(lift), tuple(place), phrase=phrase))
        s = after
    return tuple(out)


@dataclass
class ComputerTurn:
    """A turn the computer chose, being carried out: ``states[k]`` is the position after the
    first k moves (``states[0]``: the position it was chosen in)."""

    side: str
    level: int
    moves: tuple[Any, ...]
    steps: tuple[Step, ...]
    evaluation: float
    states: tuple[State, ...] = field(default=())
    done: int = 0

    @classmethod
    def chosen(cls, state: State, side: str, level: int, texts: tuple[str, ...], evaluation: float) -> "ComputerTurn":
        """The turn from its notation; :class:`rules.RulesError` if a move is not legal in turn,
        ValueError if the moves are not all ``side``'s."""
        moves, states, s = [], [state], state
        for text in texts:
            if s.is_game_over() or s.to_move != side:
                raise ValueError(f"{text!r} is not {side}'s to play")
            m = s.parse_move(text)
            s = s.apply(m)
            moves.append(m)
            states.append(s)
        if not moves:
            raise ValueError("the computer's turn has no move")
        return cls(side, level, tuple(moves), steps_of(state, tuple(moves)), evaluation, tuple(states))

    @property
    def remaining(self) -> tuple[Any, ...]:
        return self.moves[self.done:]

    @property
    def finished(self) -> bool:
        return self.done >= len(self.moves)

    def shown(self, view: View, fidelity: Fidelity) -> int:
        """How many more of the turn's moves the board shows done (0: none, or not exactly)."""
        for k in range(len(self.moves), self.done, -1):
            target = self.states[k].view(fidelity)
            if view.resolved(target) == target:
                return k - self.done
        return 0


def put_back(current: View, view: View) -> tuple[SpaceFix, ...]:
    """Every space the board shows otherwise than ``current``: what it should hold, what it shows."""
    wrong = current.diff(view.resolved(current))
    return tuple(SpaceFix(s, current.get_tokens(s), view.get_tokens(s)) for s in sorted(wrong))
