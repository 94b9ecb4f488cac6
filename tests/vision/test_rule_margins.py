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
