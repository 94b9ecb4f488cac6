"""DRIFT: the attempt an illegal board shows, read as the DRIFT action the players most plausibly
meant (issue 31, item 2; the checks are ``drift_why.py``).

The frame's :class:`rules.why.Attempt` is tokens lifted and placed per space. A DRIFT action
moves more than one token: a piece with the coin it carries on edge, an attack (the attacker
in, the loser sent home), a coin taken up (``copper`` becomes ``carried:copper``), one dropped
on a repository (``repo-circle``), a river turned (its ``rotation:`` marker). :func:`readings`
turns the attempt into :class:`Try` values — one per piece the board may mean (look-alike
pieces of one colour and rank share a space only in a home pile: each is a reading).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..why import Attempt
from .drift_battle import RANK_OF
from .drift_geometry import COIN_TYPES, geometry

if TYPE_CHECKING:
    from .drift import DriftState

CARRIED = "carried:"
STEP, ATTACK, TAKE, DROP, DEPOSIT, PILFER, REMOVE, PLACE, TURN = (
    "step", "attack", "take", "drop", "deposit", "pilfer", "remove", "place", "turn")


@dataclass(frozen=True)
class Try:
    """One reading of the board: what the players tried, in the position's own numbers."""

    what: str  # one of the names above
    piece: int = -1
    start: int = -1  # where the piece was
    end: int = -1  # step: where it was put; attack: the space attacked; take/drop: its space
    coin: str = ""  # take, drop, deposit, pilfer, place: the coin; step: one taken up on arriving
    other: int = -1  # attack: the piece attacked
    put: int = -1  # attack: where the attacker was put (the space attacked, or beside it)
    sent: int = -2  # attack: where the loser was put (-1 lifted off, -2 left where it was)
    repo: int = -1  # deposit, pilfer: the seat whose repository
    removed: tuple[int, ...] = ()  # remove: the pieces lifted off
    rivers: tuple[tuple[int, int], ...] = ()  # turn: (river, the step its marker shows)
    coin_left: bool = True  # attack: the loser's coin (if it carried one) is shown lying where it was attacked


def _piece_kind(token: str) -> str | None:
    """``red-III`` for a piece token at kind (``red-III``) or identity (``red-III-1``)."""
    parts = token.split("-")
    if len(parts) in (2, 3) and parts[1] in RANK_OF and parts[0].isalpha():
        return f"{parts[0]}-{parts[1]}"
    return None


def _pieces(st: "DriftState", space: int, token: str) -> list[int]:
    """The pieces on ``space`` the token may be (an identity token names one)."""
    ro = st.roster
    kind = _piece_kind(token)
    return [q for q in st.occ.get(space, ()) if ro.ids[q] == token or (ro.kind[q] == token and kind == token)]


def readings(st: "DriftState", attempt: Attempt) -> tuple[Try, ...]:
    geo = geometry()
    index = geo.index
    rings = {r.rotation_space: k for k, r in enumerate(geo.rivers)}
    repos = {geo.repository[m]: seat for seat, m in enumerate(st.homes)}
    turned: list[tuple[int, int]] = []
    board_l: list[tuple[int, str]] = []
    board_p: list[tuple[int, str]] = []
    repo_l: list[tuple[int, str]] = []
    repo_p: list[tuple[int, str]] = []
    for side, where, on_repo in ((attempt.lifted, board_l, repo_l), (attempt.placed, board_p, repo_p)):
        for space, token in side:
            if space in rings:
                if side is attempt.placed:
                    if not token.isdigit():
                        return ()
                    turned.append((rings[space], int(token)))
            elif space in repos:
                on_repo.append((repos[space], token))
            elif space in index:
                where.append((index[space], token))
            else:
                return ()  # a repository of a home nobody plays, or no space of the board
    if turned or any(s in rings for s, _ in attempt.lifted):
        if board_l or board_p or repo_l or repo_p or not turned:
            return ()
        return (Try(TURN, rivers=tuple(sorted(turned))),)
    pl = [(s, t) for s, t in board_l if _piece_kind(t)]
    pp = [(s, t) for s, t in board_p if _piece_kind(t)]
    cl = [(s, t) for s, t in board_l if not _piece_kind(t)]
    cp = [(s, t) for s, t in board_p if not _piece_kind(t)]
    if not pl and not pp:
        return _coin_readings(st, cl, cp, repo_l, repo_p)
    if repo_l or repo_p:
        return ()
    if len(pl) == 1 and len(pp) == 1 and _piece_kind(pl[0][1]) == _piece_kind(pp[0][1]):
        return _one_piece(st, pl[0], pp[0], cl, cp)
    if len(pl) == 2 and len(pp) in (1, 2):
        return _attack(st, pl, pp, cp)
    if pl and not pp and not cp and all(s == pl[0][0] for s, _ in pl):
        return _removal(st, pl)
    return ()


