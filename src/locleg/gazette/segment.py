"""A gazette's text cut into the acts it publishes: laws, decrees, resolutions, portarias, and
the non-normative matter around them (licitações, contratos, nomeações, other notices).

The text is what Querido Diário archives (Apache Tika's extraction of the gazette's PDF): one
long string, pages separated by form feeds when Tika keeps them. An act starts at its heading
("LEI Nº 1.234, DE 5 DE MARÇO DE 2020", read by enrich/heading.py, which knows the OCR-worn
forms) or at the title of a notice ("EXTRATO DO CONTRATO Nº 45/2021"), and ends at its
"Código Identificador: …" line (Sigpub) or before the next act, less the page headers and
section titles between them.

A line that looks like a heading is not always one: the body of an act cites other laws at
the start of a line, quotes a law's heading in an annex, lists acts in tables and in the
summary. Such a line is taken for a new act only when it reads as a heading (heading.py: not
the tail of a sentence, not followed by prose), carries no dot leaders (a summary) and no
amount (a table's row), is not an act already found in the gazette (an annex, a regulation
quoting it) and, while the act above has not reached its signature yet, is followed by an
ementa or an enacting clause.

Real gazettes (tests/data/real_gazettes, pdftotext and Tika texts of own diários and Sigpub's)
add their shapes: the "º" of "Nº" printed on the line above the heading, a sort or issuer
between the type and "Nº" ("DECRETO ORÇAMENTÁRIO", "PORTARIA – SEAD": a numbering series of
its own), Sigpub's title line above the heading, the law that created the gazette in its
masthead, a signatory's appointment under a signature, ementas in quotation marks and split
by blank lines (docs/gazettes.md lists them). Acts printed without a heading of their own
(rows under one title, paragraphs numbered at their end) are found by headless.py.

The work runs on every archived gazette: one pass of one regular expression finds the lines
worth reading; only those are read in full.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from itertools import chain, islice, pairwise

from ..enrich.heading import read_heading_lines
from ..enrich.numbering import canonical_number
from ..jurisdictions import fold
from .associations import Association, Section, association_for, split_municipalities
from .headless import headless_acts

# The kinds that become norms (LexML tipoDocumento); portarias join them unless the caller
# says otherwise (many corpora leave them out: most are acts of personnel).
NORMATIVE = frozenset({"lei", "lei.complementar", "lei.organica", "emenda.lei.organica",
                       "decreto", "decreto.legislativo", "resolucao", "instrucao.normativa"})
# Non-normative matter, never turned into norms.
MATTER = ("licitacao", "contrato", "nomeacao", "outro")

NO_TEXT = "no text (scanned without OCR upstream?)"
GARBAGE = "garbage text: no Portuguese words (a broken text layer? OCR the PDF)"


@dataclass(frozen=True)
class Act:
    """One act as the gazette prints it; text[start:end] is the whole act."""

    kind: str  # a LexML type (lei, decreto, ...) or a matter: licitacao, contrato, ...
    heading: str  # as written: 'LEI Nº 1.234, DE 5 DE MARÇO DE 2020'
    number: str | None  # canonical (enrich/numbering.py): '1234', '12-A'
    date: date | None  # the date the heading prints
    year: int | None
    ementa: str | None
    body: str  # after the heading and ementa, up to the signature or "Código Identificador"
    start: int
    end: int
    page: int | None = None  # 1-based, when the text has form feeds
    # republished ("*Republicado por incorreção"), continues ("continua na próxima edição"),
    # continuation (the rest of an act begun in an earlier edition), truncated (the text
    # file ends inside the act), headless (printed without a heading of its own: a row of a
    # table of portarias, a paragraph numbered at its end; headless.py)
    flags: frozenset[str] = frozenset()
    municipality: str | None = None  # in an association gazette
    normative: bool = False

    @property
    def republished(self) -> bool:
        return "republished" in self.flags

    @property
    def continued(self) -> bool:
        """Split across two gazettes: this is the first part or the rest."""
        return bool(self.flags & {"continues", "continuation"})

    @property
    def truncated(self) -> bool:
        return "truncated" in self.flags

    @property
    def headless(self) -> bool:
        return "headless" in self.flags


@dataclass(frozen=True)
class GazetteText:
    """What segmentation made of one gazette's text."""

    acts: list[Act]
    quality: str | None  # None: text to read; else why there is none (queue the PDF for OCR)
    sections: list[Section] = field(default_factory=list)  # association gazettes


# --- What the lines say ---

_I, _M = re.IGNORECASE, re.MULTILINE
# The signature block stands in an act's last lines: how far back to look for it.
_SIGNATURE_CHARS = 600
_MATTER_TITLES = {
    "licitacao": (
        r"aviso\s+de\s+(?:licita|preg|tomada|concorr|chamada|dispensa|inexigib|leil|credenc"
        r"|abertura|resultado|homologa|julgamento|adjudica|reabertura|suspens|revoga|adiamento)"
        r"|preg[aã]o\s+(?:eletr[oô]nico|presencial)|tomada\s+de\s+pre[cç]os"
        r"|concorr[eê]ncia(?:\s+p[uú]blica)?\s+n|dispensa\s+de\s+licita|inexigibilidade"
        r"|(?:termo\s+de\s+)?(?:adjudica[cç][aã]o\s+e\s+)?homologa[cç][aã]o"
        r"|(?:termo\s+de\s+)?ratifica[cç][aã]o|resultado\s+d[aeo]\s+(?:licita|julg|preg)"
        r"|chamada\s+p[uú]blica|leil[aã]o\s+n"),
    "contrato": (
        r"extrato\s+(?:d[oae]s?\s+)?(?:contrato|termo|(?:\w+\s+)?aditivo|ata|conv[eê]nio"
        r"|(?:primeiro|segundo|terceiro|quarto|\d+[º°o])\b)"
        r"|termo\s+aditivo|contrato\s+(?:administrativo\s+)?n|ata\s+de\s+registro"),
    "nomeacao": (
        r"(?:ato|termo|t[ií]tulo)\s+de\s+(?:nomea|exonera|posse|designa)"
        r"|nomea[cç][aã]o\b|exonera[cç][aã]o\b"),
    "outro": (
        r"edital\s+(?:de\s+)?(?:convoca|notifica|abertura|processo|concurso|chamamento|cita)"
        r"|errata\b|retifica[cç][aã]o\b|comunicado\b|aviso\s+de\s+(?:convoca|audi[eê]ncia|consulta)"
        r"|convoca[cç][aã]o\s+n|relat[oó]rio\s+(?:resumido|de\s+gest)|ata\s+da\s+\w+\s+sess"),
}
# Compiled once: re.match(pattern, …) looks its pattern up in re's cache on every call.
_MATTER_TITLE = {kind: re.compile(pattern, _I) for kind, pattern in _MATTER_TITLES.items()}
_MATTER_GROUPS = "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _MATTER_TITLES.items())
# The types a heading may start with (heading.py reads it in full); "LEIS", "DECRETOS" are
# section titles. A digit must follow on the line, or "Nº" on the next.
_NORM_WORD = (r"(?:[l1][e3][il1](?![a-mo-z])|decret[o0](?!s)|resolu[cç][aã][o0]|portar[il1]a(?!s)"
              r"|emenda|instru[cç][aã][o0]\s+normativa)")
