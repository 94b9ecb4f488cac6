"""Topics and payloads between boards and the hub (docs/hub.md). Pure: no I/O.

Every payload is a JSON object with ``"v": 1`` and a ``"type"``. What a board publishes is
keyed by (board, game, seq), so a message sent twice is stored once. :func:`decode` checks
a payload completely and raises :class:`ProtocolError` naming the topic and the fault; the
hub counts such messages and drops them.

Topics (``<b>`` is the board's name)::

    tableref/v1/<b>/journal   board → hub   QoS 1   game | event | end | unseen   (the outbox)
    tableref/v1/<b>/live      board → hub   QoS 0, retained   the board as it is now
    tableref/v1/<b>/status    board → hub   QoS 1, retained   online | offline (the Last Will)
    tableref/v1/<b>/ack       hub → board   QoS 1   what the hub has committed
    tableref/v1/<b>/command   hub → board   QoS 1, retained   the round's pairing at this table
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Union

from ..json_messages import build, parse_object

VERSION = 1
ROOT = "tableref/v1"
MAX_PAYLOAD = 64 * 1024  # a position of the largest game is ~3 KB; anything this big is garbage
BOARD_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
LEAVES = ("journal", "live", "status", "ack", "command")
EVENT_KINDS = ("move", "undo")


class ProtocolError(ValueError):
    """A payload or topic that is not ours: the message names the topic and what is wrong."""


def check_board_name(name: object, what: str = "board name") -> str:
    if not isinstance(name, str) or not BOARD_NAME.match(name):
        raise ValueError(f"{what} must be 1-40 letters, digits, '-' or '_' (starting with a letter or digit), "
                         f"got {name!r}")
    return name


def topic(board: str, leaf: str) -> str:
    return f"{ROOT}/{board}/{leaf}"


def parse_topic(text: str) -> tuple[str, str]:
    """(board, leaf) of one of our topics; ProtocolError otherwise."""
    parts = text.split("/")
    if len(parts) != 4 or "/".join(parts[:2]) != ROOT or parts[3] not in LEAVES or not BOARD_NAME.match(parts[2]):
        raise ProtocolError(f"{text}: not a tableref/v1/<board>/<{'|'.join(LEAVES)}> topic")
    return parts[2], parts[3]


# -- the messages -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameHeader:
    """A game begun on a board: everything needed to replay it, and who plays it."""

    type = "game"
    game: int
    name: str  # the rules' game name (gyges)
    options: dict[str, Any]
    fidelity: str
    start: dict[str, Any]  # State.to_dict()
    created: float
    players: dict[str, str] = field(default_factory=dict)  # side → player's name, from the pairing
    round: int | None = None  # the hub's round the pairing came from
    seats: dict[str, str] = field(default_factory=dict)  # side → "computer:N": the sides the computer played


@dataclass(frozen=True)
class GameEvent:
    """One journalled event (docs/journal.md): seq 0, 1, … per game without gaps."""

    type = "event"
    game: int
    seq: int
    kind: str  # move | undo
    move: str | None
    position: dict[str, Any]
    created: float


@dataclass(frozen=True)
class GameEnd:
    """The game's result as it stands after ``events`` events (an undo after it reopens it)."""

    type = "end"
    game: int
    events: int
    outcome: dict[str, Any] | None  # None: abandoned
    finished: float

    @property
    def key(self) -> str:
        """What the hub acknowledges, so the board knows this end (and not an older one) is in."""
        return f"{self.events}:{json.dumps(self.outcome, sort_keys=True)}"


@dataclass(frozen=True)
class UnseenState:
    """A game's moves never seen one by one (docs/records.md), as the board's journal holds them
    now: every group (``ply``, ``count``, ``alternatives``, ``chosen``) and the events the
    players' choices rewrote (``seq``, ``move``, ``position``). Sent whole whenever it changes
    (a group recorded, chosen, or undone), keyed by :attr:`key`; ``events`` (the game's events
    when it was read) and the number chosen order two states, so an older copy arriving late
    changes nothing."""

    type = "unseen"
    game: int
    events: int
    groups: list[dict[str, Any]]
    rewritten: list[dict[str, Any]]

    @property
    def key(self) -> str:
        return unseen_key(self.groups)

    @property
    def order(self) -> tuple[int, int]:
        return self.events, sum(g["chosen"] is not None for g in self.groups)


