"""Querido Diário (Open Knowledge Brasil) as a source: a municipality's official gazettes, each
cut into its acts, the normative ones stored as records of norms.

A source is the API's base URL and a jurisdiction: the territory id is its IBGE code. A cycle
is a chain of requests:

    [aggregates → zip ... (first cycle: the yearly ZIPs)] → window (GET /gazettes, a date
    window, page by page) → gazette (its text file) ...

`window` asks `/gazettes?territory_ids=N&published_since=&published_until=&sort_by=
ascending_date&size=&offset=`; the API's search engine serves no result past the 10,000th of
a query, so a window that holds more is cut in two halves (by date) and each read alone.
After the first cycle only what was scraped since the last one began (less a margin) is
asked for (`scraped_since`). Each gazette found is a `gazette` row, keyed by its file
(`<territory>/<date>/<sha1>` on either storage host): a gazette listed twice, once as an extra
edition, is one gazette. Its text file is then fetched (`gazette`, politely, by the engine),
archived as an original, segmented (gazette/segment.py), and each act stored as a
`gazette_act` row; acts of a normative kind become records through listed.write_listed, with
a document whose original is the act's own span of the text (`{txt_url}#char=start,end`,
RFC 5147), so extraction and search see the act alone. The identity rules then make a law
from the câmara's SAPL and the same law from the gazette one norm with two records.

Settings (`sources set` or `sources add`): `with_pdf` (archive each gazette's PDF too),
`portarias` (portarias become norms; default no), `since` (the first cycle's first date),
`bulk` (seed the first cycle from the ZIP aggregates; default yes), `association` (the
territory of an association's gazette that also prints the city's acts: only its own are
kept), `result_window` (the API's result window, 10,000).
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import zipfile
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urljoin, urlsplit

from lxml import etree
from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from ..errors import UserError
from ..gazette.segment import Act, GazetteText, read_gazette
from ..jurisdictions import fold
from ..store import utcnow
from ..store.gazette_schema import gazette, gazette_act
from ..store.schema import document, jurisdiction, version
from . import frontier, listed, rows
from .jsonread import json_body
from .net import FetchError, Guard, Resolver, fetch, make_client, normalize_base_url, status_error
from .platform import TEXTO_INTEGRAL, ListedNorm, NotThisPlatform, Probe

if TYPE_CHECKING:
    from .platform import RunningHarvest, SourceContext

NAME = "querido-diario"
RESULT_WINDOW = 10_000  # the search engine's max_result_window: no offset past it
PAGE_SIZE = 100
DEFAULT_DELAY = 1.0  # seconds: the API's documentation asks for about 60 requests a minute
FIRST_DAY = "2000-01-01"  # Querido Diário's oldest gazettes are younger
# scraped_since is the last cycle's start less this: clocks and slow indexing upstream.
SCRAPED_MARGIN = timedelta(days=2)
PRIORITY = {"aggregates": 1, "zip": 2, "window": 3, "gazette": 6, "ocr": 9}
_FILE_KEY = re.compile(r"/(\d{7})/(\d{4}-\d{2}-\d{2})/([0-9a-f]{40})\.(?:pdf|txt)$", re.I)
# Characters of a gazette's text cut into acts: the largest capital's daily gazette is a few
# millions; past this the text is archived, recorded and not segmented.
MAX_GAZETTE_CHARS = 32_000_000
_TYPE_WORDS = re.compile(r"\s+n[º°o.]*\s*\d|\s+n[º°o.]\s", re.I)


# -- the API -------------------------------------------------------------------------------


def gazettes_url(base_url: str, territories: str | list[str], since: str, until: str,
                 offset: int = 0, scraped_since: str | None = None,
                 window: int = RESULT_WINDOW) -> str:
    """A page of the listing; several territories repeat the key, as the API wants."""
    if isinstance(territories, str):
        territories = [territories]
    query: list[tuple[str, Any]] = [("territory_ids", t) for t in territories]
    query += [("published_since", since), ("published_until", until),
              ("sort_by", "ascending_date"), ("size", min(PAGE_SIZE, window)),
              ("offset", offset)]
    if scraped_since:
        query.append(("scraped_since", scraped_since))
    return f"{base_url}/gazettes?{urlencode(query)}"


def file_key(item: dict) -> str:
    """Which gazette an item is: its file's territory/date/sha1, whichever host serves it
    (two storage hosts appear in url/txt_url); else its territory, date and edition."""
    for field in ("url", "txt_url"):
        value = item.get(field)
        found = _FILE_KEY.search(urlsplit(value).path) if isinstance(value, str) else None
        if found:
            return "/".join(found.groups()).lower()
    return "/".join(str(item.get(k) or "-") for k in ("territory_id", "date", "edition"))


def parse_gazette(item: Any) -> dict | None:
    """A listed gazette as a `gazette` row's values; None when it is not one."""
    return parse_gazette_or_why(item)[0]


