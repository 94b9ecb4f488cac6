"""The registry of games, by name."""

from __future__ import annotations

from .errors import UnknownGameError
from .game import Game

_GAMES: dict[str, type[Game]] = {}


def register(cls: type[Game]) -> type[Game]:
    _GAMES[cls.name] = cls
    return cls


def game_names() -> tuple[str, ...]:
    _load_builtin()
    return tuple(sorted(_GAMES))


def get_game(name: str) -> Game:
    _load_builtin()
    try:
        return _GAMES[name]()
    except KeyError:
        raise UnknownGameError(f"unknown game {name!r} (known: {', '.join(sorted(_GAMES))})") from None


def _load_builtin() -> None:
    # Imported lazily so that `rules.registry` has no import cycle with the games.
    from .games import gyges  # noqa: F401
    from .games import annihilation  # noqa: F401
    from .games import annelids  # noqa: F401
    from .games import anacund  # noqa: F401
    from .games import drift  # noqa: F401
