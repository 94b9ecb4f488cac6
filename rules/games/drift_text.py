"""DRIFT notation and move descriptions (``docs/rules/drift.md``, "Notation").

| move | text |
|---|---|
| step | ``red-III-1 O0-O3`` (piece, from, to; into a river arrow ``O3-MR2``) |
| attack | ``red-II-1 O5xO7`` (piece, from, the space attacked) |
| take / pilfer / drop | ``red-I-1 take copper``, ``red-I-1 pilfer gold``, ``red-I-1 drop silver`` |
| end of turn | ``end``; ``end remove red-III-1 red-II-1`` when those cannot leave a crowded home |
| drift | ``drift`` |
| setup | ``copper O5`` (place a copper coin on O5) |

The next player's move, which ends the turn first, is written as that move.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import AmbiguousMoveError, IllegalMoveError, MoveSyntaxError
from ..phrase import Joined, P, Phrase
from .drift_geometry import geometry
from .drift_moves import ATTACK, DRIFT, DROP, END, PILFER, PLACE, STEP, TAKE, Action

if TYPE_CHECKING:
    from .drift import DriftState

_PIECE = r"[a-z]+-(?:III|II|I)-\d+"
_SPACE = r"[A-Z]+\d+"
_COIN = r"(?:copper|gold|silver)"
_SYNTAX = re.compile(
    rf"{_PIECE} {_SPACE}[-x]{_SPACE}|{_PIECE} (?:take|pilfer|drop) {_COIN}|end(?: remove(?: {_PIECE})+)?"
    rf"|drift|{_COIN} {_SPACE}"
)
EXAMPLES = "'red-III-1 O0-O3', 'red-II-1 O5xO7', 'red-I-1 take copper', 'end', 'drift', 'copper O5'"


def move_text(st: "DriftState", move: Action) -> str:
    geo, ro = geometry(), st.roster
    kind = move.kind
    if kind == END:
        return "end" + (" remove " + " ".join(ro.ids[q] for q in move.removed) if move.removed else "")
    if kind == DRIFT:
        return "drift"
    if kind == PLACE:
        return f"{move.coin} {geo.ids[move.space]}"
    pid, here = ro.ids[move.piece], geo.ids[st.locs[move.piece]]
    if kind == STEP:
        return f"{pid} {here}-{geo.ids[move.space]}"
    if kind == ATTACK:
        return f"{pid} {here}x{geo.ids[move.space]}"
    if kind in (TAKE, PILFER, DROP):
        return f"{pid} {kind} {move.coin}"
    raise MoveSyntaxError(f"drift: not a DRIFT move: {move!r}")


def _texts(st: "DriftState") -> dict[str, Action]:
    cached = st.__dict__.get("_texts")
    if cached is None:
        cached = {move_text(st, m): m for m in st.legal_moves()}
        object.__setattr__(st, "_texts", cached)
    return cached


def parse_move(st: "DriftState", text: str) -> Action:
    t = " ".join(str(text).split())
    found = _texts(st).get(t)
    if found is not None:
        return found
    if t == "end" and st.stage == "drift":
        # The end-turn button in the drift phase means "drift done": a sensor that cannot read
        # the rivers' markers (occupancy) has the drift declared this way.
        return _texts(st)["drift"]
    if t == "end":
        ends = [s for s, m in _texts(st).items() if m.kind == END]
        if len(ends) > 1:
            raise AmbiguousMoveError(f"drift: 'end' must say which pieces leave play: {', '.join(ends)}", tuple(ends))
    if not _SYNTAX.fullmatch(t):
        raise MoveSyntaxError(f"drift: cannot read move {text!r} (expected e.g. {EXAMPLES})")
    raise IllegalMoveError(f"drift: {t} is not legal here ({_situation(st)})")


def _situation(st: "DriftState") -> str:
    if st.is_game_over():
        return "the game is over"
    if st.stage == "setup":
        return "setup: coins still to place"
    if st.stage == "drift":
        return "the drift phase: the rivers must turn"
    return f"{st.to_move} to move"


def _coin(article: str, coin: str) -> Phrase:
    """"a gold coin", "the copper coin": one message each (other languages inflect them)."""
    return P(f"{article} {coin} coin")


def _turns(geo) -> Joined:
    """Each river and the way it turns: "outer clockwise, middle counter-clockwise, …"."""
    return Joined(tuple(P("{river} {flow}", river=P(r.name), flow=P(r.flow)) for r in geo.rivers), ", ")


def describe(st: "DriftState", move: Action) -> Phrase:
    if move.after_end:
        return P("{player}'s turn ends; {move}", player=P(st.to_move.capitalize()),
                 move=st._ended(()).move_phrase(move.inner()))
    geo, ro = geometry(), st.roster
    kind = move.kind
    if kind == DRIFT:
        return P("DRIFT: every river turned one arrow ({turns}), everything on it riding along", turns=_turns(geo))
    if kind == PLACE:
        return P("{coin} placed on {space}", coin=_coin("a", move.coin), space=geo.ids[move.space])
    if kind == END:
        who = P(st.to_move.capitalize())
        gone = Joined(tuple(P("; {piece} cannot leave the crowded home: out of play", piece=ro.label_phrase(q))
                            for q in move.removed), "")
        if st.seat == len(st.players) - 1:
            return P("{player}'s turn ends{gone}; round over — DRIFT: turn every river one arrow ({turns})",
                     player=who, gone=gone, turns=_turns(geo))
        return P("{player}'s turn ends{gone}; {next} to move", player=who, gone=gone,
                 next=P(st.players[st.seat + 1].capitalize()))
    name, here = ro.label_phrase(move.piece), geo.ids[st.locs[move.piece]]
    if kind == STEP:
        there = geo.ids[move.space]
        if geo.river_of[move.space] >= 0:
            return P("{piece} {start} → {end} (into the {river} river: its move ends)", piece=name, start=here,
                     end=there, river=P(geo.rivers[geo.river_of[move.space]].name))
        left = (st.points if move.piece == st.current else ro.rank[move.piece]) - move.cost
        return P("{piece} {start} → {end} ({n} point left)", "{piece} {start} → {end} ({n} points left)", piece=name,
                 start=here, end=there, n=left)
    if kind == ATTACK:
        b = st.battle_of(move)
        loser = ro.label_phrase(b.defender)
        home = st.home_list[ro.owner[b.defender]]
        fate = P("leaves play (defeated in its own home)") if home == move.space \
            else P("goes home to {space}", space=geo.ids[home])
        return P("{piece} attacks {other} at {space}: {sums}: {other} {fate}", piece=name, other=loser,
                 space=geo.ids[move.space], sums=b.sums_phrase(), fate=fate)
    if kind == TAKE:
        return P("{piece} takes up {coin} on {space}", piece=name, coin=_coin("the", move.coin), space=here)
    if kind == PILFER:
        owner = st.players[st.home_owner[st.locs[move.piece]]]
        return P("{piece} pilfers {coin} from {player}'s repository", piece=name, coin=_coin("a", move.coin),
                 player=P(owner.capitalize()))
    if kind == DROP:
        me = ro.owner[move.piece]
        if st.locs[move.piece] == st.home_list[me] and move.coin not in st.repos[me]:
            return P("{piece} deposits {coin} on its repository", piece=name, coin=_coin("the", move.coin))
        return P("{piece} drops {coin} on {space}", piece=name, coin=_coin("the", move.coin), space=here)
    raise MoveSyntaxError(f"drift: not a DRIFT move: {move!r}")


_COUNT = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def river_fix(fix) -> Phrase | None:
    """How to turn a river ring back to where its marker should read (a ``SpaceFix`` on a
    ``rotation:`` space), the shorter way round: "turn the inner river one arrow clockwise"."""
    geo = geometry()
    river = next((r for r in geo.rivers if r.rotation_space == fix.space), None)
    if river is None or len(fix.expected) != 1 or len(fix.observed) != 1:
        return None
    try:
        want, seen = int(fix.expected[0]), int(fix.observed[0])
    except ValueError:
        return None  # an occupancy reading: the step is not known
    ahead = (seen - want) % river.size  # arrows it stands past the mark, in its flow direction
    if not ahead:
        return None
    back = ahead <= river.size // 2  # turn it back against the flow, or on round with it
    steps = ahead if back else river.size - ahead
    clockwise = river.clockwise != back
    way = P("clockwise") if clockwise else P("counter-clockwise")
    # "one arrow", "two arrows": each count its own message (said in words, not digits)
    count = P(f"{_COUNT[steps]} arrow{'s' if steps != 1 else ''}") if steps in _COUNT \
        else P("{n} arrow", "{n} arrows", n=steps)
    return P("turn the {river} river {count} {way}", river=P(river.name), count=count, way=way)
