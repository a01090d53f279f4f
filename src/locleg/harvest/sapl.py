"""SAPL 3.1 as a source: detect an instance, read its API, turn its rows into norms and documents.

A harvest cycle of one câmara is a chain of requests, each queued by the one before it in
the same transaction that stores its results:

    casa (version) → types → vtypes → norms (get_all, or page by page) → anexos → relations

`relations` closes the cycle: norms missing from a complete full listing are marked
removed, the run is recorded and the next one scheduled. Files found on the way are queued
as `file` requests and fetched by the same polite scheduler (see engine.py).
"""

from __future__ import annotations

import asyncio
import codecs
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit, urlunsplit
from zoneinfo import ZoneInfo

import httpx
from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from ..enrich.types import normalize_type
from ..errors import UserError
from ..store import utcnow
from ..store.harvest_schema import sapl_norm, sapl_relation
from ..store.schema import document, norm
from . import frontier
from .net import (
    FetchError,
    Guard,
    Resolver,
    fetch,
    host_key,
    make_client,
    read_capped,
    status_error,
)

if TYPE_CHECKING:
    from .engine import Harvest, SourceContext

PLATFORM = "sapl"
TEXTO_INTEGRAL = "texto_integral"
ANEXO = "anexo"
SAO_PAULO = ZoneInfo("America/Sao_Paulo")
BATCH = 1000
MAX_JSON_ITEM = 16 * 2**20
# How far back an incremental listing reaches before the last one started: clocks drift.
INCREMENTAL_MARGIN = timedelta(hours=1)


class NotSapl(UserError):
    """A URL that is not a SAPL 3.1 we can harvest (a 2.5, an older 3.1, another site)."""


class Unreachable(NotSapl):
    """Nothing answered at that URL (no such host, refused, timed out)."""


# -- versions and capabilities ------------------------------------------------------------------


def version_tuple(version: str | None) -> tuple[int, ...]:
    if not version:
        return ()
    return tuple(int(p) for p in re.findall(r"\d+", version.split("-")[0])[:3])


@dataclass
class Capabilities:
    version: str | None

    @property
    def get_all(self) -> bool:
        return version_tuple(self.version) >= (3, 1, 160)

    @property
    def lookups(self) -> bool:  # data_ultima_atualizacao__gte and friends
        return version_tuple(self.version) >= (3, 1, 162)

    @property
    def page_size(self) -> int:
        return 100 if version_tuple(self.version) >= (3, 1, 162) else 50


def sapl_datetime(moment: datetime) -> str:
    """A datetime as SAPL's filters take it: São Paulo local time, a space, no offset."""
    return moment.astimezone(SAO_PAULO).strftime("%Y-%m-%d %H:%M:%S")


def api_url(base_url: str, path: str, **params: Any) -> str:
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"{base_url.rstrip('/')}/api/{path.strip('/')}/" + (f"?{query}" if query else "")


def normalize_base_url(url: str) -> str:
    url = url.strip()
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
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


# -- probing an instance ------------------------------------------------------------------------


@dataclass
class Probe:
    base_url: str
    version: str | None
    casa: dict = field(default_factory=dict)

    def describe(self) -> str:
        caps = Capabilities(self.version)
        listing = "get_all listing" if caps.get_all else f"paged listing ({caps.page_size}/page)"
        incremental = "incremental by data_ultima_atualizacao" if caps.lookups else \
            "no change filter (every run lists everything)"
        where = ", ".join(x for x in (self.casa.get("nome"), self.casa.get("uf")) if x)
        return (f"SAPL {self.version or '3.1 (version not published)'} at {self.base_url}"
                + (f" ({where})" if where else "") + f": {listing}, {incremental}")


