"""SAPL 3.1 as a source: detect an instance, read its API, turn its rows into norms and documents.

A harvest cycle of one câmara is a chain of requests, each queued by the one before it in
the same transaction that stores its results:

    casa (version) → types → vtypes → norms (get_all, or page by page) → anexos → relations

Every cycle lists every norm: SAPL has no cheaper way to learn which norms were deleted, and
`get_all` makes the whole listing one request. Only new and changed rows are written (a row
changed when its `data_ultima_atualizacao` or file moved), so a daily cycle of an unchanged
câmara costs one listing and no writes; a weekly cycle rewrites every row. Norms missing from
a complete listing are marked removed. `relations` closes the cycle. Files found on the way
are queued as `file` requests and fetched by the polite scheduler (see engine.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import httpx
from protego import Protego
from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from ..enrich.types import normalize_type
from ..errors import UserError
from ..store import utcnow
from ..store.harvest_schema import sapl_norm, sapl_relation
from ..store.schema import document, enrich_queue, record
from . import frontier, rows
from .jsonread import iter_json_array, loads
from .net import (
    ROBOTS_AGENT,
    USER_AGENT,
    FetchError,
    Guard,
    Resolver,
    fetch,
    host_key,
    make_client,
    read_capped,
    retry_after_seconds,
    status_error,
)

if TYPE_CHECKING:
    from .engine import Harvest, SourceContext

PLATFORM = "sapl"
TEXTO_INTEGRAL = "texto_integral"
ANEXO = "anexo"
BATCH = 1000
MAX_PROBLEMS_PER_REQUEST = 20  # bad rows recorded one by one; the rest only counted


class NotSapl(UserError):
    """A URL that is not a SAPL 3.1 we can harvest (a 2.5, an older 3.1, another site)."""


class Unreachable(NotSapl):
    """Nothing answered at that URL (no such host, refused, timed out)."""


class Busy(UserError):
    """It answered, but only to say it cannot now (429, 5xx): nothing is known of what it is."""


# -- versions and capabilities ------------------------------------------------------------------


def version_tuple(version: str | None) -> tuple[int, ...]:
    if not version:
        return ()
    return tuple(int(p) for p in re.findall(r"\d+", version.split("-")[0])[:3])


@dataclass
class Capabilities:
    version: str | None

    @property
    def norm_api(self) -> bool:
        return version_tuple(self.version) >= (3, 1, 144)

    @property
    def get_all(self) -> bool:
        return version_tuple(self.version) >= (3, 1, 160)

    @property
    def page_size(self) -> int:
        return 100 if version_tuple(self.version) >= (3, 1, 162) else 50


def api_url(base_url: str, path: str, **params: Any) -> str:
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"{base_url.rstrip('/')}/api/{path.strip('/')}/" + (f"?{query}" if query else "")


def normalize_base_url(url: str) -> str:
    url = url.strip()
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError:
        raise UserError(f"not a valid URL (port): {url!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"not an http(s) URL: {url!r}")
    return urlunsplit((parts.scheme, parts.netloc.lower(), parts.path.rstrip("/"), "", ""))


def rebase_file_url(url: str, base_url: str) -> str:
    """SAPL builds /media URLs from the Host header and says http:// even on https sites."""
    scheme_end = url.find("://")
    start = url.find("/", scheme_end + 3) if scheme_end > 0 else -1
    if start > 0 and url.startswith("/media/", start):
        base = urlsplit(base_url)
        return f"{base.scheme}://{base.netloc}{url[start:]}"
    return url


def file_url(value: Any, base_url: str) -> str | None:
    """A listed file URL we can fetch, rebased on the source; None when there is none.

    ValueError when there is one but it cannot be followed (another scheme, a broken port).
    """
    if not isinstance(value, str) or not value.strip():
        return None
    found = rows.url(rebase_file_url(value.strip(), base_url))
    if found is None:
        raise ValueError(f"a file URL that cannot be fetched: {rows.text(value)[:200]!r}")
    return found


# -- probing an instance ------------------------------------------------------------------------


@dataclass
class Probe:
    base_url: str
    version: str | None
    casa: dict = field(default_factory=dict)
    robots_txt: str | None = None
    robots_status: int | None = None
    crawl_delay: float | None = None
    waited: float = 0.0  # seconds spent on Retry-After and the Crawl-delay

    def describe(self) -> str:
        caps = Capabilities(self.version)
        listing = "get_all listing" if caps.get_all else f"paged listing ({caps.page_size}/page)"
        where = ", ".join(x for x in (self.casa.get("nome"), self.casa.get("uf")) if x)
        delay = f"robots.txt Crawl-delay {self.crawl_delay:g} s" if self.crawl_delay \
            is not None else "no Crawl-delay in robots.txt"
        return (f"SAPL {self.version or '3.1 (version not published)'} at {self.base_url}"
                + (f" ({where})" if where else "") + f": {listing}; {delay}")


