"""The ementa as the text prints it: the paragraph right after the heading ("DISPÕE SOBRE ...",
"Altera a Lei nº ...", often in capitals or in quotation marks), for norms whose record has none.

A person finds it by where it stands: after the heading line(s) and before the preamble ("O
PREFEITO MUNICIPAL DE ..., no uso de suas atribuições", "A CÂMARA MUNICIPAL aprovou e eu
sanciono", "CONSIDERANDO ..."), the enacting clause or the first article. What stands there
and is not an ementa is passed over: a publisher's annotation ("(Revogado pelo Decreto nº 3)",
a "> note", "Autor: ..."), or refused: a preamble, a letterhead, an article. A norm printed
without an ementa (straight from the heading to its preamble) has none: nothing is made up.

Texts come as extraction gives them (a PDF's text layer, OCR, HTML, Markdown): lines wrapped
inside the paragraph are joined, Markdown emphasis and links are reduced to their words.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from .heading import Heading, fold_fast

# The longest ementa kept; past it the "paragraph" is a body that had no preamble before it.
MAX_CHARS = 1500
MIN_CHARS = 8
# An ementa is one paragraph; a layout that wraps it ends it at a blank line or at one of these.
_MAX_LINES = 8

# Lines that start the preamble, the enacting clause or the body (folded, lowercase).
_STOPS = re.compile(
    r"(?:o|a)\s+(?:prefeit[oa]|president[ea]|vice-prefeit[oa]|governador[a]?|secretari[oa]"
    r"|camara|mesa|povo|municipal\s+camara|municipio|diretor[a]?|superintendente|chefe|poder)\b"
    r"|(?:camara|mesa|povo)\s+(?:municipal|diretora|da|do)\b"
    r"|faco\s+saber|fazemos\s+saber|fica\s+|ficam\s+"
    r"|considerando\b|decreta\b|resolve\b|promulga\b|sanciono\b"
    r"|art(?:igo)?\s*\.?\s*[1il|]\s*(?:[o°º.\s-]|$)"
    r"|(?:cap[ií]tulo|titulo|secao|anexo)\b"
    # "FARID SAID MADI, Prefeito Municipal de ...", never "... DE VEREADOR, PREFEITO, VICE-"
    r"|[a-z' ]{3,60},\s+(?:prefeit[oa]|president[ea])\s+(?:municipal|d[oae])\b"
)
# Words of a preamble or a letterhead inside a would-be ementa (lowercased): it is not one.
_NOT_EMENTA = re.compile(
    r"\bno uso (?:de suas|das) atribui|\baprovou e (?:eu|ele|o)\b|\bsanciono\b"
    r"|^(?:estado|prefeitura|c[aâ]mara municipal|gabinete|munic[ií]pio) d[aoe]s?\b"
    r"|^(?:rep[uú]blica federativa|poder (?:executivo|legislativo))\b"
)
_WORD = re.compile(r"[^\W\d_]{3}")
_ABBREVIATION_END = re.compile(r"\b(?:n[o°º]|art|arts|inc|al|p)\.$")
# How much of a line decides whether it starts a preamble or is an annotation.
_LINE_START = 48
# A publisher's note between the heading and the ementa: passed over.
_ANNOTATION = re.compile(
    r"^(?:\(|\[\(|>|autor(?:ia)?\s*:|visualizar ato|conteudo obsoleto|publicad[oa]\b"
    r"|(?:projeto de lei|processo|mensagem)\b[^a-z]*\d)"
)
_LABEL = re.compile(r"^(?:ementa|assunto|sumula)\s*[:.-]\s*", re.IGNORECASE)
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_MARKDOWN_MARKS = re.compile(r"^#{1,6}\s*|\*\*\*|\*\*|~~|(?<!\w)_{1,2}(?=\w)|(?<=\w)_{1,2}(?!\w)")
_QUOTES = "\"“”'‘’«»"


def read_ementa(text: str, heading: Heading) -> str | None:
    """The ementa printed after `heading` in `text` (the page it was read from), or None."""
    lines = text.split("\n", heading.line + 48)  # the ementa is near: the rest stays whole
    if heading.line >= len(lines) or lines[heading.line].strip() != heading.lines[0]:
        return None  # a heading read from another text (a second reading of the scan)
    start = heading.line + _span(lines, heading)
    kept: list[str] = []
    for raw in lines[start:start + 40]:
        line = _plain(raw)
        if not line:
            if kept:
                break  # the paragraph ended
            continue
        low = fold_fast(line[:_LINE_START])
        if not kept and _ANNOTATION.match(low):
            continue
        # In quotation marks it is the ementa, whatever its first word ("“Fica fixada ...”").
        if _STOPS.match(low) and (kept or low[:1] not in _QUOTES):
            break
        kept.append(line)
        if len(kept) >= _MAX_LINES or _ends_paragraph(line):
            break
    ementa = _clean(" ".join(kept))
    if not MIN_CHARS <= len(ementa) <= MAX_CHARS:
        return None
    if _NOT_EMENTA.search(ementa.lower()) or not _WORD.search(ementa):
        return None
    return ementa


def _span(lines: list[str], heading: Heading) -> int:
    """How many lines of the text the heading took (blank lines between its parts included)."""
    taken, index = 0, heading.line
    for part in heading.lines:
        while index < len(lines) and lines[index].strip() != part:
            index += 1
        index += 1
        taken = index - heading.line
    return max(1, taken)


def _plain(line: str) -> str:
    """A line as words: Markdown links and emphasis and table bars dropped, spaces collapsed."""
    if "[" in line:
        line = _MARKDOWN_LINK.sub(r"\1", line)
    if any(mark in line for mark in "#*~_"):
        line = _MARKDOWN_MARKS.sub("", line.strip())
    return " ".join(line.strip(" |\t").split())


def _ends_paragraph(line: str) -> bool:
    """An ementa's last line ends with a full stop or a closing quote ("... providências.")."""
    return line[-1] in ".”\"" and not _ABBREVIATION_END.search(line[-6:].lower())


def _clean(ementa: str) -> str:
    """'EMENTA: Dispõe ...' and '“Dispõe ...”' as the ementa they print."""
    ementa = _LABEL.sub("", ementa.strip())
    if ementa[:1] in _QUOTES and ementa.count(ementa[:1]) + ementa.count("”") <= 2:
        ementa = ementa.strip(_QUOTES + " .") + "."  # quotes around the whole ementa only
    return ementa.strip()


def similarity(a: str, b: str) -> float:
    """How alike two ementas are, case, accents, spacing and punctuation aside (0..1)."""
    x, y = _loose(a), _loose(b)
    if not x or not y:
        return 0.0
    return SequenceMatcher(None, x, y, autojunk=False).ratio()


def _loose(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", fold_fast(text)).split())
