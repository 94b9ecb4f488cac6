"""A board token in words, in a catalog's language ("2" on a Gygès board: "double ring",
"l'anneau double"): for the spoken fixes and the page's hand lines alike."""

from __future__ import annotations

from . import Catalog

# Names in the games' own words; each is a msgid of the catalog.
PLAYER_NAMES = {"white": "White", "black": "Black", "south": "South", "north": "North", "red": "Red",
                "blue": "Blue", "green": "Green", "yellow": "Yellow", "A": "Player A", "B": "Player B"}
GYGES_RINGS = {"1": "single ring", "2": "double ring", "3": "triple ring"}
COINS = {"copper": "copper", "silver": "silver", "gold": "gold"}


def player_name(c: Catalog, name: str) -> str:
    msgid = PLAYER_NAMES.get(name)
    return c._(msgid) if msgid else name.capitalize()


def piece_name(c: Catalog, game: str | None, token: str) -> str:
    """A token in words: "double ring", "White 8", "Red II", "Blue segment", "gold coin"."""
    if game == "gyges" and token in GYGES_RINGS:
        return c._(GYGES_RINGS[token])
    if game == "annihilation" and token[:1] in "WB" and token[1:].isdigit():
        return c._("{colour} {value}", colour=player_name(c, "white" if token[0] == "W" else "black"),
                   value=token[1:])
    if game == "annelids" and ":" in token:
        return c._("{colour} segment", colour=c._(token.split(":")[0]))  # mid-sentence: "le segment bleu"
    if game == "drift":
        if token in COINS:
            return c._("{coin} coin", coin=c._(COINS[token]))
        colour, _, rank = token.partition("-")
        if rank:
            return c._("{colour} {value}", colour=player_name(c, colour), value=rank)
    return c._("piece")
