"""A portal described by a TOML file (portal_config.py) as a harvest platform.

`locleg sources add portal path/to/es.toml -j 32` reads and checks the file, stores its text
with the source (the corpus never depends on the file staying where it was), and keys the
source by the listing's URL. A cycle is a chain of `listing` requests, one per page, each
queued by the one before in the transaction that stores its norms:

    listing page 1 → page 2 → … → the last page closes the cycle      (page, next, postback,
    listing (the one bulk file) closes the cycle                        json, bulk)

and, when the file names a detail page, a `detail` request for each new or changed norm.

Removals come only after a listing known to be complete. Every page's norms are marked seen;
the last page marks removed the norms not seen since the cycle began (listed.close_seen) —
unless the listing was suspicious: a first page with no items ("0 items where 120 were
expected": the portal changed shape, not its laws), a page that repeats the one before (the
paging is broken), a page short of `min_items` before the last, a JSON total not reached, the
page limit hit, a page that failed. Those are recorded, and nothing is removed.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import lxml.html
from lxml import etree
from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from ..errors import UserError
from ..store import utcnow
from ..store.harvest_schema import listed_norm
from ..store.schema import record
from . import frontier, listed, rows
from .jsonread import loads
from .listed import chain
from .net import (
    ROBOTS_AGENT,
    FetchError,
    Guard,
    Resolver,
    fetch,
    make_client,
    normalize_base_url,
    status_error,
)
from .platform import ListedNorm, Probe
from .portal_config import Item, PortalConfig, load, read_item, search_bounded

if TYPE_CHECKING:
    from .platform import RunningHarvest, SourceContext

NAME = "portal"
LISTING, DETAIL = "listing", "detail"
# Lower runs first on a host: the listing's pages before detail pages, both before files (8).
PRIORITY = {LISTING: 3, DETAIL: 6}
MAX_FIELD_PROBLEMS = 5  # per page: fields whose selector found nothing in any item
MAX_ZIP_MEMBERS = 10_000
MAX_PAGES_SEEN = 500  # digests of the pages read, kept to see a pager that starts over
PENDING_DETAIL = "detail-pending:"  # a marker prefix: the norm's detail page is still to read


# -- the configuration a source carries -------------------------------------------------------

_configs: dict[str, PortalConfig] = {}


def read_file(path: str) -> PortalConfig:
    """The portal a TOML file describes; UserError for a missing file or a bad description."""
    file = Path(path)
    try:
        text = file.read_text("utf-8")
    except FileNotFoundError:
        raise UserError(f"no such portal file: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"cannot read the portal file {path}: {e}") from None
    return load(text, str(file))


def source_config(ctx: SourceContext) -> PortalConfig:
    """The description stored with the source (parsed once per text)."""
    stored = ctx.settings.get("portal") or {}
    text = stored.get("toml")
    if not isinstance(text, str):
        raise UserError(f"source {ctx.id} has no portal description: add it again with "
                        "`locleg sources add portal FILE`")
    key = hashlib.sha256(text.encode()).hexdigest()
    if key not in _configs:
        _configs[key] = load(text, stored.get("file") or "portal.toml")
    return _configs[key]


# -- URLs of the listing --------------------------------------------------------------------


def page_url(config: PortalConfig, page: int) -> str:
    """The listing's URL for page `page` (its parameters, the page's number and size)."""
    paging = config.paging
    parts = urlsplit(config.url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    query.update(config.params)
    if paging.kind in ("page", "json") and paging.param:
        query[paging.param] = str(page)
    if paging.kind == "json" and paging.size_param:
        query[paging.size_param] = str(paging.size)
    url = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))
    if paging.kind in ("next", "postback") and page != paging.start:
        # One frontier entry per page: these pages share a URL (postback) or are found on
        # the page before (next); the fragment is never sent.
        url += f"#page={page}"
    return url


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


# -- reading pages --------------------------------------------------------------------------


class Malformed(FetchError):
    """An answer that cannot be read as the description says (not retried this cycle)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=False)


def _xml_parser() -> etree.XMLParser:
    # No entity is expanded, no DTD or external file is loaded, nothing is fetched.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           huge_tree=False, remove_comments=True)


