"""One TOML table of the config being read (:class:`Table`): each key taken is ticked off, a
value of the wrong type or a key left over is one error naming it (``tableref/config.py``)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import _Reader


_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
               dict: "a table", list: "an array"}


def _got(value: object) -> str:
    names = {str: "string", int: "integer", float: "float", bool: "boolean", dict: "table", list: "array"}
    return f"{names.get(type(value), type(value).__name__)} {value!r}" if not isinstance(value, dict) else "a table"


class _Table:
    """One TOML table being read: each key taken is ticked off; what is left over is an error."""

    def __init__(self, reader: "_Reader", data: object, key: str) -> None:
        self.reader, self.key = reader, key
        if not isinstance(data, Mapping):
            raise reader.error(key, f"expected a table ([{key}]), got {_got(data)}")
        self.data = dict(data)
        self.known: list[str] = []

    def path(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def get(self, name: str, kind: type | tuple[type, ...], default: Any = None, *, required: bool = False,
            expect: str = "") -> Any:
        self.known.append(name)
        if name not in self.data:
            if required:
                raise self.reader.error(self.path(name), f"missing: expected {expect or self._expect(kind)}")
            return default
        value = self.data[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok, value = True, float(value)
        if not ok:
            raise self.reader.error(self.path(name), f"expected {expect or self._expect(kind)}, got {_got(value)}")
        return value

    def table(self, name: str) -> "_Table | None":
        self.known.append(name)
        return None if name not in self.data else _Table(self.reader, self.data[name], self.path(name))

    @staticmethod
    def _expect(kind: type | tuple[type, ...]) -> str:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        return " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)

    def done(self) -> None:
        for name in self.data:
            if name not in self.known:
                close = difflib.get_close_matches(name, self.known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                known = ", ".join(self.known) or "none"
                raise self.reader.error(self.path(name), f"unknown key{hint}; known here: {known}")