_CANDIDATE = re.compile(
    r"^[ \t\f*•·|>–—-]*"
    r"(?P<cont>\(?continua[cç][aã]o\)?[ \t]*[-–—:]?[ \t]*(?:d[aoe]s?[ \t]+)?)?"
    rf"(?:(?:ato[ \t]*/[ \t]*)?(?P<norm>{_NORM_WORD})(?=[^\n]{{0,80}}\d|[^\n]{{0,40}}\n[ \t]*n)"
    rf"|(?:{_MATTER_GROUPS}))", _I | _M)
# The same, where Tika glued the heading to the end of the line above.
_GLUED = re.compile(_CANDIDATE.pattern.removeprefix("^"), _I | _M)
_GLUED_WORDS = ("LEI ", "DECRETO ", "PORTARIA ", "RESOLUÇÃO ", "EMENDA ")
_IDENTIFIER = re.compile(r"^[ \t]*c[oó]digo\s+identificador\s*:?[ \t]*[0-9a-z]{4,}[ \t\r]*$",
                         _I | _M)
# The end of an act: a signature's role, the "publish" formula, the place and date.
_CLOSING = re.compile(
    r"^[ \t]*(?:c[oó]digo\s+identificador\b"
    r"|(?:vice-?\s?)?prefeit[oa]\b[^\n]{0,50}$|secret[aá]ri[oa]\b[^\n]{0,60}$"
    r"|presidente\b[^\n]{0,60}$"
    r"|(?:pregoeir[oa]|diretor[a]?|gestor[a]?|coordenador[a]?|procurador[a]?|controlador[a]?"
    r"|chefe\s+de\s+gabinete|ordenador[a]?\s+de\s+despesas?|agente\s+de\s+contrata)"
    r"\b[^\n]{0,60}$"
    r"|(?:publique-se|registre-se|cumpra-se)"
    r"|[^\n]{2,80},\s*(?:em\s+)?\d{1,2}[º°o]?\s+de\s+[a-zç]+\s+de\s+\d{4}\.?[ \t\r]*$)",
    _I | _M)
# Who enacts, as a preamble names them: "O PREFEITO …", "O Conselho Municipal …", "A DIRETORA
# PRESIDENTE …", "DAVI PIRES BATISTA, Prefeito do Município …".
_ENACTOR = (r"(?:prefeit|vice|president|secret|c[aâ]mara|mesa|diretor|gestor|conselho"
            r"|comiss[aã]o|procurador|chefe|superintendente|controlador|coordenador|plen[aá]rio"
            r"|governador)")
# An ementa or an enacting clause: what follows a real heading.
_OPENING = re.compile(
    r"^[ \t]*(?:disp[oõ]e|altera|autoriza|institui|cria|denomina|abre|regulamenta|estabelece"
    r"|fixa|concede|declara|nomeia|exonera|aprova|homologa|revoga|d[aá]\s+nova|acrescenta"
    r"|prorroga|atualiza|reajusta|ratifica|convoca|designa|torna|inclui|define|disciplina"
    r"|retifica|instaura|constitui|reconhece|transfere|substitui|suplementa|extingue|determina"
    r"|dispensa|delega|suspende|modifica|amplia|reduz|credencia|cancela|anula"
    rf"|(?:o|a|o\(a\))\s+{_ENACTOR}"
    r"|\*?\s*republica|considerando|decreta|resolve|fa[cç]o\s+saber|no\s+uso\s+d)",
    _I | _M)
# Where the ementa has ended: the enacting clause, the preamble, the first article.
_AFTER_EMENTA = re.compile(
    rf"[ \t]*(?:(?-i:O|A|O\(A\))\s+{_ENACTOR}|(?-i:[A-ZÀ-Ý][A-ZÀ-Ý .'-]{{3,60}}),\s*{_ENACTOR}"
    # the enacting word stands alone ("DECRETA:", "R E S O L V E:"); "Decreta feriado …" is an
    # ementa that starts with the verb
    r"|considerando|(?:d\s?e\s?c\s?r\s?e\s?t\s?a|r\s?e\s?s\s?o\s?l\s?v\s?e)\s*(?::|$)"
    r"|fa[cç]o\s+saber|no\s+uso\s+d|art(?:igo)?\.?\s*\d"
    # who enacts, however named, then "no uso de suas atribuições": "PREFEITA MUNICIPAL DE
    # DELMIRO GOUVEIA, no uso de …"
    r"|[^\n,]{3,120},\s*no\s+uso\s+d"
    r"|[IVXLC]+\s*[-–—)]|§|par[aá]grafo"
    r"|(?-i:[A-ZÀ-Ý\s]{3,}):\s*$)", _I)
