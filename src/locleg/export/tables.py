"""The tables of a release: their columns (Arrow type and meaning) and the streamed queries
that read their rows, within the norms an export covers.

Every table is one query ordered by its key, read as Arrow batches of a few thousand rows
(texts: a few hundred pages), so memory holds one batch whatever the corpus size. The norms
covered are the scope: every norm not merged into another, narrowed by UF, jurisdiction
and, for an incremental release, by what changed since a moment.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc
from sqlalchemy import Date, DateTime, String, exists, func, or_, select, type_coerce

from ..store.schema import (
    citation,
    document,
    extraction,
    jurisdiction,
    norm,
    page,
    record,
    source,
    version,
)
from ..web.links import HTTP_URL, public_origin, public_url
from .reading import TEXT_BATCH_ROWS, Snapshot

STRING, INT, FLOAT = pa.string(), pa.int64(), pa.float64()
DATE, TIME = pa.date32(), pa.timestamp("us", tz="UTC")


@dataclass(frozen=True)
class Column:
    name: str
    type: pa.DataType
    meaning: str


@dataclass(frozen=True)
class TableSpec:
    name: str
    about: str
    columns: tuple[Column, ...]
    text: bool = False  # only with --with-text

    @property
    def schema(self) -> pa.Schema:
        """With `uf`: what CSV and JSON lines hold (Parquet keeps it in the folder name)."""
        return pa.schema([(c.name, c.type) for c in self.columns])


_UF = Column("uf", STRING, "federative unit of the norm's jurisdiction (BA); in Parquet the "
                           "partition folder uf=BA, not a column of the files")
_JURISDICTION = Column("jurisdiction_code", INT, "IBGE code of the norm's jurisdiction: 7 "
                                                 "digits a municipality, 2 a UF (29 Bahia)")
_NORM_ID = Column("norm_id", INT, "the norm (norms.norm_id)")

NORMS = TableSpec("norms", "one row per norm of a jurisdiction, however many sources hold it", (
    Column("norm_id", INT, "stable id of the norm in the corpus (the explorer's /norm/<id>)"),
    Column("urn", STRING, "LexML URN, when the type, date and number are known"),
    _JURISDICTION,
    Column("jurisdiction", STRING, "name of the jurisdiction (Juazeiro, Bahia)"),
    _UF,
    Column("level", STRING, "municipal, estadual or distrital"),
    Column("key", STRING, "identity jurisdiction|family|number|year that merges records of "
                          "one norm; null for a record that could not be matched"),
    Column("type_raw", STRING, "type as its source writes it (Legislação Municipal)"),
    Column("type", STRING, "LexML type: lei, lei.complementar, decreto, ... or outro"),
    Column("family", STRING, "LexML type family of its key"),
    Column("number", STRING, "number as shown (a string: 12-A exists)"),
    Column("year", INT, "year"),
    Column("date", DATE, "date signed, when known"),
    Column("ementa", STRING, "summary"),
    Column("status", STRING, "legal status: revoked, revoked_in_part, suspended, altered or "
                             "none_known (no revocation known, which is not 'in force')"),
    Column("status_evidence", STRING, "JSON: the acts that give the status (SAPL vínculo or "
                                      "a sentence of a text)"),
    Column("cited_by", INT, "how many other norms' texts cite it"),
    Column("records", INT, "how many source records it has (records/)"),
    Column("source_url", STRING, "the norm's page at the source of its first record"),
    Column("provenance", STRING, "JSON: for each field shown, the record it came from "
                                 "({\"record\": 7}, \"from\": \"text\" when read from its "
                                 "heading)"),
    Column("conflicts", STRING, "JSON: the fields on which its records disagree, with each "
                                "value and record"),
    Column("first_seen_at", TIME, "when the corpus first saw it (UTC)"),
    Column("changed_at", TIME, "when a field shown last changed (UTC)"),
    Column("removed_at", TIME, "when every record of it was removed at its source (UTC)"),
    Column("enriched_at", TIME, "when its texts were last read for headings and citations"),
))

RECORDS = TableSpec("records", "what each source says of a norm: its records, the "
                    "provenance of every norm", (
    Column("record_id", INT, "id of the record (norms.provenance names them)"),
    _NORM_ID, _JURISDICTION, _UF,
    Column("source_id", INT, "the source that holds it"),
    Column("platform", STRING, "the source's platform: sapl, folder, ..."),
    Column("source_base_url", STRING, "the source's address (null for a local import)"),
    Column("native_id", STRING, "the source's own id for it (SAPL: normajuridica.id)"),
    Column("url", STRING, "the norm's page at the source"),
    Column("type_raw", STRING, "type as the source writes it"),
    Column("type", STRING, "that type in LexML's vocabulary"),
    Column("number", STRING, "number as the source writes it"),
    Column("year", INT, "year as the source gives it"),
    Column("date", DATE, "date as the source gives it"),
    Column("ementa", STRING, "ementa as the source writes it"),
    Column("unmatched", STRING, "why it could not be matched to other records (s/n, no "
                                "year, a generic type), standing alone"),
    Column("first_seen_at", TIME, "when the corpus first saw it at its source (UTC)"),
    Column("last_seen_at", TIME, "when it was last seen there (UTC)"),
    Column("changed_at", TIME, "when one of its fields last changed (UTC)"),
    Column("removed_at", TIME, "when it left its source (UTC): kept, never deleted"),
))

DOCUMENTS = TableSpec("documents", "one row per document (texto integral, anexo) of a norm", (
    Column("document_id", INT, "stable id of the document (the explorer's /document/<id>)"),
    _NORM_ID,
    Column("record_id", INT, "the source record it belongs to (norms.record_provenance)"),
    _JURISDICTION, _UF,
    Column("role", STRING, "texto_integral or anexo"),
    Column("title", STRING, "an anexo's own title"),
    Column("url", STRING, "where the original comes from; a file of an imported folder as "
                          "file:<path inside the folder>"),
    Column("current_version_id", INT, "its newest stored version (extractions.version_id); "
                                      "null until one is fetched"),
    Column("sha256", STRING, "SHA-256 of the current version's original bytes"),
    Column("media_type", STRING, "media type sniffed from those bytes"),
    Column("bytes", INT, "size of the original"),
    Column("fetched_at", TIME, "when the current version was fetched (UTC)"),
    Column("origin", STRING, "the URL (or path inside an imported folder) the bytes were read "
                             "from; null when it cannot be made public"),
    Column("http_status", INT, "HTTP status of that fetch"),
    Column("versions", INT, "how many versions of it are stored"),
    Column("first_seen_at", TIME, "when the corpus first saw the document (UTC)"),
    Column("checked_at", TIME, "when the source last confirmed the current version (UTC)"),
    Column("removed_at", TIME, "when it left its source (UTC)"),
))

EXTRACTIONS = TableSpec("extractions", "the extraction record of each document's current "
                        "version: how its text was read and how well", (
    Column("version_id", INT, "the document version read (documents.current_version_id)"),
    Column("document_id", INT, "the document"), _NORM_ID, _JURISDICTION, _UF,
    Column("status", STRING, "pending (not yet read), extracted, empty or failed"),
    Column("method", STRING, "text (PDF text layer), ocr, mixed, html, plain, docx, odt, rtf, "
                             "doc, zip, ..."),
    Column("backend", STRING, "the program that read it (tesseract, pdfium, lxml, ...)"),
    Column("backend_version", STRING, "its version"),
    Column("confidence", FLOAT, "0..1: OCR's mean word confidence; null for born-digital text"),
    Column("pages", INT, "pages read"),
    Column("chars", INT, "characters of text"),
    Column("error", STRING, "why it failed"),
    Column("detail", STRING, "how it was read, what was skipped"),
    Column("duration_s", FLOAT, "seconds the extraction took"),
    Column("extracted_at", TIME, "when (UTC)"),
))

TEXTS = TableSpec("texts", "the text of each document's current version, page by page "
                  "(only in releases made --with-text)", (
    Column("version_id", INT, "the document version (extractions.version_id)"),
    Column("document_id", INT, "the document"), _NORM_ID, _JURISDICTION, _UF,
    Column("page", INT, "page number, from 1"),
    Column("method", STRING, "how this page was read (text, ocr, html, ...)"),
    Column("confidence", FLOAT, "OCR confidence of this page, 0..1; null for born-digital"),
    Column("text", STRING, "the page's text, as the explorer shows it"),
), text=True)

CITATIONS = TableSpec("citations", "references in a norm's text to another norm", (
    Column("citation_id", INT, "id of the citation"),
    Column("from_norm_id", INT, "the citing norm"),
    Column("to_norm_id", INT, "the cited norm when the corpus holds it, else null"),
    _JURISDICTION, _UF,
    Column("version_id", INT, "the text it was read in"),
    Column("page", INT, "its page"),
    Column("start", INT, "first character of the reference in that page's text"),
    Column("end", INT, "character after it"),
    Column("text", STRING, "the reference as written"),
    Column("kind", STRING, "cites, revokes, revokes_in_part, alters, regulates; from notes of "
                           "consolidated texts altered_by, revoked_by, revoked_in_part_by, "
                           "regulated_by"),
    Column("family", STRING, "LexML type family of the cited norm"),
    Column("number", STRING, "its number"), Column("year", INT, "its year"),
    Column("date", DATE, "its date"),
    Column("sphere", STRING, "municipal, estadual or federal"),
    Column("fragment", STRING, "the part cited (art39-B)"),
    Column("article", STRING, "the article of the citing text that says it"),
    Column("sentence", STRING, "the sentence that says it (the evidence)"),
    Column("flags", STRING, "reasons to doubt it (implausible_year, targets_itself, ...)"),
    Column("urn", STRING, "URN of the cited norm, when dated"),
    Column("target_key", STRING, "jurisdiction|family|number|year of the cited norm (year "
                                 "empty when not written)"),
))

MERGES = TableSpec("merges", "norm ids that no longer stand alone: their records were found "
                   "to be of another norm (links to them redirect there)", (
    Column("norm_id", INT, "the id merged away"),
    Column("merged_into", INT, "the norm it now is (norms.norm_id)"),
    _JURISDICTION, _UF,
))

TABLES = (NORMS, RECORDS, DOCUMENTS, EXTRACTIONS, CITATIONS, MERGES, TEXTS)


# -- the scope: which norms a release covers ------------------------------------------------


@dataclass(frozen=True)
class Scope:
    ufs: tuple[str, ...] = ()
    jurisdictions: tuple[int, ...] = ()
    since: datetime | None = None

    def places(self) -> list:
        """Clauses on the norm's jurisdiction (joined as `jurisdiction`)."""
        clauses = []
        if self.ufs:
            clauses.append(jurisdiction.c.uf.in_(self.ufs))
        if self.jurisdictions:
            clauses.append(norm.c.jurisdiction_code.in_(self.jurisdictions))
        return clauses

    def norms(self) -> list:
        """Clauses selecting the norms covered (norm joined with its jurisdiction)."""
        clauses = [norm.c.merged_into.is_(None), *self.places()]
        if self.since is not None:
            clauses.append(changed_since(self.since))
        return clauses


