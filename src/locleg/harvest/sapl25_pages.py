"""SAPL 2.5's pages as data: the search form, the RSS 2.0 feed, the HTML results, the detail page.

SAPL 2.5 is a Zope application with no API: what a harvester reads are the pages people read.
Each function here takes the bytes of one page and returns what it holds, or raises
`ChangedShape` when the page is not the one expected (a redesign, an error page served with
200): the caller records that and never takes an unreadable page for an empty listing.

Zope sites often send ISO-8859-1 while their headers (or the RSS's XML declaration) say
otherwise: bytes are decoded as UTF-8 when they are valid UTF-8, else by the declared or
detected code page (extract/encoding.py). The RSS is read with regular expressions, not an
XML parser: the feed puts ementas in unescaped (a bare `&` or `<` in an ementa breaks it as
XML) and HTML entities that XML does not define; no entity is ever expanded beyond
html.unescape's fixed table.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import date
from email.utils import parsedate

import lxml.html
from lxml import etree

from ..extract.encoding import decode_text
from ..jurisdictions import fold

CAP = 5000  # rows a search returns at most (the ZSQL method's max_rows)

_XML_ENCODING = re.compile(rb"<\?xml[^>]*encoding=[\"']([\w.:-]+)", re.IGNORECASE)
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([\w.:-]+)", re.IGNORECASE)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ITEM = re.compile(r"<item\b[^>]*>(.*?)</item\s*>", re.IGNORECASE | re.DOTALL)
_CHANNEL = re.compile(r"<rss\b[^>]*>.*?<channel\b", re.IGNORECASE | re.DOTALL)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_TAGS = re.compile(r"<[^>]*>")
_COD_NORMA = re.compile(r"[?&;]cod_norma=(\d{1,18})\b")
# "Lei Ordinária 123/2011", "LEI 12-A/2011": the type, then number/year at the end.
_TITLE = re.compile(r"^(?P<tipo>.*?)\s*(?:n[º°o.]*\s*)?(?P<numero>[\w.-]{1,20})\s*/\s*"
                    r"(?P<ano>\d{4})\s*(?:-\s*(?P<rest>.*))?$", re.IGNORECASE)
_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_RFC822_YEAR = re.compile(r"\b\d{1,2}\s+[A-Za-z]{3}\s+(\d{4})\b")
_TOTAL = re.compile(r"Resultado\s+da\s+Pesquisa\s*:?\s*([\d.]+)\s+norma", re.IGNORECASE)
_NONE_FOUND = re.compile(r"Nenhuma\s+ocorr[eê]ncia\s+encontrada", re.IGNORECASE)


class ChangedShape(ValueError):
    """The page is not the one expected: a redesign, an error page, another site."""


@dataclass
class Row:
    """A norm as one listing row or one detail page gives it (values as read, not yet checked)."""

    cod_norma: str
    tipo: str | None = None
    numero: str | None = None
    ano: int | None = None
    data: date | None = None
    ementa: str | None = None
    situacao: str | None = None
    texto_integral: bool | None = None  # None: the page does not say
    texto_consolidado: bool | None = None


@dataclass
class Results:
    """One search's rows, and what the page said of their number."""

    rows: list[Row] = field(default_factory=list)
    total: int | None = None  # as the page states it (HTML results)
    next_page: bool = False  # HTML results: more pages follow


def decode(data: bytes, declared: str | None = None) -> str:
    """A page's text: UTF-8 when valid, else the declared charset, else detected."""
    if declared is None:
        found = _XML_ENCODING.search(data[:512]) or _META_CHARSET.search(data[:16384])
        declared = found.group(1).decode("ascii", "replace") if found else None
    text, _ = decode_text(data, declared)
    return _CONTROLS.sub("", text)


def clean(value: str | None) -> str | None:
    """Text of a fragment: CDATA opened, tags dropped, entities read, spaces collapsed."""
    if value is None:
        return None
    value = _CDATA.sub(lambda m: m.group(1), value)
    value = html.unescape(_TAGS.sub(" ", value))
    value = " ".join(value.split())
    return value or None


