"""What of a norm's text goes into the index: cleaned text, its heading, joined compounds.

The index's analyzers (search/analysis.py) split, fold and stem the words; this module
decides what they are given: the text without control characters, the heading above the
articles, and the joined forms of hyphenated compounds and dotted numbers that splitting on
the hyphen or the dot would lose ('mototáxi' for 'moto-táxi', '2199' for '2.199').
"""

from __future__ import annotations

import re

from ..jurisdictions import fold

# Letters and digits; '_' separates (it only joins the filter tags, which never come from text).
_WORD = re.compile(r"[^\W_]+")
# moto-táxi, MOTO - TÁXI, moto-\ntaxista (a line-end hyphen), and dotted numbers 2.199.
_HYPHEN = re.compile(r"[-\u2010\u2011]")
_WORD_BEFORE = re.compile(r"[^\W_]+[ \t]?$")
_WORD_AFTER = re.compile(r"[ \t]*\n?[ \t]*([^\W_]+)")
_DOTTED_NUMBER = re.compile(r"\d{1,3}(?:\.\d{3})+(?!\d)")
# Highlight markers: characters that never survive in stored text.
MARK_START, MARK_END = "\u27e6", "\u27e7"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u27e6\u27e7]")
MAX_VARIANT = 40


def clean(text: str | None) -> str:
    """Text as stored in the index: control characters and highlight markers removed."""
    return _CONTROL.sub(" ", text or "")


def words(text: str) -> list[str]:
    """The text's words, folded (lowercase ASCII where Unicode allows)."""
    return [fold(w) for w in _WORD.findall(text)]


def joined_variants(text: str) -> list[str]:
    """Joined forms of hyphenated compounds and dotted numbers, so that 'mototáxi' finds
    'moto-táxi' and '2199' finds '2.199'; the parts themselves are indexed as words."""
    found: dict[str, None] = {}
    chain: list[str] = []
    chain_end = -1  # where the last word of the chain ends
    # Scanning for the rare hyphen, then looking around it, is far cheaper than a regex
    # that tries every word of the text.
    for hyphen in _HYPHEN.finditer(text):
        start = hyphen.start()
        before = _WORD_BEFORE.search(text, max(0, start - MAX_VARIANT), start)
        after = _WORD_AFTER.match(text, hyphen.end(), hyphen.end() + MAX_VARIANT + 8)
        if before is None or after is None:
            continue
        if chain and before.start() < chain_end:
            chain.append(after.group(1))
        else:
            _add_joined(found, chain)
            chain = [before.group().rstrip(" \t"), after.group(1)]
        chain_end = after.end()
    _add_joined(found, chain)
    for match in _DOTTED_NUMBER.finditer(text):
        if match.start() == 0 or text[match.start() - 1] not in "0123456789.":
            found[match.group().replace(".", "")] = None
    return list(found)


def _add_joined(found: dict[str, None], parts: list[str]) -> None:
    if len(parts) > 1:
        joined = "".join(words("".join(parts)))
        if len(joined) <= MAX_VARIANT:
            found[joined] = None


# The heading ends where the articles begin ("Art. 1º", "Artigo 1"), within this many
# characters; without articles, this many characters of the opening are the heading.
HEADING_SCAN = 1_500
HEADING_SHORT = 400
_FIRST_ARTICLE = re.compile(r"\bart(?:igo|\.)?\s*1\s*[º°o.]?(?!\d)", re.IGNORECASE)


def heading_of(body: str) -> str:
    """The heading above a norm's articles: its epígrafe, its ementa as printed, a title
    ("CÓDIGO TRIBUTÁRIO DO MUNICÍPIO") and the enacting clause."""
    opening = body[:HEADING_SCAN]
    article = _FIRST_ARTICLE.search(opening)
    return opening[:article.start()] if article else opening[:HEADING_SHORT]
