"""Every token a game puts on its board has a name of its own, in English and in French: the
hand lines, the spoken fixes and the set-up page's spaces say which piece, never "piece" for
all of them, and never an Annelids tail called a segment."""

from __future__ import annotations

import random

import pytest

from rules import MORE, Fidelity, game_names, get_game, in_part
from tableref.i18n import catalog
from tableref.i18n.pieces import piece_name


def tokens_played(game: str, seeds=(1, 2), plies=80) -> set[str]:
    """The tokens random playouts (as the conformance suite's) lay on the board."""
    g = get_game(game)
    seen: set[str] = set()
    for seed in seeds:
        rng, state = random.Random(seed), g.default_setup({})
        for _ in range(plies):
            for tokens in state.view(Fidelity.IDENTITY).values():
                seen.update(tokens)
            moves = state.legal_moves()
            if not moves or state.is_game_over():
                break
            state = state.successor(rng.choice(moves))
    return seen


@pytest.mark.parametrize("game", game_names())
def test_every_token_on_the_board_has_its_own_name(game):
    en, fr = catalog("en"), catalog("fr")
    tokens = tokens_played(game)
    assert tokens
    for token in sorted(tokens):
        english, french = piece_name(en, game, token), piece_name(fr, game, token)
        assert english != "piece", (game, token)
        assert french != english, (game, token, french)


@pytest.mark.parametrize("lang, blue, green, segment", [
    ("en", "blue tail", "green tail", "segment"),
    ("fr", "la queue bleue", "la queue verte", "le segment"),
])
def test_an_annelids_tail_is_a_tail_whatever_its_heading_and_a_segment_is_nobodys(lang, blue, green, segment):
    c = catalog(lang)
    assert {piece_name(c, "annelids", t) for t in ("blue:N", "blue:SW")} == {blue}
    assert piece_name(c, "annelids", in_part("blue")).startswith(blue + ", ")  # its flat end unseen
    assert piece_name(c, "annelids", "green:E") == green
    assert piece_name(c, "annelids", "segment") == segment


def test_drift_names_a_carried_coin_and_a_rivers_rotation():
    en, fr = catalog("en"), catalog("fr")
    assert piece_name(en, "drift", "carried:gold") == "gold coin, carried"
    assert piece_name(fr, "drift", "carried:gold") == "la pièce d'or, portée"
    assert piece_name(en, "drift", "1") == "turned 1 arrow"
    assert piece_name(fr, "drift", "5") == "tournée de 5 flèches"
    assert piece_name(en, "anacund", "B") == "Player B's piece"


def test_a_pile_read_from_above_says_more_lies_beneath():
    """The set-up page's "read: Red III-1 + more beneath" (a DRIFT pile: its top tag and MORE)."""
    assert piece_name(catalog("en"), "drift", MORE) == "more beneath"
    assert piece_name(catalog("fr"), "drift", MORE) == "d'autres dessous"
