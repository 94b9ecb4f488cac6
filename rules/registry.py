"""The registry of games, by name."""

from __future__ import annotations

import unicodedata

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


def game_named(text: str) -> str:
    """The registered name of the game ``text`` names: its name or its title, in any case and
    with or without accents (``Gygès``, ``GYGES``, ``gyges``); UnknownGameError listing them."""
    _load_builtin()
    if text in _GAMES:
        return text
    wanted = _plain(text)
    for name, cls in sorted(_GAMES.items()):
        if wanted in (_plain(name), _plain(cls.title)):
            return name
    known = ", ".join(f"{name} ({cls.title})" if _plain(cls.title) != _plain(name) else name
                      for name, cls in sorted(_GAMES.items()))
    raise UnknownGameError(f"unknown game {text!r} (known: {known})")


def _plain(text: str) -> str:
    """Case and accents left out: what a person typing a game's name may or may not give."""
    decomposed = unicodedata.normalize("NFKD", text.strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _load_builtin() -> None:
    # Imported lazily so that `rules.registry` has no import cycle with the games.
    from .games import gyges  # noqa: F401
    from .games import annihilation  # noqa: F401
    from .games import annelids  # noqa: F401
    from .games import anacund  # noqa: F401
    from .games import drift  # noqa: F401