def changed_since(since: datetime):
    """A norm whose fields, records, documents, versions, extractions or texts' reading
    changed at or after `since`, or whose status another norm's new reading may have moved
    (it is cited by a norm read since)."""
    r, d, v, e = record.alias("r"), document.alias("d"), version.alias("v"), extraction.alias("e")
    c, m = citation.alias("c"), norm.alias("m")
    own = or_(norm.c.first_seen_at >= since, norm.c.changed_at >= since,
              norm.c.enriched_at >= since)
    records = exists().where(r.c.norm_id == norm.c.id, or_(
        r.c.first_seen_at >= since, r.c.changed_at >= since, r.c.removed_at >= since))
    files = exists().select_from(
        d.join(r, r.c.id == d.c.record_id)
        .outerjoin(v, v.c.document_id == d.c.id)
        .outerjoin(e, e.c.version_id == v.c.id)
    ).where(r.c.norm_id == norm.c.id, or_(
        d.c.created_at >= since, d.c.removed_at >= since, v.c.fetched_at >= since,
        e.c.extracted_at >= since))
    cited = exists().select_from(c.join(m, m.c.id == c.c.norm_id)).where(
        c.c.target_norm_id == norm.c.id, m.c.enriched_at >= since)
    return or_(own, records, files, cited)


