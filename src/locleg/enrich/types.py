"""Normalize a source's raw norm type to LexML's tipoDocumento vocabulary."""

from __future__ import annotations

import re
from functools import lru_cache

from ..jurisdictions import fold

OTHER = "outro"

# Checked in order after folding: the longest, most specific names come first.
_SYNONYMS: list[tuple[str, str]] = [
    (r"^(emenda (a |da )?(lei organica|lom)|elom|elo)\b", "emenda.lei.organica"),
    (r"^(lei organica|lom)\b", "lei.organica"),
    # "Lei Compl." and "L.C." before "lei": a complementary law read as an ordinary one would
    # merge LC 45 with Lei 45.
    (r"^(lei complementar|lei compl|lc|l c)\b", "lei.complementar"),
    (r"^(lei delegada)\b", "lei.delegada"),
    (r"^(decreto|dec)[- ]?lei\b", "decreto.lei"),
    (r"^(decreto legislativo|dec leg|dl)\b", "decreto.legislativo"),
    (r"^(lei ordinaria|lei|lo)\b", "lei"),
    (r"^(decreto executivo|decreto|dec)\b", "decreto"),
    (r"^(resolucao|res)\b", "resolucao"),
    (r"^(instrucao normativa|in)\b", "instrucao.normativa"),
    (r"^portaria\b", "portaria"),
    (r"^(emenda constitucional|emenda a constituicao)\b", "emenda.constitucional"),
    (r"^constituicao\b", "constituicao"),
    (r"^(ato da mesa|ato)\b", "ato"),
    (r"^deliberacao\b", "deliberacao"),
]
_COMPILED = [(re.compile(p), t) for p, t in _SYNONYMS]
# Every normalized type, as search filters and the CLI accept them.
NORM_TYPES: tuple[str, ...] = (*dict.fromkeys(t for _, t in _SYNONYMS), OTHER)
_NOISE = re.compile(r"\b(municipal|estadual|distrital|federal|n[ºo°]?\.?)\b|[º°.,;:-]")


@lru_cache(maxsize=4096)  # headings and records repeat a few spellings millions of times
def normalize_type(raw: str | None) -> str | None:
    """'Lei Ordinária' -> lei, 'LC' -> lei.complementar, 'Legislação Municipal' -> outro."""
    if raw is None or not raw.strip():
        return None
    folded = _NOISE.sub(" ", fold(raw))
    folded = " ".join(folded.split())
    for pattern, lexml_type in _COMPILED:
        if pattern.search(folded):
            return lexml_type
    return OTHER
