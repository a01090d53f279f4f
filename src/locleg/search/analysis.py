"""How words become index terms: Portuguese stems for ranked words, folded words for phrases.

The index (search/textindex.py) keeps each text twice: *stemmed* (lowercase, Portuguese stop
words dropped, accents folded, Snowball's Portuguese stemmer: "servidores" -> "servidor") for
the words a user types, and *folded* only (lowercase, accents folded, every word kept) for
quoted phrases, which stay exact. Both analyzers run inside Tantivy (Rust) when indexing;
the query side calls the very same analyzers, so a word and the text always agree.

Snowball's stemmer for Portuguese leaves some inflections apart ("tributário" -> tributari
but "tributária" -> tribut; "isenção" -> isenca but "isenções" -> isenco; "lei" but "leis").
A query word therefore also asks for the stems of its regular inflections (gender and
number: inflections()), each a little below the stem of the form typed.
"""

from __future__ import annotations

from functools import lru_cache

import tantivy
from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

STEMMED = "pt_stem"
FOLDED = "pt_fold"
# Tokens longer than this are dropped by both analyzers (OCR garbage, base64 left in text).
LONGEST_TOKEN = 60


def _stemmed() -> tantivy.TextAnalyzer:
    # Stop words are matched before folding: Tantivy's Portuguese list is accented ("não").
    return (TextAnalyzerBuilder(Tokenizer.simple())
            .filter(Filter.remove_long(LONGEST_TOKEN))
            .filter(Filter.lowercase())
            .filter(Filter.stopword("portuguese"))
            .filter(Filter.ascii_fold())
            .filter(Filter.stemmer("portuguese"))
            .build())


def _folded() -> tantivy.TextAnalyzer:
    return (TextAnalyzerBuilder(Tokenizer.simple())
            .filter(Filter.remove_long(LONGEST_TOKEN))
            .filter(Filter.lowercase())
            .filter(Filter.ascii_fold())
            .build())


ANALYZERS = {STEMMED: _stemmed, FOLDED: _folded}


@lru_cache(maxsize=1)
def _analyzers() -> dict[str, tantivy.TextAnalyzer]:
    return {name: make() for name, make in ANALYZERS.items()}


def register(index: tantivy.Index) -> None:
    """Give an opened index the analyzers its schema names."""
    for name, make in ANALYZERS.items():
        index.register_tokenizer(name, make())


@lru_cache(maxsize=65_536)
def stem(word: str) -> str | None:
    """The index term of one typed word in the stemmed fields; None for a stop word."""
    found = _analyzers()[STEMMED].analyze(word)
    return found[0] if found else None


def folded(text: str) -> list[str]:
    """The words of a text as the folded (phrase) fields hold them."""
    return _analyzers()[FOLDED].analyze(text)


def is_stop_word(word: str) -> bool:
    return bool(folded(word)) and stem(word) is None


# Weight of an inflection's stem against the stem of the form typed.
INFLECTION_WEIGHT = 0.8

# Plural endings and their singulars, longest first (cidadões is rare: -ões covers -ão).
_PLURALS = (("ções", "ção"), ("sões", "são"), ("ões", "ão"), ("ães", "ão"), ("ãos", "ão"),
            ("ais", "al"), ("éis", "el"), ("eis", "el"), ("óis", "ol"), ("is", "il"),
            ("ns", "m"), ("res", "r"), ("zes", "z"), ("ses", "s"), ("s", ""))
_SINGULARS = (("ção", ("ções",)), ("são", ("sões",)), ("ão", ("ões", "ães", "ãos")),
              ("al", ("ais",)), ("el", ("éis", "eis")), ("ol", ("óis",)), ("il", ("is",)),
              ("m", ("ns",)), ("r", ("res",)), ("z", ("zes",)), ("s", ("ses",)))
_VOWELS = set("aeiouáéíóúâêôãõà")


def _numbers(word: str) -> set[str]:
    """The word in the other number (singular <-> plural), by the regular rules: a word
    ending in -s is taken for a plural, any other for a singular."""
    found: set[str] = set()
    if word.endswith("s"):
        for plural, singular in _PLURALS:
            if word.endswith(plural) and len(word) > len(plural) + 1:
                found.add(word[: len(word) - len(plural)] + singular)
                break
        found.add(word[:-1])  # leis -> lei beside leis -> leil
        return found
    for singular, plurals in _SINGULARS:
        if word.endswith(singular) and len(word) > len(singular) + 1:
            found |= {word[: len(word) - len(singular)] + p for p in plurals}
            break
    if word[-1:] in _VOWELS:
        found.add(word + "s")
    return found


def _genders(word: str) -> set[str]:
    """Masculine <-> feminine of adjectives and nouns in -o/-a, -or/-ora (not -ão, -ção)."""
    for masculine, feminine in (("ores", "oras"), ("or", "ora"), ("os", "as"), ("o", "a")):
        for ending, other in ((masculine, feminine), (feminine, masculine)):
            stem_ = word[: len(word) - len(ending)]
            if word.endswith(ending) and len(stem_) > 1 and stem_[-1] not in "ãõ":
                return {stem_ + other}
    return set()


def inflections(word: str) -> set[str]:
    """Regular inflections of a Portuguese word (the word itself excluded): its plural or
    singular, its other gender, and the other gender's other number."""
    word = word.lower()
    if len(word) < 3 or not word.isalpha():
        return set()
    found = _numbers(word) | _genders(word)
    for other in _genders(word):
        found |= _numbers(other)
    found.discard(word)
    return found


@lru_cache(maxsize=65_536)
def stems_of(word: str) -> tuple[tuple[str, float], ...]:
    """The terms a typed word asks for in the stemmed fields, with their weights: its own
    stem (1.0), then the other stems of its inflections (INFLECTION_WEIGHT); () for a stop
    word."""
    own = stem(word)
    if own is None:
        return ()
    found = {own: 1.0}
    for other in sorted(inflections(word)):
        term = stem(other)
        if term is not None and term not in found:
            found[term] = INFLECTION_WEIGHT
    return tuple(found.items())