async def probe(base_url: str, resolver: Resolver | None = None, timeout: float = 20.0,
                client: httpx.AsyncClient | None = None) -> Probe:
    """What runs at base_url: a SAPL 3.1 with a norm API, or NotSapl saying what it is instead."""
    resolver = resolver or Resolver()
    if client is None:
        async with make_client(resolver, timeout=timeout) as own:
            return await probe(base_url, resolver, timeout, own)
    guard = Guard(base_url, resolver)
    try:
        casa = await fetch(client, api_url(base_url, "base/casalegislativa"), guard,
                           max_bytes=2**20)
    except FetchError as e:
        raise Unreachable(f"{base_url} did not answer: {e}") from None
    data = _json_or_none(casa.body) if casa.status == 200 else None
    if isinstance(data, dict) and isinstance(data.get("results"), list) and data["results"]:
        house = data["results"][0] if isinstance(data["results"][0], dict) else {}
        version = house.get("version") if isinstance(house.get("version"), str) else None
        norms = await fetch(client, api_url(base_url, "norma/normajuridica", page_size=1),
                            guard, max_bytes=2**20)
        listing = _json_or_none(norms.body) if norms.status == 200 else None
        if not (isinstance(listing, dict) and "results" in listing):
            raise NotSapl(f"{base_url} is a SAPL {version or '3.1'} without the norm API "
                          "(SAPL ≤ 3.1.143): not supported, ask the câmara to upgrade")
        keep = {k: house.get(k) for k in ("nome", "sigla", "municipio", "uf", "endereco_web")}
        return Probe(base_url, version, keep)
    home = await fetch(client, base_url + "/", guard, max_bytes=2**20)
    text = home.body.decode("utf-8", "replace")
    if re.search(r"SAPL\s*2\.5|Zope|sapl_documentos|/sapl/consultas", text):
        raise NotSapl(f"{base_url} looks like SAPL 2.5 (Zope, no REST API): not supported "
                      "yet")
    if "SAPL" in text or "Sistema de Apoio ao Processo Legislativo" in text:
        raise NotSapl(f"{base_url} mentions SAPL but has no /api/base/casalegislativa/ "
                      f"(HTTP {casa.status}): not a SAPL 3.1 we can read")
    raise NotSapl(f"{base_url} is not a SAPL (HTTP {casa.status} on "
                  "/api/base/casalegislativa/)")


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
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
        return json.loads(fetched.body)
    except (ValueError, UnicodeDecodeError) as e:
        raise FetchError(f"invalid JSON ({e}): {url}", transient=True) from None


def page_results(data: Any, url: str) -> tuple[list, bool]:
    """(rows, has_next) of a paginated envelope, or of a bare get_all array."""
    if isinstance(data, list):
        return data, False
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        pagination = data.get("pagination") or {}
        has_next = bool(pagination.get("next_page") or (pagination.get("links") or {})
                        .get("next")) if isinstance(pagination, dict) else False
        return data["results"], has_next
    raise FetchError(f"unexpected JSON (no results list): {url}", transient=True)


async def iter_json_array(chunks: AsyncIterator[bytes], url: str) -> AsyncIterator[Any]:
    """The items of a JSON array as the bytes arrive: a 100,000-row get_all never sits whole."""
    decoder = json.JSONDecoder()
    text = codecs.getincrementaldecoder("utf-8")("replace")
    buffer, pos, started, finished, expect_item = "", 0, False, False, True
    async for chunk in chunks:
        buffer = buffer[pos:] + text.decode(chunk)
        pos = 0
        while not finished:
            while pos < len(buffer) and buffer[pos] in " \t\r\n":
                pos += 1
            if pos >= len(buffer):
                break
            char = buffer[pos]
            if not started:
                if char != "[":
                    kind = "an HTML page" if char == "<" else "not a JSON array"
                    raise FetchError(f"{kind} instead of the get_all listing: {url}",
                                     transient=True)
                started, pos = True, pos + 1
                continue
            if char == "]":
                finished, pos = True, pos + 1
                break
            if char == "," and not expect_item:
                expect_item, pos = True, pos + 1
                continue
            try:
                item, end = decoder.raw_decode(buffer, pos)
            except json.JSONDecodeError:
                if len(buffer) - pos > MAX_JSON_ITEM:
                    raise FetchError(f"invalid JSON in the listing: {url}",
                                     transient=True) from None
                break  # the item is not whole yet
            if not expect_item:
                raise FetchError(f"invalid JSON in the listing (missing comma): {url}",
                                 transient=True)
            yield item
            pos, expect_item = end, False
    if not finished:
        raise FetchError(f"the listing ended before its closing bracket: {url}", transient=True)


# -- rows -----------------------------------------------------------------------------------------


