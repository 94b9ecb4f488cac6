"""Annihilation through the referee: a scripted full game to 20 from a board script, the
score right at every step; the same board with different scores is asked, not guessed."""

from __future__ import annotations

import pytest

from rules import Fidelity, explain, get_game
from decisions import Confirm, StableView
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.sources.sim import BoardScript, SimulatedBoard, render_script
from tableref.stabiliser import Stabiliser

GAME = get_game("annihilation")

# A whole game, White first, to Black's 21: placements, introductions with knock-ons,
# chains with zero-force self-emissions (a1-W>g7*>f6, 1@W>a1*>c1), an annihilator hit
# (g6-f5x), a zero-force annihilation (c1-a1>g7x) and two scoring turns at White's point.
SCRIPT = [
    ("0@f5", (0, 0)), ("0@b4", (0, 0)), ("8@W", (0, 0)), ("5@B", (0, 0)),
    ("1@W>a1", (0, 0)), ("1@B>g7", (0, 0)), ("a1-W>g7*>f6", (0, 0)), ("f6-g7>g6", (0, 0)),
    ("g6-f5x", (0, 0)), ("g7-B>d4", (0, 0)), ("2@W>b2", (0, 0)), ("d4-c4", (0, 0)),
    ("b2-W>a1", (0, 0)), ("0@c6", (0, 0)), ("a1-W>a1", (0, 0)), ("3@B>e5", (0, 0)),
    ("1@W>a1*>c1", (0, 0)), ("e5-B>g7", (0, 0)), ("c1-a1>g7x", (0, 0)), ("c4-c5", (0, 0)),
    ("a1-W>g7", (0, 0)), ("c5-d5", (0, 0)), ("g7-g6", (0, 0)), ("8@B>Wx", (0, 13)),
    ("g6-f5", (0, 13)), ("8@B>W", (0, 21)),
]


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def test_scripted_game_to_20_through_the_referee(journal, tmp_path):
    start = GAME.start()
    state, moves = start, []
    for text, _ in SCRIPT:
        move = state.parse_move(text)
        moves.append(move)
        state = state.successor(move)
    path = tmp_path / "annihilation.jsonl"
    render_script(start, moves, fidelity=Fidelity.KIND, seed=4).dump(path)
    script = BoardScript.from_file(path)

    ref = Referee.start(journal, "annihilation", fidelity=Fidelity.KIND, start=script.start_state())
    stab = Stabiliser()
    accepted, partial, over = [], 0, []
    for obs in SimulatedBoard(script).observations():
        view = stab.feed(obs)
        if view is None:
            continue
        for d in ref.handle(StableView(view)):
            if d.kind == "accepted":
                accepted.append((d.move, d.description, d.position))
            elif d.kind == "partial":
                partial += 1
            elif d.kind == "game_over":
                over.append(d.outcome)
            elif d.kind in ("illegal", "ambiguous"):
                pytest.fail(f"unexpected {d.kind} at ply {ref.ply}: {d.to_dict()}")
    assert [m for m, _, _ in accepted] == [t for t, _ in SCRIPT]
    for (text, (white, black)), (_, description, position) in zip(SCRIPT, accepted):
        assert position["scores"] == {"white": white, "black": black}, text
    assert "+13 Black" in accepted[23][1] and "+8 Black" in accepted[25][1]
    assert over == [{"winner": "black", "reason": "Black reached 20 points", "scores": {"white": 0, "black": 21}}]
    assert journal.unfinished_game() is None


def test_same_board_different_scores_is_asked_and_settled_by_confirm(journal):
    # Black's 8 on c3: at occupancy, reaching Black's own point of emergence and meeting the
    # 3 there (both annihilated: +11 White) leaves the same board as striking the 5 on e5
    # on to B (5 and 3 annihilated there: +8 White). The referee must ask which.
    pos = GAME.from_dict({"game": "annihilation", "to_move": "black",
                          "board": {"B": "B3", "e5": "B5", "c3": "B8", "a2": "W1"}})
    groups = {}
    for m in pos.legal_moves():
        after = pos.successor(m)
        groups.setdefault(after.view(Fidelity.OCCUPANCY), {})[after.score] = m
    view, by_score = next((v, g) for v, g in groups.items() if len(g) > 1)
    ref = Referee.start(journal, "annihilation", fidelity=Fidelity.OCCUPANCY, start=pos)
    out = ref.handle(StableView(view))
    assert [d.kind for d in out] == ["ambiguous"] and ref.ply == 0
    assert len({c.description for c in out[0].choices}) == len(out[0].choices)
    assert any("+" in c.description for c in out[0].choices)
    # The players say which: the highest-scoring turn.
    score, move = max(by_score.items())
    wanted = next(c for c in explain(pos, view, Fidelity.OCCUPANCY).candidates if c.has_move(move))
    choice = next(c for c in out[0].choices if c.text == wanted.text)
    out = ref.handle(Confirm(choice.number))
    assert [d.kind for d in out] == ["accepted"] and out[0].confirmed
    assert ref.state.scores() == {"white": score[0], "black": score[1]}
