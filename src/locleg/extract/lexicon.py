"""Portuguese word check and text quality: legitimate-token share, garbage share, confidence.

Words are checked against the pt_BR Hunspell dictionary (Debian's hunspell-pt-br, through
pyenchant and libenchant): ~310,000 stems with every inflection, first names, surnames and
places, looked up by affix rules in a few microseconds. Its full expansion is 83 million forms
(17 million without the enclitic ones), too many to hold as a set, so the engine is asked.
A short shipped supplement adds the hyphenated compounds, abbreviations and units laws write
and the dictionary lacks.

A token is legitimate when it is a dictionary word, a number, a unit, a code (CMTT, SEMED) or
a proper name in name position; the share of legitimate tokens tells a real text layer from
a garbage one (docs/extraction.md).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

LANGUAGE = "pt_BR"
# Tokens: numbers ("2.199/2011", "3,45", "1º") and runs of letters; º and ª are letters to
# Unicode, but ordinals, not words. A number glued to letters ("l9") is no number.
_TOKEN = re.compile(
    r"(?<![^\W\d_])(?P<num>\d+(?:[.,/:-]\d+)*[ºª°]?)(?![^\W\d_])|(?P<word>[^\W\d_ºª]+)"
)
_ROMAN = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_VOWELS = frozenset("aeiouyáéíóúâêôãõàü")
_CODE_MAX = 8  # letters of an acronym or code in capitals: CMTT, SEMED, ISSQN, SEINFRA
_NAME_RUN_MAX = 6  # a name has at most this many capitalized parts in a row
_CID = re.compile(r"\(cid:\d+\)")
# Spellings the 1990 Agreement changed, as laws before 2009 print them: cinqüenta, idéia,
# heróico, vôo, lêem.
_OLD_SPELLING = (("ü", "u"), ("éi", "ei"), ("ói", "oi"), ("ôo", "oo"), ("êe", "ee"))
# pdfium marks a line-end hyphen with these; they are layout, not garbage.
_HYPHEN_MARKS = {"\x02", "\ufffe"}
_LAYOUT_CONTROLS = {"\n", "\r", "\t", "\f"}
# Characters that can never be garbage: printable ASCII and Latin, general punctuation, €, ™.
# A page made only of these skips the per-character count.
_SUSPECT = re.compile(
    r"[^\t\n\r\f\x20-\x7e\xa0-\u024f\u2010-\u2027\u2030-\u205e\u20ac\u2122]|\(cid:"
)
# Token kinds.
_NEUTRAL, _KNOWN, _UNKNOWN, _NAME = 0, 1, 2, 3


class DictionaryUnavailable(Exception):
    """The Portuguese dictionary or libenchant is missing: a set-up problem, not bad input."""


@cache
def _hunspell():
    """The pt_BR Hunspell dictionary, loaded once per process (~0.2 s, ~45 MB)."""
    try:
        import enchant
    except ImportError as e:
        raise DictionaryUnavailable(
            f"pyenchant cannot load libenchant ({e}): install the Debian packages "
            "libenchant-2-2 and hunspell-pt-br (make install)") from None
    broker = enchant.Broker()
    broker.set_ordering(LANGUAGE, "hunspell")  # the dictionary measured, whatever else is there
    try:
        return broker.request_dict(LANGUAGE)
    except enchant.errors.DictNotFoundError:
        raise DictionaryUnavailable(
            f"no {LANGUAGE} dictionary for the word check: install the Debian package "
            "hunspell-pt-br (make install)") from None


def dictionary_version() -> str:
    """Where the word check's dictionary comes from, for the docs and benches."""
    found = _hunspell()
    path = "/usr/share/hunspell/pt_BR.dic"
    size = os.path.getsize(path) if os.path.exists(path) else 0
    return f"{found.provider.name} {LANGUAGE} ({size / 1e6:.1f} MB .dic)"


@cache
def supplement() -> frozenset[str]:
    """The shipped supplement: compounds, abbreviations and units, casefolded."""
    text = resources.files(__package__).joinpath("supplement_pt.txt").read_text("utf-8")
    return frozenset(
        line.strip().casefold() for line in text.splitlines()
        if line.strip() and not line.startswith("#")
    )


def in_supplement(token: str) -> bool:
    """True when the shipped supplement lists the token (any case)."""
    return token.casefold() in supplement()


@lru_cache(maxsize=131072)
def is_word(token: str) -> bool:
    """True when a token (any case) is a Portuguese word: the dictionary or the supplement.

    Old spellings (cinqüenta, idéia) count too; numbers, codes and names do not (see
    legitimate_share).
    """
    if in_supplement(token):
        return True
    try:
        return _hunspell_knows(token)
    except UnicodeEncodeError:
        return False  # a lone surrogate: libenchant takes UTF-8 only, and it is no word


