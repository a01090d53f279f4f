"""LexML Brasil's SRU search, as a discovery and cross-check tool (never a source of texts).

LexML indexes what publishers expose by OAI-PMH; its consumer interface is SRU:
`…/busca/SRU?operation=searchRetrieve&version=1.1&query=<CQL>&startRecord=N&maximumRecords=M`.
Records are Dublin Core plus LexML elements without a namespace (tipoDocumento, urn,
localidade, autoridade); their text comes with decomposed accents (normalised to NFC here);
errors come back as a `diagnostics` document. `search` pages through the answers politely;
`check` compares the norms of one place in the corpus with LexML's records for it, by URN.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from urllib.parse import urlencode, urlsplit

from protego import Protego
from sqlalchemy import select

from ..errors import UserError
from .net import (
    USER_AGENT,
    FetchError,
    Guard,
    Resolver,
    fetch,
    make_client,
    retry_after_seconds,
)
from .oaixml import BadXML, UnsafeXML, parse_xml

DEFAULT_SRU_URL = "https://www.lexml.gov.br/busca/SRU"
PAGE = 100  # records asked per request (LexML answered 1,000 in public harvest code)
MAX_BODY = 32 * 2**20
PAUSE = 1.0  # seconds between two requests: a public service, asked gently
MAX_WAIT = 120.0  # seconds of Retry-After we are willing to wait in all


class SruError(UserError):
    """LexML (or the URL given as such) answered with an error or not as SRU does."""


@dataclass
class LexmlRecord:
    urn: str | None
    tipo: str | None  # tipoDocumento: "Lei", "Decreto", ...
    localidade: str | None
    autoridade: str | None
    date: str | None  # dc:date as written
    title: str | None  # dc:title: the epígrafe
    description: str | None  # dc:description: the ementa
    identifier: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class SruPage:
    total: int | None
    records: list[LexmlRecord] = field(default_factory=list)
    next_position: int | None = None


def _nfc(value: str | None) -> str | None:
    if value is None:
        return None
    value = " ".join(unicodedata.normalize("NFC", value).split())
    return value or None


def _local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _find(root, name: str):
    return next((el for el in root.iter() if _local(el) == name), None)


def _text_of(el) -> str | None:
    return _nfc("".join(el.itertext())) if el is not None else None


def _int(el) -> int | None:
    text = _text_of(el)
    return int(text) if text and text.isdigit() else None


def parse_sru(body: bytes) -> SruPage:
    """One searchRetrieve answer; SruError with LexML's own message for diagnostics."""
    try:
        root = parse_xml(body)
    except (BadXML, UnsafeXML) as e:
        raise SruError(f"LexML's answer could not be read: {e}") from None
    if _local(root) != "searchRetrieveResponse":
        if _local(root) == "diagnostics":
            _raise_diagnostic(root)
        raise SruError(f"not an SRU answer (root element <{_local(root)}>)")
    diagnostics = _find(root, "diagnostics")
    if diagnostics is not None and len(diagnostics):
        _raise_diagnostic(diagnostics)
    page = SruPage(_int(_find(root, "numberOfRecords")),
                   next_position=_int(_find(root, "nextRecordPosition")))
    records = _find(root, "records")
    for rec in (records if records is not None else []):
        if _local(rec) != "record":
            continue
        data = _find(rec, "recordData")
        fields: dict[str, str | None] = {}
        for el in (data.iter() if data is not None else []):
            name = _local(el)
            if name in ("tipoDocumento", "urn", "localidade", "autoridade", "date", "title",
                        "description", "identifier") and name not in fields:
                fields[name] = _text_of(el)
        page.records.append(LexmlRecord(
            fields.get("urn"), fields.get("tipoDocumento"), fields.get("localidade"),
            fields.get("autoridade"), fields.get("date"), fields.get("title"),
            fields.get("description"), fields.get("identifier")))
    return page


