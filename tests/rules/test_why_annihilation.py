"""Why not (issue 31, item 2), Annihilation: every rule a board can break (docs/rules/annihilation.md,
"Rules a board can break") given as the reason for a board that breaks it, the true one where
two could apply, none where no single rule explains the board, and — over random play — every
reason given agrees with ``legal_moves`` and with the rule's own check."""

from __future__ import annotations

import json
import random
from pathlib import Path

from rules import Fidelity, Verdict, View, explain, get_game, why_not
from rules.games.annihilation import _geometry
from rules.games.annihilation_why import RULES, holds
from rules.why import attempt_of
from seeds import seed_text

GAME = get_game("annihilation")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules" / "annihilation"


def doc(name):
    return GAME.from_dict(json.loads((DOCS / f"{name}.json").read_text()))


def pos(board, to_move="white", **extra):
    return GAME.from_dict({"game": "annihilation", "to_move": to_move, "board": board, **extra})


def shown(state, moves=(), add=(), take=()):
    """The position's board with particles moved (point → point), added (space, token: a reserve
    gains it) and taken (space, token: from a reserve or a point)."""
    b = {s: list(t) for s, t in state.view(Fidelity.KIND).items()}
    for a, z in moves:
        token = b.pop(a)[0]
        b.setdefault(z, []).append(token)
    for s, t in take:
        b[s].remove(t)
    for s, t in add:
        b.setdefault(s, []).append(t)
    return View({s: t for s, t in b.items() if t})


def reason(state, view, fidelity=Fidelity.KIND):
    assert explain(state, view, fidelity).verdict is Verdict.ILLEGAL
    return why_not(state, view, fidelity).reason


def texts(state):
    return {state.move_text(m) for m in state.legal_moves()}


# -- the rules, listed with the seed's words ----------------------------------------------------------


def test_every_rule_is_listed_in_the_docs():
    listed = (DOCS.parent / "annihilation.md").read_text(encoding="utf-8")
    listed = " ".join(listed[listed.index("## Rules a board can break"):].split())
    for rule in RULES.values():
        assert f"`{rule.id}`" in listed and rule.quote in listed, rule.id


def test_every_rule_quotes_the_seed():
    seed = " ".join(seed_text("annihilation").split())
    for rule in RULES.values():
        assert rule.quote in seed and f"-{rule.section}-" in seed, rule.id


# -- a position per rule ---------------------------------------------------------------------------------


def test_self_emission_distance():
    s = doc("rule6-lone")  # White's 1 alone on d4
    r = reason(s, shown(s, [("d4", "f6")]))
    assert r.rule.id == "self-emission-distance" and r.rule.section == "RULE #3 SELF EMISSION"
    assert r.said.text == "White's 1 moved from d4 to f6: a self-emission travels exactly 1 along lines of force"


def test_special_exception_the_closest_carrier_steps_forwards():
    s = doc("rule6-lone")
    r = reason(s, shown(s, [("d4", "e5")]))  # one step, the right distance, towards Black's point of emergence
    assert r.rule.id == "special-exception" and r.rule.section == "RULE #6 THE SPECIAL EXCEPTION"
    assert r.said.text == ("every way for White's 1 from d4 to e5 steps towards Black's point of emergence while it "
                           "is White's carrier closest to it")


def test_collision_a_particle_in_the_way():
    s = pos({"d4": "W2", "d3": "B1"})
    r = reason(s, shown(s, [("d4", "d2")]))  # straight through d3's particle
    assert r.rule.id == "collision" and "without meeting a particle" in r.said.text


def test_annihilated_at_emergence():
    s = doc("score-at-black")
    assert "d4-f6>B" in texts(s)
    r = reason(s, shown(s, [("f6", "B"), ("d4", "f6")]))  # the 3 left standing on Black's point of emergence
    assert r.rule.id == "annihilated-at-emergence"
    assert r.said.text == ("White's 3 ended its motion on Black's point of emergence: it is annihilated there, flipped "
                           "into Black's ex nihilo zone")


