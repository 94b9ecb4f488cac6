"""Why a space is not read: every reason a reader gives, stated once.

A reason is the English sentence the readers have always written — compared, logged and
printed as a plain string — that also carries its :class:`~rules.phrase.Phrase`, so the set-up
page can say it in the admin's language from the catalog (``tableref/i18n``). A reason with a
value (a tag's number, a ring's name) is made by its function here, never by an f-string in a
reader, so that every reason has a message in the catalog
(``tests/vision/test_reasons.py``).
"""

from __future__ import annotations

from rules.phrase import P, Phrase, Value


class Reason(str):
    """A reader's reason: its English text, and ``.phrase`` for a catalog."""

    phrase: Phrase

    def __new__(cls, text: str, phrase: Phrase | None = None) -> "Reason":
        out = super().__new__(cls, text)
        out.phrase = phrase if phrase is not None else P(text)
        return out


def reason(msgid: str, **values: Value) -> Reason:
    """``reason("tag {tag} is not one of this game's pieces", tag="17")``."""
    phrase = P(msgid, **values)
    return Reason(phrase.text, phrase)


def phrase_of(why: str) -> Phrase:
    """The phrase a catalog says ``why`` in: a reason's own; any other text as its msgid."""
    return why.phrase if isinstance(why, Reason) else P(str(why))


# -- every reader (readers/reader.py, occlusion.py) --------------------------------------------
UNNAMED = reason("something here that is not a readable piece")
TOO_SMALL = reason("too small in the picture here: move the camera closer")
GLARE = reason("glare or shadow")
UNEVEN_LIGHT = reason("light uneven here (hand or glare near)")
OFF_SPACE = reason("a piece off its space")
TWO_TAGS = reason("two tags on one space")
TAGS_UNREAD = reason("pieces here whose tags cannot be read")
UNREADABLE = reason("unreadable")  # a reader that gave no reason
HIDDEN_IN_FRONT = reason("a piece in front hides it from the camera")  # a space read HIDDEN


def foreign_tag(tag: int) -> Reason:
    return reason("tag {tag} is not one of this game's pieces", tag=str(tag))


# -- Gygès's rings read by their tiers (ring_reading.py) ---------------------------------------
TIERS_UNCLEAR = reason("a ring whose tiers cannot be told")

# -- Annelids' tails (colour_reading.py) -------------------------------------------------------
# A message per colour: French agrees the colour with its tail.
_CAP_UNSEEN = {"blue": "a blue tail whose flat end cannot be seen",
               "green": "a green tail whose flat end cannot be seen"}


def cap_unseen(colour: str) -> Reason:
    """Why a tail of ``colour`` is not named whole: its flat end (the dark cap) is not seen."""
    msgid = _CAP_UNSEEN.get(colour)
    return reason(msgid) if msgid else reason("a {colour} tail whose flat end cannot be seen", colour=colour)


# -- DRIFT (drift_tags.py, drift_reader.py) ----------------------------------------------------
UNCERTAIN = reason("a tag here may be on this space or a neighbour's")
CROWDED = reason("tokens crowded here or next to here")
RING_COVERED = reason("the ring is covered")
MARKERS_DISAGREE = reason("the ring's markers give different rotations")
MARKERS_UNSEEN = reason("neither of the ring's rotation markers can be seen")


def rotation_unread(ring: str) -> Reason:
    return reason("the {river} river's rotation cannot be read", river=P(ring))


def not_its_marker(tag: int, ring: str) -> Reason:
    return reason("tag {tag} on the {ring} ring is not its marker", tag=str(tag), ring=P(ring))


def marker_size(ring: str) -> Reason:
    return reason("the {ring} ring's marker is not its printed size", ring=P(ring))


def marker_off(ring: str) -> Reason:
    return reason("the {ring} ring's marker is off the ring", ring=P(ring))


def mid_turn(ring: str) -> Reason:
    return reason("the {river} river is part-way through a turn", river=P(ring))


def every_reason() -> tuple[Phrase, ...]:
    """One phrase of every reason, its values filled (for checking a catalog covers them): each
    reason stated here as a constant, and each made by a function here for every ring."""
    made = [v for v in globals().values() if isinstance(v, Reason)]
    made += [foreign_tag(17), *(cap_unseen(c) for c in _CAP_UNSEEN)]
    for ring in ("outer", "middle", "inner"):
        made += [rotation_unread(ring), not_its_marker(40, ring), marker_size(ring), marker_off(ring), mid_turn(ring)]
    return tuple(r.phrase for r in made)
