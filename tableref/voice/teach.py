"""What the voice says for a lifted piece (teaching, issue 31, item 1; docs/teaching.md): how
many spaces it may go to, or whose turn it is when it cannot move. Said at ``normal``; a piece
of the wrong player at ``quiet`` too (it says what the illegal board's sentence leaves out)."""

from __future__ import annotations

from decisions import Lifted
from tableref.i18n import Catalog
from tableref.i18n.pieces import player_name


def lifted_sentence(c: Catalog, d: Lifted) -> tuple[str, str]:
    """(sentence, level) for a lifted piece."""
    n = len(d.destinations)
    if n:
        return c.n_("It may go to {n} space", "It may go to {n} spaces", n), "normal"
    if d.wrong_player:
        return c._("Not your piece: {player} to move", player=player_name(c, d.to_move)), "quiet"
    return c._("That piece cannot move now"), "normal"
