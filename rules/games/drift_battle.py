"""DRIFT pieces and battles: who owns which piece, attack and defence totals, and sending the
loser home with the chain of evictions it sets off (``docs/rules/drift.md``, D9–D14).

Functions here read a position through a few plain values (piece locations, carried coins,
the adjacency of the current river rotations) so that move generation and ``successor`` share
one account of a battle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from ..phrase import P, Phrase

ROMAN = {3: "III", 2: "II", 1: "I"}
RANK_OF = {v: k for k, v in ROMAN.items()}
REPOSITORY_DEFENCE = 9  # "All repositories have a defense value of nine"


@dataclass(frozen=True)
class Roster:
    """The pieces of a game: for each player (in seat order) its III pieces, then II, then I."""

    players: tuple[str, ...]
    ranks: tuple[int, int, int]  # pieces per player of rank III, II, I
    ids: tuple[str, ...] = field(init=False)
    owner: tuple[int, ...] = field(init=False)  # seat of the piece's player
    rank: tuple[int, ...] = field(init=False)
    kind: tuple[str, ...] = field(init=False)  # colour + rank, what a kind sensor reads
    index: Mapping[str, int] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        ids, owner, rank, kind = [], [], [], []
        for seat, colour in enumerate(self.players):
            for r, count in zip((3, 2, 1), self.ranks):
                for k in range(1, count + 1):
                    ids.append(f"{colour}-{ROMAN[r]}-{k}")
                    owner.append(seat)
                    rank.append(r)
                    kind.append(f"{colour}-{ROMAN[r]}")
        object.__setattr__(self, "ids", tuple(ids))
        object.__setattr__(self, "owner", tuple(owner))
        object.__setattr__(self, "rank", tuple(rank))
        object.__setattr__(self, "kind", tuple(kind))
        object.__setattr__(self, "index", {p: i for i, p in enumerate(ids)})

    @property
    def per_player(self) -> int:
        return sum(self.ranks)

    def pieces_of(self, seat: int) -> range:
        n = self.per_player
        return range(seat * n, (seat + 1) * n)

    def label(self, piece: int) -> str:
        """``Red III-1``: how a sentence names a piece."""
        return self.label_phrase(piece).text

    def label_phrase(self, piece: int) -> Phrase:
        colour, roman, k = self.ids[piece].split("-")
        return P("{colour} {piece}", colour=P(colour.capitalize()), piece=f"{roman}-{k}")


@cache
def roster(players: tuple[str, ...], ranks: tuple[int, int, int]) -> Roster:
    return Roster(players, ranks)


@dataclass(frozen=True)
class Battle:
    """One attack, worked out: the ranks counted on each side (initiator or defender first)."""

    attacker: int
    defender: int
    space: int
    attack: tuple[int, ...]
    defence: tuple[int, ...]
    repository: int

    @property
    def attack_total(self) -> int:
        return sum(self.attack)

    @property
    def defence_total(self) -> int:
        return sum(self.defence) + self.repository

    @property
    def wins(self) -> bool:
        # "An attacking player must have at least a one-point advantage to perform and win an attack."
        return self.attack_total >= self.defence_total + 1

    def sums(self) -> str:
        """``2+3 vs 1+9``: the totals as the players add them up."""
        return self.sums_phrase().text

    def sums_phrase(self) -> Phrase:
        defence = list(self.defence) + ([self.repository] if self.repository else [])
        return P("{attack} vs {defence}", attack="+".join(map(str, self.attack)), defence="+".join(map(str, defence)))


def battle(
    ro: Roster,
    adj: Sequence[Sequence[int]],
    river_of: Sequence[int],
    occ: Mapping[int, Sequence[int]],
    carried: Sequence[str],
    homes: Sequence[int],
    attacker: int,
    target: int,
    launch: int,
) -> Battle:
    """The battle if ``attacker`` attacks the lone piece on ``target`` from ``launch``.

    Attack: the initiator plus every other piece of its player next to the target, except
    coin carriers (D10) and, when the initiator attacks out of a river, pieces in that same
    river (D11). Defence: the defender plus every piece of its player next to it, carriers
    included; a river target is only next to banks, so no piece in its river counts. The
    repository adds 9 when the defender stands in its own home (D12).
    """
    me, them = ro.owner[attacker], ro.owner[occ[target][0]]
    defender = occ[target][0]
    same_river = river_of[launch]
    att = [ro.rank[attacker]]
    dfn = [ro.rank[defender]]
    for v in adj[target]:
        for q in occ.get(v, ()):
            if q == attacker or q == defender:
                continue
            if ro.owner[q] == me:
                if carried[q] or (same_river >= 0 and river_of[v] == same_river):
                    continue
                att.append(ro.rank[q])
            elif ro.owner[q] == them:
                dfn.append(ro.rank[q])
    repo = REPOSITORY_DEFENCE if homes[them] == target else 0
    return Battle(attacker, defender, target, tuple(att), tuple(dfn), repo)


@dataclass(frozen=True)
class Eviction:
    """A piece sent home: from where, to where (``-1``: out of play), and the coin it dropped."""

    piece: int
    origin: int
    home: int
    dropped: str = ""


def send_home(
    ro: Roster, locs: list[int], carried: list[str], homes: Sequence[int], loser: int, origin: int
) -> list[Eviction]:
    """Send ``loser`` (defeated on ``origin``) home, and every foreign piece it finds there on to
    its own home, in a chain (D13). Updates ``locs`` and ``carried``; the dropped coins are in
    the evictions, to be laid on their origin by the caller. A piece defeated in its own home
    has nowhere to go and leaves play (D14)."""
    out: list[Eviction] = []
    pending = [(loser, origin)]
    while pending:
        piece, frm = pending.pop(0)
        coin = carried[piece]
        carried[piece] = ""
        home = homes[ro.owner[piece]]
        if home == frm:
            locs[piece] = -1
            out.append(Eviction(piece, frm, -1, coin))
            continue
        foreign = [q for q, at in enumerate(locs) if at == home and ro.owner[q] != ro.owner[piece]]
        locs[piece] = home
        out.append(Eviction(piece, frm, home, coin))
        pending.extend((q, home) for q in foreign)
    return out
