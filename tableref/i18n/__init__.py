"""Message catalogs: every sentence the referee speaks and the live page shows, per language.

The catalogs are gettext ``.po`` files beside this module (``<lang>/LC_MESSAGES/tableref.po``),
their message ids the English text. A catalog is compiled with Babel on first use (in memory,
once per process; ``python -m tableref.i18n compile`` writes the ``.mo`` files at install
instead, and a ``.mo`` newer than its ``.po`` is then read directly).

A language without a catalog, a message without a translation, or a translation whose
``{placeholders}`` do not fit, all fall back to the English text: never to a crash.
"""

from __future__ import annotations

import gettext
import io
import logging
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rules.phrase import Joined, Phrase, Value

log = logging.getLogger(__name__)

DOMAIN = "tableref"
HERE = Path(__file__).resolve().parent
DEFAULT_LANGUAGE = "en"


def languages() -> tuple[str, ...]:
    """The languages shipped: those with a catalog, English first."""
    found = sorted(p.parent.parent.name for p in HERE.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    return (DEFAULT_LANGUAGE, *[lang for lang in found if lang != DEFAULT_LANGUAGE])


class Catalog:
    """One language's messages. ``_(msgid, **values)`` translates and fills the placeholders;
    ``n_(singular, plural, n, **values)`` picks the plural form for ``n``."""

    def __init__(self, language: str, translations: gettext.NullTranslations) -> None:
        self.language = language
        self._t = translations

    def _(self, msgid: str, **values: Any) -> str:
        return self._fill(self._t.gettext(msgid), msgid, values)

    def n_(self, singular: str, plural: str, n: int, **values: Any) -> str:
        english = singular if n == 1 else plural
        return self._fill(self._t.ngettext(singular, plural, n), english, {"n": n, **values})

    def _fill(self, text: str, english: str, values: dict[str, Any]) -> str:
        try:
            return text.format(**values)
        except (KeyError, IndexError, ValueError) as exc:  # a broken translation: say it in English
            if text != english:
                log.warning("catalog %s: translation of %r does not fit (%s); English used", self.language,
                            english, exc)
                return english.format(**values)
            raise

    def say(self, value: Value) -> str:
        """A rules text (:class:`~rules.phrase.Phrase`: a move's description, an outcome's
        reason, a fix) in this language, each template looked up in the catalog: a template
        missing, or one whose placeholders do not fit, is said in English."""
        if isinstance(value, Phrase):
            values = {k: self.say(v) for k, v in value.values}
            english = value.plural if value.plural and value.count != 1 else value.msgid
            text = self._t.ngettext(value.msgid, value.plural, value.count) if value.plural \
                else self._t.gettext(value.msgid)
            return self._fill(text, english, values)
        if isinstance(value, Joined):
            return value.sep.join(self.say(v) for v in value.items)
        return str(value)

    def untranslated(self, value: Value) -> list[str]:
        """The templates of ``value`` this catalog has no translation for (said in English)."""
        if self.language == DEFAULT_LANGUAGE:
            return []
        found = getattr(self._t, "_catalog", {})
        out = []
        items = value.items if isinstance(value, Joined) else [value]
        for item in items:
            if isinstance(item, Joined):
                out += self.untranslated(item)
            elif isinstance(item, Phrase):
                for p in item.walk():
                    key = (p.msgid, 0) if p.plural else p.msgid
                    if key not in found:
                        out.append(p.msgid)
        return out

    def messages(self, msgids: Iterable[str]) -> dict[str, str]:
        """The translations of ``msgids`` (for the page's scripts), untranslated ones left out."""
        out = {}
        for m in msgids:
            t = self._t.gettext(m)
            if t != m:
                out[m] = t
        return out


_cache: dict[str, Catalog] = {}
_lock = threading.Lock()


def catalog(language: str | None) -> Catalog:
    """The catalog for ``language`` ("fr", "fr-FR", "fr_CA" all give French); English when
    there is none."""
    lang = normalise(language)
    with _lock:
        found = _cache.get(lang)
        if found is None:
            found = _cache[lang] = Catalog(lang, _load(lang))
        return found


def normalise(language: str | None) -> str:
    if not language:
        return DEFAULT_LANGUAGE
    return language.strip().replace("-", "_").split("_")[0].lower() or DEFAULT_LANGUAGE


def _load(lang: str) -> gettext.NullTranslations:
    po = HERE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    mo = po.with_suffix(".mo")
    if lang == DEFAULT_LANGUAGE and not po.exists():
        return gettext.NullTranslations()
    try:
        if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
            with mo.open("rb") as f:
                return gettext.GNUTranslations(f)
        if not po.exists():
            if lang != DEFAULT_LANGUAGE:
                log.warning("no message catalog for language %r; English used", lang)
            return gettext.NullTranslations()
        return gettext.GNUTranslations(io.BytesIO(compile_po(po)))
    except (OSError, ValueError, SyntaxError) as exc:
        log.error("message catalog %s cannot be read (%s); English used", po, exc)
        return gettext.NullTranslations()


def compile_po(po: Path) -> bytes:
    """A ``.po`` file compiled to ``.mo`` bytes with Babel (fuzzy entries left out)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        cat = read_po(f, locale=po.parent.parent.name, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, cat)
    return out.getvalue()


def compile_all() -> list[Path]:
    """Write every shipped catalog's ``.mo`` beside its ``.po`` (at install)."""
    written = []
    for po in sorted(HERE.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        mo = po.with_suffix(".mo")
        mo.write_bytes(compile_po(po))
        written.append(mo)
    return written


if __name__ == "__main__":  # python -m tableref.i18n compile
    if sys.argv[1:] != ["compile"]:
        print("usage: python -m tableref.i18n compile", file=sys.stderr)
        sys.exit(2)
    for path in compile_all():
        print(path)
