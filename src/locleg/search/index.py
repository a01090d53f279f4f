"""Keeping the search index and the explorer's counts in step with the corpus.

Triggers (migrations 0006 and 0008) queue every norm whose metadata, legal status, cited-by
count, documents or extraction change. `refresh_index(store)` takes the queued norms in
batches, writes them into the Tantivy index (search/textindex.py) and, once Tantivy has
committed them, records them in `search_norm` and removes exactly the queue rows it read,
then recomputes the counts of the jurisdictions they belong to. A crash at any point leaves
the queue rows of what Tantivy did not commit, so nothing is ever lost; a batch committed
twice is written twice, harmlessly. With an empty queue a refresh costs one indexed query.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import delete, exists, func, insert, select, text
from sqlalchemy.engine import Connection

from ..enrich.status import NONE_KNOWN
from ..store import Store, utcnow
from ..store.db import queue_batch
from ..store.schema import document, extraction, jurisdiction, norm, record
from ..store.search_schema import search_facet, search_norm, search_place, search_queue
from . import dense, textindex
from .normtext import norm_texts
from .text import clean, heading_of, joined_variants

BATCH = 500
# Tantivy commits (and fsyncs) once per this many norms: a commit costs tens of ms.
COMMIT_EVERY = 5_000
_PG_LOCK = 7_360_101  # advisory lock serializing the count updates on PostgreSQL
OCR_METHODS = ("ocr", "mixed")


@dataclass
class RefreshReport:
    norms: int = 0
    jurisdictions: set[int] = field(default_factory=set)
    seconds: float = 0.0
    dense: dense.FillReport | None = None  # the dense stage's part, when it is on


def pending_changes(store: Store) -> int:
    """How many changes wait in the queue (a norm may be queued more than once)."""
    with store.reading() as conn:
        return conn.scalar(select(func.count()).select_from(search_queue)) or 0


def refresh_index(store: Store, *, batch: int = BATCH, commit_every: int = COMMIT_EVERY,
                  on_progress: Callable[[int, int], None] | None = None,
                  heap: int = textindex.HEAP, threads: int = 1,
                  dense_seconds: float | None = dense.FILL_SECONDS) -> RefreshReport:
    """Index every queued norm, then recompute the counts of the jurisdictions touched;
    with the dense stage on, embed norms without vectors for up to `dense_seconds` (None:
    all of them; search/dense.py).

    Safe while others write: only the queue rows read are removed, so a change committed
    meanwhile stays queued for the next refresh; two refreshes of one corpus take turns
    (Tantivy's writer lock). Call it at the end of any command that writes norms, documents,
    versions or extractions.
    """
    started = time.monotonic()
    report = RefreshReport()
    index = textindex.for_store(store, writable=True)
    if index.fresh:
        _queue_all_if_lost(store)
    dense_on = dense.enabled(store)
    if pending_changes(store) == 0:
        if dense_on:
            report.dense = dense.fill(store, dense_seconds)
        return report
    writer = index.writer(heap, threads)
    try:
        total = pending_changes(store)  # read again: another refresh may have emptied it
        last_read = 0
        held: list[tuple[list[int], list[dict]]] = []  # (queue ids, search_norm rows)
        held_norms = 0
        passages: dict[int, tuple[int, str]] = {}  # of the norms held, for the dense stage
        while True:
            with store.engine.connect() as conn:
                queued = conn.execute(
                    select(search_queue.c.id, search_queue.c.norm_id)
                    .where(search_queue.c.id > last_read)
                    .order_by(search_queue.c.id).limit(batch * 4)
                ).all()
                if not queued:
                    break
                norm_ids, queue_ids = queue_batch(queued, batch)
                last_read = queue_ids[-1]
                entries, rows = _entries(conn, norm_ids)
            textindex.write(writer, norm_ids, entries)
            if dense_on:
                passages.update((e.norm_id, (e.jurisdiction_code, dense.passage(e.ementa, e.body)))
                                for e in entries)
            held.append((queue_ids, rows, norm_ids))
            held_norms += len(norm_ids)
            report.norms += len(norm_ids)
            if held_norms >= commit_every:
                if dense_on:
                    _forget_stale(store, held, passages)
                report.jurisdictions |= _commit(store, writer, held)
                held, held_norms, passages = [], 0, {}
            if on_progress:
                on_progress(report.norms, total)
        if held:
            if dense_on:
                _forget_stale(store, held, passages)
            report.jurisdictions |= _commit(store, writer, held)
    except BaseException:
        writer.rollback()
        raise
    finally:
        del writer  # releases Tantivy's lock
    if report.jurisdictions:
        with store.engine.begin() as conn:
            _lock(conn)
            recompute_counts(conn, report.jurisdictions)
    if dense_on:
        report.dense = dense.fill(store, dense_seconds)
    elif report.norms:
        dense.drop(store)  # vectors kept while off would go stale unseen
    report.seconds = time.monotonic() - started
    return report


def _forget_stale(store: Store, held: list, passages: dict[int, tuple[int, str]]) -> None:
    """The dense stage's vectors of the held norms whose embedded text changed go before
    anything is committed: a crash after leaves their queue rows (they are indexed again)
    and at worst a vector dropped that `fill` embeds again, never a stale one kept."""
    dense.forget_changed(store, [i for _, _, ids in held for i in ids], passages)


def _commit(store: Store, writer, held: list) -> set[int]:
    """Tantivy first, then the database: the queue rows go only once the index holds them."""
    writer.commit()
    touched: set[int] = set()
    with store.engine.begin() as conn:
        _lock(conn)
        for queue_ids, rows, norm_ids in held:
            touched |= set(conn.scalars(select(search_norm.c.jurisdiction_code)
                                        .where(search_norm.c.norm_id.in_(norm_ids))))
            conn.execute(delete(search_norm).where(search_norm.c.norm_id.in_(norm_ids)))
            if rows:
                conn.execute(insert(search_norm), rows)
            touched |= {r["jurisdiction_code"] for r in rows}
            conn.execute(delete(search_queue).where(search_queue.c.id.in_(queue_ids)))
    return touched


def _queue_all_if_lost(store: Store) -> None:
    """An empty index beside norms the database believes indexed (a new machine, a removed
    or outdated index folder): queue every live norm again."""
    with store.engine.begin() as conn:
        if conn.scalar(select(exists().where(search_norm.c.norm_id.is_not(None)))):
            conn.execute(delete(search_queue))
            conn.execute(insert(search_queue).from_select(
                ["norm_id"], select(norm.c.id).where(norm.c.merged_into.is_(None))))


def rebuild_index(store: Store, *, batch: int = 2000,
                  on_progress: Callable[[int, int], None] | None = None) -> RefreshReport:
    """Drop the whole index and build it again from the corpus (after a bulk load)."""
    index = textindex.for_store(store, writable=True)
    writer = index.writer()
    writer.delete_all_documents()
    writer.commit()
    del writer
    with store.engine.begin() as conn:
        _lock(conn)
        for table in (search_queue, search_facet, search_place, search_norm):
            conn.execute(delete(table))
        conn.execute(insert(search_queue).from_select(
            ["norm_id"], select(norm.c.id).where(norm.c.merged_into.is_(None))))
    # Both cores and a large heap: a bulk build writes few, large segments.
    report = refresh_index(store, batch=batch, commit_every=100_000, on_progress=on_progress,
                           heap=1_000_000_000, threads=2)
    writer = index.writer()
    writer.wait_merging_threads()
    return report


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})


def day_of(signed: date | None, year: int | None) -> int:
    """The sort key of a norm's date: yyyymmdd, yyyy0000 when only the year is known, else 0."""
    if signed is not None:
        return signed.year * 10000 + signed.month * 100 + signed.day
    return (year or 0) * 10000


# -- what the index holds of a batch of norms ------------------------------------------------


def _entries(conn: Connection, norm_ids: Sequence[int]
             ) -> tuple[list[textindex.Entry], list[dict]]:
    """The index entries and search_norm rows of these norms (merged norms have neither)."""
    norms = conn.execute(
        select(norm.c.id, norm.c.jurisdiction_code, jurisdiction.c.uf, norm.c.type_normalized,
               norm.c.year, norm.c.date, norm.c.ementa, norm.c.number_key, norm.c.status,
               norm.c.cited_by)
        .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
        .where(norm.c.id.in_(norm_ids), norm.c.merged_into.is_(None))
    ).all()
    texts = norm_texts(conn, [n.id for n in norms])
    now = utcnow()
    entries, rows = [], []
    for n in norms:
        docs, body = texts[n.id].documents, texts[n.id].body
        methods, confidences, pages = set(), [], 0
        for d, doc_pages in zip(docs, texts[n.id].pages, strict=True):
            if doc_pages:
                pages += len(doc_pages)
                if d.method:
                    methods.add(d.method)
                # A text layer or HTML has no confidence: it is as good as text gets.
                confidences.append(d.confidence if d.confidence is not None else 1.0)
        ementa = clean(n.ementa)
        has_text = bool(body.strip())
        confidence = min(confidences) if confidences else None
        day = day_of(_as_date(n.date), n.year)
        status = n.status or NONE_KNOWN
        rows.append({
            "norm_id": n.id, "jurisdiction_code": n.jurisdiction_code, "uf": n.uf,
            "type": n.type_normalized or "none", "year": n.year, "day": day,
            "methods": " ".join(sorted(methods)), "has_text": has_text,
            "confidence": confidence, "documents": len(docs), "pages": pages,
            "indexed_at": now, "status": status, "cited_by": n.cited_by or 0,
        })
        entries.append(textindex.Entry(
            norm_id=n.id, jurisdiction_code=n.jurisdiction_code, uf=n.uf,
            type=n.type_normalized or "none", year=n.year, day=day, methods=sorted(methods),
            has_text=has_text, confidence=confidence, number_key=n.number_key, status=status,
            cited_by=n.cited_by or 0, ementa=ementa, heading=heading_of(body), body=body,
            extra=joined_variants(ementa + "\n" + body)))
    return entries, rows


def _as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


# -- counts per jurisdiction, UF and corpus --------------------------------------------------


def recompute_counts(conn: Connection, codes: Iterable[int]) -> None:
    """The precomputed counts of these jurisdictions, and the sums of their UFs and corpus."""
    codes = sorted(set(codes))
    now = utcnow()
    ufs: set[str] = set()
    for start in range(0, len(codes), 500):
        chunk = codes[start:start + 500]
        ufs |= _recompute_places(conn, chunk, now)
    if ufs:
        conn.execute(delete(search_facet).where(
            search_facet.c.scope.in_([f"uf:{uf}" for uf in ufs])))
        for uf in sorted(ufs):
            sums = conn.execute(
                select(search_facet.c.facet, search_facet.c.value,
                       func.sum(search_facet.c.count))
                .where(search_facet.c.uf == uf, search_facet.c.scope.like("j:%"))
                .group_by(search_facet.c.facet, search_facet.c.value)
            ).all()
            if sums:
                conn.execute(insert(search_facet), [
                    {"scope": f"uf:{uf}", "facet": f, "value": v, "uf": uf, "count": int(c)}
                    for f, v, c in sums])
        conn.execute(delete(search_facet).where(search_facet.c.scope == "all"))
        sums = conn.execute(
            select(search_facet.c.facet, search_facet.c.value, func.sum(search_facet.c.count))
            .where(search_facet.c.scope.like("uf:%"))
            .group_by(search_facet.c.facet, search_facet.c.value)
        ).all()
        if sums:
            conn.execute(insert(search_facet), [
                {"scope": "all", "facet": f, "value": v, "uf": "", "count": int(c)}
                for f, v, c in sums])


def _recompute_places(conn: Connection, codes: list[int], now) -> set[str]:
    ufs = dict(conn.execute(
        select(jurisdiction.c.ibge_code, jurisdiction.c.uf)
        .where(jurisdiction.c.ibge_code.in_(codes))
    ).all())
    places: dict[int, dict] = {}

    def place(code: int) -> dict:
        return places.setdefault(code, {
            "jurisdiction_code": code, "uf": ufs[code], "norms": 0, "removed": 0,
            "with_text": 0, "documents": 0, "fetched": 0, "pending": 0, "extracted": 0,
            "empty": 0, "failed": 0, "pages": 0, "newest_day": 0, "updated_at": now})

    for code, count, removed in conn.execute(
        select(norm.c.jurisdiction_code, func.count(), func.count(norm.c.removed_at))
        .where(norm.c.jurisdiction_code.in_(codes), norm.c.merged_into.is_(None))
        .group_by(norm.c.jurisdiction_code)
    ):
        place(code).update(norms=int(count), removed=int(removed))
    for code, status, documents, fetched, pages in conn.execute(
        select(record.c.jurisdiction_code, extraction.c.status, func.count(document.c.id),
               func.count(document.c.current_version_id), func.sum(extraction.c.pages))
        .select_from(document)
        .join(record, record.c.id == document.c.record_id)
        .outerjoin(extraction, extraction.c.version_id == document.c.current_version_id)
        .where(record.c.jurisdiction_code.in_(codes))
        .group_by(record.c.jurisdiction_code, extraction.c.status)
    ):
        p = place(code)
        p["documents"] += int(documents)
        p["fetched"] += int(fetched)
        if status in ("pending", "extracted", "empty", "failed"):
            p[status] += int(documents)
        p["pages"] += int(pages or 0)

    facets: dict[int, Counter] = defaultdict(Counter)
    for code, type_, year, methods, has_text, status, count in conn.execute(
        select(search_norm.c.jurisdiction_code, search_norm.c.type, search_norm.c.year,
               search_norm.c.methods, search_norm.c.has_text, search_norm.c.status,
               func.count())
        .where(search_norm.c.jurisdiction_code.in_(codes))
        .group_by(search_norm.c.jurisdiction_code, search_norm.c.type, search_norm.c.year,
                  search_norm.c.methods, search_norm.c.has_text, search_norm.c.status)
    ):
        count = int(count)
        f = facets[code]
        f[("type", type_)] += count
        f[("year", str(year) if year else "none")] += count
        for method in methods.split() or ["none"]:
            f[("method", method)] += count
        f[("text", "yes" if has_text else "no")] += count
        f[("status", status)] += count
        if has_text:
            place(code)["with_text"] += count
    for code, newest in conn.execute(
        select(search_norm.c.jurisdiction_code, func.max(search_norm.c.day))
        .where(search_norm.c.jurisdiction_code.in_(codes))
        .group_by(search_norm.c.jurisdiction_code)
    ):
        place(code)["newest_day"] = int(newest or 0)
    for code, confidence in conn.execute(
        select(record.c.jurisdiction_code, extraction.c.confidence)
        .select_from(document)
        .join(record, record.c.id == document.c.record_id)
        .join(extraction, extraction.c.version_id == document.c.current_version_id)
        .where(record.c.jurisdiction_code.in_(codes), extraction.c.method.in_(OCR_METHODS),
               extraction.c.confidence.is_not(None))
    ):
        facets[code][("ocr_confidence", str(min(int(confidence * 10), 9)))] += 1

    conn.execute(delete(search_place).where(search_place.c.jurisdiction_code.in_(codes)))
    conn.execute(delete(search_facet).where(
        search_facet.c.scope.in_([f"j:{c}" for c in codes])))
    kept = [p for p in places.values() if p["norms"]]
    if kept:
        conn.execute(insert(search_place), kept)
    facet_rows = [
        {"scope": f"j:{code}", "facet": facet, "value": value, "uf": ufs[code], "count": n}
        for code, counter in facets.items() for (facet, value), n in counter.items()
    ]
    if facet_rows:
        conn.execute(insert(search_facet), facet_rows)
    return set(ufs.values())
