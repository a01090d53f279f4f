"""The norms a platform lists, stored the same way for every platform.

A platform reads a listing (SAPL's norm API, OAI-PMH records, a portal's pages), turns each
item into a `platform.ListedNorm` and hands batches to `write_listed`, which writes only what
is new or changed, keeps one document per listed file and queues the files to fetch. The
`listed_norm` table remembers what each norm looked like when last listed (its marker and
files): that is how a daily cycle of an unchanged publisher costs no writes.

Removals are the platform's word, never a guess: `close_listing` (or `close_seen` for a
listing written page by page) after a listing known to be complete, `remove` for items the
publisher says it deleted. A partial, cut-short or suspicious listing removes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from ..store.harvest_schema import listed_norm
from ..store.schema import document, record
from . import frontier, rows
from .net import host_key
from .platform import ListedNorm

if TYPE_CHECKING:
    from .platform import RunningHarvest, SourceContext

MAX_PROBLEMS_PER_REQUEST = 20  # bad items recorded one by one; the rest only counted


@dataclass
class Written:
    """What a batch of listed norms did to the corpus."""

    listed: int = 0
    written: int = 0  # new or changed norms stored
    problems: list[tuple[str, str]] = field(default_factory=list)  # (subject, message)


def files_json(files: list[tuple[str, str]]) -> str:
    """A norm's listed files as listed_norm.files keeps them: [[url, role], ...]."""
    return json.dumps([[url, role] for url, role in files])


def _files(text: str | None) -> list[tuple[str, str]]:
    return [(url, role) for url, role in json.loads(text)] if text else []


def write_listed(conn: Connection, h: RunningHarvest, ctx: SourceContext, batch: list[ListedNorm],
                 seen_at: datetime, rewrite: bool) -> Written:
    """Store the new and changed norms of a batch, a document per listed file, and queue files.

    A norm changed when its marker or its files did, or it had been marked removed; with
    `rewrite`, every norm of the batch is written (and so seen now). A file a changed norm no
    longer lists leaves the source (its document is marked removed); every file of a changed
    norm is asked for again, conditionally, and so is any listed file never fetched.
    """
    by_native = {n.native_id: n for n in batch}  # a norm twice (paging drift): last wins
    known = {r.native_id: r for r in conn.execute(
        select(listed_norm.c.native_id, listed_norm.c.marker, listed_norm.c.files,
               listed_norm.c.record_id, record.c.removed_at)
        .join(record, record.c.id == listed_norm.c.record_id)
        .where(listed_norm.c.source_id == ctx.id,
               listed_norm.c.native_id.in_(list(by_native)))
    )}
    old_files = {k: _files(r.files) for k, r in known.items()}
    new_files = {k: [(url, role) for url, role in n.files] for k, n in by_native.items()}

    def differs(native_id: str) -> bool:
        old = known[native_id]
        return old.removed_at is not None or old.marker != by_native[native_id].marker \
            or old_files[native_id] != new_files[native_id]

    changed = [n for n in by_native.values()
               if rewrite or n.native_id not in known or differs(n.native_id)]
    done = Written(listed=len(by_native), written=len(changed))
    if not changed:
        return done
    ids = h.store.upsert_records(
        conn, ctx.id, [{"jurisdiction_code": ctx.jurisdiction_code, **n.fields,
                        "native_id": n.native_id} for n in changed], seen_at)
    new_state, changed_state, revisit, gone = [], [], [], []
    for n in changed:
        record_id = ids[n.native_id]
        files = files_json(new_files[n.native_id])
        if n.native_id not in known:
            new_state.append({"source_id": ctx.id, "native_id": n.native_id,
                              "record_id": record_id, "marker": n.marker, "files": files})
            continue
        if differs(n.native_id):
            changed_state.append({"b_native": n.native_id, "b_marker": n.marker,
                                  "b_files": files})
            revisit.append(record_id)
        listed_now = {url for url, _ in new_files[n.native_id]}
        # A file the norm no longer names (another one, or none): it left the source.
        gone += [(record_id, url) for url, _ in old_files[n.native_id] if url not in listed_now]
    for record_id, url in gone:
        conn.execute(update(document).where(
            document.c.record_id == record_id, document.c.url == url,
            document.c.removed_at.is_(None)).values(removed_at=seen_at))
    if new_state:
        insert = listed_norm.insert()
        if conn.dialect.name == "postgresql":  # multi-row VALUES batches (insertmanyvalues)
            insert = insert.returning(listed_norm.c.native_id)
        conn.execute(insert, new_state)
    if changed_state:
        conn.execute(update(listed_norm).where(listed_norm.c.source_id == ctx.id,
                                               listed_norm.c.native_id == bindparam("b_native"))
                     .values(marker=bindparam("b_marker"), files=bindparam("b_files")),
                     changed_state)
    docs = [{"record_id": ids[n.native_id], "url": url, "role": role}
            for n in changed for url, role in new_files[n.native_id]]
    stored = h.store.ensure_documents(conn, docs) if docs else {}
    wanted = [file_request(ctx, d["url"], stored[(d["record_id"], d["url"])]["id"])
              for d in docs if stored[(d["record_id"], d["url"])]["current_version_id"] is None]
    wanted += _files_of(conn, ctx, revisit)
    queue_files(conn, h, wanted)
    return done


