"""The referee keeps the game clock (issue 34, part 1): driven by the observations' own times,
never by sleeping. The clock passes at the moment the move was made on the board (the hand
leaving: ``StableView.made``), not when it was judged; every board that moves nothing on keeps
the mover's clock running."""

from __future__ import annotations

import pytest

from rules import Fidelity, View, get_game
from decisions import Confirm, Declare, StableView, StartGame, Undo
from decisions.clock import ClockTick, PauseClock, ResumeClock
from tableref import clock_journal
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.referee_clock import ClockSettings

GYGES = get_game("gyges")


class Now:
    """The service's monotonic time and wall time, moved by hand."""

    def __init__(self, t: float = 100.0, wall: float = 1_700_000_000.0) -> None:
        self.t, self.wall = t, wall

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def make(journal, control="1", *, game="gyges", fidelity=Fidelity.KIND, start=None, options=None, undo="restore",
         now=None):
    now = now or Now()
    ref = Referee.start(journal, game, fidelity=fidelity, options=options,
                        start=start or (GYGES.default_setup() if game == "gyges" else None))
    ref.clock_now, ref.clock_wall = now, (lambda: now.wall)
    said = ref.setup_clock(ClockSettings(control, undo=undo), now.t)
    return ref, now, said


def see(ref, state, *, made, settled=None, fidelity=None):
    view = state if isinstance(state, View) else state.view(fidelity or ref.fidelity)
    return ref.handle(StableView(view, made + 0.2 if settled is None else settled, made))


def kinds(out):
    return [d.kind for d in out]


def clocks(out):
    return [d for d in out if d.kind == "clock"][-1]


def test_a_new_game_starts_the_first_players_clock(journal):
    ref, now, said = make(journal, "5+3")
    assert kinds(said) == ["clock"]
    assert said[0].control == "5+3" and said[0].running == "south" and said[0].times == {"south": 300_000, "north": 300_000}


def test_the_clock_switches_when_the_hand_left_not_when_the_move_was_judged(journal):
    ref, now, _ = make(journal)
    out = see(ref, GYGES.default_setup().apply_text("a1-a2"), made=112.25, settled=112.9)
    assert kinds(out) == ["accepted", "clock"]
    assert out[1].running == "north" and out[1].times == {"south": 47_750, "north": 60_000}
    assert ref.clock.remaining_ms("north", 113.25) == 59_000  # north's clock ran from the hand leaving


def test_an_illegal_board_keeps_the_offenders_clock_running(journal):
    ref, now, _ = make(journal)
    wrong = dict(GYGES.default_setup().view(Fidelity.KIND).to_dict())
    wrong["a5"] = wrong.pop("a1")
    assert kinds(see(ref, View(wrong), made=105.0)) == ["illegal"]
    assert ref.clock.running == "south"
    out = see(ref, GYGES.default_setup().apply_text("a1-a2"), made=110.0)
    assert clocks(out).times == {"south": 50_000, "north": 60_000}


def test_an_obligation_still_to_carry_out_keeps_the_movers_clock(journal):
    # The bumped ring is still in the hand: the move is part-way, south's clock runs on.
    ref, now, _ = make(journal)
    bumped = dict(GYGES.default_setup().apply_text("a1-b1/a2").view(Fidelity.KIND).to_dict())
    bumped.pop("a2")
    assert kinds(see(ref, View(bumped), made=104.0)) == ["partial"]
    assert ref.clock.running == "south"
    out = see(ref, GYGES.default_setup().apply_text("a1-b1/a2"), made=109.5)
    assert clocks(out).times == {"south": 50_500, "north": 60_000}


def test_a_question_waiting_for_its_answer_keeps_the_movers_clock(journal):
    ref, now, _ = make(journal, fidelity=Fidelity.OCCUPANCY)
    out = see(ref, GYGES.default_setup().apply_text("a1-b1/a2").view(Fidelity.OCCUPANCY), made=103.0)
    assert kinds(out) == ["ambiguous"] and ref.clock.running == "south"
    now.t = 111.0  # the players answer eight seconds later: the turn ends with the answer
    out = ref.handle(Confirm(next(c.number for c in out[0].choices if c.text == "a1-b1/a2")))
    assert kinds(out) == ["accepted", "clock"] and out[1].times == {"south": 49_000, "north": 60_000}


def test_a_turn_of_three_placements_keeps_the_clock_until_it_ends(journal):
    ref, now, _ = make(journal, "1", game="anacund")
    s, t, passes = ref.state, 100.0, []
    for _ in range(4):
        t += 2.0
        s = s.apply(s.legal_moves()[0])
        out = see(ref, s, made=t)
        assert kinds(out) == ["accepted", "clock"]
        passes.append(out[1].running)
    assert passes == ["A", "A", "B", "B"]  # A's three placements, then B's first
    assert ref.clock.times(t) == {"A": 54_000, "B": 58_000}


