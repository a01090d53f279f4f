"""Writing one table of a release: Parquet, gzipped JSON lines or gzipped CSV, one folder per
UF (hive style, uf=BA/part-00000.parquet), hashed as written, under temporary names. CSV
cells a spreadsheet would run as formulas are made inert (locleg.spreadsheet).

Rows arrive in batches mixing UFs; each UF keeps a small buffer of Arrow data that becomes a
Parquet row group (or a run of lines) when it is big enough, and the buffers together never
hold more than BUFFERED_BYTES: memory stays flat whatever the corpus size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from isal import igzip

from ..spreadsheet import inert_column
from .tables import TableSpec

FORMATS = ("parquet", "jsonl", "csv")
SUFFIXES = {"parquet": ".parquet", "jsonl": ".jsonl.gz", "csv": ".csv.gz"}
GROUP_BYTES = 4 << 20  # a UF's buffer becomes a row group at this size...
GROUP_ROWS = 100_000  # ...or this many rows
BUFFERED_BYTES = 16 << 20  # all UFs' buffers together
PART_BYTES = 1 << 30  # a file is closed and the next part begun past this size
JSON_ROWS = 2000  # rows turned into Python objects at a time, for JSON lines


@contextmanager
def lean_memory_pool() -> Iterator[None]:
    """Arrow's jemalloc pool for the export, where the wheel has it: it returns freed memory
    to the system (mimalloc, the default, kept 60 MB more at the peak of a release with
    text: docs/benchmarks.md)."""
    previous = pa.default_memory_pool()
    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:  # a pyarrow built without jemalloc
        yield
        return
    pa.set_memory_pool(pool)
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


def part_path(table: str, uf: str, number: int, fmt: str) -> str:
    """A part's final path inside the release: norms/uf=BA/part-00000.parquet."""
    return f"{table}/uf={uf}/part-{number:05d}{SUFFIXES[fmt]}"


def staged_name(path: str) -> str:
    """Where a part is written before it is complete: one flat name in the staging folder."""
    return path.replace("/", "~")


class HashingFile:
    """A binary file that hashes and counts what goes through it."""

    def __init__(self, path: Path) -> None:
        self.raw = open(path, "wb")  # noqa: SIM115 -- closed by close()
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, data) -> int:
        view = memoryview(data)
        self.sha256.update(view)
        self.size += view.nbytes
        return self.raw.write(view)

    def flush(self) -> None:
        self.raw.flush()

    def tell(self) -> int:
        return self.size

    @property
    def closed(self) -> bool:
        return self.raw.closed

    def close(self) -> None:
        if not self.raw.closed:
            self.raw.flush()
            self.raw.close()


@dataclass
class WrittenFile:
    path: str  # relative to the release folder
    rows: int
    bytes: int
    sha256: str


class _Part:
    """One file being written: a Parquet writer, or a gzip stream of lines."""

    def __init__(self, spec: TableSpec, fmt: str, staging: Path, path: str) -> None:
        self.fmt, self.path, self.rows = fmt, path, 0
        # Staged flat (no folder per UF to make and remove), renamed into uf=XX/ when done.
        self.staged = staging / staged_name(path)
        self.file = HashingFile(self.staged)
        if fmt == "parquet":
            self.schema = spec.schema.remove(spec.schema.get_field_index("uf"))
            # Long text has no use for a dictionary (tried, then dropped, at a cost for
            # every page) nor for min/max statistics (kept for every row group until the
            # file is closed: memory that grew with the release).
            short = [f.name for f in self.schema if f.name != "text"]
            self.writer = pq.ParquetWriter(self.file, self.schema, compression="zstd",
                                           use_dictionary=short, write_statistics=short)
        else:
            # ISA-L's gzip at its level 3: 13x zlib's level 6 on page text (312 against 23
            # MB/s) for 10 % more bytes; any gzip reader reads it. mtime 0: the same rows
            # give the same bytes, and the same SHA-256.
            self.gzip = igzip.GzipFile(fileobj=self.file, mode="wb", compresslevel=3, mtime=0)
            self.stream = pa.PythonFile(self.gzip, mode="w")
            if fmt == "csv":
                self.writer = pacsv.CSVWriter(self.stream, spec.schema)

    def write(self, table: pa.Table) -> None:
        self.rows += table.num_rows
        if self.fmt == "parquet":
            self.writer.write_table(table.drop_columns(["uf"]),
                                    row_group_size=max(1, table.num_rows))
        elif self.fmt == "csv":
            # Spreadsheets open CSV: a cell they would run as a formula gets a quote before
            # it, as in every CSV we write. Parquet and JSON lines keep the exact value.
            self.writer.write_table(pa.table(
                [inert_column(c) for c in table.columns], schema=table.schema))
        else:
            # orjson: UTF-8 out at once, times as ISO 8601, 4x json.dumps's speed here. A
            # few thousand rows at a time as Python objects: a whole row group of them took
            # 130 MB more than its Arrow data.
            for batch in table.to_batches(max_chunksize=JSON_ROWS):
                self.stream.write(b"".join(
                    orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE)
                    for row in batch.to_pylist()))

    @property
    def size(self) -> int:
        return self.file.size

    def close(self) -> None:
        if self.fmt == "parquet":
            self.writer.close()
        else:
            if self.fmt == "csv":
                self.writer.close()
            self.gzip.close()  # writes the gzip trailer; the file stays open for close()
        self.file.close()


