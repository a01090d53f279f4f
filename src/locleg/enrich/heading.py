"""What a norm's text says about itself: its heading ("LEI Nº 2.199/2011") read into type,
number and date, and compared with what the source's metadata says.

The reader runs on the first page of every norm (millions of pages), so it looks only at the
top of the page, before "Art. 1º" or the enacting clause, and tries its full grammar only on
lines that start with a norm type. It reads born-digital text layers and OCR output alike:
"Nº" written "N°", "N.", "NO", "Nr." or "N9", digits with OCR letters ("1.l65"), thousands
dots read as commas, months damaged ("ABRlL", "MARCO"), headings split over two lines.

What it must not take for the heading: a norm cited in the letterhead, the preamble or the
ementa ("com fulcro no art. 39-B da\\nLei Federal nº 12.009, de 29 de julho de 2009"), a bill
("PROJETO DE LEI Nº 12/2013"), a message, a process number, a page header. A citation is
told from a heading by where it stands: a heading starts its line and is a line of its own
(or is followed by the ementa), while a citation continues a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ..jurisdictions import fold
from .numbering import canonical_number
from .types import normalize_type

# The first plausible year of a Brazilian norm (the court's arrival in 1808, as the citations
# reader has it); a heading dated after today is a misreading.
MIN_YEAR = 1808
# The heading is near the top: past this many characters or lines it is a citation anyway.
HEAD_CHARS = 4000
HEAD_LINES = 60
# A heading is accepted from this score on (see _score).
MIN_SCORE = 4

# --- The grammar, on folded text (lowercase ASCII, accents removed; "º" folds to "o"). ---


def _ocr_word(word: str) -> str:
    """A word as OCR may print it: 'lei' also as 'LEl', 'LE1', 'L E I'."""
    letters = {"i": "[il1|!]", "l": "[li1|]", "o": "[o0]", "e": "[e3]", "s": "[s5]"}
    return " ?".join(letters.get(ch, re.escape(ch)) for ch in word)


def _words(*words: str) -> str:
    return r"\s+".join(_ocr_word(w) for w in words)


# LEI, the commonest type, worn down by OCR: LEl, LE1, LEE, LEU, LES, LFI, LET, LEX (a type,
# a "Nº" and a number must follow; the reading notes the damage).
_LEI = r"(?:[li1|] ?[e3f] ?[il1|!eus]|l ?[e3] ?[a-z])"
# "ORGÂNICA", and "ORGÂNCIA" as a typist transposed it (Maricá's Emenda nº 40/2014)
_ORGANICA = _ocr_word("organ") + r" ?(?:[il1|!] ?c|c ?[il1|!]) ?a"
# (canonical label for normalize_type, pattern): the longest names first.
_TYPE_NAMES: list[tuple[str, str]] = [
    ("emenda a lei organica",
     rf"{_ocr_word('emenda')}\s+(?:(?:a|da)\s+)?(?:{_LEI}\s+{_ORGANICA}|lom)"),
    ("lei organica", rf"{_LEI}\s+{_ORGANICA}"),
    # "LEICOMPLEMENTAR MUNICIPAL Nº 058/2007": a text layer that lost the space
    ("lei complementar", rf"{_LEI}(?:\s+municipal)?\s*{_ocr_word('complementar')}"),
    ("lei delegada", _words("lei", "delegada")),
    ("decreto-lei", rf"{_ocr_word('decreto')}\s?-\s?{_LEI}"),
    ("decreto legislativo", _words("decreto", "legislativo")),
    ("decreto", rf"{_ocr_word('decreto')}(?:\s+{_ocr_word('executivo')})?"),
    ("lei", rf"{_LEI}(?:\s+{_ocr_word('ordinaria')})?"),
    ("resolucao", _ocr_word("resolucao")),
    ("instrucao normativa", _words("instrucao", "normativa")),
    ("portaria", _ocr_word("portaria")),
    ("deliberacao", _ocr_word("deliberacao")),
    ("ato", r"ato"),
    # "EMENDA Nº 7 À LEI ORGÂNICA": accepted only with that tail (checked in _candidate).
    ("emenda", _ocr_word("emenda")),
]
_TYPE_GROUPS = [(f"t{i}", label) for i, (label, _) in enumerate(_TYPE_NAMES)]
_GROUP_OF = {label: group for group, label in _TYPE_GROUPS}
_TYPES = "|".join(f"(?P<t{i}>{pattern})" for i, (_, pattern) in enumerate(_TYPE_NAMES))
# Junk OCR leaves before a line ("| ", "— ", "* "); an opening bracket starts an annotation
# ("(Vide Lei nº 3576/1983)"), never a heading.
_NOISE = r"[^\w(\[\n]*(?:[il1|](?=[a-z0-9|]{3}))?"  # "ILEINº": a rule or '|' read as I
# "Nº" and what OCR makes of it: N°, N.º, No, NO., Nr., Nª, N*, Ne, NS?, N9 (º read as 9), N.
_MARKER = (r"n(?:\s?\.?\s?(?:[o°*'ªe]|s\??|9(?=\s?\d)|r|um(?:ero)?|a(?=\s?\d)))?"
           r"\s?[.:?]?")
# Specks OCR leaves between words ("Lei Municipal] nº '7"), or a stray comma.
_SPECKS = r"\s*[^\w\s/]{0,2}\s*"
# Words between the type and "nº" that do not change the type.
_QUALIFIERS = (
    r"(?:[^\w\n]{0,2}\s+(?:municipal|estadual|federal|distrital|ordinaria|complementar|executivo"
    r"|promulgada"  # "LEI PROMULGADA Nº 90/1999": a law the câmara's president promulgated
    r"|legislativ[oa]|normativ[oa]|conjunta|geral|administrativa"
    r"|d[ao]\s+(?:mesa(?:\s+diretora)?|presidencia|executivo|legislativo|prefeito|camara"
    r"(?:\s+municipal)?|gabinete)"
    r"|d[oe]\s+municipio(?:\s+d[eoa]s?\s+[a-z' -]{2,40}?)?"
    # the place named without "do município": "EMENDA À LEI ORGÂNICA DE MARICÁ Nº 39"
    rf"|d[eoa]s?\s+[a-z' -]{{2,40}}?(?=\s*{_MARKER}\s*\d)"
    rf"|[a-z]{{2,5}}(?=\s*{_MARKER}\s*\d)))"  # an acronym: "PORTARIA SEMED Nº 3"
    r"{0,3}"
)
# Digits, OCR letters among them ("1.l65"), thousands dots (or commas, or spaces) between.
_DIGIT = r"[0-9oil|]"
_NUMBER = (rf"(?P<number>(?=[0-9oil|.,]*[0-9]){_DIGIT}(?:[0-9oilsbz|]"
           rf"|[.,]{{1,2}}\s?(?={_DIGIT}{{3}}(?:(?![0-9a-z])|[li|1][12][0-9]{{3}}(?![0-9])))"
           rf"|\s(?=\d{{3}}(?![0-9])))"r"{0,9})")
_SUFFIX = r"(?:(?:\s?-\s?(?P<suffix>[a-z])|(?P<suffix2>[a-z]))(?![a-z0-9]))"
_NUMBER_YEAR = (r"(?:\s?[/\\]\s?(?P<nyear>[0-9oil|]{4}|\d{2})(?![0-9])"
                r"|\s?[-–]\s?(?P<nyear2>(?:1[89]|20)\d{2})(?![0-9]))")
_NO_NUMBER = r"(?P<sn>s\s?/\s?n[o°]?\b|sem\s+numero)"
# "EMENDA Nº 7 À LEI ORGÂNICA DO MUNICÍPIO DE JUAZEIRO, DE ...": the name ends before the date.
_EMENDA_TAIL = (rf"(?P<tail>\s+(?:(?:a|da)\s+)?(?:{_LEI}\s+{_ORGANICA}|lom)\b"
                r"(?:\s+d[oe]\s+municipio(?:\s+d[eoa]s?\s+[a-z' -]{2,40}?"
                r"(?=,|\s+de\s+\d|\s*(?:\n|$)))?)?)")
# A faded print's 0 and 2 read as U and Z ("DE UZ DE ABRIL DE ZUi4": Gurupá's Lei 1.168/2014).
_DAY = r"(?P<{}>[0-3oilu|]?[0-9zs])"  # "0Z" is 02; "1o" is 1º, never 10
_YEAR4 = r"[12oilz|]\.?[0-9oilzu|]{3}(?![0-9])"
_DATE = (
    r"(?P<date>[\s,.;:–—-]*(?:(?:em|d[ea])\b[\s.,]*)?(?:"
    # 2 de abril de 2014, 1º de março de 2013, 02 DE ABRlL 2014, "DE, 11, DE DEZEMBRO"
    + _DAY.format("day") + r"\.?\s?(?:o|°|a)?\.?,?\s*(?:d[a-z]{0,2}\.?\s+)?"
    r"(?P<month>[a-z0|][a-z0-9|]{2,9})\.?\s*(?:d[a-z]{0,2}\.?\s*|,\s*)?"  # "DE", "DF", "DEF"
    r"(?P<year>" + _YEAR4 + ")"
    # 10/03/2020, 10.03.20, 10-03-2020
    r"|" + _DAY.format("nday") + r"\s?(?P<sep>[/.-])\s?(?P<nmonth>[0-9oil|]{1,2})\s?(?P=sep)\s?"
    r"(?P<nyear3>" + _YEAR4 + r"|\d{2}(?![0-9]))"
    # de 2013
    r"|(?P<yonly>(?:1[89]|20)\d{2})(?![0-9])))"
)
# A date a few specks after the number ("12-4, de 21 de agosto de 2009").
_LATE_DATE = re.compile(r"(?P<gap>[^a-z\n]{1,5}?)" + _DATE)
_SUFFIX_LIKE = re.compile(r"-\s?\w$")
_HEADING = re.compile(
    rf"{_NOISE}(?P<type>{_TYPES})(?P<qualifiers>{_QUALIFIERS}){_SPECKS}(?P<marker>{_MARKER})?{_SPECKS}"
    rf"(?:{_NO_NUMBER}|{_NUMBER}{_SUFFIX}?{_NUMBER_YEAR}?){_EMENDA_TAIL}?{_DATE}?"
)
# A Lei Orgânica has no number: its heading is the name alone, on a line of its own.
_ORGANIC_LAW = re.compile(
    rf"{_NOISE}(?P<type>(?P<{_GROUP_OF['lei organica']}>{_LEI}\s+{_ORGANICA}))"
    r"(?:\s+(?:d[oe]\s+municipio|municipal)(?:\s+d[eoa]s?\s+[^\d\n]{2,60})?)?[\s.]*(?:\n|$)"
)
# After the type: a space, or "Nº" glued to it ("LEINº 1,111", "LEINS 7.447" in OCR output).
_TYPE_START = re.compile(rf"{_NOISE}(?:{_TYPES})(?:(?![a-z])|(?={_MARKER}\s*[0-9oil|]))")
# Where the heading has surely been passed: the first article, the enacting clause.
_FIRST_ARTICLE = re.compile(r"\W*art(?:igo)?\s?\.?\s?[1il|]\s?(?:[o°.º\s-]|$)")
_ENACTING = re.compile(r"\b(?:decreta|resolve|promulga|sanciono[^\n]*seguinte)\b[^\n]*:\s*$")
# A line ending like these continues a sentence: what follows it is a citation.
_CONTINUES = re.compile(
    r"(?:\b(?:a|o|as|os|à|da|do|das|dos|de|na|no|nas|nos|pela|pelo|pelas|pelos|e|com|em|ao"
    r"|aos|que|conforme|termos|sobre|vide|ver|c/c)|[,;(-])\s*$"
)
# Between two lines in capitals only a word that needs its complement continues: an "E" or a
# comma at the end of a letterhead is an OCR speck ("GABINETE DO PREFEITO É").
_CONTINUES_IN_CAPITALS = re.compile(
    r"\b(?:a|o|as|os|da|do|das|dos|de|na|no|nas|nos|pela|pelo|pelas|pelos|ao|aos|termos)\s*$")
# An ementa that amends the Lei Orgânica (and is no bill's amendment).
_AMENDS_ORGANIC_LAW = re.compile(rf"\b(?:{_LEI}\s+{_ORGANICA}|lom)\b")
_BILL = re.compile(
    r"\b(?:projeto|anteprojeto|autografo|substitutivo|mensagem|redacao final|veto|emenda)"
    r"(?:\s+(?:de|do|ao|a|da)(?:\s+projeto)?(?:\s+de)?)?\s*$"
)

_MONTHS = ("janeiro", "fevereiro", "marco", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro")
_MONTH_NUMBER = {name: i for i, name in enumerate(_MONTHS, 1)}
_MONTH_NUMBER.update({name[:3]: i for i, name in enumerate(_MONTHS, 1)})
# OCR letters in a number: l/I/| for 1, O and U for 0, S for 5, B for 8, Z for 2.
_DIGITS_OF = str.maketrans("oil|sbzu", "01115820")


class _FoldTable(dict):
    """fold() one character at a time, for str.translate: folding is per character (NFKD
    decomposes each on its own, and the accents it splits off are dropped), so a table filled
    on first sight gives fold's result at a fraction of its cost on a line with 'nº'."""

    def __missing__(self, code: int) -> str:
        self[code] = folded = fold(chr(code))
        return folded


