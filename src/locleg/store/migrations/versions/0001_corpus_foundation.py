"""Corpus foundation: jurisdictions, sources, norms, documents, versions, extractions.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "jurisdiction",
        sa.Column("ibge_code", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("uf", sa.String(2), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_folded", sa.Text, nullable=False),
        sa.Column("lexml_label", sa.Text, nullable=False),
    )
    op.create_index("ix_jurisdiction_uf", "jurisdiction", ["uf"])
    op.create_table(
        "source",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "jurisdiction_code",
            sa.Integer,
            sa.ForeignKey("jurisdiction.ibge_code"),
            nullable=False,
        ),
        sa.Column("platform", sa.String(32), nullable=False),
        sa.Column("base_url", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("last_run_at", Timestamp),
        sa.Column("last_success_at", Timestamp),
        sa.Column("last_error", sa.Text),
        sa.Column("next_due_at", Timestamp),
        sa.UniqueConstraint("platform", "base_url", "jurisdiction_code", name="uq_source"),
    )
    op.create_table(
        "norm",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), nullable=False),
        sa.Column(
            "jurisdiction_code",
            sa.Integer,
            sa.ForeignKey("jurisdiction.ibge_code"),
            nullable=False,
        ),
        sa.Column("native_id", sa.Text, nullable=False),
        sa.Column("type_raw", sa.Text),
        sa.Column("type_normalized", sa.String(64)),
        sa.Column("number", sa.String(32)),
        sa.Column("year", sa.Integer),
        sa.Column("date", sa.Date),
        sa.Column("ementa", sa.Text),
        sa.Column("url", sa.Text),
        sa.Column("first_seen_at", Timestamp, nullable=False),
        sa.Column("last_seen_at", Timestamp, nullable=False),
        sa.Column("changed_at", Timestamp, nullable=False),
        sa.Column("removed_at", Timestamp),
        sa.UniqueConstraint("source_id", "native_id", name="uq_norm_native"),
    )
    op.create_index("ix_norm_jurisdiction_date", "norm", ["jurisdiction_code", "date", "id"])
    op.create_table(
        "document",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("norm_id", sa.Integer, sa.ForeignKey("norm.id"), nullable=False),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("current_version_id", sa.Integer),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("removed_at", Timestamp),
        sa.UniqueConstraint("norm_id", "url", name="uq_document_url"),
    )
    op.create_table(
        "version",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("document_id", sa.Integer, sa.ForeignKey("document.id"), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("media_type", sa.String(128), nullable=False),
        sa.Column("fetched_at", Timestamp, nullable=False),
        sa.Column("origin", sa.Text, nullable=False),
        sa.Column("http_status", sa.Integer),
        sa.Column("etag", sa.Text),
        sa.Column("last_modified", sa.Text),
    )
    op.create_index("ix_version_document", "version", ["document_id"])
    op.create_index("ix_version_sha256", "version", ["sha256"])
    op.create_table(
        "extraction",
        sa.Column(
            "version_id",
            sa.Integer,
            sa.ForeignKey("version.id"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("method", sa.String(16)),
        sa.Column("backend", sa.String(64)),
        sa.Column("backend_version", sa.String(64)),
        sa.Column("confidence", sa.Float),
        sa.Column("pages", sa.Integer),
        sa.Column("chars", sa.Integer),
        sa.Column("error", sa.Text),
        sa.Column("detail", sa.Text),
        sa.Column("duration_s", sa.Float),
        sa.Column("extracted_at", Timestamp),
    )
    op.create_index("ix_extraction_status", "extraction", ["status"])
    op.create_table(
        "page",
        sa.Column(
            "version_id",
            sa.Integer,
            sa.ForeignKey("version.id"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("confidence", sa.Float),
        sa.Column("text", sa.Text, nullable=False),
    )
    op.create_table(
        "problem",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", Timestamp, nullable=False),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id")),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
    )
    op.create_index("ix_problem_at", "problem", ["at"])


def downgrade() -> None:
    dependents_first = (
        "problem", "page", "extraction", "version", "document", "norm", "source", "jurisdiction"
    )
    for table in dependents_first:
        op.drop_table(table)
