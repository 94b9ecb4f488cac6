"""The built-in sample: a full Gygès game, from setup to a throne capture, rendered as a
board script with hands and sensor noise (``tableref/data/sample_gyges.jsonl``).

Regenerate with ``python -m tableref.sources.sample``; a test checks the shipped file is
exactly what this produces.
"""

from __future__ import annotations

import random
import sys
from importlib import resources
from pathlib import Path

from rules import Fidelity, get_game
from rules.games.gyges import GygesState, RingMove

from .sim import BoardScript, render_script

SEED = 13
SETUP = ["1@a1", "2@b1", "3@c1", "3@d1", "2@e1", "1@f1", "2@a6", "1@b6", "3@c6", "1@d6", "3@e6", "2@f6"]


def _choose(state: GygesState, rng: random.Random) -> RingMove:
    """A plausible player: capture when possible, avoid handing the opponent a capture."""
    moves = list(state.legal_moves())
    wins = [m for m in moves if m.end in ("N", "S")]
    if wins:
        return wins[0]
    rng.shuffle(moves)
    # Players bump less often than the move count suggests (each bump has ~30 targets).
    moves.sort(key=lambda m: m.bump_to is not None and rng.random() < 0.9)
    for m in moves:
        after = state.successor(m)
        if not any(r.end in ("N", "S") for r in after.legal_moves()):
            return m
    return moves[0]


def sample_game(seed: int = SEED) -> tuple[GygesState, list]:
    """The sample's starting position (setup phase) and its moves."""
    start = get_game("gyges").start()
    state, moves = start, []
    for text in SETUP:
        m = state.parse_move(text)
        moves.append(m)
        state = state.successor(m)
    rng = random.Random(seed)
    while not state.is_game_over():
        m = _choose(state, rng)
        moves.append(m)
        state = state.successor(m)
    return start, moves


def sample_script() -> BoardScript:
    start, moves = sample_game()
    return render_script(
        start,
        moves,
        fidelity=Fidelity.KIND,
        seed=SEED,
        header_extra={"description": "Sample Gygès game: setup by both players, then play to a throne capture. "
                                     "Kind sensing (ring heights), with hands over the board and sensor flicker."},
    )


def main(argv: list[str] | None = None) -> int:
    target = Path(argv[0]) if argv else Path(str(resources.files("tableref") / "data" / "sample_gyges.jsonl"))
    sample_script().dump(target)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
