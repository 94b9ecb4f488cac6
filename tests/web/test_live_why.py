"""Why not on the page and in the voice (issue 31, item 2): an illegal board's card carries the
rule it breaks beside what to put back — what was tried and why, the rule text's words with its
section, in English and French — or "several pieces moved"; the voice says the reason after what
to put back. The reasons come from the games (rules.why), so every game's appear."""

from __future__ import annotations

from pathlib import Path

from decisions import Illegal, NewGame
from rules import Fidelity, SpaceFix, View, get_game, why_not
from tableref.voice.sentences import Narrator
from web.live import LiveTable

ROOT = Path(__file__).resolve().parents[2]


def _illegal(state, *moves):
    """The referee's decision for a board with each ``(from, to)`` piece moved."""
    v = {s: list(t) for s, t in state.view(Fidelity.KIND).to_dict().items()}
    for a, b in moves:
        v.setdefault(b, []).append(v.pop(a)[0])
    seen = View({s: tuple(t) for s, t in v.items()})
    current = state.view(Fidelity.KIND)
    fixes = tuple(SpaceFix(s, current.get_tokens(s), seen.get_tokens(s)) for s in sorted(current.diff(seen)))
    return Illegal(1, 0, fixes, why_not(state, seen, Fidelity.KIND))


def _table(state):
    return LiveTable(game_id=1, state=state, moves=[], options={}, fidelity=Fidelity.KIND, submit=lambda c: None)


def test_the_card_carries_the_rule_beside_what_to_put_back():
    s = get_game("gyges").default_setup()
    table = _table(s)
    table.on_decision(_illegal(s, ("a1", "a4")))
    snap = table.snapshot()
    st = snap["board_status"]
    assert st["kind"] == "illegal" and st["arrows"] == [{"from": "a4", "to": "a1", "token": "1"}]
    assert st["why"] == {"said": "a single ring moves exactly 1 space: it cannot get from a1 to a4",
                         "rule": "Playing a ring: “The number of spaces it can move is equal to its height.”",
                         "id": "height", "game": "gyges"}
    fr = snap["i18n"]["fr"]
    assert fr[st["why"]["said"]] == "l'anneau simple se déplace d'exactement 1 case : il ne peut pas aller de a1 à a4"
    assert fr[st["why"]["rule"]] == "Jouer un anneau : « Le nombre de cases qu'il parcourt est égal à sa hauteur. »"


def test_several_pieces_moved_is_said_plainly():
    s = get_game("gyges").default_setup()
    table = _table(s)
    table.on_decision(_illegal(s, ("a1", "a2"), ("f1", "f3")))
    snap = table.snapshot()
    assert snap["board_status"]["why"] == {"said": "Several pieces moved: no single move explains the board",
                                           "several": True}
    assert snap["i18n"]["fr"]["Several pieces moved: no single move explains the board"] == (
        "Plusieurs pièces ont bougé : aucun coup seul n'explique le plateau")


def test_no_reason_no_why_and_the_next_board_forgets_it():
    s = get_game("gyges").default_setup()
    table = _table(s)
    table.on_decision(_illegal(s, ("a1", "a4")))
    table.on_decision(Illegal(1, 0, (SpaceFix("a1", ("1",), ()),)))  # after an undo: no why
    assert "why" not in table.snapshot()["board_status"]


def test_an_anacund_reason_on_the_card():
    s = get_game("anacund").start()
    table = _table(s)
    seen = View({"t1": ("A",)})
    table.on_decision(Illegal(1, 0, (SpaceFix("t1", (), ("A",)),), why_not(s, seen, Fidelity.KIND)))
    st = table.snapshot()["board_status"]
    assert st["why"]["said"] == "t1 is a 2, and A's groups hold 6, 6, 6 pieces"
    assert st["why"]["rule"].startswith("How to play: “If a piece comes from a group of 6")


