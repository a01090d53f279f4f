"""The ementa a record's text prints after its heading (enrich/ementa.py).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04

`record.heading_ementa`: read from the same version as the other heading_* columns, for a
record without an ementa of its own; a norm whose records have none shows it, with
provenance {"from": "text"}. The
texts already read of records without an ementa are queued again, so that a corpus enriched
before gets its ementas.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("record", sa.Column("heading_ementa", sa.Text))
    # Headings are read once per version: forget which version was read, so that the next
    # `locleg enrich` reads the ementas of texts read before this column existed.
    op.execute("UPDATE record SET heading_version_id = NULL WHERE heading_version_id IS NOT NULL "
               "AND (ementa IS NULL OR ementa = '')")
    op.execute("INSERT INTO enrich_queue (norm_id) SELECT DISTINCT norm_id FROM record "
               "WHERE norm_id IS NOT NULL AND (ementa IS NULL OR ementa = '')")


def downgrade() -> None:
    op.drop_column("record", "heading_ementa")