@dataclass
class TableWriter:
    """A table's rows, split by UF into part files under `staging`/<table>/uf=XX/."""

    spec: TableSpec
    fmt: str
    staging: Path
    files: list[WrittenFile] = field(default_factory=list)
    rows: int = 0
    _pending: dict[str, list[pa.RecordBatch]] = field(default_factory=dict)
    _pending_bytes: dict[str, int] = field(default_factory=dict)
    _parts: dict[str, _Part] = field(default_factory=dict)
    _numbers: dict[str, int] = field(default_factory=dict)

    def add(self, batch: pa.RecordBatch) -> None:
        """Buffer a batch of rows (the spec's columns, uf included)."""
        if not batch.num_rows:
            return
        self.rows += batch.num_rows
        counts = {item["values"]: item["counts"]
                  for item in pc.value_counts(batch.column("uf")).to_pylist()}
        if self.spec.text:
            # Texts come UF after UF (tables.text_rows): a UF no longer coming is done,
            # and its file closed, so that one file is open at a time.
            for uf in [u for u in {*self._pending, *self._parts} if u not in counts]:
                self._flush(uf)
                if uf in self._parts:
                    self._close(uf)
        # One sort, then each UF takes its rows into buffers of its own: a slice would keep
        # the whole batch alive for as long as any UF's buffer waits.
        order = pc.sort_indices(batch.column("uf")) if len(counts) > 1 else None
        offset = 0
        for uf in sorted(counts):
            part = batch if order is None else batch.take(order.slice(offset, counts[uf]))
            offset += counts[uf]
            self._pending.setdefault(uf, []).append(part)
            self._pending_bytes[uf] = self._pending_bytes.get(uf, 0) + part.nbytes
            if (self._pending_bytes[uf] >= GROUP_BYTES
                    or sum(t.num_rows for t in self._pending[uf]) >= GROUP_ROWS):
                self._flush(uf)
        # Rows of text are big: their buffers together stay at half (peak RSS <= 300 MB).
        limit = BUFFERED_BYTES // 2 if self.spec.text else BUFFERED_BYTES
        while sum(self._pending_bytes.values()) > limit:
            self._flush(max(self._pending_bytes, key=self._pending_bytes.get))

    def _flush(self, uf: str) -> None:
        tables = self._pending.pop(uf, [])
        self._pending_bytes.pop(uf, None)
        if not tables:
            return
        part = self._parts.get(uf)
        if part is None:
            number = self._numbers.get(uf, 0)
            self._numbers[uf] = number + 1
            part = self._parts[uf] = _Part(self.spec, self.fmt, self.staging,
                                           part_path(self.spec.name, uf, number, self.fmt))
        part.write(pa.Table.from_batches(tables))
        del tables
        # Give back to the system what the written row group held, rather than let the
        # allocator keep it for a peak that will not come again.
        pa.default_memory_pool().release_unused()
        if part.size >= PART_BYTES:
            self._close(uf)

    def _close(self, uf: str) -> None:
        part = self._parts.pop(uf)
        part.close()
        self.files.append(WrittenFile(part.path, part.rows, part.size,
                                      part.file.sha256.hexdigest()))

    def finish(self, empty_uf: str) -> list[WrittenFile]:
        """Write what is buffered, close every file; a table without rows still gets one
        empty file (in `empty_uf`'s folder) so that readers find its schema."""
        for uf in list(self._pending):
            self._flush(uf)
        if not self._parts and not self.files:
            self._parts[empty_uf] = _Part(self.spec, self.fmt, self.staging,
                                          part_path(self.spec.name, empty_uf, 0, self.fmt))
            self._parts[empty_uf].write(self.spec.schema.empty_table())
        for uf in list(self._parts):
            self._close(uf)
        self.files.sort(key=lambda f: f.path)
        return self.files

    def abandon(self) -> None:
        for part in self._parts.values():
            part.file.close()
