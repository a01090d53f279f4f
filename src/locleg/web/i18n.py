"""The explorer's languages: pt-BR by default, English on request; Babel catalogues, dates
and numbers as each locale writes them.

Templates call `_()` / `ngettext()` (Jinja2's i18n extension, new style); the callables read
the page being rendered from a context variable that `rendering()` sets around one render, so
one shared Jinja2 environment serves requests in different languages at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from gettext import NullTranslations
from pathlib import Path

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.numbers import format_decimal
from babel.support import Translations
from fastapi import Request

LOCALE_DIR = Path(__file__).parent / "locale"
DEFAULT = "pt_BR"
# The source strings are English: English needs no catalogue.
LANGUAGES = {"pt_BR": "pt-BR", "en": "en"}
COOKIE = "locleg_lang"
# How a locale writes a day: 27/06/2011 in Brazil; "Jun 27, 2011" in English (never the
# ambiguous 6/27/11).
DAY_FORMATS = {"pt_BR": "dd/MM/yyyy", "en": "MMM d, yyyy"}
TIME_FORMATS = {"pt_BR": "dd/MM/yyyy HH:mm", "en": "MMM d, yyyy HH:mm"}


def N_(message: str) -> str:
    """Marks a string for the catalogue where it is defined; `_()` translates it when shown."""
    return message


@dataclass(frozen=True)
class Page:
    """What one render needs to speak its reader's language, and whether the corpus is a demo."""

    locale: str
    explicit: bool  # chosen by ?lang= (so the choice is remembered)
    demo: bool = False

    @property
    def tag(self) -> str:
        return LANGUAGES[self.locale]


_OUTSIDE = Page(DEFAULT, False)  # what a render outside a request speaks
_page: ContextVar[Page | None] = ContextVar("locleg_page", default=None)


def _locale_of(value: str | None) -> str | None:
    """'pt-BR', 'pt_br', 'pt' -> pt_BR; 'en', 'en-US' -> en; anything else None."""
    if not value:
        return None
    primary = value.strip().replace("_", "-").split("-")[0].lower()
    return {"pt": "pt_BR", "en": "en"}.get(primary)


def _accepted(header: str) -> str | None:
    """The first language of Accept-Language (by q) that the explorer speaks."""
    choices = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                q = 0.0
        if tag and q > 0:
            choices.append((-q, position, tag))
    for _q, _position, tag in sorted(choices):
        found = _locale_of(tag)
        if found:
            return found
    return None


def page_for(request: Request) -> Page:
    """?lang= first, then the remembered choice (cookie), then Accept-Language, else pt-BR."""
    asked = _locale_of(request.query_params.get("lang"))
    if asked:
        return Page(asked, True, _demo(request))
    chosen = (_locale_of(request.cookies.get(COOKIE))
              or _accepted(request.headers.get("accept-language", "")) or DEFAULT)
    return Page(chosen, False, _demo(request))


def _demo(request: Request) -> bool:
    settings = getattr(request.app.state, "settings", None)
    return bool(getattr(settings, "demo", False))


@contextmanager
def rendering(page: Page) -> Iterator[Page]:
    token = _page.set(page)
    try:
        yield page
    finally:
        _page.reset(token)


def current() -> Page:
    return _page.get() or _OUTSIDE


@cache
def translations(locale: str) -> NullTranslations:
    if locale == "en":
        return NullTranslations()
    found = Translations.load(str(LOCALE_DIR), [locale], domain="messages")
    if not isinstance(found, Translations):
        raise RuntimeError(f"the {locale} message catalogue is missing from {LOCALE_DIR}: "
                           "compile it with `pybabel compile -d src/locleg/web/locale`")
    return found


def gettext(message: str) -> str:
    return translations(current().locale).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current().locale).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return translations(current().locale).pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translations(current().locale).npgettext(context, singular, plural, n)


@cache
def _babel_locale(locale: str) -> Locale:
    return Locale.parse(locale)


def number(value: object, decimals: int | None = None) -> str:
    """1.234 in pt-BR, 1,234 in English; floats with two decimals unless told."""
    if value is None:
        return "—"
    locale = _babel_locale(current().locale)
    if isinstance(value, float) or decimals is not None:
        places = 2 if decimals is None else decimals
        pattern = "#,##0." + "0" * places if places else "#,##0"
        return format_decimal(value, format=pattern, locale=locale)
    return format_decimal(value, format="#,##0", locale=locale)


def day(value: object) -> str:
    """A norm's date as the reader writes it: 27/06/2011; a bare year stays a year."""
    if value is None or value == "":
        return "—"
    if isinstance(value, str):
        try:
            value = date.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, datetime):
        value = value.date()
    if not isinstance(value, date):
        return str(value)
    return format_date(value, DAY_FORMATS[current().locale], locale=_babel_locale(
        current().locale))


def when(value: object) -> str:
    """A moment (always UTC in the store) as the reader writes it, saying UTC."""
    if value is None:
        return "—"
    if isinstance(value, datetime):
        shown = format_datetime(value.replace(tzinfo=None), TIME_FORMATS[current().locale],
                                locale=_babel_locale(current().locale))
        return f"{shown} UTC"
    return day(value)


# The explorer's commonest error messages, as they are raised (English, the JSON's), and
# their form in the catalogue; a message not listed is shown as it is.
_MESSAGES = [(re.compile(pattern), template) for pattern, template in (
    (r"no norm (?P<id>\d+)", N_("no norm %(id)s")),
    (r"no document (?P<id>\d+)", N_("no document %(id)s")),
    (r"no jurisdiction with IBGE code (?P<code>\d+)",
     N_("no jurisdiction with IBGE code %(code)s")),
    (r"no archived original for (?:document|version) (?P<id>\d+)",
     N_("no archived original for %(id)s")),
    (r"no federative unit (?P<uf>.{1,12}): use a code such as BA or SP",
     N_("no federative unit %(uf)s: use a code such as BA or SP")),
    (r"no such page", N_("no such page")),
    (r"this page link is damaged: start from the first page",
     N_("this page link is damaged: start from the first page")),
    (r"a place name has at most 100 characters", N_("a place name has at most 100 characters")),
    (r"an IBGE code has 7 digits \(2 for a state\), such as 2918407",
     N_("an IBGE code has 7 digits (2 for a state), such as 2918407")),
)]


def message(text: str) -> str:
    """An error message in the reader's language when it is one the catalogue knows."""
    for pattern, template in _MESSAGES:
        found = pattern.fullmatch(text)
        if found:
            return gettext(template) % found.groupdict()
    return text