class _Prober:
    """The few requests a probe makes: robots.txt first, then each one spaced and retried."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, guard: Guard,
                 max_wait: float, on_wait: Callable[[float, str], None] | None) -> None:
        self.base_url, self.client, self.guard = base_url, client, guard
        self.max_wait = max_wait
        self.on_wait = on_wait
        self.waited = 0.0
        self.robots: Protego | None = None
        self.robots_txt: str | None = None
        self.robots_status: int | None = None
        self.crawl_delay: float | None = None
        self._requests = 0

    async def read_robots(self) -> None:
        parts = urlsplit(self.base_url)
        url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        try:
            answer = await self._get(url, robots=True)
        except FetchError as e:
            raise Unreachable(f"{self.base_url} did not answer: {e}") from None
        self.robots_status = answer.status
        if answer.status == 200:
            self.robots_txt = answer.body.decode("utf-8", "replace")
            self.robots = Protego.parse(self.robots_txt)
            self.crawl_delay = self.robots.crawl_delay(ROBOTS_AGENT)

    async def get(self, url: str):
        if self.robots is not None and not self.robots.can_fetch(url, USER_AGENT):
            raise NotSapl(f"{self.base_url}: robots.txt does not let br-locleg read "
                          f"{urlsplit(url).path}: not harvested (ask the câmara to allow it)")
        if self._requests and self.crawl_delay:
            await self._wait(self.crawl_delay, "robots.txt Crawl-delay")
        self._requests += 1
        return await self._get(url)

    async def _get(self, url: str, robots: bool = False):
        for attempt in range(1, 4):
            answer = await fetch(self.client, url, self.guard, max_bytes=2**20)
            if answer.status not in (429, 503) and not (answer.status >= 500 and robots):
                return answer
            # Busy: wait as asked when the wait is short, else say so. Never a verdict on
            # what the site is.
            retry = retry_after_seconds(answer.headers.get("retry-after"))
            if retry is not None and attempt < 3 and self.waited + retry <= self.max_wait:
                await self._wait(retry, f"HTTP {answer.status} Retry-After")
                continue
            what = "rate-limited" if answer.status == 429 else "unavailable"
            asked = f", Retry-After {retry:.0f} s" if retry is not None else ""
            raise Busy(f"{self.base_url} answered HTTP {answer.status} ({what}{asked}) to "
                       f"{urlsplit(url).path}: it is busy or limiting us, not refusing; try "
                       "again later")
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _wait(self, seconds: float, why: str) -> None:
        self.waited += seconds
        if self.on_wait is not None:
            self.on_wait(seconds, why)
        await asyncio.sleep(seconds)


async def probe(base_url: str, resolver: Resolver | None = None, timeout: float = 20.0,
                client: httpx.AsyncClient | None = None, *, max_wait: float = 120.0,
                on_wait: Callable[[float, str], None] | None = None) -> Probe:
    """What runs at base_url: a SAPL 3.1 with a norm API, or an error saying what it is instead.

    robots.txt is read first and obeyed, its Crawl-delay included (between the probe's own
    two or three requests). A 429 or 503 is waited for when its Retry-After fits in max_wait
    seconds, and otherwise reported as Busy, like a 5xx: a busy answer says nothing about the
    site being a SAPL or not. on_wait(seconds, why) is told of every wait.
    """
    resolver = resolver or Resolver()
    if client is None:
        async with make_client(resolver, timeout=timeout) as own:
            return await probe(base_url, resolver, timeout, own, max_wait=max_wait,
                               on_wait=on_wait)
    prober = _Prober(base_url, client, Guard(base_url, resolver), max_wait, on_wait)
    try:
        return await _probe(prober, base_url)
    except FetchError as e:
        raise Unreachable(f"{base_url} did not answer: {e}") from None


async def _probe(prober: _Prober, base_url: str) -> Probe:
    await prober.read_robots()
    casa = await prober.get(api_url(base_url, "base/casalegislativa"))
    if casa.status >= 500:
        raise Busy(f"{base_url} answered HTTP {casa.status} (server error) to "
                   "/api/base/casalegislativa/: try again later")
    data = _json_or_none(casa.body) if casa.status == 200 else None
    found = data.get("results") if isinstance(data, dict) else None
    if isinstance(found, list) and found and isinstance(found[0], dict):
        house = found[0]
        version = rows.text(house.get("version"))
        if version is not None:
            version = version.strip()[:64] or None
        if not Capabilities(version).norm_api:
            await _require_norm_api(prober, base_url, version)
        keep = {k: rows.text(house.get(k)) for k in ("nome", "sigla", "municipio", "uf",
                                                     "endereco_web")}
        return Probe(base_url, version, keep, prober.robots_txt, prober.robots_status,
                     prober.crawl_delay, prober.waited)
    home = await prober.get(base_url + "/")
    if home.status >= 500:
        raise Busy(f"{base_url} answered HTTP {home.status} (server error): try again later")
    text = home.body.decode("utf-8", "replace")
    if re.search(r"SAPL\s*2\.5|Zope|sapl_documentos|/sapl/consultas", text):
        raise NotSapl(f"{base_url} looks like SAPL 2.5 (Zope, no REST API): not supported "
                      "yet")
    if "SAPL" in text or "Sistema de Apoio ao Processo Legislativo" in text:
        raise NotSapl(f"{base_url} mentions SAPL but has no /api/base/casalegislativa/ "
                      f"(HTTP {casa.status}): not a SAPL 3.1 we can read")
    raise NotSapl(f"{base_url} is not a SAPL (HTTP {casa.status} on "
                  "/api/base/casalegislativa/)")


async def _require_norm_api(prober: _Prober, base_url: str, version: str | None) -> None:
    """An instance that publishes no version (or an old one): ask the norm API itself."""
    norms = await prober.get(api_url(base_url, "norma/normajuridica", page_size=1))
    if norms.status >= 500:
        raise Busy(f"{base_url} answered HTTP {norms.status} (server error) to the norm "
                   "API: try again later")
    listing = _json_or_none(norms.body) if norms.status == 200 else None
    if not (isinstance(listing, dict) and "results" in listing):
        raise NotSapl(f"{base_url} is a SAPL {version or '3.1'} without the norm API "
                      f"(HTTP {norms.status} on /api/norma/normajuridica/; SAPL ≤ 3.1.143): "
                      "not supported, ask the câmara to upgrade")


def _json_or_none(body: bytes) -> Any:
    try:
        return loads(body)
    except ValueError:
        return None


# -- reading responses ------------------------------------------------------------------------


def json_body(fetched, url: str) -> Any:
    """The JSON of a 200 answer, or a FetchError saying what came instead."""
    if fetched.status != 200:
        raise status_error(url, fetched.status, fetched.headers, fetched.body)
    content_type = fetched.headers.get("content-type", "")
    if "html" in content_type or fetched.body.lstrip()[:1] == b"<":
        raise FetchError(f"an HTML page instead of JSON (HTTP 200): {url}", transient=True)
    try:
        return loads(fetched.body)
    except ValueError as e:
        raise FetchError(f"invalid JSON ({e}): {url}", transient=True) from None


def page_results(data: Any, url: str) -> tuple[list, str | None]:
    """(rows, next page link) of a paginated envelope, or of a bare get_all array."""
    if isinstance(data, list):
        return data, None
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        pagination = data.get("pagination")
        links = pagination.get("links") if isinstance(pagination, dict) else None
        nxt = links.get("next") if isinstance(links, dict) else None
        return data["results"], nxt if isinstance(nxt, str) and nxt else None
    raise FetchError(f"unexpected JSON (no results list): {url}", transient=True)


# -- rows -----------------------------------------------------------------------------------------


def parse_norm(item: Any, ctx: SourceContext) -> tuple[dict, list[str]]:
    """A SAPL norm as a row for the store, and notes on fields that could not be kept.

    ValueError when it cannot be a norm at all (no integer id). Any other field may hold
    anything: what cannot be stored is left out and noted. `ip` and `user` (who edited the
    norm) are never read.
    """
    if not isinstance(item, dict):
        raise ValueError(f"a norm row that is not an object: {rows.text(repr(item)[:120])}")
    native_id = rows.native_id(item.get("id"))
    if native_id is None:
        raise ValueError(f"a norm without an integer id: {rows.text(repr(item)[:120])}")
    notes = []
    tipo = ctx.types.get(str(rows.label(item.get("tipo"))))
    if tipo:
        type_raw = tipo["descricao"]
        type_normalized = tipo["lexml"] or normalize_type(type_raw)
    else:
        label = rows.text(item.get("__str__")) or ""
        type_raw = label.split(" nº")[0].strip()[:200] or None
        type_normalized = normalize_type(type_raw)
    year = rows.year(item.get("ano"))
    if year is None and item.get("ano") is not None:
        notes.append(f"ano {rows.text(repr(item.get('ano')))[:40]} is not a year: left out")
    try:
        texto = file_url(item.get("texto_integral"), ctx.base_url)
    except ValueError as e:
        texto = None
        notes.append(str(e))
    return {
        "native_id": native_id, "jurisdiction_code": ctx.jurisdiction_code,
        "type_raw": type_raw,
        "type_normalized": rows.text(type_normalized, record.c.type_normalized),
        "number": rows.label(item.get("numero"), record.c.number),
        "year": year, "date": rows.iso_date(item.get("data")),
        "ementa": rows.text(item.get("ementa")),
        "url": f"{ctx.base_url}/norma/{native_id}",
        "updated": rows.text(item.get("data_ultima_atualizacao"), sapl_norm.c.updated),
        "texto_integral": texto,
    }, notes


@dataclass
class Written:
    """What a batch of listed norms did to the corpus."""

    listed: int = 0
    written: int = 0  # new or changed rows stored
    problems: list[tuple[str, str]] = field(default_factory=list)  # (subject, message)


def write_norms(conn: Connection, h: Harvest, ctx: SourceContext, batch: list[dict],
                seen_at: datetime, rewrite: bool) -> Written:
    """Store the new and changed norms of a batch, their texto integral, and queue files.

    A norm changed when its data_ultima_atualizacao or its file did, or it had been marked
    removed; with `rewrite`, every row is written. The files of a changed norm (texto
    integral and anexos) are asked for again, conditionally.
    """
    by_native = {r["native_id"]: r for r in batch}  # a row twice (paging drift): last wins
    known = {r.native_id: r for r in conn.execute(
        select(sapl_norm.c.native_id, sapl_norm.c.updated, sapl_norm.c.texto_integral,
               sapl_norm.c.record_id, record.c.removed_at)
        .join(record, record.c.id == sapl_norm.c.record_id)
        .where(sapl_norm.c.source_id == ctx.id, sapl_norm.c.native_id.in_(list(by_native)))
    )}
    changed = [r for r in by_native.values() if rewrite or r["native_id"] not in known
               or _differs(known[r["native_id"]], r)]
    done = Written(listed=len(by_native), written=len(changed))
    if not changed:
        return done
    ids = h.store.upsert_records(conn, ctx.id, changed, seen_at)
    new_state, changed_state, revisit = [], [], []
    for r in changed:
        old = known.get(r["native_id"])
        state = {"native_id": r["native_id"], "updated": r["updated"],
                 "texto_integral": r["texto_integral"]}
        if old is None:
            new_state.append({**state, "source_id": ctx.id, "record_id": ids[r["native_id"]]})
            continue
        if _differs(old, r):
            changed_state.append({"b_native": r["native_id"], "b_updated": r["updated"],
                                  "b_texto": r["texto_integral"]})
            revisit.append(ids[r["native_id"]])
        if old.texto_integral and old.texto_integral != r["texto_integral"]:
            # The norm now names another file (or none): the old document left the source.
            conn.execute(update(document).where(
                document.c.record_id == ids[r["native_id"]],
                document.c.url == old.texto_integral, document.c.removed_at.is_(None))
                .values(removed_at=seen_at))
    if new_state:
        insert = sapl_norm.insert()
        if conn.dialect.name == "postgresql":  # multi-row VALUES batches (insertmanyvalues)
            insert = insert.returning(sapl_norm.c.native_id)
        conn.execute(insert, new_state)
    if changed_state:
        conn.execute(update(sapl_norm).where(sapl_norm.c.source_id == ctx.id,
                                             sapl_norm.c.native_id == bindparam("b_native"))
                     .values(updated=bindparam("b_updated"),
                             texto_integral=bindparam("b_texto")), changed_state)
    docs = [{"record_id": ids[r["native_id"]], "url": r["texto_integral"],
             "role": TEXTO_INTEGRAL}
            for r in changed if r["texto_integral"]]
    stored = h.store.ensure_documents(conn, docs) if docs else {}
    wanted = [file_request(ctx, d["url"], stored[(d["record_id"], d["url"])]["id"])
              for d in docs if stored[(d["record_id"], d["url"])]["current_version_id"] is None]
    wanted += _files_of(conn, ctx, revisit)
    wanted = list({w["url"]: w for w in wanted}.values())
    frontier.enqueue(conn, wanted)
    if wanted:
        h.wake({w["host"] for w in wanted})
    return done


def _differs(old: Any, row: dict) -> bool:
    return old.removed_at is not None or (old.updated, old.texto_integral) != (
        row["updated"], row["texto_integral"])


def _files_of(conn: Connection, ctx: SourceContext, record_ids: list[int]) -> list[dict]:
    """File requests for every stored document of these records (their listing changed)."""
    if not record_ids:
        return []
    found = conn.execute(
        select(document.c.id, document.c.url)
        .where(document.c.record_id.in_(record_ids), document.c.removed_at.is_(None),
               document.c.url.like("http%"))
    ).all()
    return [file_request(ctx, d.url, d.id) for d in found]


def file_request(ctx: SourceContext, url: str, document_id: int) -> dict:
    return {"source_id": ctx.id, "host": host_key(url), "kind": frontier.FILE, "url": url,
            "payload": {"document_id": document_id}}


def chain(ctx: SourceContext, kind: str, url: str, payload: dict) -> dict:
    return {"source_id": ctx.id, "host": host_key(url), "kind": kind, "url": url,
            "payload": payload}


# -- the handlers of a cycle ------------------------------------------------------------------


def start_cycle(conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
    """Queue the head of a new cycle (the version check) and retry last cycle's failures."""
    frontier.retry_failed(conn, ctx.id)
    payload = {"mode": "full" if rewrite else "changes", "cycle": utcnow().isoformat(),
               "complete": True}
    frontier.enqueue(conn, [chain(ctx, "casa", api_url(ctx.base_url, "base/casalegislativa"),
                                  payload)])