# A name in capitals and a comma, alone on its line: a preamble's subject, when a role follows.
_NAME_LINE = re.compile(r"(?-i:[A-ZÀ-Ý][A-ZÀ-Ý .'-]{3,60}),")
_ENACTOR_LINE = re.compile(rf"[ \t]*(?:(?:o|a)\s+)?{_ENACTOR}", _I)
# The date some headings print on a line of their own: "PORTARIA N° 955 / DATA: 24 de …".
_HEADING_DATE = re.compile(r"[ \t]*(?:data|de|em)\s*:", _I)
_PLACE_DATE = re.compile(
    r"[ \t]*[^\n,]{2,60},[ \t]*(?:em[ \t]+)?\d{1,2}[º°o]?[ \t]+de[ \t]+[^\W\d_]+[ \t]+de\b", _I)
_YEAR_LINE = re.compile(r"[ \t]*(?:19|20)\d{2}\.?[ \t\r]*")
# Quotation marks some gazettes print around an ementa.
_QUOTES = "\"“”'‘’«»"
# Abbreviations a line of an ementa may end with, its sentence going on ("… INCISO I, DO ART.").
_ABBREVIATIONS = frozenset("art arts inc n nº no nr par al dr sr sra lc fls".split())
# Lines between acts that belong to none: page headers and footers, section and entity titles
# (in capitals), a republication note (it belongs to the act below).
_ENTITY = (r"(?:ESTADO|PREFEITURA|C[ÂA]MARA|MESA|GABINETE|SECRETARIA|PODER|ATOS?|PROCURADORIA"
           r"|CONTROLADORIA|COMISS[ÃA]O|DEPARTAMENTO|FUNDO|INSTITUTO|COORDENADORIA|SETOR"
           r"|DIVIS[ÃA]O|SUPERINTEND[ÊE]NCIA|AUTARQUIA|FUNDA[ÇC][ÃA]O|SERVI[ÇC]O|MUNIC[ÍI]PIO"
           r"|ASSOCIA[ÇC][ÃA]O|SUM[ÁA]RIO|LEIS|DECRETOS|PORTARIAS|RESOLU[ÇC][ÕO]ES"
           r"|LICITA[ÇC][ÕO]ES|CONTRATOS|EXTRATOS|EDITAIS|AVISOS|OUTROS)\b[A-ZÀ-Ý '’/()–-]{0,90}")
_TRAILER = re.compile(
    # The indentation taken whole (possessive): tried at each of its widths, the ".*"
    # alternatives cost the square of a pdftotext line's width, for the same answer.
    r"[\s\f]*+(?:(?i:.*di[aá]rio\s+oficial.*|p[aá]g(?:ina)?\.?\s*\d+(?:\s*(?:de|/)\s*\d+)?"
    r"|.*\bedi[cç][aã]o\s+(?:n[º°o.]*\s*)?[\d.]+.*|ano\s+[ivxlc]+\b.*|(?:https?://|www\.)\S+(?:\s+\d+)?"
    r"|\*?\s*republica(?:do|da|[cç][aã]o|-se)\b.*)"
    rf"|{_ENTITY})[\s\f]*")
_TRAILER_CHARS = 500
_REPUBLISHED = re.compile(r"^[ \t*]*republica(?:do|da|[cç][aã]o|-se)\b", _I | _M)
_CONTINUES = re.compile(
    r"^[ \t(*]*continua(?:\s+n[ao]\s+pr[oó]xim[ao]\s+(?:edi[cç][aã]o|p[aá]gina))?[ \t.)\r]*$",
    _I | _M)
_CONTINUATION = re.compile(r"^[ \t(*]*continua[cç][aã]o\b", _I | _M)
_CONTINUATION_MARK = re.compile(r"\(\s*continua[cç][aã]o\b", _I)
_LEADERS = re.compile(r"\.{5,}|…{2,}|(?:\. ){4,}")
_MONEY = re.compile(r"\d{1,3}(?:\.\d{3})*,\d{2}\b")
_MATTER_NUMBER = re.compile(r"\bn[º°o.]*\s*(\d[\d.]*)(?:\s*/\s*(\d{4}))?", _I)
# Words a line that goes on into the next ends with.
_GOES_ON = frozenset("a o as os à da do das dos de na no nas nos pela pelo e com em ao aos que "
                     "conforme termos".split())
# The commonest words of Portuguese: a text layer without them is not text.
_COMMON_WORDS = frozenset("de da do das dos que em para com no na os as ao por se e o a".split())
# How the lines worth reading start: the first letters of the types and titles above, and of
# "Código Identificador". Searched from the newline before, a literal the regular expression
# engine finds fast; the first letter is tested as one set before the words, grouped by it,
# are tried: lines that start otherwise cost next to nothing.
_LINE_START = re.compile(
    r"\n[ \t\f*•·|>–—(-]*+(?=[ldrpeiatchn])(?:l[e3][il1]|d(?:ec|is)|r(?:es|at|etif|el)"
    r"|p(?:or|re)|e(?:me|xt|xo|di|rr)|i(?:nstru|ne)|a(?:vi|dj|t[ao])|t(?:om|er|[ií]t)"
    r"|c(?:on|om|ha)|(?P<code>c[oó]d)|hom|nom)", _I)
_WORD = re.compile(r"[^\W\d_]{3,}")
# A line of raised characters only: pdftotext prints the "º" of "Nº" (and of "Art. 1º") on a
# line of its own above the text it belongs to ("o" above "DECRETO N 24.455, DE …").
_RAISED = re.compile(r"[ \t]*(?:[oº°ªa][ \t]*){1,8}")
# Words between the type and "Nº" that the heading grammar does not know: the act's sort
# ("DECRETO INDIVIDUAL", "DECRETO ORÇAMENTÁRIO", "PORTARIA DE DIÁRIA") or who issues it
# ("PORTARIA – SEAD", "PORTARIA/SMF/MD", "PORTARIA-CGM", "PORTARIA GAB"), in quotation marks
# too ('DECRETO RIO “P” Nº 2362': Rio's decrees of personnel).
_QUALIFIER = re.compile(
    r"(?:[ \t]*[-–—/][ \t]*|[ \t]+)"
    r"(?P<words>(?:[\"“”'‘’]?[^\W\d_]+[\"“”'‘’]?[ \t]*[-–—/]?[ \t]*){1,3}?)"
    r"(?=n[º°o.]{0,3}[ \t]*[.:]?[ \t]*\d)", _I)
