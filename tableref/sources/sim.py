"""The simulated board: board scripts (JSON lines) played back as observations.

A board script records what a sensor read, frame by frame (see ``docs/board-script.md``).
:class:`SimulatedBoard` plays one back as :class:`~rules.view.Observation` values, as fast
as possible or paced like the real thing; :func:`render_script` writes a realistic script
(hands, lifted pieces, flicker) for a game given as a list of legal moves.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rules.board import Board
from rules.errors import RulesError
from rules.strict import DuplicateKeyError, expect_keys, refuse_duplicates
from rules.game import Move, State
from rules.view import OCCUPIED, Fidelity, Observation, View

if TYPE_CHECKING:
    from ..stabiliser import Stabiliser

VERSION = 1
SETUPS = ("start", "default")
_HEADER_REQUIRED = ("board_script", "game", "fidelity")
_HEADER_OPTIONAL = ("options", "start", "setup", "description")
_FRAME_REQUIRED = ("t", "board")
_FRAME_OPTIONAL = ("unreadable",)


class BoardScriptError(ValueError):
    """A board script is malformed; the message names the file, the line and the fault."""

    def __init__(self, message: str, *, where: str = "", line: int | None = None) -> None:
        super().__init__(message)
        self.where = where
        self.line = line


@dataclass(frozen=True)
class Frame:
    """One reading: ``view`` at script time ``t``; ``unreadable`` spaces could not be read."""

    t: float
    view: View
    unreadable: frozenset[str] = field(default_factory=frozenset)

    def to_dict(self) -> dict[str, Any]:
        board = {s: (toks[0] if len(toks) == 1 else list(toks)) for s, toks in sorted(self.view.items())}
        out: dict[str, Any] = {"t": self.t, "board": board}
        if self.unreadable:
            out["unreadable"] = sorted(self.unreadable)
        return out


@dataclass(frozen=True)
class BoardScript:
    """A parsed board script: the header's fields and the frames, in time order."""

    game: str
    fidelity: Fidelity
    frames: tuple[Frame, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    start: Mapping[str, Any] | None = None  # a position dict; None = the game's own start
    setup: str = "start"  # which of game.start() / game.default_setup() when start is None
    description: str = ""

    # -- reading ------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, where: str = "<string>") -> "BoardScript":
        header: dict[str, Any] | None = None
        frames: list[Frame] = []
        prev_t: float | None = None
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue

            def fail(msg: str, _n: int = number) -> BoardScriptError:
                return BoardScriptError(f"{where}:{_n}: {msg}", where=where, line=_n)

            try:
                obj = json.loads(line, object_pairs_hook=refuse_duplicates)
            except json.JSONDecodeError as exc:
                raise fail(f"not valid JSON: {exc.msg} (column {exc.colno})") from None
            except DuplicateKeyError as exc:
                raise fail(f"duplicate key '{exc.key}' (a key may appear once in an object)") from None
            except (ValueError, RecursionError) as exc:  # an integer too long; nesting too deep
                raise fail(f"not valid JSON: {exc}") from None
            if header is None:
                header = _check_header(obj, fail)
                continue
            frame = _check_frame(obj, header["fidelity"], prev_t, fail)
            prev_t = frame.t
            frames.append(frame)
        if header is None:
            raise BoardScriptError(f"{where}: empty board script (no header line)", where=where)
        return cls(frames=tuple(frames), **header)

    @classmethod
    def from_file(cls, path: str | Path) -> "BoardScript":
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise BoardScriptError(f"{where}: cannot read board script: {exc.strerror}", where=where) from None
        except UnicodeDecodeError as exc:
            raise BoardScriptError(f"{where}: not UTF-8 text ({exc.reason})", where=where) from None
        return cls.parse(text, where=where)

    # -- writing ------------------------------------------------------------------------

    def header_dict(self) -> dict[str, Any]:
        return {
            "board_script": VERSION,
            "game": self.game,
            "fidelity": self.fidelity.value,
            "options": dict(self.options),
            "start": None if self.start is None else dict(self.start),
            "setup": self.setup,
            "description": self.description,
        }

    def to_lines(self) -> list[str]:
        """The script as JSON lines, header first; :meth:`parse` reads them back unchanged."""
        lines = [json.dumps(self.header_dict(), ensure_ascii=False)]
        lines.extend(json.dumps(f.to_dict(), ensure_ascii=False) for f in self.frames)
        return lines

    def dump(self, path: str | Path) -> None:
        Path(path).write_text("\n".join(self.to_lines()) + "\n", encoding="utf-8")

    # -- using ----------------------------------------------------------------------------

    @property
    def duration(self) -> float:
        return self.frames[-1].t - self.frames[0].t if self.frames else 0.0

    def start_state(self) -> State:
        """The position the script starts from, built through the game registry."""
        from rules.registry import get_game  # late: the registry imports every game

        game = get_game(self.game)
        if self.start is not None:
            return game.from_dict(self.start)
        options = game.parse_options(dict(self.options))
        return game.default_setup(options) if self.setup == "default" else game.start(options)


def _check_header(obj: object, fail: Callable[[str], BoardScriptError]) -> dict[str, Any]:
    """Validate a header object; return :class:`BoardScript` keyword arguments."""
    if not isinstance(obj, dict) or "board_script" not in obj:
        raise fail('expected the header {"board_script": 1, "game": ..., "fidelity": ...} first')
    version = obj["board_script"]
    if isinstance(version, bool) or version != VERSION:
        raise fail(f"unsupported board_script version {version!r} (this reader knows {VERSION})")
    expect_keys(obj, required=_HEADER_REQUIRED, optional=_HEADER_OPTIONAL, where="header", error=fail)
    game = obj.get("game")
    if not isinstance(game, str) or not game:
        raise fail(f"header 'game' must be a non-empty string, got {game!r}")
    fid = obj.get("fidelity")
    names = ", ".join(f.value for f in Fidelity)
    if not isinstance(fid, str):
        raise fail(f"header 'fidelity' must be one of: {names}; got {fid!r}")
    try:
        fidelity = Fidelity(fid)
    except ValueError:
        raise fail(f"unknown fidelity {fid!r} (expected one of: {names})") from None
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise fail(f"header 'options' must be an object, got {type(options).__name__}")
    start = obj.get("start")
    if start is not None and not isinstance(start, dict):
        raise fail(f"header 'start' must be a position object or null, got {type(start).__name__}")
    if start is not None:
        _check_start(game, start, fail)
    setup = obj.get("setup", "start")
    if setup not in SETUPS:
        raise fail(f"header 'setup' must be \"start\" or \"default\", got {setup!r}")
    description = obj.get("description", "")
    if not isinstance(description, str):
        raise fail(f"header 'description' must be a string, got {type(description).__name__}")
    return {"game": game, "fidelity": fidelity, "options": options, "start": start,
            "setup": setup, "description": description}


def _check_start(game: str, start: Mapping[str, Any], fail: Callable[[str], BoardScriptError]) -> None:
    """The header's start position, read now so a bad one is named with the script's file and line."""
    from rules.registry import get_game  # late: the registry imports every game

    try:
        rules_game = get_game(game)
    except RulesError:
        return  # a game this tableref does not know: said when the script is played
    try:
        rules_game.from_dict(start)
    except RulesError as exc:
        raise fail(f"header 'start': {exc}") from None


def _check_frame(
    obj: object, fidelity: Fidelity, prev_t: float | None, fail: Callable[[str], BoardScriptError]
) -> Frame:
    if not isinstance(obj, dict):
        raise fail(f'expected a frame object {{"t": ..., "board": {{...}}}}, got {type(obj).__name__}')
    expect_keys(obj, required=_FRAME_REQUIRED, optional=_FRAME_OPTIONAL, where="frame", error=fail)
    t = obj["t"]
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
        raise fail(f"'t' must be a number of seconds, got {t!r}")
    if prev_t is not None and t < prev_t:
        raise fail(f"'t' goes backwards ({t!r} after {prev_t!r})")
    board = obj["board"]
    if not isinstance(board, dict):
        raise fail(f"'board' must be an object of space -> token(s), got {type(board).__name__}")
    for space, tokens in board.items():
        toks = [tokens] if isinstance(tokens, str) else tokens
        if not isinstance(toks, list) or not all(isinstance(x, str) and x for x in toks):
            raise fail(f"space {space!r}: expected a token or a list of tokens, got {tokens!r}")
        if fidelity is Fidelity.OCCUPANCY and any(x != OCCUPIED for x in toks):
            bad = next(x for x in toks if x != OCCUPIED)
            raise fail(f"space {space!r}: token {bad!r} at fidelity occupancy (only {OCCUPIED!r} is read)")
    hidden = obj.get("unreadable", [])
    if not isinstance(hidden, list) or not all(isinstance(s, str) for s in hidden):
        raise fail(f"'unreadable' must be a list of space ids, got {hidden!r}")
    return Frame(float(t), View(board), frozenset(hidden))


# -- playback ------------------------------------------------------------------------------


class SimulatedBoard:
    """Plays a board script back as observations stamped with the script's own times.

    ``speed=0`` yields frames as fast as the consumer takes them; ``speed=k`` paces them
    ``k`` times faster than the script's timestamps. Without a ``clock`` each gap is slept
    as ``dt / k``; with one (a ``time.monotonic``-like callable) frames keep to a fixed
    schedule, so the consumer's own processing time is absorbed instead of added.
    """

    def __init__(
        self,
        script: BoardScript,
        *,
        source: str = "sim",
        clock: Callable[[], float] | None = None,
        speed: float = 0.0,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not (speed >= 0 and math.isfinite(speed)):
            raise ValueError(f"speed must be a finite number >= 0 (0 = as fast as possible), got {speed!r}")
        self.script = script
        self.source = source
        self.speed = float(speed)
        self._clock = clock
        self._sleep = sleep if sleep is not None else time.sleep
        self._start = 0

    @property
    def start_index(self) -> int:
        """Index of the first frame :meth:`observations` will play."""
        return self._start

    def skip_to(self, view: View) -> bool:
        """Start playback at the first frame reading ``view`` (compared at the script's
        fidelity): on resume after a crash the physical board kept its position, so the
        simulated one fast-forwards to it. False, and playback from frame 0, if none does."""
        wanted = view.at_fidelity(self.script.fidelity)
        for i, frame in enumerate(self.script.frames):
            if frame.view == wanted:
                self._start = i
                return True
        self._start = 0
        return False

    def skip_past(self, history: Sequence[View], stabiliser: "Stabiliser") -> bool:
        """Start playback just where the script has shown every position of ``history`` in
        order (the resumed game's positions, first to current), as read through
        ``stabiliser``. Unlike :meth:`skip_to` this is right when a position repeats.
        False, and playback from frame 0, if the script never gets that far."""
        wanted = [v.at_fidelity(self.script.fidelity) for v in history]
        self._start = 0
        if len(wanted) < 2:
            return True
        reached = 0
        for i, frame in enumerate(self.script.frames):
            obs = Observation(frame.view, frame.t, self.script.fidelity, self.source, frame.unreadable)
            stable = stabiliser.feed(obs)
            if stable is not None and stable == wanted[reached + 1]:
                reached += 1
                if reached == len(wanted) - 1:
                    self._start = i
                    return True
        return False

    def observations(self) -> Iterator[Observation]:
        frames = self.script.frames[self._start:]
        if not frames:
            return
        origin_t = prev_t = frames[0].t
        origin_wall = self._clock() if self._clock is not None and self.speed > 0 else 0.0
        for frame in frames:
            if self.speed > 0:
                if self._clock is not None:
                    delay = origin_wall + (frame.t - origin_t) / self.speed - self._clock()
                else:
                    delay = (frame.t - prev_t) / self.speed
                if delay > 0:
                    self._sleep(delay)
            prev_t = frame.t
            yield Observation(frame.view, frame.t, self.script.fidelity, self.source, frame.unreadable)


# -- rendering -----------------------------------------------------------------------------

# Durations in seconds, chosen around the stabiliser's default 0.6 s settle time.
_OPENING_HOLD = 1.0  # the start position, so it is reported before the first move
_SETTLE_HOLD = 1.0  # each move's result: comfortably longer than the settle time
_FINAL_HOLD = 2.0  # extra hold at the very end
_SHORT_LIFT = 0.4  # upper bound for a brief lift: well under the settle time
_LONG_LIFT = 1.0  # a lift held long enough to be seen as a partial position
_LONG_LIFT_CHANCE = 0.15
_FLICKER_CHANCE = 0.15
_BURST_CHANCE = 0.08


class _Tape:
    """Frames at a fixed interval; times come from the frame count so they never drift."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.frames: list[Frame] = []

    def add(self, view: View, hidden: Iterable[str] = ()) -> None:
        hidden = frozenset(hidden)
        # A sensor reports nothing where it cannot see.
        board = View({s: toks for s, toks in view.items() if s not in hidden})
        self.frames.append(Frame(round(len(self.frames) * self.interval, 6), board, hidden))

    def hold(self, view: View, seconds: float) -> None:
        """Enough identical frames to span at least ``seconds`` (and three readings)."""
        count = max(3, math.ceil(seconds / self.interval - 1e-9) + 1)
        for _ in range(count):
            self.add(view)


def _registry_board(game_name: str) -> Board | None:
    from rules.registry import get_game  # late: the registry imports every game

    try:
        return get_game(game_name).board()
    except (RulesError, ImportError):
        return None  # not a registered game (a test's fake): fall back to known spaces


def render_script(
    start_state: State,
    moves: Sequence[Move],
    *,
    fidelity: Fidelity | str,
    seed: int = 0,
    frame_interval: float = 0.1,
    noise: bool = True,
    settle_hold: float = _SETTLE_HOLD,
    header_extra: Mapping[str, Any] | None = None,
    board: Board | None = None,
) -> BoardScript:
    """A realistic board script of ``moves`` (legal, in order) played from ``start_state``.

    Per move: idle frames of the position (with flicker and hand-over bursts if ``noise``);
    a hand over the touched spaces and a neighbour or two; the changing spaces lifted empty,
    briefly (under the 0.6 s settle time) or now and then for about a second, so a partial
    position is seen; the hand again; then the result held for at least a second. The last
    position is held 2 s more. ``settle_hold`` is how long the players leave each result
    still (a camera needs longer than sensors: docs/vision.md). Deterministic for a given
    ``seed``. ``header_extra`` adds or overrides header fields (``description``, ``setup``...); ``board`` gives neighbours for
    the hand (default: the registered game's board, else spaces close in name order).
    """
    fid = Fidelity.parse(fidelity) if isinstance(fidelity, str) else fidelity
    if not (isinstance(frame_interval, (int, float)) and frame_interval > 0 and math.isfinite(frame_interval)):
        raise ValueError(f"frame_interval must be a positive number of seconds, got {frame_interval!r}")
    if not (isinstance(settle_hold, (int, float)) and settle_hold > 0 and math.isfinite(settle_hold)):
        raise ValueError(f"settle_hold must be a positive number of seconds, got {settle_hold!r}")
    rng = random.Random(seed)

    # Play the game first: every position, and every space we will need to speak of.
    states, touched = [start_state], []
    for i, move in enumerate(moves, start=1):
        here = states[-1]
        if not here.is_legal(move):
            raise ValueError(f"render_script: move {i} ({move!r}) is not legal in that position")
        touched.append(here.move_spaces(move))
        states.append(here.successor(move))
    views = [s.view(fid) for s in states]
    board = board if board is not None else _registry_board(start_state.game_name)
    if board is not None:
        spaces = list(board.space_ids)
    else:
        spaces = sorted(set().union(*(set(v) for v in views), *touched))

    tape = _Tape(float(frame_interval))
    tape.hold(views[0], _OPENING_HOLD)
    for before, after, hand_spaces in zip(views, views[1:], touched):
        _idle(tape, rng, before, spaces, noise)
        hand = hand_spaces | _neighbours(hand_spaces, rng, board, spaces)
        for _ in range(rng.randint(1, 3)):
            tape.add(before, hand)
        changed = before.diff(after)
        lifted = View({s: toks for s, toks in before.items() if s not in changed})
        if rng.random() < _LONG_LIFT_CHANCE:
            tape.hold(lifted, _LONG_LIFT)
        else:
            for _ in range(rng.randint(1, max(1, int(_SHORT_LIFT / frame_interval)))):
                tape.add(lifted)
        for _ in range(rng.randint(1, 3)):
            tape.add(after, hand)
        tape.hold(after, settle_hold + frame_interval * rng.randint(0, 4))
    tape.hold(views[-1], _FINAL_HOLD)

    header = {
        "board_script": VERSION,
        "game": start_state.game_name,
        "fidelity": fid.value,
        # Through JSON and back, so the header is exactly what a dumped file reads back as.
        "start": json.loads(json.dumps(start_state.to_dict())),
        **dict(header_extra or {}),
    }

    def fail(msg: str) -> BoardScriptError:
        return BoardScriptError(f"render_script: header_extra: {msg}", where="render_script")

    return BoardScript(frames=tuple(tape.frames), **_check_header(header, fail))


def _idle(tape: _Tape, rng: random.Random, view: View, spaces: Sequence[str], noise: bool) -> None:
    """A settled position between moves, with the odd flicker or hand passing over."""
    for _ in range(rng.randint(2, 6)):
        roll = rng.random() if noise else 1.0
        if roll < _FLICKER_CHANCE:
            tape.add(_flicker(view, rng, spaces))
            tape.add(view)  # a flicker lasts one frame only
        elif roll < _FLICKER_CHANCE + _BURST_CHANCE and spaces:
            hidden = rng.sample(list(spaces), k=min(len(spaces), rng.randint(2, 4)))
            for _ in range(rng.randint(1, 3)):
                tape.add(view, hidden)
        else:
            tape.add(view)


def _flicker(view: View, rng: random.Random, spaces: Sequence[str]) -> View:
    """``view`` with one space misread: an empty one seen occupied, or an occupied one empty."""
    empty = [s for s in spaces if s not in view]
    occupied = sorted(view)
    contents = view.to_dict()
    if empty and (not occupied or rng.random() < 0.5):
        tokens = sorted({t for toks in view.values() for t in toks}) or [OCCUPIED]
        contents[rng.choice(empty)] = [rng.choice(tokens)]  # a plausible piece
    elif occupied:
        del contents[rng.choice(occupied)]
    return View(contents)


def _neighbours(
    touched: frozenset[str], rng: random.Random, board: Board | None, spaces: Sequence[str]
) -> set[str]:
    """One or two spaces next to the touched ones: a hand is wider than a piece."""
    near: set[str] = set()
    for s in touched:
        if board is not None and board.has_space(s):
            near.update(n for n, _ in board.neighbours(s))
        elif s in spaces:
            i = spaces.index(s)
            near.update(spaces[max(0, i - 1): i + 2])
    pool = sorted(near - touched)
    return set(rng.sample(pool, k=min(len(pool), rng.randint(1, 2)))) if pool else set()