def test_the_page_draws_the_reason():
    js = (ROOT / "web/static/live.js").read_text(encoding="utf-8")
    assert "st.why" in js and "rt(st.why.said)" in js and "rt(st.why.rule)" in js


def test_the_voice_says_the_reason_after_what_to_put_back():
    s = get_game("gyges").default_setup()
    for lang, said in (("en", "Illegal: put the single ring back on a1 and take the single ring off a4; a single "
                               "ring moves exactly 1 space: it cannot get from a1 to a4"),
                       ("fr", "; l'anneau simple se déplace d'exactement 1 case : il ne peut pas aller de a1 à a4")):
        n = Narrator(lang)
        n.on(NewGame(1, 0, "gyges", s.to_dict()))
        [u] = n.on(_illegal(s, ("a1", "a4")))
        assert u.text.endswith(said) if lang == "fr" else u.text == said, u.text
    n = Narrator("en")
    n.on(NewGame(1, 0, "gyges", s.to_dict()))
    [u] = n.on(_illegal(s, ("a1", "a2"), ("f1", "f3")))
    assert u.text.endswith("; several pieces moved"), u.text


def test_the_logs_illegal_line_keeps_the_reason_in_every_language():
    s = get_game("gyges").default_setup()
    table = _table(s)
    d = _illegal(s, ("a1", "a4"))
    table.on_decision(d)
    snap = table.snapshot()
    line = next(r["text"] for r in snap["recent"] if r["kind"] == "illegal")
    assert line == d.text().strip()
    assert snap["i18n"]["en"][line] == (
        "illegal board — put back: move the single ring from a4 back to a1 — a single ring moves exactly 1 space: "
        "it cannot get from a1 to a4 (Playing a ring: “The number of spaces it can move is equal to its height.”)")
    assert snap["i18n"]["fr"][line].endswith(
        " — l'anneau simple se déplace d'exactement 1 case : il ne peut pas aller de a1 à a4 (Jouer un anneau : "
        "« Le nombre de cases qu'il parcourt est égal à sa hauteur. »)")


def test_every_games_rules_have_their_words_and_sections_in_french():
    """Each game's list of rules a board can break (rules/games/<game>_why.py, RULES): the
    page shows the quote and its section, so both are catalog messages — also the rules that
    random wrong boards seldom reach (Gygès' game over, the Game of Kings' repositioning)."""
    import importlib

    from rules import P, game_names
    from tableref.i18n import catalog

    fr = catalog("fr")
    seen = 0
    for name in game_names():
        try:
            module = importlib.import_module(f"rules.games.{name}_why")
        except ModuleNotFoundError:
            continue
        for rule in getattr(module, "RULES", {}).values():
            for words in (rule.quote, rule.section):
                assert fr.untranslated(P(words)) == [], (name, rule.id, words)
            seen += 1
    assert seen >= 18  # Gygès' 11 and Anacund's 7 at least


def test_gyges_reasons_after_the_game_and_in_the_kings_repositioning_said_in_french():
    from tableref.i18n import catalog

    fr = catalog("fr")
    g = get_game("gyges")
    over = g.from_dict({"game": "gyges", "winner": "south", "rings": {"N": 2, "c2": 1, "b3": 3, "d5": 2}})
    kings = g.from_dict({"game": "gyges", "to_move": "north", "phase": "reposition", "variant": "kings",
                         "rings": {"N": 2, "a2": 1, "b2": 1, "c2": 1, "d2": 3, "e2": 3, "f2": 1, "d5": 2},
                         "captures": {"south": 1, "north": 0}})
    said = [_illegal(over, ("c2", "c1")).why.reason.said, _illegal(kings, ("N", "c1")).why.reason.said]
    assert [fr.say(p) for p in said] == [
        "la partie est finie : Sud a pris le trône",
        "l'anneau gagnant ne peut pas aller en c1, derrière la ligne d'anneaux la plus proche de votre adversaire"]