_FOLD = _FoldTable()


def fold_fast(text: str) -> str:
    """fold(text) at the cost of a str.translate (lowercase ASCII, accents removed)."""
    return text.lower() if text.isascii() else text.translate(_FOLD)


@dataclass(frozen=True)
class Heading:
    """A norm's heading as read from its first page."""

    type: str  # LexML tipoDocumento: lei, lei.complementar, decreto, ...
    type_label: str  # as printed: 'LEI MUNICIPAL', 'Lei Ordinária'
    number: str | None  # canonical (numbering.canonical_number): '2199', '12-A'
    number_printed: str | None  # as read: '2.199', '4,467', '1.l65'
    date: date | None
    year: int | None
    lines: tuple[str, ...]  # the line(s) read, as they stand in the text
    line: int  # index of the first of them among the text's lines (0-based)
    page_lines: int  # lines in the text, to place the heading on the page
    confidence: float  # 0..1: how sure the reading is
    notes: tuple[str, ...] = ()  # repairs made and values refused, in words

    @property
    def position(self) -> float:
        """Where the heading starts, as a share of the page's lines (0 = top)."""
        return self.line / max(1, self.page_lines)


@dataclass(frozen=True)
class Disagreement:
    """One field on which the heading (or the ementa after it) and the source's metadata differ."""

    field: str  # 'type', 'number', 'year', 'date', or 'ementa' (enrich/ementa.py)
    heading: str  # what the heading says
    source: str  # what the metadata says
    ocr_misreading: bool  # a near match: the heading was probably misread
    detail: str


