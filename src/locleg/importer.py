"""Import local files (a LAI dump, a folder of PDFs) as norms and documents.

The input is read twice: a validation pass that rejects a bad manifest before anything is
written, then the import itself in batches of one transaction each, so a killed import
leaves whole batches and a re-run skips what is already stored.
"""

from __future__ import annotations

import csv
import hashlib
import multiprocessing
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from .blobs import BlobStore
from .corpus import Corpus
from .enrich.types import normalize_type
from .errors import ManifestError, UserError
from .extract import sniff_media_type
from .jurisdictions import fold
from .store import Store, utcnow

PLATFORM = "folder"
TEXTO_INTEGRAL = "texto_integral"
ANEXO = "anexo"
REQUIRED_COLUMNS = ("file", "type", "number", "year")
OPTIONAL_COLUMNS = ("date", "ementa", "native_id", "url", "norm_url", "role", "title",
                    "jurisdiction")
MAX_ERRORS_SHOWN = 10
BATCH = 1000

# Lei1167-2014.pdf, LEI_1167_2014.pdf, decreto nº 45-A de 2013.pdf, LC-12-2009.pdf
_FILE_NAME = re.compile(
    r"^(?P<type>[A-Za-zÀ-ÿ_ .]*?)[ _.-]*(?:n[º°o]?[ _.]*)?"
    r"(?P<number>\d[\d.]*(?:-?[A-Za-z])?)[ _-]+(?:de[ _-]+)?(?P<year>(?:1[89]|20)\d\d)$",
    re.IGNORECASE,
)
_TYPE_ABBREVIATIONS = {"lc": "Lei Complementar", "lo": "Lei Ordinária", "dl": "Decreto Legislativo"}
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_BR_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_ROLES = {"texto integral": TEXTO_INTEGRAL, "texto_integral": TEXTO_INTEGRAL, "": TEXTO_INTEGRAL,
          "anexo": ANEXO}


@dataclass
class Entry:
    """One file to import and the norm it belongs to."""

    path: str  # absolute; a plain string because pathlib costs more than the read itself
    relative: str
    jurisdiction_code: int
    native_id: str
    type_raw: str | None = None
    number: str | None = None
    year: int | None = None
    date: date | None = None
    ementa: str | None = None
    url: str | None = None
    norm_url: str | None = None
    role: str = TEXTO_INTEGRAL
    title: str | None = None
    line: int | None = None


@dataclass
class ImportReport:
    files: int = 0
    bytes: int = 0
    norm_ids: set[int] = field(default_factory=set)
    new_versions: int = 0
    unchanged: int = 0
    removed: int = 0
    sources: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def norms(self) -> int:
        return len(self.norm_ids)


def parse_date(text: str) -> date:
    """YYYY-MM-DD or DD/MM/YYYY; ValueError for anything else, impossible days included."""
    match = _BR_DATE.fullmatch(text)
    if match:
        return date(int(match[3]), int(match[2]), int(match[1]))
    if _ISO_DATE.fullmatch(text):
        return date.fromisoformat(text)
    raise ValueError(text)


def infer_from_file_name(name: str) -> tuple[str | None, str | None, int | None]:
    """(type, number, year) from names like Lei1167-2014.pdf; Nones where it cannot tell."""
    match = _FILE_NAME.match(Path(name).stem.strip())
    if not match:
        return None, None, None
    raw_type = match["type"].replace("_", " ").strip(" .-") or None
    if raw_type and raw_type.casefold() in _TYPE_ABBREVIATIONS:
        raw_type = _TYPE_ABBREVIATIONS[raw_type.casefold()]
    elif raw_type:
        raw_type = raw_type.title() if raw_type.isupper() or raw_type.islower() else raw_type
    number = match["number"].replace(".", "").upper()
    return raw_type, number, int(match["year"])


def default_native_id(type_raw: str | None, number: str | None, year: int | None,
                      relative: str) -> str:
    """A stable id when the input names none: type, number and year, else the file path."""
    if number and year:
        return f"{fold(type_raw or '').replace(' ', '-')}:{number}/{year}"
    return relative


# -- reading the input ---------------------------------------------------------------------