def _coin_readings(st, cl, cp, repo_l, repo_p) -> tuple[Try, ...]:
    if not cl and not repo_l and not repo_p and len(cp) == 1 and cp[0][1] in COIN_TYPES:
        (space, coin), = cp
        return (Try(PLACE, end=space, coin=coin),)
    out: list[Try] = []
    if len(cl) == 1 and len(cp) == 1 and not repo_l and not repo_p:
        (a, was), (b, now) = cl[0], cp[0]
        # ``end``: where the coin lay (taken up) or was put (dropped); another space than the piece's
        # breaks "on any land space or river arrow it occupies"
        if was in COIN_TYPES and now == CARRIED + was:
            out += [Try(TAKE, q, b, a, coin=was) for q in st.occ.get(b, ())]
        elif now in COIN_TYPES and was == CARRIED + now:
            out += [Try(DROP, q, a, b, coin=now) for q in st.occ.get(a, ()) if st.carried[q] == now]
        return tuple(out)
    if len(cl) == 1 and not cp and len(repo_p) == 1 and not repo_l:
        (a, was), (seat, coin) = cl[0], repo_p[0]
        if was == CARRIED + coin:
            out += [Try(DEPOSIT, q, a, a, coin=coin, repo=seat) for q in st.occ.get(a, ()) if st.carried[q] == coin]
        return tuple(out)
    if len(cp) == 1 and not cl and len(repo_l) == 1 and not repo_p:
        (a, now), (seat, coin) = cp[0], repo_l[0]
        if now == CARRIED + coin:
            out += [Try(PILFER, q, a, a, coin=coin, repo=seat) for q in st.occ.get(a, ())]
        return tuple(out)
    return ()


def _one_piece(st, lifted, placed, cl, cp) -> tuple[Try, ...]:
    """One piece from ``a`` to ``b``: a step (its coin riding along, or one taken up on arriving),
    or an attack on a piece left standing on ``b``."""
    (a, token), (b, _) = lifted, placed
    if a == b:
        return ()
    cl_, cp_ = Counter(cl), Counter(cp)
    out: list[Try] = []
    for p in _pieces(st, a, token):
        coin = st.carried[p]
        left, put = Counter(cl_), Counter(cp_)
        if coin and left[(a, CARRIED + coin)] and put[(b, CARRIED + coin)]:
            left[(a, CARRIED + coin)] -= 1  # its coin rode along on edge
            put[(b, CARRIED + coin)] -= 1
        left, put = +left, +put
        taken = ""
        if not coin and len(left) == 1 and len(put) == 1:
            (s, t), (s2, t2) = next(iter(left)), next(iter(put))
            if s == s2 == b and t in COIN_TYPES and t2 == CARRIED + t:
                taken, left, put = t, Counter(), Counter()
        if left or put:
            continue
        there = st.occ.get(b, ())
        owner = st.roster.owner
        if there and all(owner[q] != owner[p] for q in there):
            if len(there) == 1 and not taken:
                out.append(Try(ATTACK, p, a, b, other=there[0], put=b, sent=-2))
            continue
        out.append(Try(STEP, p, a, b, coin=taken))
    return tuple(out)


def _attack(st, pl, pp, cp) -> tuple[Try, ...]:
    """Two pieces lifted: an attacker moved in (or beside) and the piece attacked put elsewhere
    (or lifted off). Coins carried or dropped in the battle do not change which attack it is."""
    owner = st.roster.owner
    out: list[Try] = []
    for (a, at), (t, dt) in (tuple(pl), tuple(reversed(pl))):
        if a == t:
            continue
        for p in _pieces(st, a, at):
            for q in _pieces(st, t, dt):
                if owner[p] == owner[q]:
                    continue
                mine = [s for s, tok in pp if _piece_kind(tok) == _piece_kind(at)]
                theirs = [s for s, tok in pp if _piece_kind(tok) == _piece_kind(dt)]
                if _piece_kind(at) == _piece_kind(dt) or len(mine) != 1 or len(theirs) > 1:
                    continue
                sent = theirs[0] if theirs else -1
                # Beside the target, the attacker was meant to attack only if the loser was sent home.
                if mine[0] == t or sent == st.home_list[owner[q]]:
                    left = not st.carried[q] or (t, st.carried[q]) in cp
                    out.append(Try(ATTACK, p, a, t, other=q, put=mine[0], sent=sent, coin_left=left))
    return tuple(out)


def _removal(st, pl) -> tuple[Try, ...]:
    home = pl[0][0]
    chosen: list[int] = []
    for _, token in pl:
        free = [q for q in _pieces(st, home, token) if q not in chosen]
        if not free:
            return ()
        chosen.append(free[0])  # look-alikes leave one position (D20): any of them will do
    return (Try(REMOVE, removed=tuple(sorted(chosen)), start=home),)
