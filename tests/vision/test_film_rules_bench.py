"""``bench/film_rules.py`` judges a film's moves as the service refereed them: each move's arm
leaving read from the film's truth, a rule's value set on the object holding it (or in its
module), and what a value costs shown by the chain itself — a blind motion gate in the reads,
an untracked small corner marker in the moves never refereed."""

from __future__ import annotations

from bench.film_rules import COMMITTED, RULES, load_films, measure
from rules import Fidelity


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


def test_a_knocked_camera_is_found_again_and_every_move_refereed():
    """The committed Gygès film with its camera knocked twice where no arm is over the board
    (knocks_for): its shelf bumped (it sways 1° and rests 1° turned: the markers 10-15 px from
    where they were) and a hand over its lens for a second. Each time the lock lets the board go
    (a bump) and finds it again, and the game goes on: every move accepted as played, none other,
    no board reported that is not one of the game's positions."""
    from bench.film_rules import knocks_for, referee_film

    film = _film("gyges")
    still = referee_film(film)
    assert still.bumps == 0
    knocked = referee_film(film, knocks=knocks_for(film))
    assert knocked.bumps == 3
    start, positions = film.states()
    assert [p for _, p, _ in knocked.accepted] == positions
    assert knocked.others == still.others
    boards = {p.view(Fidelity.KIND) for p in [start, *positions]}
    assert all(view in boards for view, _ in knocked.boards)