async def handle(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    handler = HANDLERS[req.kind]
    await handler(h, ctx, req)


async def _casa(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    data = json_body(await h.get(ctx, req.url), req.url)
    found, _ = page_results(data, req.url)
    house = found[0] if found and isinstance(found[0], dict) else {}
    version = rows.text(house.get("version"))
    version = version.strip()[:64] if version and version.strip() else ctx.version
    next_url = api_url(ctx.base_url, "norma/tiponormajuridica", page_size=100)

    def write(conn: Connection) -> None:
        h.save_state(conn, ctx, version=version)
        frontier.enqueue(conn, [chain(ctx, "types", next_url, req.payload)])
        frontier.complete(conn, [req.id])

    await h.db(write)


async def _types(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    """Types and vínculo types: small tables, followed page by page within one request."""
    found, url = [], req.url
    for _ in range(50):
        data = json_body(await h.get(ctx, url), url)
        page, nxt = page_results(data, url)
        found += [r for r in page if isinstance(r, dict) and rows.native_id(r.get("id"))]
        if not nxt:
            break
        url = _same_origin(nxt, ctx.base_url)
        await h.pause(ctx, url)
    if req.kind == "types":
        types = {}
        for r in found:
            descricao = rows.text(r.get("descricao")) or rows.text(r.get("__str__")) or ""
            lexml = (rows.text(r.get("equivalente_lexml")) or "").strip().lower()[:64]
            types[str(r["id"])] = {"descricao": descricao[:200], "lexml": lexml or None}
        nxt_req = chain(ctx, "vtypes", api_url(ctx.base_url, "norma/tipovinculonormajuridica",
                                               page_size=100), req.payload)
        state = {"types": types}
    else:
        vtypes = {str(r["id"]): {
            "sigla": rows.label(r.get("sigla"), sapl_relation.c.tipo_sigla),
            "descricao_ativa": rows.text(r.get("descricao_ativa")),
            "descricao_passiva": rows.text(r.get("descricao_passiva")),
            "revoga_integralmente": rows.boolean(r.get("revoga_integralmente")),
        } for r in found}
        nxt_req = chain(ctx, "norms", listing_url(ctx), {**req.payload, "page": 1})
        state = {"vtypes": vtypes}

    def write(conn: Connection) -> None:
        h.save_state(conn, ctx, **state)
        frontier.enqueue(conn, [nxt_req])
        frontier.complete(conn, [req.id])

    await h.db(write)


def _same_origin(link: str, base_url: str) -> str:
    """A pagination link, on the host we called (SAPL builds it from the Host header)."""
    parts, base = urlsplit(link), urlsplit(base_url)
    return urlunsplit((base.scheme, base.netloc, parts.path, parts.query, ""))


def listing_url(ctx: SourceContext, page: int = 1) -> str:
    caps = ctx.capabilities
    if caps.get_all:
        return api_url(ctx.base_url, "norma/normajuridica", get_all="true", o="id")
    return api_url(ctx.base_url, "norma/normajuridica", o="id", page=page,
                   page_size=caps.page_size)


class _Listing:
    """One listing request's rows: parsed one by one, written in batches, bad ones noted."""

    def __init__(self, h: Harvest, ctx: SourceContext, url: str, payload: dict) -> None:
        self.h, self.ctx, self.url = h, ctx, url
        # Pages are written whole: the rows' last_seen_at is how removals are found at the
        # end of a paged listing (a get_all listing keeps its id set instead).
        self.rewrite = payload.get("mode") == "full" or "get_all=true" not in url
        self.seen_at = datetime.fromisoformat(payload["seen_since"])
        self.native_ids: set[str] = set()
        self.batch: list[dict] = []
        self.done = Written()
        self.bad = 0

    def add(self, item: Any) -> None:
        try:
            row, notes = parse_norm(item, self.ctx)
        except ValueError as e:
            self.note(self.url, f"skipped a bad norm row: {e}")
            return
        for message in notes:
            self.note(row["url"], f"norm {row['native_id']}: {message}")
        self.native_ids.add(row["native_id"])
        self.batch.append(row)

    def note(self, subject: str, message: str) -> None:
        self.bad += 1
        if len(self.done.problems) < MAX_PROBLEMS_PER_REQUEST:
            self.done.problems.append((subject, message))

    async def flush(self) -> None:
        batch, self.batch = self.batch, []
        if batch:
            self._add(await self.h.db(self._write, batch))

    def _add(self, written: Written) -> None:
        self.done.listed += written.listed
        self.done.written += written.written
        for subject, message in written.problems:
            self.note(subject, message)

    def _write(self, conn: Connection, batch: list[dict]) -> Written:
        return write_norms(conn, self.h, self.ctx, batch, self.seen_at, self.rewrite)

    async def write_one_by_one(self, batch: list[dict]) -> None:
        """A batch the database refused: each row alone, so one bad row costs only itself."""
        for row in batch:
            try:
                self._add(await self.h.db(self._write, [row]))
            except (SQLAlchemyError, ValueError, OverflowError) as e:
                self.note(row["url"], f"norm {row['native_id']} could not be stored: "
                          f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")


async def _write_batches(listing: _Listing) -> None:
    batch = listing.batch
    try:
        await listing.flush()
    except (SQLAlchemyError, ValueError, OverflowError):
        await listing.write_one_by_one(batch)


async def _norms(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    payload = dict(req.payload)
    payload.setdefault("seen_since", utcnow().isoformat())
    listing = _Listing(h, ctx, req.url, payload)
    nxt = None
    try:
        if "get_all=true" in req.url:
            await _stream_listing(h, ctx, req.url, listing)
        else:
            data = json_body(await h.get(ctx, req.url), req.url)
            items, nxt = page_results(data, req.url)
            for item in items:
                listing.add(item)
            await _write_batches(listing)
    except FetchError as e:
        if e.status == 404 and payload.get("page", 1) > 1:
            # "Página inválida.": the listing shrank while we paged through it.
            await h.problem(ctx, "harvest", req.url, f"{e} (past the end: the listing changed "
                            "while paging; removals are not marked this cycle)")
            payload["complete"] = False
            await h.db(_replace, req, [_anexos_request(ctx, payload)])
            return
        raise
    await _record_notes(h, ctx, req.url, listing)
    h.count(ctx, "norms", listing.done.listed)
    if nxt:
        page = payload.get("page", 1) + 1
        following = chain(ctx, "norms", listing_url(ctx, page), {**payload, "page": page})
        await h.db(_replace, req, [following])
    elif "get_all=true" in req.url:
        removed = await h.db(_close_listing, h, req, ctx, listing.native_ids, listing.seen_at,
                             [_anexos_request(ctx, payload)])
        h.count(ctx, "removed", removed)
    else:
        await h.db(_replace, req, [_anexos_request(ctx, payload)])


async def _stream_listing(h: Harvest, ctx: SourceContext, url: str, listing: _Listing) -> None:
    """A get_all listing, parsed as it arrives; one batch written while the next is read."""
    async with h.stream(ctx, url) as response:
        if response.status_code != 200:
            body = await read_capped(response, 2**20)
            raise status_error(url, response.status_code, response.headers, body)
        if "html" in response.headers.get("content-type", ""):
            raise FetchError(f"an HTML page instead of JSON (HTTP 200): {url}", transient=True)
        writing: asyncio.Task | None = None
        batches = 0
        async for item in iter_json_array(response.aiter_bytes(), url):
            listing.add(item)
            if len(listing.batch) >= h.config.batch:
                if writing is not None:
                    await writing
                batches += 1
                if batches in (2, 10) or batches % 50 == 0:
                    await h.analyze()
                writing = asyncio.create_task(_write_batches(listing))
                await asyncio.sleep(0)  # let the task take its batch before the next rows
        if writing is not None:
            await writing
        await _write_batches(listing)


async def _record_notes(h: Harvest, ctx: SourceContext, url: str, listing: _Listing) -> None:
    for subject, message in listing.done.problems:
        await h.problem(ctx, "harvest", subject, message)
    hidden = listing.bad - len(listing.done.problems)
    if hidden > 0:
        await h.problem(ctx, "harvest", url, f"{hidden:,} more bad rows or fields in this "
                        "listing (not recorded one by one)")


def _close_listing(conn: Connection, h: Harvest, req: frontier.Request, ctx: SourceContext,
                   listed: set[str], seen_at: datetime, following: list[dict]) -> int:
    """A complete get_all listing: norms it no longer holds are marked removed, never deleted;
    the rest were seen now."""
    current = conn.execute(
        select(sapl_norm.c.native_id, sapl_norm.c.record_id)
        .join(record, record.c.id == sapl_norm.c.record_id)
        .where(sapl_norm.c.source_id == ctx.id, record.c.removed_at.is_(None))
    ).all()
    gone = [r.record_id for r in current if r.native_id not in listed]
    h.store.remove_records(conn, gone, seen_at)
    conn.execute(update(record).where(record.c.source_id == ctx.id,
                                      record.c.removed_at.is_(None),
                                      record.c.last_seen_at < seen_at)
                 .values(last_seen_at=seen_at))
    _replace(conn, req, following)
    return len(gone)


def _replace(conn: Connection, req: frontier.Request, following: list[dict]) -> None:
    frontier.enqueue(conn, following)
    frontier.complete(conn, [req.id])


def _anexos_request(ctx: SourceContext, payload: dict) -> dict:
    payload = {k: v for k, v in payload.items() if k != "page"}
    return chain(ctx, "anexos", _table_url(ctx, "norma/anexonormajuridica"), payload)


def _table_url(ctx: SourceContext, path: str, page: int = 1) -> str:
    if ctx.capabilities.get_all:
        return api_url(ctx.base_url, path, get_all="true")
    return api_url(ctx.base_url, path, o="id", page=page, page_size=ctx.capabilities.page_size)


async def _all_rows(h: Harvest, ctx: SourceContext, url: str) -> list[dict]:
    """Every row of a small table (anexos, relations): get_all, or every page politely."""
    found: list[dict] = []
    for page in range(1, 100_000):
        data = json_body(await h.get(ctx, url), url)
        items, nxt = page_results(data, url)
        found += [r for r in items if isinstance(r, dict)]
        if not nxt:
            return found
        url = _table_url(ctx, urlsplit(url).path.split("/api/")[1], page + 1)
        await h.pause(ctx, url)
    return found


async def _anexos(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    found = await _all_rows(h, ctx, req.url)
    nxt = chain(ctx, "relations", _table_url(ctx, "norma/normarelacionada"), req.payload)
    problems = await h.db(_write_anexos, h, ctx, req, found, nxt)
    for subject, message in problems[:MAX_PROBLEMS_PER_REQUEST]:
        await h.problem(ctx, "harvest", subject, message)
    if len(problems) > MAX_PROBLEMS_PER_REQUEST:
        await h.problem(ctx, "harvest", req.url, f"{len(problems) - MAX_PROBLEMS_PER_REQUEST:,} "
                        "more bad anexo rows (not recorded one by one)")


def _write_anexos(conn: Connection, h: Harvest, ctx: SourceContext, req: frontier.Request,
                  found: list[dict], nxt: dict) -> list[tuple[str, str]]:
    record_ids = _record_ids(conn, ctx.id)
    problems, docs = [], []
    for r in found:
        norm_native = rows.native_id(r.get("norma"))
        try:
            url = file_url(r.get("anexo_arquivo"), ctx.base_url)
        except ValueError as e:
            problems.append((req.url, f"anexo {rows.native_id(r.get('id'))} of norm "
                                      f"{norm_native}: {e}"))
            continue
        if url is None:
            continue
        if norm_native not in record_ids:
            problems.append((url, f"anexo {rows.native_id(r.get('id'))} of norm "
                                  f"{norm_native}, which the listing did not hold: skipped"))
            continue
        docs.append({"record_id": record_ids[norm_native], "url": url, "role": ANEXO,
                     "title": rows.text(r.get("assunto_anexo"))})
    stored = h.store.ensure_documents(conn, docs) if docs else {}
    wanted = [file_request(ctx, d["url"], stored[(d["record_id"], d["url"])]["id"])
              for d in docs if stored[(d["record_id"], d["url"])]["current_version_id"] is None]
    frontier.enqueue(conn, wanted)
    if req.payload.get("complete", True):
        # Anexos leave no trace when deleted: those no longer listed are marked removed.
        listed = {(d["record_id"], d["url"]) for d in docs}
        current = conn.execute(
            select(document.c.id, document.c.record_id, document.c.url)
            .join(record, record.c.id == document.c.record_id)
            .where(record.c.source_id == ctx.id, document.c.role == ANEXO,
                   document.c.removed_at.is_(None))
        ).all()
        gone = [d.id for d in current if (d.record_id, d.url) not in listed]
        if gone:
            conn.execute(update(document).where(document.c.id.in_(gone))
                         .values(removed_at=utcnow()))
    frontier.enqueue(conn, [nxt])
    frontier.complete(conn, [req.id])
    if wanted:
        h.wake({w["host"] for w in wanted})
    return problems


def _record_ids(conn: Connection, source_id: int) -> dict[str, int]:
    """SAPL's norm ids -> the corpus's records of them."""
    return dict(conn.execute(select(sapl_norm.c.native_id, sapl_norm.c.record_id)
                             .where(sapl_norm.c.source_id == source_id)).all())


async def _relations(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    found = await _all_rows(h, ctx, req.url)
    skipped = await h.db(_write_relations, h, ctx, req, found)
    if skipped:
        await h.problem(ctx, "harvest", req.url, f"skipped {skipped:,} vínculo rows without "
                        "integer ids for the vínculo and both norms")
    await h.finish_cycle(ctx, req.payload)


def _write_relations(conn: Connection, h: Harvest, ctx: SourceContext, req: frontier.Request,
                     found: list[dict]) -> int:
    now = utcnow()
    record_ids = _record_ids(conn, ctx.id)
    vtypes = ctx.state.get("vtypes", {})
    known = {r.native_id: r for r in conn.execute(
        select(sapl_relation.c.native_id, sapl_relation.c.tipo_sigla, sapl_relation.c.record_id,
               sapl_relation.c.related_record_id, sapl_relation.c.removed_at)
        .where(sapl_relation.c.source_id == ctx.id))}
    existing = set(known)
    values, skipped = {}, 0
    for r in found:
        own = rows.native_id(r.get("id"))
        principal = rows.native_id(r.get("norma_principal"))
        related = rows.native_id(r.get("norma_relacionada"))
        if own is None or principal is None or related is None:
            skipped += 1
            continue
        tipo = vtypes.get(str(rows.native_id(r.get("tipo_vinculo"))), {})
        values[own] = {
            "norm_native_id": principal, "record_id": record_ids.get(principal),
            "related_native_id": related, "related_record_id": record_ids.get(related),
            "tipo_sigla": tipo.get("sigla"), "descricao_ativa": tipo.get("descricao_ativa"),
            "descricao_passiva": tipo.get("descricao_passiva"),
            "revoga_integralmente": tipo.get("revoga_integralmente"),
            "resumo": rows.text(r.get("resumo")), "seen_at": now, "removed_at": None,
        }
    new = [{"source_id": ctx.id, "native_id": k, **v} for k, v in values.items()
           if k not in existing]
    old = [{"b_native": k, **v} for k, v in values.items() if k in existing]
    if new:
        conn.execute(sapl_relation.insert(), new)
    if old:
        conn.execute(update(sapl_relation).where(sapl_relation.c.source_id == ctx.id,
                                                 sapl_relation.c.native_id
                                                 == bindparam("b_native"))
                     .values(**{k: bindparam(k) for k in old[0] if k != "b_native"}), old)
    gone = existing - set(values)
    if gone and req.payload.get("complete", True):
        conn.execute(update(sapl_relation).where(
            sapl_relation.c.source_id == ctx.id, sapl_relation.c.native_id.in_(list(gone)),
            sapl_relation.c.removed_at.is_(None)).values(removed_at=now))
    else:
        gone = set()
    # A vínculo that came, went or changed changes the legal status of both its norms.
    touched = set()
    for k, v in values.items():
        old_row = known.get(k)
        if old_row is None or (old_row.tipo_sigla, old_row.record_id, old_row.related_record_id,
                               old_row.removed_at) != (v["tipo_sigla"], v["record_id"],
                                                       v["related_record_id"], None):
            touched |= {v["record_id"], v["related_record_id"]}
    for k in gone:
        touched |= {known[k].record_id, known[k].related_record_id}
    touched.discard(None)
    if touched:
        norms_of = set(conn.scalars(select(record.c.norm_id).where(
            record.c.id.in_(touched), record.c.norm_id.is_not(None))))
        conn.execute(enrich_queue.insert(), [{"norm_id": n} for n in sorted(norms_of)])
    frontier.complete(conn, [req.id])
    return skipped


HANDLERS = {"casa": _casa, "types": _types, "vtypes": _types, "norms": _norms,
            "anexos": _anexos, "relations": _relations}

__all__ = ["Capabilities", "NotSapl", "Unreachable", "Busy", "Probe", "probe", "parse_norm",
           "iter_json_array", "normalize_base_url", "rebase_file_url", "start_cycle", "handle"]