# What separates a qualifier's words: 'PORTARIA/SMF/MD', 'DECRETO RIO “P”'.
_SEPARATORS = str.maketrans({c: " " for c in "-/" + _QUOTES})
# Qualifiers that leave the numbering series alone ("LEI MUNICIPAL Nº 5" is "LEI Nº 5").
_PLAIN_QUALIFIERS = frozenset("municipal estadual federal ordinaria complementar executivo "
                              "legislativo legislativa normativa normativo de da do".split())
# Numbers the heading grammar misreads: a date and a sequence, dashed or dotted ("PORTARIA Nº
# 20130812-1", "PORTARIA N.º 01.06.010/2022"), not thousands ("Nº 1.234").
_COMPOUND_NUMBER = re.compile(
    r"\bn[º°o.]{0,3}[ \t]*[.:]?[ \t]*(?P<number>\d+(?:[.-]\d+)+)(?![\d.-]*\d)"
    r"(?:[ \t]*/[ \t]*(?P<year>(?:19|20)\d{2})(?!\d))?", _I)
_PRINTED_YEAR = re.compile(r"\bde\s+[^\W\d_]+\s+de\s+((?:19|20)\d{2})(?!\d)", _I)
_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")
# A gazette's masthead: its title and edition line, among which the law that created the
# gazette is printed ("Lei Nº 3.520, de 26 de março de 2015.").
_MASTHEAD = re.compile(r"di[aá]rio\s*oficial|\bedi[cç][aã]o\b", _I)
# The marks of a page header's fields: bullets, bars, wide gaps, "ANO VII", "Edição 4955".
_HEADER_FIELDS = re.compile(r"•|\||\S[ \t]{3,}\S|\bano\s+[ivxlc]+\b|\bedi[cç][aã]o\s+n?[º°.]*\s*\d",
                            _I)
_URL_LINE = re.compile(r"[ \t]*(?:https?://|www\.)\S+(?:[ \t]+\d+)?[ \t\r]*")
# What ends a Sigpub act below its signature.
_SIGNED = re.compile(r"[ \t]*(?:publicado\s+por|c[oó]digo\s+identificador)\b", _I)
_LETTER_RUN = re.compile(r"[^\W\d_]+")
# What makes a line not blank (str.strip's whitespace is the engine's \s).
_INK = re.compile(r"\S")


@dataclass
class _Start:
    """Where an act begins, and what its heading says."""

    start: int  # first character of the heading's line (its indentation skipped)
    heading_end: int
    kind: str
    heading: str
    number: str | None = None
    date: date | None = None
    year: int | None = None
    flags: set[str] = field(default_factory=set)
    issuer: str = ""  # the qualifier that names a numbering series: "sead", "orcamentario"


