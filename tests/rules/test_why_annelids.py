"""Why not (issue 31, item 2), Annelids: every rule a board can break (docs/rules/annelids.md,
"Rules a board can break") given as the reason for a board that breaks it, the true one where
two could apply, none where no single rule explains the board, and — over random play — every
reason given agrees with ``legal_moves`` and with the rule's own check."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rules import Fidelity, Verdict, View, explain, get_game, why_not
from rules.games.annelids import Place, Reconnect, Remove
from rules.games.annelids_geometry import geometry
from rules.games.annelids_why import RULES, holds, reconnection_fault
from rules.why import attempt_of
from seeds import seed_text

GAME = get_game("annelids")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "annelids"
BLUE_LEGAL = ["e6nw", "e6n", "e6ne", "f6nw", "f6n", "f6ne", "f6e", "g6sw"]


def doc(name):
    return GAME.from_dict(json.loads((DOCS / f"{name}.json").read_text()))


def worm(tail, colour, heading, segs=()):
    return {"tail": tail, "colour": colour, "heading": heading, "segments": list(segs)}


def position(annelids, to_move="blue", quota=1, placed=0):
    return GAME.from_dict({"game": "annelids", "to_move": to_move, "quota": quota, "placed": placed,
                           "annelids": annelids})


def board(state, add=(), remove=(), fidelity=Fidelity.KIND, put=None):
    b = state.view(fidelity).to_dict()
    for e in add:
        b[e] = ["segment" if fidelity is not Fidelity.OCCUPANCY else "occupied"]
    for e in remove:
        b.pop(e)
    b.update(put or {})
    return View(b)


def reason(state, view, fidelity=Fidelity.KIND):
    assert explain(state, view, fidelity).verdict is Verdict.ILLEGAL
    return why_not(state, view, fidelity).reason


def reconnect(state, square):
    """The board with the two segments across ``square`` moved onto its other two sides."""
    sides = geometry().squares[square]
    view = state.view(Fidelity.KIND)
    taken = [s for s in sides if view.get_tokens(s)]
    return board(state, [s for s in sides if s not in taken], taken)


# -- the rules, listed with the seed's words ----------------------------------------------------------


def test_every_rule_is_listed_in_the_docs():
    listed = (DOCS.parent / "annelids.md").read_text(encoding="utf-8")
    listed = listed[listed.index("## Rules a board can break"):]
    for rule in RULES.values():
        assert f"`{rule.id}`" in listed and rule.quote in " ".join(listed.split()), rule.id


def test_every_rule_quotes_the_seed():
    seed = " ".join(seed_text("annelids").split())
    for rule in RULES.values():
        assert rule.quote in seed, rule.id
        assert rule.section in seed, rule.id


# -- a position per rule ---------------------------------------------------------------------------


def test_far_end_a_segment_beside_the_annelid_not_at_its_head():
    s = GAME.start().apply_text("b1e-b1ne")
    r = reason(s, board(s, ["c1nw"]))  # from the tail's flat end again: the seed's "illegal chain"
    assert r.rule.id == "far-end" and r.rule.section == "Play"
    assert r.said.text == ("the segment on c1nw is not at the far end of the annelid from tail b1e: it grows only "
                           "from its farthest segment")


def test_far_end_two_segments_from_one_end_the_seeds_illegal_chain():
    s = GAME.start()
    r = reason(s, board(s, ["b1ne", "c1nw"]))
    assert r.rule.id == "far-end"
    assert r.said.text == "the segments on b1ne and c1nw cannot both be at the far end of the annelid from tail b1e"


def test_far_end_a_segment_touching_no_annelid():
    s = GAME.start()
    r = reason(s, board(s, ["f6n"]))
    assert r.rule.id == "far-end" and "touches no annelid" in r.said.text


def test_alternate_blue_moves_first():
    s = GAME.start()
    r = reason(s, board(s, ["j12se"]))  # at the far end of a Green tail
    assert r.rule.id == "alternate" and r.said.text.endswith("but Blue moves first")


def test_alternate_a_segment_after_the_turn_is_over():
    s = GAME.start()
    for m in ("b1e-b1ne", "e1e-e1ne", "h1e-h1ne", "k1e-k1ne"):  # Blue's first turn
        s = s.apply_text(m)
    for m in ("j12e-j12se", "g12e-g12se", "d12e-d12se", "a12e-a12se", "k9e-k9se", "h9e-h9se", "e9e-e9se",
              "b9e-b9se"):  # Green's eight
        s = s.apply_text(m)
    assert s.to_move == "blue" and s.placed == 0
    grown = s.annelid("j12e").segments[-1]
    edge = next(e for e in geometry().onward[(grown, s.head("j12e")[1])])
    r = reason(s, board(s, [edge]))
    assert r.rule.id == "alternate" and "Green's turn is over: Blue to move" in r.said.text


def test_first_turn_green_moves_before_blue_has_placed_four():
    s = GAME.start().apply_text("b1e-b1ne")
    r = reason(s, board(s, ["j12se"]))
    assert r.rule.id == "first-turn"
    assert r.said.text == ("the segment on j12se grows Green's annelid from tail j12e, but Blue still has 3 to place "
                           "this turn")


def test_first_turn_a_fifth_segment_after_blues_four():
    s = GAME.start()
    for m in ("b1e-b1ne", "e1e-e1ne", "h1e-h1ne", "k1e-k1ne"):
        s = s.apply_text(m)
    assert s.to_move == "green" and s.placed == 0
    edge = next(e for e in geometry().onward[("b1ne", s.head("b1e")[1])])
    r = reason(s, board(s, [edge]))
    assert r.rule.id == "first-turn" and "Blue's turn is over: Green to move" in r.said.text


def test_quota_fewer_segments_than_surviving_annelids():
    s = doc("removal-other").apply_text("b2e-b2ne")  # Blue has 2 annelids... and 3: quota 2, one placed
    assert s.to_move == "blue" and s.left == 1
    head = s.head("b11e")[1]
    edge = next(e for e in geometry().at[head] if e != "b11e")
    r = reason(s, board(s, [edge]))
    assert r.rule.id == "quota" and r.said.text.endswith("but Blue still has 1 to place this turn")


def test_own_annelids_blue_takes_greens_annelid_off():
    s = doc("removal-other")
    r = reason(s, board(s, remove=["g6e", "g6ne", "g6n"]))
    assert r.rule.id == "own-annelids" and "Green's annelid from tail g6e" in r.said.text


def test_removal_an_annelid_whose_far_end_meets_nothing():
    s = doc("removal-other")
    r = reason(s, board(s, remove=["b2e"]))
    assert r.rule.id == "removal" and r.rule.section == "Removing annelids"
    assert "tail b2e" in r.said.text and "meets none" in r.said.text
    # taking back a segment is the same rule: segments leave the board with their whole annelid
    t = doc("removal-other").apply_text("b2e-b2ne")
    assert reason(t, board(t, remove=["b2ne"])).rule.id == "removal"


def test_tails_stay():
    s = GAME.start()
    r = reason(s, board(s, remove=["b1e"], put={"c2n": ["blue:E"]}))
    assert r.rule.id == "tails-stay" and r.said.text.startswith("the tail on b1e was moved to c2n")


def test_reconnect_lengths():
    s = doc("reconnect-illegal")  # Blue 5 + 1 against Green 2 + 2
    r = reason(s, reconnect(s, "f6g7"))
    assert r.rule.id == "reconnect-lengths"
    assert r.said.text.startswith("the annelid from tail d6ne has 5 segments before the square f6g7 and 1 after it, "
                                  "the one from tail g6e 2 and 2")


def test_reconnect_direction():
    s = doc("same-direction")
    r = reason(s, reconnect(s, "f6g7"))
    assert r.rule.id == "reconnect-direction" and "the same way" in r.said.text


def test_reconnect_owner():
    pair = [worm("d6ne", "blue", "SE", BLUE_LEGAL), worm("g6e", "blue", "N", ["g6ne", "g6n", "g7sw", "f7e"]),
            worm("a12e", "green", "S")]
    s = position(pair, "green")
    r = reason(s, reconnect(s, "f6g7"))
    assert r.rule.id == "reconnect-owner" and "only Blue may reconnect them" in r.said.text


def test_reconnect_segments_a_tail_in_the_square():
    s = position([worm("d6ne", "blue", "SE", BLUE_LEGAL), worm("g7sw", "green", "NW", ["f7e"])])
    r = reason(s, reconnect(s, "f6g7"))
    assert r.rule.id == "reconnect-segments" and r.said.text.startswith("the tail on g7sw is in the square f6g7")


def test_reconnect_two_one_annelid_twice_through_the_square():
    segs = ["c3ne", "c3e", "d3sw", "d2n", "d3se", "d3e", "d3ne", "d3n", "d4sw"]
    s = position([worm("c3n", "blue", "E", segs), worm("a12e", "green", "S")])
    r = reason(s, reconnect(s, "c3d4"))
    assert r.rule.id == "reconnect-two" and "only the annelid from tail c3n" in r.said.text


def test_reconnect_half_made_is_judged_as_the_reconnection():
    s = doc("reconnect-illegal")
    r = reason(s, board(s, ["f7se"], ["f6ne"]))  # one of the two segments moved
    assert r.rule.id == "reconnect-lengths"


def test_game_over():
    s = doc("last-annelid").apply_text("c3ne-x")
    r = reason(s, board(s, ["g10se"]))
    assert r.rule.id == "game-over" and r.said.text == "the game is over: Blue removed their last annelid"


# -- two rules could apply: the true one ---------------------------------------------------------------


def test_reconnection_lengths_right_but_direction_wrong_and_the_converse():
    assert reconnection_fault(doc("same-direction"), "f6g7")[0] == "reconnect-direction"
    assert reconnection_fault(doc("reconnect-illegal"), "f6g7")[0] == "reconnect-lengths"


def test_at_a_far_end_but_the_other_players():
    # j12se is at the far end of an annelid — Green's: not the far-end rule, whose turn it is.
    s = GAME.start().apply_text("b1e-b1ne")
    assert reason(s, board(s, ["j12se"])).rule.id == "first-turn"
    assert reason(s, board(s, ["c1nw"])).rule.id == "far-end"


def test_own_annelid_that_cannot_be_removed_against_the_opponents():
    s = doc("removal-other")
    assert reason(s, board(s, remove=["b11e"])).rule.id == "own-annelids"  # Green's: whose, not how
    assert reason(s, board(s, remove=["b2e"])).rule.id == "removal"


# -- no single rule ---------------------------------------------------------------------------------------


def test_several_pieces_no_rule():
    s = GAME.start()
    why = why_not(s, board(s, ["f6n", "b1ne", "j12se"]), Fidelity.KIND)
    assert why.reason is None
    # two annelids taken off at once
    t = doc("removal-other")
    assert why_not(t, board(t, remove=["b2e", "b11e"]), Fidelity.KIND).reason is None
    # a legal board has none
    assert why_not(s, board(s, ["b1ne"]), Fidelity.KIND).reason is None


@pytest.mark.parametrize("fidelity", [Fidelity.OCCUPANCY, Fidelity.IDENTITY])
def test_reasons_at_every_fidelity(fidelity):
    s = GAME.start().apply_text("b1e-b1ne")
    assert reason(s, board(s, ["c1nw"], fidelity=fidelity), fidelity).rule.id == "far-end"
    t = doc("reconnect-illegal")
    v = t.view(fidelity).to_dict()
    for e in ("f6ne", "g7sw"):
        v.pop(e)
    v.update({e: v.get("e6n") for e in ("f7se", "g6nw")})
    assert reason(t, View(v), fidelity).rule.id == "reconnect-lengths"


# -- random play: every reason agrees with legal_moves and its own check ------------------------------------


def wrong_boards(s, rng):
    """Boards a player might make from ``s``: segments where none may go, pieces taken off,
    tails moved, segments moved across squares."""
    geo = geometry()
    view = s.view(Fidelity.KIND)
    empty = [e for e in geo.edges if not view.get_tokens(e)]
    legal = {m.edge for m in s.legal_moves() if isinstance(m, Place)}
    for e in rng.sample(empty, 6):
        yield board(s, [e])
    near = {e for a in s.annelids for x in a.edges for v in geo.ends[x] for e in geo.at[v] if not view.get_tokens(e)}
    for e in rng.sample(sorted(near - legal), min(6, len(near - legal))):
        yield board(s, [e])
        if legal:
            yield board(s, [e, rng.choice(sorted(legal))])
    for a in rng.sample(s.annelids, min(3, len(s.annelids))):
        yield board(s, remove=a.edges)
        yield board(s, remove=a.edges[-1:])
        yield board(s, remove=[a.tail], put={rng.choice(empty): [view.get_tokens(a.tail)[0]]})
    for sq, sides in geo.squares.items():
        taken = [x for x in sides if view.get_tokens(x)]
        if len(taken) == 2 and sides.index(taken[1]) - sides.index(taken[0]) == 2:
            yield reconnect(s, sq)


def oracle(s, rule_id, attempt):
    """The rule's move, checked against legal_moves: it is not among them."""
    moves = s.legal_moves()
    occ = s._index()[0]
    if rule_id in ("far-end", "alternate", "first-turn", "quota"):
        return all(not (isinstance(m, Place) and m.edge == e) for e, _ in attempt.placed for m in moves) or (
            len(attempt.placed) == 2)  # two at once: one of them may be legal, the pair is not
    if rule_id in ("own-annelids", "removal"):
        tails = {s.annelids[occ[e][0]].tail for e, _ in attempt.lifted}
        return all(Remove(t) not in moves for t in tails) or rule_id == "own-annelids"
    if rule_id.startswith("reconnect-"):
        square = geometry().square_of[attempt.lifted[0][0]][0]
        return Reconnect(square) not in moves
    return rule_id in ("tails-stay", "game-over")


