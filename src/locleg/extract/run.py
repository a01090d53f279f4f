"""Run extraction over stored originals, in worker processes, and record every outcome.

Each document is extracted in a worker process with a time limit and a memory limit
(RLIMIT_AS). A worker that runs out of time is killed, one that dies is replaced; either
way its document is recorded 'failed' with the reason, and the run goes on. The parent
commits each result as it arrives, so a run that is interrupted or killed keeps everything
extracted so far, and running it again does the rest.

    >>> from locleg.extract.run import extract_versions
    >>> report = extract_versions(corpus, workers=2)
    >>> report.by_status
    {'extracted': 7, 'failed': 1}
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.sql.elements import ColumnElement

from ..corpus import Corpus
from ..store import utcnow
from ..store.schema import document, extraction, norm, record, version
from . import DEFAULT_LIMITS, ExtractionResult, Limits
from .where import parse_where
from .worker import _outcome_of, _pool, extract_stored

if TYPE_CHECKING:
    from .cluster import Cluster

# Fields of the extraction row and their widths in the schema: longer values are cut.
_WIDTHS = {"method": 16, "backend": 64, "backend_version": 64}
_PAGE_BACKEND_WIDTH = 32
_BATCH = 2000  # versions read from the database at a time
_QUEUE_PER_WORKER = 2  # documents handed to the pool ahead, per worker


@dataclass
class Outcome:
    """One document done: what the progress display and the report need."""

    version_id: int
    document_id: int
    status: str
    pages: int
    size: int
    error: str | None


@dataclass
class ExtractReport:
    documents: int = 0
    pages: int = 0
    bytes: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    failures: list[Outcome] = field(default_factory=list)  # the first 1,000
    seconds: float = 0.0


@dataclass(frozen=True)
class Plan:
    """What a run will do: how many documents and bytes; shown before it starts."""

    documents: int
    bytes: int


def record_of(result: ExtractionResult) -> tuple[dict, list[dict]]:
    """The extraction row and page rows for a result, as the store keeps them."""
    row = {
        "status": result.status,
        "method": result.method,
        "backend": result.backend,
        "backend_version": result.backend_version,
        "confidence": result.confidence,
        "pages": len(result.pages),
        "chars": result.chars,
        "error": result.error,
        "detail": result.detail,
        "duration_s": round(result.duration_s, 4),
        "extracted_at": utcnow(),
    }
    for key, width in _WIDTHS.items():
        if row[key] and len(row[key]) > width:
            row[key] = row[key][: width - 1] + "…"
    pages = [
        {"number": p.number, "method": p.method, "confidence": p.confidence, "text": p.text,
         "backend": (p.backend or "")[:_PAGE_BACKEND_WIDTH] or None, "chars": p.chars,
         "dpi": p.dpi, "detail": p.detail}
        for p in result.pages
    ]
    return row, pages


# --- selection --------------------------------------------------------------------------------


def _selection(statuses: Sequence[str] | None, jurisdiction_code: int | None,
               where: ColumnElement | None):
    query = (
        select(version.c.id, version.c.sha256, version.c.media_type, version.c.size,
               document.c.id.label("document_id"))
        .join(document, document.c.current_version_id == version.c.id)
        .join(record, record.c.id == document.c.record_id)
        .join(extraction, extraction.c.version_id == version.c.id)
    )
    if statuses is not None:
        query = query.where(extraction.c.status.in_(statuses))
    if jurisdiction_code is not None:
        query = query.where(record.c.jurisdiction_code == jurisdiction_code)
    if where is not None:
        query = query.where(where)
    return query


def plan(corpus: Corpus, statuses: Sequence[str] | None = ("pending",),
         jurisdiction_code: int | None = None, where: str | ColumnElement | None = None) -> Plan:
    """How many current versions a run with these filters would extract, and their bytes."""
    query = _selection(statuses, jurisdiction_code, _where(where)).subquery()
    with corpus.store.engine.connect() as conn:
        count, size = conn.execute(
            select(func.count(), func.coalesce(func.sum(query.c.size), 0))
        ).one()
    return Plan(int(count), int(size))


def _where(where: str | ColumnElement | None) -> ColumnElement | None:
    return parse_where(where) if isinstance(where, str) else where


def _batches(corpus: Corpus, statuses: Sequence[str] | None, jurisdiction_code: int | None,
             where: ColumnElement | None) -> Iterator[list[dict]]:
    """Selected versions in batches by id (memory stays flat over millions); the largest of
    each batch first, so a run does not end on one worker grinding a long scan alone."""
    after = 0
    while True:
        query = (_selection(statuses, jurisdiction_code, where)
                 .where(version.c.id > after).order_by(version.c.id).limit(_BATCH))
        with corpus.store.engine.connect() as conn:
            rows = [dict(r) for r in conn.execute(query).mappings()]
        if not rows:
            return
        after = rows[-1]["id"]
        yield sorted(rows, key=lambda r: -r["size"])


def default_workers() -> int:
    """One worker per core this process may use: OCR is one thread per process."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def extract_versions(
    corpus: Corpus,
    statuses: Sequence[str] | None = ("pending",),
    jurisdiction_code: int | None = None,
    on_progress: Callable[[Outcome], None] | None = None,
    on_planned: Callable[[Plan], None] | None = None,
    *,
    where: str | ColumnElement | None = None,
    workers: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
    ocr: str = "auto",
    cluster: Cluster | str | None = None,
) -> ExtractReport:
    """Extract the current versions selected; each result is committed as soon as it arrives.

    statuses None selects every status (a forced run); where is a --where expression. With
    workers=0 documents run in this process, without time or memory limits (for debugging).
    cluster, a Dask scheduler's address or a connected cluster.Cluster, runs the
    documents on that cluster's workers instead (workers is then ignored).
    """
    where_clause = _where(where)
    if on_planned:
        on_planned(plan(corpus, statuses, jurisdiction_code, where_clause))
    report = ExtractReport()
    started = time.monotonic()
    batches = _batches(corpus, statuses, jurisdiction_code, where_clause)
    todo = (item for batch in batches for item in batch)
    root = str(corpus.blobs.root)

    def finish(item: dict, result: ExtractionResult, problem: bool) -> None:
        record, page_rows = record_of(result)
        corpus.store.save_extraction(item["id"], record, page_rows)
        if problem or result.detail == "original unreadable":
            corpus.store.record_problem("extract", item["sha256"], result.error or "")
        outcome = Outcome(item["id"], item["document_id"], result.status, len(page_rows),
                          item["size"], result.error)
        report.documents += 1
        report.pages += outcome.pages
        report.bytes += outcome.size
        report.by_status[outcome.status] = report.by_status.get(outcome.status, 0) + 1
        if outcome.status == "failed" and len(report.failures) < 1000:
            report.failures.append(outcome)
        if on_progress:
            on_progress(outcome)

    try:
        if cluster is not None:
            from .cluster import run_on_cluster

            run_on_cluster(cluster, todo, root, ocr, limits, finish)
        elif workers == 0:
            for item in todo:
                result = extract_stored(root, item["sha256"], item["media_type"], item["size"],
                                        ocr, limits)
                finish(item, result, False)
        else:
            _run_pool(todo, workers or default_workers(), root, ocr, limits, finish)
    finally:
        report.seconds = time.monotonic() - started
    return report