def unseen_key(groups: list[dict[str, Any]]) -> str:
    """What the hub acknowledges of a game's unseen groups: a digest of them all."""
    text = json.dumps([[g["ply"], g["count"], g["alternatives"], g["chosen"]] for g in groups], separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Ack:
    """What the hub has committed of one game: its header, events 0..seq, the end ``end``."""

    type = "ack"
    game: int
    header: bool
    seq: int  # -1: no event yet
    end: str | None = None
    round: int | None = None  # the round of the players' names the hub holds with the header
    unseen: str | None = None  # the key of the game's unseen groups the hub holds (UnseenState.key)


@dataclass(frozen=True)
class Live:
    """The board now (retained): the hub's grid draws it without replaying anything."""

    type = "live"
    game: int
    name: str
    ply: int
    position: dict[str, Any]
    status: str  # ok | partial | illegal | ambiguous
    last: str | None  # the last move's notation
    outcome: dict[str, Any] | None
    players: dict[str, str]
    at: float
    # The game clock (docs/clock.md): {"control", "times" (ms left), "running", "paused", "flagged",
    # "at" (the board's wall time the times were said)}; None: no clock
    clock: dict[str, Any] | None = None


@dataclass(frozen=True)
class Status:
    """online, or offline (the Last Will the broker publishes when the board vanishes)."""

    type = "status"
    state: str
    at: float
    version: str = ""


@dataclass(frozen=True)
class Pairing:
    """A round's pairing at one table, pushed by the hub (retained): the board shows the names and
    stores them with the games it starts from now on."""

    type = "pairing"
    round: int
    players: dict[str, str]
    event: str = ""
    control: str | None = None  # the round's time control ("10+5"; docs/clock.md); None: the board's own


Message = Union[GameHeader, GameEvent, GameEnd, UnseenState, Ack, Live, Status, Pairing]
_TYPES: dict[str, type] = {c.type: c for c in (GameHeader, GameEvent, GameEnd, UnseenState, Ack, Live, Status,
                                               Pairing)}
# Which message types may arrive on which leaf: anything else is refused.
_ON_LEAF = {"journal": ("game", "event", "end", "unseen"), "live": ("live",), "status": ("status",), "ack": ("ack",),
            "command": ("pairing",)}


def encode(message: Message) -> bytes:
    data = {"v": VERSION, "type": message.type, **asdict(message)}
    if isinstance(message, Ack) and message.unseen is None:
        del data["unseen"]  # a board older than the unseen message reads this ack as before
    if isinstance(message, GameHeader) and not message.seats:
        del data["seats"]  # people only: a hub older than the computer's seats reads it as before
    if isinstance(message, Pairing) and message.control is None:
        del data["control"]  # no time control: a board older than the clock reads it as before
    if isinstance(message, Live) and message.clock is None:
        del data["clock"]  # no clock: a hub older than the clock reads it as before
    return json.dumps(data, separators=(",", ":"), allow_nan=False).encode()


def decode(topic_text: str, payload: bytes) -> tuple[str, Message]:
    """(board, message) from one of our topics; ProtocolError if anything is wrong."""
    board, leaf = parse_topic(topic_text)
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"{topic_text}: payload of {len(payload)} bytes (at most {MAX_PAYLOAD})")
    try:
        data = parse_object(payload, VERSION, "this hub")
    except ValueError as exc:
        raise ProtocolError(f"{topic_text}: {exc}") from None
    kind = data.get("type")
    if kind not in _ON_LEAF[leaf]:
        raise ProtocolError(f"{topic_text}: type {kind!r} does not belong on {leaf}")
    try:
        return board, _build(_TYPES[kind], data)
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"{topic_text}: {kind}: {exc}") from None