def parse_norm(item: Any, ctx: SourceContext) -> dict:
    """A SAPL norm as a row for the store; ValueError when it cannot be one.

    Only the fields we need are read: `ip` and `user` (who edited it) are never kept.
    """
    if not isinstance(item, dict) or not isinstance(item.get("id"), int):
        raise ValueError(f"a norm without an integer id: {str(item)[:120]}")
    native_id = str(item["id"])
    tipo = ctx.types.get(str(item.get("tipo")))
    if tipo:
        type_raw = tipo["descricao"]
        type_normalized = tipo["lexml"] or normalize_type(type_raw)
    else:
        label = item.get("__str__") if isinstance(item.get("__str__"), str) else ""
        type_raw = label.split(" nº")[0].strip() or None
        type_normalized = normalize_type(type_raw)
    numero = item.get("numero")
    numero = str(numero).strip()[:32] or None if numero is not None else None
    year = item.get("ano") if isinstance(item.get("ano"), int) else None
    when = None
    if isinstance(item.get("data"), str):
        try:
            when = date.fromisoformat(item["data"][:10])
        except ValueError:
            when = None
    ementa = item.get("ementa") if isinstance(item.get("ementa"), str) else None
    texto = item.get("texto_integral")
    texto = rebase_file_url(texto.strip(), ctx.base_url) if isinstance(texto, str) and \
        texto.strip() else None
    updated = item.get("data_ultima_atualizacao")
    return {
        "native_id": native_id, "jurisdiction_code": ctx.jurisdiction_code,
        "type_raw": type_raw, "type_normalized": type_normalized, "number": numero,
        "year": year, "date": when, "ementa": ementa,
        "url": f"{ctx.base_url}/norma/{native_id}",
        "updated": updated if isinstance(updated, str) else None, "texto_integral": texto,
    }


def write_norms(conn: Connection, h: Harvest, ctx: SourceContext, rows: list[dict],
                seen_at: datetime) -> int:
    """Store a batch of parsed norms, their texto integral documents, and queue changed files."""
    by_native = {r["native_id"]: r for r in rows}  # a row twice (paging drift): last wins
    rows = list(by_native.values())
    ids = h.store.upsert_norms(conn, ctx.id, rows, seen_at)
    known = {r.native_id: r for r in conn.execute(
        select(sapl_norm.c.native_id, sapl_norm.c.updated, sapl_norm.c.texto_integral)
        .where(sapl_norm.c.source_id == ctx.id, sapl_norm.c.native_id.in_(list(by_native)))
    )}
    new_state, changed_state, changed = [], [], set()
    for r in rows:
        old = known.get(r["native_id"])
        state = {"native_id": r["native_id"], "updated": r["updated"],
                 "texto_integral": r["texto_integral"]}
        if old is None:
            new_state.append({**state, "source_id": ctx.id, "norm_id": ids[r["native_id"]]})
            changed.add(r["native_id"])
        elif (old.updated, old.texto_integral) != (r["updated"], r["texto_integral"]):
            changed_state.append({"b_native": r["native_id"], "b_updated": r["updated"],
                                  "b_texto": r["texto_integral"]})
            changed.add(r["native_id"])
            if old.texto_integral and old.texto_integral != r["texto_integral"]:
                # The norm now names another file (or none): the old document left the source.
                conn.execute(update(document).where(
                    document.c.norm_id == ids[r["native_id"]],
                    document.c.url == old.texto_integral, document.c.removed_at.is_(None))
                    .values(removed_at=seen_at))
    if new_state:
        insert = sapl_norm.insert()
        if conn.dialect.name == "postgresql":  # multi-row VALUES batches, as above
            insert = insert.returning(sapl_norm.c.native_id)
        conn.execute(insert, new_state)
    if changed_state:
        conn.execute(update(sapl_norm).where(sapl_norm.c.source_id == ctx.id,
                                             sapl_norm.c.native_id == bindparam("b_native"))
                     .values(updated=bindparam("b_updated"),
                             texto_integral=bindparam("b_texto")), changed_state)
    docs = [{"norm_id": ids[r["native_id"]], "url": r["texto_integral"], "role": TEXTO_INTEGRAL}
            for r in rows if r["texto_integral"]]
    stored = h.store.ensure_documents(conn, docs) if docs else {}
    wanted = []
    for r in rows:
        if not r["texto_integral"]:
            continue
        doc = stored[(ids[r["native_id"]], r["texto_integral"])]
        if doc["current_version_id"] is None or r["native_id"] in changed:
            wanted.append(file_request(ctx, r["texto_integral"], doc["id"]))
    frontier.enqueue(conn, wanted)
    if wanted:
        h.wake({w["host"] for w in wanted})
    return len(rows)


