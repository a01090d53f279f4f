"""The one store API every caller uses, over SQLite or PostgreSQL through SQLAlchemy Core."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    Integer,
    Table,
    Text,
    any_,
    bindparam,
    case,
    create_engine,
    event,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, OperationalError

from ..dburl import has_password, safe_url, url_without_password  # noqa: F401  (re-exported)
from ..errors import DiskFull, UserError
from ..jurisdictions import Jurisdiction, fold
from .schema import (
    document,
    extraction,
    jurisdiction,
    metadata,
    norm,
    page,
    problem,
    record,
    source,
    version,
)


def _not_the_second_error(record: logging.LogRecord) -> bool:
    """psycopg logs, as a warning, a pipeline or COPY that fails to end while an error of its
    block is already on its way up. That first error is the one a command reports, in one line
    (a full disk, a refused value); the second would print a stray line beside it."""
    return not str(record.msg).startswith("error ignored terminating")


logging.getLogger("psycopg").addFilter(_not_the_second_error)

MIGRATIONS = Path(__file__).parent / "migrations"
STATUSES = ("pending", "extracted", "empty", "failed")


def utcnow() -> datetime:
    return datetime.now(UTC)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the explorer read while a harvest writes; NORMAL is durable at each checkpoint
    # and never corrupts on a crash.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


@contextmanager
def _foreign_keys_deferred(conn: Connection) -> Iterator[None]:
    """Migrations in one transaction; on SQLite with foreign keys checked at the end, not
    per statement, because SQLite rebuilds a table to change its constraints (docs: "Making
    Other Kinds Of Table Schema Changes")."""
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:  # only outside a transaction does the pragma take effect
        conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        conn.commit()
    try:
        with conn.begin():
            yield
            if sqlite:
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise RuntimeError(f"a migration left {len(broken)} broken references, "
                                       f"first {broken[0]}")
    finally:
        if sqlite:
            conn.exec_driver_sql("PRAGMA foreign_keys=ON")
            conn.commit()


def _alembic_config(conn: Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    return cfg


def queue_batch(queued: Iterable[tuple[int, int]], size: int) -> tuple[list[int], list[int]]:
    """From queue rows (id, norm id) in id order: the first `size` distinct norms, and the ids
    of every row read up to the first row of a norm beyond them (a norm queued twice is
    taken once, and both its rows go)."""
    norm_ids: dict[int, None] = {}  # in order, and a lookup that does not walk a list
    queue_ids: list[int] = []
    for queue_id, norm_id in queued:
        if norm_id not in norm_ids:
            if len(norm_ids) >= size:
                break
            norm_ids[norm_id] = None
        queue_ids.append(queue_id)
    return list(norm_ids), queue_ids


class Store:
    """Persistence of a corpus: jurisdictions, sources, norms, documents, versions, extractions."""

    def __init__(self, engine: Engine, folder: Path | None = None) -> None:
        self.engine = engine
        # The corpus folder, where the search index lives beside the originals; a store
        # opened from a bare SQLite URL takes the database file's folder.
        if folder is None and engine.dialect.name == "sqlite" and engine.url.database:
            folder = Path(engine.url.database).parent
        self.folder = folder

    def reading(self) -> Connection:
        """A connection for a few reads that need not share one snapshot (a search, a count):
        on PostgreSQL outside any transaction, which spares each use a BEGIN and a ROLLBACK,
        two round trips of the three or four a search makes."""
        conn = self.engine.connect()
        if self.engine.dialect.name == "postgresql":
            conn.execution_options(isolation_level="AUTOCOMMIT")
        return conn

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, url: str, *, migrate: bool = True, folder: Path | None = None) -> Store:
        """Connect, fail with one clear line if the database does not answer, bring it to head."""
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30}
        else:
            kwargs["connect_args"] = {"connect_timeout": 10}
            kwargs["pool_pre_ping"] = True
        try:
            engine = create_engine(url, **kwargs)
        except (ArgumentError, ValueError) as e:
            # A port that is not a number, a bracket left open: SQLAlchemy's message would
            # repeat the URL, password included.
            raise UserError(f"not a database URL: {safe_url(url)} ({type(e).__name__})"
                            ) from None
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        try:
            with engine.connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        except OperationalError as e:
            # psycopg says where and why on the first line, then a hint: keep both, on one line.
            reason = " ".join(str(e.orig or e).split())
            if "could not write init file" in reason:
                # PostgreSQL rewrites a cache file in the database's folder on connecting,
                # so a database on a full disk refuses new sessions until space is freed.
                raise DiskFull("disk full while writing the PostgreSQL database: free space "
                               "and run the command again; nothing stored was lost") from None
            raise UserError(f"cannot reach the database {safe_url(url)}: {reason}") from None
        store = cls(engine, folder)
        if migrate:
            store.migrate()
        return store

    def close(self) -> None:
        self.engine.dispose()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def schema_revisions(self) -> set[str]:
        with self.engine.connect() as conn:
            return set(MigrationContext.configure(conn).get_current_heads())

    def migrate(self, revision: str = "heads") -> None:
        """Apply pending migrations; a no-op when the schema is current.

        Features add their tables on branches of their own, so the target is every head.
        """
        with self.engine.connect() as conn:
            cfg = _alembic_config(conn)
            heads = set(ScriptDirectory.from_config(cfg).get_heads())
            current = set(MigrationContext.configure(conn).get_current_heads())
            conn.rollback()
            if revision == "heads" and current == heads:
                return
            with _foreign_keys_deferred(conn):
                command.upgrade(cfg, revision)

    def downgrade(self, revision: str = "base") -> None:
        with self.engine.connect() as conn, _foreign_keys_deferred(conn):
            command.downgrade(_alembic_config(conn), revision)

    # -- jurisdictions -------------------------------------------------------------------

    def load_jurisdictions(self, items: Iterable[Jurisdiction]) -> int:
        """Insert the IBGE list once; returns how many rows were added."""
        rows = [
            {
                "ibge_code": j.ibge_code,
                "level": j.level,
                "uf": j.uf,
                "name": j.name,
                "name_folded": fold(j.name),
                "lexml_label": j.lexml_label,
            }
            for j in items
        ]
        with self.engine.begin() as conn:
            known = set(conn.scalars(select(jurisdiction.c.ibge_code)))
            new = [r for r in rows if r["ibge_code"] not in known]
            if new:
                conn.execute(insert(jurisdiction), new)
        return len(new)

    def jurisdiction(self, ibge_code: int) -> dict | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(jurisdiction).where(jurisdiction.c.ibge_code == ibge_code)
            ).mappings().first()
        return dict(row) if row else None

    def require_jurisdiction(self, ibge_code: int | str) -> dict:
        try:
            code = int(str(ibge_code).strip())
        except ValueError:
            raise UserError(
                f"not an IBGE code: {ibge_code!r} (e.g. 2918407 for Juazeiro-BA)"
            ) from None
        found = self.jurisdiction(code)
        if found is None:
            raise UserError(
                f"unknown IBGE code {code}: see `locleg jurisdictions --search NAME` for codes"
            )
        return found

    def jurisdictions(self, uf: str | None = None, search: str | None = None) -> list[dict]:
        query = select(jurisdiction).order_by(
            jurisdiction.c.uf, jurisdiction.c.level.desc(), jurisdiction.c.name_folded
        )
        if uf:
            query = query.where(jurisdiction.c.uf == uf.upper())
        if search:
            pattern = "%" + _escape_like(fold(search)) + "%"
            query = query.where(jurisdiction.c.name_folded.like(pattern, escape="\\"))
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    # -- sources -------------------------------------------------------------------------

    def ensure_source(
        self, jurisdiction_code: int, platform: str, base_url: str, settings: dict | None = None
    ) -> int:
        with self.engine.begin() as conn:
            found = conn.scalar(
                select(source.c.id).where(
                    source.c.platform == platform,
                    source.c.base_url == base_url,
                    source.c.jurisdiction_code == jurisdiction_code,
                )
            )
            if found is not None:
                return found
            return conn.execute(
                insert(source).returning(source.c.id),
                {
                    "jurisdiction_code": jurisdiction_code,
                    "platform": platform,
                    "base_url": base_url,
                    "settings": json.dumps(settings or {}),
                    "state": "{}",
                    "created_at": utcnow(),
                },
            ).scalar_one()

    def sources(self) -> list[dict]:
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(select(source).order_by(source.c.id)).mappings()]

    def record_run(self, source_id: int, started: datetime, error: str | None) -> None:
        values: dict[str, Any] = {"last_run_at": started, "last_error": error}
        if error is None:
            values["last_success_at"] = started
        with self.engine.begin() as conn:
            conn.execute(update(source).where(source.c.id == source_id).values(**values))

    # -- norms, documents, versions (batched: one transaction per batch) ------------------

    def transaction(self):
        """A transaction for a batch of writes: all of the batch lands, or none of it."""
        return self.engine.begin()

    def upsert_records(
        self, conn: Connection, source_id: int, rows: Sequence[dict], seen_at: datetime,
        fill_only: Collection[str] = (),
    ) -> dict[str, int]:
        """Insert new records, update changed ones, touch the rest; native_id -> record id.

        Each row holds jurisdiction_code, native_id and the record's fields (type_raw,
        type_normalized, number, year, date, ementa, url). Records named in FILL_ONLY were
        written earlier in the same run from other rows of theirs: a field such a row leaves
        empty keeps its stored value. New and changed records join the norm of their key in
        the same transaction (enrich/norms.py), so no record is ever without its norm.
        """
        from ..enrich.norms import records_changed

        fields = ("jurisdiction_code", "type_raw", "type_normalized", "number", "year", "date",
                  "ementa", "url")
        native_ids = [r["native_id"] for r in rows]
        existing = {
            r.native_id: r
            for r in conn.execute(
                select(record.c.id, record.c.native_id, record.c.removed_at,
                       *[record.c[f] for f in fields])
                .where(record.c.source_id == source_id,
                       _among(conn, record.c.native_id, native_ids))
            )
        }
        ids: dict[str, int] = {}
        new, changed, touched, revived = [], [], [], []
        new_ids: set[str] = set()
        for r in rows:
            old = existing.get(r["native_id"])
            if old is None:
                if r["native_id"] in new_ids:  # the same record twice in one batch
                    continue
                new_ids.add(r["native_id"])
                new.append({**{f: r.get(f) for f in fields}, "source_id": source_id,
                            "native_id": r["native_id"], "first_seen_at": seen_at,
                            "last_seen_at": seen_at, "changed_at": seen_at})
                continue
            ids[r["native_id"]] = old.id
            if r["native_id"] in fill_only:
                r = {**r, **{f: getattr(old, f) for f in fields if r.get(f) is None}}
            if any(getattr(old, f) != r.get(f) for f in fields):
                changed.append({**{f: r.get(f) for f in fields}, "b_id": old.id})
            else:
                touched.append({"b_id": old.id})
                if old.removed_at is not None:
                    revived.append(old.id)
        if new:
            new_ids = bulk_insert(conn, record, new)
            ids.update({row["native_id"]: i for row, i in zip(new, new_ids, strict=True)})
        if changed:
            conn.execute(
                update(record)
                .where(record.c.id == bindparam("b_id"))
                .values(**{f: bindparam(f) for f in fields}, last_seen_at=seen_at,
                        changed_at=seen_at, removed_at=None),
                changed,
            )
        if touched:
            conn.execute(
                update(record).where(record.c.id == bindparam("b_id"))
                .values(last_seen_at=seen_at, removed_at=None),
                touched,
            )
        moved = [ids[r["native_id"]] for r in new] + [c["b_id"] for c in changed] + revived
        if moved:
            records_changed(conn, moved, seen_at)
        return ids

    def ensure_documents(self, conn: Connection, rows: Sequence[dict]) -> dict[tuple, dict]:
        """Documents keyed by (record_id, url); creates the missing ones.

        Returns (record_id, url) -> {id, current_version_id, current_sha256}.
        """
        record_ids = sorted({r["record_id"] for r in rows})
        current = version.alias("current")
        found: dict[tuple, dict] = {}
        query = (
            select(document.c.id, document.c.record_id, document.c.url,
                   document.c.current_version_id, current.c.sha256)
            .outerjoin(current, current.c.id == document.c.current_version_id)
            .where(_among(conn, document.c.record_id, record_ids))
        )
        for r in conn.execute(query):
            found[(r.record_id, r.url)] = {"id": r.id,
                                           "current_version_id": r.current_version_id,
                                         "current_sha256": r.sha256}
        new, keys = [], set()
        now = utcnow()
        for r in rows:
            key = (r["record_id"], r["url"])
            if key in found or key in keys:
                continue
            keys.add(key)
            new.append({"record_id": r["record_id"], "url": r["url"], "role": r["role"],
                        "title": r.get("title"), "created_at": now})
        for row, doc_id in zip(new, bulk_insert(conn, document, new), strict=True):
            found[(row["record_id"], row["url"])] = {"id": doc_id, "current_version_id": None,
                                                   "current_sha256": None}
        return found

    def add_versions(self, conn: Connection, rows: Sequence[dict]) -> list[int]:
        """Store new versions (each becomes its document's current one), extraction pending.

        Each row: document_id, sha256, size, media_type, fetched_at, origin and optionally
        http_status, etag, last_modified.
        """
        if not rows:
            return []
        cols = ("document_id", "sha256", "size", "media_type", "fetched_at", "origin",
                "http_status", "etag", "last_modified")
        version_ids = bulk_insert(conn, version, [{c: r.get(c) for c in cols} for r in rows])
        bulk_insert(conn, extraction, [{"version_id": v, "status": "pending"}
                                       for v in version_ids])
        conn.execute(
            update(document).where(document.c.id == bindparam("b_id"))
            .values(current_version_id=bindparam("b_version"), removed_at=None),
            [{"b_id": r["document_id"], "b_version": v}
             for r, v in zip(rows, version_ids, strict=True)],
        )
        return version_ids

    def mark_removed(self, source_id: int, not_seen_since: datetime) -> int:
        """Records of a source missing from a complete run: marked removed, never deleted."""
        with self.engine.begin() as conn:
            return self.remove_unseen(conn, source_id, not_seen_since)

    def remove_unseen(self, conn: Connection, source_id: int, seen_since: datetime) -> int:
        """Mark removed the records of a source not seen since then; their norms follow."""
        gone = list(conn.scalars(select(record.c.id).where(
            record.c.source_id == source_id, record.c.last_seen_at < seen_since,
            record.c.removed_at.is_(None))))
        return self.remove_records(conn, gone, seen_since)

    def remove_records(self, conn: Connection, record_ids: Sequence[int],
                       when: datetime) -> int:
        """Mark these records removed (gone from their source); a norm is removed when all
        its records are."""
        from ..enrich.norms import resolve

        ids = list(record_ids)
        for start in range(0, len(ids), 1000):
            conn.execute(update(record).where(record.c.id.in_(ids[start:start + 1000]))
                         .values(removed_at=when))
        if ids:
            resolve(conn, set(conn.scalars(select(record.c.norm_id)
                                           .where(_among(conn, record.c.id, ids)))), when)
        return len(ids)

    # -- extraction ----------------------------------------------------------------------

    def versions_to_extract(self, statuses: Sequence[str] = ("pending",),
                            jurisdiction_code: int | None = None) -> list[dict]:
        """Current versions whose extraction is in one of these statuses."""
        query = (
            select(version.c.id, version.c.sha256, version.c.media_type, version.c.size,
                   extraction.c.status, record.c.jurisdiction_code)
            .join(document, document.c.current_version_id == version.c.id)
            .join(record, record.c.id == document.c.record_id)
            .join(extraction, extraction.c.version_id == version.c.id)
            .where(extraction.c.status.in_(statuses))
            .order_by(version.c.id)
        )
        if jurisdiction_code is not None:
            query = query.where(record.c.jurisdiction_code == jurisdiction_code)
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def save_extraction(self, version_id: int, record: dict, pages: Sequence[dict]) -> None:
        """Replace a version's extraction record and page texts in one transaction."""
        with self.engine.begin() as conn:
            conn.execute(page.delete().where(page.c.version_id == version_id))
            if pages:
                conn.execute(insert(page), [{**p, "version_id": version_id} for p in pages])
            conn.execute(
                update(extraction).where(extraction.c.version_id == version_id).values(**record)
            )

    def extraction_of(self, version_id: int) -> dict | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(extraction).where(extraction.c.version_id == version_id)
            ).mappings().first()
        return dict(row) if row else None

    def pages_of(self, version_id: int) -> list[dict]:
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(
                select(page).where(page.c.version_id == version_id).order_by(page.c.number)
            ).mappings()]

    # -- problems ------------------------------------------------------------------------

    def record_problem(self, stage: str, subject: str, message: str,
                       source_id: int | None = None) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(problem), {"at": utcnow(), "stage": stage, "subject": subject,
                                           "message": message, "source_id": source_id})

    def problems(self, limit: int = 50) -> list[dict]:
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(
                select(problem).order_by(problem.c.id.desc()).limit(limit)
            ).mappings()]

    # -- status and checks ---------------------------------------------------------------

    def status(self, by_jurisdiction: bool = False) -> dict:
        """Counts per stage, over current document versions; optionally per jurisdiction."""
        with self.engine.connect() as conn:
            totals = self._stage_counts(conn, False)
            totals["records"] = conn.scalar(select(func.count()).select_from(record))
            totals["unmatched"] = conn.scalar(select(func.count()).select_from(record)
                                              .where(record.c.unmatched.is_not(None)))
            totals["versions"] = conn.scalar(select(func.count()).select_from(version))
            totals["sources"] = conn.scalar(select(func.count()).select_from(source))
            totals["jurisdictions"] = conn.scalar(select(func.count()).select_from(jurisdiction))
            totals["jurisdictions_with_norms"] = conn.scalar(
                select(func.count(func.distinct(norm.c.jurisdiction_code)))
                .where(norm.c.merged_into.is_(None))
            )
            # PostgreSQL sums bigints as numeric: bring it back to an int for JSON.
            totals["originals_bytes"] = int(conn.scalar(
                select(func.coalesce(func.sum(version.c.size), 0))
            ))
            totals["problems"] = conn.scalar(select(func.count()).select_from(problem))
            if by_jurisdiction:
                totals["by_jurisdiction"] = self._stage_counts(conn, True)
        return totals

    def _stage_counts(self, conn: Connection, by_jurisdiction: bool) -> Any:
        """Norms (one per norm, however many records), then documents of all their records."""
        status_counts = [
            func.sum(case((extraction.c.status == s, 1), else_=0)).label(s) for s in STATUSES
        ]
        doc_group = [record.c.jurisdiction_code] if by_jurisdiction else []
        doc_query = (
            select(
                *doc_group,
                func.count(document.c.id).label("documents"),
                func.count(document.c.current_version_id).label("fetched"),
                *status_counts,
                func.coalesce(func.sum(extraction.c.pages), 0).label("pages"),
            )
            .select_from(document)
            .join(record, record.c.id == document.c.record_id)
            .outerjoin(extraction, extraction.c.version_id == document.c.current_version_id)
        )
        norm_group = [norm.c.jurisdiction_code] if by_jurisdiction else []
        norm_query = select(
            *norm_group,
            func.count().label("norms"),
            func.sum(case((norm.c.removed_at.is_not(None), 1), else_=0)).label("removed"),
        ).where(norm.c.merged_into.is_(None))
        if not by_jurisdiction:
            counts = dict(conn.execute(norm_query).mappings().one())
            counts.update(conn.execute(doc_query).mappings().one())
            return {k: int(v or 0) for k, v in counts.items()}
        norm_query = norm_query.group_by(*norm_group)
        doc_query = doc_query.group_by(*doc_group)
        per: dict[int, dict] = {}
        for r in conn.execute(norm_query).mappings():
            per[r["jurisdiction_code"]] = {"norms": int(r["norms"]),
                                           "removed": int(r["removed"] or 0)}
        for r in conn.execute(doc_query).mappings():
            entry = per.setdefault(r["jurisdiction_code"], {"norms": 0, "removed": 0})
            entry.update({k: int(r[k] or 0) for k in ("documents", "fetched", *STATUSES, "pages")})
        names = {
            r.ibge_code: r
            for r in conn.execute(
                select(jurisdiction.c.ibge_code, jurisdiction.c.uf, jurisdiction.c.name)
                .where(jurisdiction.c.ibge_code.in_(list(per)))
            )
        }
        return [
            {"ibge_code": code, "uf": names[code].uf, "name": names[code].name,
             **{k: 0 for k in ("documents", "fetched", *STATUSES, "pages")}, **counts}
            for code, counts in sorted(per.items(), key=lambda kv: (names[kv[0]].uf,
                                                                    names[kv[0]].name))
        ]

    def iter_versions(self) -> Iterator[dict]:
        """Every stored version with what check needs, streamed."""
        query = select(version.c.id, version.c.sha256, version.c.size).order_by(version.c.id)
        with self.engine.connect() as conn:
            for r in conn.execution_options(yield_per=5000).execute(query).mappings():
                yield dict(r)

    def referenced_digests(self) -> set[str]:
        """Every original the corpus names: versions' and official gazettes' (their text
        files, PDFs and our OCR of them, archived whole; gazette_schema.py)."""
        from .gazette_schema import gazette

        with self.engine.connect() as conn:
            found = set(conn.scalars(select(version.c.sha256).distinct()))
            for column in (gazette.c.text_sha256, gazette.c.pdf_sha256, gazette.c.ocr_sha256):
                found.update(conn.scalars(select(column).where(column.is_not(None)).distinct()))
            return found

    def consistency_problems(self) -> list[str]:
        """Rows that point at rows which do not exist, or documents without their version."""
        checks = {
            "document whose current version is missing or belongs to another document": (
                select(func.count()).select_from(document)
                .outerjoin(version, version.c.id == document.c.current_version_id)
                .where(document.c.current_version_id.is_not(None))
                .where((version.c.id.is_(None)) | (version.c.document_id != document.c.id))
            ),
            "version without an extraction record": (
                select(func.count()).select_from(version)
                .outerjoin(extraction, extraction.c.version_id == version.c.id)
                .where(extraction.c.version_id.is_(None))
            ),
            "extraction with an unknown status": (
                select(func.count()).select_from(extraction)
                .where(extraction.c.status.not_in(STATUSES))
            ),
            "record without its norm (or in a norm merged away)": (
                select(func.count()).select_from(record)
                .outerjoin(norm, norm.c.id == record.c.norm_id)
                .where(norm.c.id.is_(None) | norm.c.merged_into.is_not(None))
            ),
            "norm without records that is not merged into another": (
                select(func.count()).select_from(norm)
                .where(norm.c.merged_into.is_(None), ~select(record.c.id).where(
                    record.c.norm_id == norm.c.id).exists())
            ),
        }
        found = []
        with self.engine.connect() as conn:
            for what, query in checks.items():
                n = conn.scalar(query)
                if n:
                    found.append(f"{n} × {what}")
        return found


