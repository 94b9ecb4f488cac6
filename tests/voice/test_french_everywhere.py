"""The rules' own texts said in French, for every game: random playouts (as the conformance
suite's) walk each position's moves, its outcome and what would put the board back, and every
one is rendered through the French catalog — no template falls back to English, no English
word is left, nothing crashes. The same for the spoken sentences (Narrator) and the live page's
translations (web/i18n.py through LiveTable). And a missing or broken translation is English."""

from __future__ import annotations

import gettext
import random
import re

import pytest

from rules import Fidelity, P, SpaceFix, get_game, game_names
from rules.phrase import Joined
from decisions import (
    Accepted, Ambiguous, Choice, ComputerMove, GameOver, Hint, Illegal, NewGame, Partial, Seat, Seats, TakenBack,
    UnseenMoves,
)
from tableref.computer_turn import ComputerTurn
from tableref.i18n import Catalog, catalog
from tableref.voice.sentences import Narrator
from web.live import LiveTable

SEEDS = (1, 2)
PLIES = 60
MOVES_PER_STATE = 12

# English words no French sentence of ours contains (words both languages share — "segments",
# "double", "total", "bonus", "force", "point(s)", "capture", "a" — are left out).
ENGLISH = set("""
the and to on of from into onto with at by its it is an has was then after every both
ring rings throne river rivers coin coins annelid annelids tail piece pieces square squares group
turn turned put take takes back move moves moved places placed place captures captured
left annihilated annihilator hit met stopped against lost emits self-emits introduces passes cannot
grows runs reconnects resigns resignation attacks goes home leaves play pilfers deposits drops
repository clockwise counter-clockwise arrow arrows round over ends riding along free landlocked next
lay beside their reached draw higher reached single copper silver gold outer inner middle made
board looks same confirmed illegal waiting still do one two three four five six emergence
White Black South North Red Blue Green Yellow blue green player
computer plays level hint please make not that next reply
""".split())
WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'-]*")


def english_words(text: str) -> set[str]:
    words = set()
    for w in WORD.findall(text):
        words |= {w, *w.split("'")}  # "l'anneau": "l", "anneau"
    return words & ENGLISH


def playout(name: str, seed: int, setup: bool):
    """Positions of a random game, each with a move played from it (the last has none)."""
    game, rng = get_game(name), random.Random(seed)
    s = game.start() if setup else game.default_setup()
    out = []
    for _ in range(PLIES):
        moves = s.legal_moves()
        if not moves:
            break
        m = rng.choice(moves)
        out.append((s, m))
        s = s.successor(m)
    out.append((s, None))
    return out, rng


def fixes_between(before, after) -> tuple[SpaceFix, ...]:
    """What puts ``after``'s board back to ``before``."""
    v, w = before.view(Fidelity.KIND), after.view(Fidelity.KIND)
    return tuple(SpaceFix(sp, v.get_tokens(sp), w.get_tokens(sp)) for sp in sorted(v.diff(w)))


def check(fr: Catalog, phrase, where: str) -> str:
    assert fr.untranslated(phrase) == [], f"{where}: no French for {fr.untranslated(phrase)} ({phrase.text!r})"
    text = fr.say(phrase)
    left = english_words(text)
    assert not left, f"{where}: English left in {text!r}: {sorted(left)}"
    return text


@pytest.mark.parametrize("name", game_names())
def test_every_rules_text_of_random_games_said_in_french(name):
    fr = catalog("fr")
    seen = 0
    for seed in SEEDS:
        for setup in (True, False):
            states, rng = playout(name, seed, setup)
            for s, played in states:
                moves = list(s.legal_moves())
                for m in rng.sample(moves, min(MOVES_PER_STATE, len(moves))) + ([played] if played else []):
                    check(fr, s.move_phrase(m), f"{name} {s.move_text(m)}")
                    seen += 1
                o = s.outcome()
                if o is not None:
                    assert o.phrase is not None and o.phrase.text == o.reason
                    check(fr, o.phrase, f"{name} outcome")
                if played is not None:
                    for f in fixes_between(s, s.successor(played)):
                        said = s.fix_phrase(f)
                        if said is not None:
                            check(fr, said, f"{name} fix {f.text()}")
    assert seen > 100


