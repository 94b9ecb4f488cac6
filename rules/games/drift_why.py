"""DRIFT: why a board is not a legal move (issue 31, item 2; the frame is ``rules/why.py``).

The board is read as the action the players most plausibly meant (``drift_why_read.py``: a
step, an attack, a coin taken up, dropped, deposited or pilfered, pieces lifted off a crowded
home, a coin placed in the setup, the rivers turned), and the rules are checked in the order a
person thinks of them: is it the game's time for that (the setup, the drift phase), whose turn,
may that piece move now (rank order, once per turn), where it may go (the space itself, then
the way there), the coin, the battle. A rule is named only when it is certainly what is wrong:
a way there is blamed on one rule only when dropping that rule alone opens it
(:func:`reach` with ``drop``), and a move is "too far" only when no way of that length exists
even with every other rule dropped. Each check (:func:`broken`) is a predicate of the position
and the move it names; the tests hold it against ``legal_moves``. The rules, with the seed's
words, are listed in ``docs/rules/drift.md`` ("Rules a board can break").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ..phrase import P, Phrase
from ..why import Attempt, Reason, Rule
from .drift_battle import Battle, battle
from .drift_exodus import crowd_at_home
from .drift_geometry import COIN_RING, COIN_TYPES, geometry
from .drift_moves import END, Action, _coin_moves, _paths_and_attacks
from .drift_why_text import said
from .drift_why_read import ATTACK, DEPOSIT, DROP, PILFER, PLACE, REMOVE, STEP, TAKE, TURN, Try, readings

if TYPE_CHECKING:
    from .drift import DriftState

_MOVE = "Movement"
_ATTACK = "Attacking"
_HOMES = "Home Spaces"


def _rule(id_: str, section: str, quote: str) -> Rule:
    return Rule("drift", id_, section, quote)


_BARRED = ("If a player is unable to move all but one of their pieces from a home space by the end of their turn "
           "because the surrounding spaces are barred by other pieces, including their own, those pieces are "
           "permanently removed from play for the remainder of the game.")
_PLACES = ("Each player randomly places one of each type DRIFT coin on a land space within the three separate land "
           "rings.")

# In the order they are checked.
RULES: dict[str, Rule] = {r.id: r for r in (
    _rule("game-over", "Winning the Game", "The first player to get one of each type of DRIFT coin to their home "
          "repository wins the game."),
    _rule("coin-count", "Setup", _PLACES),
    _rule("coin-not-home-or-river", "Setup", "Coins may NOT be placed on the six largest riverbank spaces in the "
          "outer land ring or in any of the three rivers."),
    _rule("coin-ring", "Setup", "Copper coins in the outer land ring, gold coins in the middle land ring, silver "
          "coins in the inner land ring."),
    _rule("coin-space", "Setup", _PLACES),
    _rule("drift-turn", "Rivers", "To accomplish this, the chosen player would simply rotate each of the three "
          "rivers one full arrow length in the direction of that rivers flow."),
    _rule("drift-phase", "Turn Sequence", "At the end of each movement round, and before the beginning of the "
          "following round, there is a DRIFT phase."),
    _rule("drift-when", "Rivers", "The DRIFT phase happens at the end of each complete round of movement and before "
          "the beginning of the next round of movement."),
    _rule("exodus", _MOVE, "It is not required to move player pieces unless those pieces are in the home space at "
          "the beginning of the movement turn and there is more than one piece in that space."),
    _rule("in-turn", "Turn Sequence", "Game play continues clockwise in this order for the remainder of the game."),
    _rule("removal-barred", _MOVE, _BARRED),
    _rule("removal-order", _MOVE, "When this occurs, a player must remove pieces in order of rank until it becomes "
          "possible to leave only one piece at the end of their turn."),
    _rule("river-ends", "Rivers", "Any piece that enters a river must immediately end its turn regardless of "
          "whether it has used all of its movement ability."),
    _rule("moved-once", _MOVE, "Once a player has moved a piece, and then moved their next ranked piece, the "
          "previous piece may not be moved again in the same turn."),
    _rule("rank-order", _MOVE, "Each player in turn, moves all their pieces by rank"),
    _rule("coin-carrier", _MOVE, "A (I) is the only piece capable of picking up and carrying a DRIFT coin."),
    _rule("one-coin", _MOVE, "A (I) may carry only a single coin at a time."),
    _rule("coin-move", _MOVE, "This must be done in the movement turn and is considered its one-point move. This "
          "means that once a (I) has picked up or dropped a DRIFT coin, its movement for that turn would be complete."),
    _rule("coin-here", _MOVE, "A (I) may pick up or drop a DRIFT coin on any land space or river arrow it occupies."),
    _rule("pilfer", _MOVE, "A (I) may take a DRIFT coin from the repository of another player's unoccupied home "
          "space."),
    _rule("deposit-home", "Repositories", "When a player deposits a DRIFT coin in their home space it is placed on "
          "edge atop their repository"),
    _rule("deposit-repository", _HOMES, "All coins are placed on a player's repository when being deposited in a "
          "home space."),
    _rule("deposit-once", _HOMES, "Only one of each type coin may be deposited."),
    _rule("own-home", _MOVE, "A player may not move any of their pieces into their own home space if it is already "
          "occupied by any of their other pieces."),
    _rule("share", _MOVE, "No piece may share a space with any other player piece at the end of the movement turn."),
    _rule("carrier-home", _HOMES, "A (I) that is carrying a DRIFT coin may NOT enter another player's home space "
          "even if it is unoccupied."),
    _rule("carrier-own-home", _HOMES, "A (I) that is carrying a DRIFT coin may NOT enter its own home space with a "
          "coin type it has already deposited."),
    _rule("points", "Player Pieces", "All pieces have specific numerical values that represent their movement "
          "ability, attack value, defense value and coin carrying ability: Moves at a 3 Moves at a 2 Moves at a 1"),
    _rule("river-point", "Rivers", "A player piece must have at least one movement point left in order to enter a "
          "river."),
    _rule("river-along", "Rivers", "River arrows are NOT land spaces. Player pieces may not move around or through "
          "a river in the movement phase of play."),
    _rule("occupied", _MOVE, "Pieces may move into or through any adjacent unoccupied space, including an "
          "unoccupied home space with a coin repository."),
    _rule("carrier-attack", _ATTACK, "A (I) that is carrying a DRIFT coin may not perform an attack or be counted "
          "toward any attack totals."),
    _rule("attack-point", _ATTACK, "A piece initiating an attack must have at least one movement point left in "
          "order to perform that attack."),
    _rule("attack-advantage", _ATTACK, "An attacking player must have at least a one-point advantage to perform "
          "and win an attack."),
    _rule("winner-moves-in", _ATTACK, "After winning an attack, the attacking piece must immediately move into and "
          "finish its turn in the space which it attacked."),
    _rule("loser-home", _ATTACK, "The defeated player's piece is removed to its home space."),
    _rule("loser-coin", _MOVE, "If a (I) that is carrying a DRIFT coin is defeated in battle, it is removed to its home "
          "space and the DRIFT coin it was carrying is dropped on the space where the piece was attacked."),
    _rule("exodus-strand", _MOVE, _BARRED),
)}

# The movement rules a way may break: each one dropped alone in reach().
WAYS = ("river-ends", "river-along", "carrier-home", "carrier-own-home", "occupied")


class Fault(NamedTuple):
    rule: str
    said: Phrase
    state: "DriftState"  # the position the move is judged in (the next player's: after the turn ends)
    move: Action | None  # the move the reason names (None: a river turned, no move of its own)


# -- the way a piece may go, with rules dropped ----------------------------------------------------


def points_of(st: "DriftState", p: int) -> int:
    return st.points if p == st.current else st.roster.rank[p]


def reach(st: "DriftState", p: int, pts: int, drop: frozenset[str] = frozenset()) -> dict[int, int]:
    """Each space piece ``p`` may stop on with ``pts`` points, and the fewest points it takes,
    as the move generator (``drift_moves._paths_and_attacks``) with the rules in ``drop``
    dropped (``WAYS``). Going on after a river (``river-ends`` dropped) still leaves that river
    behind: entering it again is another rule."""
    geo = geometry()
    river_of = geo.river_of
    me, here = st.roster.owner[p], st.locs[p]
    own = st.home_list[me]
    barred = {h for h in st.barred_to(me, st.carried[p])
              if ("carrier-own-home" if h == own else "carrier-home") not in drop}
    along = "river-along" in drop
    left = river_of[here] if river_of[here] >= 0 else (st.left_river if p == st.current else -1)
    start = (here, 0 if along or left < 0 else 1 << left)
    seen, frontier, best = {start}, [start], {}
    for d in range(1, pts + 1):
        nxt = []
        for u, mask in frontier:
            for v in st.adj[u]:
                r = river_of[v]
                if v == here or v in barred or (r >= 0 and mask >> r & 1):
                    continue
                taken = v in st.occ
                if taken and "occupied" not in drop:
                    continue
                if not taken:
                    best.setdefault(v, d)
                if r >= 0 and "river-ends" not in drop:
                    continue  # entering a river ends the move (D6)
                key = (v, mask if r < 0 or along else mask | 1 << r)
                if key not in seen:
                    seen.add(key)
                    nxt.append(key)
        frontier = nxt
    return best


def way_rule(st: "DriftState", p: int, pts: int, goal) -> str | None:
    """``points`` if no way meets ``goal`` (a test of the reach) even with every way rule
    dropped; the one way rule whose dropping alone meets it; else ``None``."""
    if not goal(reach(st, p, pts, frozenset(WAYS))):
        return "points"
    if goal(reach(st, p, pts)):
        return None
    alone = [r for r in WAYS if goal(reach(st, p, pts, frozenset({r})))]
    return alone[0] if len(alone) == 1 else None


def launches(st: "DriftState", p: int, target: int, drop: frozenset[str] = frozenset()) -> list[int]:
    """The spaces next to ``target`` from which ``p`` may start an attack: its own, or land it
    reaches with a point left (D9)."""
    pts = points_of(st, p)
    river_of = geometry().river_of
    ways = {st.locs[p]: 0, **{v: d for v, d in reach(st, p, pts, drop).items() if river_of[v] < 0}}
    return [u for u, d in ways.items() if d < pts and target in st.adj[u]]


def best_battle(st: "DriftState", p: int, target: int, at: list[int]) -> Battle | None:
    geo = geometry()
    fights = [battle(st.roster, st.adj, geo.river_of, st.occ, st.carried, st.home_list, p, target, u) for u in at]
    return max(fights, key=lambda b: b.attack_total - b.defence_total, default=None)


# -- the checks ------------------------------------------------------------------------------------


def _same(a: Action, b: Action) -> bool:
    return (a.kind, a.piece, a.space, a.coin, a.removed) == (b.kind, b.piece, b.space, b.coin, b.removed)


def is_legal(st: "DriftState", m: Action) -> bool:
    """``m`` is a legal move here, for any path cost, or as the next player's (the turn ending first)."""
    return any(_same(m, x) for x in st.legal_moves())


