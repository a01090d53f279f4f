"""Keeping the search index and the explorer's counts in step with the corpus.

Triggers (migrations 0006 and 0008) queue every norm whose metadata, legal status, cited-by
count, documents or extraction change.
`refresh_index(store)` indexes the queued norms in batches, then recomputes the counts of
the jurisdictions they belong to; with an empty queue it costs one indexed query.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import bindparam, delete, func, insert, select, text
from sqlalchemy.engine import Connection

from ..enrich.status import NONE_KNOWN
from ..store import Store, utcnow
from ..store.schema import document, extraction, jurisdiction, norm, page, record, version
from ..store.search_schema import search_facet, search_norm, search_place, search_queue
from .text import clean, joined_variants, norm_tags, words

BATCH = 500
# Positions beyond this are clamped by PostgreSQL; lexemes keep at most 256 positions.
_PG_MAX_POSITION = 16383
_PG_MAX_POSITIONS = 256
_PG_LOCK = 7_360_101  # advisory lock serializing refreshes on PostgreSQL
OCR_METHODS = ("ocr", "mixed")


@dataclass
class RefreshReport:
    norms: int = 0
    jurisdictions: set[int] = field(default_factory=set)
    seconds: float = 0.0


def pending_changes(store: Store) -> int:
    """How many changes wait in the queue (a norm may be queued more than once)."""
    with store.engine.connect() as conn:
        return conn.scalar(select(func.count()).select_from(search_queue)) or 0


def refresh_index(store: Store, *, batch: int = BATCH,
                  on_progress: Callable[[int, int], None] | None = None) -> RefreshReport:
    """Index every queued norm, then recompute the counts of the jurisdictions touched.

    Safe while others write: only the queue rows read are removed, so a change committed
    meanwhile stays queued for the next refresh. Call it at the end of any command that
    writes norms, documents, versions or extractions.
    """
    import time

    started = time.monotonic()
    report = RefreshReport()
    total = pending_changes(store)
    if total == 0:
        return report
    while True:
        with store.engine.begin() as conn:
            _lock(conn)
            queued = conn.execute(
                select(search_queue.c.id, search_queue.c.norm_id)
                .order_by(search_queue.c.id).limit(batch * 4)
            ).all()
            if not queued:
                break
            norm_ids: list[int] = []
            queue_ids: list[int] = []
            for queue_id, norm_id in queued:
                if norm_id not in norm_ids:
                    if len(norm_ids) >= batch:
                        break
                    norm_ids.append(norm_id)
                queue_ids.append(queue_id)
            report.jurisdictions |= _index_norms(store, conn, norm_ids)
            conn.execute(delete(search_queue).where(search_queue.c.id.in_(queue_ids)))
        report.norms += len(norm_ids)
        if on_progress:
            on_progress(report.norms, total)
    if report.jurisdictions:
        with store.engine.begin() as conn:
            _lock(conn)
            recompute_counts(conn, report.jurisdictions)
    report.seconds = time.monotonic() - started
    return report


def rebuild_index(store: Store, *, batch: int = 2000,
                  on_progress: Callable[[int, int], None] | None = None) -> RefreshReport:
    """Drop the whole index and build it again from the corpus (after a bulk load)."""
    with store.engine.begin() as conn:
        _lock(conn)
        for table in (search_queue, search_facet, search_place, search_norm):
            conn.execute(delete(table))
        conn.exec_driver_sql("DELETE FROM search_fts")
        conn.execute(insert(search_queue).from_select(
            ["norm_id"], select(norm.c.id).where(norm.c.merged_into.is_(None))))
    report = refresh_index(store, batch=batch, on_progress=on_progress)
    if store.dialect == "sqlite":
        with store.engine.begin() as conn:
            # One b-tree instead of hundreds of segments: much faster queries afterwards.
            conn.exec_driver_sql("INSERT INTO search_fts (search_fts) VALUES ('optimize')")
    return report


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK})


def day_of(signed: date | None, year: int | None) -> int:
    """The sort key of a norm's date: yyyymmdd, yyyy0000 when only the year is known, else 0."""
    if signed is not None:
        return signed.year * 10000 + signed.month * 100 + signed.day
    return (year or 0) * 10000


# -- indexing one batch ---------------------------------------------------------------------


