"""DRIFT, why not (issue 31, item 2): a position per rule a board can break (docs/rules/drift.md,
"Rules a board can break"), two and three players, where that rule is the reason; positions where
two rules could apply give the true one; several pieces moved give none; and over random play
every reason names a move that is illegal by that rule's own check, which agrees with
legal_moves."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rules import Fidelity, P, Verdict, View, explain, get_game, why_not
from rules.games.drift_geometry import geometry
from rules.games.drift_moves import ATTACK, DRIFT, END
from rules.games.drift_why import CARRIED_OUT, RULES, broken, faults, is_legal
from seeds import seed_text

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules" / "drift"
GAME = get_game("drift")
GEO = geometry()
TWO = [{"colour": "red", "home": "circle"}, {"colour": "blue", "home": "square"}]
THREE = TWO + [{"colour": "green", "home": "hexagon"}]


def doc(name):
    return GAME.from_dict(json.loads((DOCS / f"{name}.json").read_text()))


def position(pieces, to_move="blue", players=TWO, carrying=None, coins=None, repos=None, turn=None, **extra):
    """A position with the coins nobody placed lying on O18 (coins are conserved; in the setup,
    less those still to place)."""
    n = len(players)
    coins = {k: list(v) for k, v in (coins or {}).items()}
    used = [*(carrying or {}).values(), *(t for r in (repos or {}).values() for t in r),
            *(t for v in coins.values() for t in v)]
    unplaced = extra.get("to_place", {})
    spare = [t for t in ("copper", "gold", "silver") for _ in range(n - used.count(t) - unplaced.get(t, 0))]
    if spare:
        coins.setdefault("O18", []).extend(spare)
    data = {"game": "drift", "players": players, "to_move": to_move, "pieces": pieces,
            "carrying": carrying or {}, "coins": coins,
            "repositories": {p["colour"]: (repos or {}).get(p["colour"], []) for p in players},
            "turn": turn or {"moved": [], "current": None, "points": 0}, **extra}
    return GAME.from_dict(data)


def turn(moved=(), current=None, points=0, **more):
    return {"moved": list(moved), "current": current, "points": points, **more}


def shown(state, *changes, fidelity=Fidelity.KIND):
    """The board after each ``(from, to, token)``: a token lifted from ``from`` (None: from the
    box) and put on ``to`` (None: off the board)."""
    v = {s: list(t) for s, t in state.view(fidelity).to_dict().items()}
    for a, b, token in changes:
        if a is not None:
            v[a].remove(token)
        if b is not None:
            v.setdefault(b, []).append(token)
    return View({s: tuple(sorted(t)) for s, t in v.items() if t})


def why(state, *changes, fidelity=Fidelity.KIND):
    view = shown(state, *changes, fidelity=fidelity)
    assert explain(state, view, fidelity).verdict is Verdict.ILLEGAL
    return why_not(state, view, fidelity)


def reason(state, *changes, fidelity=Fidelity.KIND):
    return why(state, *changes, fidelity=fidelity).reason


def rule_of(state, *changes, fidelity=Fidelity.KIND):
    r = reason(state, *changes, fidelity=fidelity)
    return None if r is None else r.rule.id


def said(state, *changes):
    r = reason(state, *changes)
    assert r is not None
    return r.rule.id, r.said.text



# -- a position per rule ---------------------------------------------------------------------------
# Two players: Red (circle, home O0) and Blue (square, home O8), Blue to move and the round's last;
# three: Green (hexagon, home O16) after Blue, Red to move.

RED_TURN = {"red-III-1": "O3", "blue-II-1": "O10", "green-II-1": "O18"}
CROWD = {"red-III-1": "O0", "red-II-1": "O0", "red-I-1": "O0", "blue-II-1": "O10", "green-II-1": "O18"}


def setup(to_place, lying=None):
    return position({}, to_move="red", phase="setup", coins=lying or {}, to_place=to_place)


CASES = [
    # (rule, position, the board's changes, the reason said)
    ("game-over", lambda: position({"red-III-1": "O3", "blue-II-1": "O10"}, phase="over",
                                   repos={"red": ["copper", "gold", "silver"]}),
     [("O10", "O11", "blue-II")], "the game is over: Red has one coin of each type"),
    ("coin-count", lambda: setup({"copper": 0, "gold": 2, "silver": 2}, {"O2": ["copper"], "O6": ["copper"]}),
     [(None, "O10", "copper")], "a copper coin too many: each player places one coin of each type"),
    ("coin-not-home-or-river", lambda: setup({"copper": 2, "gold": 2, "silver": 2}),
     [(None, "OR5", "copper")], "a copper coin may not be placed on OR5: no coin goes on a home or in a river"),
    ("coin-not-home-or-river", lambda: setup({"copper": 2, "gold": 2, "silver": 2}),
     [(None, "O4", "copper")], "a copper coin may not be placed on O4: no coin goes on a home or in a river"),
    ("coin-ring", lambda: setup({"copper": 2, "gold": 2, "silver": 2}),
     [(None, "O5", "gold")], "a gold coin goes in the middle land ring, not on O5"),
    ("coin-space", lambda: setup({"copper": 1, "gold": 2, "silver": 2}, {"O5": ["copper"]}),
     [(None, "O5", "copper")], "O5 already holds a coin"),
    ("drift-phase", lambda: position({"red-III-1": "O3", "blue-II-1": "O10"}, to_move="red", phase="drift"),
     [("O3", "O4", "red-III")], "it is the DRIFT phase: the rivers turn before any piece moves"),
    ("drift-phase", lambda: position({"red-III-1": "O3", "blue-II-1": "O10"}),  # Blue's turn ends the round
     [("O3", "O4", "red-III")], "it is the DRIFT phase: the rivers turn before any piece moves"),
    ("in-turn", lambda: position(RED_TURN, to_move="red", players=THREE),
     [("O18", "O19", "green-II")], "it is Red's turn, not Green's"),
    ("exodus", lambda: position(CROWD, to_move="red", players=THREE),
     [("O10", "O11", "blue-II")], "Red must first move all but one of its pieces out of its home O0"),
    ("exodus-strand", lambda: position(CROWD, to_move="red", players=THREE),
     [("O0", "O1", "red-I")], "Red I-1 may not move yet: it would keep pieces in the crowded home O0 that can still "
                              "get out"),
    ("removal-barred", lambda: position(CROWD, to_move="red", players=THREE),
     [("O0", None, "red-II"), ("O0", None, "red-I")],
     "pieces leave play only when they cannot get out of the crowded home O0"),
    ("removal-order", lambda: doc("exodus-barred"), [("O0", None, "red-I"), ("O0", None, "red-I")],
     "the pieces that cannot get out leave play in order of rank, the highest first: not Red I-1"),
    ("moved-once", lambda: position({"blue-III-1": "O10", "blue-II-1": "O12", "red-II-1": "O2"},
                                    turn=turn(["blue-III-1", "blue-II-1"], "blue-II-1", 1)),
     [("O10", "O9", "blue-III")], "Blue III-1 has moved this turn, and another piece has moved since"),
    ("rank-order", lambda: position({"blue-III-1": "O10", "blue-I-1": "O14", "red-II-1": "O2"},
                                    turn=turn(["blue-I-1"], "blue-I-1", 0)),
     [("O10", "O9", "blue-III")],
     "Blue III-1 may not move after a piece of lower rank: pieces move by rank, III, then II, then I"),
    ("river-ends", lambda: position({"blue-III-1": "MR8", "red-II-1": "O2"}, turn=turn(["blue-III-1"], "blue-III-1", 0)),
     [("MR8", "O12", "blue-III")], "Blue III-1 entered the middle river this turn: its move is over"),
    ("river-ends", lambda: position({"blue-III-1": "O10", "red-II-1": "O2"}),
     [("O10", "M7", "blue-III")], "Blue III-1 cannot get from O10 to M7 without going on after entering a river"),
    ("own-home", lambda: position({"blue-III-1": "O8", "blue-II-1": "O10", "red-II-1": "O2"}),
     [("O10", "O8", "blue-II")], "Blue II-1 may not enter its home O8: another of its pieces is there"),
    ("share", lambda: position({"blue-III-1": "O11", "blue-I-1": "O13", "red-II-1": "O2"}),
     [("O13", "O11", "blue-I")], "O11 is taken by Blue III-1: no two pieces share a space"),
    ("carrier-home", lambda: position({"blue-I-1": "O1", "red-II-1": "O3"}, carrying={"blue-I-1": "gold"}),
     [("O1", "O0", "blue-I"), ("O1", "O0", "carried:gold")], "Blue I-1 carries a gold coin: it may not enter Red's home O0"),
    ("carrier-own-home", lambda: position({"blue-I-1": "O9", "red-II-1": "O3"}, carrying={"blue-I-1": "gold"},
                                          repos={"blue": ["gold"]}),
     [("O9", "O8", "blue-I"), ("O9", "O8", "carried:gold")],
     "Blue I-1 carries a gold coin, a type already on its repository: it may not enter its home O8"),
    ("river-point", lambda: position({"blue-I-1": "O13", "red-II-1": "O2"}),
     [("O13", "OR14", "blue-I")], "Blue I-1 would reach the river at OR14 with no movement point left"),
    ("points", lambda: position({"blue-III-1": "O10", "red-II-1": "O2"}),
     [("O10", "O14", "blue-III")], "Blue III-1 moves at 3: it cannot get from O10 to O14"),
    ("points", lambda: position({"blue-III-1": "O11", "red-II-1": "O2"}, turn=turn(["blue-III-1"], "blue-III-1", 1)),
     [("O11", "O13", "blue-III")], "Blue III-1 has 1 movement point left: it cannot get from O11 to O13"),
    ("river-along", lambda: doc("river-exit"), [("IR5", "IR4", "blue-II")],
     "Blue II-1 left the inner river in this move: only the DRIFT moves a piece along a river"),
    ("occupied", lambda: position({"blue-III-1": "O10", "blue-II-1": "O11", "red-II-1": "O2"}),
     [("O10", "O12", "blue-III")], "Blue III-1 cannot get from O10 to O12 without passing through an occupied space"),
    ("coin-carrier", lambda: position({"blue-II-1": "O13", "red-II-1": "O2"}, coins={"O13": ["copper"]}),
     [("O13", None, "copper"), (None, "O13", "carried:copper")],
     "Blue II-1 may not pick up or carry a coin: only a I may"),
    ("one-coin", lambda: position({"blue-I-1": "O13", "red-II-1": "O2"}, coins={"O13": ["copper"]},
                                  carrying={"blue-I-1": "gold"}),
     [("O13", None, "copper"), (None, "O13", "carried:copper")],
     "Blue I-1 already carries a gold coin: a I carries one coin at a time"),
    ("coin-move", lambda: position({"blue-I-1": "O12", "red-II-1": "O2"}, coins={"O13": ["copper"]}),
     [("O12", "O13", "blue-I"), ("O13", None, "copper"), (None, "O13", "carried:copper")],
     "Blue I-1 has moved this turn: taking up or dropping a coin is a I's whole move"),
    ("coin-here", lambda: position({"blue-I-1": "O12", "red-II-1": "O2"}, coins={"O13": ["copper"]}),
     [("O13", None, "copper"), (None, "O12", "carried:copper")],
     "Blue I-1 on O12 may take up a coin only on its own space, not on O13"),
    ("coin-here", lambda: position({"blue-I-1": "O12", "red-II-1": "O2"}, carrying={"blue-I-1": "gold"}),
     [("O12", None, "carried:gold"), (None, "O13", "gold")],
     "Blue I-1 on O12 may drop its coin only on its own space, not on O13"),
    ("pilfer", lambda: position({"blue-I-1": "O8", "red-II-1": "O2"}, repos={"blue": ["gold"]}),
     [("repo-square", None, "gold"), (None, "O8", "carried:gold")],
     "Blue I-1 may take a coin only from the repository of another player's home it stands in alone"),
    ("pilfer", lambda: position({"blue-I-1": "O1", "red-II-1": "O2"}, repos={"red": ["gold"]}),
     [("repo-circle", None, "gold"), (None, "O1", "carried:gold")],
     "Blue I-1 may take a coin only from the repository of another player's home it stands in alone"),
    ("deposit-home", lambda: position({"blue-I-1": "O9", "red-II-1": "O2"}, carrying={"blue-I-1": "gold"}),
     [("O9", None, "carried:gold"), (None, "repo-square", "gold")],
     "the gold coin goes on a repository only when a I drops it in its own home"),
    ("deposit-repository", lambda: position({"blue-I-1": "O8", "red-II-1": "O2"}, carrying={"blue-I-1": "gold"}),
     [("O8", None, "carried:gold"), (None, "O8", "gold")],
     "Blue I-1 deposits the gold coin in its home: it goes on the repository"),
    ("deposit-once", lambda: position({"blue-I-1": "O8", "red-II-1": "O2"}, carrying={"blue-I-1": "gold"},
                                      repos={"blue": ["gold"]}),
     [("O8", None, "carried:gold"), (None, "repo-square", "gold")],
     "Blue's repository already holds a gold coin: one coin of each type"),
    ("carrier-attack", lambda: position({"blue-I-1": "O11", "blue-III-1": "O13", "red-I-1": "O12"},
                                        carrying={"blue-I-1": "gold"}),
     [("O11", "O12", "blue-I"), ("O11", "O12", "carried:gold"), ("O12", "O0", "red-I")],
     "Blue I-1 carries a gold coin: a I carrying a coin may not attack"),
    ("attack-point", lambda: position({"blue-II-1": "O9", "red-I-1": "O12"}),
     [("O9", "O12", "blue-II"), ("O12", "O0", "red-I")], "Blue II-1 has no movement point left next to O12 to attack from"),
    ("attack-advantage", lambda: position({"blue-II-1": "O10", "red-III-1": "O12"}),
     [("O10", "O12", "blue-II"), ("O12", "O0", "red-III")],
     "Blue II-1 attacks Red III-1 at O12: 2 vs 3: an attack needs at least a one-point advantage"),
    ("attack-advantage", lambda: doc("repository-defence"), [("O2", "O0", "blue-III")],
     "Blue III-1 attacks Red II-1 at O0: 3+2+1 vs 2+9: an attack needs at least a one-point advantage"),
    ("winner-moves-in", lambda: position({"blue-III-1": "O10", "red-I-1": "O12"}),
     [("O10", "O11", "blue-III"), ("O12", "O0", "red-I")], "Blue III-1 wins the attack on O12: it moves into O12, not O11"),
    ("loser-coin", lambda: position({"blue-III-1": "O10", "red-I-1": "O12"}, carrying={"red-I-1": "silver"}),
     [("O10", "O12", "blue-III"), ("O12", "O0", "red-I"), ("O12", "O0", "carried:silver")],
     "Red I-1 loses the battle carrying the silver coin: the coin is dropped on O12"),
    ("loser-home", lambda: position({"blue-III-1": "O10", "red-I-1": "O12"}),
     [("O10", "O12", "blue-III"), ("O12", "O3", "red-I")], "Red I-1 loses the battle: it goes home to O0"),
]


@pytest.mark.parametrize("rule, make, changes, words", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_position_per_rule(rule, make, changes, words):
    r = reason(make(), *changes)
    assert r is not None and (r.rule.id, r.said.text) == (rule, words)
    assert r.rule == RULES[rule] and r.rule.game == "drift"


def identity(state, changes):
    """The same changes with each piece named by its tag, as an identity sensor reads it."""
    ro, used, out = state.roster, set(), []
    for a, b, token in changes:
        if a is not None and token.count("-") == 1 and not token.startswith("carried:"):
            token = next(ro.ids[q] for q in state.occ[GEO.index[a]] if ro.kind[q] == token and q not in used)
            used.add(ro.index[token])
        out.append((a, b, token))
    return out


@pytest.mark.parametrize("rule, make, changes, words", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_position_per_rule_at_identity_fidelity(rule, make, changes, words):
    s = make()
    r = reason(s, *identity(s, changes), fidelity=Fidelity.IDENTITY)
    assert r is not None and (r.rule.id, r.said.text) == (rule, words)


def test_every_rule_has_a_position():
    assert {c[0] for c in CASES} | {"drift-turn", "drift-when"} == set(RULES)


def turned(state, river, step):
    space = GEO.rivers[("outer", "middle", "inner").index(river)].rotation_space
    return (space, None, state.view(Fidelity.KIND).get_tokens(space)[0]), (None, space, str(step))


def test_drift_turn_a_river_turned_the_wrong_way_or_too_far():
    d = position({"red-III-1": "O3", "blue-II-1": "O10"}, to_move="red", phase="drift")
    r = reason(d, *turned(d, "outer", 23))
    assert (r.rule.id, r.rule.section) == ("drift-turn", "Rivers")
    assert r.said.text == "the outer river is turned the wrong way or too far: in the DRIFT phase it turns one arrow clockwise"
    assert rule_of(d, *turned(d, "middle", 2)) == "drift-turn"
    # the round's last player (Blue) may end it with the drift: its wrong drift is judged as one
    s = position({"red-III-1": "O3", "blue-II-1": "O10"})
    assert rule_of(s, *turned(s, "inner", 11)) == "drift-turn"


def test_drift_when_the_rivers_turned_mid_round():
    s = position(RED_TURN, to_move="red", players=THREE)
    r = reason(s, *turned(s, "outer", 1))
    assert (r.rule.id, r.said.text) == ("drift-when", "the rivers turn only in the DRIFT phase, at the end of the round")


def test_sections_and_words_are_the_seeds():
    headings = {"Setup", "Turn Sequence", "Movement", "Player Pieces", "Rivers", "Home Spaces", "Attacking",
                "Repositories", "Winning the Game"}
    for rule in RULES.values():
        assert rule.section in headings
    seed = " ".join(seed_text("drift").split())
    for rule in RULES.values():
        assert rule.quote in seed, rule.id  # word for word (the seed's columns and line breaks as spaces)


def test_every_rule_is_listed_in_the_docs():
    doc_text = (ROOT / "docs" / "rules" / "drift.md").read_text()
    listed = doc_text.split("## Rules a board can break")[1]
    for rule in RULES.values():
        assert f"`{rule.id}`" in listed, rule.id
        assert " ".join(rule.quote.split()) in " ".join(listed.split()), rule.id


def test_identity_fidelity_names_the_piece():
    s = position({"blue-III-1": "O10", "blue-III-2": "O20", "red-II-1": "O2"})
    assert rule_of(s, ("O10", "O14", "blue-III-1"), fidelity=Fidelity.IDENTITY) == "points"
    assert rule_of(s, ("O20", "O21", "blue-III-2"), ("O10", "O14", "blue-III-1"), fidelity=Fidelity.IDENTITY) is None


# -- two rules could apply: the true one -----------------------------------------------------------


def test_too_far_and_through_a_piece_is_too_far():
    s = position({"blue-I-1": "O13", "blue-II-1": "O12", "red-II-1": "O2"})
    assert rule_of(s, ("O13", "O11", "blue-I")) == "points"  # 2 away for a I: the piece between is beside the point


def test_in_reach_but_through_a_piece_is_occupied_not_too_far():
    s = position({"blue-III-1": "O10", "blue-II-1": "O11", "red-II-1": "O2"})
    assert rule_of(s, ("O10", "O12", "blue-III")) == "occupied"


def test_an_arrow_one_point_too_far_is_the_river_point_two_too_far_is_points():
    s = position({"blue-I-1": "O13", "red-II-1": "O2"})
    assert rule_of(s, ("O13", "OR14", "blue-I")) == "river-point"
    assert rule_of(s, ("O13", "MR11", "blue-I")) == "points"


def test_the_next_players_move_when_the_turn_may_end_is_judged_as_that_move():
    s = position(RED_TURN, to_move="red", players=THREE)
    assert rule_of(s, ("O10", "O14", "blue-II")) == "points"  # not "in-turn": Red's turn ends first
    assert rule_of(s, ("O18", "O19", "green-II")) == "in-turn"  # Green is not next


def test_a_losing_attack_carried_out_beside_is_the_advantage_not_the_winner_moving_in():
    s = position({"blue-II-1": "O10", "red-III-1": "O12"})
    assert rule_of(s, ("O10", "O11", "blue-II"), ("O12", "O0", "red-III")) == "attack-advantage"


def test_a_coin_taken_on_a_walk_too_far_is_the_walk():
    s = position({"blue-I-1": "O11", "red-II-1": "O2"}, coins={"O13": ["copper"]})
    assert rule_of(s, ("O11", "O13", "blue-I"), ("O13", None, "copper"), (None, "O13", "carried:copper")) == "points"


def test_a_coin_taken_from_a_repository_across_the_board_is_pilfering_wrong():
    # Blue I-1 stands alone in Green's home, whose repository has a gold too: taking Red's is not it.
    s = position({"blue-I-1": "O16", "red-III-1": "O3", "green-II-1": "O18"}, to_move="blue", players=THREE,
                 repos={"red": ["gold"], "green": ["gold"]})
    assert any(s.move_text(m) == "blue-I-1 pilfer gold" for m in s.legal_moves())
    assert rule_of(s, ("repo-circle", None, "gold"), (None, "O16", "carried:gold")) == "pilfer"


# -- no single rule ---------------------------------------------------------------------------------


def test_pieces_lifted_off_another_players_home_give_no_rule():
    # Green's pieces lifted off its home on Red's turn: no crowded home of the mover's, no rule
    s = position({"red-III-1": "O3", "blue-II-1": "O10", "green-II-1": "O16", "green-I-1": "O16"}, to_move="red",
                 players=THREE)
    assert reason(s, ("O16", None, "green-I")) is None


def test_several_pieces_moved_give_no_rule():
    s = position({"blue-III-1": "O10", "blue-II-1": "O12", "blue-I-1": "O14", "red-II-1": "O2"})
    w = why(s, ("O10", "O9", "blue-III"), ("O12", "O17", "blue-II"))  # the II's own step is too far
    assert w.reason is None and w.several
    w = why(s, ("O10", "O9", "blue-III"), ("O12", "O13", "blue-II"), ("O14", "O15", "blue-I"))
    assert w.reason is None and w.several


def test_a_piece_that_moves_legally_beside_one_that_does_not_gives_no_rule():
    s = position({"blue-III-1": "O10", "red-II-1": "O2"}, coins={"O13": ["copper"]})
    assert why(s, ("O10", "O11", "blue-III"), ("O13", "O14", "copper")).reason is None


# -- over random play: every reason names a move illegal by that rule's own check -----------------


def _tokens(state):
    return {s: list(t) for s, t in state.view(Fidelity.KIND).to_dict().items()}


def _view(v):
    return View({s: tuple(sorted(t)) for s, t in v.items() if t})


def _move_piece(v, state, p, to):
    """The kind board ``v`` with piece ``p`` (and the coin it carries) lifted and put on ``to``."""
    ro, here = state.roster, GEO.ids[state.locs[p]]
    v[here].remove(ro.kind[p])
    v.setdefault(to, []).append(ro.kind[p])
    if state.carried[p]:
        v[here].remove("carried:" + state.carried[p])
        v[to].append("carried:" + state.carried[p])


def wrong_boards(state, rng, count):
    """Boards one action (rightly or wrongly done) away from ``state``: a piece of anyone put on
    any space (a step, or an attack on a piece left standing), a legal attack carried out wrong,
    a coin taken up, dropped, deposited or pilfered by any piece, pieces lifted off a home, a
    river turned by any amount."""
    ro = state.roster
    spaces = list(GEO.ids)
    if state.stage == "setup":  # a coin of any type put on any space
        return [_view({**_tokens(state), **{sp: _tokens(state).get(sp, []) + [c]}})
                for sp, c in ((rng.choice(spaces), rng.choice(("copper", "gold", "silver"))) for _ in range(count))]
    pieces = [p for p, s in enumerate(state.locs) if s >= 0]
    attacks = [m for m in state.legal_moves() if m.kind == ATTACK]
    out = []
    for _ in range(count):
        v = _tokens(state)
        roll = rng.random()
        p = rng.choice(pieces)
        here = GEO.ids[state.locs[p]]
        if roll < 0.45:
            _move_piece(v, state, p, rng.choice([s for s in spaces if s != here]))
            if rng.random() < 0.15 and not state.carried[p]:
                to = next(s for s, t in v.items() if ro.kind[p] in t and s != here)
                coins = [t for t in v[to] if t in ("copper", "gold", "silver")]
                if coins:
                    v[to].remove(coins[0])
                    v[to].append("carried:" + coins[0])
        elif roll < 0.6 and attacks:
            m = rng.choice(attacks)
            after = state.successor(m)
            v = _tokens(after)
            q = state.occ[m.space][0]
            if rng.random() < 0.5:  # the attacker beside the space it attacked
                beside = [GEO.ids[u] for u in after.adj[m.space] if u not in after.occ]
                _move_piece(v, after, m.piece, rng.choice(beside or [here]))
            elif after.locs[q] >= 0:  # the loser somewhere else
                home = GEO.ids[after.locs[q]]
                v[home].remove(ro.kind[q])
                v.setdefault(rng.choice(spaces), []).append(ro.kind[q])
        elif roll < 0.8:
            coins = [t for t in v.get(here, []) if t in ("copper", "gold", "silver")]
            repos = [(GEO.repository[mk], c) for mk, r in zip(state.homes, state.repos) for c in r]
            if state.carried[p]:
                v[here].remove("carried:" + state.carried[p])
                if rng.random() < 0.5:
                    v[here].append(state.carried[p])
                else:
                    v.setdefault(GEO.repository[rng.choice(state.homes)], []).append(state.carried[p])
            elif coins and rng.random() < 0.7:
                v[here].remove(coins[0])
                v[here].append("carried:" + coins[0])
            elif repos:
                repo, c = rng.choice(repos)
                v[repo].remove(c)
                v[here].append("carried:" + c)
        elif roll < 0.9:
            home = GEO.ids[state.home_list[state.seat]]
            mine = [t for t in v.get(home, []) if t.startswith(state.to_move + "-")]
            for t in rng.sample(mine, rng.randint(1, len(mine))) if mine else ():
                v[home].remove(t)
        else:
            river = rng.choice(GEO.rivers)
            v[river.rotation_space] = [str((int(v[river.rotation_space][0]) + rng.randint(1, 3)) % river.size)]
        out.append(_view(v))
    return out


def check_reason(state, view):
    """Every reading's fault is true of the move it names: illegal, and broken by that rule's own
    check (a legal move carried out wrong: legal, and its board is not the one shown)."""
    w = why_not(state, view, Fidelity.KIND)
    if w.reason is None:
        return None
    found = faults(state, w.attempt)
    assert found and all(f is not None and f.rule == w.reason.rule.id for f in found)
    for f in found:
        if f.move is None:
            if f.rule == "drift-turn":
                assert f.state.stage == "drift" and not any(m.kind == DRIFT and f.state.successor(m).view(
                    Fidelity.KIND) == view for m in f.state.legal_moves())
            elif f.rule == "drift-when":
                assert f.state.stage == "play" and not any(m.kind == DRIFT for m in f.state.legal_moves())
            continue
        if f.rule in CARRIED_OUT:
            legal = next(m for m in f.state.legal_moves() if is_legal(f.state, f.move) and m.kind == f.move.kind
                         and (m.piece, m.space, m.coin) == (f.move.piece, f.move.space, f.move.coin))
            assert f.state.successor(legal).view(Fidelity.KIND) != view
        else:
            assert not is_legal(f.state, f.move), (f.rule, f.move)
            assert broken(f.state, f.rule, f.move), (f.rule, f.move)
    return w.reason.rule.id


def playout_states(players, seed, plies, setup=False):
    rng = random.Random(seed)
    s = (GAME.start if setup else GAME.default_setup)({"players": players})
    out = []
    for _ in range(plies):
        moves = s.legal_moves()
        if not moves:
            break
        out.append(s)
        # prefer piece actions to ends, so that turns are under way (points, moved pieces, rivers)
        acts = [m for m in moves if m.kind not in (END, DRIFT)] if rng.random() < 0.85 else []
        s = s.successor(rng.choice(acts or list(moves)))
    return out, rng


@pytest.mark.parametrize("players, seed, setup", [("red:circle,blue:square", 1, False),
                                                  ("red:circle,blue:square,green:hexagon", 2, True),
                                                  ("red:circle,blue:triangle,green:pentagon,yellow:star", 3, False)])
def test_every_reason_over_random_play_is_true_of_the_move_it_names(players, seed, setup):
    states, rng = playout_states(players, seed, 90, setup)
    seen = {}
    for s in states[::3]:
        for view in wrong_boards(s, rng, 8):
            if explain(s, view, Fidelity.KIND).verdict is not Verdict.ILLEGAL:
                continue
            rule = check_reason(s, view)
            seen[rule] = seen.get(rule, 0) + 1
    given = sum(n for r, n in seen.items() if r is not None)
    assert given >= 40 and len([r for r in seen if r]) >= 8, seen


MOVE_RULES = [r for r in RULES if r not in CARRIED_OUT and r not in ("drift-turn", "drift-when")]


@pytest.mark.parametrize("players, seed", [("red:circle,blue:square", 4), ("red:circle,blue:square,green:hexagon", 5)])
def test_no_rule_is_broken_by_a_legal_move(players, seed):
    """The other half of agreeing with legal_moves: a rule's check never holds of a legal move."""
    states, rng = playout_states(players, seed, 120, setup=seed % 2 == 1)
    checked = 0
    for s in states[::2]:
        moves = list(s.legal_moves())
        for m in rng.sample(moves, min(6, len(moves))):
            judged = s._ended(()) if m.after_end else s  # the next player's move: the turn ends first
            for rule in MOVE_RULES:
                assert not broken(judged, rule, m.inner()), (rule, s.move_text(m))
            checked += 1
    assert checked > 200


def test_every_reason_and_rule_said_in_french():
    from tableref.i18n import catalog  # the catalogs are tableref's: rules/ imports nothing of it

    fr = catalog("fr")
    said = [reason(make(), *changes).said for _, make, changes, _ in CASES]
    d = position({"red-III-1": "O3", "blue-II-1": "O10"}, to_move="red", phase="drift")
    said.append(reason(d, *turned(d, "middle", 2)).said)
    s = position(RED_TURN, to_move="red", players=THREE)
    said.append(reason(s, *turned(s, "outer", 1)).said)
    s = position({"blue-I-1": "O13", "red-II-1": "O2"}, turn=turn(["blue-I-1"], "blue-I-1", 0))
    said.append(reason(s, ("O13", "O14", "blue-I")).said)  # no point left this turn
    for phrase in said:
        assert fr.untranslated(phrase) == [], phrase.text
        assert fr.say(phrase) != phrase.text
    for rule in RULES.values():
        assert fr._(rule.quote) != rule.quote and fr._(rule.section) != rule.section, rule.id
    for ring in ("outer", "middle", "inner"):
        assert fr.untranslated(P(f"the {ring} land ring")) == []
