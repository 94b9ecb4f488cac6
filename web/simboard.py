"""The simulated board the web page edits: an interactive source for the demo.

It holds what an ideal sensor would read on each space, and the player's hand (pieces
lifted off the board and not yet put down). Clicking a space on the page takes a piece
into the hand or puts one down; pieces can also come from the box (the game's set of
pieces) or go back to it. :meth:`SimBoard.observation` is what the sensor reads now;
while ``hand_over`` is set the whole board is unreadable, as under a real hand.

Plain object, thread-safe, no thread of its own: the service reads it on its scan timer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from rules import OCCUPIED, Board, Fidelity, Observation, P, View
from rules.phrase import Value


class SimBoardError(ValueError):
    """An edit the simulated board cannot make; ``phrase`` says why in the page's language."""

    def __init__(self, message: Value) -> None:
        super().__init__(str(message))
        self.phrase = message


class SimBoard:
    def __init__(
        self, board: Board, fidelity: Fidelity, view: View, *, palette: Iterable[str] = (), source: str = "sim"
    ) -> None:
        self.board = board
        self.fidelity = fidelity
        self.source = source
        self._lock = threading.Lock()
        self._contents: dict[str, list[str]] = {}
        self._hand: list[str] = []
        self._hand_over = False
        self._palette: tuple[str, ...] = ()
        self.reset(view, palette)

    # -- reading -------------------------------------------------------------------------------

    @property
    def view(self) -> View:
        with self._lock:
            return View(self._contents)

    @property
    def hand(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._hand)

    @property
    def hand_over(self) -> bool:
        return self._hand_over

    @property
    def palette(self) -> tuple[str, ...]:
        return self._palette

    def observation(self, time: float) -> Observation:
        with self._lock:
            view = View(self._contents)
            hidden = frozenset(self.board.space_ids) if self._hand_over else frozenset()
        if hidden:
            view = View()  # a sensor reports nothing where it cannot see
        return Observation(view, time, self.fidelity, self.source, hidden)

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "view": View(self._contents).to_dict(),
                "hand": list(self._hand),
                "hand_over": self._hand_over,
                "palette": list(self._palette),
            }

    # -- edits ---------------------------------------------------------------------------------

    def reset(self, view: View, palette: Iterable[str] | None = None, board: Board | None = None) -> None:
        """Set the board to ``view`` (pieces in the hand go back to the box); with ``board``,
        on another game's board (the players swapped boards for a new game)."""
        view = view.at_fidelity(self.fidelity)
        target = board if board is not None else self.board
        for space in view:
            if not target.has_space(space):
                raise SimBoardError(P("no space {space} on the {board} board", space=repr(space), board=target.name))
        with self._lock:
            self.board = target
            self._contents = {s: list(t) for s, t in view.items()}
            self._hand = []
            if palette is not None:
                tokens = sorted({OCCUPIED} if self.fidelity is Fidelity.OCCUPANCY else set(palette))
                self._palette = tuple(tokens)

    def take(self, space: str, token: str | None = None) -> str:
        """Lift a piece off ``space`` into the hand (``token``, or the top one)."""
        self._check_space(space)
        with self._lock:
            here = self._contents.get(space, [])
            if not here:
                raise SimBoardError(P("space {space} is empty: nothing to take", space=space))
            if token is None:
                token = here[-1]
            elif token not in here:
                raise SimBoardError(P("space {space} holds no {token} (it holds {here})", space=space, token=repr(token),
                                      here=", ".join(here)))
            here.remove(token)
            if not here:
                del self._contents[space]
            self._hand.append(token)
            return token

    def put(self, space: str, token: str | None = None) -> str:
        """Put a piece on ``space``: ``token`` from the hand if it is there, else from the box;
        with no ``token``, the piece picked up last."""
        self._check_space(space)
        with self._lock:
            if token is None:
                if not self._hand:
                    raise SimBoardError(P("the hand is empty: take a piece first, or choose one from the box"))
                token = self._hand[-1]
            if token in self._hand:
                # The last one of its kind taken: the hand is a stack, newest on top.
                del self._hand[len(self._hand) - 1 - self._hand[::-1].index(token)]
            elif token not in self._palette:
                raise SimBoardError(P("no piece {token} in the hand or the box (box: {box})", token=repr(token),
                                      box=", ".join(self._palette)))
            self._contents.setdefault(space, []).append(token)
            return token

    def discard(self, token: str | None = None) -> str:
        """Put a piece from the hand back in the box (a captured piece taken off the table)."""
        with self._lock:
            if not self._hand:
                raise SimBoardError(P("the hand is empty"))
            if token is None:
                token = self._hand[-1]
            if token not in self._hand:
                raise SimBoardError(P("no {token} in the hand (it holds {hand})", token=repr(token), hand=", ".join(self._hand)))
            del self._hand[len(self._hand) - 1 - self._hand[::-1].index(token)]
            return token

    def set_hand_over(self, over: bool) -> None:
        self._hand_over = bool(over)

    def _check_space(self, space: str) -> None:
        if not isinstance(space, str) or not self.board.has_space(space):
            raise SimBoardError(P("no space {space} on the {board} board", space=repr(space), board=self.board.name))
