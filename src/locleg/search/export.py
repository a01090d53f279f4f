"""Every match of a search, streamed as rows, CSV or JSON lines: the export behind a result
page and behind `locleg search --csv / --jsonl`. The norms the query names ("lei 2199") come
first, then every match of the words, newest added first.

Each chunk of rows gets the whole search budget (an export of a million matches is long but
never stuck), and CSV cells that a spreadsheet would run as a formula are neutralised.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from datetime import date

from sqlalchemy import bindparam, text

from ..spreadsheet import inert
from ..store import Store
from . import textindex
from .budget import Budget
from .engine import SearchRequest, _ids, _plan, named
from .hits import _as_date

EXPORT_COLUMNS = ("norm_id", "jurisdiction_code", "uf", "jurisdiction", "type_raw", "type",
                  "number", "year", "date", "ementa", "source_url", "status", "urn",
                  "document_urls", "methods", "confidence")
# Lists (a norm's documents) in a CSV cell: its items joined by this.
LIST_SEPARATOR = " | "
CHUNK = 1000
_ROWS = text(
    "SELECT n.id, n.jurisdiction_code, j.uf, j.name, n.type_raw, n.type_normalized, n.number, "
    "n.year, n.date, n.ementa, "
    "(SELECT r.url FROM record r WHERE r.norm_id = n.id ORDER BY r.id LIMIT 1) AS url, "
    "s.confidence, n.status, n.urn FROM norm n "
    "JOIN jurisdiction j ON j.ibge_code = n.jurisdiction_code "
    "LEFT JOIN search_norm s ON s.norm_id = n.id WHERE n.id IN :ids"
).bindparams(bindparam("ids", expanding=True))
# Its documents, texto integral first: where each comes from and how its text was read.
_DOCUMENTS = text(
    "SELECT r.norm_id, d.url, e.method, e.confidence FROM record r "
    "JOIN document d ON d.record_id = r.id "
    "LEFT JOIN extraction e ON e.version_id = d.current_version_id "
    "WHERE r.norm_id IN :ids ORDER BY r.norm_id, d.role != 'texto_integral', d.id"
).bindparams(bindparam("ids", expanding=True))


def iter_matches(store: Store, request: SearchRequest, chunk: int = CHUNK,
                 budget: Budget | None = None) -> Iterator[dict]:
    """Every match of a search, newest added first, streamed. Each chunk of `chunk` rows
    must come within the budget's seconds (SearchTooCostly otherwise); `budget.cancel()`
    stops the stream (SearchCancelled)."""
    if request.is_empty:
        return
    budget = budget or Budget()
    plan = _plan(request)
    searcher = textindex.for_store(store).searcher()
    with store.engine.connect() as conn, budget.guard(conn):
        first = named(conn, searcher, plan, request)[1] if plan.node is not None else []
    yield from _rows(store, first, budget)
    shown = set(first)
    below = None  # keyset: the norms with ids below the last one read
    while True:
        budget.restart()
        clauses = [] if below is None else [textindex.before_norm(below)]
        found = searcher.search(plan.restricted(*clauses), chunk, count=False,
                                order_by_field="norm_id")
        ids = _ids(searcher, found)
        if not ids:
            return
        below = min(ids)
        yield from _rows(store, [i for i in ids if i not in shown], budget)


def _rows(store: Store, ids: list[int], budget: Budget) -> Iterator[dict]:
    """The export rows of these norms, in this order."""
    if not ids:
        return
    with store.engine.connect() as conn, budget.guard(conn):
        by_id = {r[0]: r for r in conn.execute(_ROWS, {"ids": ids})}
        urls: dict[int, list[str]] = {}
        methods: dict[int, list[str]] = {}
        lowest: dict[int, float] = {}
        for d in conn.execute(_DOCUMENTS, {"ids": ids}):
            urls.setdefault(d.norm_id, []).append(d.url)
            if d.confidence is not None:
                lowest[d.norm_id] = min(d.confidence, lowest.get(d.norm_id, d.confidence))
            if d.method and d.method not in methods.setdefault(d.norm_id, []):
                methods[d.norm_id].append(d.method)
    for norm_id in ids:
        r = by_id.get(norm_id)
        if r is None:
            continue
        yield dict(zip(EXPORT_COLUMNS, (
            r.id, r.jurisdiction_code, r.uf, r.name, r.type_raw, r.type_normalized,
            r.number, r.year, _as_date(r.date), r.ementa, r.url, r.status, r.urn,
            urls.get(norm_id, []), methods.get(norm_id, []), lowest.get(norm_id)),
            strict=True))


def csv_cell(value: object) -> object:
    """A value as a CSV cell: dates in ISO 8601, lists joined, formula-like text
    neutralised."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        value = LIST_SEPARATOR.join(str(v) for v in value)
    return inert(value) if isinstance(value, str) else value


def csv_lines(rows: Iterable[dict], flush_at: int = 1 << 16) -> Iterator[str]:
    """The header, then the rows, as CSV text in pieces of about `flush_at` characters."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(EXPORT_COLUMNS)
    for row in rows:
        writer.writerow([csv_cell(row[c]) for c in EXPORT_COLUMNS])
        if buffer.tell() > flush_at:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def jsonl_lines(rows: Iterable[dict]) -> Iterator[str]:
    """One JSON object per line, dates in ISO 8601."""
    for row in rows:
        yield json.dumps({k: v.isoformat() if isinstance(v, date) else v
                          for k, v in row.items()}, ensure_ascii=False) + "\n"