def parse_gazette_or_why(item: Any, territories: list[str] | None = None,
                         ) -> tuple[dict | None, str | None]:
    """A listed gazette as a `gazette` row's values, or None and why it is not one (of
    `territories`, when given: an answer that lists another territory's gazettes is wrong)."""
    if not isinstance(item, dict):
        return None, f"not a gazette object ({type(item).__name__})"
    day = rows.iso_date(item.get("date"))
    territory = rows.label(item.get("territory_id"))
    if day is None:
        return None, f"date {_shown(item.get('date'))} is not a date"
    if territory is None or not re.fullmatch(r"\d{7}", territory):
        return None, f"territory_id {_shown(item.get('territory_id'))} is not an IBGE code"
    if territories is not None and territory not in territories:
        return None, f"territory_id {territory} was not asked for (only " \
            f"{', '.join(territories)})"
    return {"file_key": file_key(item), "territory_id": territory[:16], "date": day,
            "edition": rows.label(item.get("edition"), gazette.c.edition),
            "is_extra": bool(rows.boolean(item.get("is_extra_edition"))),
            "url": rows.url(item.get("url")), "txt_url": rows.url(item.get("txt_url")),
            "scraped_at": rows.text(item.get("scraped_at"), gazette.c.scraped_at)}, None


def _shown(value: Any) -> str:
    """A publisher's value in a message: short, printable."""
    return ascii(value)[:60]


# -- probing -------------------------------------------------------------------------------


