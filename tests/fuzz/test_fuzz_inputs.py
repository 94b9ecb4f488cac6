"""Fuzzing the service's inputs with hypothesis: each input is either accepted or refused
with its documented error, never anything else.

| input                     | entry point                       | documented refusal          |
|---------------------------|-----------------------------------|-----------------------------|
| board file (JSON)         | ``rules.Board.from_dict``         | ``InvalidBoardError``       |
| config file (TOML text)   | ``tableref.config.load_config``   | ``ConfigError``             |
| game record (text)        | ``tableref.records.parse_record`` | ``RecordError``             |
| observation view (JSON)   | ``View.from_dict`` + ``explain``  | ``InvalidStateError``; explain never raises on a view |
| position file (JSON)      | ``State.from_dict`` per game      | ``RulesError``              |
| serial frames on the line | ``SerialBoard`` over ``loop://``  | dropped and counted; nothing is trusted until a good full scan |

Inputs are built from valid ones (the reference boards, deploy/tableref.toml, records of
random games) and then damaged, plus wholly random ones. ``TABLEREF_FUZZ_EXAMPLES=N`` sets
the examples per test (default 60, a few seconds in all) for a long run.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import threading
import time
from pathlib import Path

import pytest
import serial
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import Capability, Change, FullScan, Heartbeat, Hello, Reading, encode
from firmware_bridge.serial_board import CONNECTED, SerialBoard
from firmware_bridge.wiring import Wiring
from rules import Board, Fidelity, InvalidBoardError, RulesError, View, explain, game_names, get_game
from rules.errors import InvalidStateError
from tableref.config import ConfigError, load_config
from tableref.records import Record, RecordError, parse_record, write_record

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("TABLEREF_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
GAMES = sorted(game_names())

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                         st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)), max_leaves=20)


def damage(value, rng: random.Random, depth: int = 0):
    """A copy of a JSON value with a few things broken: keys dropped, values swapped for others."""
    junk = [None, True, -1, 1e308, float("nan"), "", "zz9", [], {}, [1, 2, 3], {"a": 1}]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            r = rng.random()
            if r < 0.05:
                continue
            out[k] = rng.choice(junk) if r < 0.1 else damage(v, rng, depth + 1)
        if rng.random() < 0.05:
            out[rng.choice(["id", "x", "name", "spaces", "zz"])] = rng.choice(junk)
        return out
    if isinstance(value, list):
        out = [damage(v, rng, depth + 1) for v in value if rng.random() > 0.03]
        if out and rng.random() < 0.05:
            out.append(out[0])  # a duplicate
        return out
    return rng.choice(junk) if rng.random() < 0.03 else value


# -- board files -------------------------------------------------------------------------------------

BOARDS = [get_game(g).board().to_dict() for g in GAMES]


@FUZZ
@given(st.sampled_from(BOARDS), st.integers(0, 2**32))
def test_damaged_board_files(board, seed):
    data = damage(board, random.Random(seed))
    try:
        Board.from_dict(data, where="fuzz.json")
    except InvalidBoardError as exc:
        assert str(exc).startswith("fuzz.json: ")


@FUZZ
@given(json_values)
def test_random_json_as_a_board_file(data):
    try:
        Board.from_dict(data)
    except InvalidBoardError:
        pass


# -- config files -------------------------------------------------------------------------------------

EXAMPLE_CONFIG = (ROOT / "deploy" / "tableref.toml").read_text(encoding="utf-8")


def _load(text: str | bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tableref.toml"
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        try:
            load_config(path)
        except ConfigError as exc:
            assert str(path) in str(exc)


def mangle_lines(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        op = rng.randrange(6)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])  # a key or table twice
        elif op == 2 and "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            lines[i] = key + "= " + rng.choice(['"zz"', "-1", "1e400", "nan", "[1, \"a\"]", "{}", "true", '""',
                                               "0", "99999999999999999999", '"/no/such/file"'])
        elif op == 3:
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut]
        elif op == 4:
            lines[i] = lines[i].replace("=", rng.choice(["", "==", ":"]), 1)
        else:
            lines.insert(i, rng.choice(["[zz]", "zz = 1", "[source.zz]", "kind = \"camera\"", "[[web]]"]))
    return "\n".join(lines)


@FUZZ
@given(st.integers(0, 2**32))
def test_damaged_config_files(seed):
    _load(mangle_lines(EXAMPLE_CONFIG, random.Random(seed)))


@FUZZ
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300)))
def test_random_text_as_a_config_file(text):
    _load(text)


# -- game records ---------------------------------------------------------------------------------------


def random_record(game: str, seed: int, plies: int) -> str:
    """The text record of a random game of ``plies`` moves from the start or the default setup."""
    rng = random.Random(seed)
    g = get_game(game)
    start = g.default_setup() if rng.random() < 0.5 else g.start()
    state, moves = start, []
    for _ in range(plies):
        legal = state.legal_moves()
        if not legal:
            break
        m = rng.choice(legal)
        moves.append(state.move_text(m))
        state = state.successor(m)
    return write_record(Record.replay(start, g.parse_options({}), Fidelity.KIND, moves, 1_700_000_000))


@FUZZ
@given(st.sampled_from(GAMES), st.integers(0, 2**32), st.integers(0, 12))
def test_damaged_game_records(game, seed, plies):
    text = random_record(game, seed, plies)
    assert write_record(parse_record(text)) == text  # the undamaged record reads back, byte for byte
    rng = random.Random(seed)
    damaged = mangle_record(text, rng)
    try:
        parse_record(damaged, where="fuzz.txt")
    except RecordError as exc:
        assert exc.where == "fuzz.txt"


def mangle_record(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        op = rng.randrange(5)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines[i] = lines[rng.randrange(len(lines))]  # a line copied over another
        elif op == 2:
            cut = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + rng.choice(["", "x", "0", ":", "{", "é", "\x00", " 9"]) + lines[i][cut:]
        elif op == 3:
            lines = lines[:i]  # truncated
        else:
            lines.insert(i, rng.choice(["Moves: 3", "End", "1. a1-a2", "Result: draw", "Options: {\"zz\": 1}"]))
    return "\n".join(lines) + rng.choice(["", "\n", "\r\n"])


@FUZZ
@given(st.text(max_size=400))
def test_random_text_as_a_game_record(text):
    try:
        parse_record(text)
    except RecordError:
        pass


# -- observation views and positions ------------------------------------------------------------------


@FUZZ
@given(st.sampled_from(GAMES), st.integers(0, 2**32), st.integers(0, 20), st.sampled_from(list(Fidelity)))
def test_views_from_json_are_explained_or_refused(game, seed, plies, fidelity):
    """Any view a source may send: refused by View.from_dict, or explained with a verdict."""
    rng = random.Random(seed)
    state = get_game(game).default_setup()
    for _ in range(plies):
        legal = state.legal_moves()
        if not legal:
            break
        state = state.successor(rng.choice(legal))
    spaces = sorted(state.view(Fidelity.KIND)) + sorted(get_game(game).board().space_ids)[:20]
    base = state.view(fidelity).to_dict()
    tokens = sorted({t for ts in base.values() for t in ts}) or ["x"]
    data = dict(base)
    for _ in range(rng.randint(0, 4)):  # pieces moved, lifted, invented, mistyped
        op = rng.randrange(4)
        if op == 0 and data:
            data.pop(rng.choice(sorted(data)))
        elif op == 1:
            data[rng.choice(spaces)] = [rng.choice(tokens)]
        elif op == 2:
            data[rng.choice(["zz9", "", "a0", "rotation:zz"])] = [rng.choice(tokens)]
        elif op == 3:
            data[rng.choice(spaces)] = rng.choice([[], "2", ["?"], [1], None, {"a": 1}, [rng.choice(tokens)] * 3])
    if rng.random() < 0.1:  # not a view at all
        data = rng.choice([[], "view", None, {1: ["x"]}])
    try:
        view = View.from_dict(json.loads(json.dumps(data)) if _jsonable(data) else data)
    except InvalidStateError:
        return
    unreadable = frozenset(rng.sample(spaces, rng.randint(0, 1)))
    e = explain(state, view, fidelity, unreadable=unreadable)
    assert e.verdict.value in ("unreadable", "unchanged", "legal", "ambiguous", "partial", "illegal")


def _jsonable(data) -> bool:
    try:
        json.dumps(data)
        return True
    except (TypeError, ValueError):
        return False


@FUZZ
@given(st.sampled_from(GAMES), st.integers(0, 2**32))
def test_damaged_positions(game, seed):
    g = get_game(game)
    data = damage(g.default_setup().to_dict(), random.Random(seed))
    try:
        g.from_dict(data)
    except RulesError:
        pass


def test_drift_position_with_a_piece_on_a_list_is_refused():
    g = get_game("drift")
    data = g.default_setup().to_dict()
    piece = sorted(data["pieces"])[0]
    data["pieces"][piece] = ["O0"]
    with pytest.raises(RulesError):
        g.from_dict(data)


# -- serial frames, through the whole link ---------------------------------------------------------------

WIRING = Wiring.builtin("gyges")
readings = st.sampled_from(list(Reading))
capabilities = st.one_of(
    st.just((WIRING.reads,) * WIRING.channel_count),  # the board the wiring expects
    st.lists(st.sampled_from(list(Capability)), min_size=1, max_size=50).map(tuple))
board_messages = st.one_of(
    st.builds(Hello, st.just("fuzz"), st.just((1, 0, 0)), capabilities),
    st.builds(FullScan, st.lists(readings, min_size=1, max_size=60).map(tuple)),
    st.builds(Change, st.lists(st.tuples(st.integers(0, 60), readings), min_size=1, max_size=5,
                               unique_by=lambda cr: cr[0]).map(tuple)),
    st.builds(Heartbeat, st.integers(0, 2**32 - 1)),
)


@settings(max_examples=max(5, EXAMPLES // 4), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 255), board_messages), min_size=1, max_size=12),
       st.integers(0, 2**32))
def test_serial_frames_through_the_link(stream, seed):
    """Frames a board (or a broken one) might send, damaged at random, poured into a
    SerialBoard over pyserial's loop://: every complete reading it hands out is one the wiring
    can make, and a good hello and full scan afterwards always bring it back in sync (its
    thread survived whatever came before)."""
    rng = random.Random(seed)
    raw = b"".join(encode(seq, m) for seq, m in stream)
    if rng.random() < 0.5:
        raw = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        raw = bytes(raw)
    port = serial.serial_for_url("loop://", timeout=0.01)
    board = SerialBoard(port, WIRING, tick=0.01)
    empty = (Reading.EMPTY,) * WIRING.channel_count
    good = encode(0, Hello("fuzz", (1, 0, 0), (WIRING.reads,) * WIRING.channel_count)) + encode(1, FullScan(empty))
    got = []
    with board:
        reader = threading.Thread(target=lambda: got.extend(board.observations()), daemon=True)
        reader.start()
        port.write(raw)
        time.sleep(0.05)
        # The full scan goes a moment after the hello, as a board's answer would.
        port.write(good[: len(good) - len(encode(1, FullScan(empty)))])
        time.sleep(0.05)
        port.write(encode(1, FullScan(empty)))
        deadline = time.monotonic() + 3
        while board.status.state != CONNECTED and time.monotonic() < deadline:
            time.sleep(0.005)
        assert board.status.state == CONNECTED, board.status.text()
        # An observation of the board in sync (list.extend appends as the generator yields;
        # a fixed 50 ms missed it on a loaded machine: the reader thread had not run yet).
        deadline = time.monotonic() + 3
        while not any(not o.unreadable and o.view == View() for o in list(got)) and time.monotonic() < deadline:
            time.sleep(0.005)
    reader.join(5)
    spaces = WIRING.space_ids
    for obs in got:
        assert set(obs.view) <= spaces and obs.unreadable <= spaces
    assert any(not o.unreadable and o.view == View() for o in got), "the good full scan was never read"


def test_an_echoing_line_does_not_cost_a_resync_per_hello():
    # The link's own Ack (a type both sides send) comes back over loop://: known as ours by
    # its bytes, it is not taken for the board's next frame (a sequence gap, a resync).
    port = serial.serial_for_url("loop://", timeout=0.01)
    board = SerialBoard(port, WIRING, tick=0.01)
    empty = (Reading.EMPTY,) * WIRING.channel_count
    with board:
        port.write(encode(0, Hello("echo", (1, 0, 0), (WIRING.reads,) * WIRING.channel_count))
                   + encode(1, FullScan(empty)))
        time.sleep(0.3)
        gaps = board.stats.seq_gaps
    assert gaps == 0 and board.stats.resyncs == 0 and board.stats.echoed >= 1