def read_heading(text: str, today: date | None = None) -> Heading | None:
    """The norm's own heading on its first page, or None when the page has none.

    today bounds the plausible dates (a heading dated after it is a misreading).
    """
    today = today or date.today()
    kept, folded = _top_lines(text)
    page_lines = text.count("\n") + 1
    best: tuple[int, Heading] | None = None
    for at, line in enumerate(folded):
        if _TYPE_START.match(line):
            found = _candidate(kept, folded, at, page_lines, today)
            if found and (best is None or found[0] > best[0]):
                best = found
    return best[1] if best else None


def read_heading_lines(lines: list[str], previous: str = "",
                       today: date | None = None) -> Heading | None:
    """The heading that starts on the first of `lines` (the non-blank lines from there on; up
    to three are read, for a heading split over lines), or None when it is not one.

    previous is the non-blank line above: a line that goes on into this one makes it a
    citation. For texts where a heading may stand anywhere (a gazette of many acts), the
    caller finds the lines; Heading.lines says how many the heading took.
    """
    today = today or date.today()
    kept = [(0, previous.strip())] + [(i, line.strip()) for i, line in enumerate(lines[:3], 1)]
    folded = [s.lower() if s.isascii() else s.translate(_FOLD) for _, s in kept]
    found = _candidate(kept, folded, 1, len(kept), today)
    return found[1] if found else None