def _unfiltered(st: "DriftState", p: int) -> list[Action]:
    """The piece's moves before the crowded home's exodus keeps some back (D5)."""
    loc, ro = st.locs[p], st.roster
    out = _coin_moves(st, p, loc) if ro.rank[p] == 1 and p not in st.moved else []
    return out + _paths_and_attacks(st, p, loc, points_of(st, p))


def _owner(st: "DriftState", m: Action) -> int:
    return st.seat if m.kind == END else st.roster.owner[m.piece]


def _ends(st: "DriftState") -> list[Action]:
    return [m for m in st.legal_moves() if m.kind == END and not m.after_end]


def _walk_rule(st: "DriftState", m: Action) -> str | None:
    p = m.piece
    return way_rule(st, p, points_of(st, p), lambda r: m.space in r)


def _attack_way(st: "DriftState", p: int, target: int) -> bool:
    """No launch with a point left, even with every way rule dropped — or none but with its
    last point spent on the way."""
    if not launches(st, p, target, frozenset(WAYS)):
        return True
    pts, here = points_of(st, p), st.locs[p]
    near = {here: 0, **reach(st, p, pts)}
    return not launches(st, p, target) and any(d == pts and target in st.adj[u] for u, d in near.items()
                                               if geometry().river_of[u] < 0 or u == here)


