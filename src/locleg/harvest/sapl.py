"""SAPL 3.1 as a source: detect an instance, read its API, turn its rows into norms and documents.

A harvest cycle of one câmara is a chain of requests, each queued by the one before it in
the same transaction that stores its results:

    casa (version) → types → vtypes → norms (get_all, or page by page) → anexos → relations

Every cycle lists every norm: SAPL has no cheaper way to learn which norms were deleted, and
`get_all` makes the whole listing one request. Only new and changed rows are written (a row
changed when its `data_ultima_atualizacao` or file moved: listed.py), so a daily cycle of an
unchanged câmara costs one listing and no writes; a weekly cycle rewrites every row. Norms
missing from a complete listing are marked removed. `relations` closes the cycle. Files found
on the way are queued as `file` requests and fetched by the polite scheduler (engine.py).

`PLATFORM` is this module's face to the engine (platform.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import httpx
from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from ..enrich.types import normalize_type
from ..store import utcnow
from ..store.harvest_schema import listed_norm, sapl_relation
from ..store.schema import document, enrich_queue, record
from . import frontier, listed, platform, rows
from .jsonread import iter_json_array, json_body, loads
from .listed import MAX_PROBLEMS_PER_REQUEST, chain, file_request
from .net import (
    FetchError,
    Guard,
    Resolver,
    make_client,
    normalize_base_url,
    read_capped,
    status_error,
)
from .platform import ANEXO, TEXTO_INTEGRAL, ListedNorm, NotThisPlatform
from .probing import Busy, Prober, Unreachable

if TYPE_CHECKING:
    from .platform import RunningHarvest, SourceContext

NAME = "sapl"
# Lower runs first on a host: the metadata chain before the files it reveals (8).
PRIORITY = {"casa": 0, "types": 1, "vtypes": 2, "norms": 3, "anexos": 4, "relations": 5}


class NotSapl(NotThisPlatform):
    """A URL that is not a SAPL 3.1 we can harvest (a 2.5, an older 3.1, another site)."""


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


def capabilities(ctx: SourceContext) -> Capabilities:
    """What the source's SAPL can do, by the version its last cycle read."""
    return Capabilities(ctx.version)


def norm_types(ctx: SourceContext) -> dict:
    """The source's norm types as its last cycle read them: id -> {descricao, lexml}."""
    return ctx.state.get("types", {})


def api_url(base_url: str, path: str, **params: Any) -> str:
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"{base_url.rstrip('/')}/api/{path.strip('/')}/" + (f"?{query}" if query else "")


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
class Probe(platform.Probe):
    """A SAPL 3.1 found: its casa legislativa (also in state["casa"]) and the waits it took."""

    casa: dict = field(default_factory=dict)
    waited: float = 0.0  # seconds spent on Retry-After and the Crawl-delay

    def describe(self) -> str:
        caps = Capabilities(self.version)
        listing = "get_all listing" if caps.get_all else f"paged listing ({caps.page_size}/page)"
        where = ", ".join(x for x in (self.casa.get("nome"), self.casa.get("uf")) if x)
        delay = f"robots.txt Crawl-delay {self.crawl_delay:g} s" if self.crawl_delay \
            is not None else "no Crawl-delay in robots.txt"
        return (f"SAPL {self.version or '3.1 (version not published)'} at {self.base_url}"
                + (f" ({where})" if where else "") + f": {listing}; {delay}")


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
    prober = Prober(base_url, client, Guard(base_url, resolver), max_wait, on_wait)
    try:
        return await _probe(prober, base_url)
    except FetchError as e:
        raise Unreachable(f"{base_url} did not answer: {e}") from None


async def _probe(prober: Prober, base_url: str) -> Probe:
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
        return Probe(NAME, base_url, version, title=keep.get("nome"),
                     state={"version": version, "casa": keep}, robots_txt=prober.robots_txt,
                     robots_status=prober.robots_status, crawl_delay=prober.crawl_delay,
                     casa=keep, waited=prober.waited)
    home = await prober.get(base_url + "/")
    if home.status >= 500:
        raise Busy(f"{base_url} answered HTTP {home.status} (server error): try again later")
    text = home.body.decode("utf-8", "replace")
    if re.search(r"SAPL\s*2\.5|Zope|sapl_documentos|/sapl/consultas", text):
        raise NotSapl(f"{base_url} looks like SAPL 2.5 (Zope, no REST API): use `locleg "
                      f"sources add sapl25 {base_url}`")
    if "SAPL" in text or "Sistema de Apoio ao Processo Legislativo" in text:
        raise NotSapl(f"{base_url} mentions SAPL but has no /api/base/casalegislativa/ "
                      f"(HTTP {casa.status}): not a SAPL 3.1 we can read")
    raise NotSapl(f"{base_url} is not a SAPL (HTTP {casa.status} on "
                  "/api/base/casalegislativa/)")


