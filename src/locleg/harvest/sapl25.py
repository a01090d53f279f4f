"""SAPL 2.5 (Zope) as a source: its norm search, split under the 5,000-row cap, and detail pages.

SAPL 2.5 has no API. A cycle reads what people read, one polite request at a time:

    form (norm types) → search per type: its RSS 2.0 (dates, texto integral) and its HTML
        results (Situação, consolidated text), split by year and then by date range wherever
        a search returns the 5,000-row cap → close → detail pages where rows lack fields

A search that returns exactly the cap is not trusted (the ZSQL method cuts silently): its
partition is split further, and one that cannot be split (a single day of more than 5,000
norms) leaves the listing incomplete. A listing page that is not what SAPL 2.5 writes (a
redesign, an error page served with 200) is recorded as "0 items where N were expected" and
also leaves the listing incomplete: norms are marked removed only after a cycle whose every
search was read whole.

Each listed norm carries a marker, a hash of what its listing rows said: a norm is written
only when it is new or its marker changed; unchanged norms are only marked seen. The detail
page (`consultas/norma_juridica/norma_juridica_mostrar_proc?cod_norma=N`, a label/value
table) is read for a new or changed norm whose rows left something out (a portal without
RSS gives no dates): the RSS and the HTML results together say everything a record holds, so
a câmara's first cycle costs a few requests per thousand norms, not one per norm (at
SAPL's Crawl-delay of 60 s, 10,000 detail pages would take a week). Files are
`sapl_documentos/norma_juridica/{cod}_texto_integral` (no extension: the engine sniffs the
bytes) and `…_texto_consolidado`; their URLs are built on the source's own base, never taken
from the feed (Zope writes the host it sees behind its proxy, often localhost:8080).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from ..enrich.types import normalize_type
from ..store import utcnow
from ..store.harvest_schema import harvest_request, listed_norm
from ..store.schema import record
from . import frontier, listed, rows
from .net import FetchError, Guard, Resolver, make_client, normalize_base_url, status_error
from .platform import TEXTO_INTEGRAL, ListedNorm, NotThisPlatform, Probe
from .probing import Busy, Prober, Unreachable
from .sapl25_pages import (
    CAP,
    ChangedShape,
    Results,
    Row,
    parse_detail,
    parse_form,
    parse_results,
    parse_rss,
)

if TYPE_CHECKING:
    from .platform import RunningHarvest, SourceContext

NAME = "sapl25"
TEXTO_CONSOLIDADO = "texto_consolidado"
FORM = "generico/norma_juridica_pesquisar_form"
SEARCH = "generico/norma_juridica_pesquisar_proc"
RSS = "generico/RSS2_normas"
DETAIL = "consultas/norma_juridica/norma_juridica_mostrar_proc"
DOCUMENTS = "sapl_documentos/norma_juridica"
HTML_STEP = 500  # rows per page of the HTML results (the page honours `step`)
DETAIL_BATCH = 50  # detail pages read by one request of the frontier
FIRST_DAY, LAST_DAY = date(1000, 1, 1), date(2999, 12, 31)
# On a host, lower runs first: every search, the close, then the detail pages (files: 8).
PRIORITY = {"form": 1, "search": 5, "close": 6, "detail": 7}


class NotSapl25(NotThisPlatform):
    """The site answered, but not as a SAPL 2.5 portal does."""


# -- URLs ---------------------------------------------------------------------------------------


def search_url(base_url: str, part: dict, rss: bool = True, page: int = 1) -> str:
    """A search as the form sends it (every field, empty ones included), for one partition."""
    start, end = part.get("range") or ("", "")
    params = {"incluir": "0", "lst_tip_norma": part.get("tip", ""), "txt_numero": "",
              "txt_ano": str(part.get("ano", "")), "dt_norma": _br(start), "dt_norma2": _br(end),
              "dt_public": "", "dt_public2": "", "lst_assunto_norma": "", "txt_assunto": "",
              "lst_tip_situacao_norma": "", "em_vigencia": "", "rd_ordenacao": "1",
              "btn_norma_pesquisar": "Pesquisar"}
    if not rss:
        params.update(step=str(HTML_STEP), page=str(page))
    return f"{base_url}/{RSS if rss else SEARCH}?{urlencode(params)}"


def detail_url(base_url: str, cod: str) -> str:
    return f"{base_url}/{DETAIL}?cod_norma={cod}"


def file_url(base_url: str, cod: str, role: str = TEXTO_INTEGRAL) -> str:
    return f"{base_url}/{DOCUMENTS}/{cod}_{role}"


def _br(iso: str) -> str:
    """dd/mm/aaaa, as the form takes dates, from an ISO date ("" stays "")."""
    return date.fromisoformat(iso).strftime("%d/%m/%Y") if iso else ""


# -- partitions ---------------------------------------------------------------------------------


def split(part: dict, found: list[Row]) -> list[dict] | None:
    """Smaller searches that together cover a partition that hit the cap; None: it cannot be
    split (a single day).

    A type is split by year (the years its capped rows show; the rest of time in two date
    ranges, split again if need be); a year in two halves; a date range in two."""
    if "range" in part:
        start, end = (date.fromisoformat(d) for d in part["range"])
        if start >= end:
            return None
        middle = start + (end - start) // 2
        return [{**part, "range": [start.isoformat(), middle.isoformat()]},
                {**part, "range": [(middle + timedelta(days=1)).isoformat(), end.isoformat()]}]
    if "ano" in part:
        year = part["ano"]
        return [{"tip": part["tip"], "range": [f"{year}-01-01", f"{year}-06-30"]},
                {"tip": part["tip"], "range": [f"{year}-07-01", f"{year}-12-31"]}]
    years = sorted({r.ano for r in found if r.ano is not None})
    if not years:
        return [{**part, "range": [FIRST_DAY.isoformat(), LAST_DAY.isoformat()]}]
    low, high = years[0], years[-1]
    return ([{**part, "ano": y} for y in range(high, low - 1, -1)]
            + [{**part, "range": [FIRST_DAY.isoformat(), f"{low - 1}-12-31"]},
               {**part, "range": [f"{high + 1}-01-01", LAST_DAY.isoformat()]}])


def describe(part: dict, types: dict[str, str]) -> str:
    what = types.get(part.get("tip", ""), f"type {part.get('tip')}")
    if "ano" in part:
        return f"{what} of {part['ano']}"
    if "range" in part:
        return f"{what} from {_br(part['range'][0])} to {_br(part['range'][1])}"
    return what


# -- rows into norms ------------------------------------------------------------------------------


def listed_fields(row: Row, base_url: str) -> dict:
    """A row's record fields (the ones it holds), JSON-ready (the date as ISO)."""
    tipo = rows.text(row.tipo, record.c.type_raw)
    fields = {"type_raw": tipo, "type_normalized": normalize_type(tipo),
              "number": rows.label(row.numero, record.c.number), "year": rows.year(row.ano),
              "date": row.data.isoformat() if _plausible(row.data) else None,
              "ementa": rows.text(row.ementa), "url": detail_url(base_url, row.cod_norma)}
    return {k: v for k, v in fields.items() if v is not None}