def test_fischer_and_bronstein_through_the_referee(journal, tmp_path):
    ref, now, _ = make(journal, "1+2")
    out = see(ref, GYGES.default_setup().apply_text("a1-a2"), made=110.0)
    assert clocks(out).times["south"] == 52_000
    with Journal(tmp_path / "b.sqlite3") as j2:
        ref, now, _ = make(j2, "1d5")
        out = see(ref, GYGES.default_setup().apply_text("a1-a2"), made=103.0)
        assert clocks(out).times["south"] == 60_000  # within the delay: nothing spent


def test_a_flag_falls_on_the_tick_after_the_grace_and_the_game_is_lost_on_time(journal):
    ref, now, _ = make(journal, "0.5")
    assert ref.handle(ClockTick(130.5)) == []  # out at 130.0, but a move may still be settling
    out = ref.handle(ClockTick(131.0))
    assert kinds(out) == ["flag_fall", "game_over", "clock"]
    assert out[0].side == "south" and out[1].outcome == {"winner": "north", "reason": "south loses on time", "scores": {}}
    summary = journal.summary(ref.record.id)
    assert summary.finished is not None and summary.outcome["reason"] == "south loses on time"
    # The game is over: the board is not judged, commands on it are refused.
    assert see(ref, GYGES.default_setup().apply_text("a1-a2"), made=132.0) == []
    assert kinds(ref.handle(Undo())) == ["rejected"]
    exported = journal.export(ref.record.id)
    assert exported["outcome"]["reason"] == "south loses on time" and exported["clock"]["control"] == "0.5"
    out = ref.handle(StartGame("gyges", setup="default"))  # the board as it stands is held for the new game
    assert kinds(out)[0] == "new_game" and clocks(out).why == "new game" and clocks(out).running == "south"


def test_a_move_made_in_time_but_judged_after_the_time_is_accepted(journal):
    ref, now, _ = make(journal, "0.5")
    ref.handle(ClockTick(130.4))
    out = see(ref, GYGES.default_setup().apply_text("a1-a2"), made=129.9, settled=130.45)
    assert kinds(out) == ["accepted", "clock"] and out[1].times["south"] == 100


def test_a_move_made_after_the_time_is_a_flag_fall(journal):
    ref, now, _ = make(journal, "0.5")
    out = see(ref, GYGES.default_setup().apply_text("a1-a2"), made=130.0)
    assert kinds(out) == ["flag_fall", "game_over", "clock"] and ref.ply == 0


def test_pause_and_resume_by_the_admin(journal):
    ref, now, _ = make(journal)
    assert clocks(ref.handle(PauseClock(110.0))).paused
    ref.handle(ClockTick(500.0))
    assert ref.clock.flagged is None
    assert not clocks(ref.handle(ResumeClock(600.0))).paused
    out = see(ref, GYGES.default_setup().apply_text("a1-a2"), made=605.0)
    assert clocks(out).times == {"south": 45_000, "north": 60_000}


def test_undo_gives_the_time_back_as_the_setting_says(journal, tmp_path):
    ref, now, _ = make(journal, "1")
    see(ref, GYGES.default_setup().apply_text("a1-a2"), made=110.0)
    now.t = 130.0
    out = ref.handle(Undo())
    assert clocks(out).running == "south" and clocks(out).times == {"south": 50_000, "north": 60_000}
    with Journal(tmp_path / "k.sqlite3") as j2:
        ref, now, _ = make(j2, "1", undo="keep")
        see(ref, GYGES.default_setup().apply_text("a1-a2"), made=110.0)
        now.t = 130.0
        assert clocks(ref.handle(Undo())).times == {"south": 50_000, "north": 40_000}


def test_warnings_at_the_thresholds_once_each(journal):
    ref, now, _ = make(journal, "1.5")
    assert ref.handle(ClockTick(129.0)) == []
    assert [(d.side, d.seconds) for d in ref.handle(ClockTick(130.2))] == [("south", 60)]
    assert ref.handle(ClockTick(131.0)) == []
    assert [d.seconds for d in ref.handle(ClockTick(180.5))] == [10]


def test_times_journalled_with_every_move_and_exported(journal):
    ref, now, _ = make(journal, "1")
    s = GYGES.default_setup().apply_text("a1-a2")
    see(ref, s, made=110.0)
    see(ref, s.apply_text("a6-a5"), made=115.0)
    assert clock_journal.move_times(journal, ref.record.id) == [{"south": 50_000, "north": 60_000},
                                                               {"south": 50_000, "north": 55_000}]
    data = journal.export(ref.record.id)
    assert data["clock"] == {"control": "1", "times": [{"south": 50_000, "north": 60_000},
                                                      {"south": 50_000, "north": 55_000}]}


