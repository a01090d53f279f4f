"""The persistent frontier: every request still to make, per host, with its earliest time.

A request leaves the frontier in the same transaction that stores what it brought, so a
harvest killed at any point resumes from exactly what is left. Functions take a Connection
so a handler can write its results and complete its request atomically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from ..store import utcnow
from ..store.harvest_schema import harvest_host, harvest_request
from ..store.schema import record, source

PENDING = "pending"
FAILED = "failed"
FILE = "file"
# Lower runs first on a host: a platform's chain (its steps give their own priority, 5 when
# they do not) before the files it reveals.
STEP_PRIORITY = 5
FILE_PRIORITY = 8


def aware(moment: datetime | None) -> datetime | None:
    """SQLite hands timestamps back without their UTC offset."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


@dataclass
class Request:
    id: int
    source_id: int
    host: str
    kind: str
    url: str
    payload: dict = field(default_factory=dict)
    attempts: int = 0
    not_before: datetime | None = None
    last_error: str | None = None


def insert_ignoring_duplicates(conn: Connection, table, rows: Sequence[dict]) -> None:
    """INSERT … ON CONFLICT DO NOTHING on either backend."""
    if not rows:
        return
    if conn.dialect.name == "postgresql":
        key = list(table.primary_key.columns)[0]
        # RETURNING makes SQLAlchemy send multi-row VALUES batches (insertmanyvalues,
        # compiled once) where psycopg 3 would otherwise run one statement per row.
        conn.execute(postgresql.insert(table).on_conflict_do_nothing().returning(key),
                     list(rows))
    else:
        conn.execute(sqlite.insert(table).on_conflict_do_nothing(), list(rows))


def enqueue(conn: Connection, items: Iterable[dict], not_before: datetime | None = None) -> int:
    """Add requests (source_id, host, kind, url, payload, optionally priority); one already
    pending is left as it is."""
    now = utcnow()
    rows = [{"source_id": i["source_id"], "host": i["host"], "kind": i["kind"], "url": i["url"],
             "payload": json.dumps(i.get("payload") or {}, ensure_ascii=False),
             "priority": _priority(i), "state": PENDING,
             "not_before": i.get("not_before") or not_before or now, "attempts": 0,
             "created_at": now} for i in items]
    insert_ignoring_duplicates(conn, harvest_request, rows)
    return len(rows)


def _priority(item: dict) -> int:
    if item.get("priority") is not None:
        return item["priority"]
    return FILE_PRIORITY if item["kind"] == FILE else STEP_PRIORITY


def load(conn: Connection, host: str, limit: int = 200, files: bool = True,
         source_ids: Sequence[int] | None = None,
         claimant: str | None = None) -> list[Request]:
    """The next pending requests of a host (of these sources), in the order they should run.

    With a claimant, only while that process holds the host's claim (claims.py): nothing for
    a process that lost it.
    """
    query = select(harvest_request).where(harvest_request.c.host == host,
                                          harvest_request.c.state == PENDING)
    if claimant is not None:
        query = query.where(select(harvest_host.c.host).where(
            harvest_host.c.host == host, harvest_host.c.claimed_by == claimant).exists())
    if source_ids is not None:
        query = query.where(harvest_request.c.source_id.in_(list(source_ids)))
    if not files:
        query = query.where(harvest_request.c.kind != FILE)
    rows = conn.execute(
        query.order_by(harvest_request.c.priority, harvest_request.c.not_before,
                  harvest_request.c.id)
        .limit(limit)
    ).mappings()
    return [Request(r["id"], r["source_id"], r["host"], r["kind"], r["url"],
                    json.loads(r["payload"] or "{}"), r["attempts"], r["not_before"],
                    r["last_error"])
            for r in rows]


def complete(conn: Connection, request_ids: Sequence[int]) -> None:
    if request_ids:
        conn.execute(delete(harvest_request).where(harvest_request.c.id.in_(list(request_ids))))


def reschedule(conn: Connection, request_id: int, not_before: datetime, attempts: int,
               error: str) -> None:
    conn.execute(update(harvest_request).where(harvest_request.c.id == request_id)
                 .values(not_before=not_before, attempts=attempts, last_error=error[:2000]))


def give_up(conn: Connection, request_id: int, attempts: int, error: str) -> None:
    """Failed for good in this cycle: kept (visible in `sources list`), retried next cycle."""
    conn.execute(update(harvest_request).where(harvest_request.c.id == request_id)
                 .values(state=FAILED, attempts=attempts, last_error=error[:2000]))