def _plausible(day: date | None) -> bool:
    return day is not None and rows.MIN_YEAR <= day.year <= rows.MAX_YEAR


def row_problems(row: Row) -> list[str]:
    """What a listing row says that cannot be kept (the norm is stored without it)."""
    said = []
    if row.numero is None or row.ano is None:
        said.append("its listing row names no number/year")
    elif rows.year(row.ano) is None:
        said.append(f"ano {row.ano} is not a year: left out")
    if row.data is not None and not _plausible(row.data):
        said.append(f"date {row.data.isoformat()} is not plausible: left out")
    return [f"norm {row.cod_norma}: {m}" for m in said]


def marker(row: Row, fields: dict) -> str:
    """What changes when the câmara edits the norm, as far as its listing row shows."""
    said = {**fields, "situacao": row.situacao, "texto_integral": row.texto_integral,
            "texto_consolidado": row.texto_consolidado}
    return hashlib.sha1(json.dumps(said, sort_keys=True).encode()).hexdigest()[:16]


def listed_norm_of(base_url: str, fields: dict, mark: str | None, integral: bool,
                   consolidado: bool, cod: str) -> ListedNorm:
    stored = {k: date.fromisoformat(v) if k == "date" else v for k, v in fields.items()}
    files = [(file_url(base_url, cod), TEXTO_INTEGRAL)] if integral else []
    if consolidado:
        files.append((file_url(base_url, cod, TEXTO_CONSOLIDADO), TEXTO_CONSOLIDADO))
    return ListedNorm(cod, stored, mark, files)


