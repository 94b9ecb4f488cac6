"""Strict input files (issue 20.3): every JSON file tableref reads refuses a key it does not
know, a key it needs but lacks, and a key given twice — with one line naming the key.

The fuzz takes a valid file of each format, changes ONE key of one of its objects (renamed to a
key the format does not have, dropped when the format requires it, or written twice in the
JSON text) and checks the reader refuses it with its own error naming that key: never accepted
silently, never another exception. ``SCHEMAS`` below is this test's own statement of each
format's objects and their required keys (``EXACT``: every key present is required, the keys
being data such as the players' colours); maps keyed by data (a position's ``rings``, a board's
``zones``) are not schema objects and are left alone. ``TABLEREF_FUZZ_EXAMPLES=N`` sets the
examples per test (default 60).

| format                    | reader                                   | error               |
|---------------------------|------------------------------------------|---------------------|
| position file (each game) | ``rules.strict.loads`` + ``Game.from_dict`` | ``InvalidStateError`` |
| board file                | ``Board.from_file`` (+ DRIFT's annuli)    | ``InvalidBoardError`` |
| serial wiring file        | ``Wiring.from_file``                      | ``WiringError``       |
| GPIO matrix wiring file   | ``MatrixWiring.parse``                    | ``WiringError``       |
| board script (JSON lines) | ``BoardScript.parse`` + ``start_state``   | ``BoardScriptError`` (the start position: ``InvalidStateError``) |
| JSON game record (import) | ``web.records.import_record``             | ``RecordError``       |
| lens file                 | ``Lens.load``                             | ``LensError``         |
| piece set file            | ``load_pieceset``                         | ``PieceSetError``     |
| admin file (PIN)          | ``AdminStore``                            | ``AdminError``        |
| camera calibration (.npz) | ``Calibration.load`` (unit tests below)   | ``CalibrationError``  |
| text game record          | ``parse_record`` (header lines)           | ``RecordError``       |
| config (TOML)             | ``load_config``                           | ``ConfigError``       |
"""

from __future__ import annotations

