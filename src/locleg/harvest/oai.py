"""OAI-PMH with oai_lexml as a source: SAPL 3.1's /sistema/lexml/oai, SAPL 2.5's /oai, any
LexML publisher.

A cycle is a chain of requests:

    Identify → ListRecords window by window (each followed by its resumption tokens)
             → the records changed while it listed → [a full cycle: the datestamp of
                each norm not seen, asked for alone] → close

Offset paging shifts: SAPL's tokens are offsets into a list ordered by the norm's date,
newest first, so a norm added while a client pages pushes every later record down a place
(one is read twice), and a norm changed or deleted pulls them up (one is never read). A
`from`/`until` window that ends before the cycle began keeps new and newly stamped norms
out of the list being paged; a window that needs more than `max_pages` pages is split in
parts of equal time, and each part listed anew, so that windows stay short.
Every cycle then lists what was stamped since its `until`. A full cycle lists every window
from the earliest datestamp; before it marks removed the norms it did not see (only when
every window was listed without an error), it asks for each of them by its own last
datestamp, a one-record window that cannot shift: the record a change pulled past a page
boundary is found there. A daily cycle lists from the last cycle's `until` minus a margin
and removes only what the publisher says it deleted (status="deleted").

A resumption token that loops (the same token again, or a page repeating the previous
page) stops its window, is recorded as a problem, and the cycle removes nothing; so does a
listing that runs away (STALE_PAGES pages in a row with no identifier not already listed
in the window, more records than its completeListSize allows, more than MAX_WINDOW_PAGES
pages) and a token longer than MAX_TOKEN characters (it would be stored as a request URL).
A publisher's clock (responseDate) or earliestDatestamp that cannot be a datestamp of ours
(year 1, 9999, 2013-02-30) is recorded and replaced by our own clock, or by EARLIEST.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urlsplit

from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from ..errors import UserError
from ..store import utcnow
from ..store.harvest_schema import listed_norm
from ..store.schema import record
from . import frontier, listed
from .net import FetchError, Guard, Resolver, make_client, normalize_base_url, status_error
from .oaixml import PREFIX, BadXML, Identify, Page, UnsafeXML, parse_identify, parse_list_records
from .platform import NotThisPlatform, Probe
from .probing import Busy, Prober, Unreachable

if TYPE_CHECKING:
    from .platform import RunningHarvest, SourceContext

NAME = "oai"
MAX_PAGES = 10  # pages a window may take before it is split (source setting oai_max_pages)
SPLIT_PARTS = 8  # parts of a window too long (as many as completeListSize asks, when given)
MAX_PARTS = 64
MAX_CONFIRM = 200  # unseen norms whose datestamps are asked for again before removals
# SAPL 3.1, SAPL 2.5 and the usual OAI-PMH paths, tried when the URL names a site's root.
PATHS = ("/sistema/lexml/oai", "/oai", "/oai/request")
EARLIEST = "1900-01-01"  # when Identify names no earliestDatestamp (or an absurd one)
MAX_TOKEN = 2_000  # characters of a resumption token (SAPL's are about 80)
STALE_PAGES = 3  # pages in a row with nothing new before a listing is taken as running away
MAX_SEEN = 5_000  # identifiers of a window remembered (as short digests) to tell new ones
MAX_WINDOW_PAGES = 10_000  # pages of one window, whatever else it says


# -- datestamps and windows -------------------------------------------------------------------


def parse_stamp(value: str) -> datetime:
    """An OAI datestamp (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ) as an aware datetime."""
    value = value.strip()
    if len(value) == 10:
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def format_stamp(moment: datetime, seconds: bool) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ" if seconds else "%Y-%m-%d")


def split_window(window: list[str], parts: int, seconds: bool) -> list[list[str]]:
    """[from, until] in `parts` windows of equal time that neither overlap nor leave a gap.

    Equal time, not equal shares of the records seen: a publisher lists by its own order
    (SAPL: the norm's date), which follows the datestamps closely enough that the first
    pages of a window show only its newest part. A window of one unit (a second, a day)
    cannot be split: returned as it is."""
    unit = timedelta(seconds=1) if seconds else timedelta(days=1)
    low, high = parse_stamp(window[0]), parse_stamp(window[1])
    if high - low < unit:
        return [window]
    step = (high - low) / parts
    cuts = sorted({_floor(low + step * i, seconds) for i in range(1, parts)})
    found, start = [], low
    for cut in cuts:
        if cut < start or cut >= high:
            continue
        found.append([format_stamp(start, seconds), format_stamp(cut, seconds)])
        start = cut + unit
    found.append([format_stamp(start, seconds), format_stamp(high, seconds)])
    return found


def _floor(moment: datetime, seconds: bool) -> datetime:
    moment = moment.replace(microsecond=0)
    return moment if seconds else moment.replace(hour=0, minute=0, second=0)


def _stamp_or_none(value: str) -> datetime | None:
    try:
        return parse_stamp(value) if value else None
    except (ValueError, OverflowError):  # "2013-02-30"; "0001-01-01T00:00:00+01:00"
        return None


def _plausible(value: str | None, what: str, low: datetime, high: datetime,
               notes: list[str]) -> datetime | None:
    """A publisher's datestamp within [low, high], else None (and a note saying why)."""
    if not value:
        return None
    found = _stamp_or_none(value)
    if found is None or not low <= found <= high:
        notes.append(f"the publisher's {what} {value[:40]!r} is not a plausible datestamp")
        return None
    return found


# -- probing -----------------------------------------------------------------------------------


def normalize_url(url: str) -> str:
    try:
        return normalize_base_url(url)
    except ValueError as e:
        raise UserError(str(e)) from None


def _candidates(base_url: str) -> list[str]:
    path = urlsplit(base_url).path
    if "oai" in path.lower():
        return [base_url]
    return [base_url + p for p in PATHS] + [base_url]


async def probe(url: str, *, resolver: Resolver | None = None,
                on_wait: Callable[[float, str], None] | None = None,
                timeout: float = 20.0) -> Probe:
    """An OAI-PMH endpoint at url (or at SAPL's and the usual paths under it): Identify."""
    base_url = normalize_url(url)
    resolver = resolver or Resolver()
    async with make_client(resolver, timeout=timeout) as client:
        prober = Prober(base_url, client, Guard(base_url, resolver), 120.0, on_wait)
        try:
            await prober.read_robots()
        except UserError as e:
            raise Unreachable(str(e)) from None
        tried = []
        for candidate in _candidates(base_url):
            try:
                answer = await prober.get(f"{candidate}?verb=Identify")
            except FetchError as e:
                raise Unreachable(f"{base_url} did not answer: {e}") from None
            if answer.status >= 500:
                raise Busy(f"{base_url} answered HTTP {answer.status} (server error) to "
                           f"{urlsplit(candidate).path}?verb=Identify: try again later")
            try:
                ident = parse_identify(answer.body) if answer.status == 200 else None
            except UnsafeXML as e:
                raise NotThisPlatform(f"{candidate}: {e}") from None
            except BadXML:
                ident = None
            if ident is None or ident.error is not None:
                tried.append(f"{urlsplit(candidate).path or '/'} (HTTP {answer.status})")
                continue
            return _found(candidate, ident, prober)
    raise NotThisPlatform(f"no OAI-PMH Identify at {base_url}: tried " + ", ".join(tried))


def _found(endpoint: str, ident: Identify, prober) -> Probe:
    state = {"identify": {"repository_name": ident.repository_name,
                          "granularity": ident.granularity, "earliest": ident.earliest,
                          "deleted_record": ident.deleted_record}}
    delay = f"robots.txt Crawl-delay {prober.crawl_delay:g} s" \
        if prober.crawl_delay is not None else "no Crawl-delay in robots.txt"
    notes = [f"granularity {ident.granularity}, earliest datestamp {ident.earliest or '?'}, "
             f"deleted records {ident.deleted_record or '?'}; {delay}"]
    return Probe(NAME, endpoint, f"OAI-PMH {ident.protocol_version or '2.0'}",
                 ident.repository_name, state, notes, robots_txt=prober.robots_txt,
                 robots_status=prober.robots_status, crawl_delay=prober.crawl_delay)


# -- a cycle ----------------------------------------------------------------------------------


def _step(ctx: SourceContext, kind: str, url: str, payload: dict) -> dict:
    # Any step failing for good ends the chain: the engine then closes the cycle incomplete.
    return listed.chain(ctx, kind, url, {**payload, "closes_cycle": True})


def _identify_url(ctx: SourceContext) -> str:
    return f"{ctx.base_url}?verb=Identify"


def _window_url(ctx: SourceContext, window: list[str | None]) -> str:
    params = {"verb": "ListRecords", "metadataPrefix": PREFIX}
    if window[0]:
        params["from"] = window[0]
    if window[1]:
        params["until"] = window[1]
    return f"{ctx.base_url}?{urlencode(params)}"


def _token_url(ctx: SourceContext, token: str) -> str:
    return f"{ctx.base_url}?{urlencode({'verb': 'ListRecords', 'resumptionToken': token})}"


def start_cycle(conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
    frontier.retry_failed(conn, ctx.id)
    payload = {"mode": "full" if rewrite else "changes", "cycle": utcnow().isoformat(),
               "complete": True}
    frontier.enqueue(conn, [_step(ctx, "identify", _identify_url(ctx), payload)])


async def handle(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    if req.kind == "identify":
        await _identify(h, ctx, req)
    else:
        await _records(h, ctx, req)


def _max_pages(ctx: SourceContext) -> int:
    value = ctx.settings.get("oai_max_pages")
    return max(2, int(value)) if value is not None else MAX_PAGES


async def _identify(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    """The publisher's clock and granularity: the cycle's windows are planned from them."""
    fetched = await h.get(ctx, req.url)
    if fetched.status != 200:
        raise status_error(req.url, fetched.status, fetched.headers, fetched.body)
    try:
        ident = parse_identify(fetched.body)
    except (BadXML, UnsafeXML) as e:
        raise FetchError(f"{e}: {req.url}", transient=isinstance(e, BadXML)) from None
    if ident.error is not None:
        raise FetchError(f"{ident.error}: {req.url}", transient=False)
    seconds = ident.seconds
    unit = timedelta(seconds=1) if seconds else timedelta(days=1)
    ours, notes = utcnow(), []
    floor = parse_stamp(EARLIEST)
    now = _plausible(ident.response_date, "clock (responseDate)", floor,
                     ours + timedelta(days=2), notes) or ours
    # The window ends before the publisher's present moment: a norm stamped while we list
    # cannot fall inside it (it is read by the next window, or the next cycle).
    until = format_stamp(now - unit, seconds)
    full = req.payload["mode"] == "full" or not ctx.state.get("oai_until")
    if full:
        start = _plausible(ident.earliest, "earliestDatestamp", floor, now, notes) or floor
    else:
        margin = timedelta(hours=1) if seconds else timedelta(days=1)
        start = parse_stamp(ctx.state["oai_until"]) - margin
    payload = {**req.payload, "mode": "full" if full else "changes", "seconds": seconds,
               "until": until, "seen_since": utcnow().isoformat(), "windows": []}
    following = _window_step(ctx, payload, [format_stamp(start, seconds), until])
    identify = {"repository_name": ident.repository_name, "granularity": ident.granularity,
                "earliest": ident.earliest, "deleted_record": ident.deleted_record}

    def write(conn: Connection) -> None:
        h.save_state(conn, ctx, identify=identify)
        listed.replace(conn, req, [following])

    for note in notes:
        await h.problem(ctx, "harvest", req.url, f"{note}: "
                        + ("our own clock is used" if "clock" in note else f"listing from "
                           f"{EARLIEST}") + " (the listing goes on)")
    await h.db(write)


def _window_step(ctx: SourceContext, payload: dict, window: list[str | None]) -> dict:
    fresh = {k: v for k, v in payload.items()
             if k not in ("token", "tokens", "prev_ids", "pages", "closes_cycle", "seen",
                          "stale", "listed")}
    return _step(ctx, "records", _window_url(ctx, window), {**fresh, "window": window})


def _next_window(conn: Connection, ctx: SourceContext, payload: dict) -> dict | None:
    """The request of the next window to list; None when the listing is done."""
    windows = list(payload.get("windows") or [])
    if windows:
        return _window_step(ctx, {**payload, "windows": windows[1:]}, windows[0])
    if not payload.get("complete", True):
        return None
    if not payload.get("catchup"):
        # What changed while this cycle listed has a datestamp after its `until`: seen now,
        # and never taken for removed.
        return _window_step(ctx, {**payload, "catchup": True}, [payload["until"], None])
    if payload["mode"] == "full" and not payload.get("confirmed"):
        # A norm changed while a window was paged leaves it, and the record after it moves
        # up a page unseen. Before anything is marked removed, the datestamp of each norm
        # not seen is asked for on its own: a one-record window cannot shift.
        stamps = _unseen_markers(conn, ctx, datetime.fromisoformat(payload["seen_since"]))
        if stamps and len(stamps) <= MAX_CONFIRM:
            windows = [[s, s] for s in stamps]
            return _window_step(ctx, {**payload, "confirmed": True, "windows": windows[1:]},
                                windows[0])
    return None


def _unseen_markers(conn: Connection, ctx: SourceContext, seen_since: datetime) -> list[str]:
    """The last datestamps of the source's norms that this listing has not seen."""
    found = conn.scalars(
        select(listed_norm.c.marker).distinct()
        .join(record, record.c.id == listed_norm.c.record_id)
        .where(listed_norm.c.source_id == ctx.id, record.c.removed_at.is_(None),
               record.c.last_seen_at < seen_since, listed_norm.c.marker.is_not(None))
        .limit(MAX_CONFIRM + 1)).all()
    return sorted(m for m in found if _stamp_or_none(m) is not None)


async def _records(h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
    payload = dict(req.payload)
    fetched = await h.get(ctx, req.url)
    if fetched.status != 200:
        raise status_error(req.url, fetched.status, fetched.headers, fetched.body)
    try:
        page = parse_list_records(fetched.body, ctx.base_url)
    except (BadXML, UnsafeXML) as e:
        return await _stop_window(h, ctx, req, payload, f"{e}: {req.url}")
    if page.error is not None:
        if page.error.code == "noRecordsMatch":  # an empty window
            return await _go_on(h, ctx, req, payload, None)
        stop_all = page.error.code in ("cannotDisseminateFormat", "badArgument", "badVerb")
        return await _stop_window(h, ctx, req, payload, f"{page.error} ({req.url})",
                                  stop_all=stop_all)
    ids = page.identifiers
    sent = payload.get("token")
    if page.token is not None and (page.token == sent or page.token in payload.get("tokens", [])):
        return await _stop_window(h, ctx, req, payload, "the resumption token loops (the "
                                  f"publisher gave back a token already followed: "
                                  f"{page.token[:120]!r}): {req.url}")
    if ids and ids == payload.get("prev_ids"):
        return await _stop_window(h, ctx, req, payload, "a page repeats the previous page "
                                  f"(the resumption token does not advance): {req.url}")
    pages = payload.get("pages", 0) + 1
    window = payload["window"]
    if page.token is None:
        return await _go_on(h, ctx, req, payload, None, page)
    if len(page.token) > MAX_TOKEN:
        # Followed, it would be a request URL of that size, stored and sent back.
        return await _stop_window(h, ctx, req, payload, f"a resumption token of "
                                  f"{len(page.token):,} characters (at most {MAX_TOKEN:,} are "
                                  f"followed) refused: {page.token[:60]!r}… after {req.url}",
                                  page=page)
    seen, stale, count = _progress(payload, ids)
    runaway = _runaway(pages, stale, count, page.complete_size)
    if runaway is not None:
        return await _stop_window(h, ctx, req, payload, f"the listing runs away: {runaway} "
                                  f"(the publisher issues new resumption tokens for ever?): "
                                  f"{req.url}", page=page)
    max_pages = _max_pages(ctx)
    per_page = max(len(ids), 1)
    too_long = page.complete_size is not None and page.complete_size > max_pages * per_page
    if window[1] is not None and (pages >= max_pages or too_long):
        parts = SPLIT_PARTS
        if page.complete_size:
            parts = min(MAX_PARTS, max(2, -(-page.complete_size // (max_pages * per_page)) + 1))
        split = split_window(window, parts, payload["seconds"])
        if len(split) > 1:
            rest = {**payload, "windows": split[1:] + list(payload.get("windows") or [])}
            return await _go_on(h, ctx, req, rest, _window_step(ctx, rest, split[0]), page)
    following = _step(ctx, "records", _token_url(ctx, page.token), {
        **payload, "token": page.token, "tokens": ([sent] if sent else [])
        + payload.get("tokens", [])[:2], "prev_ids": ids[:200], "pages": pages,
        "seen": seen, "stale": stale, "listed": count})
    await _go_on(h, ctx, req, payload, following, page)


def _digest(identifier: str) -> str:
    return hashlib.blake2b(identifier.encode("utf-8", "replace"), digest_size=5).hexdigest()


def _progress(payload: dict, ids: list[str]) -> tuple[list[str], int, int]:
    """The window's identifiers seen so far (digests, at most MAX_SEEN), how many pages in a
    row brought none that is new, and how many records it has listed."""
    seen = list(payload.get("seen") or [])
    known = set(seen)
    new = [d for d in dict.fromkeys(_digest(i) for i in ids) if d not in known]
    full = len(seen) >= MAX_SEEN  # past it, nothing can be told new: never taken as stale
    stale = 0 if new or full else payload.get("stale", 0) + 1
    return (seen + new)[:MAX_SEEN], stale, payload.get("listed", 0) + len(ids)


def _runaway(pages: int, stale: int, count: int, complete_size: int | None) -> str | None:
    """Why a window's listing cannot be ending, or None."""
    if stale >= STALE_PAGES:
        return f"{stale} pages in a row brought no record not already listed in this window"
    if complete_size is not None and count > 2 * complete_size + 100:
        return f"{count:,} records listed where its completeListSize says {complete_size:,}"
    if pages > MAX_WINDOW_PAGES:
        return f"more than {MAX_WINDOW_PAGES:,} pages in one window"
    return None


def _store_page(conn: Connection, h: RunningHarvest, ctx: SourceContext, payload: dict,
                page: Page) -> tuple[listed.Written, int]:
    """A page's norms written and its deleted norms removed, in the caller's transaction."""
    seen_at = datetime.fromisoformat(payload["seen_since"])
    written = listed.write_listed(conn, h, ctx, page.records, seen_at, payload["mode"] == "full") \
        if page.records else listed.Written()
    removed = listed.remove(conn, h, ctx, page.deleted, seen_at) if page.deleted else 0
    return written, removed


async def _store_one_by_one(h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
                            payload: dict, page: Page) -> None:
    """A page the database refused whole: each norm alone, so one bad norm costs only
    itself (listed.Listing)."""
    seen_at = datetime.fromisoformat(payload["seen_since"])
    listing = listed.Listing(h, ctx, req.url, seen_at, payload["mode"] == "full")
    for norm in page.records:
        listing.add(norm)
    for note in page.notes:
        listing.note(req.url, note)
    await listing.write()
    await listing.record_notes()
    h.count(ctx, "norms", listing.done.listed)
    if page.deleted:
        h.count(ctx, "removed", await h.db(listed.remove, h, ctx, page.deleted, seen_at))


async def _tell(h: RunningHarvest, ctx: SourceContext, req: frontier.Request, page: Page,
                written: listed.Written, removed: int) -> None:
    h.count(ctx, "norms", written.listed)
    h.count(ctx, "removed", removed)
    said = [(req.url, note) for note in page.notes] + written.problems
    for subject, message in said[:listed.MAX_PROBLEMS_PER_REQUEST]:
        await h.problem(ctx, "harvest", subject, message)
    if len(said) > listed.MAX_PROBLEMS_PER_REQUEST:
        await h.problem(ctx, "harvest", req.url, f"{len(said) - listed.MAX_PROBLEMS_PER_REQUEST:,}"
                        " more bad records in this page (not recorded one by one)")


async def _stop_window(h: RunningHarvest, ctx: SourceContext, req: frontier.Request, payload: dict,
                       message: str, stop_all: bool = False, page: Page | None = None) -> None:
    """This window cannot be listed to its end: recorded (the records of `page`, read before
    the window was found broken, are kept); the listing is not complete, so the cycle
    removes nothing."""
    await h.problem(ctx, "harvest", req.url, message + " (window "
                    f"{payload['window'][0]} – {payload['window'][1] or 'now'} left "
                    "incomplete; no removals this cycle)")
    payload = {**payload, "complete": False}
    if stop_all:
        payload["windows"], payload["catchup"] = [], True
    await _go_on(h, ctx, req, payload, None, page)


async def _go_on(h: RunningHarvest, ctx: SourceContext, req: frontier.Request, payload: dict,
                 following: dict | None, page: Page | None = None) -> None:
    """Store the page (if any) and queue what follows it (the given request, else the next
    window) in one transaction; at the end of the listing, close the cycle."""
    seen_since = datetime.fromisoformat(payload["seen_since"])
    complete = payload.get("complete", True)

    def advance(conn: Connection) -> tuple[tuple | None, int | None]:
        stored = _store_page(conn, h, ctx, payload, page) if page is not None else None
        nxt = following or _next_window(conn, ctx, payload)
        if nxt is not None:
            listed.replace(conn, req, [nxt])
            return stored, None
        removed = 0
        if complete and payload["mode"] == "full":
            removed = listed.close_seen(conn, h, ctx, seen_since)
        if complete:
            h.save_state(conn, ctx, oai_until=payload["until"])
        frontier.complete(conn, [req.id])
        return stored, removed

    try:
        stored, removed = await h.db(advance)
    except (SQLAlchemyError, ValueError, OverflowError):
        if page is None:
            raise
        await _store_one_by_one(h, ctx, req, payload, page)
        return await _go_on(h, ctx, req, payload, following)
    if stored is not None:
        await _tell(h, ctx, req, page, *stored)
    if removed is None:
        return
    h.count(ctx, "removed", removed)
    await h.finish_cycle(ctx, payload)


class Oai:
    """OAI-PMH with oai_lexml (platform.Platform)."""

    name = NAME
    title = "OAI-PMH (oai_lexml)"

    def normalize_url(self, url: str) -> str:
        return normalize_url(url)

    async def probe(self, url: str, *, resolver: Resolver | None = None,
                    on_wait: Callable[[float, str], None] | None = None,
                    jurisdiction: int | None = None) -> Probe:
        return await probe(url, resolver=resolver, on_wait=on_wait)

    def start_cycle(self, conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
        start_cycle(conn, ctx, rewrite)

    def handle(self, h: RunningHarvest, ctx: SourceContext,
               req: frontier.Request) -> Awaitable[None]:
        return handle(h, ctx, req)


PLATFORM = Oai()

__all__ = ["PLATFORM", "probe", "split_window", "parse_stamp", "start_cycle", "handle"]