def file_request(ctx: SourceContext, url: str, document_id: int) -> dict:
    return {"source_id": ctx.id, "host": host_key(url), "kind": frontier.FILE, "url": url,
            "payload": {"document_id": document_id}}


def chain(ctx: SourceContext, kind: str, url: str, payload: dict) -> dict:
    return {"source_id": ctx.id, "host": host_key(url), "kind": kind, "url": url,
            "payload": payload}


# -- the handlers of a cycle ------------------------------------------------------------------


def start_cycle(conn: Connection, ctx: SourceContext, mode: str, since: str | None) -> None:
    """Queue the head of a new cycle (the version check) and retry last cycle's failures."""
    frontier.retry_failed(conn, ctx.id)
    payload = {"mode": mode, "since": since, "cycle": utcnow().isoformat(), "complete": True}
    frontier.enqueue(conn, [chain(ctx, "casa", api_url(ctx.base_url, "base/casalegislativa"),
                                  payload)])


async def handle(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    handler = HANDLERS[req.kind]
    await handler(h, ctx, req)


async def _casa(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    data = json_body(await h.get(ctx, req.url), req.url)
    rows, _ = page_results(data, req.url)
    house = rows[0] if rows and isinstance(rows[0], dict) else {}
    version = house.get("version") if isinstance(house.get("version"), str) else ctx.version
    next_url = api_url(ctx.base_url, "norma/tiponormajuridica", page_size=100)

    def write(conn: Connection) -> None:
        h.save_state(conn, ctx, version=version)
        frontier.enqueue(conn, [chain(ctx, "types", next_url, {**req.payload, "rows": []})])
        frontier.complete(conn, [req.id])

    await h.db(write)


async def _types(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    """Types and vínculo types: small tables, followed page by page within one request."""
    rows, url = [], req.url
    for _ in range(50):
        data = json_body(await h.get(ctx, url), url)
        page, has_next = page_results(data, url)
        rows += [r for r in page if isinstance(r, dict) and "id" in r]
        links = data.get("pagination", {}).get("links", {}) if isinstance(data, dict) else {}
        if not has_next or not links.get("next"):
            break
        url = _same_origin(links["next"], ctx.base_url)
        await h.pause(ctx, url)
    payload = {k: v for k, v in req.payload.items() if k != "rows"}
    if req.kind == "types":
        types = {str(r["id"]): {"descricao": str(r.get("descricao") or r.get("__str__") or ""),
                                "lexml": (r.get("equivalente_lexml") or "").strip().lower()
                                or None} for r in rows}
        nxt = chain(ctx, "vtypes", api_url(ctx.base_url, "norma/tipovinculonormajuridica",
                                           page_size=100), payload)

        def write(conn: Connection) -> None:
            h.save_state(conn, ctx, types=types)
            frontier.enqueue(conn, [nxt])
            frontier.complete(conn, [req.id])
    else:
        vtypes = {str(r["id"]): {k: r.get(k) for k in ("sigla", "descricao_ativa",
                                                        "descricao_passiva",
                                                        "revoga_integralmente")}
                  for r in rows}
        nxt = chain(ctx, "norms", listing_url(ctx, payload), {**payload, "page": 1})

        def write(conn: Connection) -> None:
            h.save_state(conn, ctx, vtypes=vtypes)
            frontier.enqueue(conn, [nxt])
            frontier.complete(conn, [req.id])

    await h.db(write)


def _same_origin(link: str, base_url: str) -> str:
    """A pagination link, on the host we called (SAPL builds it from the Host header)."""
    parts, base = urlsplit(link), urlsplit(base_url)
    return urlunsplit((base.scheme, base.netloc, parts.path, parts.query, ""))


def listing_url(ctx: SourceContext, payload: dict, page: int = 1) -> str:
    caps = ctx.capabilities
    since = payload.get("since")
    if caps.get_all:
        return api_url(ctx.base_url, "norma/normajuridica", data_ultima_atualizacao__gte=since,
                       get_all="true", o="id")
    return api_url(ctx.base_url, "norma/normajuridica", data_ultima_atualizacao__gte=since,
                   o="id", page=page, page_size=caps.page_size)


async def _norms(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    payload = dict(req.payload)
    seen_at = utcnow()
    payload.setdefault("seen_since", seen_at.isoformat())
    listed, bad = 0, []
    has_next = False
    try:
        if "get_all=true" in req.url:
            async with h.stream(ctx, req.url) as response:
                if response.status_code != 200:
                    body = await read_capped(response, 2**20)
                    raise status_error(req.url, response.status_code, response.headers, body)
                if "html" in response.headers.get("content-type", ""):
                    raise FetchError(f"an HTML page instead of JSON (HTTP 200): {req.url}",
                                     transient=True)
                batch: list[dict] = []
                writing: asyncio.Task | None = None  # one batch written while the next is read
                batches = 0
                async for item in iter_json_array(response.aiter_bytes(), req.url):
                    try:
                        batch.append(parse_norm(item, ctx))
                    except ValueError as e:
                        bad.append(str(e))
                    if len(batch) >= h.config.batch:
                        if writing is not None:
                            listed += await writing
                        batches += 1
                        if batches in (2, 10) or batches % 50 == 0:
                            await h.analyze()
                        writing = asyncio.create_task(
                            h.db(write_norms_tx, h, ctx, batch, seen_at))
                        batch = []
                if writing is not None:
                    listed += await writing
                if batch:
                    listed += await h.db(write_norms_tx, h, ctx, batch, seen_at)
        else:
            data = json_body(await h.get(ctx, req.url), req.url)
            items, has_next = page_results(data, req.url)
            rows = []
            for item in items:
                try:
                    rows.append(parse_norm(item, ctx))
                except ValueError as e:
                    bad.append(str(e))
            if rows:
                listed += await h.db(write_norms_tx, h, ctx, rows, seen_at)
    except FetchError as e:
        if e.status == 400 and payload.get("since"):
            # An instance that refuses our change filter: list everything instead.
            await h.problem(ctx, "harvest", req.url, f"{e}; the incremental filter was "
                            "refused, listing every norm instead")
            full = {**payload, "since": None, "mode": "full", "page": 1,
                    "seen_since": seen_at.isoformat()}
            await h.db(_replace, req, [chain(ctx, "norms", listing_url(ctx, full), full)])
            return
        if e.status == 404 and payload.get("page", 1) > 1:
            # "Página inválida.": the listing shrank while we paged through it.
            await h.problem(ctx, "harvest", req.url, f"{e} (past the end: the listing changed "
                            "while paging; removals are not marked this cycle)")
            payload["complete"] = False
            await h.db(_replace, req, [_anexos_request(ctx, payload)])
            return
        raise
    for message in bad[:20]:
        await h.problem(ctx, "harvest", req.url, f"skipped a bad norm row: {message}")
    h.count(ctx, "norms", listed)
    if has_next:
        page = payload.get("page", 1) + 1
        nxt = chain(ctx, "norms", listing_url(ctx, payload, page), {**payload, "page": page})
    else:
        nxt = _anexos_request(ctx, payload)
    await h.db(_replace, req, [nxt])


def write_norms_tx(conn: Connection, h: Harvest, ctx: SourceContext, rows: list[dict],
                   seen_at: datetime) -> int:
    return write_norms(conn, h, ctx, rows, seen_at)


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
    rows: list[dict] = []
    for page in range(1, 100_000):
        data = json_body(await h.get(ctx, url), url)
        items, has_next = page_results(data, url)
        rows += [r for r in items if isinstance(r, dict)]
        if not has_next:
            return rows
        url = _table_url(ctx, urlsplit(url).path.split("/api/")[1], page + 1)
        await h.pause(ctx, url)
    return rows


async def _anexos(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    rows = await _all_rows(h, ctx, req.url)
    payload = dict(req.payload)
    nxt = chain(ctx, "relations", _table_url(ctx, "norma/normarelacionada"), payload)
    problems = await h.db(_write_anexos, h, ctx, req, rows, nxt)
    for subject, message in problems[:20]:
        await h.problem(ctx, "harvest", subject, message)


def _write_anexos(conn: Connection, h: Harvest, ctx: SourceContext, req: frontier.Request,
                  rows: list[dict], nxt: dict) -> list[tuple[str, str]]:
    norm_ids = _norm_ids(conn, ctx.id)
    problems, docs = [], []
    for r in rows:
        url = r.get("anexo_arquivo")
        norm_native = str(r.get("norma"))
        if not isinstance(url, str) or not url.strip():
            continue
        if norm_native not in norm_ids:
            problems.append((url, f"anexo {r.get('id')} of norm {norm_native}, which the "
                                  "listing did not hold: skipped"))
            continue
        title = r.get("assunto_anexo") if isinstance(r.get("assunto_anexo"), str) else None
        docs.append({"norm_id": norm_ids[norm_native], "url": rebase_file_url(url.strip(),
                                                                              ctx.base_url),
                     "role": ANEXO, "title": title})
    stored = h.store.ensure_documents(conn, docs) if docs else {}
    wanted = [file_request(ctx, d["url"], stored[(d["norm_id"], d["url"])]["id"]) for d in docs
              if stored[(d["norm_id"], d["url"])]["current_version_id"] is None]
    frontier.enqueue(conn, wanted)
    # Anexos leave no trace when deleted: those no longer listed are marked removed.
    listed = {(d["norm_id"], d["url"]) for d in docs}
    current = conn.execute(
        select(document.c.id, document.c.norm_id, document.c.url)
        .join(norm, norm.c.id == document.c.norm_id)
        .where(norm.c.source_id == ctx.id, document.c.role == ANEXO,
               document.c.removed_at.is_(None))
    ).all()
    gone = [d.id for d in current if (d.norm_id, d.url) not in listed]
    if gone:
        conn.execute(update(document).where(document.c.id.in_(gone)).values(removed_at=utcnow()))
    frontier.enqueue(conn, [nxt])
    frontier.complete(conn, [req.id])
    if wanted:
        h.wake({w["host"] for w in wanted})
    return problems


def _norm_ids(conn: Connection, source_id: int) -> dict[str, int]:
    return dict(conn.execute(select(sapl_norm.c.native_id, sapl_norm.c.norm_id)
                             .where(sapl_norm.c.source_id == source_id)).all())


async def _relations(h: Harvest, ctx: SourceContext, req: frontier.Request) -> None:
    rows = await _all_rows(h, ctx, req.url)
    await h.db(_write_relations, h, ctx, req, rows)
    await h.finish_cycle(ctx, req.payload)


def _write_relations(conn: Connection, h: Harvest, ctx: SourceContext, req: frontier.Request,
                     rows: list[dict]) -> None:
    now = utcnow()
    norm_ids = _norm_ids(conn, ctx.id)
    vtypes = ctx.state.get("vtypes", {})
    existing = set(conn.scalars(select(sapl_relation.c.native_id)
                                .where(sapl_relation.c.source_id == ctx.id)))
    values = {}
    for r in rows:
        if not isinstance(r.get("id"), int):
            continue
        tipo = vtypes.get(str(r.get("tipo_vinculo")), {})
        principal, related = str(r.get("norma_principal")), str(r.get("norma_relacionada"))
        values[str(r["id"])] = {
            "norm_native_id": principal, "norm_id": norm_ids.get(principal),
            "related_native_id": related, "related_norm_id": norm_ids.get(related),
            "tipo_sigla": tipo.get("sigla"), "descricao_ativa": tipo.get("descricao_ativa"),
            "descricao_passiva": tipo.get("descricao_passiva"),
            "revoga_integralmente": tipo.get("revoga_integralmente"),
            "resumo": r.get("resumo") if isinstance(r.get("resumo"), str) else None,
            "seen_at": now, "removed_at": None,
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
    if gone:
        conn.execute(update(sapl_relation).where(
            sapl_relation.c.source_id == ctx.id, sapl_relation.c.native_id.in_(list(gone)),
            sapl_relation.c.removed_at.is_(None)).values(removed_at=now))
    frontier.complete(conn, [req.id])


HANDLERS = {"casa": _casa, "types": _types, "vtypes": _types, "norms": _norms,
            "anexos": _anexos, "relations": _relations}

__all__ = ["Capabilities", "NotSapl", "Unreachable", "Probe", "probe", "parse_norm",
           "iter_json_array", "sapl_datetime", "normalize_base_url", "rebase_file_url",
           "start_cycle", "handle", "INCREMENTAL_MARGIN"]
