"""OAI-PMH answers with oai_lexml records, read safely: Identify, ListRecords pages, errors.

Only parsing lives here (no requests, no database): bytes in, plain values out, so that the
real recorded answers of a SAPL (reference/sapl-recorded/) can be tested field by field.

Every answer is parsed with a parser that loads no DTD, resolves no entity and opens no
network connection, and an answer that declares a DOCTYPE at all is refused: OAI-PMH never
needs one, and a DOCTYPE is how billion-laughs and external-entity attacks come in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from urllib.parse import urlsplit

from lxml import etree

from ..enrich.types import normalize_type
from ..jurisdictions import fold
from .platform import TEXTO_INTEGRAL, ListedNorm
from .rows import url as http_or_none

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
PREFIX = "oai_lexml"
MAX_FIELD = 20_000  # characters kept of one ementa or epígrafe

_MONTHS = {m: i for i, m in enumerate(
    ("janeiro", "fevereiro", "marco", "abril", "maio", "junho", "julho", "agosto", "setembro",
     "outubro", "novembro", "dezembro"), start=1)}
# "Lei Complementar n° 45, de 04 de Março de 2013", "Resolução nº 12-A/2010, de 3 de ..."
_EPIGRAFE = re.compile(
    r"^\s*(?P<tipo>.+?)\s+n(?:[º°o]|\.[º°o]?|úmero)?\.?\s*(?P<num>[\w.\-]+?)"
    r"(?:\s*/\s*(?P<ano>\d{2,4}))?\s*(?:,\s*|\s+)(?:de\s+)?"
    r"(?P<d>\d{1,2})\s*(?:º|°|o)?\s+de\s+(?P<m>[^\W\d_]+)\s+de\s+(?P<y>\d{4})",
    re.IGNORECASE)


class UnsafeXML(ValueError):
    """An answer with a DOCTYPE or entities: refused unread."""


class BadXML(ValueError):
    """An answer that is not well-formed XML, or not OAI-PMH."""


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                           load_dtd=False, dtd_validation=False, remove_comments=True,
                           remove_pis=True)


def parse_xml(body: bytes) -> etree._Element:
    """The root of an XML answer; UnsafeXML for any DOCTYPE, BadXML when it does not parse."""
    try:
        root = etree.fromstring(body, _parser())
    except etree.XMLSyntaxError as e:
        if b"<!DOCTYPE" in body[:65536] or b"<!ENTITY" in body[:65536]:
            raise UnsafeXML("an XML answer with a DOCTYPE (entities): refused") from None
        raise BadXML(f"malformed XML: {str(e).splitlines()[0][:200]}") from None
    except ValueError as e:
        raise BadXML(f"malformed XML: {e}") from None
    if root is None:
        raise BadXML("an empty XML answer")
    info = root.getroottree().docinfo
    if info.doctype or info.internalDTD is not None or info.externalDTD is not None:
        raise UnsafeXML("an XML answer with a DOCTYPE (entities): refused")
    return root


def _local(el: etree._Element) -> str:
    tag = el.tag
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _child(el: etree._Element | None, name: str) -> etree._Element | None:
    if el is None:
        return None
    for c in el:
        if _local(c) == name:
            return c
    return None


def _children(el: etree._Element | None, name: str) -> list[etree._Element]:
    return [] if el is None else [c for c in el if _local(c) == name]


def _text(el: etree._Element | None) -> str | None:
    if el is None:
        return None
    value = " ".join("".join(el.itertext()).split())
    return value[:MAX_FIELD] or None


def _oai_root(body: bytes) -> etree._Element:
    root = parse_xml(body)
    if _local(root) != "OAI-PMH":
        raise BadXML(f"not an OAI-PMH answer (root element <{_local(root) or '?'}>)")
    return root


@dataclass
class OaiError:
    code: str  # noRecordsMatch, badResumptionToken, cannotDisseminateFormat, badArgument, ...
    message: str

    def __str__(self) -> str:
        return f"OAI-PMH error {self.code}" + (f": {self.message}" if self.message else "")


def _error(root: etree._Element) -> OaiError | None:
    found = _child(root, "error")
    if found is None:
        return None
    return OaiError(found.get("code") or "unknown", _text(found) or "")


@dataclass
class Identify:
    repository_name: str | None
    base_url: str | None
    protocol_version: str | None
    earliest: str | None  # earliestDatestamp as written
    deleted_record: str | None  # no, transient, persistent
    granularity: str  # YYYY-MM-DDThh:mm:ssZ or YYYY-MM-DD
    admin_email: str | None
    error: OaiError | None = None
    response_date: str | None = None  # the publisher's clock when it answered

    @property
    def seconds(self) -> bool:
        return "hh" in self.granularity


def parse_identify(body: bytes) -> Identify:
    root = _oai_root(body)
    ident = _child(root, "Identify")
    said = _text(_child(root, "responseDate"))
    if ident is None:
        error = _error(root)
        if error is None:
            raise BadXML("an OAI-PMH answer without <Identify>")
        return Identify(None, None, None, None, None, "YYYY-MM-DD", None, error, said)

    def get(name: str) -> str | None:
        return _text(_child(ident, name))

    return Identify(get("repositoryName"), get("baseURL"), get("protocolVersion"),
                    get("earliestDatestamp"), get("deletedRecord"),
                    get("granularity") or "YYYY-MM-DD", get("adminEmail"), None, said)


@dataclass
class Page:
    """One ListRecords answer: its records, deleted identifiers and what comes next."""

    records: list[ListedNorm] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)  # identifiers with status="deleted"
    datestamps: list[str] = field(default_factory=list)  # of every header, in order
    token: str | None = None  # None (or empty): the list is complete
    complete_size: int | None = None  # completeListSize, when the publisher says
    cursor: int | None = None
    error: OaiError | None = None
    notes: list[str] = field(default_factory=list)  # records that could not be read

    @property
    def identifiers(self) -> list[str]:
        return [r.native_id for r in self.records] + self.deleted


def parse_list_records(body: bytes, base_url: str) -> Page:
    """A ListRecords page. `base_url` is the source's endpoint: SAPL writes its own links
    from the Host header it was called with, so /media and /norma links are put back on
    the source's scheme and host."""
    root = _oai_root(body)
    page = Page(error=_error(root))
    listing = _child(root, "ListRecords")
    if listing is None:
        if page.error is None:
            raise BadXML("an OAI-PMH answer with neither <ListRecords> nor <error>")
        return page
    for rec in _children(listing, "record"):
        header = _child(rec, "header")
        identifier = _text(_child(header, "identifier"))
        if not identifier:
            page.notes.append("a record without a header identifier: skipped")
            continue
        stamp = _text(_child(header, "datestamp"))
        page.datestamps.append(stamp or "")
        if header is not None and header.get("status") == "deleted":
            page.deleted.append(identifier)
            continue
        norm, notes = parse_record(identifier, stamp, _child(rec, "metadata"), base_url)
        page.records.append(norm)
        page.notes += [f"{identifier}: {n}" for n in notes]
    token = _child(listing, "resumptionToken")
    if token is not None:
        page.token = (token.text or "").strip() or None
        page.complete_size = _int(token.get("completeListSize"))
        page.cursor = _int(token.get("cursor"))
    return page


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def parse_record(identifier: str, datestamp: str | None, metadata: etree._Element | None,
                 base_url: str) -> tuple[ListedNorm, list[str]]:
    """An oai_lexml record as a listed norm, and notes on what could not be read."""
    notes: list[str] = []
    lexml = next((c for c in metadata if _local(c) == "LexML"), None) \
        if metadata is not None else None
    if lexml is None:
        notes.append("no oai_lexml metadata: only the identifier is kept")
    urn = _text(_child(lexml, "DocumentoIndividual"))
    epigrafe = _text(_child(lexml, "Epigrafe"))
    from_urn = parse_urn(urn) if urn else None
    if urn and from_urn is None:
        notes.append(f"a URN that is not urn:lex: {urn[:120]!r}")
    from_epigrafe = parse_epigrafe(epigrafe) if epigrafe else {}
    fields: dict = {}
    if from_urn:
        fields["urn"] = from_urn["urn"]
    type_raw = from_epigrafe.get("type_raw")
    fields["type_raw"] = type_raw
    fields["type_normalized"] = (from_urn or {}).get("type") or normalize_type(type_raw)
    fields["number"] = from_epigrafe.get("number") or (from_urn or {}).get("number")
    signed = (from_urn or {}).get("date") or from_epigrafe.get("date")
    fields["date"] = signed
    fields["year"] = signed.year if signed else _identifier_year(identifier)
    fields["ementa"] = _text(_child(lexml, "Ementa"))
    items = {(i.get("tipo") or "").strip(): i for i in reversed(_children(lexml, "Item"))}
    page = _link(_text(items.get("metadado")), base_url)
    content = _link(_text(items.get("conteudo")), base_url)
    fields["url"] = page
    files = []
    # SAPL names the norm's page as its "conteudo" when the norm has no file.
    if content and content != page:
        files.append((content, TEXTO_INTEGRAL))
    elif content is None and _text(items.get("conteudo")):
        notes.append(f"a content link that cannot be followed: "
                     f"{_text(items.get('conteudo'))[:120]!r}")
    return ListedNorm(identifier, fields, datestamp, files), notes


