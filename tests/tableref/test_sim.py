"""The simulated board: board-script parsing and writing, playback, rendering."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rules.game import Outcome, State
from rules.view import OCCUPIED, Fidelity, View
from tableref.sources.sim import BoardScript, BoardScriptError, Frame, SimulatedBoard, render_script
from tableref.stabiliser import Stabiliser

# -- a tiny fake game: a strip of five spaces; a piece steps to an adjacent empty space ------

STRIP = ("p1", "p2", "p3", "p4", "p5")


@dataclass(frozen=True)
class StripState(State):
    game_name = "strip"
    pieces: tuple[tuple[str, str], ...] = (("p1", "big"), ("p4", "small"))  # (space, kind), sorted

    @property
    def to_move(self) -> str:
        return "solo"

    def outcome(self) -> Outcome | None:
        return None

    def legal_moves(self) -> list[tuple[str, str]]:
        taken = {s for s, _ in self.pieces}
        moves = []
        for s, _ in self.pieces:
            i = STRIP.index(s)
            for j in (i - 1, i + 1):
                if 0 <= j < len(STRIP) and STRIP[j] not in taken:
                    moves.append((s, STRIP[j]))
        return moves

    def successor(self, move: tuple[str, str]) -> "StripState":
        src, dst = move
        return StripState(tuple(sorted((dst if s == src else s, k) for s, k in self.pieces)))

    def move_spaces(self, move: tuple[str, str]) -> frozenset[str]:
        # The hand also steadies the other piece: touched, but not changed.
        return frozenset(s for s, _ in self.pieces) | {move[1]}

    def parse_move(self, text: str) -> tuple[str, str]:
        src, _, dst = text.partition("-")
        return (src, dst)

    def move_text(self, move: tuple[str, str]) -> str:
        return f"{move[0]}-{move[1]}"

    def view(self, fidelity: Fidelity) -> View:
        return View({s: k for s, k in self.pieces}).at_fidelity(fidelity)

    def to_dict(self) -> dict[str, Any]:
        return {"game": "strip", "pieces": {s: k for s, k in self.pieces}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "StripState":
        return cls(tuple(sorted(data["pieces"].items())))


def random_game(start: State, n: int, seed: int) -> list:
    rng, state, moves = random.Random(seed), start, []
    for _ in range(n):
        legal = state.legal_moves()
        if not legal:
            break
        move = rng.choice(list(legal))
        moves.append(move)
        state = state.successor(move)
    return moves


# -- parsing ---------------------------------------------------------------------------------

HEADER = '{"board_script": 1, "game": "strip", "fidelity": "kind"}'
GOOD = """\
{"board_script": 1, "game": "strip", "fidelity": "kind", "options": {"x": 1}, "setup": "default", "description": "two pieces"}
# a comment, then a blank line