def _top_lines(text: str) -> tuple[list[tuple[int, str]], list[str]]:
    """The non-blank lines above the first article or the enacting clause: (index, line) as
    printed, and folded."""
    kept: list[tuple[int, str]] = []
    folded: list[str] = []
    for index, line in enumerate(text[:HEAD_CHARS].split("\n")):
        stripped = line.strip()
        if not stripped:
            continue
        low = stripped.lower() if stripped.isascii() else stripped.translate(_FOLD)
        # The cheap tests first: most lines have no "art" at their start, no final colon.
        if "art" in low[:6] and _FIRST_ARTICLE.match(low):
            break
        kept.append((index, stripped))
        folded.append(low)
        if len(kept) >= HEAD_LINES or (low[-1] == ":" and _ENACTING.search(low)):
            break
    return kept, folded


def _candidate(kept: list[tuple[int, str]], folded: list[str], at: int, page_lines: int,
               today: date) -> tuple[int, Heading] | None:
    """The heading that starts on line `at`, with its score; None when it is not one."""
    window = "\n".join(folded[at:at + 3])
    printed = "\n".join(s for _, s in kept[at:at + 3])
    if len(printed) != len(window):  # folding changed a length (a ligature): read it folded
        printed = window
    notes: list[str] = []
    unread = False  # a number printed but not readable (unlike "s/n": none printed)
    match = _HEADING.match(window)
    if match and (match["number"] or match["sn"]):
        groups, end, organic = match.groupdict(), match.end(), False
        if match[_GROUP_OF["emenda"]] and not match["tail"]:
            # "EMENDA Nº 3": an amendment to a bill, unless its ementa says it amends the Lei
            # Orgânica ("EMENDA Nº 44/2015\nACRESCENTA DISPOSITIVO À LEI ORGÂNICA DO MUNICÍPIO")
            rest = window[end:]
            ementa = rest.split("\n", 2)[1] if rest.count("\n") else ""
            if not _AMENDS_ORGANIC_LAW.search(ementa) or "projeto" in ementa:
                return None
            groups["tail"] = ementa
        if not groups["date"]:
            late = _LATE_DATE.match(window, end)
            if late:  # specks between the number and the date
                groups = {**groups, **late.groupdict()}
                end = late.end()
                gap = late["gap"].strip(" ,")
                if _SUFFIX_LIKE.match(gap):
                    # "LEI Nº 12-4, de 21 de agosto": a suffix misread ("12-A"?). 12-A is
                    # another norm than 12: the number is left unread, not guessed.
                    notes.append(f"number unreadable: {groups['number'] + gap!r}")
                    groups["number"], unread = None, True
                else:
                    notes.append(f"skipped {gap!r} before the date")
    else:
        match = _ORGANIC_LAW.match(window)
        if not match:
            return None
        groups, end, organic = match.groupdict(), match.end(), True
        if window[end - 1:end] == "\n":
            end -= 1  # the name ends with its line
    consumed = window.count("\n", 0, end) + 1
    line_end = window.find("\n", end)
    trailing = printed[end:len(window) if line_end < 0 else line_end]
    type_span = match.span("type")
    previous = (kept[at - 1][1], folded[at - 1]) if at else ("", "")
    scored = _score(groups, organic, printed[type_span[0]:type_span[1]], previous, trailing)
    if scored is None or scored[0] < MIN_SCORE:
        return None
    score, factor = scored
    reading = _reading(groups, today)
    if reading is None:
        return None
    number, number_printed, year, when, more_notes, more_factor = reading
    label = _group_label(groups)
    if label != "lei organica" and number is None and not groups.get("sn") and not unread:
        return None
    spelled = next(name for group, name in _TYPE_GROUPS if groups.get(group))
    if normalize_type(window[type_span[0]:type_span[1]]) != normalize_type(spelled):
        more_notes.append(f"type read through OCR damage: {printed[slice(*type_span)]!r}")
        more_factor *= 0.9
    qualifiers = groups.get("qualifiers") or ""
    return score, Heading(
        type=normalize_type(label) or "outro",
        type_label=printed[type_span[0]:type_span[1] + len(qualifiers)].strip(),
        number=number,
        number_printed=number_printed,
        date=when,
        year=year,
        lines=tuple(s for _, s in kept[at:at + consumed]),
        line=kept[at][0],
        page_lines=page_lines,
        confidence=round(max(0.05, min(1.0, factor * more_factor * 0.85 ** len(notes))), 2),
        notes=tuple(notes + more_notes),
    )