def broken(st: "DriftState", rule: str, m: Action) -> bool:
    """Whether ``m`` (a move of this position, not necessarily legal) breaks ``rule`` by that
    rule's own check. Only rules of moves; a river turned is judged by :func:`turn_fault`."""
    geo, ro = geometry(), st.roster
    kind = m.kind
    if rule == "game-over":
        return st.winner() is not None
    if rule in ("coin-count", "coin-not-home-or-river", "coin-ring", "coin-space"):
        if kind != PLACE or st.stage != "setup":
            return False
        s = m.space
        return {"coin-count": lambda: st.to_place[COIN_TYPES.index(m.coin)] == 0,
                "coin-not-home-or-river": lambda: s in geo.home_spaces or geo.river_of[s] >= 0,
                "coin-ring": lambda: s not in geo.land_rings[COIN_RING[m.coin]],
                "coin-space": lambda: any(x == s for x, _ in st.lying)}[rule]()
    if rule == "drift-phase":
        return st.stage == "drift" and kind != "drift"
    if st.stage != "play" or kind == PLACE:
        return False
    owner = _owner(st, m)
    nxt = (st.seat + 1) % len(st.players)
    if rule == "in-turn":
        return owner not in (st.seat, nxt)
    if rule == "exodus":
        return owner == nxt and owner != st.seat and not _ends(st)
    if owner != st.seat:
        return False
    if kind == END:
        lifts = [e for e in _ends(st) if e.removed]
        if rule == "removal-barred":
            return bool(m.removed) and not lifts
        if rule == "removal-order":
            ranks = sorted(ro.rank[q] for q in m.removed)
            return bool(lifts) and not is_legal(st, m) and all(
                len(e.removed) == len(m.removed) and sorted(ro.rank[q] for q in e.removed) != ranks for e in lifts)
        return False
    p = m.piece
    here, pts = st.locs[p], points_of(st, p)
    spent = p == st.current and st.points <= 0
    if rule == "river-ends" and spent and geo.river_of[here] >= 0:
        return True  # it entered a river this turn (D6)
    if rule == "moved-once":
        return p in st.moved and p != st.current
    if rule == "rank-order":
        return p not in st.moved and ro.rank[p] > min((ro.rank[q] for q in st.moved), default=4)
    coin_action = kind in (TAKE, PILFER, DROP)
    if rule == "coin-carrier":
        return kind in (TAKE, PILFER) and ro.rank[p] != 1
    if rule == "one-coin":
        return kind in (TAKE, PILFER) and bool(st.carried[p])
    if rule == "coin-move":
        return coin_action and p in st.moved
    if rule == "pilfer":
        owner_here = st.home_owner.get(here)
        return kind == PILFER and (owner_here is None or owner_here == st.seat or st.occ[here] != (p,)
                                   or m.coin not in st.repos[owner_here])
    if rule == "exodus-strand":
        return (len(crowd_at_home(st)) > 1 and not is_legal(st, m)
                and any(_same(m, x) for x in _unfiltered(st, p)))
    if coin_action:
        return False
    there = st.occ.get(m.space, ())
    own_home = st.home_list[st.seat]
    if kind == "step":
        if rule == "own-home":
            return m.space == own_home and any(ro.owner[q] == st.seat for q in there)
        if rule == "share":
            return bool(there) and m.space != own_home
        if rule in ("carrier-home", "carrier-own-home") and m.space in st.barred_to(st.seat, st.carried[p]):
            return (m.space == own_home) == (rule == "carrier-own-home")
        if there or m.space in st.barred_to(st.seat, st.carried[p]):
            return False
        if spent and ro.rank[p] > 1:
            return False  # spent on a walk or on a won attack: the board does not say which
        found = _walk_rule(st, m)
        if rule == "river-point":
            return found == "points" and geo.river_of[m.space] >= 0 and m.space in reach(st, p, pts + 1)
        return found == rule
    # an attack
    target = m.space
    if len(there) != 1 or ro.owner[there[0]] == st.seat:
        return False
    if rule == "carrier-attack":
        return bool(st.carried[p])
    if st.carried[p]:
        return False
    left = geo.river_of[here] if geo.river_of[here] >= 0 else (st.left_river if p == st.current else -1)
    if rule == "river-along":
        return left >= 0 and geo.river_of[target] == left
    if left >= 0 and geo.river_of[target] == left:
        return False
    if rule == "attack-point":
        return _attack_way(st, p, target)
    if rule == "attack-advantage":
        at = launches(st, p, target)
        b = best_battle(st, p, target, at)
        return b is not None and not b.wins
    return False


