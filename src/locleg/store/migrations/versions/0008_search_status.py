"""Search by legal status, by number and by authority: what the index keeps of a norm's life.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02

`search_norm` gains the norm's legal status (the status filter and facet) and its cited-by
count (the authority signal of the ranking); the index's filter tags gain the status and the
canonical number (`number=2199`). The norm update triggers of `search_queue` (migration 0006)
fire also when the status, the cited-by count, the number key or the family change, which
enrichment writes. Every live norm is queued, so the next refresh (`locleg index`, or any
import, harvest or extract) writes the new columns and tags.
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# What a norm's index entry is made of (0006's list, then what enrichment writes).
_BEFORE = ("ementa", "type_raw", "type_normalized", "number", "year", "date",
           "jurisdiction_code", "removed_at", "changed_at", "merged_into")
_NORM_FIELDS = (*_BEFORE, "status", "cited_by", "number_key", "family")


def _norm_update_trigger(sqlite: bool, fields: tuple[str, ...]) -> list[str]:
    if sqlite:
        changed = " OR ".join(f"NEW.{f} IS NOT OLD.{f}" for f in fields)
        return ["DROP TRIGGER IF EXISTS search_q_norm_update",
                f"""CREATE TRIGGER search_q_norm_update AFTER UPDATE ON norm
                     WHEN {changed} BEGIN
                     INSERT INTO search_queue (norm_id) VALUES (NEW.id); END"""]
    changed = " OR ".join(f"NEW.{f} IS DISTINCT FROM OLD.{f}" for f in fields)
    return ["DROP TRIGGER IF EXISTS search_q_norm_update ON norm",
            f"""CREATE TRIGGER search_q_norm_update AFTER UPDATE ON norm
               FOR EACH ROW WHEN ({changed}) EXECUTE FUNCTION search_enqueue_norm()"""]


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.add_column("search_norm", sa.Column("status", sa.String(24), nullable=False,
                                           server_default="none_known"))
    op.add_column("search_norm", sa.Column("cited_by", sa.Integer, nullable=False,
                                           server_default="0"))
    for statement in _norm_update_trigger(sqlite, _NORM_FIELDS):
        op.execute(statement)
    op.execute("INSERT INTO search_queue (norm_id) SELECT id FROM norm "
               "WHERE merged_into IS NULL")


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    for statement in _norm_update_trigger(sqlite, _BEFORE):
        op.execute(statement)
    op.drop_column("search_norm", "cited_by")
    op.drop_column("search_norm", "status")
    # The tags written for status and number mean nothing to the older code: index again.
    op.execute("INSERT INTO search_queue (norm_id) SELECT id FROM norm "
               "WHERE merged_into IS NULL")