_ENTITIES = ("refused XML that declares entities (<!ENTITY> in its DOCTYPE: entity expansion "
             "and external entities are never read): {url}")


def parse_xml(data: bytes, url: str) -> etree._Element:
    """An XML document, refused when it declares entities (billion laughs, external ones)."""
    if b"<!ENTITY" in data[:2**16]:
        raise Malformed(_ENTITIES.format(url=url))
    try:
        root = etree.fromstring(data, _xml_parser())
    except etree.XMLSyntaxError as e:
        raise Malformed(f"malformed XML ({str(e).splitlines()[0][:200]}): {url}") from None
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise Malformed(_ENTITIES.format(url=url))
    return root


def parse_page(config_format: str, data: bytes, url: str, content_type: str = "",
               member: Any = None, max_size: int = 2**30) -> list[Any]:
    """The roots an answer holds: one page, or each XML file of a ZIP (bulk)."""
    if config_format == "json":
        try:
            return [loads(data)]
        except ValueError as e:
            raise Malformed(f"invalid JSON ({e}): {url}") from None
    if config_format == "xml":
        if data[:4] == b"PK\x03\x04":
            return [parse_xml(part, f"{url} ({name})")
                    for name, part in _zip_members(data, url, member, max_size)]
        return [parse_xml(data, url)]
    # The header's charset, else the page's own <meta>, else UTF-8 (then Latin-1).
    charset = re.search(r"charset=([\w-]+)", content_type) or re.search(
        r"<meta[^>]+charset=[\"']?([\w-]+)", data[:4096].decode("latin-1"), re.IGNORECASE)
    try:
        text = data.decode(charset[1] if charset else "utf-8")
    except (LookupError, UnicodeDecodeError):
        text = data.decode("latin-1")
    try:
        return [lxml.html.document_fromstring(text)]
    except (etree.ParserError, ValueError) as e:
        raise Malformed(f"unreadable HTML ({e}): {url}") from None


def _zip_members(data: bytes, url: str, member: Any,
                 max_size: int) -> list[tuple[str, bytes]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in archive.infolist() if not i.is_dir()
                 and _is_member(member, i.filename)]
        if len(infos) > MAX_ZIP_MEMBERS:
            raise Malformed(f"a ZIP of {len(infos):,} XML files (more than "
                            f"{MAX_ZIP_MEMBERS:,}): {url}")
        if sum(i.file_size for i in infos) > max_size:
            raise Malformed(f"a ZIP that expands to more than {max_size:,} bytes: {url}")
        found = []
        for info in infos:
            with archive.open(info) as f:
                part = f.read(max_size + 1)
            if len(part) > max_size:  # a header that lied about the size
                raise Malformed(f"a ZIP member larger than it says: {url}")
            found.append((info.filename, part))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as e:
        raise Malformed(f"a broken ZIP ({e}): {url}") from None
    if not found:
        raise Malformed(f"a ZIP with no XML file in it: {url}")
    return found


def _is_member(member: Any, name: str) -> bool:
    if member is None:
        return name.lower().endswith(".xml")
    try:
        return search_bounded(member, name) is not None
    except TimeoutError:
        return False


def _hidden_fields(root: Any, form: str) -> dict[str, str]:
    """The fields an ASP.NET page posts back: every hidden input of its form."""
    from lxml.cssselect import CSSSelector

    forms = CSSSelector(form)(root)
    scope = forms[0] if forms else root
    return {i.get("name"): i.get("value") or "" for i in scope.iter("input")
            if (i.get("type") or "").lower() == "hidden" and i.get("name")}


# -- a page of the listing ------------------------------------------------------------------


@dataclass
class Page:
    """What one listing answer held, and what comes after it."""

    items: list[Item] = field(default_factory=list)
    nodes: int = 0  # items the selector found (some may have had no native id)
    nxt: str | None = None  # the next page's URL
    form: dict[str, str] | None = None  # postback: the fields the next page needs
    total: int | None = None  # json: the total the API says it holds
    notes: list[str] = field(default_factory=list)


