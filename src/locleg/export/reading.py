"""One snapshot of the corpus, read as Arrow record batches: what a release is written from.

SQLite is read through ADBC's SQLite driver, which steps through the result in C and fills
Arrow columns with no Python object per value: a metadata release reads twice as fast as
through `sqlite3`'s tuples and skips their conversion to Arrow (docs/benchmarks.md).
PostgreSQL is read through SQLAlchemy's server-side cursor, a batch of rows at a time, each
batch converted to Arrow.

Either way the reads of one release share one read transaction (a WAL snapshot on SQLite,
REPEATABLE READ on PostgreSQL): rows written meanwhile are not half in it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path

import pyarrow as pa
from sqlalchemy import func, literal, literal_column, select, union_all
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.sql import Select

from ..store.db import _among

# A batch's rows: Arrow columns a few MB each for metadata (card.gather and the UF split
# cost per batch, so not too few), and fewer for page texts, which can be long.
BATCH_ROWS = 8192
TEXT_BATCH_ROWS = 512


def arrow(values: Sequence, type: pa.DataType) -> pa.Array:
    """A column as Arrow. Dates and times may come as SQLite's ISO text ('2026-11-29
    12:00:00.000000', in UTC): parsed by Arrow at once, then marked as UTC."""
    if pa.types.is_timestamp(type) or pa.types.is_date(type):
        first = next((v for v in values if v is not None), None)
        if isinstance(first, str):
            return typed(pa.array(values, type=pa.string()), type)
    return pa.array(values, type=type)


def typed(column: pa.Array, type: pa.DataType) -> pa.Array:
    """A column read from the database, as the release's type."""
    if column.type == type:
        return column
    if pa.types.is_timestamp(type) and pa.types.is_string(column.type):
        return column.cast(pa.timestamp(type.unit)).cast(type)
    return column.cast(type)


class Snapshot:
    """The reads of a release: a few small queries, and tables read as batches."""

    dialect_name: str

    def all(self, query) -> list[tuple]:
        raise NotImplementedError

    def among(self, column, values: list):
        """column IN values, as this database takes many values best."""
        return column.in_(values)

    def scalar(self, query):
        rows = self.all(query)
        return rows[0][0] if rows else None

    def batches(self, query: Select, schema: pa.Schema, order: Sequence[int] = (1,),
                rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
        """The query's rows ordered by the columns at positions `order` (from 1), as
        batches of `schema` (the query's columns in that order, any names)."""
        raise NotImplementedError


class _PostgreSQLSnapshot(Snapshot):
    dialect_name = "postgresql"

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def all(self, query) -> list[tuple]:
        return [tuple(r) for r in self.conn.execute(query)]

    def among(self, column, values):
        return _among(self.conn, column, values)

    def batches(self, query, schema, order=(1,), rows=BATCH_ROWS):
        columns = list(query.selected_columns)
        ordered = query.order_by(*(columns[i - 1] for i in order))
        result = self.conn.execution_options(stream_results=True,
                                             max_row_buffer=rows).execute(ordered)
        try:
            while chunk := result.fetchmany(rows):
                values = list(zip(*chunk, strict=True))
                yield pa.RecordBatch.from_arrays(
                    [arrow(v, f.type) for v, f in zip(values, schema, strict=True)],
                    schema=schema)
        finally:
            result.close()


_SQLITE = sqlite.dialect()
# What the typing row (see _SQLiteSnapshot.batches) holds for each Arrow type.
_TYPING_VALUE = {pa.int64(): -1, pa.float64(): 0.5}


_DATETIME = sqlite.DATETIME().bind_processor(_SQLITE)
_DATE = sqlite.DATE().bind_processor(_SQLITE)


def _bound(value):
    """A value bound as SQLAlchemy binds it on SQLite: times and dates as its ISO text."""
    if isinstance(value, datetime):
        return _DATETIME(value)
    if isinstance(value, date):
        return _DATE(value)
    return value


class _SQLiteSnapshot(Snapshot):
    dialect_name = "sqlite"

    def __init__(self, conn) -> None:
        self.conn = conn  # an ADBC connection inside a read transaction

    def among(self, column, values):
        # One parameter, a JSON array, rather than one a value: SQLAlchemy takes 25 ms to
        # compile a statement of 2,000 parameters, longer than SQLite takes to answer it.
        each = func.json_each(json.dumps(values)).table_valued("value")
        return column.in_(select(each.c.value))

    @contextmanager
    def _run(self, query, rows: int | None = None) -> Iterator[pa.RecordBatchReader]:
        from adbc_driver_manager import AdbcStatement

        compiled = query.compile(dialect=_SQLITE, compile_kwargs={"render_postcompile": True})
        params = [_bound(compiled.params[name]) for name in compiled.positiontup or ()]
        statement = AdbcStatement(self.conn)
        try:
            statement.set_sql_query(str(compiled))
            if rows:
                statement.set_options(**{"adbc.sqlite.query.batch_rows": str(rows)})
            if params:
                statement.bind(pa.RecordBatch.from_pylist(
                    [{f"p{i}": v for i, v in enumerate(params)}]))
            stream, _ = statement.execute_query()
            with pa.RecordBatchReader.from_stream(stream) as reader:
                yield reader
        finally:
            statement.close()

    def all(self, query) -> list[tuple]:
        with self._run(query) as reader:
            table = reader.read_all()
        return list(zip(*(c.to_pylist() for c in table.columns), strict=True))

    def batches(self, query, schema, order=(1,), rows=BATCH_ROWS):
        # ADBC's driver types each column from the values of the first batch, and a column
        # that starts with a batch of nulls becomes int64, then fails on its first string
        # (a URN, a removal time). So the result begins with one row of typed values, first
        # in the order (ids are positive), dropped once read. SQLite merges the two arms of
        # the UNION ALL in order, without sorting the table.
        first_key = order[0] - 1
        typing_row = select(*(
            literal(-1 if i == first_key else _TYPING_VALUE.get(f.type, "")).label(f"c{i}")
            for i, f in enumerate(schema)))
        ordered = union_all(typing_row, query).order_by(
            *(literal_column(str(i)) for i in order))
        with self._run(ordered, rows) as reader:
            skip = 1
            for batch in reader:
                if skip:
                    batch, skip = batch.slice(skip), 0
                if batch.num_rows:
                    yield pa.RecordBatch.from_arrays(
                        [typed(c, f.type) for c, f in zip(batch.columns, schema, strict=True)],
                        schema=schema)


@contextmanager
def snapshot(engine: Engine) -> Iterator[Snapshot]:
    """A read transaction over the corpus's database, for as long as the export runs."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="REPEATABLE READ",
                                                postgresql_readonly=True) as conn:
            with conn.begin():
                yield _PostgreSQLSnapshot(conn)
        return
    # The low-level API: the DB-API module would import pandas (through pyarrow.dataset)
    # where it is installed, 40 MB of a release's 300.
    import adbc_driver_sqlite
    from adbc_driver_manager import AdbcConnection

    database = adbc_driver_sqlite.connect(str(Path(engine.url.database or "")))
    conn = AdbcConnection(database)
    try:
        # Autocommit off: the driver begins a (deferred) transaction; the first read fixes
        # the snapshot that every later read of this release sees.
        conn.set_autocommit(False)
        yield _SQLiteSnapshot(conn)
    finally:
        conn.rollback()
        conn.close()
        database.close()


__all__ = ["Snapshot", "snapshot", "arrow", "typed", "BATCH_ROWS", "TEXT_BATCH_ROWS"]
