"""Paragraphs for reading: a page's text joined back from the scan's hard line breaks.

OCR and PDF text keep the printed lines, which turn ragged on a phone. A line joins the one
before it unless something says a paragraph starts: a blank line, a heading in capitals, a
structural mark (Art., §, Parágrafo único, I -, a)), or a short line ending a sentence. The
text itself is never changed: the original lines stay one click away.
"""

from __future__ import annotations

import re

# What opens a unit of a Brazilian norm (LC 95/1998, art. 10): articles, paragraphs,
# items (roman numerals), alíneas, and the parts of an act (anexo, capítulo, seção, título);
# "8 1º" is how OCR often reads "§ 1º".
# Case matters: a line that starts "art. 30 da Constituição" continues a sentence.
_STARTS = re.compile(
    r"""^(?:(?:Art|ART)(?:igo|IGO)?\.?\s*\d|§|8\s?\d{1,2}\s?º|(?:Par[áa]grafo|PAR[ÁA]GRAFO)\s+
        (?:[úu]nico|[ÚU]NICO)|[IVXLCDM]{1,7}\s*[-–—.)]\s|[a-z]\)\s|\d{1,3}\s*[-–—)]\s
        |(?:Anexo|ANEXO|Cap[íi]tulo|CAP[ÍI]TULO|Se[çc][ãa]o|SE[ÇC][ÃA]O|T[íi]tulo|T[ÍI]TULO)\b)""",
    re.X)
_ENDS_SENTENCE = re.compile(r"[.:;!?]['\"”»)]?$")
SHORT = 0.75  # a line shorter than this share of the page's widest lines ends a paragraph


def _is_heading(line: str) -> bool:
    letters = [c for c in line if c.isalpha() and c.upper() != c.lower()]  # º, ª have no case
    return len(letters) >= 3 and all(c.isupper() for c in letters)


def paragraphs(text: str) -> list[str]:
    """The page's text as paragraphs, each one line; page content and order unchanged."""
    lines = [line.strip() for line in text.splitlines()]
    widths = sorted(len(line) for line in lines if line)
    if not widths:
        return []
    # The typical full line: the 80th percentile ignores a few overlong ones.
    full = widths[min(len(widths) - 1, int(len(widths) * 0.8))]
    found: list[str] = []
    current: list[str] = []
    previous = ""

    def close() -> None:
        if current:
            found.append(_joined(current))
            current.clear()

    for line in lines:
        if not line:
            close()
        elif (not current or _STARTS.match(line) or _is_heading(line) or _is_heading(previous)
              or (_ENDS_SENTENCE.search(previous) and len(previous) < SHORT * full)):
            close()
            current.append(line)
        else:
            current.append(line)
        previous = line
    close()
    return found


def _joined(lines: list[str]) -> str:
    text = lines[0]
    for line in lines[1:]:
        # A hyphen left at a line end belongs to its word (extraction rejoined the others).
        text += line if text.endswith("-") else " " + line
    return text