def _hunspell_knows(token: str) -> bool:
    check = _hunspell().check
    lower = token.lower()
    if check(token) or (lower != token and check(lower)):
        return True
    # "Castanha-do-Pará": Hunspell accepts the lower case or the capitalized form only.
    if "-" in token and check(lower[:1].upper() + lower[1:]):
        return True
    current = lower
    for old, new in _OLD_SPELLING:
        current = current.replace(old, new)
    return current != lower and check(current)


@lru_cache(maxsize=131072)
def _kind(token: str) -> int:
    """How one token counts (cached: pages repeat their words)."""
    if len(token) < 2 or (token.isupper() and _ROMAN.match(token)):
        return _NEUTRAL  # one letter or a Roman numeral says nothing about the text
    if is_word(token):
        return _KNOWN
    if token.isupper():
        # An acronym or a code ("CMTT", "SEMED"); a longer word in capitals may be a name.
        return _KNOWN if len(token) <= _CODE_MAX else _NAME
    if token[0].isupper() and token[1:].islower() and _VOWELS & set(token.lower()):
        return _NAME
    return _UNKNOWN


def legitimate_share(text: str) -> tuple[float | None, int]:
    """Share of counted tokens that are legitimate, and how many tokens counted.

    Legitimate: dictionary words, numbers, units, codes in capitals, and capitalized unknown
    words in name position (beside a legitimate token, in a run of at most six capitalized
    words: "Ubiratan Cavalcanti Bezerril – Presidente"). A page of capitalized junk makes
    long runs or has no legitimate neighbour, so it stays junk. One pass, in constant memory
    whatever the text's length.
    """
    known = unknown = 0
    run = 0  # name candidates in a row
    anchored = False  # the token before the run is legitimate
    previous = _NEUTRAL
    for m in _TOKEN.finditer(text):
        word = m["word"]
        kind = _KNOWN if word is None else _kind(word)  # None: a number
        if kind == _NAME:
            if not run:
                anchored = previous == _KNOWN
            run += 1
        else:
            if run:
                if (anchored or kind == _KNOWN) and run <= _NAME_RUN_MAX:
                    known += run
                else:
                    unknown += run
                run = 0
            if kind == _KNOWN:
                known += 1
            elif kind == _UNKNOWN:
                unknown += 1
        previous = kind
    if run:
        if anchored and run <= _NAME_RUN_MAX:
            known += run
        else:
            unknown += run
    total = known + unknown
    if not total:
        return None, 0
    return known / total, total


def garbage_ratio(raw: str) -> float:
    """Share of non-blank characters that are controls, private-use, U+FFFD or (cid:N)."""
    if not _SUSPECT.search(raw):
        return 0.0  # the common case, decided by one scan of the page
    cids = 0
    if "(cid:" in raw:
        cids = sum(len(m) for m in _CID.findall(raw))
        raw = _CID.sub("", raw)
    counts = Counter(raw)  # one decision per distinct character
    total = cids + sum(n for c, n in counts.items() if not c.isspace() and c not in _HYPHEN_MARKS)
    bad = cids + sum(n for c, n in counts.items() if _is_garbage(c))
    return bad / total if total else 0.0


def _is_garbage(c: str) -> bool:
    if c == "\ufffd":
        return True
    if c in _LAYOUT_CONTROLS or c in _HYPHEN_MARKS:
        return False
    return unicodedata.category(c) in ("Cc", "Co", "Cs", "Cn")


def confidence(ratio: float | None, garbage: float) -> float | None:
    """Text-layer confidence of extraction.md: min(1, ratio/0.9) x max(0, 1 - 10 x garbage)."""
    if ratio is None:
        return None
    return round(min(1.0, ratio / 0.9) * max(0.0, 1.0 - 10.0 * garbage), 4)


@dataclass(frozen=True)
class TextQuality:
    chars: int  # non-blank characters of the normalized text
    tokens: int
    word_share: float | None  # share of legitimate tokens (words, numbers, codes, names)
    garbage_ratio: float
    confidence: float | None


def assess(raw: str, text: str) -> TextQuality:
    """Measure a text: garbage on the raw extractor output, tokens on the normalized text."""
    ratio, tokens = legitimate_share(text)
    garbage = garbage_ratio(raw)
    chars = len("".join(text.split()))
    return TextQuality(chars, tokens, ratio, garbage, confidence(ratio, garbage))
