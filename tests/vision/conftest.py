"""Shared synthetic camera set-ups: one calibrated session per game, made once per run."""

import pytest

from vision_support import grid_for


@pytest.fixture(scope="session")
def sessions():
    from vision.simulated.sessions import Session

    made = {}

    def get(game: str, seed: int = 1) -> Session:
        key = f"{game}/{seed}"
        if key not in made:
            made[key] = Session.create(game, seed, grid=grid_for(game))
        return made[key]

    return get
