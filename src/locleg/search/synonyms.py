"""A bridge between how people ask and how laws are written: "fogos" and "artefatos
pirotécnicos", "meia passagem" and "meia tarifa", "IPTU" and "imposto predial e territorial
urbano".

synonyms.txt (beside this module, curated by hand) holds groups of expressions that mean the
same thing in a municipal norm; a query whose words hold one expression of a group also asks
for the others, as optional alternatives weighing less than the words typed
(search/textindex.py). Expressions are compared by their stems with stop words left out, as
the index compares words, so inflections and accents do not matter, except for a word whose
stem has SHORT_STEM letters or fewer: unrelated words share such stems (táxi and taxa are
"tax", poda and poder "pod"), so it must be typed as written or in a regular inflection.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from . import analysis

# Weight of a synonym's words against the words typed.
SYNONYM_WEIGHT = 0.6
SHORT_STEM = 3


@dataclass(frozen=True)
class Expansion:
    """Typed words [start, end) (positions among the words that are not stop words) match an
    expression of a group; `alternatives` are the group's other expressions, each the raw
    words to ask for together."""

    start: int
    end: int
    alternatives: tuple[tuple[str, ...], ...]


def _stems(expression: str) -> tuple[str, ...]:
    return tuple(s for s in (analysis.stem(w) for w in analysis.folded(expression)) if s)


def _forms(expression: str) -> tuple[frozenset[str], ...]:
    """For each stem of the expression, the typed words it stands for when the stem is
    short (the word and its regular inflections, folded); empty when any word will do."""
    forms = []
    for word in analysis.folded(expression):
        stem = analysis.stem(word)
        if stem:
            forms.append(frozenset({word, *analysis.inflections(word)})
                         if len(stem) <= SHORT_STEM else frozenset())
    return tuple(forms)


@lru_cache(maxsize=1)
def groups() -> tuple[tuple[tuple[tuple[str, ...], tuple[str, ...]], ...], ...]:
    """Each group: its expressions as (stems, raw words), read once from synonyms.txt."""
    return tuple(tuple((stems, words) for stems, words, _ in group) for group in _read())


@lru_cache(maxsize=1)
def _read() -> tuple[tuple[tuple[tuple[str, ...], tuple[str, ...],
                                 tuple[frozenset[str], ...]], ...], ...]:
    found = []
    for line in files(__package__).joinpath("synonyms.txt").read_text("utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        expressions = []
        for expression in line.split("|"):
            words = tuple(analysis.folded(expression))
            stems = _stems(expression)
            if stems and all((stems, words) != (s, w) for s, w, _ in expressions):
                expressions.append((stems, words, _forms(expression)))
        if len(expressions) > 1:
            found.append(tuple(expressions))
    return tuple(found)


@lru_cache(maxsize=1)
def _by_first_stem() -> dict[str, list[tuple[tuple[str, ...], tuple[frozenset[str], ...],
                                             int]]]:
    index: dict[str, list[tuple[tuple[str, ...], tuple[frozenset[str], ...], int]]] = {}
    for number, group in enumerate(_read()):
        for stems, _, forms in group:
            index.setdefault(stems[0], []).append((stems, forms, number))
    return index


def expansions(stems: Sequence[str], typed: Sequence[str]) -> list[Expansion]:
    """The synonyms of the expressions found in a run of typed words (given by their stems,
    stop words left out, and `typed`, the same words folded): for each place an expression
    of a group starts, the longest one, with the other expressions of its group."""
    found: list[Expansion] = []
    index = _by_first_stem()
    for start, first in enumerate(stems):
        for expression, forms, number in sorted(index.get(first, ()),
                                                key=lambda e: -len(e[0])):
            end = start + len(expression)
            if tuple(stems[start:end]) != expression:
                continue
            if any(form and word not in form
                    for form, word in zip(forms, typed[start:end], strict=True)):
                continue
            others = tuple(words for s, words in groups()[number] if s != expression)
            if others and not any(e.start == start and e.end == end and e.alternatives
                                  == others for e in found):
                found.append(Expansion(start, end, others))
    return found
