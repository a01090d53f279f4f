"""Rolling revalidation: every stored file is asked for again, conditionally, every D days.

Publishers replace files in place under the same URL (SAPL's storage overwrites an anexo and
nothing else changes), so a file's URL says nothing about its bytes. Like a web archive, each
cycle re-asks a share of a source's files with a conditional GET (ETag / Last-Modified), the
ones confirmed longest ago first: enough that every file is confirmed at least every
`revalidate_days` (30 by default; 0 turns the rolling part off), spread evenly over the
cycles in between. `harvest --full` asks for every file, unconditionally. A changed file
becomes a new version (files.py); the old one stays.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from ..store.schema import document, record, version
from . import frontier
from .net import host_key

DEFAULT_DAYS = 30.0


def due_files(conn: Connection, source_id: int, now: datetime, *, days: float,
              interval: float, everything: bool = False) -> list[tuple[int, str]]:
    """(document id, url) of the files of a source to revalidate in the cycle starting now.

    The oldest-confirmed first: those that would pass `days` before the next cycle, and at
    least the share a cycle must take (files × interval / period) so that the work spreads
    over the period instead of falling due on one day.
    """
    confirmed = func.coalesce(document.c.checked_at, version.c.fetched_at)
    query = (
        select(document.c.id, document.c.url, confirmed.label("confirmed"))
        .join(record, record.c.id == document.c.record_id)
        .join(version, version.c.id == document.c.current_version_id)
        .where(record.c.source_id == source_id, record.c.removed_at.is_(None),
               document.c.removed_at.is_(None), document.c.url.like("http%"),
               # a part of a file (`#char=`: an act's span of a gazette) is its platform's
               ~document.c.url.contains("#"))
        .order_by(confirmed, document.c.id)
    )
    if days <= 0 and not everything:
        return []
    found = conn.execute(query).all()
    if everything or not found:
        return [(r.id, r.url) for r in found]
    period = max(days * 86400.0, 1.0)
    share = math.ceil(len(found) * min(1.0, interval / period))
    limit = now - timedelta(seconds=max(0.0, period - interval))
    overdue = sum(1 for r in found if frontier.aware(r.confirmed) <= limit)
    return [(r.id, r.url) for r in found[:max(share, overdue)]]


def queue(conn: Connection, source_id: int, now: datetime, *, days: float, interval: float,
          everything: bool = False) -> int:
    """Queue this cycle's revalidations (file requests); returns how many were queued."""
    files = due_files(conn, source_id, now, days=days, interval=interval, everything=everything)
    requests = []
    for document_id, url in files:
        try:
            host = host_key(url)
        except ValueError:
            continue  # stored before URLs were checked; the listing reports it
        requests.append({"source_id": source_id, "host": host, "kind": frontier.FILE,
                         "url": url, "payload": {"document_id": document_id,
                                                 "unconditional": everything}})
    frontier.enqueue(conn, requests)
    return len(requests)


