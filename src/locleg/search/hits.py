"""What a page of results shows of each norm: its fields and a snippet of its text, read in
one statement; and the names of the jurisdictions its facets list.

The index ranks; the database answers only for the norms shown, by primary key. A search is
a handful of milliseconds of database work at any corpus size, so what counts here is the
number of statements (each a round trip, and on PostgreSQL a plan): one for the norms and
their texts together, none for jurisdiction names after the first search of a process. On
PostgreSQL the ids go in as one array, so the statement's text is the same whatever the page
and psycopg prepares it once per connection instead of planning it on every search.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from datetime import date
from itertools import groupby

from markupsafe import Markup, escape
from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection, Engine

from ..enrich.status import NONE_KNOWN
from ..store.openings import WHOLE_TEXT_CHARS, read_opening
from .budget import Budget
from .snippets import EMENTA_SHOWN, WINDOW, Highlighter
from .text import MARK_END, MARK_START, clean


@dataclass
class Hit:
    norm_id: int
    score: float | None
    jurisdiction_code: int
    jurisdiction: str
    uf: str
    type_raw: str | None
    type: str | None
    number: str | None
    year: int | None
    date: date | None
    ementa: str | None
    ementa_html: Markup
    snippet_html: Markup
    status: str = NONE_KNOWN
    urn: str | None = None
    cited_by: int = 0
    named: bool = False  # named by the query ("lei 2199"), so pinned first


def marked(fragment: str | None) -> Markup:
    """Escape text, then turn the highlight markers into <mark> elements."""
    escaped = str(escape(fragment or ""))
    return Markup(escaped.replace(MARK_START, "<mark>").replace(MARK_END, "</mark>"))


# A norm's fields, then one row per page of its documents' current versions (in document and
# page order), each page cut to the snippet window. A norm without documents or pages still
# gives one row (LEFT JOINs). The norms to read: `{ids}`, filled per dialect below.
_NORMS_AND_PAGES = """
SELECT n.id, n.jurisdiction_code, n.type_raw, n.type_normalized, n.number, n.year, n.date,
       n.ementa, n.status, n.urn, n.cited_by, d.id AS document_id, v.sha256, {window} AS text,
       {page_row} AS page_row