def _raise_diagnostic(diagnostics) -> None:
    message = _text_of(_find(diagnostics, "message"))
    details = _text_of(_find(diagnostics, "details"))
    uri = _text_of(_find(diagnostics, "uri"))
    said = "; ".join(x for x in (message, details) if x) or uri or "no message"
    raise SruError(f"LexML refused the query: {said}"[:500])


def search_url(sru_url: str, query: str, start: int, maximum: int) -> str:
    params = {"operation": "searchRetrieve", "version": "1.1", "query": query,
              "startRecord": start, "maximumRecords": maximum}
    return f"{sru_url}?{urlencode(params)}"


def check_sru_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        raise UserError(f"not an SRU base URL (http(s)://host/path, no query): {url!r}")
    return url.strip().rstrip("/")


async def search(query: str, *, max_records: int = 100, sru_url: str = DEFAULT_SRU_URL,
                 page: int = PAGE, resolver: Resolver | None = None, pause: float = PAUSE,
                 on_wait: Callable[[float, str], None] | None = None
                 ) -> tuple[int | None, list[LexmlRecord]]:
    """(LexML's count of matches, up to max_records of them), page by page.

    A 429 or 503 is waited for as Retry-After says (up to MAX_WAIT seconds in all); other
    failures are one-line UserErrors.
    """
    sru_url = check_sru_url(sru_url)
    if not query.strip():
        raise UserError("an empty query: say what to look for")
    resolver = resolver or Resolver()
    guard = Guard(sru_url, resolver)
    found: list[LexmlRecord] = []
    total: int | None = None
    start, waited = 1, 0.0
    async with make_client(resolver, timeout=60.0) as client:
        await _allowed(client, guard, sru_url)
        while len(found) < max_records:
            url = search_url(sru_url, query, start, min(page, max_records - len(found)))
            try:
                answer = await fetch(client, url, guard, max_bytes=MAX_BODY)
            except FetchError as e:
                raise SruError(f"LexML did not answer: {e}") from None
            if answer.status in (429, 503):
                retry = retry_after_seconds(answer.headers.get("retry-after")) or 30.0
                if waited + retry > MAX_WAIT:
                    raise SruError(f"LexML is busy (HTTP {answer.status}, Retry-After "
                                   f"{retry:.0f} s): try again later")
                waited += retry
                if on_wait is not None:
                    on_wait(retry, f"HTTP {answer.status} Retry-After")
                await asyncio.sleep(retry)
                continue
            if answer.status != 200 and b"diagnostic" not in answer.body[:4096]:
                raise SruError(f"LexML answered HTTP {answer.status} to {url}")
            result = parse_sru(answer.body)
            total = result.total if result.total is not None else total
            found += result.records
            if not result.records or result.next_position is None \
                    or result.next_position <= start:
                break
            start = result.next_position
            await asyncio.sleep(pause)
    return total, found[:max_records]


async def _allowed(client, guard: Guard, sru_url: str) -> None:
    """robots.txt of the SRU host, obeyed like a publisher's (unreadable: allowed)."""
    parts = urlsplit(sru_url)
    try:
        answer = await fetch(client, f"{parts.scheme}://{parts.netloc}/robots.txt", guard,
                             max_bytes=2**20)
    except FetchError as e:
        raise SruError(f"LexML did not answer: {e}") from None
    if answer.status == 200:
        robots = Protego.parse(answer.body.decode("utf-8", "replace"))
        if not robots.can_fetch(sru_url, USER_AGENT):
            raise SruError(f"{parts.netloc}'s robots.txt does not let br-locleg read "
                           f"{parts.path}")


# -- cross-checking a place ------------------------------------------------------------------


def base_urn(urn: str | None) -> str | None:
    """The norm's URN without version (@…) or fragment (!…), lower case: what is compared."""
    if not urn:
        return None
    value = urn.strip().split("@", 1)[0].split("!", 1)[0].lower()
    return value if value.startswith("urn:lex:") else None