# -- rows -----------------------------------------------------------------------------------
#
# Each reader is one query whose columns are its table's, in order (uf included), read as
# Arrow batches from the snapshot and finished column by column: no Python object per value.


def raw(*columns) -> list:
    """The columns as the driver gives them: dates and times read from SQLite stay ISO
    strings, which Arrow parses a whole column at once."""
    return [type_coerce(c, String).label(c.name) if isinstance(c.type, Date | DateTime)
            else c for c in columns]


_EMPTY_JSON = pa.array(["", "{}", "[]"])


def _json_or_none(column: pa.Array) -> pa.Array:
    """An empty JSON value ({} or []) as null: "nothing known" has one spelling."""
    return pc.if_else(pc.is_in(column, value_set=_EMPTY_JSON), pa.scalar(None, column.type),
                      column)


def _public_urls(column: pa.Array) -> pa.Array:
    """Sources' addresses, each as far as it may be published: a few sources, many rows."""
    distinct = pc.unique(column)
    public = pa.array([public_url(v) for v in distinct.to_pylist()], type=column.type)
    return pc.take(public, pc.index_in(column, value_set=distinct))


_HTTP = "^" + HTTP_URL.pattern + "$"


def _public_origins(origin: pa.Array, base_url: pa.Array) -> pa.Array:
    """public_origin of each version: http(s) URLs at once in Arrow, the rest (files of an
    imported folder) one by one."""
    http = pc.fill_null(pc.match_substring_regex(origin, _HTTP, ignore_case=True), True)
    if pc.all(http).as_py():
        return origin
    values = origin.to_pylist()
    for i in pc.indices_nonzero(pc.invert(http)).to_pylist():
        values[i] = public_origin(values[i], base_url[i].as_py())
    return pa.array(values, type=origin.type)


