"""Revalidation: when each document's current version was last confirmed at its source.

Revision ID: 0005
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Null until the next fetch: the revalidation reads the version's fetched_at instead.
    op.add_column("document", sa.Column("checked_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    # Not batch mode: on SQLite it would rebuild the table and lose the search triggers.
    op.drop_column("document", "checked_at")