def _run_pool(todo: Iterator[dict], workers: int, root: str, ocr: str, limits: Limits,
              finish: Callable[[dict, ExtractionResult, bool], None]) -> None:
    pool = _pool(workers, limits)
    in_flight: dict[Future, dict] = {}

    def submit() -> bool:
        item = next(todo, None)
        if item is None:
            return False
        future = pool.schedule(
            extract_stored,
            args=(root, item["sha256"], item["media_type"], item["size"], ocr, limits),
            timeout=limits.time_s,
        )
        in_flight[future] = item
        return True

    try:
        for _ in range(workers * _QUEUE_PER_WORKER):
            if not submit():
                break
        while in_flight:
            done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
            for future in done:
                item = in_flight.pop(future)
                result, problem = _outcome_of(future, limits)
                finish(item, result, problem)
                submit()
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM) or the database failed: kill the workers now; what
        # was committed stays, what was in flight stays pending for the next run.
        pool.stop()
        pool.join(timeout=10)
        raise
    pool.close()
    pool.join()


# --- reading an extraction back ---------------------------------------------------------------


def document_extraction(corpus: Corpus, ident: str) -> dict:
    """A document, its current version and extraction record and its pages, for `locleg show`.

    ident is a document id, or the sha256 (or its first 8+ characters) of a stored version.
    """
    from ..errors import UserError
    from ..store.schema import jurisdiction, page

    ident = ident.strip().lower()
    columns = (
        document.c.id.label("document_id"), document.c.role, document.c.title,
        document.c.url, norm.c.id.label("norm_id"), norm.c.type_raw, norm.c.number,
        norm.c.year, norm.c.date, norm.c.ementa, jurisdiction.c.name.label("jurisdiction"),
        jurisdiction.c.uf, version.c.id.label("version_id"), version.c.sha256,
        version.c.media_type, version.c.size, version.c.fetched_at,
        *[c.label(f"x_{c.name}") for c in extraction.c if c.name != "version_id"],
    )
    query = (
        select(*columns)
        .select_from(document)
        .join(record, record.c.id == document.c.record_id)
        .join(norm, norm.c.id == record.c.norm_id)
        .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
        .outerjoin(version, version.c.document_id == document.c.id)
        .outerjoin(extraction, extraction.c.version_id == version.c.id)
    )
    if ident.isdigit():
        query = query.where(document.c.id == int(ident)).where(
            (version.c.id == document.c.current_version_id) | version.c.id.is_(None))
    elif len(ident) >= 8 and all(c in "0123456789abcdef" for c in ident):
        query = query.where(version.c.sha256.like(ident + "%")).order_by(version.c.id.desc())
    else:
        raise UserError(f"not a document id or sha256: {ident!r} (e.g. `locleg show 12`)")
    with corpus.store.engine.connect() as conn:
        rows = conn.execute(query.limit(2)).mappings().all()
        if not rows:
            raise UserError(f"no document {ident}")
        if len(rows) > 1 and not ident.isdigit() and rows[0]["sha256"] != rows[1]["sha256"]:
            raise UserError(f"{ident!r} matches more than one original: give more characters")
        row = dict(rows[0])
        pages = []
        if row["version_id"] is not None:
            pages = [dict(r) for r in conn.execute(
                select(page).where(page.c.version_id == row["version_id"])
                .order_by(page.c.number)).mappings()]
    found = {k[2:]: row.pop(k) for k in list(row) if k.startswith("x_")}
    return {**row, "extraction": found if found.get("status") else None,
            "pages": [{k: v for k, v in p.items() if k != "version_id"} for p in pages]}
