"""Highlighted fragments of a matching norm, computed in Python from a bounded window.

FTS5's snippet() costs grow with the square of a document's matches (a 1 MB text full of
the word took seconds, a 21 MB one many minutes, uninterruptibly) and PostgreSQL's
ts_headline parses the whole text. Here the database hands over at most WINDOW characters
of each text shown, and one regular expression built from the query finds the words with
the index's own folding: case and accents ignored, 'mototáxi' matching 'moto-táxi' and
'moto - táxi', '2199' matching '2.199'; a word typed unquoted marks every word of the text
with one of its stems ('servidor' marks 'servidores'), a quoted one only itself. The work
per result is bounded by the window.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from itertools import islice

from ..jurisdictions import fold
from . import analysis
from .query import Node, words_of
from .text import MARK_END, MARK_START

# Characters of a text read to find its snippet (the whole text for nearly every norm).
WINDOW = 100_000
# Characters of an ementa highlighted in a result.
EMENTA_SHOWN = 2_000
FRAGMENT = 240  # characters of a snippet, about 36 words
_LEAD = 60  # characters shown before the first word of the fragment
_MAX_MATCHES = 300  # matches marked in an ementa, or considered for a fragment
# A fragment is chosen among the matches this far after the first one: the scan of a long
# text stops there.
_SCAN_AFTER_FIRST = 20 * FRAGMENT
_COMBINING = "[\u0300-\u036f]*"
# A hyphen inside a compound, even across a line end ('moto-\ntáxi', 'MOTO - TÁXI'), and
# the dot of a dotted number: what text.joined_variants joins over when indexing.
_LETTER_JOINER = r"(?:[ \t]?[-\u2010\u2011][ \t]*\n?[ \t]*)?"
_DIGIT_JOINER = r"\.?"
_ELLIPSIS = "…"
_SPACE = re.compile(r"\s")
_NOT_WORD = re.compile(r"[\W_]+")


@cache
def _letters_folding_to() -> dict[str, str]:
    """For each lowercase ASCII letter, every other letter of Latin-1 whose folded form it
    is (A, á, Á, ã…): the pattern spells out cases itself, faster than re.IGNORECASE.
    Latin-1 holds every letter Portuguese writes; with the letters beyond it (ā, ą, ạ…,
    which the index folds too) a query's pattern took 12 ms to compile instead of 5, at
    every search whose words are new (docs/benchmarks.md, session 30)."""
    found: dict[str, list[str]] = {}
    for code in range(0x80, 0x100):
        char = chr(code)
        if not unicodedata.category(char).startswith("L"):
            continue
        folded = fold(char)
        if len(folded) == 1 and folded.isascii() and folded != char:
            found.setdefault(folded, []).append(char)
    return {base: base.upper() + "".join(chars) for base, chars in found.items()}


def _variants(char: str) -> str:
    """The character and every character that folds to it."""
    others = _letters_folding_to().get(char)
    if others is None:
        upper = char.upper()
        others = upper if len(upper) == 1 and upper != char else ""
    return char + others


def _char_pattern(char: str) -> str:
    variants = _variants(char)
    body = re.escape(char) if len(variants) == 1 else "[" + re.escape(variants) + "]"
    return body + _COMBINING


def _word_pattern(folded: str, prefix: bool) -> str:
    parts = []
    for i, char in enumerate(folded):
        if i:
            before = folded[i - 1]
            if before.isdigit() and char.isdigit():
                parts.append(_DIGIT_JOINER)
            elif not before.isdigit() and not char.isdigit():
                parts.append(_LETTER_JOINER)
        parts.append(_char_pattern(char))
    end = r"\w*" if prefix else r"(?!\w)"
    return r"(?<!\w)" + "".join(parts) + end


class Highlighter:
    """Finds the query's words in a text and marks them with MARK_START / MARK_END."""

    def __init__(self, node: Node | None) -> None:
        # (folded form, prefix) -> the stems a word of the text must have (None: any).
        seen: dict[tuple[str, bool], frozenset[str] | None] = {}
        for word in words_of(node):
            if not word.folded:
                continue
            stems = None if word.prefix or word.exact else analysis.stems_of(word.raw)
            if stems == ():
                continue  # a stop word: searched for nowhere, marked nowhere
            if stems is None:
                seen[(word.folded, word.prefix)] = None
                continue
            # Each stem is the opening of the words it stands for: look for words that
            # start with it, then keep those whose stem it is.
            for term, _ in stems:
                kept = seen.get((term, True), frozenset())
                if kept is not None:
                    seen[(term, True)] = kept | {t for t, _ in stems}
        # Shorter words first: 'moto' and 'táxi' are marked apart in 'moto-táxi' when the
        # query has them, 'mototáxi' marks the whole compound only when they are not.
        terms = sorted(seen, key=lambda t: (len(t[0]), t))
        # Whichever stem's opening a word matched, it is marked when its stem is any of the
        # query's: the regex tries the shortest opening first ('mot' in 'mototaxi').
        self.stemmed = [seen[t] is not None for t in terms]
        self.stems = frozenset().union(*(seen[t] for t in terms if seen[t] is not None))
        if not terms:
            self.pattern = None
            return
        # A look at the first letter before anything else: the regex engine then skips
        # through the text at C speed (six times faster than trying every word at every
        # position).
        firsts = "".join(sorted({c for w, _ in terms for c in _variants(w[0])}))
        self.pattern = re.compile(
            f"(?=[{re.escape(firsts)}])(?:"
            + "|".join(f"(?P<t{i}>{_word_pattern(w, p)})" for i, (w, p) in enumerate(terms))
            + ")")

    def _wanted(self, match: re.Match) -> bool:
        if not self.stemmed[int(match.lastgroup[1:])]:
            return True
        # Across a hyphen or a line end ('guarda-\nchuva'), the word is the joined form.
        return analysis.stem(_NOT_WORD.sub("", match.group())) in self.stems

    def _matches(self, text: str, span: int | None = None) -> list[re.Match]:
        """The first matches; with `span`, only those within `span` characters of the
        first one (the rest of the text is not read)."""
        if self.pattern is None:
            return []
        found: list[re.Match] = []
        for match in islice(filter(self._wanted, self.pattern.finditer(text)), _MAX_MATCHES):
            if span is not None and found and match.start() > found[0].start() + span:
                break
            found.append(match)
        return found

    def mark(self, text: str, limit: int = EMENTA_SHOWN) -> str:
        """The text (cut at `limit` characters) with every match marked."""
        cut = len(text) > limit
        shown = text[:limit]
        return _marked(shown, self._matches(shown), 0, len(shown)) + (_ELLIPSIS if cut else "")

    def fragment(self, text: str, more: bool = False) -> str:
        """About FRAGMENT characters around the densest group of matches, marked; the
        opening of the text when nothing matches in it. `more`: the text was cut."""
        matches = self._matches(text, _SCAN_AFTER_FIRST)
        start = 0
        if matches:
            best = _densest(matches)
            start = _word_start(text, max(0, matches[best].start() - _LEAD))
        end = _word_end(text, start + FRAGMENT)
        for m in matches:  # never cut a marked word in two
            if m.start() < end < m.end():
                end = m.end()
        body = _marked(text, matches, start, end)
        return ((_ELLIPSIS if start > 0 else "") + body
                + (_ELLIPSIS if end < len(text) or more else ""))