import json
import os
import re
import string
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.wiring import Wiring, WiringError
from hardware.matrix import MatrixWiring
from hardware.matrix import WiringError as MatrixWiringError
from rules import Board, Fidelity, InvalidBoardError, game_names, get_game
from rules.errors import InvalidStateError
from rules.games.drift_geometry import Geometry
from rules.strict import expect_keys, loads
from tableref.config import ConfigError, load_config
from tableref.journal import Journal
from tableref.records import Record, RecordError, parse_record, write_record
from tableref.sources.sim import BoardScript, BoardScriptError, render_script
from vision.pieces.pieceset import PIECESETS_DIR, PieceSetError, load_pieceset
from vision.read.lens import Lens, LensError
from web.auth import AdminError, AdminStore
from web.records import RecordError as JsonRecordError
from web.records import import_record

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("TABLEREF_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
GAMES = sorted(game_names())
EXACT = None  # every key the object holds is required
ANY = int  # any list index


# -- formats -----------------------------------------------------------------------------------------

POSITION = {
    "gyges": [((), ("rings",)), (("captures",), EXACT), (("needed",), EXACT)],
    "annihilation": [((), ("board",)), (("scores",), EXACT), (("reserves",), EXACT)],
    "annelids": [((), ("annelids",)), (("annelids", ANY), ("tail", "colour", "heading"))],
    "anacund": [((), ("groups",)), (("groups",), EXACT)],
    "drift": [((), ("players", "pieces")), (("players", ANY), EXACT), (("ranks",), EXACT), (("rotations",), EXACT),
              (("repositories",), EXACT), (("to_place",), EXACT), (("turn",), ("moved", "current", "points"))],
}
BOARD = [((), ("name", "spaces")), (("spaces", ANY), ("id", "x", "y")), (("connectors", ANY), ("a", "b")),
         (("areas", ANY), EXACT), (("annuli",), EXACT), (("annuli", "land", ANY), EXACT),
         (("annuli", "rivers", ANY), EXACT), (("annuli", "outcrops", ANY), EXACT)]


def _under(prefix: tuple, schema: list) -> list:
    return [(prefix + pattern, required) for pattern, required in schema]


@dataclass(frozen=True)
class Format:
    name: str
    doc: object  # a valid file's JSON value (a board script: the list of its lines)
    schema: list  # (path pattern, required keys or EXACT) of the objects whose keys are fixed
    read: Callable[[str], object]  # reads the file's text; raises ``error`` if it is bad
    error: tuple[type[Exception], ...]
    lines: bool = False  # JSON lines: one value per line

    def __repr__(self) -> str:  # hypothesis prints it when a case fails
        return f"Format({self.name})"


_TMP = tempfile.TemporaryDirectory(prefix="strict-")  # one folder, removed at exit; files overwritten


def _tmp_file(text: str, name: str) -> Path:
    path = Path(_TMP.name) / name
    path.write_text(text, encoding="utf-8")
    return path


def _read_position(text: str, game: str) -> object:
    return get_game(game).from_dict(loads(text, where="position.json"))


def _read_board(text: str) -> object:
    board = Board.from_file(_tmp_file(text, "board.json"))
    if board.name == "drift":  # the annuli are read by DRIFT's geometry
        Geometry(loads(text, where="board.json", error=InvalidBoardError), "board.json")
    return board


def _read_script(text: str) -> object:
    return BoardScript.parse(text, where="script.jsonl").start_state()


_JOURNAL = Journal(Path(_TMP.name) / "journal.sqlite3")


def _read_json_record(text: str) -> object:
    return import_record(_JOURNAL, loads(text, where="record.json", error=JsonRecordError))


def _positions() -> list[Format]:
    out = []
    for g in GAMES:
        game = get_game(g)
        docs = [game.start().to_dict(), game.default_setup().to_dict()]
        docs += [json.loads(p.read_text()) for p in sorted((ROOT / "docs" / "rules" / g).glob("*.json"))]
        out += [Format(f"{g} position", d, POSITION[g], lambda text, g=g: _read_position(text, g), (InvalidStateError,))
                for d in docs]
    return out


def _scripts() -> list[Format]:
    out = []
    for g in GAMES:
        start = get_game(g).default_setup()
        moves = []
        state = start
        for _ in range(2):
            m = state.legal_moves()[0]
            moves.append(m)
            state = state.successor(m)
        script = render_script(start, moves, fidelity="kind", noise=False)
        lines = [json.loads(line) for line in script.to_lines()][:6]
        schema = [((0,), ("board_script", "game", "fidelity")), ((ANY,), ("t", "board"))]
        out.append(Format(f"{g} board script", lines, _under((0, "start"), POSITION[g]) + schema, _read_script,
                          (BoardScriptError, InvalidStateError), lines=True))
    return out


def _json_records() -> list[Format]:
    out = []
    for g in GAMES:
        game = get_game(g)
        start = game.default_setup()
        record = {"tableref_game": 1, "game": g, "options": game.parse_options({}), "fidelity": "kind",
                  "start": start.to_dict(), "moves": [start.move_text(start.legal_moves()[0])], "outcome": None}
        schema = [((), ("tableref_game", "game", "start", "moves")), (("options",), ())]
        out.append(Format(f"{g} JSON record", record, schema + _under(("start",), POSITION[g]), _read_json_record,
                          (JsonRecordError,)))
    return out


def _others() -> list[Format]:
    out = [Format(f"{b} board file", json.loads((ROOT / "rules" / "boards" / f"{b}.json").read_text()), BOARD,
                  _read_board, (InvalidBoardError,)) for b in GAMES]
    out.append(Format("serial wiring", Wiring.builtin("gyges").to_dict(),
                      [((), ("wiring", "game", "channels")), (("tokens",), EXACT), (("channels", ANY), EXACT)],
                      lambda text: Wiring.from_file(_tmp_file(text, "wiring.json")), (WiringError,)))
    polarity = {**Wiring.builtin("gyges").to_dict(), "reads": "polarity", "tokens": {"north": "1", "south": "2"}}
    out.append(Format("serial wiring (polarity)", polarity, out[-1].schema, out[-1].read, (WiringError,)))
    out.append(Format("GPIO matrix wiring", json.loads((ROOT / "hardware" / "wiring" / "gyges-matrix.json").read_text()),
                      [((), ("wiring", "rows", "columns", "grid"))],
                      lambda text: MatrixWiring.parse(text, where="matrix.json"), (MatrixWiringError,)))
    lens = Lens(np.array([[900.0, 0, 640], [0, 900, 360], [0, 0, 1]]), np.zeros(5), (1280, 720), 0.3).to_json()
    out.append(Format("lens file", lens, [((), ("version", "size", "K", "dist"))],
                      lambda text: Lens.load(_tmp_file(text, "lens.json")), (LensError,)))
    out.append(Format("admin file", {"pin": None, "secret_key": "ab12"}, [((), EXACT)],
                      lambda text: AdminStore(_tmp_file(text, "admin.json")), (AdminError,)))
    for g in GAMES:
        pieces = json.loads((PIECESETS_DIR / f"{g}.json").read_text())
        schema = [((), ("game", "pieces")), (("pieces", ANY), ("tokens", "shape", "height_mm", "diameter_mm",
                                                               "length_mm", "width_mm")),
                  (("stacks", ANY), ("space_kind", "tokens", "max"))]
        out.append(Format(f"{g} piece set", pieces, schema,
                          lambda text, g=g: load_pieceset(g, _tmp_file(text, "pieces.json")), (PieceSetError,)))
    return out


FORMATS = _positions() + _scripts() + _json_records() + _others()


# -- one key changed -----------------------------------------------------------------------------------


def _matches(pattern: tuple, path: tuple) -> bool:
    return len(pattern) == len(path) and all(
        (p is ANY and isinstance(k, int)) or p == k for p, k in zip(pattern, path))


def schema_objects(fmt: Format) -> list[tuple[tuple, dict, tuple]]:
    """(path, object, its required keys) of every object of ``fmt.doc`` the schema fixes."""
    out = []

    def walk(value, path):
        if isinstance(value, dict):
            for pattern, required in fmt.schema:
                if _matches(pattern, path) and value:
                    keys = tuple(value) if required is EXACT else tuple(k for k in required if k in value)
                    out.append((path, value, keys))
                    break
            for k, v in value.items():
                walk(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, path + (i,))

    walk(fmt.doc, ())
    return out


def dumps(value, path=(), dup=None) -> str:
    """JSON text of ``value``; ``dup=(path, key)`` writes that object's key twice."""
    if isinstance(value, dict):
        items = [f"{json.dumps(k)}: {dumps(v, path + (k,), dup)}" for k, v in value.items()]
        if dup is not None and dup[0] == path:
            items.append(f"{json.dumps(dup[1])}: {dumps(value[dup[1]])}")
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v, path + (i,), dup) for i, v in enumerate(value)) + "]"
    return json.dumps(value)