def read_page(config: PortalConfig, roots: list[Any], url: str, page: int,
              raw: bytes = b"") -> Page:
    """The items of a listing page (or of the bulk file) and the way to the next page."""
    found = Page()
    missing: dict[str, int] = {}
    for root in roots:
        for node in config.items.run(root):
            found.nodes += 1
            item = read_item(config, node, url, missing=missing)
            if item is None:
                if len(found.notes) < MAX_FIELD_PROBLEMS:
                    found.notes.append(f"page {page}: an item without a native id (its "
                                       "selector found nothing): skipped")
                continue
            if config.detail is not None:
                link = config.detail.url.first(node, item.values, found.notes)
                item.detail_url = rows.url(urljoin(url, link)) if link else None
            found.items.append(item)
    misses = [name for name, count in missing.items() if found.nodes and count == found.nodes]
    for name in misses[:MAX_FIELD_PROBLEMS]:
        pick = config.fields[name]
        found.notes.append(f"page {page}: field {name} ({pick.how} {pick.expr!r}) matched "
                           f"nothing in any of its {found.nodes:,} items")
    paging = config.paging
    root = roots[0] if roots else None
    if paging.kind == "page":
        if found.nodes:
            found.nxt = page_url(config, page + 1)
    elif paging.kind == "next" and root is not None:
        link = paging.link.first(root, notes=found.notes)
        if link:
            nxt = rows.url(urljoin(url, link))
            if nxt is None:
                found.notes.append(f"page {page}: a next link that is not an http(s) URL: "
                                   f"{link[:120]!r}")
            elif _without_fragment(nxt) != _without_fragment(url):
                found.nxt = nxt + f"#page={page + 1}"
    elif paging.kind == "postback" and root is not None:
        argument = paging.argument.replace("{page}", str(page + 1))
        # The pager offers the next page only while there is one (past the end ASP.NET
        # answers the last page again).
        if argument.encode() in raw and found.nodes:
            found.nxt = page_url(config, page + 1)
            found.form = {**_hidden_fields(root, paging.form), "__EVENTTARGET": paging.target,
                          "__EVENTARGUMENT": argument}
    elif paging.kind == "json" and root is not None:
        if paging.total is not None:
            total = paging.total.first(root, notes=found.notes)
            found.total = int(total) if total and total.isdigit() else None
            if total is not None and found.total is None:
                found.notes.append(f"page {page}: the total {total[:40]!r} is not a number")
        size = paging.size or found.nodes
        read = (page - paging.start + 1) * size
        if found.nodes and (found.total is None or read < found.total):
            found.nxt = page_url(config, page + 1)
    return found


def _digest(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:24]


# -- the platform -----------------------------------------------------------------------------