def _set(batch: pa.RecordBatch, name: str, column: pa.Array) -> pa.RecordBatch:
    return batch.set_column(batch.schema.get_field_index(name), name, column)


def norm_rows(snap: Snapshot, scope: Scope) -> Iterator[pa.RecordBatch]:
    first_url = (select(record.c.url).where(record.c.norm_id == norm.c.id,
                                            record.c.url.is_not(None))
                 .order_by(record.c.id).limit(1).scalar_subquery())
    query = (
        select(*raw(norm.c.id, norm.c.urn, norm.c.jurisdiction_code, jurisdiction.c.name,
                    jurisdiction.c.uf, jurisdiction.c.level, norm.c.key, norm.c.type_raw,
                    norm.c.type_normalized, norm.c.family, norm.c.number, norm.c.year,
                    norm.c.date, norm.c.ementa, norm.c.status, norm.c.status_evidence,
                    norm.c.cited_by, norm.c.records), first_url.label("source_url"),
               *raw(norm.c.provenance, norm.c.conflicts, norm.c.first_seen_at,
                    norm.c.changed_at, norm.c.removed_at, norm.c.enriched_at))
        .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
        .where(*scope.norms())
    )
    for batch in snap.batches(query, NORMS.schema):
        for name in ("status_evidence", "provenance", "conflicts"):
            batch = _set(batch, name, _json_or_none(batch.column(name)))
        yield batch


def record_rows(snap: Snapshot, scope: Scope) -> Iterator[pa.RecordBatch]:
    query = (
        select(*raw(record.c.id, record.c.norm_id, norm.c.jurisdiction_code, jurisdiction.c.uf,
                    record.c.source_id, source.c.platform, source.c.base_url,
                    record.c.native_id, record.c.url, record.c.type_raw,
                    record.c.type_normalized, record.c.number, record.c.year, record.c.date,
                    record.c.ementa, record.c.unmatched, record.c.first_seen_at,
                    record.c.last_seen_at, record.c.changed_at, record.c.removed_at))
        .select_from(record.join(norm, norm.c.id == record.c.norm_id)
                     .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
                     .join(source, source.c.id == record.c.source_id))
        .where(*scope.norms())
    )
    for batch in snap.batches(query, RECORDS.schema):
        yield _set(batch, "source_base_url", _public_urls(batch.column("source_base_url")))


def _iso(value) -> str | None:
    """A time as ISO text: read from SQLite it already is."""
    return value.isoformat() if isinstance(value, datetime) else value


def _document_base():
    return (document.join(record, record.c.id == document.c.record_id)
            .join(norm, norm.c.id == record.c.norm_id)
            .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code))


