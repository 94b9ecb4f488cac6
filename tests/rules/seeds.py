"""The rule texts the project referees (``../shared/seeds/<game>.txt``, beside the checkout).

A checkout elsewhere (a fresh clone on another machine) may not have them beside it: the
checks of a rule's words against its seed are then skipped, saying why; the checks of the
docs' lists of rules still run."""

from __future__ import annotations

from pathlib import Path

import pytest

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def seed_text(game: str) -> str:
    """The seed's text, or the test is skipped (said) where the seeds are not beside the checkout."""
    path = SEEDS / f"{game}.txt"
    if not path.is_file():
        pytest.skip(f"the rule texts are not beside this checkout ({path}): the rules' words are checked where they are")
    return path.read_text(encoding="utf-8")