def text_of(fmt: Format, doc, dup=None) -> str:
    if fmt.lines:
        return "\n".join(dumps(v, (i,), dup) for i, v in enumerate(doc)) + "\n"
    return dumps(doc, (), dup)


def changed(doc, path: tuple, change: Callable[[dict], dict]):
    """A copy of ``doc`` with the object at ``path`` replaced by ``change(object)``."""
    if not path:
        return change(doc)
    head, rest = path[0], path[1:]
    if isinstance(doc, list):
        return [changed(v, rest, change) if i == head else v for i, v in enumerate(doc)]
    return {k: (changed(v, rest, change) if k == head else v) for k, v in doc.items()}


def names(message: str, key: str) -> bool:
    """The message names ``key``, quoted, on its own or at the end of a path (``'turn.moved'``)."""
    return re.search(rf"'(?:[^']*[.\]])?{re.escape(key)}'", message) is not None


@pytest.mark.parametrize("fmt", FORMATS, ids=repr)
def test_every_valid_file_is_read(fmt):
    fmt.read(text_of(fmt, fmt.doc))


@FUZZ
@given(st.sampled_from(FORMATS), st.data())
def test_one_key_renamed_dropped_or_duplicated_is_refused_naming_it(fmt, data):
    path, obj, required = data.draw(st.sampled_from(schema_objects(fmt)), label="object")
    op = data.draw(st.sampled_from(["rename", "duplicate", *(["drop"] if required else [])]), label="op")
    if op == "drop":
        key = data.draw(st.sampled_from(required), label="key")
        text = text_of(fmt, changed(fmt.doc, path, lambda o: {k: v for k, v in o.items() if k != key}))
        named = key
    else:
        key = data.draw(st.sampled_from(list(obj)), label="key")
        if op == "duplicate":
            text, named = text_of(fmt, fmt.doc, dup=(path, key)), key
        else:
            named = "zz" + data.draw(st.text(string.ascii_lowercase + "_", max_size=6), label="new name")
            text = text_of(fmt, changed(fmt.doc, path, lambda o: {(named if k == key else k): v for k, v in o.items()}))
    with pytest.raises(fmt.error) as info:  # any other exception fails the test
        fmt.read(text)
    message = str(info.value)
    # 'board_script' marks a script's header line: without it the line is not a header.
    assert names(message, named) or (key == "board_script" and "expected the header {\"board_script\"" in message), \
        f"{op} {key!r} at {path}: {message}"
    assert "\n" not in str(info.value)


# -- one line per format: an unknown key, a missing key -----------------------------------------------