def _among(conn: Connection, column: Any, values: Sequence) -> Any:
    """column IN values; on PostgreSQL as one array parameter (= ANY), because psycopg spends
    more time parsing a thousand separate parameters than PostgreSQL spends on the query."""
    if conn.dialect.name != "postgresql" or not values:
        return column.in_(values)
    element = Integer if isinstance(values[0], int) else Text
    return column == any_(literal(list(values), type_=ARRAY(element)))


def bulk_insert(conn: Connection, table: Table, rows: Sequence[dict]) -> list[int]:
    """Insert rows and return their primary keys in row order.

    SQLite: INSERT … RETURNING, a thousand rows per statement. PostgreSQL: ids drawn from the
    table's sequence, then COPY, for the same reason as `_among`.
    """
    if not rows:
        return []
    key = table.primary_key.columns.values()[0].name
    given = key in rows[0]
    if conn.dialect.name != "postgresql":
        if given:
            conn.execute(insert(table), list(rows))
            return [r[key] for r in rows]
        result = conn.execute(
            insert(table).returning(table.c[key], sort_by_parameter_order=True), list(rows)
        )
        return list(result.scalars())
    if given:
        ids = [r[key] for r in rows]
    else:
        ids = list(conn.scalars(
            select(func.nextval(f"{table.name}_{key}_seq"))
            .select_from(func.generate_series(1, len(rows)))
        ))
    columns = [c.name for c in table.columns]
    cursor = conn.connection.dbapi_connection.cursor()
    # Names come from our own metadata, never from input.
    with cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
        for row, row_id in zip(rows, ids, strict=True):
            copy.write_row([row_id if c == key else row.get(c) for c in columns])
    return ids


def _escape_like(text: str) -> str:
    return re.sub(r"([\\%_])", r"\\\1", text)


__all__ = ["Store", "metadata", "utcnow", "safe_url", "url_without_password", "has_password",
           "STATUSES"]