class Portal:
    """A state or vendor portal, as its TOML file describes it (see module docstring)."""

    name = NAME
    title = "portal described by a TOML file"

    def normalize_url(self, url: str) -> str:
        """The description file's path (a source's URL is its listing's, read at probe)."""
        path = Path(url).expanduser()
        if not path.is_file():
            raise ValueError(f"no such portal file: {url} (give the path of a .toml file "
                             "describing the portal)")
        return str(path.resolve())

    async def probe(self, url: str, *, resolver: Resolver | None = None,
                    on_wait: Callable[[float, str], None] | None = None,
                    jurisdiction: int | None = None) -> Probe:
        """Read and check the file, then ask the portal for robots.txt and the listing's
        first page: a description that finds no item there is refused, with the reason."""
        url = self.normalize_url(url)
        config = read_file(url)
        base_url = normalize_base_url(config.url)
        chosen = {k: v for k, v in sorted(config.params.items()) if v}
        if chosen:  # one listing of a portal among others (a type, a year): its own source
            base_url += "?" + urlencode(chosen)
        found = Probe(NAME, base_url, title=config.name,
                      state={"portal": {"file": url, "digest": config.digest}},
                      settings={"portal": {"file": url, "toml": config.text}})
        from .probing import did_not_answer

        resolver = resolver or Resolver()
        parts = urlsplit(base_url)
        async with make_client(resolver, timeout=20.0) as client:
            guard = Guard(base_url, resolver)
            try:
                robots = await fetch(client, f"{parts.scheme}://{parts.netloc}/robots.txt",
                                     guard, max_bytes=2**20)
            except FetchError as e:
                raise did_not_answer(base_url, e) from None
            if robots.status < 500 and robots.status != 429:
                found.robots_status = robots.status
                if robots.status == 200:
                    from protego import Protego

                    found.robots_txt = robots.body.decode("utf-8", "replace")
                    found.crawl_delay = Protego.parse(found.robots_txt).crawl_delay(
                        ROBOTS_AGENT)
            if config.paging.kind == "bulk":
                found.notes.append("bulk file: read whole at the first harvest")
                return found
            first = page_url(config, config.paging.start)
            try:
                answer = await fetch(client, first, guard, max_bytes=64 * 2**20)
            except FetchError as e:
                raise did_not_answer(first, e) from None
        if answer.status in (429, 503) or answer.status >= 500:
            raise UserError(f"{status_error(first, answer.status, answer.headers)} (the portal "
                            "is busy or limiting us, not refusing: try again later)")
        if answer.status != 200:
            raise UserError(f"the listing's first page answered HTTP {answer.status}: {first}")
        try:
            roots = parse_page(config.format, answer.body, first,
                               answer.headers.get("content-type", ""))
        except FetchError as e:
            raise UserError(str(e)) from None
        page = read_page(config, roots, first, config.paging.start, answer.body)
        if not page.items:
            raise UserError(f"the description does not fit this portal: listing.items "
                            f"({config.items.how} {config.items.expr!r}) found "
                            f"{page.nodes} items with a native id on {first}")
        found.notes.append(f"{len(page.items)} norms on the listing's first page")
        found.notes += page.notes
        return found

    def start_cycle(self, conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
        frontier.retry_failed(conn, ctx.id)
        config = source_config(ctx)
        now = utcnow().isoformat()
        held = conn.scalar(select(func.count()).select_from(record).where(
            record.c.source_id == ctx.id, record.c.removed_at.is_(None)))
        payload = {"mode": "full" if rewrite else "changes", "cycle": now, "seen_since": now,
                   "complete": True, "closes_cycle": True, "page": config.paging.start,
                   "held": held, "listed": 0}
        frontier.enqueue(conn, [chain(ctx, LISTING, page_url(config, config.paging.start),
                                      payload, priority=PRIORITY[LISTING])])

    async def handle(self, h: RunningHarvest, ctx: SourceContext, req: frontier.Request) -> None:
        config = source_config(ctx)
        if req.kind == DETAIL:
            await _detail(h, ctx, req, config)
        else:
            await _listing(h, ctx, req, config)


PLATFORM = Portal()


async def _listing(h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
                   config: PortalConfig) -> None:
    payload = dict(req.payload)
    page_number = payload.get("page", config.paging.start)
    url = _without_fragment(req.url)
    bulk = config.paging.kind == "bulk"
    max_bytes = h.config.max_file_size if bulk else None
    if payload.get("form") is not None:
        fetched = await h.get(ctx, url, form=payload["form"])
    else:
        fetched = await h.get(ctx, url, max_bytes=max_bytes)
    if fetched.status != 200:
        raise status_error(url, fetched.status, fetched.headers, fetched.body)
    roots = parse_page(config.format, fetched.body, url,
                       fetched.headers.get("content-type", ""), config.paging.member,
                       h.config.max_file_size * 4)
    page = read_page(config, roots, fetched.url or url, page_number, fetched.body)
    for note in page.notes:
        await h.problem(ctx, "harvest", req.url, note)
    seen_at = datetime.fromisoformat(payload["seen_since"])
    ids = [item.native_id for item in page.items]
    digest = _digest(ids)
    stop: str | None = None
    expected = payload.get("held") or config.min_items
    if not page.nodes and page_number == config.paging.start:
        stop = (f"0 items where {expected:,} were expected" if expected else
                "0 items on the listing's first page") + \
            (f" (listing.items {config.items.how} {config.items.expr!r} found nothing: the "
             "portal may have changed shape; check its description); no norm is marked "
             "removed")
    elif ids and digest == payload.get("prev"):
        stop = (f"page {page_number} repeats page {page_number - 1} (the same {len(ids):,} "
                "items): the paging is broken, stopped there; the listing is incomplete and "
                "no norm is marked removed this cycle")
    elif ids and digest in payload.get("pages_seen", []):
        stop = (f"page {page_number} repeats an earlier page (the same {len(ids):,} items): "
                "the paging loops, stopped there; the listing is incomplete and no norm is "
                "marked removed this cycle")
    if stop is not None:
        await h.problem(ctx, "harvest", req.url, stop)
        await _close(h, ctx, req, {**payload, "complete": False}, None)
        return
    # A short page before the last one: the portal lost items on the way. With page numbers
    # only the next page tells whether it was the last (it has no items then).
    short = payload.pop("short", None)
    if short is not None and page.nodes:
        await _short_page(h, ctx, req.url, short, payload, config)
    if page.nxt and config.min_items and page.nodes < config.min_items:
        if config.paging.kind == "page":
            payload["short"] = [page_number, page.nodes]
        else:
            await _short_page(h, ctx, req.url, [page_number, page.nodes], payload, config)
    await _write_page(h, ctx, config, page, seen_at, payload, req.url)
    payload["listed"] = payload.get("listed", 0) + len(ids)
    h.count(ctx, "norms", len(ids))
    pages_read = page_number - config.paging.start + 1
    if page.nxt and pages_read >= config.paging.max_pages:
        await h.problem(ctx, "harvest", req.url, f"stopped after {pages_read:,} pages "
                        "(paging.max_pages): the listing is incomplete, no norm is marked "
                        "removed")
        page.nxt = None
        payload["complete"] = False
    if page.nxt:
        # The digests of the pages read (the last MAX_PAGES_SEEN): a pager that starts over
        # (a postback answering page 1 again, new state and all) loops, and is stopped.
        seen = [*payload.get("pages_seen", []), digest][-MAX_PAGES_SEEN:] if ids else \
            payload.get("pages_seen", [])
        following = {**payload, "page": page_number + 1, "prev": digest, "form": page.form,
                     "pages_seen": seen}
        await h.db(listed.replace, req, [chain(ctx, LISTING, page.nxt, following,
                                               priority=PRIORITY[LISTING])])
        return
    if page.total is not None and payload["listed"] < page.total:
        payload["complete"] = False
        await h.problem(ctx, "harvest", req.url, f"the API says {page.total:,} norms, the "
                        f"listing gave {payload['listed']:,}: incomplete, no norm is marked "
                        "removed")
    await _close(h, ctx, req, payload, set(ids) if bulk else None)


async def _short_page(h: RunningHarvest, ctx: SourceContext, url: str, short: list[int],
                      payload: dict, config: PortalConfig) -> None:
    payload["complete"] = False
    await h.problem(ctx, "harvest", url, f"page {short[0]}: {short[1]:,} items where at least "
                    f"{config.min_items:,} were expected (not the last page): the listing is "
                    "taken as incomplete, no norm is marked removed")


async def _close(h: RunningHarvest, ctx: SourceContext, req: frontier.Request, payload: dict,
                 listed_ids: set[str] | None) -> None:
    """The last request of the listing: removals when it was complete, then the cycle ends."""
    seen_at = datetime.fromisoformat(payload["seen_since"])
    complete = payload.get("complete", True)

    def write(conn: Connection) -> int:
        removed = 0
        if complete:
            removed = listed.close_seen(conn, h, ctx, seen_at)
        frontier.complete(conn, [req.id])
        return removed

    removed = await h.db(write)
    h.count(ctx, "removed", removed)
    payload = {k: v for k, v in payload.items() if k not in ("form", "prev")}
    await h.finish_cycle(ctx, payload)


async def _write_page(h: RunningHarvest, ctx: SourceContext, config: PortalConfig, page: Page,
                      seen_at: datetime, payload: dict, url: str) -> None:
    """Store the page's new and changed norms, mark every one of them seen, and queue the
    detail pages of the new and changed ones."""
    rewrite = payload.get("mode") == "full"
    norms = [_listed(item, config) for item in page.items]
    said = [(item.fields.get("url") or "", f"norm {item.native_id}: {note}")
            for item in page.items for note in item.notes[:2]]
    for subject, message in said[:listed.MAX_PROBLEMS_PER_REQUEST]:
        await h.problem(ctx, "harvest", subject, message)
    if len(said) > listed.MAX_PROBLEMS_PER_REQUEST:
        hidden = len(said) - listed.MAX_PROBLEMS_PER_REQUEST
        await h.problem(ctx, "harvest", url, f"{hidden:,} more bad fields of norms in this "
                        "page (not recorded one by one)")
    batch = h.config.batch
    for start in range(0, len(norms), batch):
        chunk = norms[start:start + batch]
        chunk_items = page.items[start:start + batch]
        problems = await h.db(_store, h, ctx, config, chunk, chunk_items, seen_at, rewrite)
        for subject, message in problems[:listed.MAX_PROBLEMS_PER_REQUEST]:
            await h.problem(ctx, "harvest", subject, message)


def _listed(item: Item, config: PortalConfig) -> ListedNorm:
    marker = item.marker if config.detail is None else PENDING_DETAIL + item.marker
    return ListedNorm(item.native_id, dict(item.fields), marker, list(item.files))


def _store(conn: Connection, h: RunningHarvest, ctx: SourceContext, config: PortalConfig,
           norms: list[ListedNorm], items: list[Item], seen_at: datetime,
           rewrite: bool) -> list[tuple[str, str]]:
    ids = [n.native_id for n in norms]
    known = dict(conn.execute(select(listed_norm.c.native_id, listed_norm.c.marker).where(
        listed_norm.c.source_id == ctx.id, listed_norm.c.native_id.in_(ids))).all())
    if config.detail is not None:
        # A norm whose detail page was read keeps its marker: only new and changed norms
        # are written from the listing, and their detail pages asked for.
        fresh = [(n, i) for n, i in zip(norms, items, strict=True)
                 if rewrite or known.get(n.native_id) != i.marker]
        norms = [n for n, _ in fresh]
        details = [_detail_request(ctx, i) for _, i in fresh]
        frontier.enqueue(conn, [d for d in details if d is not None])
    written = listed.write_listed(conn, h, ctx, norms, seen_at, rewrite)
    # Seen now, written or not: the end of a complete listing removes the others.
    for start in range(0, len(ids), 500):
        conn.execute(update(record).where(
            record.c.source_id == ctx.id, record.c.native_id.in_(ids[start:start + 500]),
            record.c.removed_at.is_(None), record.c.last_seen_at < seen_at)
            .values(last_seen_at=seen_at))
    return written.problems


def _detail_request(ctx: SourceContext, item: Item) -> dict | None:
    if item.detail_url is None:
        return None
    payload = {"native_id": item.native_id, "values": item.values, "marker": item.marker,
               "fields": {k: v.isoformat() if hasattr(v, "isoformat") else v
                          for k, v in item.fields.items()},
               "files": item.files}
    return chain(ctx, DETAIL, item.detail_url, payload, priority=PRIORITY[DETAIL])


async def _detail(h: RunningHarvest, ctx: SourceContext, req: frontier.Request,
                  config: PortalConfig) -> None:
    """A norm's detail page: its fields fill and correct the listing's, its links add files."""
    detail = config.detail
    fetched = await h.get(ctx, req.url)
    if fetched.status == 404:
        await h.problem(ctx, "harvest", req.url, "detail page not found (HTTP 404): the "
                        "norm keeps what its listing said")
        await h.db(lambda conn: frontier.complete(conn, [req.id]))
        return
    if fetched.status != 200:
        raise status_error(req.url, fetched.status, fetched.headers, fetched.body)
    root = parse_page(detail.format, fetched.body, req.url,
                      fetched.headers.get("content-type", ""))[0]
    payload = req.payload
    item = read_item(config, root, fetched.url or req.url, detail.fields, detail.documents,
                     {**payload["values"], "native_id": payload["native_id"]})
    fields = dict(payload["fields"])
    if fields.get("date"):
        fields["date"] = datetime.fromisoformat(fields["date"]).date()
    files = [tuple(f) for f in payload["files"]]
    if item is not None:
        for key, value in item.fields.items():
            if value is not None and (key != "url" or "url" in detail.fields):
                fields[key] = value
        files += [f for f in item.files if f not in files]
    norm = ListedNorm(payload["native_id"], fields, payload["marker"], files)
    seen_at = utcnow()

    def write(conn: Connection) -> None:
        listed.write_listed(conn, h, ctx, [norm], seen_at, True)
        frontier.complete(conn, [req.id])

    await h.db(write)
