"""JSON messages as typed values: the one reader of both MQTT wire formats (the club hub's,
tableref/hub/protocol.py, and the remote tables', tableref/remote/wire.py). Pure: bytes in,
a frozen dataclass out, or a ValueError saying what is wrong (the caller adds the topic)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import MISSING
from typing import Any


def parse_object(payload: bytes, version: int, reader: str) -> dict[str, Any]:
    """The payload's JSON object, of this ``version``; ``reader`` names who reads it ("this hub")."""
    try:
        data = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    if data.get("v") != version:
        raise ValueError(f"version {data.get('v')!r}, {reader} reads {version}")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")  # NaN and Infinity are not JSON


def build(cls: type, data: Mapping[str, Any], checks: Mapping[str, Any]) -> Any:
    """``cls`` (a dataclass) from ``data``, each field of the type ``checks`` names for it: a
    float field takes any finite number, an int field no truth value, a missing field its
    default; an unknown field is refused (a newer writer's field is a version's business)."""
    fields = cls.__dataclass_fields__
    extra = set(data) - set(fields) - {"v", "type"}
    if extra:
        raise ValueError(f"unknown field(s) {', '.join(sorted(extra))}")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                raise ValueError(f"{name} missing")
            continue
        value, want = data[name], checks[name]
        if want is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{name} must be a number, got {value!r}")
            value = float(value)
        elif want is int or (isinstance(want, tuple) and int in want and value is not None):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an integer, got {value!r}")
        elif not isinstance(value, want) or (want is not bool and isinstance(value, bool)):
            raise ValueError(f"{name} has the wrong type ({type(value).__name__})")
        values[name] = value
    return cls(**values)