def _group_label(groups: dict) -> str:
    if groups.get("tail"):
        return "emenda a lei organica"  # "EMENDA Nº 7 À LEI ORGÂNICA"
    for group, label in _TYPE_GROUPS:
        if groups.get(group):
            return label
    return "outro"


def _score(groups: dict, organic: bool, type_printed: str, previous: tuple[str, str],
           trailing: str) -> tuple[int, float] | None:
    """How much a match looks like a heading rather than a citation: a score, and a factor
    (0..1) for the confidence; None rejects it outright.

    previous is the line before (printed, folded); trailing the rest of the heading's last line.
    """
    letters = [c for c in type_printed if c.isalpha()]
    upper = bool(letters) and sum(c.isupper() for c in letters) >= 0.8 * len(letters)
    printed_before, before = previous
    if _BILL.search(before):
        return None  # "PROJETO DE\nLEI Nº 12/2013": a bill, not the law
    in_capitals = upper and printed_before.upper() == printed_before
    if (_CONTINUES_IN_CAPITALS if in_capitals else _CONTINUES).search(before):
        # The line goes on from a sentence ("ALTERA A REDAÇÃO DO ART. 5º DA\nLEI Nº 1.190"):
        # a citation. No letterhead ends on "DA" right above the heading.
        return None
    if trailing.strip(" \t.,;:–—-") and _goes_on_in_prose(trailing):
        return None  # ", faço saber que ...": the sentence of a citation goes on
    score, factor = 0, 1.0
    if upper:
        score += 2
    elif letters and letters[0].isupper():
        score += 1
        factor *= 0.95
    else:
        score -= 1  # "lei nº 1.996": citations are written so, headings seldom
        factor *= 0.8
    if groups.get("marker"):
        score += 1
    elif not organic:
        factor *= 0.9
    if groups.get("number"):
        score += 2
    if groups.get("nyear") or groups.get("nyear2") or groups.get("date"):
        score += 1
    if re.search(r"\b(?:federal|estadual)\b", groups.get("qualifiers") or ""):
        score -= 2  # "Lei Federal nº ...": a local page cites federal laws, it is not one
        factor *= 0.7
    if not trailing.strip(" \t.,;:–—-"):
        score += 1  # the heading is a line of its own
    if organic:
        score += 3 if upper else 2  # a name alone on its line: nothing to number
    return score, factor


