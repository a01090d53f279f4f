"""The corpus tables, as SQLAlchemy Core metadata shared by SQLite and PostgreSQL.

The migrations in store/migrations/ create exactly this; a test compares them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# Timestamps are UTC; SQLite keeps them as ISO strings, PostgreSQL as timestamptz.
Timestamp = DateTime(timezone=True)

jurisdiction = Table(
    "jurisdiction",
    metadata,
    Column("ibge_code", Integer, primary_key=True, autoincrement=False),
    Column("level", String(16), nullable=False),  # municipal, estadual, distrital
    Column("uf", String(2), nullable=False),
    Column("name", Text, nullable=False),
    Column("name_folded", Text, nullable=False),  # lowercase ASCII, for --search
    Column("lexml_label", Text, nullable=False),  # br;bahia;juazeiro
)
Index("ix_jurisdiction_uf", jurisdiction.c.uf)

source = Table(
    "source",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("jurisdiction_code", Integer, ForeignKey("jurisdiction.ibge_code"), nullable=False),
    Column("platform", String(32), nullable=False),  # sapl, folder, ...
    Column("base_url", Text, nullable=False),
    Column("settings", Text, nullable=False, default="{}"),  # JSON, set by the operator
    Column("state", Text, nullable=False, default="{}"),  # JSON, kept by the harvester
    Column("created_at", Timestamp, nullable=False),
    Column("last_run_at", Timestamp),
    Column("last_success_at", Timestamp),
    Column("last_error", Text),
    Column("next_due_at", Timestamp),
    UniqueConstraint("platform", "base_url", "jurisdiction_code", name="uq_source"),
)

# A norm of a jurisdiction as users know it: Lei 2.199/2011 of Juazeiro, whatever sources hold
# it. Its key (jurisdiction, type family, number, year; enrich/identity.py) merges the records
# of every source; the fields shown come from its records by precedence (enrich/norms.py).
norm = Table(
    "norm",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("jurisdiction_code", Integer, ForeignKey("jurisdiction.ibge_code"), nullable=False),
    # jurisdiction|family|number|year; null for a record that cannot be matched (s/n, no year,
    # a generic type), which then stands alone
    Column("key", Text),
    Column("family", String(64)),  # LexML type family: lei, lei.complementar, decreto...
    Column("number_key", String(32)),  # its number in canonical form: "2.199" -> 2199
    Column("type_raw", Text),  # the fields shown, each from the record that wins it
    Column("type_normalized", String(64)),
    Column("number", String(32)),
    Column("year", Integer),
    Column("date", Date),
    Column("ementa", Text),
    Column("urn", Text),  # LexML URN, when type, number and date are known
    # JSON: which record each field came from, and the fields on which records disagree
    Column("provenance", Text, nullable=False, default="{}"),
    Column("conflicts", Text),
    Column("records", Integer, nullable=False, default=1),  # how many records it has
    Column("first_seen_at", Timestamp, nullable=False),
    Column("changed_at", Timestamp, nullable=False),
    Column("removed_at", Timestamp),  # every record gone from its source
    # merged into another norm (its records moved there): old links redirect
    Column("merged_into", Integer, ForeignKey("norm.id")),
    # its legal life (enrich/status.py): revoked, revoked_in_part, suspended, altered, or
    # none_known ("no revocation known" is not "in force"), with the evidence as JSON
    Column("status", String(24), nullable=False, default="none_known"),
    Column("status_evidence", Text),
    Column("cited_by", Integer, nullable=False, default=0),  # norms whose text cites it
    Column("enriched_at", Timestamp),  # when its texts were last read for citations
    UniqueConstraint("key", name="uq_norm_key"),
)
Index("ix_norm_jurisdiction_date", norm.c.jurisdiction_code, norm.c.date, norm.c.id)
Index("ix_norm_status", norm.c.status)
Index("ix_norm_number", norm.c.number_key, norm.c.family, norm.c.year)

# A source's row for a norm (a SAPL normajuridica, a manifest row, a folder file): what that
# source says, with its provenance. Several records can be one norm.
record = Table(
    "record",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("source_id", Integer, ForeignKey("source.id"), nullable=False),
    Column("jurisdiction_code", Integer, ForeignKey("jurisdiction.ibge_code"), nullable=False),
    Column("native_id", Text, nullable=False),  # the source's own id (SAPL: normajuridica.id)
    Column("norm_id", Integer, ForeignKey("norm.id")),  # the norm it is a record of
    Column("type_raw", Text),  # as the source writes it: "Legislação Municipal"
    Column("type_normalized", String(64)),  # LexML tipoDocumento: lei, decreto, ...
    Column("number", String(32)),  # a string: "12-A" exists
    Column("year", Integer),
    Column("date", Date),
    Column("ementa", Text),
    Column("url", Text),  # the norm's page at its source
    Column("first_seen_at", Timestamp, nullable=False),
    Column("last_seen_at", Timestamp, nullable=False),
    Column("changed_at", Timestamp, nullable=False),
    Column("removed_at", Timestamp),  # gone from its source: marked, never deleted
    # what the heading of its texto integral says (enrich/heading.py), read from that version
    Column("heading_family", String(64)),
    Column("heading_number", String(32)),
    Column("heading_year", Integer),
    Column("heading_date", Date),
    Column("heading_version_id", Integer),
    # the ementa printed after it, for a record without one (enrich/ementa.py; 0013)
    Column("heading_ementa", Text),
    Column("unmatched", Text),  # why it has no key and stands alone (s/n, no year, ...)
    # JSON: where its heading and its metadata disagree ([{field, heading, source,
    # ocr_misreading}]), for the quality page; field "ementa" when its text prints another
    # ementa than the record's (the record's is kept)
    Column("heading_disagreement", Text),
    UniqueConstraint("source_id", "native_id", name="uq_record_native"),
)
Index("ix_record_norm", record.c.norm_id)
Index("ix_record_jurisdiction", record.c.jurisdiction_code, record.c.id)

# A reference in a norm's text to another norm (enrich/citations.py), what it does to it
# (cites, revokes, alters...), and the corpus norm it names when there is one.
citation = Table(
    "citation",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("norm_id", Integer, ForeignKey("norm.id"), nullable=False),  # the citing norm
    Column("version_id", Integer, ForeignKey("version.id"), nullable=False),  # its text
    Column("page", Integer, nullable=False),
    Column("start", Integer, nullable=False),  # characters in that page's text
    Column("end", Integer, nullable=False),
    Column("text", Text, nullable=False),  # as written: "Lei Municipal nº 1.996, de 06 ..."
    Column("kind", String(24), nullable=False),  # cites, revokes, alters, altered_by, ...
    Column("family", String(64)),
    Column("number", String(32)),
    Column("year", Integer),
    Column("date", Date),
    Column("sphere", String(16)),  # municipal, estadual, federal
    Column("fragment", Text),  # art39-B
    Column("sentence", Text),  # the evidence
    Column("article", Text),  # "Art. 31"
    Column("flags", Text),  # reasons to doubt: implausible_year, targets_itself, ...
    Column("urn", Text),  # when the date is known
    # jurisdiction|family|number|year of the norm cited (year may be empty), to resolve it
    Column("target_key", Text),
    Column("target_norm_id", Integer, ForeignKey("norm.id")),
)
Index("ix_citation_norm", citation.c.norm_id)
Index("ix_citation_target", citation.c.target_norm_id)
Index("ix_citation_target_key", citation.c.target_key)

document = Table(
    "document",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("record_id", Integer, ForeignKey("record.id"), nullable=False),
    Column("role", String(32), nullable=False),  # texto_integral, anexo
    Column("title", Text),  # an anexo's own title
    Column("url", Text, nullable=False),  # where the original comes from (http(s) or file)
    # The newest stored version; null until the first fetch succeeds.
    Column("current_version_id", Integer),
    Column("created_at", Timestamp, nullable=False),
    Column("removed_at", Timestamp),
    # When the source last confirmed the current version (a fetch, a 304, the same bytes):
    # the rolling revalidation asks again for the files confirmed longest ago.
    Column("checked_at", Timestamp),
    UniqueConstraint("record_id", "url", name="uq_document_url"),
)

version = Table(
    "version",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("document_id", Integer, ForeignKey("document.id"), nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("media_type", String(128), nullable=False),  # sniffed from the bytes
    Column("fetched_at", Timestamp, nullable=False),
    Column("origin", Text, nullable=False),  # the URL or path the bytes were read from
    Column("http_status", Integer),
    Column("etag", Text),
    Column("last_modified", Text),
)
Index("ix_version_document", version.c.document_id)
Index("ix_version_sha256", version.c.sha256)

extraction = Table(
    "extraction",
    metadata,
    Column("version_id", Integer, ForeignKey("version.id"), primary_key=True, autoincrement=False),
    Column("status", String(16), nullable=False),  # pending, extracted, empty, failed
    Column("method", String(16)),  # text, ocr, mixed, html, plain
    Column("backend", String(64)),
    Column("backend_version", String(64)),
    Column("confidence", Float),
    Column("pages", Integer),
    Column("chars", Integer),
    Column("error", Text),
    Column("detail", Text),  # why it is still pending, what was skipped
    Column("duration_s", Float),
    Column("extracted_at", Timestamp),
)
Index("ix_extraction_status", extraction.c.status)

page = Table(
    "page",
    metadata,
    Column("version_id", Integer, ForeignKey("version.id"), primary_key=True, autoincrement=False),
    Column("number", Integer, primary_key=True, autoincrement=False),
    Column("method", String(16), nullable=False),
    Column("confidence", Float),
    Column("text", Text, nullable=False),
)

problem = Table(
    "problem",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", Timestamp, nullable=False),
    Column("stage", String(16), nullable=False),  # import, harvest, fetch, extract, check
    Column("source_id", Integer, ForeignKey("source.id")),
    Column("subject", Text, nullable=False),  # the file, URL or row concerned
    Column("message", Text, nullable=False),
)
Index("ix_problem_at", problem.c.at)

# Norms whose headings, citations or status must be read again (filled by triggers, like
# search_queue; emptied by enrich/run.py).
enrich_queue = Table(
    "enrich_queue",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("norm_id", Integer, nullable=False),
)