def match_key(urn: str | None) -> str | None:
    """What two URNs of one norm share: the place, type and descriptor (date;number). The
    authority is left out: LexML says `camara.municipal` for a câmara's resolução where the
    corpus's URN (enrich/urn.py) says `municipal`."""
    base = base_urn(urn)
    if base is None:
        return None
    parts = base.split(":")
    return ":".join(parts[:3] + parts[4:]) if len(parts) == 6 else base


def place_query(place: dict) -> str:
    """CQL for a place's records, as LexML's localidade facet names a municipality."""
    name = place["name"].replace('"', "")
    if place["level"] == "municipal":
        return f'localidade="{name} - {place["uf"]}"'
    return f'localidade="{name}"'


@dataclass
class CheckResult:
    jurisdiction: int
    name: str
    query: str
    urn_prefix: str
    corpus_norms: int  # norms of the place in the corpus (not removed)
    corpus_without_urn: int  # of which with no URN (type, date or number unknown)
    lexml_total: int | None  # what LexML counted for the query
    lexml_records: int  # records read whose URN is of this place
    lexml_elsewhere: int  # records the query matched but of another place
    both: int
    only_corpus: list[dict]
    only_lexml: list[dict]
    truncated: bool  # LexML holds more than --max records: only_corpus may be too long

    def as_dict(self) -> dict:
        return asdict(self)


def corpus_urns(corpus, code: int) -> tuple[dict[str, dict], int]:
    """The place's norms by URN, and how many have none."""
    from ..store.schema import norm

    by_urn: dict[str, dict] = {}
    without = 0
    with corpus.store.engine.connect() as conn:
        rows = conn.execute(
            select(norm.c.id, norm.c.urn, norm.c.type_raw, norm.c.number, norm.c.year,
                   norm.c.ementa)
            .where(norm.c.jurisdiction_code == code, norm.c.merged_into.is_(None),
                   norm.c.removed_at.is_(None))
            .order_by(norm.c.id)).mappings()
        for r in rows:
            key = match_key(r["urn"])
            if key is None:
                without += 1
                continue
            by_urn.setdefault(key, {"norm_id": r["id"], "urn": base_urn(r["urn"]),
                                    "type": r["type_raw"],
                                    "number": r["number"], "year": r["year"],
                                    "ementa": (r["ementa"] or "")[:200] or None})
    return by_urn, without


async def check(corpus, code: int, *, sru_url: str = DEFAULT_SRU_URL, max_records: int = 10_000,
                query: str | None = None, resolver: Resolver | None = None, pause: float = PAUSE,
                on_wait: Callable[[float, str], None] | None = None) -> CheckResult:
    """The place's norms in the corpus against LexML's records for it, by URN (match_key)."""
    place = corpus.store.require_jurisdiction(code)
    prefix = f"urn:lex:{place['lexml_label']}:"
    query = query or place_query(place)
    ours, without = corpus_urns(corpus, place["ibge_code"])
    total, records = await search(query, max_records=max_records, sru_url=sru_url,
                                  resolver=resolver, pause=pause, on_wait=on_wait)
    theirs: dict[str, LexmlRecord] = {}
    elsewhere = 0
    for rec in records:
        key = match_key(rec.urn)
        if key is None or not key.startswith(prefix):
            elsewhere += 1
            continue
        theirs.setdefault(key, rec)
    both = set(ours) & set(theirs)
    return CheckResult(
        place["ibge_code"], f"{place['name']} ({place['uf']})", query, prefix, len(ours)
        + without, without, total, len(theirs), elsewhere, len(both),
        [ours[k] for k in sorted(set(ours) - both)],
        [{**theirs[k].as_dict(), "urn": base_urn(theirs[k].urn)}
         for k in sorted(set(theirs) - both)],
        total is not None and total > len(records))
