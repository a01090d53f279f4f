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

norm = Table(
    "norm",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("source_id", Integer, ForeignKey("source.id"), nullable=False),
    Column("jurisdiction_code", Integer, ForeignKey("jurisdiction.ibge_code"), nullable=False),
    Column("native_id", Text, nullable=False),  # the source's own id (SAPL: normajuridica.id)
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
    UniqueConstraint("source_id", "native_id", name="uq_norm_native"),
)
Index("ix_norm_jurisdiction_date", norm.c.jurisdiction_code, norm.c.date, norm.c.id)

document = Table(
    "document",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("norm_id", Integer, ForeignKey("norm.id"), nullable=False),
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
    UniqueConstraint("norm_id", "url", name="uq_document_url"),
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