async def _require_norm_api(prober: Prober, base_url: str, version: str | None) -> None:
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
    tipo = norm_types(ctx).get(str(rows.label(item.get("tipo"))))
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
        "updated": rows.text(item.get("data_ultima_atualizacao"), listed_norm.c.marker),
        "texto_integral": texto,
    }, notes


def listed_of(row: dict) -> ListedNorm:
    """A parsed norm row as listed.py stores it: the marker is data_ultima_atualizacao, the
    file its texto integral (anexos come from their own table)."""
    fields = {k: v for k, v in row.items() if k not in ("native_id", "updated", "texto_integral")}
    files = [(row["texto_integral"], TEXTO_INTEGRAL)] if row["texto_integral"] else []
    return ListedNorm(row["native_id"], fields, row["updated"], files)


def step(ctx: SourceContext, kind: str, url: str, payload: dict) -> dict:
    """A step of SAPL's chain, at its priority on the host."""
    return chain(ctx, kind, url, payload, priority=PRIORITY[kind])


# -- the handlers of a cycle ------------------------------------------------------------------


def start_cycle(conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
    """Queue the head of a new cycle (the version check) and retry last cycle's failures."""
    frontier.retry_failed(conn, ctx.id)
    payload = {"mode": "full" if rewrite else "changes", "cycle": utcnow().isoformat(),
               "complete": True}
    frontier.enqueue(conn, [step(ctx, "casa", api_url(ctx.base_url, "base/casalegislativa"),
                                 payload)])


async def handle(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    handler = HANDLERS[req.kind]
    await handler(h, ctx, req)


async def _casa(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    data = json_body(await h.get(ctx, req.url), req.url)
    found, _ = page_results(data, req.url)
    house = found[0] if found and isinstance(found[0], dict) else {}
    version = rows.text(house.get("version"))
    version = version.strip()[:64] if version and version.strip() else ctx.version
    next_url = api_url(ctx.base_url, "norma/tiponormajuridica", page_size=100)

    def write(conn: Connection) -> None:
        h.save_state(conn, ctx, version=version)
        frontier.enqueue(conn, [step(ctx, "types", next_url, req.payload)])
        frontier.complete(conn, [req.id])

    await h.db(write)


async def _types(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
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
        nxt_req = step(ctx, "vtypes", api_url(ctx.base_url, "norma/tipovinculonormajuridica",
                                              page_size=100), req.payload)
        state = {"types": types}
    else:
        vtypes = {str(r["id"]): {
            "sigla": rows.label(r.get("sigla"), sapl_relation.c.tipo_sigla),
            "descricao_ativa": rows.text(r.get("descricao_ativa")),
            "descricao_passiva": rows.text(r.get("descricao_passiva")),
            "revoga_integralmente": rows.boolean(r.get("revoga_integralmente")),
        } for r in found}
        nxt_req = step(ctx, "norms", listing_url(ctx), {**req.payload, "page": 1})
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
    caps = capabilities(ctx)
    if caps.get_all:
        return api_url(ctx.base_url, "norma/normajuridica", get_all="true", o="id")
    return api_url(ctx.base_url, "norma/normajuridica", o="id", page=page,
                   page_size=caps.page_size)


def _listing(h: RunningHarvest, ctx: SourceContext, url: str, payload: dict) -> listed.Listing:
    # Pages are written whole: the rows' last_seen_at is how removals are found at the end
    # of a paged listing (a get_all listing keeps its id set instead).
    rewrite = payload.get("mode") == "full" or "get_all=true" not in url
    return listed.Listing(h, ctx, url, datetime.fromisoformat(payload["seen_since"]), rewrite)


def _add(listing: listed.Listing, item: Any) -> None:
    """One norm row of a listing, parsed; a bad row or field is noted, never fatal."""
    try:
        row, notes = parse_norm(item, listing.ctx)
    except ValueError as e:
        listing.note(listing.url, f"skipped a bad norm row: {e}")
        return
    for message in notes:
        listing.note(row["url"], f"norm {row['native_id']}: {message}")
    listing.add(listed_of(row))


async def _norms(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    payload = dict(req.payload)
    payload.setdefault("seen_since", utcnow().isoformat())
    listing = _listing(h, ctx, req.url, payload)
    nxt = None
    try:
        if "get_all=true" in req.url:
            await _stream_listing(h, ctx, req.url, listing)
        else:
            data = json_body(await h.get(ctx, req.url), req.url)
            items, nxt = page_results(data, req.url)
            for item in items:
                _add(listing, item)
            await listing.write()
    except FetchError as e:
        if e.status == 404 and payload.get("page", 1) > 1:
            # "Página inválida.": the listing shrank while we paged through it.
            await h.problem(ctx, "harvest", req.url, f"{e} (past the end: the listing changed "
                            "while paging; removals are not marked this cycle)")
            payload["complete"] = False
            await h.db(listed.replace, req, [_anexos_request(ctx, payload)])
            return
        raise
    await listing.record_notes()
    h.count(ctx, "norms", listing.done.listed)
    if nxt:
        page = payload.get("page", 1) + 1
        following = step(ctx, "norms", listing_url(ctx, page), {**payload, "page": page})
        await h.db(listed.replace, req, [following])
        return

    def close(conn: Connection) -> int:
        # The listing is complete: what it no longer holds left the câmara.
        if "get_all=true" in req.url:
            removed = listed.close_listing(conn, h, ctx, listing.native_ids, listing.seen_at)
        else:
            removed = listed.close_seen(conn, h, ctx, listing.seen_at)
        listed.replace(conn, req, [_anexos_request(ctx, payload)])
        return removed

    h.count(ctx, "removed", await h.db(close))


async def _stream_listing(h: RunningHarvest, ctx: SourceContext, url: str,
                          listing: listed.Listing) -> None:
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
            _add(listing, item)
            if len(listing.batch) >= h.config.batch:
                if writing is not None:
                    await writing
                batches += 1
                if batches in (2, 10) or batches % 50 == 0:
                    await h.analyze()
                writing = asyncio.create_task(listing.write())
                await asyncio.sleep(0)  # let the task take its batch before the next rows
        if writing is not None:
            await writing
        await listing.write()


def _anexos_request(ctx: SourceContext, payload: dict) -> dict:
    payload = {k: v for k, v in payload.items() if k != "page"}
    return step(ctx, "anexos", _table_url(ctx, "norma/anexonormajuridica"), payload)


def _table_url(ctx: SourceContext, path: str, page: int = 1) -> str:
    caps = capabilities(ctx)
    if caps.get_all:
        return api_url(ctx.base_url, path, get_all="true")
    return api_url(ctx.base_url, path, o="id", page=page, page_size=caps.page_size)


async def _all_rows(h: RunningHarvest, ctx: SourceContext, url: str) -> list[dict]:
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


async def _anexos(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    found = await _all_rows(h, ctx, req.url)
    # The last step: should it fail for good, the engine closes the cycle as incomplete.
    nxt = step(ctx, "relations", _table_url(ctx, "norma/normarelacionada"),
               {**req.payload, "closes_cycle": True})
    problems = await h.db(_write_anexos, h, ctx, req, found, nxt)
    for subject, message in problems[:MAX_PROBLEMS_PER_REQUEST]:
        await h.problem(ctx, "harvest", subject, message)
    if len(problems) > MAX_PROBLEMS_PER_REQUEST:
        await h.problem(ctx, "harvest", req.url, f"{len(problems) - MAX_PROBLEMS_PER_REQUEST:,} "
                        "more bad anexo rows (not recorded one by one)")


def _write_anexos(conn: Connection, h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
                  found: list[dict], nxt: dict) -> list[tuple[str, str]]:
    record_ids = listed.record_ids(conn, ctx.id)
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
    listed.queue_files(conn, h, wanted)
    if req.payload.get("complete", True):
        # Anexos leave no trace when deleted: those no longer listed are marked removed.
        still = {(d["record_id"], d["url"]) for d in docs}
        current = conn.execute(
            select(document.c.id, document.c.record_id, document.c.url)
            .join(record, record.c.id == document.c.record_id)
            .where(record.c.source_id == ctx.id, document.c.role == ANEXO,
                   document.c.removed_at.is_(None))
        ).all()
        gone = [d.id for d in current if (d.record_id, d.url) not in still]
        if gone:
            conn.execute(update(document).where(document.c.id.in_(gone))
                         .values(removed_at=utcnow()))
    listed.replace(conn, req, [nxt])
    return problems


async def _relations(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    found = await _all_rows(h, ctx, req.url)
    skipped = await h.db(_write_relations, h, ctx, req, found)
    if skipped:
        await h.problem(ctx, "harvest", req.url, f"skipped {skipped:,} vínculo rows without "
                        "integer ids for the vínculo and both norms")
    await h.finish_cycle(ctx, req.payload)


def _write_relations(conn: Connection, h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
                     found: list[dict]) -> int:
    now = utcnow()
    record_ids = listed.record_ids(conn, ctx.id)
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


class Sapl:
    """SAPL 3.1 through its REST API (platform.Platform)."""

    name = NAME
    title = "SAPL 3.1 (REST API)"

    def normalize_url(self, url: str) -> str:
        return normalize_base_url(url)

    async def probe(self, url: str, *, resolver: Resolver | None = None,
                    on_wait: Callable[[float, str], None] | None = None,
                    jurisdiction: int | None = None) -> Probe:
        return await probe(self.normalize_url(url), resolver, on_wait=on_wait)

    def start_cycle(self, conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
        start_cycle(conn, ctx, rewrite)

    def handle(self, h: RunningHarvest, ctx: SourceContext,
               req: frontier.Request) -> Awaitable[None]:
        return handle(h, ctx, req)


PLATFORM = Sapl()

__all__ = ["PLATFORM", "Capabilities", "NotSapl", "Unreachable", "Busy", "Probe", "probe",
           "parse_norm", "iter_json_array", "normalize_base_url", "rebase_file_url",
           "start_cycle", "handle"]