# The documents query reads the source's address beside each origin, to publish the origin.
_DOCUMENTS_READ = DOCUMENTS.schema.insert(DOCUMENTS.schema.get_field_index("origin") + 1,
                                          pa.field("source_base_url", STRING))


def document_rows(snap: Snapshot, scope: Scope) -> Iterator[pa.RecordBatch]:
    every = version.alias("every")
    versions = (select(func.count()).select_from(every)
                .where(every.c.document_id == document.c.id).scalar_subquery())
    query = (
        select(*raw(document.c.id, record.c.norm_id, document.c.record_id,
                    norm.c.jurisdiction_code, jurisdiction.c.uf, document.c.role,
                    document.c.title, document.c.url, document.c.current_version_id,
                    version.c.sha256, version.c.media_type, version.c.size, version.c.fetched_at,
                    version.c.origin, source.c.base_url, version.c.http_status),
               versions.label("versions"),
               *raw(document.c.created_at, document.c.checked_at, document.c.removed_at))
        .select_from(_document_base()
                     .join(source, source.c.id == record.c.source_id)
                     .outerjoin(version, version.c.id == document.c.current_version_id))
        .where(*scope.norms())
    )
    for batch in snap.batches(query, _DOCUMENTS_READ):
        origins = _public_origins(batch.column("origin"), batch.column("source_base_url"))
        batch = _set(batch, "origin", origins)
        yield batch.drop_columns(["source_base_url"])


def extraction_rows(snap: Snapshot, scope: Scope) -> Iterator[pa.RecordBatch]:
    query = (
        select(*raw(extraction.c.version_id, document.c.id, record.c.norm_id,
                    norm.c.jurisdiction_code, jurisdiction.c.uf, extraction.c.status,
                    extraction.c.method, extraction.c.backend, extraction.c.backend_version,
                    extraction.c.confidence, extraction.c.pages, extraction.c.chars,
                    extraction.c.error, extraction.c.detail, extraction.c.duration_s,
                    extraction.c.extracted_at))
        .select_from(_document_base().join(
            extraction, extraction.c.version_id == document.c.current_version_id))
        .where(*scope.norms())
    )
    yield from snap.batches(query, EXTRACTIONS.schema, order=(2,))


# Pages are read for this many versions a query (SQLite binds up to 32,766 values).
TEXT_VERSIONS_A_READ = 2000


def text_rows(snap: Snapshot, scope: Scope) -> Iterator[pa.RecordBatch]:
    """Pages of the current versions, UF after UF, each UF's in version and page order.

    By UF because a Parquet file being written holds megabytes of buffers and compressor
    state: with page text, 27 files open at once would take 70 MB of the 300. So the versions
    of each UF are gathered first (8 bytes a document), then their pages read by id.
    """
    current = (select(document.c.id, document.c.current_version_id, jurisdiction.c.uf)
               .select_from(_document_base())
               .where(*scope.norms(), document.c.current_version_id.is_not(None)))
    by_uf: dict[str, list[pa.Array]] = {}
    for batch in snap.batches(current, pa.schema([("document_id", INT), ("version_id", INT),
                                                  ("uf", STRING)])):
        for uf in pc.unique(batch.column("uf")).to_pylist():
            mine = pc.equal(batch.column("uf"), uf)
            by_uf.setdefault(uf, []).append(pc.filter(batch.column("version_id"), mine))
    owners = (select(version.c.id, document.c.id, record.c.norm_id, norm.c.jurisdiction_code)
              .select_from(version.join(document, document.c.id == version.c.document_id)
                           .join(record, record.c.id == document.c.record_id)
                           .join(norm, norm.c.id == record.c.norm_id)))
    texts = select(page.c.version_id, page.c.number, page.c.method, page.c.confidence,
                   page.c.text)
    for uf in sorted(by_uf):
        versions = pa.chunked_array(by_uf.pop(uf), type=INT).combine_chunks()
        versions = versions.take(pc.sort_indices(versions))
        for start in range(0, len(versions), TEXT_VERSIONS_A_READ):
            chunk = versions.slice(start, TEXT_VERSIONS_A_READ).to_pylist()
            # Whose each version is, then its pages straight off the page table's key:
            # a join would make SQLite sort the pages of the chunk, text and all.
            owner = pa.Table.from_batches(snap.batches(
                owners.where(snap.among(version.c.id, chunk)), _OWNERS), schema=_OWNERS)
            for batch in snap.batches(texts.where(snap.among(page.c.version_id, chunk)),
                                      _PAGES, order=(1, 2), rows=TEXT_BATCH_ROWS):
                of = owner.take(pc.index_in(batch.column("version_id"),
                                            value_set=owner.column("version_id")))
                uf_column = pa.array([uf] * batch.num_rows, type=STRING)
                yield pa.RecordBatch.from_arrays(
                    [batch.column("version_id"),
                     *(of.column(name).combine_chunks()
                       for name in ("document_id", "norm_id", "jurisdiction_code")),
                     uf_column, *batch.columns[1:]], schema=TEXTS.schema)


