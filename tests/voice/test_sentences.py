"""The sentences said for each kind of decision, in English and in French, from the catalogs."""

from __future__ import annotations

import pytest

from rules import SpaceFix, get_game
from decisions import (
    Accepted, Ambiguous, Choice, GameOver, Illegal, NewGame, Partial, Rejected, Restored, TakenBack,
)
from tableref.i18n import catalog, languages
from tableref.voice.sentences import Narrator

GYGES = get_game("gyges")
ANNI = get_game("annihilation")


def narrator(lang, game="gyges", position=None):
    n = Narrator(lang)
    state = position or get_game(game).default_setup({})
    n.on(NewGame(1, 0, game, state.to_dict()))
    return n, state


def texts(utterances):
    return [u.text for u in utterances]


@pytest.mark.parametrize("lang, new, move, illegal, restored, taken, question, refused", [
    ("en", "New game: Gygès", "South: single ring a1 to a2", "Illegal: put the single ring back on a1",
     "The board is right again", "Took back a1-a2", "Which move? 2 choices to confirm", "Refused: undo"),
    ("fr", "Nouvelle partie : Gygès", "Sud : l'anneau simple a1 vers a2", "Illégal : remettez l'anneau simple en a1",
     "Le plateau est de nouveau correct", "Coup a1-a2 repris", "Quel coup ? 2 choix à confirmer", "Refusé : undo"),
])
def test_each_kind_in_both_languages(lang, new, move, illegal, restored, taken, question, refused):
    n = Narrator(lang)
    start = GYGES.default_setup({})
    [u] = n.on(NewGame(1, 0, "gyges", start.to_dict()))
    assert (u.text, u.level) == (new, "normal")
    m = start.parse_move("a1-a2")
    after = start.successor(m)
    [u] = n.on(Accepted(1, 1, "a1-a2", start.describe_move(m), after.to_dict()))
    assert (u.text, u.level, u.cue, u.topic) == (move, "normal", "accepted", "move")
    [u] = n.on(Illegal(1, 1, (SpaceFix("a1", ("1",), ()),)))
    assert (u.text, u.level, u.cue) == (illegal, "quiet", "illegal")
    [u] = n.on(Restored(1, 1))
    assert u.text == restored
    assert n.on(Restored(1, 1)) == []  # said once, after what it restores
    [u] = n.on(TakenBack(1, 0, "a1-a2", start.to_dict()))
    assert u.text == taken
    [u] = n.on(Ambiguous(1, 0, (Choice(1, "a", "a"), Choice(2, "b", "b"))))
    assert u.text == question
    [u] = n.on(Rejected(1, 0, "undo", "no move to take back"))
    assert u.text == refused


@pytest.mark.parametrize("lang, scored, over", [
    ("en", "Black scores 8. White 0, Black 8", "Game over: Black wins. White 0, Black 21"),
    ("fr", "Noir marque 8. Blanc 0, Noir 8", "Partie terminée : Noir gagne. Blanc 0, Noir 21"),
])
def test_scores_and_game_over(lang, scored, over):
    pos = ANNI.from_dict({"game": "annihilation", "to_move": "black",
                          "board": {"B": "B3", "e5": "B5", "c3": "B8", "a2": "W1"}})
    n, _ = narrator(lang, "annihilation", pos)
    scoring = [m for m in pos.legal_moves() if pos.successor(m).scores()["black"] == 8]
    m = scoring[0]
    after = pos.successor(m)
    out = n.on(Accepted(1, 1, pos.move_text(m), pos.describe_move(m), after.to_dict()))
    assert [u.topic for u in out] == ["move", "score"]
    assert out[1].text == scored and out[1].level == "normal"
    [u] = n.on(GameOver(1, 1, {"winner": "black", "reason": "Black reached 20 points",
                               "scores": {"white": 0, "black": 21}}))
    assert (u.text, u.level, u.cue) == (over, "quiet", "over")


@pytest.mark.parametrize("lang, want", [
    ("en", "Remove the blue annelid from {tail}: {n} segments"),
    ("fr", "Retirez l'annélide bleu de {tail} : {n} segments"),
])
def test_annelid_removal_is_an_obligation(lang, want):
    game = get_game("annelids")
    state = game.default_setup({})
    # Grow Blue's annelids until one runs into another: its removal is then a legal move.
    from rules.games.annelids import Remove
    for _ in range(200):
        removal = next((m for m in state.legal_moves() if isinstance(m, Remove)), None)
        if removal is not None and state.to_move == "blue":
            break
        state = state.successor(state.legal_moves()[0])
    assert removal is not None
    a = state.annelid(removal.tail)
    assert len(a.segments) >= 2
    n, _ = narrator(lang, "annelids", state)
    pending = (SpaceFix(a.segments[-1], (f"blue:{a.heading}",), ()),)
    [u] = n.on(Partial(1, 5, (state.move_text(removal),), pending))
    assert u.text == want.format(tail=a.tail, n=len(a.segments)) and u.level == "quiet"
    assert n.on(Partial(1, 5, (state.move_text(removal),), pending[:0])) == []  # the same, not again