# Per kind of move, the rules a move of that kind may break, in the order a person checks them.
_ORDER = {
    "place": ("game-over", "coin-count", "coin-not-home-or-river", "coin-ring", "coin-space"),
    # river-ends: a piece that entered a river this turn, or a way only going on after a river
    # opens (way_rule names one way rule at most, so its place among them does not matter).
    "step": ("game-over", "drift-phase", "in-turn", "exodus", "moved-once", "rank-order", "river-ends", "own-home",
             "share", "carrier-home", "carrier-own-home", "river-point", "points", "river-along", "occupied",
             "exodus-strand"),
    "attack": ("game-over", "drift-phase", "in-turn", "exodus", "moved-once", "rank-order", "river-ends",
               "carrier-attack", "river-along", "attack-point", "attack-advantage", "exodus-strand"),
    "coin": ("game-over", "drift-phase", "in-turn", "exodus", "coin-carrier", "one-coin", "coin-move", "pilfer",
             "exodus-strand"),
    "end": ("game-over", "drift-phase", "removal-barred", "removal-order"),
}


def first_broken(st: "DriftState", m: Action) -> str | None:
    """The first rule, in a person's order, that ``m`` breaks by its own check (``None``: it
    is legal, or no single rule says why)."""
    if is_legal(st, m):
        return None
    group = m.kind if m.kind in _ORDER else ("coin" if m.kind in (TAKE, PILFER, DROP) else "end")
    for rule in _ORDER[group]:
        if broken(st, rule, m):
            return rule
    return None