def queue_files(conn: Connection, h: RunningHarvest, requests: list[dict]) -> None:
    """Queue file requests (one per URL) and wake their hosts' workers."""
    wanted = list({w["url"]: w for w in requests}.values())
    frontier.enqueue(conn, wanted)
    if wanted:
        h.wake({w["host"] for w in wanted})


def _files_of(conn: Connection, ctx: SourceContext, record_ids: list[int]) -> list[dict]:
    """File requests for every stored document of these records (their listing changed).
    A document whose URL has a fragment is a part of a file (an act's span of a gazette,
    `#char=`): its platform stores it, the engine never fetches it whole."""
    if not record_ids:
        return []
    found = conn.execute(
        select(document.c.id, document.c.url)
        .where(document.c.record_id.in_(record_ids), document.c.removed_at.is_(None),
               document.c.url.like("http%"), ~document.c.url.contains("#"))
    ).all()
    return [file_request(ctx, d.url, d.id) for d in found]


def close_listing(conn: Connection, h: RunningHarvest, ctx: SourceContext, listed: set[str],
                  seen_at: datetime) -> int:
    """After a COMPLETE listing (these native ids): the source's norms it no longer holds are
    marked removed, never deleted; the rest were seen now. Returns how many were removed
    (the caller tells `h.count(ctx, "removed", n)` once the transaction is done)."""
    current = conn.execute(
        select(listed_norm.c.native_id, listed_norm.c.record_id)
        .join(record, record.c.id == listed_norm.c.record_id)
        .where(listed_norm.c.source_id == ctx.id, record.c.removed_at.is_(None))
    ).all()
    gone = [r.record_id for r in current if r.native_id not in listed]
    h.store.remove_records(conn, gone, seen_at)
    conn.execute(update(record).where(record.c.source_id == ctx.id,
                                      record.c.removed_at.is_(None),
                                      record.c.last_seen_at < seen_at)
                 .values(last_seen_at=seen_at))
    return len(gone)


def close_seen(conn: Connection, h: RunningHarvest, ctx: SourceContext,
               seen_since: datetime) -> int:
    """After a COMPLETE listing written over several requests (pages), every page with
    `rewrite` so that each listed norm was seen: those not seen since it began are marked
    removed. Returns how many."""
    return h.store.remove_unseen(conn, ctx.id, seen_since)


def remove(conn: Connection, h: RunningHarvest, ctx: SourceContext,
           native_ids: list[str] | set[str], seen_at: datetime) -> int:
    """Norms the publisher says it deleted (OAI-PMH status="deleted"): marked removed, never
    deleted. Returns how many were not removed already."""
    ids = list(native_ids)
    gone: list[int] = []
    for start in range(0, len(ids), 1000):
        gone += conn.scalars(
            select(listed_norm.c.record_id)
            .join(record, record.c.id == listed_norm.c.record_id)
            .where(listed_norm.c.source_id == ctx.id,
                   listed_norm.c.native_id.in_(ids[start:start + 1000]),
                   record.c.removed_at.is_(None)))
    return h.store.remove_records(conn, gone, seen_at)