@pytest.mark.parametrize("lang, entered, done, illegal", [
    ("en", "End of the round: turn the three rivers", "Drift done",
     "Illegal: turn the middle river one arrow counter-clockwise"),  # the way back (issue 21)
    ("fr", "Fin de la manche : tournez les trois rivières", "Dérive faite",
     "Illégal : tournez la rivière du milieu d'une flèche dans le sens antihoraire"),
])
def test_drift_reminder_sentences(lang, entered, done, illegal):
    import json
    from pathlib import Path

    drift = get_game("drift")
    start = drift.from_dict(json.loads((Path(__file__).parents[1] / "tableref" / "drift_midgame.json").read_text()))
    state = start
    for text in ("red-I-1 O2-O1", "end", "blue-III-1 O9xO6", "blue-I-1 M10-M11", "green-II-1 O15-OR14"):
        state = state.apply_text(text)
    n, _ = narrator(lang, "drift", state)
    assert n.reminder is None
    m = state.parse_move("end")
    after = state.successor(m)
    out = n.on(Accepted(1, 6, "end", state.describe_move(m), after.to_dict()))
    assert [u.text for u in out if u.topic == "reminder"] == [entered]
    assert n.reminder is not None and n.reminder_utterance().text == entered
    [u] = n.on(Illegal(1, 6, (SpaceFix("rotation:middle", ("0",), ("17",)),)))
    assert u.text == illegal
    m = after.parse_move("drift")
    out = n.on(Accepted(1, 7, "drift", after.describe_move(m), after.successor(m).to_dict()))
    assert [u.text for u in out if u.topic == "reminder"] == [done]
    assert n.reminder is None


def test_french_pieces_and_fixes_beyond_three():
    n, _ = narrator("fr", "annihilation", ANNI.start())
    fixes = tuple(SpaceFix(s, ("W8",), ()) for s in ("a1", "a2", "a3", "a4", "a5"))
    [u] = n.on(Illegal(1, 0, fixes))
    assert u.text == ("Illégal : remettez le Blanc 8 en a1, remettez le Blanc 8 en a2, remettez le Blanc 8 en a3 "
                      "et 2 de plus")


def test_every_message_is_translated_to_french_with_the_same_placeholders():
    import re
    from babel.messages.pofile import read_po

    from tableref.i18n import HERE
    with (HERE / "fr" / "LC_MESSAGES" / "tableref.po").open("rb") as f:
        cat = read_po(f)
    holes = re.compile(r"\{(\w+)\}")
    for msg in cat:
        if not msg.id:
            continue
        ids = msg.id if isinstance(msg.id, tuple) else (msg.id,)
        strs = msg.string if isinstance(msg.string, tuple) else (msg.string,)
        assert all(strs), f"untranslated: {ids[0]!r}"
        for s in strs:
            assert set(holes.findall(s)) <= set(holes.findall(ids[-1])) | {"n"}, ids[0]
    assert languages() == ("en", "fr")


def test_missing_or_broken_translation_falls_back_to_english(caplog):
    assert catalog("de")._("Illegal: {fixes}", fixes="x") == "Illegal: x"  # no German catalog
    assert catalog("fr")._("A sentence nobody translated") == "A sentence nobody translated"
    fr = catalog("fr")
    broken = type(fr)("fr", type("T", (), {"gettext": lambda self, m: "Illégal : {typo}",
                                           "ngettext": lambda self, s, p, n: s})())
    assert broken._("Illegal: {fixes}", fixes="x") == "Illegal: x"
    assert "does not fit" in caplog.text


def test_compiled_at_install_or_at_first_use(tmp_path, monkeypatch):
    import shutil

    import tableref.i18n as i18n

    shutil.copytree(i18n.HERE / "fr", tmp_path / "fr")
    monkeypatch.setattr(i18n, "HERE", tmp_path)
    monkeypatch.setattr(i18n, "_cache", {})
    assert i18n.catalog("fr")._("Drift done") == "Dérive faite"  # compiled in memory from the .po
    [mo] = i18n.compile_all()  # python -m tableref.i18n compile, at install
    assert mo == tmp_path / "fr" / "LC_MESSAGES" / "tableref.mo" and mo.stat().st_size > 1000
    (tmp_path / "fr" / "LC_MESSAGES" / "tableref.po").unlink()
    monkeypatch.setattr(i18n, "_cache", {})
    assert i18n.catalog("fr")._("Drift done") == "Dérive faite"  # read from the .mo alone
    mo.write_bytes(b"not a catalog")
    monkeypatch.setattr(i18n, "_cache", {})
    assert i18n.catalog("fr")._("Drift done") == "Drift done"  # unreadable: English, logged


def test_move_said_in_french_in_the_games_words_else_by_notation():
    n, start = narrator("fr", "annihilation", ANNI.start())
    m = start.legal_moves()[0]
    [u] = n.on(Accepted(1, 1, start.move_text(m), start.describe_move(m), start.successor(m).to_dict()))
    assert u.text == "Blanc pose un annihilateur sur a1"
    # a move the followed position cannot read (a journal from another version): the notation
    n, start = narrator("fr", "annihilation", ANNI.start())
    [u] = n.on(Accepted(1, 1, "0@zz9", "", start.successor(m).to_dict()))
    assert u.text == "Blanc joue 0 en zz9" and "@" not in u.text
    assert n.notation("1@W>a1*>c1") == "1 en W, a1, c1"


@pytest.mark.parametrize("lang, want", [
    ("en", "Game over: Black wins (Black reached 20 points). White 0, Black 21"),
    ("fr", "Partie terminée : Noir gagne ("),
])
def test_game_over_says_why_in_the_language(lang, want):
    from test_voice_games import SCRIPT

    state = ANNI.start()
    for text in SCRIPT[:-1]:
        state = state.apply_text(text)
    n, _ = narrator(lang, "annihilation", state)
    move = state.parse_move(SCRIPT[-1])
    after = state.successor(move)
    n.on(Accepted(1, len(SCRIPT), SCRIPT[-1], state.describe_move(move), after.to_dict()))
    [u] = n.on(GameOver(1, len(SCRIPT), after.outcome().to_dict()))
    assert u.text.startswith(want)
    if lang == "fr":
        assert "reached" not in u.text and "points" in u.text, u.text
