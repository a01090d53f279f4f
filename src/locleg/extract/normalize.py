"""Normalize extracted text: line ends, hyphenated breaks, ligatures, controls, spaces."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .lexicon import in_supplement, is_word

# Only the Latin ligature code points: NFKC on the whole text would also turn º ª into o a.
_LIGATURES_CHARS = {chr(cp): unicodedata.normalize("NFKC", chr(cp)) for cp in range(0xFB00, 0xFB07)}
_ROMAN = re.compile(r"^[IVXLCDM]+$")
_ENCLITICS = frozenset("se lhe lhes o a os as lo la los las no na nos me te vos".split())
_LETTERS = r"[^\W\d_]+"
# pdfium drops a line-end hyphen and the line break after it and puts \x02 or U+FFFE instead.
_PDFIUM_BREAK = re.compile(
    rf"(?P<a>{_LETTERS})[\x02\ufffe]\n?(?P<b>{_LETTERS})(?P<tail>\S*)(?P<space>[ \t]*)"
)
_PDFIUM_MARK = re.compile(r"[\x02\ufffe]\n?")
# A hyphen that ends a line in any other extractor's output (pdftotext -raw, OCR, plain text).
_HYPHEN_BREAK = re.compile(
    rf"(?P<a>{_LETTERS})-[ \t]*\n[ \t]*(?P<b>{_LETTERS})(?P<tail>\S*)(?P<space>[ \t]*)"
)
_HYPHEN_EOL = re.compile(r"-[ \t]*\n")
_SPACES = re.compile(r" {2,}")
_BLANK_LINES = re.compile(r"\n{3,}")
# A soft hyphen is only a hint where a word may break: it never belongs in the text.
_SOFT_BREAK = re.compile(r"\u00ad[ \t]*\n[ \t]*(?P<b>\S*)(?P<space>[ \t]*)")


def join_hyphenated(left: str, right: str, rest: str = "") -> str | None:
    """'pala'+'vra' -> 'palavra'; 'guarda'+'chuva' -> 'guarda-chuva'; None: no word was split.

    rest is the rest of a hyphenated chain after right ('-Pará' in 'Castanha-|do-Pará'); the
    word returned is left and right only. No extractor can tell a hyphen that breaks a word
    from one that belongs to it (docs/extraction.md), so the dictionary decides. Join when
    the joined form is a word (and the hyphenated one is not a listed compound); keep the
    hyphen when the hyphenated form is a word ('guarda-chuva', 'considera-se',
    'Castanha-do-Pará'), when it is a word and a pronoun ('vende-lo') or two words
    ('moto-boy'), and before a capital ('Decreto-Lei', 'Juazeiro-BA') unless the line is in
    capitals. When nothing is known ('Caval-|canti', a surname) it joins: a line-end hyphen is
    most often a syllable break.
    """
    if len(left) < 2 or (left.isupper() and _ROMAN.match(left)):
        return None  # an item number ("II-") or an initial
    hyphenated, joined = f"{left}-{right}", left + right
    if right[:1].isupper() and not left.isupper():
        return hyphenated
    if is_word(joined + rest):
        # Hunspell also accepts a verb with a pronoun ('transpor-te', 'regi-me') and a
        # prefix before anything ('ex-ceção'): when the joined form is a word, those are a
        # syllable break. Compounds that laws write with a hyphen although the joined form
        # is a word too ('moto-táxi', 'mototáxi' since the 1990 Agreement) are in the
        # supplement.
        return hyphenated if in_supplement(hyphenated + rest) else joined
    if is_word(hyphenated + rest):
        return hyphenated
    if is_word(left) and (right.lower() in _ENCLITICS or (
            len(left) >= 3 and len(right) >= 3 and is_word(right))):
        return hyphenated  # a verb and its pronoun, or two words: a compound
    return joined


_CHAIN = re.compile(r"(?:-[^\W\d_]+)*")


def _rejoin(m: re.Match[str]) -> str:
    rest = _CHAIN.match(m["tail"]).group()
    word = join_hyphenated(m["a"], m["b"], rest)
    if word is None:
        return f"{m['a']}-\n{m['b']}{m['tail']}{m['space']}"  # the line as it was printed
    # The line break moves after the rejoined word, so lines keep their count and the word
    # stays whole for search.
    return word + m["tail"] + ("\n" if m["space"] else "")


def _rejoin_soft(m: re.Match[str]) -> str:
    return m["b"] + ("\n" if m["space"] else "")


def normalize_text(raw: str) -> str:
    """Clean one page of extracted text; keeps line breaks, never joins pages."""
    # Each step runs only when its trigger is present: most pages need few of them, and
    # this runs on every page of the corpus.
    text = raw.replace("\r\n", "\n").replace("\r", "\n") if "\r" in raw else raw
    if "\x02" in text or "\ufffe" in text:
        text = _PDFIUM_BREAK.sub(_rejoin, text)
        text = _PDFIUM_MARK.sub("-\n", text)  # a mark between non-letters ("39-B"): keep "-"
    if _HYPHEN_EOL.search(text):
        text = _HYPHEN_BREAK.sub(_rejoin, text)
    if "\u00ad" in text:
        text = _SOFT_BREAK.sub(_rejoin_soft, text)
    # One decision per distinct character: pages repeat the same hundred characters.
    table = {ord(c): _clean_char(c) for c in set(text) if _clean_char(c) != c}
    if table:
        text = text.translate(table)
    if "  " in text:
        text = _SPACES.sub(" ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    if "\n\n\n" in text:
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip()


@lru_cache(maxsize=4096)
def _clean_char(c: str) -> str:
    if c == "\n":
        return c
    if c in _LIGATURES_CHARS:
        return _LIGATURES_CHARS[c]
    if c in "\t\f\v":
        return " " if c == "\t" else "\n"
    cat = unicodedata.category(c)
    if cat == "Zs":
        return " "  # NBSP, thin and other spaces
    if cat in ("Cc", "Cf", "Co", "Cs", "Cn"):
        return ""  # controls, soft hyphens, zero-width marks, private use, noncharacters
    return c
