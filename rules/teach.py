"""Teaching at the table (issue 31): where a lifted piece may go, and where a placement may.

Pure, through the game contract alone: the legal moves (cached on the state), ``move_spaces``
to find the few that touch a space, and the positions' views to read where each carries the
piece. A game names what the views cannot (``State.carries``: a Gygès ring that lands on a
ring of its own height reads as if it went straight to the bumped one's new space) and the
spaces on the way that matter (``State.lift_marks``: a Gygès bounce, a DRIFT attack).

* :func:`lifted_piece` — is this board the current position with one piece lifted off one space?
* :func:`destinations` — that piece's legal moves: where each ends, and the marks on the way
  (:class:`Lift`); none if the piece cannot move (a piece of the other player: ``side`` says
  whose it is, where the tokens say).
* :func:`piece_moves` — the same for a space named on the page ("show me"), nothing lifted.
* :func:`placements` — where a piece from off the board (or from a reserve, Annihilation's
  ex nihilo zone) may be put down.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .game import Move, State
from .view import OCCUPIED, Fidelity, View

# A route: a piece carried from ``start`` (None: from off the board) to ``end``; ``token`` the
# piece as the naming fidelity reads it (None: whatever stood on ``start``).
Route = tuple[str | None, str, str | None]


@dataclass(frozen=True)
class Lift:
    """A piece on ``space`` (``piece``: its token, ``occupied`` at occupancy fidelity), whose
    legal ``moves`` end on ``destinations``; ``marks``: (space, what happens there) on the way
    (``bounce``, ``attack``). ``side``: whose piece, where the tokens say (None: nobody's, such
    as Gygès' rings, or unknown); ``to_move``: whose turn it is."""

    space: str
    piece: str
    side: str | None
    to_move: str
    destinations: tuple[str, ...]
    marks: tuple[tuple[str, str], ...] = ()
    moves: tuple[Move, ...] = ()

    @property
    def movable(self) -> bool:
        return bool(self.destinations)

    @property
    def wrong_player(self) -> bool:
        """A piece of another player than the one to move (so the page says whose turn it is)."""
        return self.side is not None and self.side != self.to_move

    def to_dict(self, state: State | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"space": self.space, "piece": self.piece, "side": self.side, "to_move": self.to_move,
                               "destinations": list(self.destinations),
                               "marks": [{"space": s, "kind": k} for s, k in self.marks]}
        if state is not None:
            out["moves"] = [state.move_text(m) for m in self.moves]
        return out


def naming(fidelity: Fidelity) -> Fidelity:
    """The fidelity routes are read at: the sensor's, but at least kind (an occupancy board's
    missing piece is whatever the position says stood there)."""
    return Fidelity.KIND if fidelity is Fidelity.OCCUPANCY else fidelity


def lifted_piece(state: State, view: View, fidelity: Fidelity) -> tuple[str, tuple[str, ...]] | None:
    """``(space, tokens)`` if ``view`` is the current position with pieces missing from one
    space and nothing else changed (a hand holds them); ``tokens`` as ``fidelity`` reads them.
    None otherwise, and for a view with spaces hidden from the sensor."""
    if view.hidden:
        return None
    observed = view.at_fidelity(fidelity)
    current = state.view(fidelity)
    diff = current.diff(observed.resolved(current))
    if len(diff) != 1:
        return None
    (space,) = diff
    want, seen = Counter(current.get_tokens(space)), Counter(observed.resolved(current).get_tokens(space))
    if seen - want or not want - seen:
        return None  # something put down, not only lifted
    return space, tuple(sorted((want - seen).elements()))


def destinations(state: State, view: View, fidelity: Fidelity) -> Lift | None:
    """Where the piece the board shows lifted may go (None: the board is not one piece
    lifted, or the game is over)."""
    if state.is_game_over():
        return None
    found = lifted_piece(state, view, fidelity)
    if found is None:
        return None
    space, tokens = found
    return piece_moves(state, space, fidelity, tokens)


def piece_moves(state: State, space: str, fidelity: Fidelity = Fidelity.KIND,
                tokens: Iterable[str] | None = None) -> Lift:
    """The legal moves that lift a piece (one of ``tokens``, as ``fidelity`` reads them; None
    or occupied: any) from ``space``, where they carry it, and the marks on the way."""
    lifted = frozenset(tokens or ())
    any_piece = not lifted or lifted <= {OCCUPIED}
    here = state.view(naming(fidelity)).get_tokens(space)
    piece = sorted(lifted)[0] if lifted and not any_piece else (here[-1] if here else OCCUPIED)
    if any_piece and fidelity is Fidelity.OCCUPANCY:
        piece = OCCUPIED
    ends: set[str] = set()
    moves: list[Move] = []
    if not state.is_game_over():
        for move, spaces in _touching(state):
            if space not in spaces:
                continue
            hit = [end for start, end, token in routes(state, move, fidelity)
                   if start == space and (any_piece or token is None or token in lifted)]
            if hit:
                ends.update(hit)
                moves.append(move)
    marks = state.lift_marks(space, tuple(moves)) if moves else {}
    side = state.piece_owner(piece) if piece != OCCUPIED else None
    if side is None and piece == OCCUPIED and here:
        side = state.piece_owner(here[-1])  # an occupancy board: whose piece stood there
    return Lift(space, piece, side, state.to_move, tuple(sorted(ends)), tuple(sorted(marks.items())), tuple(moves))


def placements(state: State, fidelity: Fidelity = Fidelity.KIND) -> Lift:
    """Where the player to move may put a piece down from off the board, or from a reserve
    space of the game's (``State.reserve_spaces``): Anacund's pieces, Annelids' segments,
    Annihilation's emergence. ``space`` is ''."""
    reserves = state.reserve_spaces()
    ends: set[str] = set()
    moves: list[Move] = []
    if not state.is_game_over():
        for move, _spaces in _touching(state):
            hit = [end for start, end, _t in routes(state, move, fidelity) if start is None or start in reserves]
            if hit:
                ends.update(hit)
                moves.append(move)
    return Lift("", "", None, state.to_move, tuple(sorted(ends)), (), tuple(moves))


def routes(state: State, move: Move, fidelity: Fidelity = Fidelity.KIND) -> tuple[Route, ...]:
    """Where ``move`` carries each piece: the game's own answer (``State.carries``) or, by
    default, read off the positions: a piece that leaves a space goes to every space where a
    piece of its kind arrives; one that arrives with none of its kind leaving came from off the
    board. Cached on the (frozen) state."""
    cache = state.__dict__.setdefault("_teach_routes", {})
    key = (move, fidelity)
    found = cache.get(key)
    if found is None:
        named = state.carries(move)
        found = tuple((a, b, None) for a, b in named) if named is not None else _read_routes(state, move, fidelity)
        cache[key] = found
    return found


def _read_routes(state: State, move: Move, fidelity: Fidelity) -> tuple[Route, ...]:
    f = naming(fidelity)
    before, after = state.view(f), state.successor(move).view(f)
    left: dict[str, list[str]] = {}
    came: dict[str, list[str]] = {}
    for space in before.diff(after):
        was, now = Counter(before.get_tokens(space)), Counter(after.get_tokens(space))
        for token in (was - now).elements():
            left.setdefault(token, []).append(space)
        for token in (now - was).elements():
            came.setdefault(token, []).append(space)
    out: list[Route] = []
    for token, ends in came.items():
        starts: Sequence[str | None] = left.get(token) or [None]
        out += [(start, end, token) for start in starts for end in ends if start != end]
    return tuple(out)


def _touching(state: State) -> list[tuple[Move, frozenset[str]]]:
    # The same cache explain() fills: the referee has already asked about this position.
    from .explain import _touching as touching

    return touching(state)