def test_drift_fixes_say_the_direction_of_each_turn():
    fr = catalog("fr")
    s = get_game("drift").default_setup()
    ways = set()
    for seen in ("1", "17", "2", "16"):  # one arrow ahead and behind, two ahead and behind
        said = s.fix_phrase(SpaceFix("rotation:middle", ("0",), (seen,)))
        text = check(fr, said, "drift fix")
        assert text.startswith("tournez la rivière du milieu de") or text.startswith("tournez la rivière du milieu d'")
        ways.add(text.rsplit(" ", 1)[-1])
        assert said.text.startswith("turn the middle river")
    assert ways == {"horaire", "antihoraire"}


@pytest.mark.parametrize("name", game_names())
def test_spoken_game_in_french_has_no_english(name):
    n = Narrator("fr")
    states, _ = playout(name, 3, False)
    start = states[0][0]
    said = [u.text for u in n.on(NewGame(1, 0, name, start.to_dict()))]
    for ply, (s, m) in enumerate(states[:-1], start=1):
        after = s.successor(m)
        wrong = fixes_between(s, after)
        if wrong:  # the board shows the move while the game is still before it: put it back
            said += [u.text for u in n.on(Illegal(1, ply - 1, wrong))]
            said += [u.text for u in n.on(Partial(1, ply - 1, (s.move_text(m),), wrong))]
        said += [u.text for u in n.on(Accepted(1, ply, s.move_text(m), s.describe_move(m), after.to_dict()))]
    last = states[-1][0]
    if last.outcome() is not None:
        said += [u.text for u in n.on(GameOver(1, len(states) - 1, last.outcome().to_dict()))]
    assert len(said) > 20
    for text in said:
        assert not english_words(text), f"English left in {text!r}: {sorted(english_words(text))}"


@pytest.mark.parametrize("name", game_names())
def test_the_computer_opponent_said_in_french_has_no_english(name):
    """Every kind the computer brings (issue 30): a new game naming its seats, its whole turn
    to carry out, said again after a wrong board, the next step of a turn under way, a hint,
    an undo that took its move back — over a random game in which it plays every side."""
    fr, n = catalog("fr"), Narrator("fr")
    states, _ = playout(name, 5, False)
    players = get_game(name).players
    seats = Seats({p: Seat.computer(1 + i % 5) for i, p in enumerate(players)})
    said = [u.text for u in n.on(NewGame(1, 0, name, states[0][0].to_dict(), seats=seats))]
    i, turns = 0, 0
    while i < len(states) - 1 and turns < 12:
        s = states[i][0]
        texts = []
        while i < len(states) - 1 and states[i][0].to_move == s.to_move:  # the side's whole turn
            texts.append(states[i][0].move_text(states[i][1]))
            i += 1
        turn = ComputerTurn.chosen(s, s.to_move, 1, tuple(texts), 0.5)
        for step in turn.steps:
            check(fr, step.phrase, f"{name} {step.move}")
        said += [u.text for u in n.on(Hint(1, i, s.to_move, 3, turn.steps))]
        said += [u.text for u in n.on(ComputerMove(1, i, s.to_move, 1, turn.steps))]
        wrong = fixes_between(s, turn.states[-1])
        if wrong:  # the referee's illegal always names a space (a turn the board cannot show has none)
            said += [u.text for u in n.on(Illegal(1, i, wrong))]
        said += [u.text for u in n.on(ComputerMove(1, i, s.to_move, 1, turn.steps, repeated=True))]
        for k, (step, after) in enumerate(zip(turn.steps, turn.states[1:]), start=1):
            said += [u.text for u in n.on(Accepted(1, i, step.move, step.description, after.to_dict()))]
            if k < len(turn.steps):
                said += [u.text for u in n.on(ComputerMove(1, i, s.to_move, 1, turn.steps, done=k))]
        turns += 1
    back = states[i - 1][0]
    said += [u.text for u in n.on(TakenBack(1, i - 1, "x", back.to_dict(), computer=True))]
    said += [u.text for u in n.on(TakenBack(1, i - 2, "y", states[i - 2][0].to_dict()))]
    assert turns >= 3 and len(said) > 30
    for text in said:
        assert not english_words(text), f"English left in {text!r}: {sorted(english_words(text))}"
    assert any(t.startswith("L'ordinateur joue : ") for t in said)
    assert any(t.startswith("Pas ce coup : ") for t in said) and any(t.startswith("Conseil : ") for t in said)
    assert "Coup y et réponse de l'ordinateur x repris" in said


