"""The first lessons (issue 31, item 3): every lesson's every step is legal in turn and shows
what it says, checked against the rules; a lesson that teaches a wrong move is refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import P
from rules.lessons import BY_LESSON, GAMES, YOU, LessonError, lesson, phrases
from tableref.i18n import catalog


@pytest.mark.parametrize("game", GAMES)
def test_every_step_is_legal_in_turn_and_shows_what_it_says(game):
    found = lesson(game)
    states = found.states()
    assert len(states) == len(found.steps) + 1
    assert not found.steps[0].moves, "the first step is the set-up"
    mine = [s for s in found.steps[1:] if s.by == YOU]
    assert mine and all(s.moves for s in found.steps[1:])
    assert any(s.by == BY_LESSON for s in found.steps)
    for step, before in zip(found.steps, states):
        for text in step.moves:
            assert (before.to_move == found.you) == (step.by == YOU), (game, text)
            before = before.apply_text(text)


def test_gyges_covers_each_height_the_closest_line_a_bounce_a_bump_and_the_throne():
    shows = {s.shows for s in lesson("gyges").steps}
    assert {"a single ring's move", "a double ring's move", "a triple ring's move", "a bounce from the closest line",
            "a bump and reposition", "the throne captured"} <= shows
    assert lesson("gyges").states()[-1].outcome().winner == "south"


def test_annihilation_covers_each_kind_of_turn_transference_and_annihilation_at_the_point_of_emergence():
    shows = {s.shows for s in lesson("annihilation").steps}
    assert {"a carrier introduced", "emission transference", "an annihilator placed", "a self-emission",
            "annihilation at the point of emergence"} <= shows
    assert lesson("annihilation").states()[-1].scores() == {"white": 2, "black": 0}


def test_drift_covers_a_move_by_rank_river_entry_the_drift_phase_and_a_river_exit():
    shows = {s.shows for s in lesson("drift").steps}
    assert {"a rank III move", "river entry", "the drift phase", "a river exit"} <= shows


def test_annelids_covers_the_first_turn_the_quota_a_reconnection_and_a_removal():
    shows = {s.shows for s in lesson("annelids").steps}
    assert {"a segment placed", "the first turn's segments", "a turn's quota", "a reconnection", "a removal"} <= shows


def test_anacund_covers_placing_by_group_a_capture_a_landlocked_piece_and_a_conqueror():
    shows = {s.shows for s in lesson("anacund").steps}
    assert {"a piece from a group of 6", "a piece from a group of 5", "a capture", "B's piece placed landlocked",
            "the landlocked piece captured", "a conqueror"} <= shows
    assert "scores" in lesson("anacund").end.text


@pytest.mark.parametrize("change, said", [
    (lambda steps: steps[:1] + (replace(steps[1], moves=("f1-f3",)),) + steps[2:], "not legal"),
    (lambda steps: steps[:1] + (replace(steps[1], moves=("b1-b3",)),) + steps[2:], "does not show"),
    (lambda steps: steps[:1] + (replace(steps[1], by=BY_LESSON),) + steps[2:], "not the lesson's"),
    (lambda steps: steps[:-1], "not over"),
])
def test_a_lesson_that_teaches_a_wrong_move_is_refused(change, said):
    bad = replace(lesson("gyges"), steps=change(lesson("gyges").steps))
    with pytest.raises(LessonError, match=said):
        bad.states()


def test_every_game_has_a_lesson_and_a_game_without_one_is_named():
    from rules import game_names

    assert set(GAMES) == set(game_names())
    with pytest.raises(KeyError, match="no lesson for 'chess'"):
        lesson("chess")


@pytest.mark.parametrize("game", GAMES)
def test_every_phrase_of_a_lesson_is_said_in_french(game):
    fr = catalog("fr")
    missing = [p.msgid for p in phrases(game) if fr.say(p) == p.text]
    assert not missing, missing
    wrong = P("{move} is a legal move, but not this step's: put the board back and make {step}", move="a1-a2",
              step="f1-f2")
    assert fr.say(wrong).startswith("a1-a2 est un coup légal")