FROM norm n
LEFT JOIN record r ON r.norm_id = n.id
LEFT JOIN document d ON d.record_id = r.id AND d.removed_at IS NULL
LEFT JOIN version v ON v.id = d.current_version_id
LEFT JOIN page p ON p.version_id = d.current_version_id{extraction}
WHERE n.id {ids}
ORDER BY n.id, d.id, p.number
"""
# On SQLite a page of a huge version is left to store.openings (page_row is its rowid).
_STATEMENTS = {
    "sqlite": text(_NORMS_AND_PAGES.format(
        window="CASE WHEN e.chars <= :whole THEN substr(p.text, 1, :chars) END",
        page_row="CASE WHEN e.chars <= :whole THEN NULL ELSE p.rowid END",
        extraction="\nLEFT JOIN extraction e ON e.version_id = d.current_version_id",
        ids="IN :ids",
    )).bindparams(bindparam("ids", expanding=True)),
    # octet_length reads a stored text's size without decompressing it: a page shorter than
    # the window (nearly all) is sent as it is, not counted character by character; a longer
    # one is decompressed only as far as the window.
    "postgresql": text(_NORMS_AND_PAGES.format(
        window="CASE WHEN octet_length(p.text) <= :chars THEN p.text "
               "ELSE substr(p.text, 1, :chars) END",
        page_row="NULL", extraction="", ids="= ANY(CAST(:ids AS bigint[]))")),
}


def read_hits(conn: Connection, page: list[tuple[int, float | None]], highlighter: Highlighter,
              budget: Budget) -> list[Hit]:
    """The hits of a page of (norm id, score), in its order; a norm that vanished since the
    index was written is left out. Each snippet comes from the opening WINDOW characters of
    the norm's text (one original held by two sources counts once), never from the whole of
    a text that may be megabytes long."""
    if not page:
        return []
    rows = conn.execute(_STATEMENTS[conn.dialect.name],
                        {"ids": [norm_id for norm_id, _ in page], "chars": WINDOW + 1,
                         "whole": WHOLE_TEXT_CHARS})
    names = jurisdiction_names(conn, ())  # loaded once per process
    found: dict[int, Hit] = {}
    for norm_id, norm_rows in groupby(rows, key=lambda r: r.id):
        budget.check()
        norm_rows = _openings_read(conn, list(norm_rows))
        m = norm_rows[0]
        body = _opening(norm_rows)
        ementa = (m.ementa or "")[:EMENTA_SHOWN + 1]
        name, uf = names.get(m.jurisdiction_code) or _one_name(conn, m.jurisdiction_code)
        found[norm_id] = Hit(
            norm_id=norm_id, score=None, jurisdiction_code=m.jurisdiction_code,
            jurisdiction=name, uf=uf, type_raw=m.type_raw, type=m.type_normalized,
            number=m.number, year=m.year, date=_as_date(m.date), ementa=m.ementa,
            ementa_html=marked(highlighter.mark(ementa)),
            snippet_html=marked(highlighter.fragment(body[:WINDOW], more=len(body) > WINDOW)
                                if body.strip() else ""),
            status=m.status or NONE_KNOWN, urn=m.urn, cited_by=m.cited_by or 0)
    hits = []
    for norm_id, score in page:
        if norm_id in found:
            found[norm_id].score = score
            hits.append(found[norm_id])
    return hits


class _PageRow:
    """A row of _NORMS_AND_PAGES whose text was read apart."""

    def __init__(self, row, text: str) -> None:
        self._row, self.text = row, text

    def __getattr__(self, name: str):
        return getattr(self._row, name)


def _openings_read(conn: Connection, rows: list) -> list:
    """The rows of one norm, each page the database left unread (page_row) read by its
    opening bytes: the WINDOW + 1 characters the snippet may need, and only until the norm
    has that many."""
    if all(r.page_row is None for r in rows):
        return rows
    gathered, read = 0, []
    for r in rows:
        if r.page_row is not None:
            r = _PageRow(r, read_opening(conn, r.page_row, WINDOW + 1)
                         if gathered <= WINDOW else "")
        gathered += len(r.text or "")
        read.append(r)
    return read


def _opening(rows: list) -> str:
    """The first WINDOW + 1 characters of a norm's text from its page rows, as
    normtext.norm_texts joins them (pages of a document, then documents, blank pages skipped,
    a second document with the same digest skipped)."""
    documents: list[list[str]] = []
    digests: set[str] = set()
    for document_id, document_rows in groupby(rows, key=lambda r: r.document_id):
        if document_id is None:
            continue
        document_rows = list(document_rows)
        digest = document_rows[0].sha256
        if digest is not None:
            if digest in digests:
                continue
            digests.add(digest)
        documents.append([r.text for r in document_rows if r.text and r.text.strip()])
    return clean("\n\n".join("\n\n".join(pages) for pages in documents if pages))[:WINDOW + 1]


# -- jurisdiction names ------------------------------------------------------------------------

# The IBGE places a corpus knows are fixed once it is created (names change by law, rarely,
# and then by a migration): read them once per engine, not on every search.
_NAMES: weakref.WeakKeyDictionary[Engine, dict[int, tuple[str, str]]] = \
    weakref.WeakKeyDictionary()
_LOADING = threading.Lock()


def jurisdiction_names(conn: Connection, codes) -> dict[int, tuple[str, str]]:
    """(name, UF) of every jurisdiction of the corpus, read on the first call of an engine;
    `codes` not known then (a place added since) are read and remembered."""
    engine = conn.engine
    with _LOADING:
        names = _NAMES.get(engine)
    if names is None:
        names = {code: (name, uf) for code, name, uf in conn.execute(
            text("SELECT ibge_code, name, uf FROM jurisdiction"))}
        with _LOADING:
            _NAMES[engine] = names
    for code in codes:
        if code not in names:
            _one_name(conn, code)
    return names


def _one_name(conn: Connection, code: int) -> tuple[str, str]:
    row = conn.execute(text("SELECT name, uf FROM jurisdiction WHERE ibge_code = :code"),
                       {"code": code}).first()
    found = (row.name, row.uf) if row else (str(code), "")
    if row:
        with _LOADING:
            _NAMES.setdefault(conn.engine, {})[code] = found
    return found


def _as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value))
