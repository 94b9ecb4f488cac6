"""``bench/film_rules.py`` judges a film's moves as the service refereed them: each move's arm
leaving read from the film's truth, a rule's value set on the object holding it, and a value
that blinds the motion gate shows in the reads it costs (the rules' figures themselves are the
bench's, in docs/vision-rules.md, never asserted here)."""

from __future__ import annotations

from bench.film_rules import COMMITTED, RULES, load_films, measure


def test_the_arm_leaves_each_move_at_its_first_frame_without_it():
    (film,) = [f for f in load_films([COMMITTED]) if f.meta["game"] == "gyges"]
    # the committed Gygès film: each move on the board with the arm still withdrawing, then gone
    assert film.leaves == [4.6667, 9.8333, 15.0]


def test_the_service_s_values_referee_the_film_and_a_blind_gate_reads_more():
    films = load_films([COMMITTED])
    threshold = next(r for r in RULES if r.name == "threshold")
    own = measure(threshold, threshold.own, films)
    assert own.right == own.moves == 3 and own.wrong == own.between == 0
    assert max(own.latencies) <= 0.5 + 1e-3 and own.reads < own.frames
    blind = measure(threshold, 255, films)  # no change ever counts: the board is read every reread
    assert blind.reads > own.reads
