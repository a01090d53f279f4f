"""Harvest: the frontier, host politeness state, SAPL norm state and vínculos.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "harvest_host",
        sa.Column("host", sa.Text, primary_key=True),
        sa.Column("robots_txt", sa.Text),
        sa.Column("robots_status", sa.Integer),
        sa.Column("robots_fetched_at", Timestamp),
        sa.Column("crawl_delay", sa.Float),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("parked_until", Timestamp),
        sa.Column("last_error", sa.Text),
        sa.Column("last_request_at", Timestamp),
    )
    op.create_table(
        "harvest_request",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), nullable=False),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("priority", sa.Integer, nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("not_before", Timestamp, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("last_error", sa.Text),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.UniqueConstraint("source_id", "kind", "url", name="uq_harvest_request"),
    )
    op.create_index("ix_harvest_request_host", "harvest_request",
                    ["host", "state", "priority", "not_before"])
    op.create_table(
        "sapl_norm",
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("native_id", sa.Text, primary_key=True),
        sa.Column("norm_id", sa.Integer, sa.ForeignKey("norm.id"), nullable=False),
        sa.Column("updated", sa.Text),
        sa.Column("texto_integral", sa.Text),
    )
    op.create_table(
        "sapl_relation",
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("native_id", sa.Text, primary_key=True),
        sa.Column("norm_native_id", sa.Text, nullable=False),
        sa.Column("norm_id", sa.Integer, sa.ForeignKey("norm.id")),
        sa.Column("related_native_id", sa.Text, nullable=False),
        sa.Column("related_norm_id", sa.Integer, sa.ForeignKey("norm.id")),
        sa.Column("tipo_sigla", sa.String(8)),
        sa.Column("descricao_ativa", sa.Text),
        sa.Column("descricao_passiva", sa.Text),
        sa.Column("revoga_integralmente", sa.Boolean),
        sa.Column("resumo", sa.Text),
        sa.Column("seen_at", Timestamp, nullable=False),
        sa.Column("removed_at", Timestamp),
    )
    op.create_index("ix_sapl_relation_related", "sapl_relation", ["related_norm_id"])
    op.create_index("ix_sapl_relation_norm", "sapl_relation", ["norm_id"])


def downgrade() -> None:
    for table in ("sapl_relation", "sapl_norm", "harvest_request", "harvest_host"):
        op.drop_table(table)