@pytest.mark.parametrize("name", game_names())
def test_live_page_translations_cover_the_rules_texts(name):
    states, _ = playout(name, 4, False)
    s0 = states[0][0]
    table = LiveTable(game_id=1, state=s0, moves=[], options={}, fidelity=Fidelity.KIND, submit=lambda c: None)
    shown = 0
    for ply, (s, m) in enumerate(states[:-1][:25], start=1):
        after = s.successor(m)
        wrong = fixes_between(s, after)
        table.on_decision(Illegal(1, ply - 1, wrong))
        snap = table.snapshot()
        fr = snap["i18n"]["fr"]
        lines = [*snap["board_status"]["say"]]
        st = snap["board_status"]
        lines += [f"move {a['token']} from {a['from']} back to {a['to']}" for a in st["arrows"]]
        lines += [f"put {p['token']} on {p['space']}" for p in st["put"]]
        lines += [f"take the piece off {t['space']}" if t["token"] == "occupied" else f"take {t['token']} off {t['space']}"
                  for t in st["take"]]
        for line in lines:  # every hand line live.js writes has its French
            assert line in fr and not english_words(fr[line]), (line, fr.get(line))
            shown += 1
        words = P("take back {moves}", moves=s.move_text(m))
        table.on_decision(Ambiguous(1, ply - 1, (Choice(1, s.move_text(m), s.describe_move(m), phrase=s.move_phrase(m)),
                                                  Choice(2, "takeback x", words.text, 1, phrase=words))))
        fr = table.snapshot()["i18n"]["fr"]
        for c in table.snapshot()["question"]:
            assert c["description"] in fr and not english_words(fr[c["description"]]), c
        table.on_decision(Accepted(1, ply, s.move_text(m), s.describe_move(m), after.to_dict()))
        snap = table.snapshot()
        fr = snap["i18n"]["fr"]
        assert not english_words(fr[snap["last"]["description"]]), fr[snap["last"]["description"]]
        for r in snap["recent"]:  # the log: moves, illegal boards, in French
            if r["kind"] in ("accepted", "illegal") and r["text"] in fr:
                assert not english_words(fr[r["text"]]), fr[r["text"]]
        assert any(r["text"] in fr for r in snap["recent"] if r["kind"] == "accepted")
        for d in snap["declarable"]:  # moves the board cannot show, and why
            assert not english_words(fr[d["description"]]) and not english_words(fr[d["why"]]), d
    s, m = states[-2]  # moves never seen one by one: the question's descriptions in French too
    words = (s.move_phrase(m),)
    asked = UnseenMoves(1, len(states), len(states) - 2, 1, (s.move_text(m),), (words[0].text,), phrases=words)
    assert "phrases" not in asked.to_dict()  # the JSON (journal, page) as before
    table.on_decision(asked)
    fr = table.snapshot()["i18n"]["fr"]
    assert not english_words(fr[words[0].text]), fr[words[0].text]
    outcome = table.snapshot()["outcome"]
    if outcome:
        assert not english_words(table.snapshot()["i18n"]["fr"][outcome["reason"]])
    assert shown > 0


def _wrong_boards(name, seed, n=12):
    """Positions of a random game, each with boards no legal move explains (a piece moved to an
    empty space, a piece added), and why not (rules.why)."""
    from rules import Verdict, View, explain, why_not

    states, rng = playout(name, seed, False)
    spaces = get_game(name).board().space_ids
    for s, _ in states[:n]:
        view = s.view(Fidelity.KIND).to_dict()
        taken = [sp for sp in view if view[sp]]
        empty = [sp for sp in spaces if sp not in view]
        if not taken or not empty:
            continue
        for _ in range(3):
            board = {k: list(v) for k, v in view.items()}
            src, dst = rng.choice(taken), rng.choice(empty)
            token = board[src][0]
            if rng.random() < 0.5:
                board[src].remove(token)
            board[dst] = [token]
            seen = View({k: tuple(v) for k, v in board.items() if v})
            if explain(s, seen, Fidelity.KIND).verdict is Verdict.ILLEGAL:
                yield s, seen, fixes_between(s, s.successor(s.legal_moves()[0])) or (SpaceFix(dst, (), (token,)),), \
                    why_not(s, seen, Fidelity.KIND)


