"""How text becomes search tokens: folding, hyphenated compounds, filter tags.

The same rules serve both backends. SQLite's FTS5 tokenizer (unicode61, remove_diacritics 2)
splits and folds the stored text itself; for PostgreSQL the text is split and folded here
and handed over as plain lexemes, so both see the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..enrich.status import NONE_KNOWN
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


def type_tag(type_normalized: str | None) -> str:
    return (type_normalized or "none").replace(".", "_")


def decade_tag(year: int) -> str:
    return f"dec_{year // 10}"


# Minimum-confidence filter in steps of 5 %: a norm carries conf_50 when all of its
# documents with text reach 0.50.
CONFIDENCE_STEPS = tuple(range(5, 100, 5))


def confidence_tags(confidence: float | None) -> list[str]:
    if confidence is None:
        return []
    return [f"conf_{step:02d}" for step in CONFIDENCE_STEPS if confidence >= step / 100]


def confidence_tag_for(minimum: float) -> str | None:
    """The tag that keeps every norm at or above `minimum` (rounded down to a 5 % step)."""
    step = int(round(minimum * 100, 6)) // 5 * 5
    return f"conf_{step:02d}" if step >= 5 else None


def number_tag(number_key: str) -> str:
    """The filter token of a canonical norm number: 2199 -> num_2199, 12-A -> num_12_a."""
    return "num_" + "_".join(words(number_key))


def norm_tags(uf: str, jurisdiction_code: int, type_normalized: str | None, year: int | None,
              methods: Iterable[str], has_text: bool, confidence: float | None,
              number_key: str | None = None, status: str | None = None) -> list[str]:
    """The filter tokens of one norm, stored in its own column of the index."""
    tags = [f"uf_{uf.lower()}", f"jur_{jurisdiction_code}", f"type_{type_tag(type_normalized)}",
            f"text_{'yes' if has_text else 'no'}", f"status_{status or NONE_KNOWN}"]
    if number_key and words(number_key):
        tags.append(number_tag(number_key))
    if year:
        tags += [f"year_{year}", decade_tag(year)]
    else:
        tags.append("year_none")
    tags += [f"method_{m}" for m in methods]
    tags += confidence_tags(confidence)
    return tags