def test_random_play_reasons_agree_with_legal_moves_and_their_own_check():
    rng = random.Random(31)
    given, ids = 0, set()
    for game in range(3):
        s = GAME.start()
        for ply in range(60):
            if s.is_game_over():
                break
            for view in wrong_boards(s, rng):
                if explain(s, view, Fidelity.KIND).verdict is not Verdict.ILLEGAL:
                    continue
                why = why_not(s, view, Fidelity.KIND)
                if why.reason is None:
                    continue
                rid = why.reason.rule.id
                assert holds(s, why.attempt, rid), (s.to_dict(), why.to_dict())
                assert oracle(s, rid, why.attempt), (s.to_dict(), why.to_dict())
                given += 1
                ids.add(rid)
            # agreement the other way: no rule finds fault with a legal move's board
            for m in rng.sample(list(s.legal_moves()), min(8, len(s.legal_moves()))):
                after = s.successor(m).view(Fidelity.KIND)
                attempt = attempt_of(s, after, Fidelity.KIND)
                assert not any(holds(s, attempt, rid) for rid in RULES), s.move_text(m)
            s = s.successor(rng.choice(s.legal_moves()))
    assert given > 100 and {"far-end", "alternate", "quota", "own-annelids", "removal", "tails-stay"} <= ids, ids