def _goes_on_in_prose(trailing: str) -> bool:
    """Lowercase words after the number: a sentence goes on (', faço saber', ', e dá outras').

    A capital after it starts the ementa ('– Dispõe sobre ...'); OCR specks ('| p', 'pe') are
    no prose: a lone short word does not count.
    """
    words = re.findall(r"[^\W\d_]{2,}", trailing)
    if not words or not words[0][0].islower():
        return False
    return len(words) >= 2 or len(words[0]) >= 4


def _reading(groups: dict, today: date
             ) -> tuple[str | None, str | None, int | None, date | None, list[str], float] | None:
    """Number (canonical and printed), year, date, notes and a confidence factor."""
    notes: list[str] = []
    factor = 1.0
    number = printed = None
    number_year: int | None = None
    raw = groups.get("number")
    if raw:
        raw = raw.strip()
        printed = raw
        raw, glued_year = _split_glued_year(raw)
        if glued_year:
            notes.append(f"'/' before the year read as '{printed[len(raw)]}'")
            number_year, factor = glued_year, factor * 0.7
        digits = raw.translate(_DIGITS_OF)
        if digits != raw:
            notes.append(f"number read through OCR letters: '{raw}' -> '{digits}'")
            factor *= 0.8
        # Thousands written '2.199', '2,199', '2. 199', '2.,199': all one dot.
        digits = re.sub(r"\s?[.,]{1,2}\s?(?=\d{3}(?!\d))", ".", digits)
        suffix = groups.get("suffix") or groups.get("suffix2")
        number = canonical_number(digits + (f"-{suffix}" if suffix else ""))
        if number is None or not re.match(r"\d", number):
            return None
        if len(re.sub(r"\D", "", number)) > 6:
            notes.append(f"number {printed} is longer than any norm's")
            factor *= 0.5
    elif groups.get("sn"):
        notes.append("printed without a number (s/n)")
    if number_year is None:
        number_year = _year(groups.get("nyear") or groups.get("nyear2"), today)
    when, year, date_notes = _date(groups, today)
    notes += date_notes
    if date_notes:
        factor *= 0.9
    if number_year is not None and not MIN_YEAR <= number_year <= today.year:
        notes.append(f"year {number_year} after the number is not plausible")
        number_year, factor = None, factor * 0.9
    if year is None:
        year = number_year
    elif number_year is not None and number_year != year:
        notes.append(f"the number says {number_year}, the date says {year}")
        factor *= 0.8
    return number, printed, year, when, notes, factor


