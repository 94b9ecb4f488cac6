"""Wiring files: which sensor channel of the board's microcontroller sits under which space.

A physical board differs from another in how its sensors were soldered, never in the game:
one JSON file per board says so (``firmware_bridge/wiring/<game>.json`` is the reference
build of ``docs/wiring.md``)::

    {"wiring": 1, "game": "gyges", "description": "...",
     "reads": "occupancy",
     "channels": [{"channel": 0, "space": "N"}, {"channel": 1, "space": "a6"}, ...]}

``reads`` is ``"occupancy"`` (reed switches: the referee reads at occupancy fidelity) or
``"polarity"`` (Hall sensor pairs: a piece's magnet pole tells its kind), which then needs
``"tokens": {"north": TOKEN, "south": TOKEN}`` — the game's own kind tokens (``"white"``,
``"black"``) — and the referee reads at kind fidelity. Every space of the game's board must
be wired exactly once: an unwired space would always read empty and mislead the referee.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from rules import Fidelity, View
from rules.errors import RulesError
from rules.strict import expect_keys, loads
from rules.view import OCCUPIED

from .protocol import MAX_CHANNELS, Capability, Reading

VERSION = 1
_REQUIRED = ("wiring", "game", "channels")
_OPTIONAL = ("description", "reads", "tokens")
_READS = {"occupancy": Capability.OCCUPANCY, "polarity": Capability.POLARITY}


class WiringError(ValueError):
    """A wiring file is malformed; the message names the file and the fault."""


@dataclass(frozen=True)
class Wiring:
    game: str
    spaces: Mapping[int, str]  # channel -> space id
    reads: Capability = Capability.OCCUPANCY
    tokens: Mapping[Reading, str] = field(default_factory=dict)  # polarity boards only
    description: str = ""

    @property
    def fidelity(self) -> Fidelity:
        return Fidelity.KIND if self.reads is Capability.POLARITY else Fidelity.OCCUPANCY

    @property
    def channel_count(self) -> int:
        """Channels the board must report: up to the highest wired one."""
        return max(self.spaces) + 1

    @property
    def channels(self) -> Mapping[str, int]:
        """space id -> channel."""
        return {s: c for c, s in self.spaces.items()}

    @property
    def space_ids(self) -> frozenset[str]:
        return frozenset(self.spaces.values())

    def check_capabilities(self, capabilities: Sequence[Capability]) -> str | None:
        """Why a board reporting ``capabilities`` cannot serve this wiring, or None."""
        if len(capabilities) < self.channel_count:
            return f"the board reports {len(capabilities)} channels, the wiring needs {self.channel_count}"
        wrong = [c for c in sorted(self.spaces) if capabilities[c] is not self.reads]
        if wrong:
            c = wrong[0]
            return (f"channel {c} ({self.spaces[c]}) reads {capabilities[c].name.lower()}, "
                    f"the wiring expects {self.reads.name.lower()}")
        return None

    def read(self, readings: Sequence[Reading]) -> tuple[View, frozenset[str]]:
        """The view the channel readings show, and the spaces they cannot tell."""
        board: dict[str, str] = {}
        unreadable: set[str] = set()
        for channel, space in self.spaces.items():
            r = readings[channel]
            if r is Reading.EMPTY:
                continue
            if self.reads is Capability.OCCUPANCY:
                board[space] = OCCUPIED
            elif r in self.tokens:
                board[space] = self.tokens[r]
            else:  # a piece there whose pole the pair of sensors could not tell
                unreadable.add(space)
        return View(board), frozenset(unreadable)

    # -- loading -------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: object, *, where: str = "wiring") -> "Wiring":
        def fail(msg: str) -> WiringError:
            return WiringError(f"{where}: {msg}")

        expect_keys(data, required=_REQUIRED, optional=_OPTIONAL, where=where, error=WiringError)
        version = data.get("wiring")
        if isinstance(version, bool) or version != VERSION:
            raise fail(f"'wiring' must be {VERSION} (the format version), got {version!r}")
        game = data.get("game")
        if not isinstance(game, str) or not game:
            raise fail(f"'game' must be a game name, got {game!r}")
        try:
            from rules.registry import get_game  # late: the registry imports every game

            board = get_game(game).board()
        except RulesError as exc:
            raise fail(str(exc)) from None
        reads_text = data.get("reads", "occupancy")
        if reads_text not in _READS:
            raise fail(f"'reads' must be \"occupancy\" or \"polarity\", got {reads_text!r}")
        reads = _READS[reads_text]
        tokens: dict[Reading, str] = {}
        raw_tokens = data.get("tokens")
        if reads is Capability.POLARITY:
            if not isinstance(raw_tokens, Mapping):
                raise fail("a polarity board needs 'tokens': {\"north\": TOKEN, \"south\": TOKEN}")
            expect_keys(raw_tokens, required=("north", "south"), where=where, path="tokens", error=WiringError)
            if (not all(isinstance(t, str) and t for t in raw_tokens.values())):
                raise fail("a polarity board needs 'tokens': {\"north\": TOKEN, \"south\": TOKEN}")
            tokens = {Reading.NORTH: raw_tokens["north"], Reading.SOUTH: raw_tokens["south"]}
        elif raw_tokens is not None:
            raise fail("'tokens' is only for \"reads\": \"polarity\"")
        raw = data.get("channels")
        if not isinstance(raw, list) or not raw:
            raise fail("'channels' must be a non-empty list of {\"channel\": N, \"space\": ID}")
        spaces: dict[int, str] = {}
        for i, entry in enumerate(raw):
            expect_keys(entry, required=("channel", "space"), where=where, path=f"channels[{i}]", error=WiringError)
            channel, space = entry["channel"], entry["space"]
            if isinstance(channel, bool) or not isinstance(channel, int) or not 0 <= channel < MAX_CHANNELS:
                raise fail(f"channels[{i}]: 'channel' must be an integer 0..{MAX_CHANNELS - 1}, got {channel!r}")
            if not isinstance(space, str) or not board.has_space(space):
                raise fail(f"channels[{i}]: {space!r} is not a space of the {game} board")
            if channel in spaces:
                raise fail(f"channels[{i}]: channel {channel} is already wired to {spaces[channel]!r}")
            if space in spaces.values():
                raise fail(f"channels[{i}]: space {space!r} is wired twice")
            spaces[channel] = space
        missing = [s for s in board.space_ids if s not in spaces.values()]
        if missing:
            raise fail(f"spaces without a sensor: {', '.join(missing)} (every space must be wired)")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise fail("'description' must be a string")
        return cls(game, spaces, reads, tokens, description)

    @classmethod
    def from_file(cls, path: str | Path) -> "Wiring":
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise WiringError(f"{path}: cannot read wiring file: {getattr(exc, 'strerror', None) or exc}") from None
        return cls.from_dict(loads(text, where=str(path), error=WiringError), where=str(path))

    @classmethod
    def builtin(cls, game: str) -> "Wiring":
        """The reference wiring shipped for ``game`` (``firmware_bridge/wiring/<game>.json``)."""
        ref = resources.files("firmware_bridge") / "wiring" / f"{game}.json"
        try:
            text = ref.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise WiringError(f"no reference wiring for {game!r}: give a wiring file") from None
        where = f"firmware_bridge/wiring/{game}.json"
        return cls.from_dict(loads(text, where=where, error=WiringError), where=where)

    def to_dict(self) -> dict:
        out: dict = {"wiring": VERSION, "game": self.game, "description": self.description,
                     "reads": "polarity" if self.reads is Capability.POLARITY else "occupancy"}
        if self.tokens:
            out["tokens"] = {"north": self.tokens[Reading.NORTH], "south": self.tokens[Reading.SOUTH]}
        out["channels"] = [{"channel": c, "space": s} for c, s in sorted(self.spaces.items())]
        return out
