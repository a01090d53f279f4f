"""Making a release: check the options and the folder, read every table within one snapshot
of the corpus, write it, then the dataset card, manifest.json and SHA256SUMS.

Nothing appears under a final name half-written: files are written in `.locleg-export/`
inside the release folder and renamed into place when their table is complete, and the
progress of an interrupted export is kept in `.locleg-export.json`, so that running the same
command again goes on from the tables already done (when the corpus has not changed since;
otherwise it starts over). SHA256SUMS, written last, marks the release complete.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from datetime import time as dtime
from pathlib import Path

from sqlalchemy import func, select

from .. import __version__
from ..corpus import Corpus
from ..errors import UserError
from ..store.schema import jurisdiction
from . import card
from .reading import Snapshot, snapshot
from .tables import READERS, TABLES, Scope, corpus_state
from .writers import FORMATS, TableWriter, WrittenFile, lean_memory_pool, staged_name

FORMAT_VERSION = 1
STAGING = ".locleg-export"
PROGRESS = ".locleg-export.json"
FINAL_FILES = ("README.md", "manifest.json", "SHA256SUMS")
_PART = re.compile(r"part-\d{5}\.(parquet|jsonl\.gz|csv\.gz)")
_UF_FOLDER = re.compile(r"uf=[A-Z]{2}")


@dataclass(frozen=True)
class ExportOptions:
    format: str = "parquet"
    ufs: tuple[str, ...] = ()
    jurisdictions: tuple[int, ...] = ()
    since: datetime | None = None
    with_text: bool = False

    def as_json(self) -> dict:
        return {"format": self.format, "uf": list(self.ufs),
                "jurisdiction": list(self.jurisdictions),
                "since": self.since.isoformat() if self.since else None,
                "with_text": self.with_text}


@dataclass
class ExportReport:
    folder: Path
    tables: dict[str, int] = field(default_factory=dict)  # rows per table
    bytes: int = 0
    seconds: float = 0.0
    resumed: list[str] = field(default_factory=list)  # tables an earlier run had finished
    up_to_date: bool = False


# -- options as the user gives them ---------------------------------------------------------


def parse_since(text: str) -> datetime:
    """A date (YYYY-MM-DD or DD/MM/YYYY: from 00:00 UTC that day) or an ISO 8601 time."""
    from ..ingest.dump import parse_date  # here: dump loads the extractors, an export needs none

    value = text.strip()
    try:
        return datetime.combine(parse_date(value), dtime(), tzinfo=UTC)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise UserError(f"--since: not a date: {text!r} (YYYY-MM-DD or DD/MM/YYYY, e.g. "
                        "2026-11-01)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def make_options(corpus: Corpus, fmt: str = "parquet", ufs: tuple[str, ...] = (),
                 jurisdictions: tuple[str, ...] = (), since: str | None = None,
                 with_text: bool = False) -> ExportOptions:
    """Check what a user typed; one clear UserError for anything wrong."""
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r}: one of {', '.join(FORMATS)}")
    chosen_ufs = []
    if ufs:
        from ..search.engine import UFS  # here: the search stack only to check a UF typed
    for uf in ufs:
        code = uf.strip().upper()
        if code not in UFS:
            raise UserError(f"unknown UF {uf!r}: one of {', '.join(UFS)}")
        chosen_ufs.append(code)
    codes = []
    for typed in jurisdictions:
        text = typed.strip()
        if text.isdigit() and len(text) not in (2, 7):
            raise UserError(f"{typed!r} is not an IBGE code: a municipality has 7 digits "
                            "(2918407 Juazeiro-BA), a UF 2 (29 Bahia)")
        found = corpus.store.require_jurisdiction(text)
        if chosen_ufs and found["uf"] not in chosen_ufs:
            raise UserError(f"jurisdiction {found['ibge_code']} ({found['name']}, "
                            f"{found['uf']}) is not in UF {', '.join(chosen_ufs)}")
        codes.append(found["ibge_code"])
    return ExportOptions(fmt, tuple(sorted(set(chosen_ufs))), tuple(sorted(set(codes))),
                         parse_since(since) if since else None, with_text)


# -- the release folder ---------------------------------------------------------------------


def _ours(path: Path, rel: Path) -> bool:
    """Whether a path inside the folder is one a release (or an export under way) writes."""
    parts = rel.parts
    if parts[0] in (STAGING, PROGRESS) or (len(parts) == 1 and parts[0] in FINAL_FILES):
        return not path.is_symlink()
    names = {t.name for t in TABLES}
    if parts[0] not in names or path.is_symlink():
        return False
    if len(parts) == 1:
        return path.is_dir()
    if not _UF_FOLDER.fullmatch(parts[1]):
        return False
    if len(parts) == 2:
        return path.is_dir()
    return len(parts) == 3 and path.is_file() and bool(_PART.fullmatch(parts[2]))


def check_folder(folder: Path) -> None:
    """OUT_DIR must be new, empty, or hold only a release (or an interrupted export)."""
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder} is a file, not a folder: give a folder for the release")
    if not folder.exists():
        return
    foreign = []
    for top in sorted(folder.iterdir()):
        rel = top.relative_to(folder)
        if not _ours(top, rel):
            foreign.append(rel.as_posix())
            continue
        if top.is_dir() and rel.parts[0] != STAGING:
            for inner in sorted(top.rglob("*")):
                if not _ours(inner, inner.relative_to(folder)):
                    foreign.append(inner.relative_to(folder).as_posix())
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3
                                          else "")
        raise UserError(f"{folder} is not empty and holds files that are not part of a "
                        f"release ({shown}): choose an empty or new folder")


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.parent / STAGING / f"{path.name}.tmp"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the export -----------------------------------------------------------------------------


def export_release(corpus: Corpus, folder: Path, options: ExportOptions,
                   on_table: Callable[[str, int], None] | None = None,
                   on_rows: Callable[[int], None] | None = None) -> ExportReport:
    """Write (or finish) a release of the corpus in `folder`.

    on_table(name, index) is called as each table begins; on_rows(n) as rows are written.
    """
    folder = folder.expanduser().absolute()
    check_folder(folder)
    started = time.monotonic()
    report = ExportReport(folder)
    tables = [t for t in TABLES if options.with_text or not t.text]
    with snapshot(corpus.store.engine) as snap:
        state = corpus_state(snap)
        identity = {"options": options.as_json(), "state": state}
        progress = _read_json(folder / PROGRESS)
        manifest = _read_json(folder / "manifest.json")
        if (folder / "SHA256SUMS").exists() and manifest and progress is None:
            if {"options": manifest["options"], "state": manifest["corpus"]["state"]} \
                    == identity:
                report.up_to_date = True
                report.tables = {k: v["rows"] for k, v in manifest["tables"].items()}
                return report
        if progress is None or progress.get("identity") != identity:
            # A different release, or the corpus changed since the interrupted run: anew.
            _clear(folder)
            progress = {"identity": identity, "done": {}, "stats": {}}
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SHA256SUMS").unlink(missing_ok=True)  # incomplete from here on
        (folder / "manifest.json").unlink(missing_ok=True)
        _atomic_write(folder / PROGRESS, json.dumps(progress).encode())
        scope = Scope(options.ufs, options.jurisdictions, options.since)
        empty_uf = (options.ufs or _ufs_of(snap, options.jurisdictions) or ("AC",))[0]
        for index, spec in enumerate(tables):
            if spec.name in progress["done"]:
                report.resumed.append(spec.name)
                continue
            if on_table:
                on_table(spec.name, index)
            with lean_memory_pool():
                files, stats = _write_table(snap, folder, spec, options.format, scope,
                                            empty_uf, on_rows)
            progress["done"][spec.name] = [f.__dict__ for f in files]
            progress["stats"][spec.name] = stats
            _atomic_write(folder / PROGRESS, json.dumps(progress).encode())
        municipalities = dict(snap.all(
            select(jurisdiction.c.uf, func.count()).where(jurisdiction.c.level == "municipal")
            .group_by(jurisdiction.c.uf)))
        total = snap.scalar(select(func.count()).select_from(jurisdiction))
        schema = sorted(corpus.store.schema_revisions())
    files = {name: [WrittenFile(**f) for f in done] for name, done in progress["done"].items()}
    manifest = {
        "format_version": FORMAT_VERSION,
        "created_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "locleg_version": __version__,
        "format": options.format, "with_text": options.with_text,
        "filters": {k: v for k, v in options.as_json().items() if k in ("uf", "jurisdiction",
                                                                       "since")},
        "options": options.as_json(),
        "corpus": {"database": corpus.store.dialect, "schema": schema, "state": state},
        "tables": {t.name: {"rows": sum(f.rows for f in files[t.name]),
                            "files": [f.__dict__ for f in files[t.name]]} for t in tables},
        "figures": progress["stats"],
    }
    readme = card.dataset_card(manifest, progress["stats"], total, municipalities).encode()
    _atomic_write(folder / "README.md", readme)
    manifest["files"] = {"README.md": {"bytes": len(readme),
                                       "sha256": _sha256_bytes(readme)}}
    encoded = (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode()
    _atomic_write(folder / "manifest.json", encoded)
    sums = [(f.sha256, f.path) for t in tables for f in files[t.name]]
    sums += [(_sha256_bytes(readme), "README.md"), (_sha256_bytes(encoded), "manifest.json")]
    _atomic_write(folder / "SHA256SUMS",
                  "".join(f"{digest}  {path}\n" for digest, path in sums).encode())
    (folder / PROGRESS).unlink(missing_ok=True)
    shutil.rmtree(folder / STAGING, ignore_errors=True)
    report.tables = {t.name: manifest["tables"][t.name]["rows"] for t in tables}
    report.bytes = sum(f.bytes for t in tables for f in files[t.name]) + len(readme) \
        + len(encoded)
    report.seconds = time.monotonic() - started
    return report


def _write_table(snap: Snapshot, folder: Path, spec, fmt: str, scope: Scope,
                 empty_uf: str, on_rows) -> tuple[list[WrittenFile], dict]:
    staging = folder / STAGING
    staging.mkdir(parents=True, exist_ok=True)
    for stale in staging.glob(f"{spec.name}~*"):
        stale.unlink()
    writer = TableWriter(spec, fmt, staging)
    stats: dict = {}
    try:
        for batch in READERS[spec.name](snap, scope):
            writer.add(batch)
            card.gather(stats, spec.name, batch)
            if on_rows:
                on_rows(batch.num_rows)
        files = writer.finish(empty_uf)
    except BaseException:
        writer.abandon()
        raise
    # The table's files replace whatever an interrupted run left under its name.
    shutil.rmtree(folder / spec.name, ignore_errors=True)
    made: set[Path] = set()
    for f in files:
        source = staging / staged_name(f.path)
        _fsync_file(source)
        target = folder / f.path
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        os.replace(source, target)
    return files, stats.get(spec.name, {"rows": 0})


def _ufs_of(snap: Snapshot, codes: tuple[int, ...]) -> tuple[str, ...]:
    if not codes:
        return ()
    return tuple(sorted({uf for (uf,) in snap.all(
        select(jurisdiction.c.uf).where(jurisdiction.c.ibge_code.in_(codes)))}))


def _clear(folder: Path) -> None:
    """Remove what an earlier release or export left (check_folder made sure it is ours)."""
    if not folder.exists():
        return
    for t in TABLES:
        shutil.rmtree(folder / t.name, ignore_errors=True)
    shutil.rmtree(folder / STAGING, ignore_errors=True)
    for name in (*FINAL_FILES, PROGRESS):
        (folder / name).unlink(missing_ok=True)


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        return None  # an unreadable progress file: start over


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


__all__ = ["ExportOptions", "ExportReport", "export_release", "make_options", "parse_since",
           "check_folder"]