def _split_glued_year(raw: str) -> tuple[str, int | None]:
    """'2.199l2011' (the slash read as 'l' or '1') -> ('2.199', 2011)."""
    found = re.fullmatch(r"(\d{1,3}(?:[.,]\d{3})+|\d{1,5})[li|]([12][0-9]{3})", raw) or \
        re.fullmatch(r"(\d{1,3}(?:[.,]\d{3})+)1([12][0-9]{3})", raw)
    if not found:
        return raw, None
    return found.group(1), int(found.group(2))


def _year(raw: str | None, today: date) -> int | None:
    """'2011' -> 2011; '11' -> 2011 and '69' -> 1969 (two digits: the latest past century)."""
    if not raw:
        return None
    digits = raw.replace(".", "").translate(_DIGITS_OF)
    if not digits.isdigit():
        return None
    value = int(digits)
    if len(digits) == 2:
        value += 2000 if value <= today.year % 100 else 1900
    return value


def _date(groups: dict, today: date) -> tuple[date | None, int | None, list[str]]:
    """The signing date and its year; absurd values refused with a note."""
    if not groups.get("date"):
        return None, None, []
    if groups.get("yonly"):
        year = int(groups["yonly"])
        if MIN_YEAR <= year <= today.year:
            return None, year, []
        return None, None, [f"year {year} is not plausible"]
    if groups.get("nday"):
        day_text, month_text, year_text = groups["nday"], groups["nmonth"], groups["nyear3"]
    else:
        day_text, month_text, year_text = groups["day"], groups["month"], groups["year"]
    day_text = day_text.translate(_DIGITS_OF)
    month = month_number(month_text)
    year = _year(year_text, today)
    if year is None:
        return None, None, []
    if not MIN_YEAR <= year <= today.year:
        return None, None, [f"year {year} is not plausible"]
    if month is None or not day_text.isdigit():
        return None, year, [f"no month in {groups['date'].strip(' ,.;:-')!r}"]
    day = int(day_text)
    try:
        when = date(year, month, day)
    except ValueError:
        return None, year, [f"{day}/{month}/{year} is not a date"]
    if when > today:
        return None, year, [f"{when.isoformat()} is after today"]
    raw = f"{groups.get('day') or groups.get('nday')}{year_text}"
    if not raw.replace(".", "").isdigit():
        return when, year, [f"date read through OCR letters: {groups['date'].strip(' ,.;:-')!r}"]
    return when, year, []


def month_number(word: str) -> int | None:
    """'abril', 'ABRlL', 'marco', 'dezernbro', '04' -> the month's number; None if unsure."""
    word = word.lower()
    if word.translate(_DIGITS_OF).isdigit():
        value = int(word.translate(_DIGITS_OF))
        return value if 1 <= value <= 12 else None
    if word in _MONTH_NUMBER:
        return _MONTH_NUMBER[word]
    cleaned = word.replace("rn", "m").translate(str.maketrans("01|!l", "oiiii"))
    best, best_cost, tied = None, 99, False
    for name, number in zip(_MONTHS, range(1, 13), strict=True):
        target = name.replace("l", "i")
        cost = _distance(cleaned, target)
        if cost < best_cost:
            best, best_cost, tied = number, cost, False
        elif cost == best_cost:
            tied = True
    allowed = 1 if len(cleaned) <= 5 else 2
    return best if best_cost <= allowed and not tied else None