class QueridoDiario:
    """Querido Diário's API (platform.Platform). Its probe needs the territory: the IBGE
    code of the source's jurisdiction."""

    name = NAME
    title = "Querido Diário (gazettes)"

    def normalize_url(self, url: str) -> str:
        return normalize_base_url(url)

    async def probe(self, url: str, *, resolver: Resolver | None = None,
                    on_wait: Callable[[float, str], None] | None = None,
                    jurisdiction: int | None = None) -> Probe:
        base = self.normalize_url(url)
        if jurisdiction is None:
            raise NotThisPlatform(f"{base}: Querido Diário needs a territory (the "
                                  "jurisdiction's IBGE code)")
        from .probing import did_not_answer

        resolver = resolver or Resolver()
        target = f"{base}/cities/{jurisdiction}"
        async with make_client(resolver, timeout=20.0) as client:
            try:
                answer = await fetch(client, target, Guard(base, resolver), max_bytes=2**20)
            except FetchError as e:
                raise did_not_answer(base, e) from None
        if answer.status == 404 and b"not found" in answer.body.lower():
            raise UserError(f"Querido Diário at {base} has no city {jurisdiction} "
                            "(HTTP 404 City not found): check the IBGE code")
        if answer.status == 429 or answer.status >= 500:
            raise UserError(f"{base} answered HTTP {answer.status} to /cities/{jurisdiction}: "
                            "it is busy or limiting us; try again later")
        try:
            data = json_body(answer, target)
        except FetchError as e:
            raise NotThisPlatform(f"{base} is not Querido Diário's API ({e})") from None
        city = data.get("city") if isinstance(data, dict) else None
        if not isinstance(city, dict) or "territory_id" not in city:
            raise NotThisPlatform(f"{base} is not Querido Diário's API (no city in "
                                  f"/cities/{jurisdiction})")
        name = rows.text(city.get("territory_name")) or str(jurisdiction)
        uf = rows.text(city.get("state_code"))
        level = rows.text(city.get("level"))
        notes = [] if level in (None, "3") else [
            f"Querido Diário covers {name} at level {level} only (3: complete)"]
        return Probe(NAME, base, title=f"{name} ({uf})" if uf else name,
                     state={"territory_id": str(jurisdiction), "city": name, "uf": uf},
                     notes=notes,
                     # its own pace unless the operator gives one: the API asks for ~60/min
                     settings={"delay": DEFAULT_DELAY})

    def start_cycle(self, conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
        frontier.retry_failed(conn, ctx.id)
        now = utcnow()
        last = ctx.state.get("last_listing_at")  # when the last finished cycle began
        scraped = None
        if last and not rewrite:
            scraped = (datetime.fromisoformat(last) - SCRAPED_MARGIN).strftime("%Y-%m-%dT%H:%M:%S")
        since = str(ctx.settings.get("since") or FIRST_DAY)
        until = (now.date() + timedelta(days=1)).isoformat()
        payload = {"mode": "full" if rewrite else "changes", "cycle": now.isoformat(),
                   "complete": True, "scraped_since": scraped, "windows": [[since, until]],
                   "offset": 0}
        uf = ctx.state.get("uf")
        if not last and uf and ctx.settings.get("bulk", True):
            # The first cycle seeds from the per-city-year ZIPs, then lists what is newer.
            url = f"{ctx.base_url}/aggregates/{uf}?{urlencode({'territory_id': _territory(ctx)})}"
            frontier.enqueue(conn, [listed.chain(ctx, "aggregates", url, payload,
                                                 priority=PRIORITY["aggregates"])])
            return
        frontier.enqueue(conn, [_window(ctx, payload)])

    def handle(self, h: RunningHarvest, ctx: SourceContext,
               req: frontier.Request) -> Awaitable[None]:
        return HANDLERS[req.kind](h, ctx, req)


def _territory(ctx: SourceContext) -> str:
    return str(ctx.state.get("territory_id") or ctx.jurisdiction_code)


def _territories(ctx: SourceContext) -> list[str]:
    """The city's territory, and the association whose gazette also publishes its acts
    (setting `association`: a territory id ending in 00000, e.g. 2700000 for AMA)."""
    extra = str(ctx.settings.get("association") or "")
    return [_territory(ctx)] + ([extra] if extra.endswith("00000") else [])


def _result_window(ctx: SourceContext) -> int:
    return int(ctx.settings.get("result_window") or RESULT_WINDOW)


def _window(ctx: SourceContext, payload: dict) -> dict:
    since, until = payload["windows"][0]
    url = gazettes_url(ctx.base_url, _territories(ctx), since, until, payload["offset"],
                       payload.get("scraped_since"), _result_window(ctx))
    return listed.chain(ctx, "window", url, payload, priority=PRIORITY["window"])


# -- a window of the listing ---------------------------------------------------------------


async def _window_step(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    data = json_body(await h.get(ctx, req.url), req.url)
    if not isinstance(data, dict) or not isinstance(data.get("gazettes"), list):
        raise FetchError(f"unexpected JSON (no gazettes list): {req.url}", transient=True)
    total = rows.integer(data.get("total_gazettes"), 0, 10**9) or 0
    payload = dict(req.payload)
    windows = [list(w) for w in payload["windows"]]
    since, until = windows[0]
    limit = _result_window(ctx)
    first, last = date.fromisoformat(since), date.fromisoformat(until)
    if total > limit and payload["offset"] == 0 and last > first:
        # More than the search engine pages through: the window's two halves, each alone.
        middle = first + (last - first) // 2
        windows[:1] = [[since, middle.isoformat()],
                       [(middle + timedelta(days=1)).isoformat(), until]]
        await h.db(listed.replace, req, [_window(ctx, {**payload, "windows": windows})])
        return
    found, bad = [], []
    for i, item in enumerate(data["gazettes"]):
        parsed, why = parse_gazette_or_why(item, _territories(ctx))
        if parsed is None:
            bad.append(f"gazette row {payload['offset'] + i + 1} skipped: {why}")
        else:
            found.append(parsed)
    offset = payload["offset"] + len(data["gazettes"])
    if data["gazettes"] and offset < min(total, limit):
        following = _window(ctx, {**payload, "offset": offset})
    elif len(windows) > 1:
        following = _window(ctx, {**payload, "windows": windows[1:], "offset": 0})
    else:
        following = None
    if total > limit and following is None:
        payload["complete"] = False  # a single day past the window: the rest unreadable
    queued = await h.db(_write_gazettes, h, ctx, req, found, following)
    for message in bad[:listed.MAX_PROBLEMS_PER_REQUEST]:
        await h.problem(ctx, "harvest", req.url, message)
    if len(bad) > listed.MAX_PROBLEMS_PER_REQUEST:
        await h.problem(ctx, "harvest", req.url, f"{len(bad) - listed.MAX_PROBLEMS_PER_REQUEST:,}"
                        " more bad gazette rows in this page (not recorded one by one)")
    if total > limit and following is None:
        await h.problem(ctx, "harvest", req.url, f"{total:,} gazettes on one day, past the "
                        f"API's {limit:,}-result window: the rest not listed")
    if queued is not None:
        h.wake(queued)
    if following is None:
        await h.finish_cycle(ctx, payload)


def _write_gazettes(conn: Connection, h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
                    found: list[dict], following: dict | None) -> set[str]:
    """Store new gazettes (and what a second listing says of a known one), queue their texts.

    A gazette listed again (an extra edition of the same file, or scraped again) keeps one
    row: it is an extra edition if any listing says so; its text is fetched again only when
    it was never segmented."""
    keys = list({g["file_key"] for g in found})
    known = {r.file_key: r for r in conn.execute(
        select(gazette).where(gazette.c.source_id == ctx.id, gazette.c.file_key.in_(keys)))}
    fetch_ids: list[int] = []
    seen: dict[str, dict] = {}
    for g in found:
        if g["file_key"] in seen:  # twice in one page: one gazette, its flags merged
            kept = seen[g["file_key"]]
            kept["is_extra"] = kept["is_extra"] or g["is_extra"]
            kept["edition"] = kept["edition"] or g["edition"]
            continue
        seen[g["file_key"]] = g
    for key, g in seen.items():
        old = known.get(key)
        if old is None:
            added = conn.execute(gazette.insert().values(source_id=ctx.id, **g))
            fetch_ids.append(added.inserted_primary_key[0])
            continue
        values = {"is_extra": old.is_extra or g["is_extra"], "edition": old.edition or g["edition"],
                  "scraped_at": g["scraped_at"] or old.scraped_at}
        if g["txt_url"] and g["txt_url"] != old.txt_url:
            # The same file (its sha1 names it) served from the other storage host: the
            # addresses follow, the acts' spans keep naming where they were read.
            values.update(txt_url=g["txt_url"], url=g["url"] or old.url)
        conn.execute(update(gazette).where(gazette.c.id == old.id).values(**values))
        # Known and read: not fetched again (a weekly full cycle relists, it does not reread).
        if old.segmented_at is None:
            fetch_ids.append(old.id)
    wanted = []
    for gid in fetch_ids:
        row = conn.execute(select(gazette.c.txt_url, gazette.c.url)
                           .where(gazette.c.id == gid)).one()
        target = row.txt_url or row.url
        if target:
            wanted.append(listed.chain(ctx, "gazette", target, {"gazette_id": gid},
                                       priority=PRIORITY["gazette"]))
    frontier.enqueue(conn, wanted)
    listed.replace(conn, req, [following] if following else [])
    return {w["host"] for w in wanted}


# -- a gazette's text ----------------------------------------------------------------------


async def _gazette_step(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    gid = req.payload["gazette_id"]
    row = await h.db(lambda conn: conn.execute(select(gazette).where(gazette.c.id == gid))
                     .mappings().one_or_none())
    if row is None:
        await h.db(listed.replace, req, [])
        return
    text, sha, problems = "", None, []
    if row["txt_url"]:
        fetched = await h.get(ctx, row["txt_url"], max_bytes=h.config.max_file_size)
        if fetched.status != 200:
            raise status_error(row["txt_url"], fetched.status, fetched.headers, fetched.body)
        if "html" in fetched.headers.get("content-type", "") \
                or fetched.body.lstrip()[:15].lower().startswith((b"<!doctype", b"<html")):
            raise FetchError(f"an HTML page instead of the gazette's text: {row['txt_url']}",
                             transient=True)
        text = fetched.body.decode("utf-8", "replace")
        sha = hashlib.sha256(fetched.body).hexdigest()
        h.corpus.blobs.put(fetched.body, sha)
    portarias = bool(ctx.settings.get("portarias"))
    read = await _read(text, row["territory_id"], portarias)
    quality = read.quality if row["txt_url"] else "no text file listed"
    if len(text) > MAX_GAZETTE_CHARS:
        problems.append((row["txt_url"], f"gazette of {row['date']:%d/%m/%Y}: a text of "
                         f"{len(text):,} characters (more than {MAX_GAZETTE_CHARS:,}): "
                         "archived, not cut into acts"))
    pdf_sha = None
    # The PDF on request, and always when the text is unusable: it is what OCR will read.
    if (ctx.settings.get("with_pdf") or quality) and row["url"]:
        fetched = await h.get(ctx, row["url"], max_bytes=h.config.max_file_size)
        if fetched.status == 200:
            pdf_sha = hashlib.sha256(fetched.body).hexdigest()
            h.corpus.blobs.put(fetched.body, pdf_sha)
        elif fetched.status in (429, 503) or fetched.status >= 500:
            raise status_error(row["url"], fetched.status, fetched.headers, fetched.body)
        else:
            problems.append((row["url"], f"the gazette's PDF: HTTP {fetched.status}"))
    if sha is not None or pdf_sha is not None:
        await asyncio.to_thread(h.corpus.blobs.sync)
    acts = await _own_acts(h, ctx, row["territory_id"], read.acts)
    where = row["txt_url"] or row["url"] or req.url
    if quality:
        problems.append((where, f"gazette of {row['date']:%d/%m/%Y}: {quality}"
                         + ("; its PDF is archived (sha256 " + pdf_sha[:12] + "…) for OCR"
                            if pdf_sha else "; no PDF could be archived for OCR")))
    for act in acts:
        if act.truncated:
            problems.append((where, f"the text file ends inside {act.heading[:120]!r} "
                                    f"(characters {act.start}-{act.end}): truncated"))
    # Text unusable but the PDF archived: our own OCR reads it (an `ocr` step, last on the
    # host: it makes no request).
    following = [listed.chain(ctx, "ocr", row["url"], {"gazette_id": gid},
                              priority=PRIORITY["ocr"])] if quality and pdf_sha else []

    def write(conn: Connection) -> int:
        done = _write_acts(conn, h, ctx, None, dict(row), text, sha, pdf_sha, quality, acts)
        listed.replace(conn, req, following)
        return done

    stored = await h.db(write)
    for subject, message in problems:
        await h.problem(ctx, "harvest", subject, message)
    h.count(ctx, "norms", stored)


async def _read(text: str, territory_id: str, portarias: bool) -> GazetteText:
    """read_gazette on a worker thread (a long text takes seconds: the other hosts' requests
    go on meanwhile); a text past MAX_GAZETTE_CHARS is not cut (an empty reading)."""
    if len(text) > MAX_GAZETTE_CHARS:
        return GazetteText([], None)
    return await asyncio.to_thread(read_gazette, text, territory_id=territory_id,
                                   portarias=portarias)


async def _own_acts(h: RunningHarvest, ctx: SourceContext, territory: str,
                    acts: list[Act]) -> list[Act]:
    """An association's gazette (territory ending in 00000) prints many municipalities' acts,
    each section under its header (gazette/associations.py): only the source's own are its
    acts; the others belong to their municipalities' sources."""
    if not territory.endswith("00000"):
        return acts
    place = await h.db(lambda conn: conn.scalar(
        select(jurisdiction.c.name).where(jurisdiction.c.ibge_code == ctx.jurisdiction_code)))
    name = fold(place or "")
    return [a for a in acts if a.municipality and fold(a.municipality) == name]


def _native_id(row: dict, act: Act) -> str:
    """The record's id at this source, the same on every run: a numbered act is known by its
    kind, number and year (so a republication is the same record); another by where it
    stands in its gazette."""
    if act.number and act.year:
        return f"{act.kind}/{act.number}/{act.year}"
    return f"{row['date']}/{row['edition'] or '-'}/{act.kind}@{act.start}"


def _type_raw(act: Act) -> str:
    head = _TYPE_WORDS.split(act.heading, maxsplit=1)[0]
    return " ".join(head.split())[:200] or act.kind


def span_url(txt_url: str, act: Act) -> str:
    """The act's span of the gazette's text (RFC 5147 text fragment)."""
    return f"{txt_url}#char={act.start},{act.end}"


def _write_acts(conn: Connection, h: RunningHarvest, ctx: SourceContext,
                req: frontier.Request | None, row: dict, text: str, sha: str | None,
                pdf_sha: str | None, quality: str | None, acts: list[Act],
                ocr_sha: str | None = None) -> int:
    """The gazette's acts as gazette_act rows (again, when it is read again), the normative
    ones as records with their span as an original; a continuation joined to its first part."""
    now = utcnow()
    conn.execute(gazette_act.delete().where(gazette_act.c.gazette_id == row["id"]))
    conn.execute(update(gazette).where(gazette.c.id == row["id"]).values(
        text_sha256=sha, pdf_sha256=pdf_sha or row.get("pdf_sha256"),
        ocr_sha256=ocr_sha or row.get("ocr_sha256"), quality=quality,
        segmented_at=now))
    # The rest of an act begun in an earlier gazette joins its first part's record.
    joined = {act.start: _join_continuation(conn, h, ctx, row, text, act)
              for act in acts if "continuation" in act.flags}
    norms = [a for a in acts if a.normative and joined.get(a.start) is None]
    batch = []
    for act in norms:
        span = text[act.start:act.end]
        fields = {"type_raw": _type_raw(act), "type_normalized": act.kind,
                  "number": act.number, "year": act.year, "date": act.date,
                  "ementa": act.ementa, "url": row["url"] or row["txt_url"]}
        batch.append(ListedNorm(_native_id(row, act), fields,
                                hashlib.sha256(span.encode()).hexdigest()[:32]))
    if batch:
        listed.write_listed(conn, h, ctx, batch, now, rewrite=False)
    ids = listed.record_ids(conn, ctx.id) if batch else {}
    act_rows, docs = [], []
    for act in acts:
        record_id = joined.get(act.start)
        if record_id is not None:
            docs_skip = True
        else:
            docs_skip = False
            record_id = ids.get(_native_id(row, act)) if act.normative else None
        act_rows.append({"gazette_id": row["id"], "kind": act.kind, "heading": act.heading[:2000],
                         "number": act.number, "year": act.year, "date": act.date,
                         "start": act.start, "end": act.end, "page": act.page,
                         "flags": " ".join(sorted(act.flags)) or None,
                         "municipality": act.municipality, "record_id": record_id})
        if act.normative and record_id is not None and row["txt_url"] and not docs_skip:
            docs.append((record_id, act))
    if act_rows:
        conn.execute(gazette_act.insert(), act_rows)
    _store_spans(conn, h, row, text, docs, now)
    if req is not None:
        listed.replace(conn, req, [])
    return len(norms)


def _store_spans(conn: Connection, h: RunningHarvest, row: dict, text: str,
                 docs: list[tuple[int, Act]], now: datetime) -> None:
    """Each normative act's span of the text, its own original (UTF-8, content-addressed)."""
    if not docs:
        return
    wanted = [{"record_id": r, "url": span_url(row["txt_url"], a), "role": TEXTO_INTEGRAL}
              for r, a in docs]
    stored = h.store.ensure_documents(conn, wanted)
    new = []
    for (record_id, act), want in zip(docs, wanted, strict=True):
        data = text[act.start:act.end].encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        doc = stored[(record_id, want["url"])]
        if doc["current_sha256"] == digest:
            continue
        h.corpus.blobs.put(data, digest)
        new.append({"document_id": doc["id"], "sha256": digest, "size": len(data),
                    "media_type": "text/plain", "fetched_at": now, "origin": want["url"],
                    "http_status": 200})
    if new:
        h.corpus.blobs.sync()
        h.store.add_versions(conn, new)
        conn.execute(update(document).where(document.c.id.in_([n["document_id"] for n in new]))
                     .values(checked_at=now))


def _join_continuation(conn: Connection, h: RunningHarvest, ctx: SourceContext, row: dict,
                       text: str, act: Act) -> int | None:
    """The rest of an act begun in an earlier gazette ("continua na próxima edição"): its
    first part's record, whose text becomes both parts joined (a new version)."""
    query = (select(gazette_act.c.record_id, gazette_act.c.kind, gazette_act.c.number,
                    gazette_act.c.year)
             .join(gazette, gazette.c.id == gazette_act.c.gazette_id)
             .where(gazette.c.source_id == ctx.id, gazette.c.date <= row["date"],
                    gazette.c.id != row["id"], gazette_act.c.record_id.is_not(None),
                    gazette_act.c.flags.like("%continues%"))
             .order_by(gazette.c.date.desc(), gazette_act.c.id.desc()))
    first = None
    for candidate in conn.execute(query.limit(20)):
        if act.number is None or (candidate.number, candidate.year) == (act.number, act.year):
            first = candidate
            break
    if first is None:
        return None
    doc = conn.execute(
        select(document.c.id, version.c.sha256)
        .join(version, version.c.id == document.c.current_version_id)
        .where(document.c.record_id == first.record_id, document.c.role == TEXTO_INTEGRAL,
               document.c.removed_at.is_(None))
        .order_by(document.c.id)).first()
    if doc is None or not row["txt_url"]:
        return first.record_id
    before = h.corpus.blobs.read(doc.sha256)
    rest = text[act.start:act.end].encode("utf-8")
    if before.endswith(rest):
        return first.record_id
    data = before + b"\n\n" + rest
    digest = hashlib.sha256(data).hexdigest()
    h.corpus.blobs.put(data, digest)
    h.corpus.blobs.sync()
    h.store.add_versions(conn, [{"document_id": doc.id, "sha256": digest, "size": len(data),
                                 "media_type": "text/plain", "fetched_at": utcnow(),
                                 "origin": span_url(row["txt_url"], act), "http_status": 200}])
    return first.record_id


# -- bulk start: the per-city-year ZIP aggregates --------------------------------------------


async def _aggregates_step(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    """The city's yearly ZIPs (`/aggregates/{UF}?territory_id=`): one `zip` request each,
    then the API's listing for what was scraped since the oldest of them was built."""
    fetched = await h.get(ctx, req.url)
    payload = dict(req.payload)
    zips: list[dict] = []
    if fetched.status != 404:  # 404: "No aggregate file was found": list everything
        data = json_body(fetched, req.url)
        items = data.get("aggregates") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise FetchError(f"unexpected JSON (no aggregates list): {req.url}", transient=True)
        built = []
        for item in items:
            if not isinstance(item, dict) or rows.label(item.get("territory_id")) \
                    != _territory(ctx) or not isinstance(item.get("file_path"), str):
                continue  # a state-year file, or nothing to fetch
            url = rows.url(urljoin(ctx.base_url + "/", item["file_path"]))
            if url is None:
                continue
            zips.append(listed.chain(ctx, "zip", url, {"md5": rows.text(item.get("hash_info")),
                                                      "year": rows.text(item.get("year"))},
                                     priority=PRIORITY["zip"]))
            if isinstance(item.get("last_updated"), str):
                built.append(item["last_updated"][:19])
        if built:
            # What the ZIPs hold is known: the listing asks only for what was scraped since
            # the oldest was built (less the margin).
            oldest = datetime.fromisoformat(min(built)) - SCRAPED_MARGIN
            payload["scraped_since"] = oldest.strftime("%Y-%m-%dT%H:%M:%S")
    await h.db(listed.replace, req, zips + [_window(ctx, payload)])


async def _zip_step(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    """One city-year ZIP: every gazette of its XML stored, archived and segmented."""
    fetched = await h.get(ctx, req.url, max_bytes=h.config.max_file_size)
    if fetched.status != 200:
        raise status_error(req.url, fetched.status, fetched.headers, fetched.body)
    md5 = req.payload.get("md5")
    if md5 and hashlib.md5(fetched.body).hexdigest() != md5.lower():  # noqa: S324 (theirs)
        raise FetchError(f"the ZIP does not match its md5 {md5}: {req.url}", transient=True)
    try:
        diarios = await asyncio.to_thread(read_aggregate, fetched.body)
    except (zipfile.BadZipFile, etree.XMLSyntaxError, OSError) as e:
        raise FetchError(f"an unreadable aggregate ({e}): {req.url}", transient=False) from None
    portarias = bool(ctx.settings.get("portarias"))
    stored = 0
    for d in diarios:
        data = d.pop("text").encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        h.corpus.blobs.put(data, sha)
        text = data.decode("utf-8")
        read = await _read(text, _territory(ctx), portarias)
        stored += await h.db(_seed_gazette, h, ctx, d, text, sha, read)
    await asyncio.to_thread(h.corpus.blobs.sync)
    await h.db(listed.replace, req, [])
    h.count(ctx, "norms", stored)


def read_aggregate(body: bytes) -> list[dict]:
    """The gazettes of a Querido Diário aggregate ZIP: XML `<diarios><diario><meta_diario>…
    </meta_diario><conteudo>TEXT</conteudo></diario>…`, as `gazette` values plus `text`.
    No entity is expanded and nothing fetched (lxml's safe settings)."""
    found = []
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        for name in archive.namelist():
            if not name.lower().endswith(".xml"):
                continue
            with archive.open(name) as xml:
                for _, node in etree.iterparse(xml, tag="diario", resolve_entities=False,
                                               no_network=True, huge_tree=True):
                    meta = node.find("meta_diario")
                    got = {c.tag: (c.text or "").strip() for c in meta} if meta is not None \
                        else {}
                    day = _br_date(got.get("data_publicacao"))
                    pdf = rows.url(got.get("url_arquivo_original"))
                    if day is not None:
                        item = {"url": pdf, "date": day.isoformat()}
                        key = file_key(item)
                        found.append({
                            "file_key": key if pdf else f"{key}/{len(found)}",
                            "date": day, "edition": got.get("numero_edicao") or None,
                            "is_extra": got.get("edicao_extra", "").lower().startswith("s"),
                            "url": pdf,
                            "txt_url": re.sub(r"\.pdf$", ".txt", pdf, flags=re.I)
                            if pdf and _FILE_KEY.search(pdf) else None,
                            "text": node.findtext("conteudo") or ""})
                    node.clear()
    return found


def _br_date(value: str | None) -> date | None:
    try:
        day, month, year = (int(p) for p in (value or "").split("/"))
        return date(year, month, day)
    except ValueError:
        return None


def _seed_gazette(conn: Connection, h: RunningHarvest, ctx: SourceContext, d: dict, text: str,
                  sha: str, read) -> int:
    """A gazette from an aggregate: its row (unless known), its acts."""
    old = conn.execute(select(gazette.c.id).where(gazette.c.source_id == ctx.id,
                                                  gazette.c.file_key == d["file_key"])).first()
    if old is not None:
        return 0
    values = {**d, "source_id": ctx.id, "territory_id": _territory(ctx)}
    gid = conn.execute(gazette.insert().values(**values)).inserted_primary_key[0]
    row = dict(conn.execute(select(gazette).where(gazette.c.id == gid)).mappings().one())
    if read.quality and row["url"]:
        # No usable text in the ZIP either: the gazette's own step fetches the PDF for OCR.
        listed.queue_files(conn, h, [listed.chain(ctx, "gazette", row["txt_url"] or row["url"],
                                                  {"gazette_id": gid},
                                                  priority=PRIORITY["gazette"])])
    return _write_acts(conn, h, ctx, None, row, text, sha, None, read.quality, read.acts)


# -- our own OCR of a gazette without usable text ----------------------------------------------


async def _ocr_step(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    """The archived PDF of a gazette whose text file was empty or garbage, OCRed in a worker
    process with the extraction's limits (time, memory), then segmented like a text file.
    The OCR text is archived (`ocr_sha256`); `quality` is cleared when it reads as text. No
    request is made."""
    gid = req.payload["gazette_id"]
    row = await h.db(lambda conn: conn.execute(select(gazette).where(gazette.c.id == gid))
                     .mappings().one_or_none())
    if row is None or not row["pdf_sha256"] or row["quality"] is None:
        await h.db(listed.replace, req, [])
        return
    result = await asyncio.to_thread(ocr_pdf, str(h.corpus.blobs.root), row["pdf_sha256"])
    text = result.text if result.status == "extracted" else ""
    portarias = bool(ctx.settings.get("portarias"))
    read = await _read(text, row["territory_id"], portarias)
    sha = None
    if text:
        data = text.encode("utf-8")
        sha = hashlib.sha256(data).hexdigest()
        await asyncio.to_thread(h.corpus.blobs.put, data, sha)
        await asyncio.to_thread(h.corpus.blobs.sync)
    if read.quality:
        why = result.error or result.detail or read.quality
        quality = f"{row['quality']}; OCR gave no usable text either ({why})"[:2000]
    else:
        quality = None
    # The acts' spans are of the OCR text: their URL names the PDF, where that text is from.
    ocr_row = {**dict(row), "txt_url": f"{row['url']}#ocr" if row["url"] else None}
    stored = await h.db(_write_acts, h, ctx, req, ocr_row, text, row["text_sha256"],
                        row["pdf_sha256"], quality,
                        await _own_acts(h, ctx, row["territory_id"], read.acts), sha)
    if quality:
        await h.problem(ctx, "harvest", row["url"] or req.url, f"gazette of "
                        f"{row['date']:%d/%m/%Y}: {quality}")
    h.count(ctx, "norms", stored)


def ocr_pdf(blob_root: str, sha256: str):
    """Extract (OCR as needed) one archived PDF in a worker process of the extraction's
    kind: a PDF that hangs or eats memory costs that worker, never the harvest."""
    from concurrent.futures import TimeoutError as FutureTimeout

    from ..extract import DEFAULT_LIMITS
    from ..extract.result import failed
    from ..extract.worker import _pool, extract_stored

    limits = DEFAULT_LIMITS
    pool = _pool(1, limits)
    try:
        future = pool.schedule(extract_stored, args=(blob_root, sha256, "application/pdf", 0,
                                                     "auto", limits), timeout=limits.time_s)
        try:
            return future.result()
        except FutureTimeout:
            return failed(f"OCR took longer than {limits.time_s:g} s")
        except Exception as e:  # a worker that died (memory limit, a crash)
            return failed(f"OCR failed: {type(e).__name__}: {str(e)[:200]}")
    finally:
        pool.close()
        pool.join(timeout=10)


HANDLERS = {"aggregates": _aggregates_step, "zip": _zip_step, "window": _window_step,
            "gazette": _gazette_step, "ocr": _ocr_step}

PLATFORM = QueridoDiario()