UNKNOWN_AND_MISSING = [
    # (format name, path to an object, key to add / key to drop, the message's key)
    ("gyges position", (), "extra", "rings"),
    ("annihilation position", (), "points", "board"),
    ("annihilation position", ("scores",), "grey", "scores.white"),
    ("annelids position", ("annelids", 0), "head", "annelids[0].tail"),
    ("anacund position", ("groups",), "C", "groups.A"),
    ("drift position", ("turn",), "movd", "turn.moved"),
    ("drift position", ("players", 1), "seat", "players[1].home"),
    ("gyges board file", ("spaces", 3), "z", "spaces[3].x"),
    ("drift board file", ("annuli", "rivers", 0), "speed", "annuli.rivers[0].flow"),
    ("serial wiring", ("channels", 2), "pin", "channels[2].space"),
    ("GPIO matrix wiring", (), "pins", "grid"),
    ("gyges board script", (0,), "fidelty", "fidelity"),
    ("gyges board script", (1,), "hand", "board"),
    ("gyges board script", (0, "start"), "extra", "rings"),
    ("drift JSON record", (), "move", "moves"),
    ("drift JSON record", ("start", "turn"), "movd", "turn.points"),
    ("lens file", (), "fx", "K"),
    ("gyges piece set", ("pieces", 0), "colour", "pieces[0].height_mm"),
]


def _first(name: str) -> Format:
    return next(f for f in FORMATS if f.name == name)


@pytest.mark.parametrize("name, path, extra, missing", UNKNOWN_AND_MISSING)
def test_an_unknown_key_and_a_missing_key_are_each_refused_naming_it(name, path, extra, missing):
    fmt = _first(name)
    with pytest.raises(fmt.error) as info:
        fmt.read(text_of(fmt, changed(fmt.doc, path, lambda o: {**o, extra: 1})))
    assert "unknown key" in str(info.value) and names(str(info.value), extra), str(info.value)
    assert all(p in str(info.value) for p in path if isinstance(p, str)), str(info.value)  # where, too
    last = missing.split(".")[-1].split("]")[-1] or missing
    with pytest.raises(fmt.error) as info:
        fmt.read(text_of(fmt, changed(fmt.doc, path, lambda o: {k: v for k, v in o.items() if k != last})))
    assert "missing key" in str(info.value) and f"'{missing}'" in str(info.value), str(info.value)


def test_the_issue_s_two_positions_are_refused():
    with pytest.raises(InvalidStateError, match=r"^annihilation position: unknown key 'points'"):
        get_game("annihilation").from_dict({"game": "annihilation", "points": {"zz": "W5"}})
    gyges = {**get_game("gyges").default_setup().to_dict(), "extra": 5}
    with pytest.raises(InvalidStateError, match=r"^gyges position: unknown key 'extra' \(expected: rings, "):
        get_game("gyges").from_dict(gyges)


def test_older_drift_files_without_the_turn_keys_added_since_are_read():
    data = json.loads((ROOT / "docs" / "rules" / "drift" / "portal.json").read_text())
    for key in ("crowded", "left_river"):
        del data["turn"][key]
    get_game("drift").from_dict(data)


def test_expect_keys_message_forms():
    with pytest.raises(InvalidStateError, match=r"^f\.json: expected a JSON object, not a list$"):
        expect_keys([], where="f.json")
    with pytest.raises(InvalidStateError, match=r"^f\.json: 'a\.b' must be a JSON object, not null$"):
        expect_keys(None, where="f.json", path="a.b")
    with pytest.raises(InvalidStateError, match=r"^f\.json: duplicate key 'x' \(a key may appear once"):
        loads('{"y": {"x": 1, "x": 2}}', where="f.json")
    with pytest.raises(InvalidStateError, match=r"^f\.json: line 2: not valid JSON"):
        loads('{\n,}', where="f.json")
    assert expect_keys({"a": 1}, required=("a",), optional=("b",), where="f") == {"a": 1}


# -- line formats: the text game record and the config ------------------------------------------------


def _record_text() -> str:
    game = get_game("gyges")
    states, moves = [game.default_setup()], []
    for _ in range(3):
        move = states[-1].legal_moves()[0]
        moves.append(states[-1].move_text(move))
        states.append(states[-1].successor(move))
    return write_record(Record("gyges", game.parse_options({}), Fidelity.KIND, 1_700_000_000, tuple(moves),
                               tuple(states)))


RECORD = _record_text()
CONFIG = (ROOT / "deploy" / "tableref.toml").read_text(encoding="utf-8")


def _config_keys() -> list[tuple[int, str, bool]]:
    """(line number, key, required) of every key line of the example config; its comment says
    "required" (source.kind is required once a [source] table is given)."""
    out, table = [], ""
    for i, line in enumerate(CONFIG.splitlines()):
        bare, _, comment = line.partition("#")
        bare = bare.strip()
        if bare.startswith("["):
            table = bare.strip("[]")
        elif "=" in bare:
            key = bare.split("=")[0].strip()
            out.append((i, key, comment.strip().startswith("required") or (table, key) == ("source", "kind")))
    return out