def test_flip_annihilated():
    s = doc("annihilator")  # White's 2 on c3 meets Black's annihilator on d3: c3-d3x
    r = reason(s, shown(s, take=[("c3", "W2"), ("d3", "B0")], add=[("ex_white", "W2"), ("ex_black", "B0")]))
    assert r.rule.id == "flip-annihilated" and r.rule.section == "RULE #5 ANNIHILATION"
    assert "flipped over, it goes into" in r.said.text


def test_annihilator_collision():
    s = doc("annihilator")
    r = reason(s, shown(s, [("d3", "d4"), ("c3", "d3")]))  # the annihilator pushed on like a struck particle
    assert r.rule.id == "annihilator-collision"
    assert r.said.text == "White's 2 hit Black's annihilator at d3: both are annihilated"


def test_zero_force():
    s = pos({"d4": "W1", "c3": "B2"})
    r = reason(s, shown(s, [("c3", "b2"), ("d4", "c3")]))  # the 1 arrives with no force left
    assert r.rule.id == "zero-force"
    assert r.said.text == "White's 1 reached Black's 2 at c3 with no force left: both are annihilated"


def test_transference_force_one_force():
    s = pos({"d4": "W2", "c3": "B3"})
    r = reason(s, shown(s, [("c3", "a1"), ("d4", "c3")]))  # struck with 1, moved 2
    assert r.rule.id == "transference-force" and r.rule.section == "RULE #4 EMISSION TRANSFERENCE"
    assert r.said.text == ("Black's 3 struck at c3 moved to a1: it moves exactly 1 along one line of force, the force "
                           "it received")


def test_transference_force_several_forces():
    s = pos({"d4": "W3", "c3": "B2"})
    r = reason(s, shown(s, [("c3", "c6"), ("d4", "c3")]))  # struck with 2 or 1: never 3
    assert r.rule.id == "transference-force" and "exactly the force it received" in r.said.text


def test_self_emission_distance_to_strike():
    s = pos({"d4": "W1", "b2": "B2"})
    r = reason(s, shown(s, [("b2", "a1"), ("d4", "b2")]))
    assert r.rule.id == "self-emission-distance"
    assert r.said.text == "White's 1 on d4 cannot reach b2 with a self-emission of 1"


def test_introduction_force():
    s = pos({"W": "W5"})
    r = reason(s, shown(s, [("W", "d4")], take=[("ex_white", "W3")], add=[("W", "W3")]))
    assert r.rule.id == "introduction-force" and r.rule.section == "RULE #1 INTRODUCING CHARGE CARRIERS"
    assert r.said.text == ("White's 5 knocked from White's point of emergence to d4: it moves exactly 3 along a line "
                           "of force, the charge introduced")


def test_introduce_on_the_point_of_emergence_only():
    s = GAME.start()
    r = reason(s, shown(s, take=[("ex_white", "W3")], add=[("c3", "W3")]))
    assert r.rule.id == "introduce"
    assert r.said.text == "White's 3 was put on c3: a carrier enters play on White's own point of emergence"


def test_introduce_one_carrier_a_turn():
    s = GAME.start()
    r = reason(s, shown(s, take=[("ex_white", "W3"), ("ex_white", "W5")], add=[("W", "W3"), ("a1", "W5")]))
    assert r.rule.id == "introduce" and "took 2 carriers" in r.said.text


def test_emergence_by_transference():
    s = pos({"W": "W3"})
    r = reason(s, shown(s, [("W", "d4")]))  # no carrier of 4 in the reserve: nothing under way
    assert r.rule.id == "emergence-by-transference"


def test_annihilator_placement_not_on_a_point_of_emergence():
    s = GAME.start()
    r = reason(s, shown(s, take=[("ex_white", "W0")], add=[("W", "W0")]))
    assert r.rule.id == "annihilator-placement"


def test_annihilator_turn_is_the_whole_turn():
    s = doc("rule6-lone")
    r = reason(s, shown(s, [("d4", "c3")], take=[("ex_white", "W0")], add=[("e5", "W0")]))
    assert r.rule.id == "annihilator-turn"


