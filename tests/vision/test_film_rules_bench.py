"""``bench/film_rules.py`` judges a film's moves as the service refereed them: each move's arm
leaving read from the film's truth, a rule's value set on the object holding it (or in its
module), and what a value costs shown by the chain itself — a blind motion gate in the reads,
an untracked small corner marker in the moves never refereed."""

from __future__ import annotations

from bench.film_rules import COMMITTED, RULES, load_films, measure


def _film(game: str):
    (film,) = [f for f in load_films([COMMITTED]) if f.meta["game"] == game]
    return film


def _rule(name: str):
    return next(r for r in RULES if r.name == name)


def test_the_arm_leaves_each_move_at_its_first_frame_without_it():
    # the committed Gygès film: each move on the board with the arm still withdrawing, then gone
    assert _film("gyges").leaves == [4.6667, 9.8333, 15.0]


def test_the_service_s_values_referee_the_film_and_a_blind_gate_reads_more():
    films = [_film("gyges")]
    threshold = _rule("threshold")
    own = measure(threshold, threshold.own, films)
    assert own.right == own.moves == 3 and own.wrong == own.between == 0
    assert max(own.latencies) <= 0.5 + 1e-3 and own.reads < own.frames
    blind = measure(threshold, 255, films)  # no change ever counts: the board is read every reread
    assert blind.reads > own.reads


def test_small_corner_markers_are_tracked_enlarged_or_the_film_is_not_refereed():
    """Annihilation at 35°, the sheet 40 % of the frame: its corner markers are under
    SMALL_MARKER_PX across; tracked at the frame's own size they are lost and no move is decided."""
    films = [_film("annihilation")]
    rule = _rule("SMALL_MARKER_PX")
    own = measure(rule, rule.own, films)
    assert own.right == own.moves == 2 and own.wrong == 0
    small = measure(rule, 20.0, films)
    assert small.right == 0 and small.wrong == 0
