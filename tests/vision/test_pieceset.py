"""Piece sets: every game's file loads, heights are real, a user's file overrides, bad files
are refused with the file and key named."""

import json

import pytest

from rules import get_game
from rules.view import OCCUPIED
from vision.pieces.pieceset import PieceSetError, load_pieceset
from vision.sheets.layout import PIECE_COLOURS, TAGS

GAMES = ("gyges", "anacund", "annihilation", "drift", "annelids")


@pytest.mark.parametrize("game", GAMES)
def test_every_token_a_game_shows_has_a_piece(game):
    ps = load_pieceset(game)
    tokens = set(TAGS.get(game, {}).values()) | set(PIECE_COLOURS[game])
    for t in tokens:
        assert ps.height(t) > 0
    assert get_game(game)  # the game exists


def test_gyges_rings_stand_12_20_28():
    ps = load_pieceset("gyges")
    assert [ps.height(t) for t in "123"] == [12, 20, 28]
    assert ps.piece("3").shape == "cylinder"


def test_drift_pile_tops_add_up():
    ps = load_pieceset("drift")
    assert ps.top_heights("home", "red-I") [0] == 9  # alone
    assert 9 + 15 in ps.top_heights("home", "red-I")  # on a III
    assert ps.top_heights("repository", "gold")[0] == 13  # on the 10 mm block
    assert ps.top_heights("land") == ps.heights
    assert ps.top_heights("land", OCCUPIED) == ps.heights
    assert ps.max_height == 90  # six IIIs


def test_annelids_tail_token_carries_heading():
    ps = load_pieceset("annelids")
    assert ps.piece("blue:NE").shape == "box" and ps.piece("blue:NE").footprint_mm == (10, 4)


def test_user_file_replaces_only_named_pieces(tmp_path):
    f = tmp_path / "tall.json"
    f.write_text(json.dumps({"game": "gyges", "pieces": [
        {"tokens": ["3"], "shape": "cylinder", "diameter_mm": 36, "height_mm": 33}]}))
    ps = load_pieceset("gyges", f)
    assert ps.height("3") == 33 and ps.height("1") == 12


@pytest.mark.parametrize("body, words", [
    ({"game": "anacund", "pieces": []}, "'game'"),
    ({"game": "gyges", "pieces": [{"tokens": ["1"], "shape": "cone", "height_mm": 3}]}, "pieces[0].shape"),
    ({"game": "gyges", "pieces": [{"tokens": ["1"], "shape": "cylinder", "diameter_mm": 30, "height_mm": -2}]},
     "pieces[0].height_mm"),
    ({"game": "gyges", "pieces": [{"tokens": ["1"], "shape": "box", "length_mm": 3, "height_mm": 2}]},
     "pieces[0].width_mm"),
    ({"game": "gyges", "pieces": [{"tokens": [], "shape": "cylinder", "diameter_mm": 3, "height_mm": 2}]},
     "pieces[0].tokens"),
])
def test_bad_user_file_names_file_and_key(tmp_path, body, words):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(body))
    with pytest.raises(PieceSetError, match=r"bad\.json") as e:
        load_pieceset("gyges", f)
    assert words in str(e.value)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(PieceSetError, match="not found"):
        load_pieceset("gyges", tmp_path / "nope.json")
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(PieceSetError, match="JSON"):
        load_pieceset("gyges", tmp_path / "x.json")