def refuse_host(conn: Connection, host: str, source_ids: Sequence[int], error: str) -> int:
    """Every pending request to a host we will not talk to fails at once, without retries."""
    return conn.execute(
        update(harvest_request)
        .where(harvest_request.c.host == host, harvest_request.c.state == PENDING,
               harvest_request.c.source_id.in_(list(source_ids)))
        .values(state=FAILED, last_error=error[:2000])
    ).rowcount


def retry_failed(conn: Connection, source_id: int) -> int:
    """A new cycle gives the files that failed in the last one another chance.

    A failed step of the metadata chain is dropped: the new cycle starts the chain over.
    """
    conn.execute(delete(harvest_request).where(
        harvest_request.c.source_id == source_id, harvest_request.c.state == FAILED,
        harvest_request.c.kind != FILE))
    return conn.execute(
        update(harvest_request)
        .where(harvest_request.c.source_id == source_id, harvest_request.c.state == FAILED)
        .values(state=PENDING, attempts=0, not_before=utcnow())
    ).rowcount


def has_pending_chain(conn: Connection, source_id: int) -> bool:
    """Whether a metadata request (anything but a file) of the source is still to run."""
    return conn.scalar(
        select(func.count()).select_from(harvest_request)
        .where(harvest_request.c.source_id == source_id, harvest_request.c.kind != FILE,
               harvest_request.c.state == PENDING)
    ) > 0


def pending_hosts(conn: Connection, source_ids: Sequence[int]) -> list[str]:
    return list(conn.scalars(
        select(harvest_request.c.host).distinct()
        .where(harvest_request.c.source_id.in_(list(source_ids)),
               harvest_request.c.state == PENDING)
        .order_by(harvest_request.c.host)
    ))


# -- hosts ----------------------------------------------------------------------------------


def get_host(conn: Connection, host: str) -> dict | None:
    row = conn.execute(select(harvest_host).where(harvest_host.c.host == host)).mappings().first()
    return dict(row) if row else None


def save_host(conn: Connection, host: str, **values) -> None:
    if conn.execute(update(harvest_host).where(harvest_host.c.host == host)
                    .values(**values)).rowcount == 0:
        conn.execute(harvest_host.insert(), {"host": host, "failures": 0, **values})


# -- what `sources list` shows ----------------------------------------------------------------


def source_health(conn: Connection) -> dict[int, dict]:
    """Per source: norms, removed norms, pending and failed requests, next request, parked hosts."""
    health: dict[int, dict] = {}
    for sid in conn.scalars(select(source.c.id)):
        health[sid] = {"norms": 0, "removed": 0, "pending": 0, "failed": 0, "files_pending": 0,
                       "next_request_at": None, "parked_until": None, "hosts": []}
    for sid, total, removed in conn.execute(
        select(record.c.source_id, func.count(), func.count(record.c.removed_at))
        .group_by(record.c.source_id)
    ):
        health[sid].update(norms=total, removed=removed)
    for sid, state, kind, count, earliest in conn.execute(
        select(harvest_request.c.source_id, harvest_request.c.state, harvest_request.c.kind,
               func.count(), func.min(harvest_request.c.not_before))
        .group_by(harvest_request.c.source_id, harvest_request.c.state, harvest_request.c.kind)
    ):
        entry = health[sid]
        entry[state] = entry.get(state, 0) + count
        if state == PENDING:
            if kind == FILE:
                entry["files_pending"] += count
            if entry["next_request_at"] is None or earliest < entry["next_request_at"]:
                entry["next_request_at"] = earliest
    hosts = {r["host"]: dict(r) for r in conn.execute(
        select(harvest_host.c.host, harvest_host.c.parked_until, harvest_host.c.last_error,
               harvest_host.c.crawl_delay)
    ).mappings()}
    for sid, host in conn.execute(select(harvest_request.c.source_id,
                                         harvest_request.c.host).distinct()):
        info = hosts.get(host)
        parked = aware(info["parked_until"] if info else None)
        if parked and parked > utcnow():
            health[sid]["parked_until"] = parked
            health[sid]["hosts"].append(host)
    return health


def hosts_table(conn: Connection) -> dict[str, dict]:
    return {r["host"]: dict(r) for r in conn.execute(select(harvest_host)).mappings()}


__all__ = ["Request", "enqueue", "load", "complete", "reschedule", "give_up", "refuse_host",
           "retry_failed",
           "has_pending_chain", "pending_hosts", "get_host", "save_host", "source_health",
           "insert_ignoring_duplicates"]
