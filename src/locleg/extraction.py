"""Run extraction over stored originals and record the result of each, failures included."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .blobs import BlobError
from .corpus import Corpus
from .extract import ExtractionResult, extract
from .store import utcnow


@dataclass
class ExtractReport:
    documents: int = 0
    pages: int = 0
    by_status: dict[str, int] = field(default_factory=dict)


def record_of(result: ExtractionResult) -> tuple[dict, list[dict]]:
    """The extraction row and page rows for a result, as the store keeps them."""
    record = {
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
    pages = [
        {"number": p.number, "method": p.method, "confidence": p.confidence, "text": p.text}
        for p in result.pages
    ]
    return record, pages


def extract_versions(
    corpus: Corpus,
    statuses: Sequence[str] = ("pending",),
    jurisdiction_code: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_planned: Callable[[int], None] | None = None,
) -> ExtractReport:
    """Extract every current version in the given statuses; each result is committed alone."""
    todo = corpus.store.versions_to_extract(statuses, jurisdiction_code)
    if on_planned:
        on_planned(len(todo))
    report = ExtractReport()
    for item in todo:
        try:
            data = corpus.blobs.read(item["sha256"])
        except BlobError as e:
            # The original is gone or damaged: say so on the record, keep everything else.
            record = {"status": "failed", "error": str(e), "extracted_at": utcnow()}
            corpus.store.save_extraction(item["id"], record, [])
            corpus.store.record_problem("extract", item["sha256"], str(e))
            status, pages = "failed", 0
        else:
            record, page_rows = record_of(extract(data, item["media_type"]))
            corpus.store.save_extraction(item["id"], record, page_rows)
            status, pages = record["status"], record["pages"]
        report.documents += 1
        report.pages += pages
        report.by_status[status] = report.by_status.get(status, 0) + 1
        if on_progress:
            on_progress(1, pages)
    return report
