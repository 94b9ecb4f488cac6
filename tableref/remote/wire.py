"""The wire format between two tables playing one game (docs/remote.md). Pure: no I/O.

One topic per direction: ``tableref/remote/v1/<to>/<from>``. The broker's ACL lets a table
publish only with its own name as ``<from>`` and read only its own ``<to>`` (credentials.py), so
the sender is the broker's word, not the payload's. Every payload is a JSON object with
``"v": 1`` and a ``"type"``; at most 16 KB. :func:`decode` checks a payload completely and raises
:class:`WireError` naming the topic and the fault.

Messages::

    join     guest → host   the invitation's code, read out or sent as a link
    refused  host → guest   a wrong or spent code (said on the guest's page)
    welcome  host → guest   the game: name, options, set-up, who plays which side, the clock
    move     either way     the move making ply ``ply`` of match ``match``, with the mover's clocks
    have     either way     "I hold match ``match`` up to ply ``ply``": the acknowledgement
    over     either way     the game ended off the board (a flag fell at the sender)
    left     either way     the sender closed the game unfinished (it began another): the match is over
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Union

from decisions.seats import MATCH_NAME, TABLE_NAME

from ..json_messages import build, parse_object

VERSION = 1
ROOT = "tableref/remote/v1"
MAX_PAYLOAD = 16 * 1024
CODE = re.compile(r"^[A-Z0-9]{4,12}$")
SETUPS = ("start", "default")


class WireError(ValueError):
    """A topic or payload that is not a remote table's: names the topic and the fault."""


def topic(to: str, sender: str) -> str:
    return f"{ROOT}/{to}/{sender}"


def inbox(me: str) -> str:
    """What a table subscribes to: every message addressed to it."""
    return f"{ROOT}/{me}/+"


def parse_topic(text: str) -> tuple[str, str]:
    """(to, from) of a remote table's topic; WireError otherwise."""
    parts = text.split("/")
    if len(parts) != 5 or "/".join(parts[:3]) != ROOT or not all(TABLE_NAME.match(p) for p in parts[3:]):
        raise WireError(f"{text}: not a {ROOT}/<to>/<from> topic")
    return parts[3], parts[4]


@dataclass(frozen=True)
class Join:
    type = "join"
    code: str  # the invitation's code (without the host's name)


@dataclass(frozen=True)
class Refused:
    type = "refused"
    code: str
    reason: str


@dataclass(frozen=True)
class Welcome:
    """The invitation accepted: the game both tables now play. ``sides``: side → the table that
    plays it (every side named)."""

    type = "welcome"
    match: str
    game: str
    options: dict[str, Any]
    setup: str
    sides: dict[str, str]
    control: str | None = None  # the time control ("10+5"); None: no clock


@dataclass(frozen=True)
class Move:
    """The move making ply ``ply`` (1-based) of the match's game; ``times``: every side's ms left
    just after it, as the mover's clock said (empty: no clock)."""

    type = "move"
    match: str
    ply: int
    move: str
    times: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Have:
    """The sender holds the match's game up to ply ``ply`` (committed): nothing up to it needs
    sending again."""

    type = "have"
    match: str
    ply: int
    over: bool = False  # the game is finished at the sender (an ``over`` needs no sending again)


@dataclass(frozen=True)
class Over:
    """The game ended at the sender off the board (its own player's flag fell) after ``ply`` moves."""

    type = "over"
    match: str
    ply: int
    outcome: dict[str, Any]


@dataclass(frozen=True)
class Left:
    """The sender closed the match's game unfinished after ``ply`` moves (a new game there): the
    match is over. Sent until the other table says it holds the game finished (``have`` over)."""

    type = "left"
    match: str
    ply: int


Message = Union[Join, Refused, Welcome, Move, Have, Over, Left]
_TYPES: dict[str, type] = {c.type: c for c in (Join, Refused, Welcome, Move, Have, Over, Left)}
_CHECKS: dict[str, Any] = {
    "code": str, "reason": str, "match": str, "game": str, "options": dict, "setup": str, "sides": dict,
    "control": (str, type(None)), "ply": int, "move": str, "times": dict, "outcome": dict, "over": bool,
}


def encode(message: Message) -> bytes:
    return json.dumps({"v": VERSION, "type": message.type, **asdict(message)}, separators=(",", ":"),
                      allow_nan=False).encode()


def decode(topic_text: str, payload: bytes) -> tuple[str, str, Message]:
    """(to, from, message); WireError if anything is wrong."""
    to, sender = parse_topic(topic_text)
    if len(payload) > MAX_PAYLOAD:
        raise WireError(f"{topic_text}: payload of {len(payload)} bytes (at most {MAX_PAYLOAD})")
    try:
        data = parse_object(payload, VERSION, "this table")
    except ValueError as exc:
        raise WireError(f"{topic_text}: {exc}") from None
    kind = data.get("type")
    if kind not in _TYPES:
        raise WireError(f"{topic_text}: unknown type {kind!r}")
    try:
        return to, sender, _build(_TYPES[kind], data)
    except (TypeError, ValueError) as exc:
        raise WireError(f"{topic_text}: {kind}: {exc}") from None


def _build(cls: type, data: dict[str, Any]) -> Message:
    msg = build(cls, data, _CHECKS)
    _check(msg)
    return msg


def _plain(value: Any) -> bool:
    """A game option's value: a string, number, truth value or nothing, or a list of them."""
    if isinstance(value, list):
        return len(value) <= 100 and all(_plain(v) and not isinstance(v, list) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int, bool))


def _check(msg: Message) -> None:
    code = getattr(msg, "code", None)
    if code is not None and not CODE.match(code):
        raise ValueError(f"code {code!r}: expected 4-12 capital letters or digits")
    match = getattr(msg, "match", None)
    if match is not None and not MATCH_NAME.match(match):
        raise ValueError(f"match {match!r}: expected TABLE.CODE")
    ply = getattr(msg, "ply", None)
    if ply is not None and not 0 <= ply <= 100_000:
        raise ValueError(f"ply {ply} out of range")
    if isinstance(msg, Move):
        if msg.ply < 1 or not 0 < len(msg.move) <= 200:
            raise ValueError("a move needs ply >= 1 and its notation")
        if not all(isinstance(k, str) and len(k) <= 20 and isinstance(v, int) and not isinstance(v, bool)
                   and abs(v) < 10**10 for k, v in msg.times.items()):
            raise ValueError("times must map each side to whole milliseconds")
    if isinstance(msg, Welcome):
        if msg.setup not in SETUPS:
            raise ValueError(f"setup must be one of {', '.join(SETUPS)}")
        if not msg.sides or not all(isinstance(k, str) and len(k) <= 20 and isinstance(v, str) and TABLE_NAME.match(v)
                                    for k, v in msg.sides.items()):
            raise ValueError("sides must map each side to a table's name")
        if not all(isinstance(k, str) and _plain(v) for k, v in msg.options.items()):
            raise ValueError("options must be plain values")
    if isinstance(msg, Over) and not (isinstance(msg.outcome.get("reason", ""), str)
                                      and set(msg.outcome) <= {"winner", "reason", "scores"}):
        raise ValueError("outcome must be {winner, reason, scores}")
    if isinstance(msg, Refused) and len(msg.reason) > 200:
        raise ValueError("reason too long")