def test_reconnection_fault_agrees_with_the_move_generator():
    rng = random.Random(7)
    geo = geometry()
    checked = 0
    for _ in range(4):
        s = GAME.start()
        for _ in range(120):
            if s.is_game_over():
                break
            moves = set(s.legal_moves())
            for sq in geo.squares:
                sides = geo.squares[sq]
                view = s.view(Fidelity.KIND)
                taken = [x for x in sides if view.get_tokens(x)]
                if len(taken) == 2:
                    assert (reconnection_fault(s, sq) is None) == (Reconnect(sq) in moves), (sq, s.to_dict())
                    checked += 1
            s = s.successor(rng.choice(sorted(moves, key=s.move_text)))
    assert checked > 20


# -- said in French ------------------------------------------------------------------------------------------

ENGLISH = {"the", "and", "to", "on", "of", "from", "is", "not", "at", "far", "end", "annelid", "annelids", "tail",
           "grows", "but", "Blue", "Green", "square", "taken", "off", "place", "turn", "over"}


def test_every_reason_said_in_french():
    import ast
    import re

    from rules import P
    from rules.games import annelids_why
    from tableref.i18n import catalog

    fr = catalog("fr")
    for rule in RULES.values():
        assert fr.untranslated(P(rule.quote)) == [] and fr.untranslated(P(rule.section)) == [], rule.id
    tree = ast.parse(Path(annelids_why.__file__).read_text(encoding="utf-8"))
    templates = [n.args[0].value for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", None) == "P" and n.args and isinstance(n.args[0], ast.Constant)]
    assert len(templates) > 15
    for t in templates:
        assert fr.untranslated(P(t)) == [], t
    rng = random.Random(5)
    said = []
    for s in (GAME.start(), GAME.start().apply_text("b1e-b1ne"), doc("removal-other"), doc("reconnect-illegal"),
              doc("same-direction")):
        for view in wrong_boards(s, rng):
            if explain(s, view, Fidelity.KIND).verdict is Verdict.ILLEGAL:
                r = why_not(s, view, Fidelity.KIND).reason
                if r is not None:
                    said.append(r.said)
    assert len({p.msgid for p in said}) >= 6
    for p in said:
        text = fr.say(p)
        assert fr.untranslated(p) == [] and not set(re.findall(r"[A-Za-zÀ-ÿ]+", text)) & ENGLISH, text