def test_annihilators_stay():
    s = pos({"d4": "W0", "c3": "W1"})
    r = reason(s, shown(s, [("d4", "e4")]))
    assert r.rule.id == "annihilators-stay" and "no charge to move by" in r.said.text


def test_own_particles_from_the_opponents_ex_nihilo_zone():
    s = GAME.start()
    r = reason(s, shown(s, take=[("ex_black", "B3")], add=[("W", "B3")]))
    assert r.rule.id == "own-particles" and "taken from Black's ex nihilo zone" in r.said.text


def test_struck_only_the_opponents_particle_moved_by_itself():
    s = pos({"d4": "W1", "f4": "B2"})
    r = reason(s, shown(s, [("f4", "f2")]))
    assert r.rule.id == "struck-only" and r.said.text.startswith("Black's 2 on f4 moved by itself")


def test_game_over():
    s = pos({"d4": "W1"}, scores={"white": 20, "black": 3}, phase="over", winner="white")
    r = reason(s, shown(s, [("d4", "c3")]))
    assert r.rule.id == "game-over" and r.said.text == "the game is over: White has won"


# -- two rules could apply: the true one ---------------------------------------------------------------


def test_forwards_the_right_distance_is_rule_6_the_wrong_distance_is_not():
    s = doc("rule6-lone")
    assert reason(s, shown(s, [("d4", "e5")])).rule.id == "special-exception"
    assert reason(s, shown(s, [("d4", "f6")])).rule.id == "self-emission-distance"  # rule 6 need not be broken


def test_on_the_opponents_point_of_emergence_by_a_legal_chain_or_from_the_reserve():
    s = doc("score-at-black")
    assert reason(s, shown(s, [("f6", "B"), ("d4", "f6")])).rule.id == "annihilated-at-emergence"
    t = GAME.start()
    assert reason(t, shown(t, take=[("ex_white", "W3")], add=[("B", "W3")])).rule.id == "introduce"


def test_a_struck_particle_with_force_or_without():
    with_force = pos({"d4": "W2", "c3": "B3"})
    assert reason(with_force, shown(with_force, [("c3", "a1"), ("d4", "c3")])).rule.id == "transference-force"
    without = pos({"d4": "W1", "c3": "B3"})
    assert reason(without, shown(without, [("c3", "a1"), ("d4", "c3")])).rule.id == "zero-force"


# -- no single rule ---------------------------------------------------------------------------------------


def test_several_pieces_moved_no_rule():
    s = pos({"d4": "W1", "a3": "W2"})
    why = why_not(s, shown(s, [("d4", "c3"), ("a3", "b5")]), Fidelity.KIND)
    assert why.reason is None and why.several
    legal = shown(s, [("d4", "c3")])
    assert explain(s, legal).verdict is Verdict.LEGAL and why_not(s, legal, Fidelity.KIND).reason is None


def test_no_reason_at_occupancy():
    # A strike reads at occupancy as one particle moved (the struck point stays occupied, by the
    # striker): what was tried cannot be told, so no rule is said.
    s = pos({"d4": "W2", "c3": "B3"})
    v = shown(s, [("c3", "a1"), ("d4", "c3")]).at_fidelity(Fidelity.OCCUPANCY)
    assert explain(s, v, Fidelity.OCCUPANCY).verdict is Verdict.ILLEGAL
    why = why_not(s, v, Fidelity.OCCUPANCY)
    assert why.attempt.lifted == (("d4", "occupied"),) and why.reason is None


def test_a_carrier_with_a_twin_is_not_read_as_moved_alone():
    # The 1 on d4 to f4 — or the 1 on d4 striking its twin on e4, which moved on to f4?
    s = pos({"d4": "W1", "e4": "W1"})
    board = shown(s, [("d4", "f4")])
    assert explain(s, board).verdict is Verdict.ILLEGAL and why_not(s, board, Fidelity.KIND).reason is None
    lone = pos({"d4": "W1", "e4": "W2"})
    assert reason(lone, shown(lone, [("d4", "f4")])).rule.id == "self-emission-distance"


# -- random play: every reason agrees with legal_moves and its own check ------------------------------------