def _index_norms(store: Store, conn: Connection, norm_ids: Sequence[int]) -> set[int]:
    """(Re)write the index entries of these norms; returns the jurisdictions touched."""
    touched = set(conn.scalars(
        select(search_norm.c.jurisdiction_code).where(search_norm.c.norm_id.in_(norm_ids))
    ))
    norms = conn.execute(
        select(norm.c.id, norm.c.jurisdiction_code, jurisdiction.c.uf, norm.c.type_normalized,
               norm.c.year, norm.c.date, norm.c.ementa, norm.c.number_key, norm.c.status,
               norm.c.cited_by)
        .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
        .where(norm.c.id.in_(norm_ids), norm.c.merged_into.is_(None))
    ).all()
    # A norm's documents are its records'; one original held by two sources counts once.
    docs = conn.execute(
        select(record.c.norm_id, document.c.current_version_id, extraction.c.status,
               extraction.c.method, extraction.c.confidence, version.c.sha256)
        .select_from(document)
        .join(record, record.c.id == document.c.record_id)
        .outerjoin(version, version.c.id == document.c.current_version_id)
        .outerjoin(extraction, extraction.c.version_id == document.c.current_version_id)
        .where(record.c.norm_id.in_(norm_ids), document.c.removed_at.is_(None))
        .order_by(record.c.norm_id, document.c.id)
    ).all()
    version_ids = [d.current_version_id for d in docs if d.current_version_id is not None]
    texts: dict[int, list[str]] = defaultdict(list)
    if version_ids:
        for version_id, page_text in conn.execute(
            select(page.c.version_id, page.c.text)
            .where(page.c.version_id.in_(version_ids))
            .order_by(page.c.version_id, page.c.number)
        ):
            texts[version_id].append(page_text)
    docs_of: dict[int, list] = defaultdict(list)
    digests: set[tuple[int, str]] = set()
    for d in docs:
        if d.sha256 is not None:
            if (d.norm_id, d.sha256) in digests:
                continue
            digests.add((d.norm_id, d.sha256))
        docs_of[d.norm_id].append(d)

    now = utcnow()
    rows, fts_rows = [], []
    for n in norms:
        bodies, methods, confidences, pages = [], set(), [], 0
        for d in docs_of[n.id]:
            doc_pages = texts.get(d.current_version_id, [])
            body = "\n\n".join(p for p in doc_pages if p.strip())
            if body.strip():
                bodies.append(body)
                pages += sum(1 for p in doc_pages if p.strip())
                if d.method:
                    methods.add(d.method)
                # A text layer or HTML has no confidence: it is as good as text gets.
                confidences.append(d.confidence if d.confidence is not None else 1.0)
        body = clean("\n\n".join(bodies))
        ementa = clean(n.ementa)
        has_text = bool(body.strip())
        confidence = min(confidences) if confidences else None
        rows.append({
            "norm_id": n.id, "jurisdiction_code": n.jurisdiction_code, "uf": n.uf,
            "type": n.type_normalized or "none", "year": n.year,
            "day": day_of(n.date, n.year), "methods": " ".join(sorted(methods)),
            "has_text": has_text, "confidence": confidence,
            "documents": len(docs_of[n.id]), "pages": pages, "indexed_at": now,
            "status": n.status or NONE_KNOWN, "cited_by": n.cited_by or 0,
        })
        tags = norm_tags(n.uf, n.jurisdiction_code, n.type_normalized, n.year, sorted(methods),
                         has_text, confidence, n.number_key, n.status)
        extra = joined_variants(ementa + "\n" + body)
        fts_rows.append((n.id, ementa, body, extra, tags))
        touched.add(n.jurisdiction_code)

    conn.execute(delete(search_norm).where(search_norm.c.norm_id.in_(norm_ids)))
    if conn.dialect.name == "sqlite":
        conn.execute(text("DELETE FROM search_fts WHERE rowid IN :ids")
                     .bindparams(bindparam("ids", expanding=True)), {"ids": list(norm_ids)})
        if fts_rows:
            conn.execute(
                text("INSERT INTO search_fts (rowid, ementa, body, extra, tags) "
                     "VALUES (:id, :ementa, :body, :extra, :tags)"),
                [{"id": i, "ementa": e, "body": b, "extra": " ".join(x), "tags": " ".join(t)}
                 for i, e, b, x, t in fts_rows],
            )
    else:
        conn.execute(text("DELETE FROM search_fts WHERE norm_id IN :ids")
                     .bindparams(bindparam("ids", expanding=True)), {"ids": list(norm_ids)})
        if fts_rows:
            conn.execute(
                text("INSERT INTO search_fts (norm_id, ementa, body, tsv) "
                     "VALUES (:id, :ementa, :body, CAST(:tsv AS tsvector))"),
                [{"id": i, "ementa": e, "body": b, "tsv": tsvector_literal(e, b, x, t)}
                 for i, e, b, x, t in fts_rows],
            )
    if rows:
        conn.execute(insert(search_norm), rows)
    return touched


def tsvector_literal(ementa: str, body: str, extra: Iterable[str], tags: Iterable[str]) -> str:
    """A tsvector written out (lexeme:positions+weight), so PostgreSQL's parser never re-splits
    our words: ementa weighs A, text B, joined compounds C, filter tags D."""
    positions: dict[str, list[str]] = {}
    position = 0
    for weight, part in (("A", words(ementa)), ("B", words(body)), ("C", list(extra))):
        for word in part:
            position = min(position + 1, _PG_MAX_POSITION)
            kept = positions.setdefault(word, [])
            if len(kept) < _PG_MAX_POSITIONS and (not kept or kept[-1] != f"{position}{weight}"):
                kept.append(f"{position}{weight}")
    for tag in tags:
        positions.setdefault(tag, []).append(f"{_PG_MAX_POSITION}D")
    return " ".join(
        "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "':" + ",".join(p)
        for lexeme, p in positions.items()
    )


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
