"""DRIFT, why not: the attempt and the rule it breaks said in the game's words (issue 31, item 2;
the checks are ``drift_why.py``). Each sentence is a ``rules.phrase.P`` English template that the
catalogs translate (``tableref/i18n``): a piece as ``Red II-1``, spaces by their ids, coins with
their article ("a gold coin"), rivers by ring ("the outer river")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..phrase import P, Phrase
from .drift_geometry import COIN_RING, geometry
from .drift_moves import END, PLACE, TAKE, Action

if TYPE_CHECKING:
    from .drift import DriftState
    from .drift_why_read import Try


def _player(colour: str) -> Phrase:
    return P(colour.capitalize())


def _coin(article: str, coin: str) -> Phrase:
    return P(f"{article} {coin} coin")  # one message per article and type, as drift_text


def said(st: "DriftState", rule: str, m: Action | None, t: Try | None = None) -> Phrase:
    """The move in the game's words, and why that rule forbids it."""
    geo, ro = geometry(), st.roster
    ids = geo.ids
    if rule == "game-over":
        return P("the game is over: {player} has one coin of each type", player=_player(st.winner() or st.to_move))
    if rule == "exodus":
        home = st.home_list[st.seat]
        return P("{player} must first move all but one of its pieces out of its home {space}",
                 player=_player(st.to_move), space=ids[home])
    if m is None:
        raise ValueError(f"drift: rule {rule!r} names a move")
    if m.kind == PLACE:
        coin, space = _coin("a", m.coin), ids[m.space]
        return {
            "coin-count": lambda: P("{coin} too many: each player places one coin of each type", coin=coin),
            "coin-not-home-or-river": lambda: P("{coin} may not be placed on {space}: no coin goes on a home or in "
                                                "a river", coin=coin, space=space),
            "coin-ring": lambda: P("{coin} goes in {ring}, not on {space}", coin=coin, space=space,
                                   ring=P(f"the {COIN_RING[m.coin]} land ring")),
            "coin-space": lambda: P("{space} already holds a coin", space=space),
        }[rule]()
    if m.kind == END:
        home = ids[st.home_list[st.seat]]
        if rule == "removal-barred":
            return P("pieces leave play only when they cannot get out of the crowded home {space}", space=home)
        low = min(m.removed, key=lambda q: ro.rank[q])
        return P("the pieces that cannot get out leave play in order of rank, the highest first: not {piece}",
                 piece=ro.label_phrase(low))
    p = m.piece
    piece, here = ro.label_phrase(p), ids[st.locs[p]]
    end = ids[m.space] if m.space >= 0 else here
    if rule == "drift-phase":
        return P("it is the DRIFT phase: the rivers turn before any piece moves")
    if rule == "in-turn":
        return P("it is {player}'s turn, not {other}'s", player=_player(st.to_move),
                 other=_player(st.players[ro.owner[p]]))
    if rule == "moved-once":
        return P("{piece} has moved this turn, and another piece has moved since", piece=piece)
    if rule == "rank-order":
        return P("{piece} may not move after a piece of lower rank: pieces move by rank, III, then II, then I",
                 piece=piece)
    if rule == "river-ends":
        if p == st.current and st.points <= 0:
            return P("{piece} entered the {river} river this turn: its move is over", piece=piece,
                     river=P(geo.rivers[geo.river_of[st.locs[p]]].name))
        return P("{piece} cannot get from {start} to {end} without going on after entering a river", piece=piece,
                 start=here, end=end)
    if rule == "own-home":
        return P("{piece} may not enter its home {end}: another of its pieces is there", piece=piece, end=end)
    if rule == "share":
        return P("{end} is taken by {other}: no two pieces share a space", end=end,
                 other=ro.label_phrase(st.occ[m.space][0]))
    if rule in ("carrier-home", "carrier-own-home", "carrier-attack"):
        coin = _coin("a", st.carried[p])
        if rule == "carrier-attack":
            return P("{piece} carries {coin}: a I carrying a coin may not attack", piece=piece, coin=coin)
        if m.space not in st.barred_to(st.seat, st.carried[p]):
            return P("{piece} carries {coin}: it cannot get from {start} to {end} without entering a home it may "
                     "not enter", piece=piece, coin=coin, start=here, end=end)
        if rule == "carrier-home":
            return P("{piece} carries {coin}: it may not enter {player}'s home {end}", piece=piece, coin=coin,
                     player=_player(st.players[st.home_owner[m.space]]), end=end)
        return P("{piece} carries {coin}, a type already on its repository: it may not enter its home {end}",
                 piece=piece, coin=coin, end=end)
    if rule == "river-point":
        return P("{piece} would reach the river at {end} with no movement point left", piece=piece, end=end)
    if rule == "points":
        if p == st.current and st.points <= 0:
            return P("{piece} has no movement point left this turn", piece=piece)
        if p == st.current:
            return P("{piece} has {n} movement point left: it cannot get from {start} to {end}",
                     "{piece} has {n} movement points left: it cannot get from {start} to {end}", piece=piece,
                     n=st.points, start=here, end=end)
        return P("{piece} moves at {n}: it cannot get from {start} to {end}", piece=piece, n=ro.rank[p],
                 start=here, end=end)
    if rule == "river-along":
        return P("{piece} left the {river} river in this move: only the DRIFT moves a piece along a river",
                 piece=piece, river=P(geo.rivers[geo.river_of[m.space]].name))
    if rule == "occupied":
        return P("{piece} cannot get from {start} to {end} without passing through an occupied space", piece=piece,
                 start=here, end=end)
    if rule == "exodus-strand":
        return P("{piece} may not move yet: it would keep pieces in the crowded home {space} that can still get out",
                 piece=piece, space=ids[st.home_list[st.seat]])
    if rule == "coin-here":
        if m.kind == TAKE:
            return P("{piece} on {start} may take up a coin only on its own space, not on {end}", piece=piece,
                     start=here, end=ids[t.end])
        return P("{piece} on {start} may drop its coin only on its own space, not on {end}", piece=piece, start=here,
                 end=ids[t.end])
    if rule in ("coin-carrier", "one-coin", "coin-move", "pilfer"):
        return {
            "coin-carrier": lambda: P("{piece} may not pick up or carry a coin: only a I may", piece=piece),
            "one-coin": lambda: P("{piece} already carries {coin}: a I carries one coin at a time", piece=piece,
                                  coin=_coin("a", st.carried[p])),
            "coin-move": lambda: P("{piece} has moved this turn: taking up or dropping a coin is a I's whole move",
                                   piece=piece),
            "pilfer": lambda: P("{piece} may take a coin only from the repository of another player's home it "
                                "stands in alone", piece=piece),
        }[rule]()
    other = st.occ[m.space][0] if m.space in st.occ else -1
    if rule == "attack-point":
        return P("{piece} has no movement point left next to {space} to attack from", piece=piece, space=end)
    if rule == "attack-advantage":
        from .drift_why import best_battle, launches  # that module imports this one

        b = best_battle(st, p, m.space, launches(st, p, m.space))
        return P("{piece} attacks {other} at {space}: {sums}: an attack needs at least a one-point advantage",
                 piece=piece, other=ro.label_phrase(other), space=end, sums=b.sums_phrase())
    if rule == "winner-moves-in":
        return P("{piece} wins the attack on {space}: it moves into {space}, not {put}", piece=piece, space=end,
                 put=ids[t.put])
    if rule == "loser-coin":
        return P("{other} loses the battle carrying {coin}: the coin is dropped on {space}", other=ro.label_phrase(other),
                 coin=_coin("the", st.carried[other]), space=end)
    if rule == "loser-home":
        home = st.home_list[ro.owner[other]]
        if home == m.space:
            return P("{other} is defeated in its own home: it leaves play", other=ro.label_phrase(other))
        return P("{other} loses the battle: it goes home to {space}", other=ro.label_phrase(other), space=ids[home])
    coin = _coin("the", m.coin)
    if rule == "deposit-home":
        return P("{coin} goes on a repository only when a I drops it in its own home", coin=coin)
    if rule == "deposit-repository":
        return P("{piece} deposits {coin} in its home: it goes on the repository", piece=piece, coin=coin)
    if rule == "deposit-once":
        return P("{player}'s repository already holds {coin}: one coin of each type", player=_player(st.to_move),
                 coin=_coin("a", m.coin))
    raise ValueError(f"drift: no rule {rule!r}")