def _record_keys() -> list[int]:
    return [i for i, line in enumerate(RECORD.splitlines()) if re.match(r"^[A-Z][a-z]+: ", line)]


def _load_config(text: str) -> None:
    path = _tmp_file(text, "tableref.toml")
    load_config(path)


@FUZZ
@given(st.sampled_from(["record", "config"]), st.data())
def test_line_formats_refuse_one_key_renamed_dropped_or_duplicated(which, data):
    if which == "record":
        lines = RECORD.splitlines()
        i = data.draw(st.sampled_from(_record_keys()))
        key = lines[i].split(":")[0]
        required, read, error = True, lambda t: parse_record(t, where="game.txt"), RecordError
    else:
        lines = CONFIG.splitlines()
        i, key, required = data.draw(st.sampled_from(_config_keys()))
        read, error = _load_config, ConfigError
    op = data.draw(st.sampled_from(["rename", "duplicate", *(["drop"] if required else [])]))
    named = key
    if op == "drop":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i + 1, lines[i])
    else:
        named = "Zz" + data.draw(st.text(string.ascii_lowercase, max_size=5))
        lines[i] = lines[i].replace(key, named, 1)
    with pytest.raises(error) as info:
        read("\n".join(lines) + "\n")
    message = str(info.value)
    # A record's first line says what the file is: renamed, the file is "not a tableref game record".
    # The config reads its required keys before it looks for unknown ones: a renamed required key
    # is named as missing ('game.name'), the new name after it is put back.
    assert (named in message or (key == "Format" and "'Format: " in message)
            or (op == "rename" and required and f"{key}: missing" in message)), f"{op} {key!r}: {message}"


# -- the camera's calibration file (an .npz: arrays and a JSON meta) ----------------------------------


def _calibration_file(tmp_path: Path, change_meta=lambda m: m, extra_array: bool = False) -> tuple[Path, object]:
    from vision.read.empty_board import Calibration, ColourClass
    from vision.read.samples import SampleGrid
    from vision.sheets.layout import Sheet

    grid = SampleGrid(Sheet.for_board(get_game("anacund").board()))
    n, p = len(grid.body.mm), len(grid.probes)
    cal = Calibration("anacund", "colour", np.zeros((n, 3), np.uint8), np.full((n, 3), 255, np.uint8),
                      np.ones((n, 3), np.float32), np.zeros((p, 3), np.float32),
                      (ColourClass("A", np.array([10, 20, 30], np.float32), 25.0),))
    path = tmp_path / "cal.npz"
    cal.save(path)
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["meta"] = np.array(json.dumps(change_meta(json.loads(str(arrays["meta"])))))
    if extra_array:
        arrays["colours"] = np.zeros(3)
    np.savez_compressed(path, **arrays)
    return path, grid


@pytest.mark.parametrize("change, extra_array, message", [
    (lambda m: m, False, None),
    (lambda m: {**m, "lamp": 1}, False, r"unknown key 'meta\.lamp'"),
    (lambda m: {k: v for k, v in m.items() if k != "mode"}, False, r"missing key 'meta\.mode'"),
    (lambda m: {**m, "classes": [{**m["classes"][0], "hue": 3}]}, False, r"unknown key 'meta\.classes\[0\]\.hue'"),
    (lambda m: {**m, "classes": [{k: v for k, v in m["classes"][0].items() if k != "tol"}]}, False,
     r"missing key 'meta\.classes\[0\]\.tol'"),
    (lambda m: m, True, r"unknown key 'colours'"),
    (lambda m: {k: v for k, v in m.items() if k != "exposure_ev"}, False, None),  # a file from before it was kept
    (lambda m: {**m, "exposure_ev": "bright"}, False, r"'meta\.exposure_ev' must be a number of stops, not 'bright'"),
    (lambda m: {**m, "exposure_ev": True}, False, r"'meta\.exposure_ev' must be a number of stops, not True"),
])
def test_calibration_file_keys(tmp_path, change, extra_array, message):
    from vision.read.empty_board import Calibration, CalibrationError

    path, grid = _calibration_file(tmp_path, change, extra_array)
    if message is None:
        assert Calibration.load(path, grid).classes[0].name == "A"
        return
    with pytest.raises(CalibrationError, match=rf"^{re.escape(str(path))}: {message}"):
        Calibration.load(path, grid)
