"""Host claims: several harvest processes share one PostgreSQL corpus.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02

A harvest process claims a host (claimed_by, claim_expires_at: a lease it renews while it
works the host) before it fetches from it, so no host is fetched by two processes at once; a
crashed process's claims run out and another takes the host over. next_allowed_at carries the
host's Crawl-delay across processes: the earliest time its next request may be made.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("harvest_host", sa.Column("claimed_by", sa.Text()))
    op.add_column("harvest_host", sa.Column("claim_expires_at", sa.DateTime(timezone=True)))
    op.add_column("harvest_host", sa.Column("next_allowed_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    # Not batch mode: on SQLite it would rebuild the table; plain DROP COLUMN suffices.
    op.drop_column("harvest_host", "next_allowed_at")
    op.drop_column("harvest_host", "claim_expires_at")
    op.drop_column("harvest_host", "claimed_by")