def _identifier_year(identifier: str) -> int | None:
    """SAPL's identifiers end in …:sapl/{tipo};{ano};{numero}."""
    found = re.search(r";(\d{4});[^;]*$", identifier)
    return int(found.group(1)) if found and 1000 <= int(found.group(1)) <= 2999 else None


def _link(value: str | None, base_url: str) -> str | None:
    if not value:
        return None
    found = http_or_none(value.strip())
    if found is None:
        return None
    parts, base = urlsplit(found), urlsplit(base_url)
    if parts.netloc != base.netloc and re.match(r"/(media|norma)/", parts.path) \
            and base.path.endswith("/sistema/lexml/oai"):
        # SAPL builds these from the Host header it was called with (and says http://).
        return f"{base.scheme}://{base.netloc}{parts.path}" + (
            f"?{parts.query}" if parts.query else "")
    return found


def parse_urn(urn: str) -> dict | None:
    """urn:lex:<local>:<autoridade>:<tipo>:<YYYY-MM-DD>;<numero>[@versão][!fragmento] →
    the norm's URN (no version, no fragment), its type, date and number; None if not one."""
    base = re.split(r"[@!]", urn.strip(), maxsplit=1)[0]
    parts = base.split(":")
    if len(parts) != 6 or [p.lower() for p in parts[:2]] != ["urn", "lex"]:
        return None
    _, _, local, authority, tipo, descriptor = parts
    found: dict = {"urn": base,
                   "local": local, "authority": authority, "type": tipo.lower() or None,
                   "date": None, "number": None}
    head, _, number = descriptor.partition(";")
    try:
        found["date"] = date.fromisoformat(head)
    except ValueError:
        pass
    found["number"] = number or None
    return found


def parse_epigrafe(text: str) -> dict:
    """'Lei Complementar n° 45, de 04 de Março de 2013' → type_raw, number, date."""
    found = _EPIGRAFE.match(text)
    if not found:
        head = re.split(r"\s+n[º°o.]", text, maxsplit=1)[0].strip(" ,")
        return {"type_raw": head[:200] or None}
    result: dict = {"type_raw": found.group("tipo").strip(" ,")[:200],
                    "number": found.group("num").strip(".")}
    month = _MONTHS.get(fold(found.group("m")))
    if month:
        try:
            result["date"] = date(int(found.group("y")), month, int(found.group("d")))
        except ValueError:
            pass
    return result
