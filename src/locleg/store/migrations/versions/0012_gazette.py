"""Official gazettes and the acts cut out of them (Querido Diário).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02

`gazette`: one edition of a municipality's Diário Oficial, keyed by its file (a gazette
listed twice, once as an extra edition, is one); `gazette_act`: every act segmentation found
in it, the normative ones linked to the record of their norm (store/gazette_schema.py).
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gazette",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), nullable=False),
        sa.Column("file_key", sa.Text, nullable=False),
        sa.Column("territory_id", sa.String(16), nullable=False),
        sa.Column("date", sa.Date, nullable=False),
        sa.Column("edition", sa.String(32)),
        sa.Column("is_extra", sa.Boolean, nullable=False),
        sa.Column("url", sa.Text),
        sa.Column("txt_url", sa.Text),
        sa.Column("scraped_at", sa.Text),
        sa.Column("text_sha256", sa.String(64)),
        sa.Column("pdf_sha256", sa.String(64)),
        sa.Column("ocr_sha256", sa.String(64)),
        sa.Column("quality", sa.Text),
        sa.Column("segmented_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_gazette_file", "gazette", ["source_id", "file_key"], unique=True)
    op.create_index("ix_gazette_date", "gazette", ["source_id", "date"])
    op.create_table(
        "gazette_act",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("gazette_id", sa.Integer, sa.ForeignKey("gazette.id"), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("heading", sa.Text, nullable=False),
        sa.Column("number", sa.String(32)),
        sa.Column("year", sa.Integer),
        sa.Column("date", sa.Date),
        sa.Column("start", sa.Integer, nullable=False),
        sa.Column("end", sa.Integer, nullable=False),
        sa.Column("page", sa.Integer),
        sa.Column("flags", sa.Text),
        sa.Column("municipality", sa.Text),
        sa.Column("record_id", sa.Integer, sa.ForeignKey("record.id")),
    )
    op.create_index("ix_gazette_act_gazette", "gazette_act", ["gazette_id"])
    op.create_index("ix_gazette_act_record", "gazette_act", ["record_id"])


def downgrade() -> None:
    op.drop_table("gazette_act")
    op.drop_table("gazette")