def test_a_restart_mid_game_resumes_the_clocks_and_says_how_long_it_was_off(tmp_path):
    path = tmp_path / "j.sqlite3"
    now = Now()
    with Journal(path) as j:
        ref, _, _ = make(j, "1", now=now)
        see(ref, GYGES.default_setup().apply_text("a1-a2"), made=110.0)
        ref.handle(ClockTick(112.0))
        now.wall += 17.0
        ref.handle(ClockTick(117.0))  # saved: north has used 7 s
        # the power is cut at 118.0
    now.t, now.wall = 5.0, now.wall + 120.0  # the Pi boots two minutes later: a new time base
    with Journal(path) as j:
        ref = Referee.start(j, "gyges", start=GYGES.default_setup())
        ref.clock_now, ref.clock_wall = now, (lambda: now.wall)
        out = ref.setup_clock(ClockSettings("1"), 5.0)
        assert kinds(out) == ["clock"] and out[0].why == "restart" and out[0].off_ms == 120_000
        assert out[0].running == "north" and out[0].times == {"south": 50_000, "north": 53_000}
        out = see(ref, ref.state.apply_text("a6-a5"), made=8.0)
        assert clocks(out).times == {"south": 50_000, "north": 50_000}


def test_a_power_cut_between_the_move_and_its_clock_is_caught_up(tmp_path):
    path = tmp_path / "j.sqlite3"
    now = Now()
    with Journal(path) as j:
        ref, _, _ = make(j, "1", now=now)
        saved = clock_journal.load_state(j, ref.record.id)[0]
        see(ref, GYGES.default_setup().apply_text("a1-a2"), made=110.0)
        clock_journal.save_state(j, ref.record.id, saved, now.wall)  # as if the clock's write never came
    with Journal(path) as j:
        ref = Referee.start(j, "gyges", start=GYGES.default_setup())
        ref.clock_wall = lambda: now.wall
        out = ref.setup_clock(ClockSettings("1"), 7.0)
        assert out[0].running == "north" and out[0].times == {"south": 60_000, "north": 60_000}


def test_an_old_game_without_a_clock_stays_without_one(journal):
    ref = Referee.start(journal, "gyges", start=GYGES.default_setup())
    ref.handle(StableView(GYGES.default_setup().apply_text("a1-a2").view(Fidelity.KIND), 1.0))
    assert ref.setup_clock(ClockSettings("5+3"), 2.0) == [] and ref.clock is None
    assert ref.handle(ClockTick(3.0)) == []


def test_the_time_control_chosen_at_new_game(journal):
    ref, now, _ = make(journal, None)
    assert ref.clock is None
    out = ref.handle(StartGame("gyges", setup="default", clock="3+2"))
    assert kinds(out) == ["new_game", "clock"] and out[1].control == "3+2"
    assert kinds(ref.handle(StartGame("gyges", setup="default", clock="off"))) == ["new_game"]
    assert ref.clock is None


def test_drift_four_clocks_pass_round_the_table(journal):
    drift = get_game("drift")
    opts = {"players": "red:circle,blue:square,green:hexagon,yellow:star"}
    ref, now, said = make(journal, "1", game="drift", options=opts,
                          start=drift.default_setup(drift.parse_options(opts)))
    assert said[0].times == {s: 60_000 for s in ("red", "blue", "green", "yellow")}
    t, expected = 100.0, {}
    for side in ("red", "blue", "green", "yellow"):
        moved = 0
        while "end" not in (ref.state.move_text(m) for m in ref.state.legal_moves()):
            s = ref.state  # the pieces by rank, one step each: the turn goes on, the mover's clock runs
            t += 0.5
            move = s.legal_moves()[0]
            out = see(ref, s.apply(move), made=t)
            if kinds(out) == ["ambiguous"]:  # two pieces alike: the players say which, at once
                now.t = t
                out = ref.handle(Confirm(next(c.number for c in out[0].choices if c.text == s.move_text(move))))
            assert kinds(out)[:1] == ["accepted"] and ref.clock.running == side
            moved += 1
        t += 2.0
        now.t = t  # the end of the turn is declared
        out = ref.handle(Declare("end"))
        assert kinds(out)[0] == "accepted"
        expected[side] = 60_000 - moved * 500 - 2000  # the whole turn, its moves and the wait to end it
        assert clocks(out).times[side] == expected[side]
        assert (clocks(out).running == side) == (side == "yellow")  # the round's last: the drift is still to do
    # The round is over: the rivers are the last player's to turn, on the last player's clock.
    assert ref.state.phase == "drift" and ref.clock.running == "yellow"
    t += 4.0
    out = see(ref, ref.state.apply(ref.state.legal_moves()[0]), made=t)
    expected["yellow"] -= 4000
    assert clocks(out).running == "red" and clocks(out).times == expected


def test_replay_shows_the_times_and_the_loss_on_time(tmp_path, capsys):
    from tableref.cli import main

    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        ref, now, _ = make(j, "1")
        see(ref, GYGES.default_setup().apply_text("a1-a2"), made=110.0)
        ref.handle(ClockTick(171.5))  # north's minute is out
    assert main(["replay", "1", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "clock: 1" in out and "1. a1-a2" in out and "[south 0:50 north 1:00]" in out
    assert "result: south wins (north loses on time)" in out