# -- probing ------------------------------------------------------------------------------------


async def probe(url: str, resolver: Resolver | None = None, timeout: float = 20.0, *,
                max_wait: float = 120.0,
                on_wait: Callable[[float, str], None] | None = None) -> Probe:
    """A SAPL 2.5 portal at url (or at url/sapl): its search form answers with 200 HTML and a
    norm type list. SAPL 3.1 redirects that URL to its own search (NotSapl25 says to use
    `sapl`); anything else is NotSapl25. robots.txt is read first and obeyed."""
    base_url = normalize_base_url(url)
    resolver = resolver or Resolver()
    async with make_client(resolver, timeout=timeout) as client:
        prober = Prober(base_url, client, Guard(base_url, resolver), max_wait, on_wait)
        try:
            await prober.read_robots()
            candidates = [base_url] + ([base_url + "/sapl"] if not urlsplit(base_url).path
                                       else [])
            tried = []
            for base in candidates:
                asked = f"{base}/{FORM}?incluir=0"
                answer = await prober.get(asked)
                if answer.status >= 500:
                    raise Busy(f"{base} answered HTTP {answer.status} (server error) to "
                               f"/{FORM}: try again later")
                if urlsplit(answer.url).path != urlsplit(asked).path:
                    raise NotSapl25(f"{base} redirects SAPL 2.5's search to "
                                    f"{urlsplit(answer.url).path}: a SAPL 3.1, use `locleg "
                                    f"sources add sapl {base_url}`")
                if answer.status == 200:
                    try:
                        types = parse_form(answer.body)
                    except ChangedShape:
                        types = {}
                    if types:
                        return Probe(NAME, base, "2.5", state={"types": types},
                                     notes=[f"{len(types)} norm types in the search form"],
                                     robots_txt=prober.robots_txt,
                                     robots_status=prober.robots_status,
                                     crawl_delay=prober.crawl_delay)
                tried.append(f"HTTP {answer.status} on {urlsplit(asked).path}")
        except FetchError as e:
            raise Unreachable(f"{base_url} did not answer: {e}") from None
    raise NotSapl25(f"{base_url} is not a SAPL 2.5 portal (no norm search form: "
                    f"{'; '.join(tried)})")


# -- a cycle ------------------------------------------------------------------------------------