# -- the attempt, judged -----------------------------------------------------------------------------

# Rules of a legal move carried out wrong on the board: the move is in legal_moves, and what the
# board shows is not where its successor puts the pieces or the coin.
CARRIED_OUT = ("winner-moves-in", "loser-home", "loser-coin", "deposit-home", "deposit-repository", "deposit-once")


def _action(t: Try) -> Action | None:
    if t.what in (STEP, ATTACK):
        return Action(t.what, t.piece, t.end)
    if t.what in (TAKE, DROP, PILFER):
        return Action(t.what, t.piece, t.start, t.coin)
    if t.what == DEPOSIT:
        return Action(DROP, t.piece, t.start, t.coin)
    if t.what == REMOVE:
        return Action(END, removed=t.removed)
    if t.what == PLACE:
        return Action(PLACE, space=t.end, coin=t.coin)
    return None


def fault(st: "DriftState", t: Try) -> Fault | None:
    """The rule the reading ``t`` breaks, and the move it names; ``None`` when no single rule
    certainly says why."""
    if t.what == TURN:
        return turn_fault(st, t)
    m = _action(t)
    if m is None:
        return None
    if t.what == REMOVE and (t.start != st.home_list[st.seat] or any(st.roster.owner[q] != st.seat for q in t.removed)):
        return None  # only the mover's crowded home has pieces leave play (D5)
    owner = _owner(st, m)
    if st.stage == "play" and owner != st.seat and owner == (st.seat + 1) % len(st.players) \
            and Action(END) in _ends(st):
        return fault(st._ended(()), t)  # the next player's piece moved: the turn ends first (D19)
    rule = first_broken(st, m)
    if t.what == PILFER and st.home_owner.get(t.start) != t.repo and rule in (None, "pilfer"):
        # taken from the repository of a home it is not in: no move of the generator says that
        return Fault("pilfer", said(st, "pilfer", m), st, None)
    if t.what in (TAKE, DROP) and t.end != t.start and rule in (None, "pilfer", "exodus-strand"):
        # a coin taken up from, or dropped on, another space than the piece's: nor that
        return Fault("coin-here", said(st, "coin-here", m, t), st, None)
    if rule is not None:
        return Fault(rule, said(st, rule, m), st, m)
    if t.what == STEP and t.coin and is_legal(st, m):
        after = st.successor(next(x for x in st.legal_moves() if _same(m, x)))
        take = Action(TAKE, t.piece, t.end, t.coin)
        rule = first_broken(after, take)  # walked, then took up the coin it reached
        return None if rule is None else Fault(rule, said(after, rule, take), after, take)
    if not is_legal(st, m):
        return None
    rule = carried_out(st, t, m)
    return None if rule is None else Fault(rule, said(st, rule, m, t), st, m)


