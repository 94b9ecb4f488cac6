"""A board token in words, in a catalog's language ("2" on a Gygès board: "double ring",
"l'anneau double"): for the spoken fixes and the page's hand lines alike."""

from __future__ import annotations

from rules.view import MORE, PART_UNSEEN

from . import Catalog

# Names in the games' own words; each is a msgid of the catalog.
PLAYER_NAMES = {"white": "White", "black": "Black", "south": "South", "north": "North", "red": "Red",
                "blue": "Blue", "green": "Green", "yellow": "Yellow", "A": "Player A", "B": "Player B"}
GYGES_RINGS = {"1": "single ring", "2": "double ring", "3": "triple ring"}
# A coin's name whole, its metal inside: French elides before a vowel ("la pièce d'or").
COINS = {"copper": "copper coin", "silver": "silver coin", "gold": "gold coin"}
CARRIED_COINS = {"copper": "copper coin, carried", "silver": "silver coin, carried", "gold": "gold coin, carried"}
# An annelid's tail is its player's colour, its segments anyone's (rules/games/annelids.py); a
# message each, for the colour agrees with the tail in French ("la queue bleue").
ANNELID_TAILS = {"blue": "blue tail", "green": "green tail"}
# A tail named in part (rules/view.py, "blue:?"): its colour seen, its flat end not — the set-up
# page says so, for the light or the camera may be moved until it is.
ANNELID_TAILS_IN_PART = {"blue": "blue tail, its flat end unseen", "green": "green tail, its flat end unseen"}


def player_name(c: Catalog, name: str) -> str:
    msgid = PLAYER_NAMES.get(name)
    return c._(msgid) if msgid else name.capitalize()


def piece_name(c: Catalog, game: str | None, token: str) -> str:
    """A token in words: "double ring", "White 8", "Red II", "blue tail", "segment", "gold coin".

    An Annelids tail is named by its colour whatever its heading ("blue:ne"); one named in part
    ("blue:?", rules/view.py) says its flat end is unseen."""
    if token == MORE:  # a pile read from above: its top named, more beneath (rules/view.py)
        return c._("more beneath")
    if game == "gyges" and token in GYGES_RINGS:
        return c._(GYGES_RINGS[token])
    if game == "annihilation" and token[:1] in "WB" and token[1:].isdigit():
        return c._("{colour} {value}", colour=player_name(c, "white" if token[0] == "W" else "black"),
                   value=token[1:])
    if game == "annelids":
        if token == "segment":
            return c._("segment")
        colour, _, heading = token.partition(":")
        if heading == PART_UNSEEN and colour in ANNELID_TAILS_IN_PART:
            return c._(ANNELID_TAILS_IN_PART[colour])
        if colour in ANNELID_TAILS:
            return c._(ANNELID_TAILS[colour])
    if game == "anacund" and token in ("A", "B"):
        return c._("{player}'s piece", player=player_name(c, token))
    if game == "drift":
        if token in COINS:
            return c._(COINS[token])
        if token.startswith("carried:") and token[8:] in CARRIED_COINS:  # a coin a piece carries
            return c._(CARRIED_COINS[token[8:]])
        if token.isdigit():  # a river's rotation, on its rotation space
            return c.n_("turned {n} arrow", "turned {n} arrows", int(token))
        colour, _, rank = token.partition("-")
        if rank:
            return c._("{colour} {value}", colour=player_name(c, colour), value=rank)
    return c._("piece")