def start_cycle(conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
    """Queue the search form (the head of a new cycle) and retry last cycle's failures."""
    frontier.retry_failed(conn, ctx.id)
    now = utcnow().isoformat()
    payload = {"mode": "full" if rewrite else "changes", "cycle": now, "seen_since": now,
               "complete": True}
    frontier.enqueue(conn, [_step(ctx, "form", f"{ctx.base_url}/{FORM}?incluir=0", payload)])


def _step(ctx: SourceContext, kind: str, url: str, payload: dict) -> dict:
    return listed.chain(ctx, kind, url, payload, priority=PRIORITY[kind])


async def handle(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    await HANDLERS[req.kind](h, ctx, req)


async def _form(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    fetched = await h.get(ctx, req.url)
    if fetched.status != 200:
        raise status_error(req.url, fetched.status, fetched.headers, fetched.body)
    payload = dict(req.payload)
    try:
        types = parse_form(fetched.body)
    except ChangedShape as e:
        types = {}
        await h.problem(ctx, "harvest", req.url, f"{e}: nothing listed this cycle")
    if not types:
        types = ctx.state.get("types") or {}
        payload["complete"] = False
    parts = [{"tip": tip} for tip in types]

    def write(conn: Connection) -> None:
        h.save_state(conn, ctx, types=types)
        following = _next_search(ctx, {**payload, "todo": parts})
        listed.replace(conn, req, [following])

    await h.db(write)


def _next_search(ctx: SourceContext, payload: dict) -> dict:
    """The search of the first partition still to do, or the close when none is left."""
    todo = payload["todo"]
    if not todo:
        rest = {k: v for k, v in payload.items() if k != "todo"}
        return _step(ctx, "close", f"{ctx.base_url}/{SEARCH}#close", {**rest,
                                                                      "closes_cycle": True})
    rss = ctx.state.get("listing", "rss") == "rss"
    # A search failing for good (a page cut short however often asked) ends the chain: the
    # engine then closes the cycle as incomplete, recorded on the source.
    return _step(ctx, "search", search_url(ctx.base_url, todo[0], rss),
                 {**payload, "closes_cycle": True})


async def _search(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    payload = dict(req.payload)
    part, todo = payload["todo"][0], payload["todo"][1:]
    types = ctx.state.get("types", {})
    what = describe(part, types)
    try:
        found = await _read_search(h, ctx, req.url, part)
    except ChangedShape as e:
        expected = await h.db(_stored_count, ctx, part, types)
        await h.problem(ctx, "harvest", req.url, f"0 items where {expected:,} were expected "
                        f"({what}): {e}; the listing is incomplete, nothing is removed")
        found = None
    except FetchError as e:
        if e.transient:
            raise  # retried by the engine
        # An answer that will not do however often asked (past the size cap, refused): this
        # search is lost for the cycle, the others go on.
        where, sep, cause = str(e).partition(": ")
        cause = cause if sep and where.startswith("http") else str(e)  # the cause first
        await h.problem(ctx, "harvest", req.url, f"{what} could not be read: {cause[:300]}; "
                        "the listing is incomplete, nothing is removed")
        found = None
    if found is None:
        payload["complete"] = False
    elif len(found.rows) >= CAP or (found.total or 0) >= CAP:
        smaller = split(part, found.rows)
        if smaller is None:
            await h.problem(ctx, "harvest", req.url, f"{what}: {CAP:,} rows, the most a SAPL "
                            "2.5 search returns, on a single day: cannot be split further; "
                            "the listing is incomplete, nothing is removed")
            payload["complete"] = False
        else:
            todo = smaller + todo
        found = None  # a capped answer is never taken as the partition's norms
    seen_at = datetime.fromisoformat(payload["seen_since"])
    payload["todo"] = todo
    rows_ = found.rows if found is not None else []
    said = await h.db(_list, h, ctx, req, rows_, seen_at, _next_search(ctx, payload))
    h.count(ctx, "norms", len(rows_))
    for subject, message in said[:listed.MAX_PROBLEMS_PER_REQUEST]:
        await h.problem(ctx, "harvest", subject, message)
    if len(said) > listed.MAX_PROBLEMS_PER_REQUEST:
        await h.problem(ctx, "harvest", req.url, f"{len(said) - listed.MAX_PROBLEMS_PER_REQUEST:,}"
                        " more bad rows in this search (not recorded one by one)")


async def _read_search(h: RunningHarvest, ctx: SourceContext, url: str, part: dict) -> Results:
    """One partition's rows: the RSS (dates, texto integral), completed by the HTML results
    (Situação, consolidated text); the HTML results alone at a portal without RSS."""
    rss = None
    if ctx.state.get("listing", "rss") == "rss":
        fetched = await h.get(ctx, url)
        if fetched.status == 200:
            rss = parse_rss(fetched.body)
            if not rss.rows or len(rss.rows) >= CAP:
                return rss  # nothing to complete, or a capped answer to split
        elif fetched.status == 404:
            # No RSS here: the HTML results from now on.
            await h.db(lambda conn: h.save_state(conn, ctx, listing="html"))
        else:
            raise status_error(url, fetched.status, fetched.headers, fetched.body)
        await h.pause(ctx, url)
    try:
        pages = await _read_results(h, ctx, part)
    except ChangedShape as e:
        if rss is None:
            raise
        await h.problem(ctx, "harvest", url, f"the HTML results of this search: {e}; the "
                        "RSS stands, detail pages fill in")
        return rss
    if rss is None:
        return pages
    shown = {r.cod_norma: r for r in pages.rows}
    for row in rss.rows:
        also = shown.get(row.cod_norma)
        if also is not None:
            row.situacao, row.texto_consolidado = also.situacao, also.texto_consolidado
    return rss


async def _read_results(h: RunningHarvest, ctx: SourceContext, part: dict) -> Results:
    """Every page of a partition's HTML results (HTML_STEP rows a page)."""
    found = Results()
    for page in range(1, CAP // HTML_STEP + 2):
        page_url = search_url(ctx.base_url, part, rss=False, page=page)
        if page > 1:
            await h.pause(ctx, page_url)
        fetched = await h.get(ctx, page_url)
        if fetched.status != 200:
            raise status_error(page_url, fetched.status, fetched.headers, fetched.body)
        results = parse_results(fetched.body)
        found.rows += results.rows
        found.total = results.total if results.total is not None else found.total
        # A capped search is split, never read to its end.
        if not results.next_page or not results.rows or (found.total or 0) >= CAP:
            break
    return found


def lacks_fields(row: Row) -> bool:
    """A listing row that leaves out what the detail page says (its date, its files)."""
    return row.data is None or row.texto_consolidado is None or row.texto_integral is None


def _list(conn: Connection, h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
          found: list[Row], seen_at: datetime, following: dict) -> list[tuple[str, str]]:
    """A partition's rows: new and changed norms stored as the listing gives them (and the
    detail pages of those whose row lacks fields queued), unchanged ones marked seen, the next
    search queued. Returns what could not be kept, to record."""
    by_cod = {r.cod_norma: r for r in found}
    known = {r.native_id: r for r in conn.execute(
        select(listed_norm.c.native_id, listed_norm.c.marker, listed_norm.c.files)
        .join(record, record.c.id == listed_norm.c.record_id)
        .where(listed_norm.c.source_id == ctx.id, record.c.removed_at.is_(None),
               listed_norm.c.native_id.in_(list(by_cod))))} if by_cod else {}
    norms, details, said = [], [], []
    for cod, row in by_cod.items():
        fields = listed_fields(row, ctx.base_url)
        mark = marker(row, fields)
        old = known.get(cod)
        if old is not None and old.marker == mark:
            continue
        said += [(detail_url(ctx.base_url, cod), m) for m in row_problems(row)]
        # What the listing does not say of a file (the RSS knows no consolidated text) stays
        # as the detail page last said it.
        had = {role for _, role in json.loads(old.files)} if old is not None and old.files \
            else set()
        integral = row.texto_integral if row.texto_integral is not None \
            else TEXTO_INTEGRAL in had
        consolidado = row.texto_consolidado if row.texto_consolidado is not None \
            else TEXTO_CONSOLIDADO in had
        norms.append(listed_norm_of(ctx.base_url, fields, mark, integral, consolidado, cod))
        if lacks_fields(row):
            details.append({"cod": cod, "fields": fields, "marker": mark,
                            "texto_integral": integral})
    if norms:
        said += listed.write_listed(conn, h, ctx, norms, seen_at, True).problems
    unchanged = [cod for cod in known if cod not in {n.native_id for n in norms}]
    for start in range(0, len(unchanged), 1000):
        # Listed again, unchanged: seen now.
        seen = select(listed_norm.c.record_id).where(
            listed_norm.c.source_id == ctx.id,
            listed_norm.c.native_id.in_(unchanged[start:start + 1000]))
        conn.execute(update(record).where(record.c.id.in_(seen),
                                          record.c.last_seen_at < seen_at)
                     .values(last_seen_at=seen_at))
    batches = [_step(ctx, "detail", detail_url(ctx.base_url, details[i]["cod"]),
                     {"norms": details[i:i + DETAIL_BATCH],
                      "seen_since": req.payload["seen_since"]})
               for i in range(0, len(details), DETAIL_BATCH)]
    listed.replace(conn, req, [*batches, following])
    return said


def _stored_count(conn: Connection, ctx: SourceContext, part: dict,
                  types: dict[str, str]) -> int:
    """How many norms of this partition the corpus holds from this source (what a page that
    shows none should have shown)."""
    query = select(func.count()).select_from(record).where(
        record.c.source_id == ctx.id, record.c.removed_at.is_(None))
    if part.get("tip") in types:
        query = query.where(record.c.type_raw == types[part["tip"]])
    if "ano" in part:
        query = query.where(record.c.year == part["ano"])
    if "range" in part:
        start, end = (date.fromisoformat(d) for d in part["range"])
        query = query.where(record.c.date >= start, record.c.date <= end)
    return conn.scalar(query) or 0


async def _detail(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    """The detail pages of a batch of listed norms, one polite request each; what they say is
    written once for the batch. A failure part way keeps what was read and leaves the rest of
    the batch to the retry."""
    todo = list(req.payload["norms"])
    seen_at = datetime.fromisoformat(req.payload["seen_since"])
    done: list[ListedNorm] = []
    notes: list[tuple[str, str]] = []
    try:
        while todo:
            url = detail_url(ctx.base_url, todo[0]["cod"])
            if done or notes:
                await h.pause(ctx, url)
            fetched = await h.get(ctx, url)
            if fetched.status != 200:
                raise status_error(url, fetched.status, fetched.headers, fetched.body)
            norm = _detailed(ctx, fetched.body, todo[0], notes)
            if norm is not None:
                done.append(norm)
            todo.pop(0)
    except FetchError:
        if not (done or notes):
            raise
        await h.db(_write_details, h, ctx, req, done, seen_at, todo)
        raise
    finally:
        for subject, message in notes:
            await h.problem(ctx, "harvest", subject, message)
    await h.db(_write_details, h, ctx, req, done, seen_at, todo)


def _detailed(ctx: SourceContext, body: bytes, listed_as: dict,
              notes: list[tuple[str, str]]) -> ListedNorm | None:
    """A norm as its detail page shows it, over what its listing said; None (noted) when the
    page has no label/value table: the listing's word stands, stored when it was listed."""
    cod = listed_as["cod"]
    try:
        row = parse_detail(body, cod)
    except ChangedShape as e:
        notes.append((detail_url(ctx.base_url, cod), f"norm {cod}: {e} (deleted since the "
                      "listing, or a new page layout): kept as the listing gave it"))
        return None
    fields = {**listed_as["fields"], **listed_fields(row, ctx.base_url)}
    # The page links the consolidated text whenever there is one, the texto integral not
    # always (some skins link only the newest text): the listing's word on it stands.
    integral = bool(listed_as.get("texto_integral")) or bool(row.texto_integral)
    return listed_norm_of(ctx.base_url, fields, listed_as.get("marker"), integral,
                          bool(row.texto_consolidado), cod)


def _write_details(conn: Connection, h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
                   done: list[ListedNorm], seen_at: datetime, todo: list[dict]) -> None:
    if done:
        # Written whole: the listing stored these norms under the same markers.
        listed.write_listed(conn, h, ctx, done, seen_at, True)
    if todo:  # what is left waits for the retry of this request
        conn.execute(update(harvest_request).where(harvest_request.c.id == req.id)
                     .values(payload=json.dumps({**req.payload, "norms": todo})))
    else:
        frontier.complete(conn, [req.id])


async def _close(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    """Every search was read: removals when each was read whole, then the cycle's end."""
    payload = req.payload
    if payload.get("complete", True):
        removed = await h.db(listed.close_seen, h, ctx,
                             datetime.fromisoformat(payload["seen_since"]))
        h.count(ctx, "removed", removed)
    await h.db(lambda conn: frontier.complete(conn, [req.id]))
    await h.finish_cycle(ctx, payload)


HANDLERS = {"form": _form, "search": _search, "detail": _detail, "close": _close}


class Sapl25:
    """SAPL 2.5 (Zope) through its search pages (platform.Platform)."""

    name = NAME
    title = "SAPL 2.5 (Zope)"

    def normalize_url(self, url: str) -> str:
        """The portal's URL, path kept (`host:8080/sapl`)."""
        return normalize_base_url(url)

    async def probe(self, url: str, *, resolver: Resolver | None = None,
                    on_wait: Callable[[float, str], None] | None = None,
                    jurisdiction: int | None = None) -> Probe:
        return await probe(url, resolver, on_wait=on_wait)

    def start_cycle(self, conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
        start_cycle(conn, ctx, rewrite)

    def handle(self, h: RunningHarvest, ctx: SourceContext,
               req: frontier.Request) -> Awaitable[None]:
        return handle(h, ctx, req)


PLATFORM = Sapl25()
