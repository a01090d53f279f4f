"""Moving a corpus's tables from its SQLite database to PostgreSQL, verified table by table.

The target's schema comes from the project's Alembic migrations (Store.open), then every
table is copied in dependency order, each in one PostgreSQL transaction (COPY, streamed from
SQLite in batches): an interrupted move leaves every table either empty or whole. A re-run
compares each table's row count and checksum on both sides, skips the tables already equal
and copies the others again, so it ends with the same tables whether it ran once or ten
times. The SQLite file is read through a read-only connection, in one snapshot, and never
written. Ids are copied as they are, so the search index in `<corpus>/search-index/`, which
names norms by id, serves the PostgreSQL corpus unchanged; each table's sequence is set
past the copied ids. The corpus settings name the new database only once every table is
copied and verified.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from sqlalchemy import Boolean, Date, DateTime, Float, Integer, Table

from ..config import Settings, normalize_database_url, set_database
from ..dburl import safe_url
from ..errors import UserError
from . import metadata
from .db import Store

# Rows per fetch from SQLite and between progress reports: memory stays flat whatever the
# size of a table.
BATCH = 5_000
# Written on the target by the first move into it: which corpus it is a copy of, so that a
# re-run goes on and a move of another corpus into the same database is refused.
MARKER = "locleg_migration"
_NULL = "\x00"  # no text of PostgreSQL holds a NUL: a null cannot be taken for a value
_DIGEST_MOD = 1 << 128


@dataclass
class TableReport:
    name: str
    source_rows: int = 0
    target_rows: int = 0
    source_checksum: str = ""
    target_checksum: str = ""
    copied: bool = False  # copied by this run (else found already equal on the target)
    seconds: float = 0.0

    @property
    def equal(self) -> bool:
        return (self.source_rows, self.source_checksum) == (self.target_rows,
                                                            self.target_checksum)


@dataclass
class MoveReport:
    source: str  # where the tables came from and went to, passwords masked
    target: str
    tables: list[TableReport] = field(default_factory=list)
    rows_copied: int = 0
    copy_seconds: float = 0.0
    seconds: float = 0.0
    switched: bool = False  # the corpus settings now name the target
    changed_meanwhile: bool = False  # another process wrote to the SQLite corpus meanwhile
    index_kept: Path | None = None  # the search index, served as it is by the new database

    @property
    def rows_per_second(self) -> float:
        return self.rows_copied / self.copy_seconds if self.copy_seconds else 0.0


# -- one canonical text per row, the same from both databases ------------------------------

def _kind(column: Any) -> str:
    t = column.type
    if isinstance(t, DateTime):
        return "timestamp"
    if isinstance(t, Date):
        return "date"
    if isinstance(t, Boolean):
        return "bool"
    if isinstance(t, Float):
        return "float"
    if isinstance(t, Integer):  # BigInteger too
        return "int"
    return "text"


def _timestamp(value: Any) -> str:
    # SQLite keeps timestamps as SQLAlchemy writes them, UTC without an offset
    # ("2026-12-02 08:00:00.000000"); PostgreSQL gives them back as aware datetimes.
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")


def _date(value: Any) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)


_CANONICAL: dict[str, Callable[[Any], str]] = {
    "timestamp": _timestamp,
    "date": _date,
    "bool": lambda v: "t" if v else "f",
    "float": lambda v: repr(float(v)),
    "int": lambda v: str(int(v)),
    "text": str,
}


class Checksum:
    """Rows counted and hashed one by one, the hashes summed: the same sum whatever order
    the rows come in, so neither side has to sort them (text keys sort differently under
    PostgreSQL's collations)."""

    def __init__(self, kinds: list[str]) -> None:
        self.converters = [_CANONICAL[k] for k in kinds]
        self.rows = 0
        self.total = 0

    def add(self, rows: Iterable[tuple]) -> None:
        converters = self.converters
        total = self.total
        n = 0
        for row in rows:
            text = "\x1e".join([_NULL if v is None else f(v)
                                for f, v in zip(converters, row, strict=True)])
            total += int.from_bytes(hashlib.blake2b(text.encode(), digest_size=16).digest())
            n += 1
        self.total = total % _DIGEST_MOD
        self.rows += n

    @property
    def hex(self) -> str:
        return f"{self.total:032x}"


# -- the move ---------------------------------------------------------------------------

def move_to_postgresql(
    settings: Settings, target_url: str, *,
    on_table: Callable[[str, int], None] | None = None,
    on_rows: Callable[[int], None] | None = None,
) -> MoveReport:
    """Copy every table of this SQLite corpus to the PostgreSQL database at target_url,
    verify each by count and checksum, then point the corpus settings at it.

    on_table(name, rows) is called as each table starts, on_rows(n) as rows are read.
    """
    started = time.monotonic()
    if not settings.is_sqlite:
        raise UserError(f"this corpus is already on {safe_url(settings.database_url)}: "
                        "migrate --to moves a SQLite corpus")
    url = normalize_database_url(target_url)
    if not url.startswith("postgresql"):
        raise UserError(f"--to takes a PostgreSQL URL (postgresql://user@host/db), not "
                        f"{safe_url(target_url)}")
    db_file = Path(settings.database_url.removeprefix("sqlite:///"))
    report = MoveReport(source=str(db_file), target=safe_url(url))
    source = _open_source(db_file)
    try:
        tables = _tables(source)
        data_version = source.execute("PRAGMA data_version").fetchone()[0]
        # One read transaction: every table is read from the same snapshot of the corpus.
        source.execute("BEGIN")
        target = _connect(url)
        try:
            _refuse_foreign_schema(target, url)
            Store.open(url).close()  # the schema, through the project's migrations
            _claim(target, source, tables, str(db_file), url)
            for table in tables:
                report.tables.append(_move_table(source, target, table, report, on_table,
                                                 on_rows))
            target.execute(sql.SQL("UPDATE {} SET finished_at = now() WHERE source = %s")
                           .format(sql.Identifier(MARKER)), [str(db_file)])
            target.commit()
        finally:
            target.close()
        source.execute("COMMIT")
        # data_version moves when another connection commits: a harvest or an extraction
        # that wrote during the copy would be lost by switching now.
        report.changed_meanwhile = (
            source.execute("PRAGMA data_version").fetchone()[0] != data_version)
    finally:
        source.close()
    if all(t.equal for t in report.tables) and not report.changed_meanwhile:
        set_database(settings.folder, target_url)
        report.switched = True
        index = settings.folder / "search-index"
        report.index_kept = index if index.is_dir() else None
    report.seconds = time.monotonic() - started
    return report


def _open_source(db_file: Path) -> sqlite3.Connection:
    if not db_file.is_file():
        raise UserError(f"the corpus database {db_file} does not exist")
    # mode=ro: SQLite itself refuses every write, so the corpus cannot be changed by a move.
    conn = sqlite3.connect(f"file:{db_file}?mode=ro", uri=True, isolation_level=None,
                           timeout=30)
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def _connect(url: str) -> psycopg.Connection:
    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    try:
        conn = psycopg.connect(plain, connect_timeout=10)
    except psycopg.OperationalError as e:
        reason = " ".join(str(e).split())
        raise UserError(f"cannot reach the database {safe_url(url)}: {reason}") from None
    # SQLite holds UTC timestamps without an offset: read them as UTC.
    conn.execute("SET TimeZone = 'UTC'")
    conn.commit()
    return conn


def _tables(source: sqlite3.Connection) -> list[Table]:
    """The corpus tables in dependency order, checked against the SQLite file: a file of
    another schema version is one line, not a half-done copy."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from .db import MIGRATIONS

    scripts = Config()
    scripts.set_main_option("script_location", str(MIGRATIONS))
    heads = set(ScriptDirectory.from_config(scripts).get_heads())
    try:
        current = {r[0] for r in source.execute("SELECT version_num FROM alembic_version")}
    except sqlite3.DatabaseError as e:
        raise UserError(f"the corpus database cannot be read: {e}") from None
    if current != heads:
        raise UserError("the corpus database is at another schema version than this locleg "
                        f"({', '.join(sorted(current)) or 'none'}; this one: "
                        f"{', '.join(sorted(heads))}): run `locleg status` once to bring it "
                        "up to date, then migrate")
    present = {r[0] for r in source.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    present.discard("alembic_version")
    ours = {t.name for t in metadata.sorted_tables}
    if present - ours:
        raise UserError(f"the corpus database holds tables this locleg does not know "
                        f"({', '.join(sorted(present - ours))}): nothing was copied")
    tables = [t for t in metadata.sorted_tables if t.name in present]
    for t in tables:
        columns = {r[1] for r in source.execute(f'PRAGMA table_info("{t.name}")')}
        if columns != {c.name for c in t.columns}:
            raise UserError(f"the corpus table {t.name} has other columns than this locleg "
                            "expects: nothing was copied")
    return tables


def _refuse_foreign_schema(target: psycopg.Connection, url: str) -> None:
    """A database holding tables, but no locleg schema, belongs to something else."""
    names = [r[0] for r in target.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
        "ORDER BY tablename")]
    target.commit()
    if names and "alembic_version" not in names:
        raise UserError(f"{safe_url(url)} already holds {len(names)} tables that are not a "
                        f"br-locleg corpus (first: {names[0]}): give an empty database")


def _count(target: psycopg.Connection, name: str) -> int:
    return target.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(name))
                          ).fetchone()[0]


def _claim(target: psycopg.Connection, source: sqlite3.Connection, tables: list[Table],
           source_name: str, url: str) -> None:
    """Mark the target as a copy of this corpus, unless it holds another one: rows that are
    not this corpus's and no marker of an earlier move of it."""
    marks = []
    if target.execute("SELECT to_regclass(%s)", [MARKER]).fetchone()[0] is not None:
        marks = [r[0] for r in target.execute(
            sql.SQL("SELECT source FROM {}").format(sql.Identifier(MARKER)))]
    if source_name in marks:
        target.commit()
        return
    if marks:
        raise UserError(f"{safe_url(url)} already holds another corpus (moved there from "
                        f"{marks[0]}): give an empty database")
    for table in tables:
        if _count(target, table.name) == 0:
            continue
        # Rows already there are allowed only when they are this corpus's own (the IBGE list
        # that `locleg init --db` loads is the same everywhere).
        source_sum = _source_checksum(source, table)
        target_sum = _target_checksum(target, table)
        if (source_sum.rows, source_sum.hex) != (target_sum.rows, target_sum.hex):
            raise UserError(f"{safe_url(url)} already holds another corpus (its table "
                            f"{table.name} has rows that are not this corpus's): give an "
                            "empty database")
    target.execute(sql.SQL(
        "CREATE TABLE IF NOT EXISTS {} (source text PRIMARY KEY, "
        "started_at timestamptz NOT NULL, finished_at timestamptz)"
    ).format(sql.Identifier(MARKER)))
    target.execute(sql.SQL("INSERT INTO {} (source, started_at) VALUES (%s, now())")
                   .format(sql.Identifier(MARKER)), [source_name])
    target.commit()


def _columns(table: Table) -> list[str]:
    return [c.name for c in table.columns]


def _source_rows(source: sqlite3.Connection, table: Table) -> Iterator[list[tuple]]:
    # Names come from our own metadata, never from input.
    columns = ", ".join(f'"{c}"' for c in _columns(table))
    cursor = source.execute(f'SELECT {columns} FROM "{table.name}"')
    while batch := cursor.fetchmany(BATCH):
        yield batch


def _source_checksum(source: sqlite3.Connection, table: Table) -> Checksum:
    checksum = Checksum([_kind(c) for c in table.columns])
    for batch in _source_rows(source, table):
        checksum.add(batch)
    return checksum


def _target_checksum(target: psycopg.Connection, table: Table) -> Checksum:
    checksum = Checksum([_kind(c) for c in table.columns])
    query = sql.SQL("SELECT {} FROM {}").format(
        sql.SQL(", ").join(sql.Identifier(c) for c in _columns(table)),
        sql.Identifier(table.name))
    with target.cursor(name=f"checksum_{table.name}") as cursor:  # server-side: streamed
        cursor.itersize = BATCH
        cursor.execute(query)
        while batch := cursor.fetchmany(BATCH):
            checksum.add(batch)
    target.commit()
    return checksum


def _move_table(source: sqlite3.Connection, target: psycopg.Connection, table: Table,
                report: MoveReport, on_table, on_rows) -> TableReport:
    started = time.monotonic()
    result = TableReport(table.name)
    source_rows = source.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
    if on_table:
        on_table(table.name, source_rows)
    stale = _count(target, table.name) > 0
    if stale or source_rows == 0:
        target.commit()
        source_sum = _source_checksum(source, table)
        target_sum = _target_checksum(target, table)
        if (source_sum.rows, source_sum.hex) == (target_sum.rows, target_sum.hex):
            _set_sequence(target, table)
            result.source_rows, result.source_checksum = source_sum.rows, source_sum.hex
            result.target_rows, result.target_checksum = target_sum.rows, target_sum.hex
            result.seconds = time.monotonic() - started
            if on_rows:
                on_rows(source_rows)
            return result
        # Not equal: the SQLite corpus changed since an interrupted move. The table is copied
        # again below (TRUNCATE in the copy's own transaction).
    target.commit()
    copy_started = time.monotonic()
    source_sum = _copy(source, target, table, on_rows, stale)
    report.copy_seconds += time.monotonic() - copy_started
    report.rows_copied += source_sum.rows
    # Statistics for the planner and the visibility map for index-only scans, at once
    # rather than when autovacuum comes round.
    target.commit()
    target.autocommit = True
    try:
        target.execute(sql.SQL("VACUUM (ANALYZE) {}").format(sql.Identifier(table.name)))
    finally:
        target.autocommit = False
    _set_sequence(target, table)
    target_sum = _target_checksum(target, table)
    result.source_rows, result.source_checksum = source_sum.rows, source_sum.hex
    result.target_rows, result.target_checksum = target_sum.rows, target_sum.hex
    result.copied = True
    result.seconds = time.monotonic() - started
    return result


def _copy(source: sqlite3.Connection, target: psycopg.Connection, table: Table,
          on_rows, stale: bool) -> Checksum:
    """One table in one transaction: empty it, COPY every row in, check its references.

    Its foreign keys are dropped for the COPY and added back before the commit: PostgreSQL
    then checks every reference in one join instead of one lookup per row, and a norm may
    name a norm merged into it further on in the same table. Its triggers (which queue
    changed norms for the index and enrichment) are off: the queues are copied as they are.
    A table left with other rows (the SQLite corpus changed since an interrupted move) is
    emptied in the same transaction first.
    """
    name = sql.Identifier(table.name)
    checksum = Checksum([_kind(c) for c in table.columns])
    foreign_keys = target.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = %s::regclass AND contype = 'f' ORDER BY conname",
        [table.name]).fetchall()
    target.commit()  # so that the block below is the transaction itself, not a savepoint
    with target.transaction():
        for fk_name, _ in foreign_keys:
            target.execute(sql.SQL("ALTER TABLE {} DROP CONSTRAINT {}")
                           .format(name, sql.Identifier(fk_name)))
        if stale:
            # CASCADE: the tables that reference this one come later in the order and are
            # copied again after it.
            target.execute(sql.SQL("TRUNCATE {} CASCADE").format(name))
        target.execute(sql.SQL("ALTER TABLE {} DISABLE TRIGGER USER").format(name))
        copy_sql = sql.SQL("COPY {} ({}) FROM STDIN").format(
            name, sql.SQL(", ").join(sql.Identifier(c) for c in _columns(table)))
        with target.cursor() as cursor, cursor.copy(copy_sql) as copy:
            for batch in _source_rows(source, table):
                for row in batch:
                    copy.write_row(row)
                checksum.add(batch)
                if on_rows:
                    on_rows(len(batch))
        target.execute(sql.SQL("ALTER TABLE {} ENABLE TRIGGER USER").format(name))
        for fk_name, definition in foreign_keys:
            # The definition is PostgreSQL's own text of the constraint it held a moment ago.
            target.execute(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} {}").format(
                name, sql.Identifier(fk_name), sql.SQL(definition)))
    return checksum


def _set_sequence(target: psycopg.Connection, table: Table) -> None:
    """New rows after the move get fresh ids: the table's sequence continues past the
    largest copied id."""
    keys = list(table.primary_key.columns)
    if len(keys) != 1 or not isinstance(keys[0].type, Integer):
        return
    sequence = target.execute("SELECT pg_get_serial_sequence(%s, %s)",
                              [table.name, keys[0].name]).fetchone()[0]
    if sequence is None:
        return
    largest = target.execute(sql.SQL("SELECT max({}) FROM {}").format(
        sql.Identifier(keys[0].name), sql.Identifier(table.name))).fetchone()[0]
    if largest is None:
        target.execute("SELECT setval(%s, 1, false)", [sequence])
    else:
        target.execute("SELECT setval(%s, %s, true)", [sequence, largest])
    target.commit()