@pytest.mark.parametrize("name", game_names())
def test_why_not_said_in_french_on_the_page_and_in_the_voice(name):
    """The rule a board breaks (issue 31, item 2), for every game that gives one: what was
    tried and why, the rule text's words and its section, said in French by the voice (after
    what to put back) and on the live page (beside it); several pieces moved too."""
    from rules.phrase import P as Phr

    fr, n = catalog("fr"), Narrator("fr")
    n.on(NewGame(1, 0, name, get_game(name).default_setup().to_dict()))
    reasons = 0
    for seed in SEEDS:
        for s, seen, wrong, why in _wrong_boards(name, seed):
            if why.reason is None:
                continue
            reasons += 1
            r = why.reason
            check(fr, r.said, f"{name} {r.rule.id}")
            for words in (r.rule.quote, r.rule.section):
                assert fr.untranslated(Phr(words)) == [], f"{name} {r.rule.id}: no French for {words!r}"
                assert not english_words(fr.say(Phr(words))), fr.say(Phr(words))
            [u] = n.on(Illegal(1, 0, wrong, why))
            assert u.text.startswith("Illégal : ") and fr.say(r.said) in u.text and not english_words(u.text), u.text
            table = LiveTable(game_id=1, state=s, moves=[], options={}, fidelity=Fidelity.KIND, submit=lambda c: None)
            table.on_decision(Illegal(1, 0, wrong, why))
            snap = table.snapshot()
            shown = snap["board_status"]["why"]
            said = snap["i18n"]["fr"]
            assert shown["said"] == r.said.text and said[shown["said"]] == fr.say(r.said)
            assert said[shown["rule"]] == f"{fr.say(Phr(r.rule.section))} : « {fr.say(Phr(r.rule.quote))} »"
    if name in ("gyges", "anacund"):
        assert reasons > 3, reasons
    several = type(why)(why.attempt, None, True) if reasons else None
    if several is not None:
        [u] = n.on(Illegal(1, 0, wrong, several))
        assert u.text.endswith(" ; plusieurs pièces ont bougé"), u.text
        table.on_decision(Illegal(1, 0, wrong, several))
        snap = table.snapshot()
        assert snap["i18n"]["fr"][snap["board_status"]["why"]["said"]] == (
            "Plusieurs pièces ont bougé : aucun coup seul n'explique le plateau")


# -- a missing or broken translation is English, never a crash -----------------------------------


class _Partly(gettext.NullTranslations):
    """A catalog that knows some templates, one of them broken (a placeholder renamed)."""

    def __init__(self, known):
        super().__init__()
        self.known = known

    def gettext(self, message):
        return self.known.get(message, message)

    def ngettext(self, singular, plural, n):
        return self.known.get(singular if n == 1 else plural, singular if n == 1 else plural)


def test_missing_or_broken_translation_falls_back_to_english():
    s = get_game("gyges").default_setup()
    m = s.parse_move("a1-a2")
    phrase = s.move_phrase(m)  # "{who}: {ring} {start} → {end}" with "South" and "single ring"
    assert phrase.text == s.describe_move(m) == "South: single ring a1 → a2"
    c = Catalog("xx", _Partly({"South": "Sur"}))  # the sentence itself untranslated
    assert c.say(phrase) == "Sur: single ring a1 → a2"
    broken = Catalog("xx", _Partly({"{who}: {ring} {start} → {end}": "{qui} : {ring} {start} → {end}"}))
    assert broken.say(phrase) == "South: single ring a1 → a2"  # logged, said in English
    fr = catalog("fr")
    odd = P("a sentence no catalog has, for {who}", who=P("South"))
    assert fr.say(odd) == "a sentence no catalog has, for Sud"
    assert fr.untranslated(odd) == ["a sentence no catalog has, for {who}"]
    assert fr.say(Joined((odd, P("throne captured")), "; ")) == "a sentence no catalog has, for Sud; trône pris"
    assert catalog("de").say(phrase) == "South: single ring a1 → a2"  # no German catalog: English


def test_games_describe_through_phrases_only():
    """Every game says its moves and fixes as phrases (so every language gets them): none
    overrides the English-only ``describe_move`` / ``describe_fix`` of the contract."""
    from rules import State

    for name in game_names():
        cls = type(get_game(name).default_setup())
        assert cls.describe_move is State.describe_move, f"{name}: override move_phrase, not describe_move"
        assert cls.describe_fix is State.describe_fix, f"{name}: override fix_phrase, not describe_fix"
