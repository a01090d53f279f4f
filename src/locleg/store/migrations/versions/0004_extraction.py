"""Extraction: per-page backend, characters, OCR resolution and the reason for the method.

Revision ID: 0004
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0001"
branch_labels = None
depends_on = None

_COLUMNS = ("backend", "chars", "dpi", "detail")


def upgrade() -> None:
    op.add_column("page", sa.Column("backend", sa.String(32)))
    op.add_column("page", sa.Column("chars", sa.Integer))
    op.add_column("page", sa.Column("dpi", sa.Integer))
    op.add_column("page", sa.Column("detail", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("page") as batch:
        for name in reversed(_COLUMNS):
            batch.drop_column(name)