def _densest(matches: list[re.Match]) -> int:
    """Index of the match that opens the span of FRAGMENT characters holding the most
    different words (the first such span)."""
    best, best_count, last = 0, 0, 0
    for i, first in enumerate(matches):
        last = max(last, i)
        while last + 1 < len(matches) and matches[last + 1].end() - first.start() <= FRAGMENT:
            last += 1
        count = len({m.lastgroup for m in matches[i:last + 1]})
        if count > best_count:
            best, best_count = i, count
    return best


def _word_start(text: str, position: int) -> int:
    """The start of the word at `position` or the next one, so no word is cut in two."""
    if position <= 0:
        return 0
    space = _SPACE.search(text, position - 1, position + 40)
    return space.end() if space else position


def _word_end(text: str, position: int) -> int:
    if position >= len(text):
        return len(text)
    space = text.rfind(" ", max(0, position - 40), position)
    newline = text.rfind("\n", max(0, position - 40), position)
    found = max(space, newline)
    return found if found > 0 else position


def _marked(text: str, matches: list[re.Match], start: int, end: int) -> str:
    parts, at = [], start
    for m in matches:
        if m.start() < start or m.end() > end:
            continue
        parts += [text[at:m.start()], MARK_START, m.group(), MARK_END]
        at = m.end()
    parts.append(text[at:end])
    return "".join(parts)
