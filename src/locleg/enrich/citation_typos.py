"""Type words misspelt in real texts ("LEI COOMPLEMENAR Nº 019", "Le nº 2.987", "Decreo nº"):
the words before a number sign read as the type they were meant to be.

Only where the grammar read nothing: at a number sign ("nº", "n°") that no citation holds, the
one to three words before it are compared with the type words of `citation_patterns.TYPE`.
A word is taken for a type word within a small edit distance (one edit for words of up to
seven letters, two beyond), never with a change in its first two letters, and never when it
is a Portuguese word of its own ("leia", "decreta"). The corrected words must still read as
one type of `TYPE`, and at least one of them must have been corrected.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from . import citation_patterns as P

# The words of the types (accents folded), the first a type can start with marked.
_FIRST = ("lei", "leis", "decreto", "decretos", "resolucao", "resolucoes", "portaria",
          "portarias", "emenda", "emendas", "instrucao", "instrucoes", "medida", "medidas")
_LATER = ("complementar", "complementares", "organica", "organicas", "delegada", "delegadas",
          "ordinaria", "ordinarias", "promulgada", "legislativo", "legislativos", "normativa",
          "normativas", "provisoria", "provisorias", "constitucional", "constitucionais")
_SPHERES = frozenset(P.SPHERE_WORD) | {"federal", "estadual", "municipal", "distrital"}
# Words of their own that are one or two edits from a type word.
_WORDS = frozenset({
    "leia", "leiam", "leio", "leu", "lhe", "leve", "lema", "les", "decreta", "decretam",
    "decretar", "decretou", "decorre", "decote", "decoro", "emende", "emendo", "emendar",
    "emendou", "ementa", "porteira", "medido", "medir", "media",
    "ordinario", "organico", "delegado", "delegados", "legislativa", "promulgado",
    "complemento", "complementa", "normativo", "provisorio", "constitucionalmente",
})


def misspelt_type(low: str, sign: int, floor: int) -> tuple[int, int, str] | None:
    """At a number sign at `sign` (lowercase text), the misspelt type written before it:
    (start, end of the type words, family), or None. Words start at or after `floor`."""
    words = _words_before(low, sign, floor)
    for first in range(len(words)):
        corrected, changed = [], False
        for start, end in words[first:]:
            word = low[start:end]
            fixed = _fix(word, first_word=not corrected)
            if fixed is None:
                break
            changed |= fixed != _fold(word)
            corrected.append((fixed, end))
            if not changed:
                continue
            t = P.TYPE_LOW.fullmatch(" ".join(w for w, _ in corrected))
            if t is not None:
                # the rest, up to the number sign, must be what REST reads (a sphere word)
                rest = [low[s:e] for s, e in words[first + len(corrected):]]
                if all(w in _SPHERES for w in rest):
                    return words[first][0], end, P.FAMILY[t.lastgroup]
    return None


def _words_before(low: str, sign: int, floor: int) -> list[tuple[int, int]]:
    """Up to three words (start, end) on the number sign's line right before it, in order."""
    words: list[tuple[int, int]] = []
    i = sign
    while len(words) < 3:
        j = i
        while j > floor and low[j - 1] in " \t":
            j -= 1
        if j == i:  # a word glued to the sign, or to the next word
            break
        k = j
        while k > floor and low[k - 1].isalpha():
            k -= 1
        if k == j or k > floor and low[k - 1] not in " \t\n(\"“'":
            break
        words.append((k, j))
        if k == floor or low[k - 1] not in " \t":
            break
        i = k
    words.reverse()
    return words


def _fix(word: str, first_word: bool) -> str | None:
    """The type word `word` stands for (itself when spelt right), None when it is none."""
    folded = _fold(word)
    if first_word and folded in _FIRST or not first_word and (folded in _LATER or folded in
                                                               _FIRST):
        return folded
    if folded in _SPHERES:
        return folded if not first_word else None
    if word in _WORDS or folded in _WORDS or len(folded) < 2:
        return None
    return _nearest(folded, first_word)


@lru_cache(maxsize=4096)
def _nearest(folded: str, first_word: bool) -> str | None:
    for target in _FIRST if first_word else _LATER + _FIRST:
        if target[:2] != folded[:2] or abs(len(target) - len(folded)) > 2:
            continue
        if _distance(folded[2:], target[2:], 1 if len(target) <= 7 else 2):
            return target
    return None


def _distance(a: str, b: str, most: int) -> bool:
    """Are a and b within `most` edits (insertions, deletions, substitutions, transpositions)?"""
    if abs(len(a) - len(b)) > most:
        return False
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > most:
            return False
        prev2, prev = prev, cur
    return prev[-1] <= most


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word)
                   if unicodedata.category(c) != "Mn")