_CHECKS: dict[str, Any] = {
    "game": int, "seq": int, "events": int, "ply": int, "round": (int, type(None)),
    "name": str, "fidelity": str, "kind": str, "state": str, "status": str, "version": str, "event": str,
    "move": (str, type(None)), "last": (str, type(None)), "end": (str, type(None)), "unseen": (str, type(None)),
    "groups": list, "rewritten": list,
    "options": dict, "start": dict, "position": dict, "players": dict, "seats": dict,
    "outcome": (dict, type(None)), "clock": (dict, type(None)), "control": (str, type(None)), "header": bool, "created": float, "finished": float, "at": float,
}


def _build(cls: type, data: dict[str, Any]) -> Message:
    msg = build(cls, data, _CHECKS)
    _check(msg)
    return msg


def _check(msg: Message) -> None:
    if isinstance(msg, (GameHeader, GameEvent, GameEnd, UnseenState, Ack)) and msg.game < 1:
        raise ValueError(f"game must be >= 1, got {msg.game}")
    if isinstance(msg, GameEvent):
        if msg.seq < 0:
            raise ValueError(f"seq must be >= 0, got {msg.seq}")
        if msg.kind not in EVENT_KINDS or (msg.kind == "move") != isinstance(msg.move, str):
            raise ValueError(f"kind {msg.kind!r} with move {msg.move!r}")
    if isinstance(msg, GameEnd) and msg.events < 0:
        raise ValueError(f"events must be >= 0, got {msg.events}")
    if isinstance(msg, UnseenState):
        _check_unseen(msg)
    if isinstance(msg, Ack) and msg.seq < -1:
        raise ValueError(f"seq must be >= -1, got {msg.seq}")
    players = getattr(msg, "players", None)
    if players is not None and not all(isinstance(k, str) and isinstance(v, str) and len(v) <= 80
                                       for k, v in players.items()):
        raise ValueError("players must map each side to a name (at most 80 characters)")
    seats = getattr(msg, "seats", None)
    if seats and not all(isinstance(k, str) and isinstance(v, str) and len(k) <= 20 and re.fullmatch(
            r"computer:[1-9]|remote:[A-Za-z0-9][A-Za-z0-9_-]{0,39}:[A-Za-z0-9][A-Za-z0-9_-]{0,39}\.[A-Z0-9]{4,12}", v)
            for k, v in seats.items()):
        raise ValueError("seats must map each side to 'computer:N' or 'remote:TABLE:MATCH'")
    if isinstance(msg, Status) and msg.state not in ("online", "offline"):
        raise ValueError(f"state must be online or offline, got {msg.state!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_unseen(msg: UnseenState) -> None:
    if msg.events < 0 or len(msg.groups) > 1000 or len(msg.rewritten) > 10000:
        raise ValueError("events, groups or rewritten out of range")
    for i, g in enumerate(msg.groups):
        if not isinstance(g, dict) or set(g) != {"ply", "count", "alternatives", "chosen"}:
            raise ValueError(f"groups[{i}]: expected ply, count, alternatives, chosen")
        alts = g["alternatives"]
        if not (_is_int(g["ply"]) and _is_int(g["count"]) and g["ply"] >= 0 and g["count"] >= 1
                and isinstance(alts, list) and len(alts) >= 2 and all(isinstance(a, str) for a in alts)
                and (g["chosen"] is None or _is_int(g["chosen"]) and 0 <= g["chosen"] < len(alts))):
            raise ValueError(f"groups[{i}]: ply, count, alternatives or chosen out of range")
    for i, e in enumerate(msg.rewritten):
        if not (isinstance(e, dict) and set(e) == {"seq", "move", "position"} and _is_int(e["seq"]) and e["seq"] >= 0
                and isinstance(e["move"], str) and isinstance(e["position"], dict)):
            raise ValueError(f"rewritten[{i}]: expected seq, move, position")