def _manifest_rows(manifest: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        handle = manifest.open(newline="", encoding="utf-8-sig")
    except OSError as e:
        raise UserError(f"cannot read {manifest}: {e.strerror}") from None
    with handle:
        reader = csv.DictReader(handle)
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise ManifestError(
                f"{manifest.name}: missing column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(c) for c in missing)} (the header needs "
                f"{', '.join(REQUIRED_COLUMNS)}; optional: {', '.join(OPTIONAL_COLUMNS)})"
            )
        unknown = [h for h in header if h not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
        if unknown:
            raise ManifestError(
                f"{manifest.name}: unknown column{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(c) for c in unknown)} (known: "
                f"{', '.join(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)})"
            )
        reader.fieldnames = header
        try:
            for row in reader:
                yield reader.line_num, {k: (v or "").strip() for k, v in row.items() if k}
        except (csv.Error, UnicodeDecodeError) as e:
            raise ManifestError(f"{manifest.name} line {reader.line_num}: {e}") from None


def _entry_from_row(manifest: Path, line: int, row: dict[str, str],
                    jurisdiction_code: int | None, known_codes: set[int]) -> Entry:
    """One manifest row as an Entry; ValueError with a readable reason when it is bad."""
    where = f"{manifest.name} line {line}"
    if not row.get("file"):
        raise ValueError(f"{where}: empty 'file'")
    base = str(manifest.parent)
    path = os.path.normpath(os.path.join(base, row["file"]))
    # A manifest from elsewhere must not pull /etc/passwd into a public corpus.
    if not path.startswith(base + os.sep):
        raise ValueError(f"{where}: {row['file']} is outside the manifest's folder")
    if not os.path.isfile(path):
        raise ValueError(f"{where}: file not found: {row['file']}")
    code = jurisdiction_code
    if row.get("jurisdiction"):
        try:
            code = int(row["jurisdiction"])
        except ValueError:
            raise ValueError(
                f"{where}: jurisdiction {row['jurisdiction']!r} is not an IBGE code"
            ) from None
    if code is None:
        raise ValueError(
            f"{where}: no jurisdiction (give --jurisdiction or a 'jurisdiction' column)"
        )
    if code not in known_codes:
        raise ValueError(f"{where}: unknown IBGE code {code}")
    year = None
    if row.get("year"):
        if not re.fullmatch(r"\d{4}", row["year"]):
            raise ValueError(f"{where}: bad year {row['year']!r} (four digits, e.g. 2011)")
        year = int(row["year"])
    when = None
    if row.get("date"):
        try:
            when = parse_date(row["date"])
        except ValueError:
            raise ValueError(
                f"{where}: bad date {row['date']!r} (use YYYY-MM-DD or DD/MM/YYYY)"
            ) from None
    role = _ROLES.get(row.get("role", "").casefold())
    if role is None:
        raise ValueError(f"{where}: unknown role {row['role']!r} (texto integral or anexo)")
    number = row.get("number") or None
    if number and len(number) > 32:
        raise ValueError(f"{where}: number {number!r} is longer than 32 characters")
    relative = row["file"]
    return Entry(
        path=path,
        relative=relative,
        jurisdiction_code=code,
        native_id=row.get("native_id") or default_native_id(row.get("type"), number, year,
                                                             relative),
        type_raw=row.get("type") or None,
        number=number,
        year=year,
        date=when,
        ementa=row.get("ementa") or None,
        url=row.get("url") or None,
        norm_url=row.get("norm_url") or None,
        role=role,
        title=row.get("title") or None,
        line=line,
    )


def _folder_entries(folder: Path, jurisdiction_code: int) -> Iterator[Entry]:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        type_raw, number, year = infer_from_file_name(path.name)
        yield Entry(path=str(path), relative=relative, jurisdiction_code=jurisdiction_code,
                    native_id=relative, type_raw=type_raw, number=number, year=year)


def plan(store: Store, target: Path, jurisdiction: int | str | None) -> tuple[int, Callable]:
    """Validate the whole input; (number of files, a function that yields the entries again)."""
    target = target.expanduser().resolve()
    if not target.exists():
        raise UserError(f"{target} does not exist")
    code = store.require_jurisdiction(jurisdiction)["ibge_code"] if jurisdiction else None
    if target.is_dir():
        if code is None:
            raise UserError("importing a folder needs --jurisdiction IBGE_CODE")
        count = sum(1 for _ in _folder_entries(target, code))
        return count, lambda: _folder_entries(target, code)
    if target.suffix.lower() != ".csv":
        raise UserError(f"{target.name}: give a folder or a manifest .csv file")
    known = {j["ibge_code"] for j in store.jurisdictions()}
    errors, count = [], 0
    for line, row in _manifest_rows(target):
        try:
            _entry_from_row(target, line, row, code, known)
            count += 1
        except ValueError as e:
            errors.append(str(e))
    if errors:
        hidden = len(errors) - MAX_ERRORS_SHOWN
        more = f" (and {hidden} more)" if hidden > 0 else ""
        shown = "\n  ".join(errors[:MAX_ERRORS_SHOWN])
        raise ManifestError(
            f"{target.name} has {len(errors)} bad row{'s' if len(errors) > 1 else ''}; "
            f"nothing was imported{more}:\n  {shown}"
        )

    def entries() -> Iterator[Entry]:
        for line, row in _manifest_rows(target):
            yield _entry_from_row(target, line, row, code, known)

    return count, entries


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
    total, entries = plan(store, target, jurisdiction)
    if on_planned:
        on_planned(total)
    base_url = target.as_uri()
    run_started = utcnow()
    report = ImportReport()
    sources: dict[int, int] = {}
    batch: list[Entry] = []
    # A second process copies the files of the next batch while this one commits the rows
    # of the last: the two cores work at once, with no GIL between them.
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver"),
                             initializer=_init_copier, initargs=(str(corpus.blobs.root),)
                             ) as copier:
        in_flight: tuple[list[Entry], Future] | None = None

        def commit_previous() -> None:
            if in_flight is None:
                return
            done, copying = in_flight
            files = _record_failures(corpus, sources, done, copying.result(), report)
            _write_rows(corpus, sources, done, files, run_started, report)
            if on_progress:
                on_progress(len(done))

        for entry in entries():
            if entry.jurisdiction_code not in sources:
                sources[entry.jurisdiction_code] = store.ensure_source(
                    entry.jurisdiction_code, PLATFORM, base_url
                )
            batch.append(entry)
            if len(batch) >= batch_size:
                copying = copier.submit(_copy_files, [e.path for e in batch])
                commit_previous()
                in_flight = (batch, copying)
                batch = []
        if batch:
            copying = copier.submit(_copy_files, [e.path for e in batch])
            commit_previous()
            in_flight = (batch, copying)
        commit_previous()
    # The whole input was read: what it no longer holds has left the source.
    for source_id in sources.values():
        report.removed += store.mark_removed(source_id, run_started)
        store.record_run(source_id, run_started,
                         f"{len(report.problems)} files unreadable" if report.problems else None)
    report.sources = sorted(sources.values())
    return report


_copier_blobs: BlobStore | None = None


def _init_copier(root: str) -> None:
    global _copier_blobs
    _copier_blobs = BlobStore(Path(root))


def _copy_files(paths: list[str]) -> list[dict | str]:
    """In the copier process: each file into the originals, then flushed to disk.

    Per file its facts, or the reason it could not be read.
    """
    results: list[dict | str] = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            results.append(str(e.strerror or e))
            continue
        digest = hashlib.sha256(data).hexdigest()
        _copier_blobs.put(data, digest)
        results.append({"sha256": digest, "size": len(data),
                        "media_type": sniff_media_type(data)})
    # Originals reach the disk before the rows that name them are committed.
    _copier_blobs.sync()
    return results


def _record_failures(corpus: Corpus, sources: dict[int, int], batch: list[Entry],
                     copied: list[dict | str], report: ImportReport) -> dict[int, dict]:
    """Index in batch -> file facts; files that could not be read become problems."""
    files: dict[int, dict] = {}
    for i, (entry, result) in enumerate(zip(batch, copied, strict=True)):
        if isinstance(result, str):
            message = f"cannot read {entry.relative}: {result}"
            report.problems.append(message)
            corpus.store.record_problem("import", entry.path, message,
                                        sources[entry.jurisdiction_code])
        else:
            files[i] = result
    return files


def _write_rows(corpus: Corpus, sources: dict[int, int], batch: list[Entry],
                files: dict[int, dict], seen_at: datetime, report: ImportReport) -> None:
    """A batch's norms, documents and new versions, in one transaction."""
    store = corpus.store
    by_source: dict[int, dict[str, dict]] = {}
    for entry in batch:
        rows = by_source.setdefault(sources[entry.jurisdiction_code], {})
        row = _norm_row(entry)
        if entry.native_id in rows:
            # Rows of one norm (texto integral, anexos): the first that fills a field wins.
            merged = rows[entry.native_id]
            merged.update({k: v for k, v in row.items() if merged.get(k) is None})
        else:
            rows[entry.native_id] = row
    with store.transaction() as conn:
        norm_ids: dict[tuple[int, str], int] = {}
        for source_id, rows in by_source.items():
            upserted = store.upsert_norms(conn, source_id, list(rows.values()), seen_at)
            for native_id, norm_id in upserted.items():
                norm_ids[(source_id, native_id)] = norm_id
        doc_rows = [
            {"norm_id": norm_ids[(sources[e.jurisdiction_code], e.native_id)],
             "url": e.url or f"file:{e.relative}", "role": e.role, "title": e.title}
            for e in batch
        ]
        documents = store.ensure_documents(conn, doc_rows)
        new_versions, claimed = [], set()
        for i, (entry, doc) in enumerate(zip(batch, doc_rows, strict=True)):
            if i not in files:
                continue
            stored = documents[(doc["norm_id"], doc["url"])]
            key = (stored["id"], files[i]["sha256"])
            report.files += 1
            report.bytes += files[i]["size"]
            if stored["current_sha256"] == files[i]["sha256"] or key in claimed:
                report.unchanged += 1
                continue
            claimed.add(key)
            new_versions.append({"document_id": stored["id"], **files[i],
                                 "fetched_at": seen_at, "origin": str(entry.path)})
        store.add_versions(conn, new_versions)
        report.new_versions += len(new_versions)
        report.norm_ids.update(norm_ids.values())


def _norm_row(entry: Entry) -> dict:
    return {
        "native_id": entry.native_id,
        "jurisdiction_code": entry.jurisdiction_code,
        "type_raw": entry.type_raw,
        "type_normalized": normalize_type(entry.type_raw),
        "number": entry.number,
        "year": entry.year,
        "date": entry.date,
        "ementa": entry.ementa,
        "url": entry.norm_url,
    }
