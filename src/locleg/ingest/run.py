"""Import local files (a LAI dump, a folder of PDFs) as records of norms, with their documents.

The input is read twice: a validation pass (dump.plan) that rejects a bad manifest before
anything is written, then the import itself in batches of one transaction each, so a killed
import leaves whole batches and a re-run skips what is already stored.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..corpus import Corpus
from ..extract import sniff_media_type
from ..lifeline import end_with
from ..originals import open_blobs
from ..originals.local import BlobStore
from ..store import utcnow
from .dump import Entry, RefusedFile, open_in_dump, plan, storable_path

PLATFORM = "folder"
BATCH = 1000


@dataclass
class ImportReport:
    files: int = 0
    bytes: int = 0
    record_ids: set[int] = field(default_factory=set)
    new_versions: int = 0
    unchanged: int = 0
    removed: int = 0
    sources: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unnumbered: list[str] = field(default_factory=list)  # imported as "s/n", and recorded

    @property
    def records(self) -> int:
        return len(self.record_ids)


# -- writing -------------------------------------------------------------------------------


def import_path(
    corpus: Corpus,
    target: Path,
    jurisdiction: int | str | None = None,
    *,
    batch_size: int = BATCH,
    on_progress: Callable[[int], None] | None = None,
    on_planned: Callable[[int], None] | None = None,
) -> ImportReport:
    """Import a folder or a manifest; safe to re-run, and to kill at any point."""
    store = corpus.store
    target = target.expanduser().resolve()
    planned = plan(store, target, jurisdiction)
    if on_planned:
        on_planned(planned.count)
    base_url = target.as_uri()
    run_started = utcnow()
    report = ImportReport()
    sources: dict[int, int] = {}
    batch: list[Entry] = []
    # Norms of several rows already written by this run: a later batch only fills them in.
    written: set[tuple[int, str]] = set()

    def source_of(code: int) -> int:
        if code not in sources:
            sources[code] = store.ensure_source(code, PLATFORM, base_url)
        return sources[code]

    if planned.skipped:
        source_id = source_of(planned.jurisdiction_code)
        for relative, why in planned.skipped:
            message = f"skipped {relative}: {why}"
            report.problems.append(message)
            store.record_problem("import", storable_path(os.path.join(planned.root, relative)),
                                 message, source_id)
    for relative in planned.unnumbered:
        message = (f"{relative}: its name gives no number (names like Lei1167-2014.pdf do, "
                   "or use a manifest): imported as a norm without number (s/n)")
        report.unnumbered.append(relative)
        store.record_problem("import", relative, message, source_of(planned.jurisdiction_code))
    # A second process copies the files of the next batch while this one commits the rows
    # of the last: the two cores work at once, with no GIL between them.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver"),
                             initializer=_init_copier,
                             initargs=(str(corpus.blobs.root), os.getpid())
                             ) as copier:
        in_flight: tuple[list[Entry], Future] | None = None

        def commit_previous() -> None:
            if in_flight is None:
                return
            done, copying = in_flight
            files = _record_failures(corpus, sources, done, copying.result(), report)
            repeated = {(e.jurisdiction_code, e.native_id) for e in done} & planned.repeated
            _write_rows(corpus, sources, done, files, run_started, report, written & repeated)
            written.update(repeated)
            if on_progress:
                on_progress(len(done))

        for entry in planned.entries():
            source_of(entry.jurisdiction_code)
            batch.append(entry)
            if len(batch) >= batch_size:
                copying = copier.submit(_copy_files, planned.root, [e.path for e in batch])
                commit_previous()
                in_flight = (batch, copying)
                batch = []
        if batch:
            copying = copier.submit(_copy_files, planned.root, [e.path for e in batch])
            commit_previous()
            in_flight = (batch, copying)
        commit_previous()
    # The whole input was read: what it no longer holds has left the source.
    for source_id in sources.values():
        report.removed += store.mark_removed(source_id, run_started)
        store.record_run(source_id, run_started,
                         f"{len(report.problems)} files skipped or unreadable"
                         if report.problems else None)
    report.sources = sorted(sources.values())
    return report


_copier_blobs: BlobStore | None = None  # or the fsspec store that open_blobs gives


def _init_copier(root: str, command_pid: int) -> None:
    global _copier_blobs
    end_with(command_pid)
    _copier_blobs = open_blobs(root)


def _copy_files(root: str, paths: list[str]) -> list[dict | str]:
    """In the copier process: each file into the originals, then flushed to disk.

    Per file its facts, or the reason it could not be read. Files are opened again through
    no link: one swapped for a link since validation is refused, not followed. An object
    store is bound by round trips, so its files go a few at once (each thread holds one).
    """
    writers = getattr(_copier_blobs, "parallel_writes", 1)
    if writers > 1:
        with ThreadPoolExecutor(writers) as pool:
            results = list(pool.map(lambda path: _copy_file(root, path), paths))
    else:
        results = [_copy_file(root, path) for path in paths]
    # Originals reach the disk before the rows that name them are committed.
    _copier_blobs.sync()
    return results


def _copy_file(root: str, path: str) -> dict | str:
    try:
        with os.fdopen(open_in_dump(root, path), "rb") as f:
            data = f.read()
    except RefusedFile as e:
        return str(e)
    except OSError as e:
        return f"cannot read {storable_path(os.path.relpath(path, root))}: {e.strerror or e}"
    digest = hashlib.sha256(data).hexdigest()
    _copier_blobs.put(data, digest)
    return {"sha256": digest, "size": len(data), "media_type": sniff_media_type(data)}


def _record_failures(corpus: Corpus, sources: dict[int, int], batch: list[Entry],
                     copied: list[dict | str], report: ImportReport) -> dict[int, dict]:
    """Index in batch -> file facts; files that could not be read become problems."""
    files: dict[int, dict] = {}
    for i, (entry, result) in enumerate(zip(batch, copied, strict=True)):
        if isinstance(result, str):
            report.problems.append(result)
            corpus.store.record_problem("import", entry.origin, result,
                                        sources[entry.jurisdiction_code])
        else:
            files[i] = result
    return files


def _write_rows(corpus: Corpus, sources: dict[int, int], batch: list[Entry],
                files: dict[int, dict], seen_at: datetime, report: ImportReport,
                written: set[tuple[int, str]]) -> None:
    """A batch's records, documents and new versions, in one transaction.

    WRITTEN: records an earlier batch of this run wrote; this one only fills their empty fields.
    """
    store = corpus.store
    by_source: dict[int, dict[str, dict]] = {}
    for entry in batch:
        rows = by_source.setdefault(sources[entry.jurisdiction_code], {})
        row = entry.record_row()
        if entry.native_id in rows:
            # Rows of one record (texto integral, anexos) agree (the plan checked): merge them.
            merged = rows[entry.native_id]
            merged.update({k: v for k, v in row.items() if merged.get(k) is None})
        else:
            rows[entry.native_id] = row
    with store.transaction() as conn:
        record_ids: dict[tuple[int, str], int] = {}
        for source_id, rows in by_source.items():
            fill_only = {native_id for code, native_id in written
                         if sources[code] == source_id}
            upserted = store.upsert_records(conn, source_id, list(rows.values()), seen_at,
                                            fill_only=fill_only)
            for native_id, record_id in upserted.items():
                record_ids[(source_id, native_id)] = record_id
        doc_rows = [
            {"record_id": record_ids[(sources[e.jurisdiction_code], e.native_id)],
             "url": e.document_url, "role": e.role, "title": e.title}
            for e in batch
        ]
        documents = store.ensure_documents(conn, doc_rows)
        new_versions, claimed = [], set()
        for i, (entry, doc) in enumerate(zip(batch, doc_rows, strict=True)):
            if i not in files:
                continue
            stored = documents[(doc["record_id"], doc["url"])]
            key = (stored["id"], files[i]["sha256"])
            report.files += 1
            report.bytes += files[i]["size"]
            if stored["current_sha256"] == files[i]["sha256"] or key in claimed:
                report.unchanged += 1
                continue
            claimed.add(key)
            new_versions.append({"document_id": stored["id"], **files[i],
                                 "fetched_at": seen_at, "origin": entry.origin})
        store.add_versions(conn, new_versions)
        report.new_versions += len(new_versions)
        report.record_ids.update(record_ids.values())