{"t": 0, "board": {"p1": "big", "p4": ["small"]}}
{"t": 0.1, "board": {"p1": ["big", "small"]}, "unreadable": ["p4", "p5"]}
{"t": 0.1, "board": {}}
"""


def test_parse_reads_header_and_frames():
    script = BoardScript.parse(GOOD, where="good.jsonl")
    assert (script.game, script.fidelity, script.setup) == ("strip", Fidelity.KIND, "default")
    assert script.options == {"x": 1} and script.start is None and script.description == "two pieces"
    assert script.frames == (
        Frame(0.0, View({"p1": "big", "p4": "small"})),
        Frame(0.1, View({"p1": ("big", "small")}), frozenset({"p4", "p5"})),
        Frame(0.1, View()),
    )
    assert isinstance(script.frames[0].t, float)


def test_header_defaults():
    script = BoardScript.parse(HEADER + "\n")
    assert (script.options, script.start, script.setup, script.description, script.frames) == ({}, None, "start", "", ())


def lines(*frames: str, header: str = HEADER) -> str:
    return "\n".join((header,) + frames) + "\n"


F = '{"t": 1, "board": {}}'


@pytest.mark.parametrize(
    "text, message",
    [
        (lines(F, '{"t": 3.5, "board": {}}', '{"t": 3.2, "board": {}}'),
         "sample.jsonl:4: 't' goes backwards (3.2 after 3.5)"),
        (lines(F, "# note", "", '{"t": 2, "board": {"p1": "big"},}'),
         "sample.jsonl:5: not valid JSON: Expecting property name enclosed in double quotes (column 33)"),
        (lines(F, '{"board": {}}'), "sample.jsonl:3: frame: missing key 't'"),
        (lines('{"t": "soon", "board": {}}'), "sample.jsonl:2: 't' must be a number of seconds, got 'soon'"),
        (lines('{"t": true, "board": {}}'), "sample.jsonl:2: 't' must be a number of seconds, got True"),
        (lines(F, F, '{"t": 2}'), "sample.jsonl:4: frame: missing key 'board'"),
        (lines('{"t": 2, "board": []}'), "sample.jsonl:2: 'board' must be an object of space -> token(s), got list"),
        (lines('{"t": 2, "board": {"p1": 3}}'), "sample.jsonl:2: space 'p1': expected a token or a list of tokens, got 3"),
        (lines('{"t": 2, "board": {}, "unreadable": "p1"}'), "sample.jsonl:2: 'unreadable' must be a list of space ids, got 'p1'"),
        (lines('{"t": 2, "board": {}, "hand": true}'), "sample.jsonl:2: frame: unknown key 'hand' (expected: t, board, unreadable)"),
        (lines('[1, 2]'), "sample.jsonl:2: expected a frame object {\"t\": ..., \"board\": {...}}, got list"),
        (lines(header='{"board_script": 1, "game": "strip", "fidelity": "smell"}'),
         "sample.jsonl:1: unknown fidelity 'smell' (expected one of: occupancy, kind, identity)"),
        (lines(header='{"board_script": 2, "game": "strip", "fidelity": "kind"}'),
         "sample.jsonl:1: unsupported board_script version 2 (this reader knows 1)"),
        ("# header is missing\n" + F + "\n",
         'sample.jsonl:2: expected the header {"board_script": 1, "game": ..., "fidelity": ...} first'),
        (lines(header='{"board_script": 1, "fidelity": "kind"}'), "sample.jsonl:1: header: missing key 'game'"),
        (lines(header='{"board_script": 1, "game": "strip", "fidelity": "kind", "start": 3}'),
         "sample.jsonl:1: header 'start' must be a position object or null, got int"),
        (lines(header='{"board_script": 1, "game": "strip", "fidelity": "kind", "setup": "later"}'),
         "sample.jsonl:1: header 'setup' must be \"start\" or \"default\", got 'later'"),
        (lines(header='{"board_script": 1, "game": "strip", "fidelity": "kind", "fidelty": "kind"}'),
         "sample.jsonl:1: header: unknown key 'fidelty' (expected: board_script, game, fidelity, options, start, setup, description)"),
        (lines('{"t": 0, "board": {"p1": "occupied"}}', '{"t": 1, "board": {"p2": "big"}}',
               header='{"board_script": 1, "game": "strip", "fidelity": "occupancy"}'),
         "sample.jsonl:3: space 'p2': token 'big' at fidelity occupancy (only 'occupied' is read)"),
        ("\n# nothing here\n", "sample.jsonl: empty board script (no header line)"),
    ],
)
def test_parse_errors_name_file_line_and_fault(text, message):
    with pytest.raises(BoardScriptError) as info:
        BoardScript.parse(text, where="sample.jsonl")
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_parse_error_carries_line_number():
    with pytest.raises(BoardScriptError) as info:
        BoardScript.parse(lines(F, F, '{"t": 0, "board": {}}'), where="x")
    assert (info.value.where, info.value.line) == ("x", 4)


def test_from_file_names_the_path(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(lines(F, "{oops"), encoding="utf-8")
    with pytest.raises(BoardScriptError, match=rf"^{path}:3: not valid JSON"):
        BoardScript.from_file(path)
    with pytest.raises(BoardScriptError, match=r"missing\.jsonl: cannot read board script"):
        BoardScript.from_file(tmp_path / "missing.jsonl")


# -- writing ---------------------------------------------------------------------------------


def test_to_lines_round_trips_and_is_the_documented_format(tmp_path):
    script = BoardScript.parse(GOOD)
    out = script.to_lines()
    assert json.loads(out[0]) == {"board_script": 1, "game": "strip", "fidelity": "kind", "options": {"x": 1},
                                  "start": None, "setup": "default", "description": "two pieces"}
    assert json.loads(out[1]) == {"t": 0.0, "board": {"p1": "big", "p4": "small"}}
    assert json.loads(out[2]) == {"t": 0.1, "board": {"p1": ["big", "small"]}, "unreadable": ["p4", "p5"]}
    assert BoardScript.parse("\n".join(out)) == script
    script.dump(tmp_path / "s.jsonl")
    assert BoardScript.from_file(tmp_path / "s.jsonl") == script


def test_rendered_script_round_trips(tmp_path):
    start = StripState()
    script = render_script(start, random_game(start, 8, seed=1), fidelity="identity", seed=1)
    script.dump(tmp_path / "r.jsonl")
    assert BoardScript.from_file(tmp_path / "r.jsonl") == script
    assert script.start == start.to_dict() and script.game == "strip"


# -- playback --------------------------------------------------------------------------------

TIMED = BoardScript.parse(lines(
    '{"t": 0, "board": {"p1": "big"}}',
    '{"t": 0.5, "board": {"p2": "big"}, "unreadable": ["p3"]}',
    '{"t": 1.5, "board": {"p2": "big"}}',
    '{"t": 1.5, "board": {"p3": "big"}}',
    '{"t": 3.5, "board": {"p1": "big"}}',
))


def test_observations_carry_script_time_fidelity_source_and_unreadable():
    board = SimulatedBoard(TIMED, source="left-camera", sleep=lambda s: pytest.fail("speed 0 must not sleep"))
    got = list(board.observations())
    assert [o.time for o in got] == [0.0, 0.5, 1.5, 1.5, 3.5]
    assert [o.view for o in got] == [f.view for f in TIMED.frames]
    assert got[1].unreadable == {"p3"} and got[0].is_complete
    assert {o.source for o in got} == {"left-camera"} and {o.fidelity for o in got} == {Fidelity.KIND}


def test_speed_paces_frames_with_the_injected_sleep():
    slept: list[float] = []
    board = SimulatedBoard(TIMED, speed=2.0, sleep=slept.append)
    assert len(list(board.observations())) == 5
    assert slept == pytest.approx([0.25, 0.5, 1.0])  # gaps 0.5, 1, 0, 2 seconds at 2x


class FakeClock:
    def __init__(self) -> None:
        self.now, self.slept = 100.0, []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_speed_with_a_clock_keeps_to_schedule_despite_slow_consumer():
    clock = FakeClock()
    board = SimulatedBoard(TIMED, speed=1.0, clock=clock, sleep=clock.sleep)
    times = []
    for o in board.observations():
        times.append(clock.now - 100.0)
        clock.now += 0.2  # the consumer takes 0.2 s per observation
    assert times == pytest.approx([0.0, 0.5, 1.5, 1.7, 3.5])  # late frames come at once, then catch up
    assert clock.slept == pytest.approx([0.3, 0.8, 1.6])


@pytest.mark.parametrize("speed", [-1.0, float("nan"), float("inf")])
def test_speed_must_be_sensible(speed):
    with pytest.raises(ValueError, match="speed must be"):
        SimulatedBoard(TIMED, speed=speed)


def test_skip_to_starts_playback_at_the_first_matching_frame():
    board = SimulatedBoard(TIMED)
    assert board.skip_to(View({"p2": "big"}))
    assert board.start_index == 1
    assert [o.time for o in board.observations()] == [0.5, 1.5, 1.5, 3.5]
    assert board.skip_to(View({"p1": "big"})) and board.start_index == 0  # first match, not the last


def test_skip_to_without_a_match_plays_from_the_start():
    board = SimulatedBoard(TIMED)
    board.skip_to(View({"p3": "big"}))
    assert not board.skip_to(View({"p5": "big"}))
    assert board.start_index == 0 and len(list(board.observations())) == 5


def test_skip_to_compares_at_the_script_fidelity():
    script = render_script(StripState(), [("p1", "p2"), ("p2", "p3")], fidelity=Fidelity.OCCUPANCY, noise=False)
    board = SimulatedBoard(script)
    target = StripState((("p3", "big"), ("p4", "small")))
    assert board.skip_to(target.view(Fidelity.KIND))  # a kind view, matched by occupancy
    first = next(board.observations())
    assert first.view == target.view(Fidelity.OCCUPANCY) and first.time > 0


# -- rendering -------------------------------------------------------------------------------


def stable_views(script: BoardScript, **kwargs) -> list[View]:
    stab = Stabiliser(**kwargs)
    return [v for v in map(stab.feed, SimulatedBoard(script).observations()) if v is not None]


def check_stable_sequence(start: State, moves: list, fidelity: Fidelity, stable: list[View]) -> int:
    """The stable views are the positions in order (repeats collapsed), with only lifted views
    (the position before a move, some changing spaces emptied) in between. Returns how many."""
    positions, state = [start.view(fidelity)], start
    for m in moves:
        state = state.successor(m)
        if state.view(fidelity) != positions[-1]:
            positions.append(state.view(fidelity))
    assert [v for v in stable if v in positions] == positions
    extra, i = 0, 0
    for v in stable:
        if v == positions[i]:
            continue
        if i + 1 < len(positions) and v == positions[i + 1]:
            i += 1
            continue
        before, after = positions[i], positions[i + 1]
        changed = before.diff(after)
        assert v.diff(before) <= changed, f"not a lifted view: {v} between {before} and {after}"
        assert all(not v.get_tokens(s) for s in v.diff(before)), f"flicker reported: {v}"
        extra += 1
    return extra


@pytest.mark.parametrize("fidelity", list(Fidelity))
@pytest.mark.parametrize("seed", range(6))
def test_rendered_game_stabilises_to_its_positions(fidelity, seed):
    start = StripState()
    moves = random_game(start, 25, seed)
    script = render_script(start, moves, fidelity=fidelity, seed=seed)
    check_stable_sequence(start, moves, fidelity, stable_views(script))


def test_rendering_is_realistic():
    start = StripState()
    moves = random_game(start, 40, seed=3)
    script = render_script(start, moves, fidelity="kind", seed=3, frame_interval=0.1)
    frames = script.frames
    assert [round(f.t, 6) for f in frames] == [round(i * 0.1, 6) for i in range(len(frames))]
    positions, state = {start.view(Fidelity.KIND)}, start
    for m in moves:
        state = state.successor(m)
        positions.add(state.view(Fidelity.KIND))
    final = state.view(Fidelity.KIND)
    # Hands over the board: every move's spaces, and a neighbour, are hidden at some point.
    # (Without noise, so no random hand-over bursts can pass for the move's hand.)
    quiet = render_script(start, moves, fidelity="kind", seed=3, noise=False)
    hidden = [f.unreadable for f in quiet.frames if f.unreadable]
    state = start
    for m in moves:
        assert any(state.move_spaces(m) < h for h in hidden), m
        state = state.successor(m)
    # Single-frame flicker: a complete frame that is not a position or a lifted view, alone.
    for i, f in enumerate(frames):
        if not f.unreadable and f.view not in positions and len(f.view) != 1:
            assert frames[i - 1].view != f.view and frames[i + 1].view != f.view
    flickers = [f for f in frames if not f.unreadable and f.view not in positions and len(f.view) == 3]
    assert flickers, "noise should add the odd misread piece"
    # The end holds the final position for at least 2 s.
    assert frames[-1].t - frames[-21].t >= 2.0 - 1e-9
    assert all(f.view == final and not f.unreadable for f in frames[-21:])


def test_long_lifts_happen_now_and_then_and_show_as_partial_views():
    start = StripState()
    moves = random_game(start, 40, seed=5)
    script = render_script(start, moves, fidelity="kind", seed=5)
    extra = check_stable_sequence(start, moves, Fidelity.KIND, stable_views(script))
    assert 1 <= extra <= len(moves) // 2


def test_lifts_are_mostly_brief_and_sometimes_about_a_second():
    start, spans = StripState(), []
    for seed in range(5):
        moves = random_game(start, 30, seed)
        script = render_script(start, moves, fidelity="kind", seed=seed, noise=False)
        positions, state = {start.view(Fidelity.KIND)}, start
        for m in moves:
            state = state.successor(m)
            positions.add(state.view(Fidelity.KIND))
        run: list[float] = []
        for f in script.frames:
            if not f.unreadable and f.view not in positions:
                run.append(f.t)
            elif run:
                spans.append(run[-1] - run[0])
                run = []
    long = [s for s in spans if s >= 0.6]
    assert all(s < 0.45 or 0.9 < s < 1.3 for s in spans), spans
    assert 0.05 * len(spans) <= len(long) <= 0.3 * len(spans), (len(long), len(spans))


def test_without_noise_no_flicker_and_no_bursts():
    start = StripState()
    moves = random_game(start, 20, seed=2)
    script = render_script(start, moves, fidelity="kind", seed=2, noise=False)
    states, s = [start], start
    for m in moves:
        s = s.successor(m)
        states.append(s)
    allowed = {st.view(Fidelity.KIND) for st in states}
    for before, m in zip(states, moves):
        changed = before.view(Fidelity.KIND).diff(before.successor(m).view(Fidelity.KIND))
        allowed.add(View({k: v for k, v in before.view(Fidelity.KIND).items() if k not in changed}))
    assert all(f.view in allowed for f in script.frames if not f.unreadable)


def test_rendering_is_deterministic_per_seed():
    start = StripState()
    moves = random_game(start, 10, seed=0)
    assert render_script(start, moves, fidelity="kind", seed=4) == render_script(start, moves, fidelity="kind", seed=4)
    assert render_script(start, moves, fidelity="kind", seed=4) != render_script(start, moves, fidelity="kind", seed=5)


def test_occupancy_render_reads_only_occupied():
    start = StripState()
    script = render_script(start, random_game(start, 10, seed=0), fidelity="occupancy", seed=0)
    assert {t for f in script.frames for toks in f.view.values() for t in toks} == {OCCUPIED}


def test_header_extra_and_bad_moves():
    start = StripState()
    script = render_script(start, [], fidelity="kind", header_extra={"description": "idle", "start": None})
    assert script.description == "idle" and script.start is None
    assert script.duration >= 3.0 - 1e-9 and {f.view for f in script.frames} == {start.view(Fidelity.KIND)}
    with pytest.raises(ValueError, match=r"move 2 \(\('p1', 'p3'\)\) is not legal"):
        render_script(start, [("p1", "p2"), ("p1", "p3")], fidelity="kind")
    with pytest.raises(BoardScriptError, match="header: unknown key 'colour'"):
        render_script(start, [], fidelity="kind", header_extra={"colour": "red"})
    with pytest.raises(ValueError, match="frame_interval"):
        render_script(start, [], fidelity="kind", frame_interval=0)


def test_the_documented_example_parses_and_stabilises_as_documented():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "board-script.md").read_text(encoding="utf-8")
    example = doc.split("## Example", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    script = BoardScript.parse(example, where="board-script.md")
    stab = Stabiliser()
    reports = [(o.time, v) for o in SimulatedBoard(script).observations() if (v := stab.feed(o)) is not None]
    assert [t for t, _ in reports] == [0.6, 1.8]
    assert reports[1][1].get_tokens("a3") == ("3",) and "a1" not in reports[1][1]


# -- with the real Gygès engine ----------------------------------------------------------------


@pytest.mark.parametrize("fidelity", [Fidelity.KIND, Fidelity.OCCUPANCY])
@pytest.mark.parametrize("seed", range(4))
def test_rendered_gyges_game_stabilises_to_its_positions(fidelity, seed):
    from rules import get_game

    start = get_game("gyges").default_setup()
    moves = random_game(start, 12, seed)
    script = render_script(start, moves, fidelity=fidelity, seed=seed)
    assert script.game == "gyges" and script.start_state() == start
    check_stable_sequence(start, moves, fidelity, stable_views(script))


def test_rendered_gyges_setup_phase_stabilises_to_its_positions():
    from rules import get_game

    start = get_game("gyges").start()
    moves = random_game(start, 18, seed=7)  # twelve placements, then play
    script = render_script(start, moves, fidelity="kind", seed=7, header_extra={"start": None})
    assert script.start_state() == start  # rebuilt from the game's own start
    check_stable_sequence(start, moves, Fidelity.KIND, stable_views(script))


def test_script_start_state_follows_setup():
    from rules import get_game

    game = get_game("gyges")
    default = BoardScript.parse('{"board_script": 1, "game": "gyges", "fidelity": "kind", "setup": "default"}')
    assert default.start_state() == game.default_setup()
    assert BoardScript.parse(lines(header=HEADER.replace("strip", "gyges"))).start_state() == game.start()
