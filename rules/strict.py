"""Strict input files: one helper every reader of a JSON file uses.

Every file tableref reads (positions, board files, wiring files, board scripts, records,
calibration and lens files) refuses a key it does not know and a key it needs but lacks,
with one line naming the key and where it is (``drift position: unknown key 'turn.movd'``):
a misspelt key must never be ignored and its default silently used instead. A key given
twice in one JSON object is refused too (:func:`loads`), since JSON readers otherwise keep
the last one without a word.

Pure: no I/O. Readers outside ``rules`` (tableref, hardware, firmware_bridge, vision) import
it from here and pass their own error class.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .errors import InvalidStateError


def key_path(path: str, key: object) -> str:
    """``turn`` + ``moved`` -> ``turn.moved``; a key at the top stays as it is."""
    return f"{path}.{key}" if path else str(key)


def expect_keys(
    data: object,
    *,
    required: Iterable[str] = (),
    optional: Iterable[str] = (),
    where: str,
    path: str = "",
    error: Callable[[str], Exception] = InvalidStateError,
) -> Mapping[str, Any]:
    """``data`` itself if it is an object holding every ``required`` key and no key outside
    ``required`` and ``optional``; otherwise ``error`` naming the first key at fault.

    ``where`` names the file (``"gyges position"``, ``"wiring.json"``); ``path`` the object's
    place inside it (``"turn"``, ``"spaces[3]"``), so the key is named in full. ``error`` is
    the reader's own error class (or any callable making one from the message)."""
    required = tuple(required)
    known = required + tuple(k for k in optional if k not in required)
    if not isinstance(data, Mapping):
        if path:
            raise error(f"{where}: '{path}' must be a JSON object, not {_kind(data)}")
        raise error(f"{where}: expected a JSON object, not {_kind(data)}")
    for key in data:
        if key not in known:
            expected = ", ".join(known) if known else "no keys"
            raise error(f"{where}: unknown key '{key_path(path, key)}' (expected: {expected})")
    for key in required:
        if key not in data:
            raise error(f"{where}: missing key '{key_path(path, key)}'")
    return data


def refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads`: a key twice in one object is an error
    (a ``ValueError`` the caller turns into its own, see :func:`loads`)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(key)
        result[key] = value
    return result


class DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def loads(text: str | bytes, *, where: str, error: type[ValueError] = InvalidStateError) -> Any:
    """JSON text parsed with duplicate keys refused; any fault is one ``error`` line naming
    ``where`` (and the line for a syntax error, the key for a duplicate)."""
    try:
        return json.loads(text, object_pairs_hook=refuse_duplicates)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: line {exc.lineno}: not valid JSON: {exc.msg}") from None
    except DuplicateKeyError as exc:
        raise error(f"{where}: duplicate key '{exc.key}' (a key may appear once in an object)") from None
    except (ValueError, RecursionError) as exc:  # an integer too long to convert; nesting too deep
        raise error(f"{where}: not valid JSON: {exc}") from None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__