GEO = _geometry()


def walk_exists(start, end, steps, blocked):
    """A naive self-avoiding walk of exactly ``steps`` from ``start`` to ``end`` avoiding ``blocked``."""
    goal = GEO.index[end]

    def go(at, left, seen):
        if left == 0:
            return at == goal
        return any(go(v, left - 1, seen | {v}) for v in GEO.adj[at] if v not in seen and v not in blocked)
    return go(GEO.index[start], steps, {GEO.index[start]}) if start != end else False


def wrong_boards(s, rng):
    view = s.view(Fidelity.KIND)
    mine, pe = s.to_move[0].upper(), "W" if s.to_move == "white" else "B"
    on = {p: t[0] for p, t in view.items() if p in GEO.index}
    empty = [p for p in GEO.central if p not in on]
    for p, t in on.items():
        for z in rng.sample(empty, min(3, len(empty))):
            yield shown(s, [(p, z)])  # any particle, anywhere
        for c, u in on.items():
            if c != p and t[0] == mine:
                z = rng.choice(empty)
                yield shown(s, [(c, z), (p, c)])  # a strike, the struck particle anywhere
    for zone in ("ex_white", "ex_black"):
        for t in set(view.get_tokens(zone)):
            for z in rng.sample(empty + ["W", "B"], 3):
                yield shown(s, take=[(zone, t)], add=[(z, t)])
            if pe in on and t[1:] != "0" and empty:  # an introduction, the knocked particle anywhere
                yield shown(s, [(pe, rng.choice(empty))], take=[(zone, t)], add=[(pe, t)])
    for m in rng.sample(list(s.legal_moves()), min(4, len(s.legal_moves()))):
        after = s.successor(m).view(Fidelity.KIND)
        for zone, other in (("ex_white", "ex_black"), ("ex_black", "ex_white")):
            now, was = after.get_tokens(zone), view.get_tokens(zone)
            gained = [t for t in now if now.count(t) > was.count(t)]
            if gained:  # annihilated particles put back unflipped
                b = after.to_dict()
                b[zone] = list(b[zone])
                b[zone].remove(gained[0])
                b.setdefault(other, []).append(("B" if gained[0][0] == "W" else "W") + gained[0][1:])
                yield View(b)
        pts = [p for p in GEO.central if p in after and p not in on]
        if pts:
            b = after.to_dict()
            b[rng.choice([p for p in GEO.central if p not in b])] = b.pop(rng.choice(pts))
            yield View(b)  # a legal turn, then one particle moved on


def oracle(s, rule_id, attempt, view):
    """The named move is not among the legal turns, checked by their notation or naively."""
    moves = texts(s)
    lifted = dict(attempt.lifted)
    if rule_id in ("self-emission-distance", "special-exception", "collision") and len(attempt.lifted) == 1:
        (a, tok), = attempt.lifted
        (b, _), = attempt.placed
        charge = int(tok[1:])
        occupied = {GEO.index[p] for p, _ in s.particles} - {GEO.index[a]}
        if f"{a}-{b}" in moves:
            return False
        if rule_id == "self-emission-distance":
            return not walk_exists(a, b, charge, set())
        if rule_id == "special-exception":
            return walk_exists(a, b, charge, occupied)
        return not walk_exists(a, b, charge, occupied)
    if rule_id in ("transference-force", "zero-force", "annihilator-collision"):
        placed = dict(attempt.placed)
        readings = [(a, c) for a, t in attempt.lifted for c, u in attempt.placed if t == u and a != c and c in lifted]
        # the striker a took c: no legal turn strikes c from a and sends c's particle where the board shows it
        return readings and all(
            not any(m.startswith(f"{a}-{c}>") and m.endswith(placed.get(c, "?")) for m in moves)
            and (rule_id == "transference-force" or f"{a}-{c}x" in moves) for a, c in readings[:1])
    if rule_id == "introduction-force":
        charge = next(t for sp, t in attempt.lifted if sp.startswith("ex_"))[1:]
        pe = "W" if s.to_move == "white" else "B"
        return all(f"{charge}@{pe}>{d}" not in moves for d, _ in attempt.placed if d != pe)
    return True  # the rest: the board's own illegality (explain) is the oracle


