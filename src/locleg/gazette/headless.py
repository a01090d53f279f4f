"""Acts printed without a heading of their own: many portarias under one title and one
preamble, each a row of a table or a paragraph.

Two shapes are read, both seen in real gazettes:

- **rows under one title and one RESOLVE**: a title in the plural ("PORTARIAS “P” DE 04 DE
  ABRIL DE 2017.", "PORTARIAS INDIVIDUAIS DA PREFEITURA …"), a preamble that resolves, then
  one row per act: "N.º 132 – PAULO …", "GP/SUBSC/CERH/CPM Nº 314 - processo nº …" (Rio's
  D.O.), or a table's row under a header naming the portaria's column ("PORTARIA Nº  PROCESSO
  Nº  MATRÍCULA Nº  NOME" ⏎ "760 /2018   6281/2018   01082220-0   RENATA …", Feira de
  Santana). The year is the row's, else the title's date's.
- **paragraphs numbered at their end**: under one preamble ("PREFEITO MUNICIPAL DE PORTO
  ALEGRE, no uso de suas atribuições legais,"), each act is a paragraph that starts with its
  verb in capitals ("MODIFICA, …", "AUTORIZA …", "DESIGNA …") and ends with its number and
  date ("… através da Portaria 110 de 26/02/2015 (Processo …).", Porto Alegre's DOPA).

What is not read: a table whose rows do not start with the act's number (a name first), and
acts of other kinds numbered at their end ("através do Ato 024": a pension institute's acts,
not portarias).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ..enrich.heading import month_number

_I, _M = re.IGNORECASE, re.MULTILINE
# A title in the plural, alone on its line: "PORTARIAS “P” DE 04 DE ABRIL DE 2017.",
# "PORTARIAS INDIVIDUAIS DA PREFEITURA MUNICIPAL DE FEIRA DE SANTANA".
_TITLE = re.compile(r"^[ \t]*(?P<title>PORTARIAS\b[^\n]{0,140}?)[ \t\r]*$", _M)
_TITLE_DATE = re.compile(r"\bde\s+(\d{1,2})[º°o]?\s+de\s+([^\W\d_]+)\s+de\s+((?:19|20)\d{2})\b",
                         _I)
# The preamble resolves before the first row.
_RESOLVES = re.compile(r"\br\s?e\s?s\s?o\s?l\s?v\s?e\b", _I)
# Rows: "N.º 132 – NAME", "GP/SUBSC/CERH/CPM Nº 314 - processo …" (a series' letters first).
_NUMBERED_ROW = re.compile(
    r"^[ \t]*(?:[A-Z][A-Z0-9/.ªº-]*[ \t]+)?N[º°.]{1,3}[ \t]*º?[ \t]*(?P<number>\d{1,6})"
    r"[ \t]*[-–—][ \t]*\S", _M)
# A table's row: the number and year in the first column, more columns after it.
_TABLE_ROW = re.compile(
    r"^[ \t]*(?P<number>\d{1,6})[ \t]*/[ \t]*(?P<year>(?:19|20)\d{2})(?!\d)[ \t]{2,}\S", _M)
# The header of such a table names the portaria's column first.
_TABLE_HEADER = re.compile(r"^[ \t]*PORTARIA[ \t]+N[º°.]{0,3}[ \t]{2,}\S", _M)
# A paragraph numbered at its end: "… através da Portaria 110 de 26/02/2015 (Processo …)."
_NUMBERED_END = re.compile(
    r"atrav[ée]s\s+da\s+Portaria\s+(?P<number>\d{1,6})(?:/(?P<short>\d{2,4}))?,?\s+de\s+"
    r"(?P<day>\d{1,2})/(?P<month>\d{1,2})/(?P<year>(?:19|20)\d{2})")
# The paragraph opens with its verb in capitals: "MODIFICA,", "APLICA PENA", "DESIGNA, a contar".
_VERB_START = re.compile(r"[ \t]*[A-ZÀ-Ý]{4,}[ ,]")
_PREAMBLE = re.compile(r"[^\n]{3,160}\bno\s+uso\s+d[ae]s?\s+(?:suas\s+)?atribui[^\n]*,[ \t\r]*$",
                       _I)
# A page's header or footer: the gazette's name, its edition, its page, its address.
_FURNITURE = re.compile(r"di[aá]rio\s*oficial|divulga[cç][aã]o\s+do\s+munic|\bedi[cç][aã]o\b"
                        r"|\bp[aá]gina\s+\d|https?://|www\.", _I)
# How far a paragraph's start may stand above its closing number, in lines.
_PARAGRAPH_LINES = 40


@dataclass(frozen=True)
class HeadlessAct:
    """One act without a heading: where it starts, and what its row or closing words say."""

    start: int  # its row's or paragraph's first character (the first row: its title's)
    heading_end: int  # the end of the line that numbers it
    number: str
    year: int | None
    date: date | None
    heading: str  # the row, or the closing words that number it, as printed
    kind: str = "portaria"


def headless_acts(text: str, lo: int, hi: int) -> list[HeadlessAct]:
    """The acts without a heading of their own in text[lo:hi], in order."""
    found: list[HeadlessAct] = []
    if text.find("PORTARIAS", lo, hi) >= 0:
        found += _rows(text, lo, hi)
    if text.find("através da Portaria", lo, hi) >= 0 or text.find(
            "atraves da Portaria", lo, hi) >= 0:
        found += _paragraphs(text, lo, hi)
    return sorted(found, key=lambda act: act.start)


def _rows(text: str, lo: int, hi: int) -> list[HeadlessAct]:
    out: list[HeadlessAct] = []
    titles = [t for t in _titles(text, lo, hi) if _in_capitals(t["title"])]
    for i, title in enumerate(titles):
        stop = titles[i + 1].start() if i + 1 < len(titles) else hi
        resolves = _RESOLVES.search(text, title.end(), min(stop, title.end() + 1500))
        if resolves is None:
            continue
        when = _title_date(title["title"])
        header = _TABLE_HEADER.search(text, resolves.end(), stop)
        rows: list[HeadlessAct] = []
        if header:
            for row in _TABLE_ROW.finditer(text, header.end(), stop):
                rows.append(_row(text, row, int(row["year"]), when, hi))
        else:
            for row in _NUMBERED_ROW.finditer(text, resolves.end(), stop):
                rows.append(_row(text, row, when.year if when else None, when, hi))
        if len(rows) >= 2 or (rows and header):
            # the first row carries the title and the preamble all its rows share
            first = rows[0]
            rows[0] = HeadlessAct(title.start("title"), first.heading_end, first.number,
                                  first.year, first.date, first.heading)
            out += rows
    return out


def _titles(text: str, lo: int, hi: int) -> list[re.Match]:
    """The title lines: each "PORTARIAS" found by a plain search, its line then matched (a
    regular expression anchored at every line would try each line of the text)."""
    out: list[re.Match] = []
    at = text.find("PORTARIAS", lo, hi)
    while at >= 0:
        line_start = text.rfind("\n", lo, at) + 1 or lo
        title = _TITLE.match(text, line_start, hi)
        if title and title.start("title") == at:
            out.append(title)
        at = text.find("PORTARIAS", at + 9, hi)
    return out


def _row(text: str, row: re.Match, year: int | None, when: date | None,
         hi: int) -> HeadlessAct:
    start = row.start() + len(row[0]) - len(row[0].lstrip(" \t"))
    end = text.find("\n", start, hi)
    end = hi if end < 0 else end
    # a row dated by its title only when the title's year is the row's
    dated = when if when and (year is None or when.year == year) else None
    return HeadlessAct(start, end, row["number"].lstrip("0") or "0", year, dated,
                       text[start:end].strip())


def _paragraphs(text: str, lo: int, hi: int) -> list[HeadlessAct]:
    out: list[HeadlessAct] = []
    floor = lo
    for closing in _NUMBERED_END.finditer(text, lo, hi):
        start = _paragraph_start(text, closing.start(), floor)
        if start is None:
            continue
        above = _line_above(text, start, floor)
        if above is not None and _PREAMBLE.fullmatch(above[1]):
            start = above[0]  # the preamble all the paragraphs below it share
        end = text.find("\n", closing.end(), hi)
        end = hi if end < 0 else end
        try:
            when = date(int(closing["year"]), int(closing["month"]), int(closing["day"]))
        except ValueError:
            when = None
        out.append(HeadlessAct(start, end, closing["number"].lstrip("0") or "0",
                               int(closing["year"]), when, closing[0]))
        floor = end
    return out


def _paragraph_start(text: str, at: int, floor: int) -> int | None:
    """The start of the paragraph that holds position `at`: the nearest line above it that
    opens with a verb in capitals after a blank line, the page's header not the line above it
    (a page break inside a paragraph puts blank lines and the header before its next line)."""
    line_start = text.rfind("\n", floor, at) + 1 or floor
    for _ in range(_PARAGRAPH_LINES):
        if line_start <= floor:
            return None
        line_end = text.find("\n", line_start)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        prev_start = text.rfind("\n", floor, line_start - 1) + 1 or floor
        if _VERB_START.match(line) and not text[prev_start:line_start - 1].strip():
            above = _line_above(text, line_start, floor)
            if above is None or not _FURNITURE.search(above[1]):
                return line_start + len(line) - len(line.lstrip(" \t"))
        line_start = prev_start
    return None


def _line_above(text: str, start: int, floor: int) -> tuple[int, str] | None:
    """The nearest line with text above `start` (blank lines skipped), within three lines."""
    at = text.rfind("\n", floor, start) + 1 or floor
    for _ in range(4):
        if at <= floor:
            return None
        begin = text.rfind("\n", floor, at - 1) + 1 or floor
        line = text[begin:at - 1]
        if line.strip():
            return begin + len(line) - len(line.lstrip(" \t")), line.strip()
        at = begin
    return None


def _in_capitals(title: str) -> bool:
    letters = [c for c in title if c.isalpha()]
    return bool(letters) and sum(map(str.isupper, letters)) >= 0.8 * len(letters)


def _title_date(title: str) -> date | None:
    found = _TITLE_DATE.search(title)
    if found is None:
        return None
    month = month_number(found[2].lower())
    try:
        return date(int(found[3]), month, int(found[1])) if month else None
    except ValueError:
        return None