def br_date(value: str | None) -> date | None:
    """dd/mm/aaaa as SAPL 2.5 writes dates; None for anything else."""
    found = _DATE.search(value or "")
    if not found:
        return None
    day, month, year = (int(x) for x in found.groups())
    try:
        return date(year, month, day)
    except ValueError:
        return None


def rfc822_date(value: str | None) -> date | None:
    """The calendar date a pubDate names, in the zone it was written in (never shifted)."""
    parsed = parsedate(value or "")
    if not parsed:
        return None
    # parsedate reads a year under 100 as 19xx/20xx even when written with four digits
    # ("01 Jan 0001" is 2001): the year as written wins.
    written = _RFC822_YEAR.search(value or "")
    year = int(written[1]) if written else parsed[0]
    try:
        return date(year, parsed[1], parsed[2])
    except ValueError:
        return None


def split_title(value: str | None) -> tuple[str | None, str | None, int | None]:
    """(tipo, numero, ano) from "Lei Ordinária 123/2011" or "LO 123/2011 - LEI ORDINÁRIA"."""
    value = clean(value)
    if not value:
        return None, None, None
    found = _TITLE.match(value)
    if not found:
        return value, None, None
    tipo = found["tipo"].strip(" -") or None
    rest = (found["rest"] or "").strip()
    if rest:  # the results page: "SGL num/ano - DESCRIÇÃO": the description is the type
        tipo = rest.title() if rest.isupper() else rest
    return tipo, found["numero"], int(found["ano"])


def cod_norma(url: str | None) -> str | None:
    found = _COD_NORMA.search(html.unescape(url or ""))
    return found.group(1).lstrip("0") or "0" if found else None


# -- the search form ------------------------------------------------------------------------


def parse_form(data: bytes) -> dict[str, str]:
    """The norm types of the search form's `lst_tip_norma` select: {tip_norma: description}."""
    root = _html_root(data)
    select = root.xpath("//select[@name='lst_tip_norma']") if root is not None else []
    if not select:
        raise ChangedShape("the search form has no norm type list (lst_tip_norma)")
    types = {}
    for option in select[0].iter("option"):
        value = (option.get("value") or "").strip()
        label = " ".join(option.text_content().split())
        if value.isdigit() and label:
            types[value] = label
    return types


# -- listings ---------------------------------------------------------------------------------


def parse_rss(data: bytes) -> Results:
    """The items of RSS2_normas: title "Tipo num/ano", ementa, detail link, enclosure, pubDate."""
    text = decode(data)
    if not _CHANNEL.search(text[:20000]):
        raise ChangedShape("not an RSS 2.0 feed")
    found = Results()
    for body in _ITEM.findall(text):
        link = _element(body, "link") or _element(body, "guid")
        cod = cod_norma(link)
        if cod is None:
            continue
        tipo, numero, ano = split_title(_element(body, "title"))
        category = clean(_element(body, "category"))
        found.rows.append(Row(
            cod, tipo=category or tipo, numero=numero, ano=ano,
            data=rfc822_date(clean(_element(body, "pubDate"))),
            ementa=clean(_element(body, "description")),
            texto_integral=_ENCLOSURE.search(body) is not None))
    return found


_ELEMENTS = {name: re.compile(rf"<{name}\b[^>]*>(.*?)</{name}\s*>", re.IGNORECASE | re.DOTALL)
             for name in ("title", "description", "link", "guid", "category", "pubDate")}
_ENCLOSURE = re.compile(r"<enclosure\b[^>]*\burl=", re.IGNORECASE)


def _element(body: str, name: str) -> str | None:
    found = _ELEMENTS[name].search(body)
    return found.group(1) if found else None