def record_ids(conn: Connection, source_id: int) -> dict[str, int]:
    """The source's native norm ids -> the corpus's records of them."""
    return dict(conn.execute(select(listed_norm.c.native_id, listed_norm.c.record_id)
                             .where(listed_norm.c.source_id == source_id)).all())


def file_request(ctx: SourceContext, url: str, document_id: int) -> dict:
    """The frontier entry that fetches a document's file (engine.py does the rest)."""
    return {"source_id": ctx.id, "host": host_key(url), "kind": frontier.FILE, "url": url,
            "payload": {"document_id": document_id}}


def chain(ctx: SourceContext, kind: str, url: str, payload: dict, *,
          priority: int | None = None) -> dict:
    """The frontier entry of a step of a platform's cycle. Lower `priority` runs first on a
    host (files are 8, the default 5); payload["closes_cycle"] marks the step that ends the
    cycle, so that the engine closes it (incomplete) should that step fail for good."""
    item = {"source_id": ctx.id, "host": host_key(url), "kind": kind, "url": url,
            "payload": payload}
    if priority is not None:
        item["priority"] = priority
    return item


def replace(conn: Connection, req: frontier.Request, following: list[dict]) -> None:
    """Queue what follows a request and complete it, in the caller's transaction."""
    frontier.enqueue(conn, following)
    frontier.complete(conn, [req.id])


class Listing:
    """One listing request's norms: added one by one, written in batches of `h.config.batch`
    (call `write()` when `len(batch)` reaches it, and at the end), bad items noted, at most
    MAX_PROBLEMS_PER_REQUEST of them one by one (`record_notes()` writes them down)."""

    def __init__(self, h: RunningHarvest, ctx: SourceContext, url: str, seen_at: datetime,
                 rewrite: bool) -> None:
        self.h, self.ctx, self.url = h, ctx, url
        self.seen_at, self.rewrite = seen_at, rewrite
        self.native_ids: set[str] = set()
        self.batch: list[ListedNorm] = []
        self.done = Written()
        self.bad = 0

    def add(self, norm: ListedNorm) -> None:
        self.native_ids.add(norm.native_id)
        self.batch.append(norm)

    def note(self, subject: str, message: str) -> None:
        self.bad += 1
        if len(self.done.problems) < MAX_PROBLEMS_PER_REQUEST:
            self.done.problems.append((subject, message))

    async def write(self) -> None:
        """Store the batch; a batch the database refuses is written norm by norm, so one bad
        norm costs only itself."""
        batch, self.batch = self.batch, []
        if not batch:
            return
        try:
            self._add(await self.h.db(self._write, batch))
        except (SQLAlchemyError, ValueError, OverflowError):
            for norm in batch:
                try:
                    self._add(await self.h.db(self._write, [norm]))
                except (SQLAlchemyError, ValueError, OverflowError) as e:
                    self.note(norm.fields.get("url") or self.url,
                              f"norm {norm.native_id} could not be stored: "
                              f"{type(e).__name__}: {str(e).splitlines()[0][:300]}")

    def _add(self, written: Written) -> None:
        self.done.listed += written.listed
        self.done.written += written.written
        for subject, message in written.problems:
            self.note(subject, message)

    def _write(self, conn: Connection, batch: list[ListedNorm]) -> Written:
        return write_listed(conn, self.h, self.ctx, batch, self.seen_at, self.rewrite)

    async def record_notes(self) -> None:
        for subject, message in self.done.problems:
            await self.h.problem(self.ctx, "harvest", subject, message)
        hidden = self.bad - len(self.done.problems)
        if hidden > 0:
            await self.h.problem(self.ctx, "harvest", self.url, f"{hidden:,} more bad rows or "
                                 "fields in this listing (not recorded one by one)")


def marker_of(value: Any) -> str | None:
    """A publisher's change marker as listed_norm keeps it (a string, or None)."""
    return rows.text(value, listed_norm.c.marker)