def text_quality(text: str) -> str | None:
    """None for text worth segmenting; else why it is not (NO_TEXT, GARBAGE)."""
    words = _WORD.finditer(text)
    if sum(1 for _, _ in zip(range(3), words, strict=False)) < 3:
        return NO_TEXT
    # Three samples: a broken text layer may spoil only part of a gazette's pages.
    size = len(text)
    samples = [text[at:at + 2000] for at in sorted({0, size // 2, max(0, size - 2000)})]
    tokens = common = 0
    for i, sample in enumerate(samples):
        # Words only: a table of figures is text, however few words stand between its numbers.
        words = _LETTER_RUN.findall(sample.lower())
        tokens += len(words)
        common += sum(map(_COMMON_WORDS.__contains__, words))
        # Common words enough (≥ 4%) whatever the samples left hold (n characters hold at
        # most (n + 1) // 2 words): the text is text, the rest need not be read.
        if 25 * common >= tokens + sum((len(s) + 1) // 2 for s in samples[i + 1:]):
            return None
    if tokens >= 40 and common / tokens < 0.04:  # too few words to judge a short notice
        return GARBAGE
    return None


def read_gazette(text: str, *, territory_id: str | None = None,
                 association: Association | str | None = None, portarias: bool = True,
                 today: date | None = None) -> GazetteText:
    """The acts of one gazette, or the reason it has none to give.

    An association gazette (territory id ending in 00000, or `association` given) is split by
    municipality first (associations.py), then each municipality's part by act.
    portarias: whether portarias count as normative (Act.normative).
    """
    quality = text_quality(text)
    if quality:
        return GazetteText([], quality)
    if association is None:
        association = association_for(territory_id)
    sections = split_municipalities(text, association) if association else []
    ranges = [(0, len(text), None)]
    if sections:
        ranges = [(0, sections[0].start, None)] + [
            (s.start, s.end, s.municipality) for s in sections]
    feeds = _form_feeds(text) if "\f" in text else None
    acts: list[Act] = []
    for lo, hi, municipality in ranges:
        acts += _segment_range(text, lo, hi, municipality, feeds, portarias, today)
    return GazetteText(acts, None, sections)


def segment(text: str, *, territory_id: str | None = None,
            association: Association | str | None = None, portarias: bool = True,
            today: date | None = None) -> list[Act]:
    """The acts of one gazette's text, in order (none for empty or garbage text: see
    read_gazette for the reason)."""
    return read_gazette(text, territory_id=territory_id, association=association,
                        portarias=portarias, today=today).acts


# --- Cutting one range of the text ---


def _segment_range(text: str, lo: int, hi: int, municipality: str | None,
                   feeds: list[int] | None, portarias: bool, today: date | None) -> list[Act]:
    candidates, identifiers = _scan(text, lo, hi)
    starts = _with_headless(text, _accepted(text, candidates, lo, hi, today), lo, hi)
    rest = _headless_continuation(text, lo, starts[0].start if starts else hi)
    if rest:
        starts.insert(0, rest)
    if identifiers:
        starts = _one_per_identifier(text, lo, hi, starts, identifiers)
    acts: list[Act] = []
    for i, st in enumerate(starts):
        limit = starts[i + 1].start if i + 1 < len(starts) else hi
        end = next((e for s, e in identifiers if st.start < s < limit), None)
        # Sigpub ends every act with its identifier: one missing says the text was cut.
        closed = end is not None if identifiers else None
        if end is None:
            end = _trim(text, st.heading_end, limit)
        if closed is None:
            closed = _closed(text, st.heading_end, end) or not _cut_short(text, end)
        flags = set(st.flags)
        # The cheap look first: few acts carry either note.
        if text.find("epublica", max(lo, st.start - 200), end) >= 0 and (
                _REPUBLISHED.search(text, st.start, end)
                or _REPUBLISHED.match(_previous_line(text, _line_start(text, st.start), lo))):
            flags.add("republished")
        if text.find("ontinua", max(lo, end - 200), end) >= 0 and _CONTINUES.search(
                text, max(st.heading_end, end - 200), end):
            flags.add("continues")
        if i + 1 == len(starts) and hi == len(text) and not closed and "continues" not in flags:
            flags.add("truncated")
        ementa, body_start = _ementa(text, st, end)
        normative = st.kind in NORMATIVE or (portarias and st.kind == "portaria")
        acts.append(Act(
            kind=st.kind, heading=st.heading, number=st.number, date=st.date, year=st.year,
            ementa=ementa, body=text[body_start:end].strip(), start=st.start, end=end,
            page=bisect_right(feeds, st.start) + 1 if feeds is not None else None,
            flags=frozenset(flags), municipality=municipality, normative=normative))
    return acts


def _with_headless(text: str, starts: list[_Start], lo: int, hi: int) -> list[_Start]:
    """The starts, and those of the acts printed without a heading of their own (headless.py:
    rows under one title and one RESOLVE, paragraphs numbered at their end). A start the
    segmenter found on such an act's lines (a title read as a notice's) gives way to it."""
    rows = headless_acts(text, lo, hi)
    if not rows:
        return starts
    spans = [(row.start, row.heading_end) for row in rows]
    kept = [st for st in starts
            if not any(begin <= st.start <= end for begin, end in spans)]
    kept += (_Start(row.start, row.heading_end, row.kind, row.heading,
                    canonical_number(row.number), row.date, row.year, {"headless"})
             for row in rows)
    return sorted(kept, key=lambda st: st.start)


def _scan(text: str, lo: int, hi: int) -> tuple[list[re.Match], list[tuple[int, int]]]:
    """One pass over the lines: those that may start an act (matched by _CANDIDATE), and the
    Sigpub "Código Identificador" lines (start, end)."""
    candidates: list[re.Match] = []
    identifiers: list[tuple[int, int]] = []
    # lo starts a line: the text's first line has no newline before it.
    starts = [(lo, None)] if lo == 0 else []
    starts += ((m.start() + 1, m["code"]) for m in _LINE_START.finditer(text, max(0, lo - 1), hi))
    for at, code in starts:
        if code:
            match = _IDENTIFIER.match(text, at, _line_end(text, at, hi))
            if match:
                identifiers.append((match.start(), match.end()))
            continue
        match = _CANDIDATE.match(text, at, hi)
        if match:
            candidates.append(match)
        elif lo == at == 0:
            match = _IDENTIFIER.match(text, at, _line_end(text, at, hi))
            if match:
                identifiers.append((match.start(), match.end()))
    glued = _glued(text, lo, hi)
    if glued:
        candidates = sorted(candidates + glued, key=lambda m: m.start())
    return candidates, identifiers


def _glued(text: str, lo: int, hi: int) -> list[re.Match]:
    """Headings Tika glued to the line above, the signature's role of the act before
    ("Prefeito Municipal DECRETO Nº 45, DE …": two columns' lines joined). Only a heading in
    capitals right after a role counts: elsewhere in a line, a type is a citation."""
    out: list[re.Match] = []
    for word in _GLUED_WORDS:
        at = text.find(word, lo, hi)
        while at >= 0:
            before = text[max(lo, text.rfind("\n", lo, at) + 1):at]
            if before[-1:] in (" ", "\t") and before.strip() and _CLOSING.match(before.rstrip()):
                match = _GLUED.match(text, at, hi)
                if match and match["norm"]:
                    out.append(match)
            at = text.find(word, at + 1, hi)
    return out


def _accepted(text: str, candidates: list[re.Match], lo: int, hi: int,
              today: date | None) -> list[_Start]:
    """The headings that start acts, in order, citations and summary lines left out."""
    out: list[_Start] = []
    seen: set[tuple[str, str | None, int | None, str]] = set()
    for match in candidates:
        found = _read_start(text, match, lo, hi, today)
        if found is None:
            continue
        if out:
            last = out[-1]
            if found.start < last.heading_end:
                continue
            if _same_heading_again(text, last, found):
                # Sigpub's title line, then the heading in full ("PORTARIA Nº 046 DE 01 …" /
                # "PORTARIA Nº 046/2020, DE 01 …"): one act, read from the fuller heading.
                last.heading_end = found.heading_end
                last.heading = f"{last.heading} {found.heading}"
                last.date, last.year = found.date or last.date, found.year or last.year
                continue
            if found.kind in MATTER and not text[last.heading_end:found.start].strip():
                # "AVISO DE LICITAÇÃO / PREGÃO PRESENCIAL Nº 12/2021": one title on two lines
                last.heading_end = found.heading_end
                last.number = last.number or found.number
                last.year = last.year or found.year
                continue
        if not out and found.kind not in MATTER and not _followed_by_act(
                text, found.heading_end, hi):
            continue  # before any act, a heading with no act below: the masthead's, a summary's
        key = (found.kind, found.number, found.year, found.issuer)
        if found.kind not in MATTER and key in seen and "continuation" not in found.flags and (
                not _IDENTIFIER.search(text, out[-1].heading_end, found.start)
                or not _opens(text, found, hi)):
            # An act of this edition quoted again (an annex, a regulation). Not so a heading
            # after Sigpub's end of the act above that opens an act of its own: two portarias
            # printed with one number ("PORTARIA Nº 0189/2019": a pension, a retirement).
            continue
        if out and found.kind not in MATTER and not _closed(
                text, out[-1].heading_end, found.start) and not _opens(text, found, hi):
            # The act above has not ended: a heading-like line in its body is a citation,
            # unless a new act plainly opens here.
            continue
        seen.add(key)
        out.append(found)
    return out


def _read_start(text: str, match: re.Match, lo: int, hi: int,
                today: date | None) -> _Start | None:
    """The act a candidate line starts, or None when the line starts none."""
    line_start = match.start()
    line_end = _line_end(text, line_start, hi)
    line = text[line_start:line_end]
    if _LEADERS.search(line):
        return None  # a summary's entry: "LEI Nº 1.234 ........ 3"
    start = line_start + len(line) - len(line.lstrip(" \t\f"))
    previous = _previous_line(text, line_start, lo)
    if previous and _RAISED.fullmatch(previous):
        # the "º" of this heading's "Nº": the line that matters is the one above it
        previous = _previous_line(text, line_start - len(previous) - 1, lo)
    flags = {"continuation"} if match["cont"] else set()
    if match["norm"] is None:
        return _matter_start(text, match, start, line_end, previous, flags)
    if not previous.isupper() and _goes_on(previous):
        return None  # "… nos termos da / Lei nº 1.100, de 2019": a citation (cheap test first)
    if not previous.strip():
        # Tika puts blank lines inside sentences too: "… disposto no Art.1° da" ⏎⏎ "Lei
        # N°829/2021, o Senhor …"
        above = _nonblank_above(text, line_start, lo, 3)
        if above and not above.isupper() and _goes_on(above):
            return None
    if _MONEY.search(line):
        return None  # a table's row: "Decreto nº 45/2021   Suplementação   150.000,00"
    first = text[match.start("norm"):line_end]
    lines = [(match.start("norm"), line_end, first)] + _next_lines(text, line_end, hi, 2)
    heading = read_heading_lines([t for _, _, t in lines], previous, today)
    qualifier = _QUALIFIER.match(text, match.end("norm"), line_end)
    if heading is None and qualifier:
        # "DECRETO ORÇAMENTÁRIO Nº 074, …" read as "DECRETO Nº 074, …"
        plain = text[match.start("norm"):match.end("norm")] + " " + text[qualifier.end():line_end]
        heading = read_heading_lines([plain] + [t for _, _, t in lines[1:]], previous, today)
    if heading is None:
        return None
    heading_end = lines[len(heading.lines) - 1][1]
    printed = " ".join(t.strip() for _, _, t in lines[:len(heading.lines)])
    if not _followed_by_act(text, heading_end, hi) and (
            (heading.date is None and _CLOSING.match(previous) and not _SIGNED.match(previous))
            or _in_masthead(text, line_start, heading_end, lo, hi)
            or _signed_below(text, heading_end, hi)):
        # "Presidente do FAPEN / Portaria:019/2017": the signatory's own appointment; a law
        # among the masthead's lines: the one that created the gazette; a heading with
        # Sigpub's "Publicado por:" right below it has no act under it: the appointment of
        # whoever signed above, however many blank lines Tika put between ("Secretário
        # Municipal de Infraestrutura" ⏎⏎ "Portaria 007/2017" ⏎⏎ "Publicado por:"), or a
        # citation that ends a notice ("Decreto N° 01 de 04 de Janeiro de 2021.")
        return None
    number, year = heading.number, heading.year
    compound = _COMPOUND_NUMBER.search(printed)
    if compound and not _THOUSANDS.fullmatch(compound["number"]):
        number = canonical_number(compound["number"])
        year = year or (int(compound["year"]) if compound["year"] else None)
        if year is None:  # "Nº 001.10.112016 De: 10 de novembro de 2016"
            printed_year = _PRINTED_YEAR.search(printed, compound.end())
            year = int(printed_year[1]) if printed_year else None
    issuer = ""
    if qualifier:
        words = fold(qualifier["words"]).translate(_SEPARATORS).split()
        issuer = " ".join(w for w in words if w not in _PLAIN_QUALIFIERS)
    if (_CONTINUATION_MARK.search(printed) or _CONTINUATION.match(previous)
            or _CONTINUATION.search(text, heading_end, min(hi, heading_end + 120))):
        flags.add("continuation")
    return _Start(start, heading_end, heading.type, printed, number, heading.date, year, flags,
                  issuer)


def _headless_continuation(text: str, lo: int, hi: int) -> _Start | None:
    """The rest of an act begun in an earlier edition, printed without its heading
    ("(Continuação da edição anterior)" then "Art. 15. …"), before the first heading: an act
    of unknown kind, flagged, for the caller to join to the part that "continues"."""
    if text.find("ontinua", lo, hi) < 0:
        return None
    match = _CONTINUATION.search(text, lo, hi)
    if match is None or len(text[match.end():hi].strip()) < 80:
        return None
    start = match.start() + len(match[0]) - len(match[0].lstrip(" \t"))
    line_end = _line_end(text, start, hi)
    return _Start(start, line_end, "outro", text[start:line_end].strip(),
                  flags={"continuation"})


def _same_heading_again(text: str, last: _Start, found: _Start) -> bool:
    """found repeats last's heading right below it, nothing but page furniture between."""
    if found.kind != last.kind or found.number is None or found.number != last.number:
        return False
    between = text[last.heading_end:found.start]
    return all(not line.strip() or _is_trailer(line) for line in between.split("\n"))


def _in_masthead(text: str, line_start: int, heading_end: int, lo: int, hi: int) -> bool:
    """A gazette's title or edition line stands within three lines above or two below."""
    above, at = [], line_start
    while len(above) < 3 and at > lo:
        begin = max(lo, text.rfind("\n", lo, at - 1) + 1)
        if text[begin:at - 1].strip():
            above.append(text[begin:at - 1])
        at = begin
    below = [line for _, _, line in _next_lines(text, heading_end, hi, 2)]
    return any(_MASTHEAD.search(line) for line in above + below)


def _followed_by_act(text: str, at: int, hi: int) -> bool:
    """An ementa, a preamble or an enacting clause follows (page furniture skipped), not a
    signature's end or nothing."""
    dated = False
    for i, (_, _, line) in enumerate(islice(_lines_after(text, at, hi), 5)):
        stripped = line.strip().lstrip(_QUOTES)
        if _OPENING.match(stripped):  # the common case first: the trailer's test costs more
            return True
        if _HEADING_DATE.match(line) or _MASTHEAD.search(line) or _is_trailer(line):
            continue
        if (i == 0 and _PLACE_DATE.match(line)) or (dated and _YEAR_LINE.fullmatch(line)):
            # the heading's own place and date ("DECRETO Nº 17/2018" ⏎ "Junqueiro, 25 de
            # setembro de 2018."; "… ALAGOAS, em 23 de Setembro de" ⏎ "2019"), or a
            # signature's: only an opening below tells them apart
            dated = True
            continue
        if dated or _SIGNED.match(line) or _CLOSING.match(line):
            return False
        return stripped[:1].isupper() and len(_WORD.findall(stripped)) >= 3
    return False


def _signed_below(text: str, at: int, hi: int) -> bool:
    """Sigpub's "Publicado por:" is the next line with text: what stands above it ends."""
    for _, _, line in _lines_after(text, at, hi):
        return _SIGNED.match(line) is not None
    return False


def _opens(text: str, st: _Start, hi: int) -> bool:
    """An ementa or an enacting clause follows the heading: a new act plainly opens."""
    # An opening starts a sentence: "considerando" at the start of a line inside a quoted
    # paragraph is no preamble.
    return any(_OPENING.match(line) and line.strip().lstrip(_QUOTES)[:1].isupper()
               for _, _, line in islice(_lines_after(text, st.heading_end, hi), 4))


def _matter_start(text: str, match: re.Match, start: int, line_end: int, previous: str,
                  flags: set[str]) -> _Start | None:
    """A notice's title: a short line in capitals, not the tail of a sentence."""
    title = text[start:line_end].strip()
    letters = list(filter(str.isalpha, title))
    if (len(title) > 120 or not letters
            or sum(map(str.isupper, letters)) < 0.8 * len(letters)
            or _goes_on(previous)):
        return None
    kind = next(k for k in MATTER if match[k])
    number = year = None
    found = _MATTER_NUMBER.search(title)
    if found:
        number = canonical_number(found[1])
        year = int(found[2]) if found[2] else None
    return _Start(start, line_end, kind, title, number, None, year, flags)


def _one_per_identifier(text: str, lo: int, hi: int, starts: list[_Start],
                        identifiers: list[tuple[int, int]]) -> list[_Start]:
    """Sigpub: every "Código Identificador" ends an act, so each stretch up to one holds an
    act even when its title is none the grammar knows; the act starts at the stretch's first
    line that is not a municipality's or an entity's header."""
    out: list[_Start] = []
    bounds = [lo] + [e for _, e in identifiers]
    stretches = list(zip(bounds, [s for s, _ in identifiers] + [hi], strict=True))
    at = 0
    for begin, stop in stretches:
        inside: list[_Start] = []
        while at < len(starts) and starts[at].start < stop:
            if starts[at].start >= begin:
                inside.append(starts[at])
            at += 1
        first = _first_content_line(text, begin, stop)
        if first is None:
            out += inside
            continue
        f_start, f_end = first
        if inside:
            if f_start < inside[0].start:
                inside[0].start = f_start  # an unknown title above the heading: one act
            out += inside
        elif stop < hi or len(text[f_start:stop].strip()) >= 80:
            title = text[f_start:f_end].strip()
            kind = next((k for k in MATTER if _MATTER_TITLE[k].match(title)), "outro")
            out.append(_Start(f_start, f_end, kind, title))
    return out


def _is_trailer(line: str) -> bool:
    """A page header or footer, a section title (_TRAILER). Run on the stripped line, and
    only on a short one: _TRAILER's blanks and `.*` backtrack over each other, quadratic in
    a long line of blanks (50,000 spaces took minutes); no trailer is that long."""
    line = line.strip()
    return len(line) <= _TRAILER_CHARS and _TRAILER.fullmatch(line) is not None


def _first_content_line(text: str, begin: int, stop: int) -> tuple[int, int] | None:
    for start, end, line in islice(_lines_after(text, begin, stop), 12):
        if not _is_trailer(line):
            return start, end
    return None


def _ementa(text: str, st: _Start, end: int) -> tuple[str | None, int]:
    """The ementa below the heading, and where the body starts."""
    if "headless" in st.flags:
        return None, st.start  # its row or paragraph is all it says: the body is all of it
    if st.kind in MATTER or "continuation" in st.flags:
        return None, st.heading_end
    lines: list[str] = []
    body_start = st.heading_end
    # Eight lines at most, each with the one below it (None after the last), read as the
    # loop asks for them: most ementas end within two or three.
    following = pairwise(chain(islice(_lines_after(text, st.heading_end, end), 9), [None]))
    for (line_start, line_end, line), below in islice(following, 8):
        if _REPUBLISHED.match(line) or _CONTINUATION.match(line) or (not lines and (
                _HEADING_DATE.match(line) or _PLACE_DATE.match(line) or _YEAR_LINE.fullmatch(line)
                or (not _OPENING.match(line) and _is_trailer(line)))):
            # a note, the heading's date on its own lines ("DATA: …", "SAO LUIS DO QUITUNDE/
            # ALAGOAS, em 23 de Setembro de" ⏎ "2019"), a page header between heading and
            # ementa
            body_start = line_end
            continue
        if lines and _page_header(line):
            continue  # a page break inside the ementa: its sentence goes on below the header
        # A blank line ends the ementa only where its sentence has ended: Tika puts blank
        # lines between the lines of one ementa ("… servidor, para a", '“TRANSFERE … (DIA',
        # "… e dá" ⏎⏎ "outras providências.", "… para o Cargo" ⏎⏎ "Comissionado …").
        if _AFTER_EMENTA.match(line) or (lines and text[body_start:line_start].count("\n") > 1
                                         and not _runs_on(lines)):
            break
        if not lines and (not line.strip().lstrip(_QUOTES)[:1].isupper() or (
                _NAME_LINE.fullmatch(line.strip()) and below is not None
                and _ENACTOR_LINE.match(below[2]))):
            break  # "MARIA ELIANE PEREIRA ALENCAR SOARES," ⏎ "SECRETÁRIA MUNICIPAL …": a preamble
        lines.append(line.strip())
        body_start = line_end
        if _sentence_ends(line):
            break  # its sentence has ended ('… e dá outras providências.')
    if not lines:
        return None, st.heading_end
    return " ".join(lines), body_start


def _page_header(line: str) -> bool:
    """A page's header or footer: the gazette's title among the page's fields ("Alagoas , 11
    de Setembro de 2019 • Diário Oficial dos Municípios do Estado de Alagoas • ANO VII"), or
    its address ("www.diariomunicipal.com.br/ama   6"); not a line that names the gazette in
    a sentence ("Institui o Diário Oficial Eletrônico do Município")."""
    return bool(_URL_LINE.fullmatch(line) or (
        _MASTHEAD.search(line) and _HEADER_FIELDS.search(line)))


def _runs_on(lines: list[str]) -> bool:
    """Across a blank line, the ementa's sentence goes on into the next line."""
    last = lines[-1]
    if _goes_on(last) or _quote_open(lines):
        return True
    # a sentence not ended goes on ("… para o Cargo" ⏎⏎ "Comissionado que menciona, …")
    return not _sentence_ends(last) and not last.endswith((":", ";"))


def _quote_open(lines: list[str]) -> bool:
    joined = "".join(lines)
    return joined.count("“") > joined.count("”") or joined.count('"') % 2 == 1


def _sentence_ends(line: str) -> bool:
    """The line ends a sentence: a full stop not of an abbreviation, or a closing quotation
    mark ('“… E DÁ PROVIDÊNCIAS”')."""
    line = line.rstrip()
    if line.endswith(("”", "\"", "»")):
        return True
    if not line.endswith("."):
        return False
    words = line[:-1].rsplit(None, 1)
    return not words or words[-1].lower().lstrip("(") not in _ABBREVIATIONS


def _trim(text: str, floor: int, end: int) -> int:
    """end moved back over blank lines, page headers and section titles."""
    while end > floor:
        line_start = max(floor, text.rfind("\n", floor, end) + 1)
        line = text[line_start:end]
        if line.strip() and not _is_trailer(line):
            break
        if line_start <= floor:
            return floor
        end = line_start - 1
    return floor + len(text[floor:end].rstrip())


def _closed(text: str, begin: int, end: int) -> bool:
    """A signature, the "publish" formula or the place and date stands in the last lines of
    text[begin:end]: the act there has ended."""
    return _CLOSING.search(text, max(begin, end - _SIGNATURE_CHARS), end) is not None


def _goes_on(line: str) -> bool:
    """The line's sentence goes on into the next line ('… nos termos da', '… e')."""
    line = line.rstrip()
    if line.endswith((",", ";", "(", "-")):
        return True
    words = line.rsplit(None, 1)
    return bool(words) and words[-1].lower() in _GOES_ON


def _cut_short(text: str, end: int) -> bool:
    """The text stops mid-sentence: no final punctuation on the act's last line."""
    return not text[:end].rstrip().endswith((".", "!", "?", ")", "»", "”", '"', ":"))


# --- Lines ---


def _form_feeds(text: str) -> list[int]:
    out, at = [], text.find("\f")
    while at >= 0:
        out.append(at)
        at = text.find("\f", at + 1)
    return out


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _line_end(text: str, at: int, hi: int) -> int:
    end = text.find("\n", at, hi)
    return hi if end < 0 else end


def _previous_line(text: str, line_start: int, lo: int) -> str:
    """The line above, or '' when a blank line or the range's start comes first."""
    if line_start <= lo:
        return ""
    begin = max(lo, text.rfind("\n", lo, line_start - 1) + 1)
    return text[begin:line_start - 1]


def _nonblank_above(text: str, line_start: int, lo: int, within: int) -> str:
    """The nearest line above with text (a raised "º" is none), if one stands within `within`
    lines, else ''."""
    at = line_start
    for _ in range(within):
        if at <= lo:
            return ""
        begin = max(lo, text.rfind("\n", lo, at - 1) + 1)
        line = text[begin:at - 1]
        if line.strip() and not _RAISED.fullmatch(line):
            return line
        at = begin
    return ""


def _next_lines(text: str, at: int, hi: int, count: int) -> list[tuple[int, int, str]]:
    """Up to `count` non-blank lines from the line after position `at` (or at it, when `at`
    starts a line): (start, end, text)."""
    return list(islice(_lines_after(text, at, hi), count))


def _lines_after(text: str, at: int, hi: int) -> Iterator[tuple[int, int, str]]:
    """The non-blank lines from the line after position `at` (or at it, when `at` starts a
    line), read as they are asked for: most readers stop at the first or second."""
    if at > 0 and text[at - 1:at] != "\n":
        at = _line_end(text, at, hi) + 1
    # From the next character that is not blank to its line's bounds: Tika's blank lines
    # are skipped in one search, not one by one.
    while True:
        ink = _INK.search(text, at, hi)
        if ink is None:
            return
        begin = text.rfind("\n", at, ink.start()) + 1 or at
        end = text.find("\n", ink.start(), hi)
        if end < 0:
            end = hi
        yield begin, end, text[begin:end]
        at = end + 1