def carried_out(st: "DriftState", t: Try, m: Action) -> str | None:
    """A legal move done wrong on the board: which of its parts (``CARRIED_OUT``)."""
    if t.what == ATTACK:
        after = st.successor(next(x for x in st.legal_moves() if _same(m, x)))
        if t.put != t.end:
            return "winner-moves-in"
        if t.sent != -2 and after.locs[t.other] != t.sent:
            return "loser-home"
        return None if t.coin_left else "loser-coin"
    p, ro = t.piece, st.roster
    own = st.home_list[ro.owner[p]]
    if t.what == DEPOSIT:
        if t.repo != ro.owner[p] or t.start != own:
            return "deposit-home"
        return "deposit-once" if t.coin in st.repos[t.repo] else None
    if t.what == DROP and t.start == own and t.coin not in st.repos[ro.owner[p]]:
        return "deposit-repository"
    return None


def turn_fault(st: "DriftState", t: Try) -> Fault | None:
    """Rivers turned: in the drift phase, one the wrong way or too far; in play, out of time."""
    geo = geometry()
    if st.winner() is not None:
        return Fault("game-over", said(st, "game-over", None), st, None)
    if st.stage == "drift":
        for k, shown in t.rivers:
            river, rot = geo.rivers[k], st.rots[k]
            if shown not in (rot, (rot + 1) % river.size):
                return Fault("drift-turn", P("the {river} river is turned the wrong way or too far: in the DRIFT "
                                             "phase it turns one arrow {flow}", river=P(river.name),
                                             flow=P(river.flow)), st, None)
        return None
    if st.stage != "play":
        return None
    ends = _ends(st)
    if Action(END) in ends:
        after = st._ended(())
        if after.stage == "drift":
            return turn_fault(after, t)  # the round's last turn ends with the drift
    elif not ends and st.seat == len(st.players) - 1:
        return Fault("exodus", said(st, "exodus", None), st, None)
    return Fault("drift-when", P("the rivers turn only in the DRIFT phase, at the end of the round"), st, None)


def faults(st: "DriftState", attempt: Attempt) -> list[Fault | None]:
    """One per reading of the attempt (empty: the board shows no single DRIFT action)."""
    return [fault(st, t) for t in readings(st, attempt)]


def why_illegal(st: "DriftState", attempt: Attempt) -> Reason | None:
    found = faults(st, attempt)
    if not found or any(f is None for f in found):
        return None  # one reading breaks no single rule: no reason is certainly true
    # Look-alike pieces in a home pile are readings apart: a rule only if every one breaks it.
    if len({f.rule for f in found}) > 1:
        return None
    return Reason(RULES[found[0].rule], found[0].said)


__all__ = ["RULES", "CARRIED_OUT", "WAYS", "Fault", "broken", "carried_out", "fault", "faults", "first_broken",
           "is_legal", "reach", "turn_fault", "why_illegal"]
