"""Portuguese word check and text quality: dictionary hit rate, garbage share, confidence."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from ..jurisdictions import fold

# Tokens are runs of letters; º and ª are letters to Unicode, but ordinals, not words.
_WORD = re.compile(r"[^\W\d_ºª]+")
_ROMAN = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_CID = re.compile(r"\(cid:\d+\)")
# pdfium marks a line-end hyphen with these; they are layout, not garbage.
_HYPHEN_MARKS = {"\x02", "\ufffe"}
_LAYOUT_CONTROLS = {"\n", "\r", "\t", "\f"}
# Characters that can never be garbage: printable ASCII and Latin, general punctuation, €, ™.
# A page made only of these skips the per-character count.
_SUSPECT = re.compile(
    r"[^\t\n\r\f\x20-\x7e\xa0-\u024f\u2010-\u2027\u2030-\u205e\u20ac\u2122]|\(cid:"
)

# Verb endings -> infinitive endings: the word list holds infinitives, not conjugations.
_VERB_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ando", ("ar",)), ("endo", ("er",)), ("indo", ("ir",)),
    ("ados", ("ar",)), ("adas", ("ar",)), ("ado", ("ar",)), ("ada", ("ar",)),
    ("idos", ("er", "ir")), ("idas", ("er", "ir")), ("ido", ("er", "ir")), ("ida", ("er", "ir")),
    ("ariam", ("ar",)), ("eriam", ("er",)), ("iriam", ("ir",)),
    ("aria", ("ar",)), ("eria", ("er",)), ("iria", ("ir",)),
    ("arao", ("ar",)), ("erao", ("er",)), ("irao", ("ir",)),
    ("ara", ("ar",)), ("era", ("er",)), ("ira", ("ir",)),
    ("arem", ("ar",)), ("erem", ("er",)), ("irem", ("ir",)),
    ("aram", ("ar",)), ("eram", ("er",)), ("iram", ("ir",)),
    ("assem", ("ar",)), ("essem", ("er",)), ("issem", ("ir",)),
    ("asse", ("ar",)), ("esse", ("er",)), ("isse", ("ir",)),
    ("avam", ("ar",)), ("ava", ("ar",)), ("iam", ("er", "ir")), ("ia", ("er", "ir")),
    ("amos", ("ar",)), ("emos", ("er",)), ("imos", ("ir",)),
    ("ou", ("ar",)), ("eu", ("er",)), ("iu", ("ir",)),
    ("am", ("ar",)), ("em", ("er", "ir", "ar")),
    ("as", ("ar",)), ("es", ("er", "ir", "ar")),
    ("a", ("ar", "er", "ir")), ("e", ("er", "ir", "ar")), ("o", ("ar", "er", "ir")),
)
_ENCLITICS = frozenset(
    "se lhe lhes o a os as lo la los las no na nos me te vos".split()
)


@cache
def words() -> frozenset[str]:
    """The shipped word list: casefolded, accents removed, compounds with their hyphen."""
    text = resources.files(__package__).joinpath("words_pt.txt").read_text("utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


def _singulars(w: str) -> list[str]:
    out = [w]
    if w.endswith("s") and len(w) > 3:
        for suffix, repl in (
            ("oes", "ao"), ("aes", "ao"), ("ais", "al"), ("eis", "el"), ("eis", "il"),
            ("ois", "ol"), ("is", "il"), ("ns", "m"), ("es", ""), ("s", ""),
        ):
            if w.endswith(suffix):
                out.append(w[: -len(suffix)] + repl)
    return out


def _variants(w: str) -> list[str]:
    """Base forms a folded word may come from: singular, masculine, adverb base, infinitive."""
    out: list[str] = []
    if w.endswith("mente") and len(w) > 7:
        base = w[:-5]
        out += [base, base[:-1] + "o"] if base.endswith("a") else [base]
    for s in _singulars(w):
        out.append(s)
        if s.endswith("a") and len(s) > 3:
            out += [s[:-1] + "o", s[:-1]]  # aprovada -> aprovado, diretora -> diretor
    for suffix, endings in _VERB_RULES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 2:
            stem = w[: -len(suffix)]
            out += [stem + e for e in endings]
    return out


@lru_cache(maxsize=65536)
def is_word(token: str) -> bool:
    """True when a token (any case, any accents) is a Portuguese word we know, inflections too."""
    w = fold(token)
    known = words()
    return w in known or any(v in known for v in _variants(w))


def is_compound(left: str, right: str) -> bool:
    """True when 'left-right' reads as a compound or a verb with its pronoun, not a split word."""
    if fold(f"{left}-{right}") in words():
        return True
    if fold(right) in _ENCLITICS:
        return is_word(left)
    return len(left) >= 3 and len(right) >= 3 and is_word(left) and is_word(right)


def _counts(token: str) -> bool:
    """One-letter tokens and Roman numerals say nothing about a text's quality."""
    return len(token) > 1 and not (token.isupper() and _ROMAN.match(token))


def counted_tokens(text: str) -> list[str]:
    """Tokens that count for the hit rate."""
    return [t for t in _WORD.findall(text) if _counts(t)]


def dict_ratio(text: str) -> tuple[float | None, int]:
    """Share of counted tokens that are known words, and how many tokens counted."""
    total = known = 0
    for token, n in Counter(_WORD.findall(text)).items():  # each distinct token once
        kind = _token_kind(token)
        if kind:
            total += n
            known += n if kind == 2 else 0
    if not total:
        return None, 0
    return known / total, total


@lru_cache(maxsize=65536)
def _token_kind(token: str) -> int:
    """0: does not count; 1: counts, unknown; 2: counts, a known word (cached: pages repeat)."""
    if not _counts(token):
        return 0
    return 2 if is_word(token) else 1


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
    dict_ratio: float | None
    garbage_ratio: float
    confidence: float | None


def assess(raw: str, text: str) -> TextQuality:
    """Measure a text: garbage on the raw extractor output, words on the normalized text."""
    ratio, tokens = dict_ratio(text)
    garbage = garbage_ratio(raw)
    chars = len("".join(text.split()))
    return TextQuality(chars, tokens, ratio, garbage, confidence(ratio, garbage))