def test_random_play_reasons_agree_with_legal_moves_and_their_own_check():
    rng = random.Random(31)
    given, ids = 0, set()
    for game in range(2):
        s = GAME.start()
        for ply in range(40):
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
                assert oracle(s, rid, why.attempt, view), (s.to_dict(), why.to_dict())
                given += 1
                ids.add(rid)
            # agreement the other way: no rule finds fault with a legal turn's board
            for m in rng.sample(list(s.legal_moves()), min(10, len(s.legal_moves()))):
                attempt = attempt_of(s, s.successor(m).view(Fidelity.KIND), Fidelity.KIND)
                assert not any(holds(s, attempt, rid) for rid in RULES), s.move_text(m)
            s = s.successor(rng.choice(s.legal_moves()))
    assert given > 100, given
    assert {"self-emission-distance", "special-exception", "introduce", "own-particles", "struck-only",
            "transference-force"} <= ids, ids


# -- said in French ------------------------------------------------------------------------------------------

ENGLISH = {"the", "and", "to", "on", "of", "from", "moved", "particle", "was", "it", "its", "by", "with", "every",
           "way", "annihilated", "annihilator", "carrier", "struck", "White", "Black", "emergence", "exactly"}


def test_every_reason_said_in_french():
    import ast
    import re

    from rules import P
    from rules.games import annihilation_why
    from tableref.i18n import catalog

    fr = catalog("fr")
    for rule in RULES.values():
        assert fr.untranslated(P(rule.quote)) == [] and fr.untranslated(P(rule.section)) == [], rule.id
    tree = ast.parse(Path(annihilation_why.__file__).read_text(encoding="utf-8"))
    templates = [n.args[0].value for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", None) == "P" and n.args and isinstance(n.args[0], ast.Constant)]
    assert len(templates) > 15
    for t in templates:
        assert fr.untranslated(P(t)) == [], t
    rng = random.Random(5)
    said = []
    for s in (doc("rule6-lone"), doc("score-at-black"), doc("annihilator"), pos({"d4": "W2", "c3": "B3"})):
        for view in wrong_boards(s, rng):
            if explain(s, view, Fidelity.KIND).verdict is Verdict.ILLEGAL:
                r = why_not(s, view, Fidelity.KIND).reason
                if r is not None:
                    said.append(r.said)
    assert len({p.msgid for p in said}) >= 6
    for p in said:
        text = fr.say(p)
        assert fr.untranslated(p) == [] and not set(re.findall(r"[A-Za-zÀ-ÿ]+", text)) & ENGLISH, text


def test_force_lost_is_no_wrong_distance():
    # The 5 on c2 stops on c3 against the 1 on d4, which cannot move (ruling R5): legal, so no
    # rule finds fault with it, though c3 is 1 from c2, not 5.
    ring = {"c4": "B1", "e4": "B2", "d5": "B3", "d3": "B5", "e5": "B8", "b2": "B1"}
    s = pos({"c2": "W5", "d4": "W1", **ring})
    board = shown(s, [("c2", "c3")])
    assert explain(s, board).verdict is Verdict.LEGAL
    attempt = attempt_of(s, board, Fidelity.KIND)
    assert not any(holds(s, attempt, rid) for rid in RULES)


def test_a_carrier_put_beside_its_twin_on_the_point_of_emergence_is_no_wrong_point():
    # The reserve's 1 on b2 while White's point of emergence holds a 1: it may as well have been
    # introduced there, knocking its twin on to b2 (2 points, with a force of 1) — not `introduce`.
    s = pos({"W": "W1"})
    board = shown(s, take=[("ex_white", "W1")], add=[("b2", "W1")])
    assert explain(s, board).verdict is Verdict.ILLEGAL
    assert not holds(s, attempt_of(s, board, Fidelity.KIND), "introduce")
    t = GAME.start()
    assert reason(t, shown(t, take=[("ex_white", "W1")], add=[("b2", "W1")])).rule.id == "introduce"
