"""Sentences for players as data: a message id (the English template) and its values.

The rules speak English, but only as a default: :class:`Phrase` keeps the template and the
values apart, so a presentation layer outside ``rules/`` (``tableref/i18n``) can look the
template up in a message catalog and say the same sentence in another language. ``.text`` is
the English, exactly as the games have always written it. Everything here is pure.

A value is a plain string or number (notation, a space, a count: said as is in every
language), another :class:`Phrase` (a piece's name, a clause), or :class:`Joined` (several of
them with punctuation between). A phrase with ``plural`` picks its form by its ``n`` value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Union

Value = Union[str, int, "Phrase", "Joined"]

# A translator: (msgid, plural msgid or "", n) -> the template to fill, in its language.
Translate = Callable[[str, str, int], str]


def english(msgid: str, plural: str, n: int) -> str:
    return plural if plural and n != 1 else msgid


@dataclass(frozen=True)
class Phrase:
    msgid: str
    values: tuple[tuple[str, Value], ...] = ()
    plural: str = ""  # the English plural template; the value "n" picks the form

    @property
    def text(self) -> str:
        """The English sentence."""
        return self.render(english)

    def __str__(self) -> str:
        return self.text

    @property
    def count(self) -> int:
        n = dict(self.values).get("n", 1)
        return n if isinstance(n, int) else 1

    def render(self, translate: Translate) -> str:
        template = translate(self.msgid, self.plural, self.count)
        return template.format(**{k: render(v, translate) for k, v in self.values})

    def walk(self):
        """This phrase and every phrase inside it (for checking a catalog covers them)."""
        yield self
        for _, v in self.values:
            if isinstance(v, Phrase):
                yield from v.walk()
            elif isinstance(v, Joined):
                for item in v.items:
                    if isinstance(item, Phrase):
                        yield from item.walk()


@dataclass(frozen=True)
class Joined:
    """Several values said one after the other with ``sep`` (punctuation) between."""

    items: tuple[Value, ...]
    sep: str = ", "

    @property
    def text(self) -> str:
        return render(self, english)

    def __str__(self) -> str:
        return self.text


def P(msgid: str, plural: str = "", **values: Value) -> Phrase:
    """``P("{who} resigns", who=...)``: a phrase from keyword values (in the template's order)."""
    return Phrase(msgid, tuple(values.items()), plural)


def render(value: Value, translate: Translate) -> str:
    if isinstance(value, Phrase):
        return value.render(translate)
    if isinstance(value, Joined):
        return value.sep.join(render(v, translate) for v in value.items)
    return str(value)