_OWNERS = pa.schema([("version_id", INT), ("document_id", INT), ("norm_id", INT),
                     ("jurisdiction_code", INT)])
_PAGES = pa.schema([("version_id", INT), ("page", INT), ("method", STRING),
                    ("confidence", FLOAT), ("text", STRING)])


def citation_rows(snap: Snapshot, scope: Scope) -> Iterator[pa.RecordBatch]:
    query = (
        select(*raw(citation.c.id, citation.c.norm_id, citation.c.target_norm_id,
                    norm.c.jurisdiction_code, jurisdiction.c.uf, citation.c.version_id,
                    citation.c.page, citation.c.start, citation.c.end, citation.c.text,
                    citation.c.kind, citation.c.family, citation.c.number, citation.c.year,
                    citation.c.date, citation.c.sphere, citation.c.fragment,
                    citation.c.article, citation.c.sentence, citation.c.flags, citation.c.urn,
                    citation.c.target_key))
        .select_from(citation.join(norm, norm.c.id == citation.c.norm_id)
                     .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code))
        .where(*scope.norms())
    )
    yield from snap.batches(query, CITATIONS.schema)


def merge_rows(snap: Snapshot, scope: Scope) -> Iterator[pa.RecordBatch]:
    query = (
        select(norm.c.id, norm.c.merged_into, norm.c.jurisdiction_code, jurisdiction.c.uf)
        .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
        .where(norm.c.merged_into.is_not(None), *scope.places())
    )
    yield from snap.batches(query, MERGES.schema)


READERS = {"norms": norm_rows, "records": record_rows, "documents": document_rows,
           "extractions": extraction_rows, "texts": text_rows, "citations": citation_rows,
           "merges": merge_rows}


# -- the corpus state a release came from ---------------------------------------------------


def corpus_state(snap: Snapshot) -> dict:
    """Counts, highest ids and latest change times of the tables a release reads: equal
    states mean an interrupted export may go on with what it already wrote."""
    state: dict = {}
    for name, table, key in (("norm", norm, norm.c.id), ("record", record, record.c.id),
                             ("document", document, document.c.id),
                             ("version", version, version.c.id),
                             ("citation", citation, citation.c.id)):
        count, top = snap.all(select(func.count(), func.max(key)).select_from(table))[0]
        state[name] = {"rows": int(count), "max_id": top}
    changed, enriched, merged = snap.all(select(
        func.max(norm.c.changed_at), func.max(norm.c.enriched_at),
        func.count(norm.c.merged_into)))[0]
    state.update(norm_changed_at=_iso(changed), norm_enriched_at=_iso(enriched),
                 norm_merged=int(merged))
    rec = snap.all(select(func.max(record.c.changed_at), func.max(record.c.last_seen_at),
                          func.max(record.c.removed_at)))[0]
    state["record_changed_at"], state["record_seen_at"], state["record_removed_at"] = (
        _iso(v) for v in rec)
    ext = snap.all(select(func.count(), func.max(extraction.c.extracted_at))
                   .select_from(extraction))[0]
    state["extraction"] = {"rows": int(ext[0]), "latest": _iso(ext[1])}
    state["document_removed_at"] = _iso(snap.scalar(select(func.max(document.c.removed_at))))
    return _plain(state)


def _plain(value):
    """JSON-stable: timestamps read from SQLite are strings, from PostgreSQL datetimes."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    return value


__all__ = ["TABLES", "READERS", "Scope", "TableSpec", "Column", "corpus_state"]