def parse_results(data: bytes) -> Results:
    """The HTML search results: a row per norm (link, "SGL num/ano - TIPO", ementa, Situação)."""
    text = decode(data)
    root = _html_root(data, text)
    if root is None:
        raise ChangedShape("an empty page where search results were expected")
    found = Results()
    total = _TOTAL.search(" ".join(root.text_content().split()))
    if total:
        found.total = int(total.group(1).replace(".", ""))
    seen = set()
    for link in root.xpath("//a[contains(@href, 'norma_juridica_mostrar_proc')]"):
        cod = cod_norma(link.get("href"))
        cell = link.getparent()
        while cell is not None and cell.tag not in ("td", "li", "div"):
            cell = cell.getparent()
        if cod is None or cod in seen or cell is None or _inside_relations(link, cell):
            continue
        seen.add(cod)
        tipo, numero, ano = split_title(link.text_content())
        row = Row(cod, tipo=tipo, numero=numero, ano=ano)
        row.ementa, row.situacao = _result_text(cell, link)
        files = [a.get("href") or "" for a in cell.getparent().iter("a")] \
            if cell.getparent() is not None else []
        row.texto_consolidado = any("_texto_consolidado" in f for f in files)
        if any("_texto_integral" in f for f in files):
            row.texto_integral = True
        found.rows.append(row)
    found.next_page = bool(root.xpath("//a[contains(@href, 'page=') and "
                                      "(contains(., 'Próxima') or contains(., '>>') or "
                                      "contains(., 'próxima'))]"))
    if not found.rows and not _NONE_FOUND.search(text) and found.total != 0:
        said = f" (it says {found.total:,} found)" if found.total else ""
        raise ChangedShape(f"the results page has no rows as SAPL 2.5 writes them{said}")
    return found


def _inside_relations(link, cell) -> bool:
    """Links to other norms inside a row (Alterada pelo(a) …) are not rows of their own."""
    first = next(iter(cell.iter("a")), None)
    return first is not link


def _result_text(cell, link) -> tuple[str | None, str | None]:
    """The ementa (text after the title, up to the first <br> block) and the Situação."""
    parts: list[str] = []
    node = link.getparent() if link.getparent() is not cell else link
    tail = node.tail or ""
    parts.append(tail)
    situacao = None
    for sibling in node.itersiblings():
        label = " ".join(sibling.text_content().split())
        if sibling.tag == "b" and fold(label).startswith("situacao"):
            situacao = clean(sibling.tail)
            break
        if sibling.tag == "b" and label.endswith(":"):
            break
        if sibling.tag not in ("br",):
            parts.append(sibling.text_content())
        parts.append(sibling.tail or "")
    return clean(" ".join(parts)), situacao


# -- the detail page --------------------------------------------------------------------------

_LABELS = {"tipo": "tipo", "numero": "numero", "data": "data", "ementa": "ementa",
           "situacao": "situacao"}


def parse_detail(data: bytes, cod: str) -> Row:
    """The label/value table of norma_juridica_mostrar_proc: Tipo, Número, Data, Ementa,
    Situação, and whether the texto integral and the consolidated text are linked."""
    root = _html_root(data)
    if root is None:
        raise ChangedShape("an empty page where a norm's detail page was expected")
    values: dict[str, str] = {}
    cells = list(root.iter("th", "td"))
    for i, cell in enumerate(cells[:-1]):
        text = cell.text_content()
        if len(text) > 60:  # a value, not a label
            continue
        key = _LABELS.get(fold(" ".join(text.split())).rstrip(": ").strip())
        if key and key not in values:
            values[key] = " ".join(cells[i + 1].text_content().split())
    if not {"tipo", "numero"} <= set(values):
        raise ChangedShape("a detail page without the Tipo and Número labels")
    row = Row(cod)
    tipo = values.get("tipo") or ""
    # "LO - Lei Ordinária": the sigla, then the description
    row.tipo = tipo.split(" - ", 1)[1].strip() if " - " in tipo else (tipo or None)
    number = re.match(r"^\s*([\w.-]{1,20})\s*/\s*(\d{4})", values.get("numero") or "")
    if number:
        row.numero, row.ano = number.group(1), int(number.group(2))
    row.data = br_date(values.get("data"))
    row.ementa = values.get("ementa") or None
    row.situacao = values.get("situacao") or None
    hrefs = [a.get("href") or "" for a in root.iter("a")]
    row.texto_integral = any(f"/{cod}_texto_integral" in h for h in hrefs)
    row.texto_consolidado = any(f"/{cod}_texto_consolidado" in h for h in hrefs)
    return row


def _html_root(data: bytes, text: str | None = None):
    text = text if text is not None else decode(data)
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    try:
        return lxml.html.document_fromstring(text) if text.strip() else None
    except (etree.ParserError, ValueError):
        return None