def _distance(a: str, b: str) -> int:
    """Levenshtein distance of two short strings."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# --- The heading against the metadata. ---

# Digits OCR takes for one another: the 1/l/I/7 and 0/O/8/6/9/5/S families of glyph shapes,
# and the pairs tesseract was seen to swap on worn 200-dpi prints (bench/enrich_headings.py):
# a thin 1 read as 2 or 3, 2 and 7, 4 and 1.
_FAMILIES = ["1li|74", "0o8695s3"]
_PAIRS = ["12", "13", "23", "27"]
_CONFUSABLE = {frozenset((a, b)) for family in _FAMILIES for a in family for b in family
               if a != b} | {frozenset(pair) for pair in _PAIRS}


def looks_like_ocr(read: str, printed: str) -> bool:
    """True when two writings of a number differ as OCR misreadings do: '1.165' vs '1169',
    '4,467' vs '1.167' (one or two confusable digits), or '6998' vs '699' (a digit added or
    lost in a number of three digits or more); False for equal numbers and any other
    difference. Separators do not count: '2.199', '2,199' and '2199' are one writing."""
    a = re.sub(r"[.,\s]", "", read.lower())
    b = re.sub(r"[.,\s]", "", printed.lower())
    if a == b:
        return False
    if len(a) == len(b):
        swaps = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        return len(swaps) <= 2 and all(frozenset(s) in _CONFUSABLE for s in swaps)
    shorter, longer = sorted((a, b), key=len)
    if len(longer) - len(shorter) != 1 or len(shorter) < 3:
        return False
    return any(longer[:i] + longer[i + 1:] == shorter for i in range(len(longer)))


def compare(heading: Heading, type_normalized: str | None, number: str | None,
            year: int | str | None, signed: date | None) -> list[Disagreement]:
    """Where the heading and the source's metadata differ, field by field.

    A value the metadata lacks (None, or the generic type 'outro') is no disagreement: the
    heading fills it. Each disagreement says whether it looks like an OCR misreading of the
    heading (then the heading lines deserve a second reading, see reread.py).
    """
    out: list[Disagreement] = []
    if type_normalized and type_normalized != "outro" and heading.type != type_normalized:
        out.append(Disagreement("type", heading.type, type_normalized, False,
                                f"the heading says {heading.type_label!r}"))
    source_number = canonical_number(number) if number is not None else None
    if heading.number and source_number and heading.number != source_number:
        near = looks_like_ocr(heading.number_printed or heading.number, source_number)
        out.append(Disagreement(
            "number", heading.number, source_number, near,
            f"printed {heading.number_printed!r}: "
            + ("a near match, probably misread" if near else "another number")))
    source_year = int(year) if year not in (None, "") and str(year).isdigit() else None
    if heading.year and source_year and heading.year != source_year:
        near = looks_like_ocr(str(heading.year), str(source_year))
        out.append(Disagreement("year", str(heading.year), str(source_year), near,
                                "a near match, probably misread" if near else "another year"))
    if heading.date and signed and heading.date != signed:
        out.append(_date_disagreement(heading.date, signed))
    return out


def _date_disagreement(read: date, source: date) -> Disagreement:
    parts = [(read.day, source.day), (read.month, source.month), (read.year, source.year)]
    differing = [(a, b) for a, b in parts if a != b]
    near = len(differing) == 1 and (
        looks_like_ocr(f"{differing[0][0]:02d}", f"{differing[0][1]:02d}")
        # "1º" read as 10 or 19 (the ordinal sign as 0 or 9)
        or (read.day in (10, 19) and source.day == 1 and differing[0] == (read.day, 1)))
    detail = ("a near match, probably misread" if near
              else "another date (the source may record publication, not signing)")
    return Disagreement("date", read.isoformat(), source.isoformat(), near, detail)
