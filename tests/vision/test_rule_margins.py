"""bench/rule_margins.py: a rule set to another value wherever it is bound, and put back."""

from __future__ import annotations

import pytest

from bench import rule_margins
from bench.rule_margins import RULES, Patched, Rule, values_for
from vision.readers import drift_reader, occlusion, reader


def test_a_rule_is_set_in_every_module_that_imported_it_and_put_back():
    own = occlusion.EMPTY_MAX
    assert drift_reader.EMPTY_MAX is own and reader.EMPTY_MAX is own
    with Patched(Rule("EMPTY_MAX", "vision.readers.occlusion"), 0.5):
        assert occlusion.EMPTY_MAX == drift_reader.EMPTY_MAX == reader.EMPTY_MAX == 0.5
    assert occlusion.EMPTY_MAX is own and drift_reader.EMPTY_MAX is own and reader.EMPTY_MAX is own


def test_a_class_knob_is_set_on_its_class_and_put_back():
    own = reader.Reader.on_space
    with Patched(Rule("Reader.on_space", "vision.readers.reader"), 0.45):
        assert reader.Reader.on_space == 0.45
    assert reader.Reader.on_space == own


def test_every_rule_exists_and_is_tried_at_its_own_value_and_either_side():
    for rule in RULES:
        vals = values_for(rule)
        own = rule_margins.own_value(rule)
        assert own in vals and min(vals) < own < max(vals), rule.name


def test_an_unknown_rule_is_one_clear_line(capsys):
    with pytest.raises(SystemExit):
        rule_margins.main(["--rules", "NO_SUCH_RULE"])
    assert "no such rule here: NO_SUCH_RULE" in capsys.readouterr().err


def test_a_ring_tier_rule_learns_the_rings_under_its_value_and_a_refusal_costs_the_row():
    """A row without stickers (its set-up shot exported beside it) learns its rings' lines
    under each value of a ring-tier rule; a value under which they are refused counts every
    frame of the row unusable. The ring-tier rules bear on such rows only."""
    from dataclasses import replace

    from bench.vision_real import BASE_SCENE, BASE_SETUP
    from rules import Fidelity, get_game
    from vision.read.calibration import calibrate, lock_on
    from vision.readers.for_game import grid_for
    from vision.sheets.layout import Sheet
    from vision.simulated.camera_model import CameraModel
    from vision.simulated.sessions import random_position

    untagged = replace(BASE_SCENE, tags=False)
    grid = grid_for(Sheet.for_board(get_game("gyges").board()))
    model = CameraModel(grid.sheet, BASE_SETUP)
    cal = calibrate(grid, [model.render(replace(untagged, seed=i)) for i in range(2)], mode="tags")
    start = get_game("gyges").default_setup().view(Fidelity.KIND)
    shot = model.render(replace(untagged, view=start, seed=5))
    view = random_position("gyges", 3, 12, None).view(Fidelity.KIND)
    frame = model.render(replace(untagged, view=view, seed=21))
    locked, H = lock_on(grid.sheet, [frame, frame])[-1]
    frames = [(locked, view, H)]
    rings_row = rule_margins.FrameRow("gyges", "wood", grid, cal, frames,
                                      setup_shot=(*lock_on(grid.sheet, [shot, shot])[-1], start))
    tagged_row = rule_margins.FrameRow("gyges", "base", grid, cal, frames)

    own = rule_margins.read_rows([rings_row])
    assert (own.frames, own.usable, own.false_accepts, own.refused) == (1, 1, 0, 0)
    min_gap = next(r for r in RULES if r.name == "MIN_GAP")
    with Patched(min_gap, 1.0):  # no tier is a whole contrast apart: the lines are refused
        refused = rule_margins.read_rows([rings_row])
    assert (refused.frames, refused.usable, refused.refused) == (1, 0, 1)
    assert min_gap.rings and not next(r for r in RULES if r.name == "TOLERANCE").rings
    # without a set-up shot the row is read by its tags: rings never learned, never refused
    assert rule_margins.read_rows([tagged_row]).refused == 0


def test_a_tuple_rule_is_set_whole_and_shown_item_by_item():
    """``EDGE_SHIFTS_MM`` (the colour reader's edge shifts without a lens file) is tried as
    whole tuples, shorter and longer than its own; the table prints each as its items."""
    from vision.readers import colour_reading, colour_rules

    rule = next(r for r in RULES if r.name == "EDGE_SHIFTS_MM")
    own = colour_rules.EDGE_SHIFTS_MM
    assert values_for(rule)[0] == (0.0,) and own in values_for(rule)
    with Patched(rule, (0.0, 1.2)):
        assert colour_rules.EDGE_SHIFTS_MM == colour_reading.EDGE_SHIFTS_MM == (0.0, 1.2)
    assert colour_reading.EDGE_SHIFTS_MM is own
    assert rule_margins.shown_value(own) == "0/1.2/2.4" and rule_margins.shown_value(0.45) == "0.45"
