"""Enrichment: citations between norms, legal status, headings that disagree, a work queue.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

`enrich_queue` is fed by triggers, like `search_queue`: a record's key fields, a document or
an extraction changed, so that norm's headings, citations and status are read again by the
next `locleg enrich` (run by import, harvest and extract too); nothing else is re-read.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_RECORD_FIELDS = ("type_raw", "type_normalized", "number", "year", "date", "norm_id",
                  "removed_at")


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.add_column("norm", sa.Column("status", sa.String(24), nullable=False,
                                    server_default="none_known"))
    op.add_column("norm", sa.Column("status_evidence", sa.Text))
    op.add_column("norm", sa.Column("cited_by", sa.Integer, nullable=False, server_default="0"))
    op.add_column("norm", sa.Column("enriched_at", sa.DateTime(timezone=True)))
    op.create_index("ix_norm_status", "norm", ["status"])
    op.add_column("norm", sa.Column("number_key", sa.String(32)))
    op.create_index("ix_norm_number", "norm", ["number_key", "family", "year"])
    op.add_column("record", sa.Column("heading_disagreement", sa.Text))
    op.create_table(
        "citation",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("norm_id", sa.Integer, sa.ForeignKey("norm.id"), nullable=False),
        sa.Column("version_id", sa.Integer, sa.ForeignKey("version.id"), nullable=False),
        sa.Column("page", sa.Integer, nullable=False),
        sa.Column("start", sa.Integer, nullable=False),
        sa.Column("end", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("family", sa.String(64)),
        sa.Column("number", sa.String(32)),
        sa.Column("year", sa.Integer),
        sa.Column("date", sa.Date),
        sa.Column("sphere", sa.String(16)),
        sa.Column("fragment", sa.Text),
        sa.Column("sentence", sa.Text),
        sa.Column("article", sa.Text),
        sa.Column("flags", sa.Text),
        sa.Column("urn", sa.Text),
        sa.Column("target_key", sa.Text),
        sa.Column("target_norm_id", sa.Integer, sa.ForeignKey("norm.id")),
    )
    op.create_index("ix_citation_norm", "citation", ["norm_id"])
    op.create_index("ix_citation_target", "citation", ["target_norm_id"])
    op.create_index("ix_citation_target_key", "citation", ["target_key"])
    op.create_table(
        "enrich_queue",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("norm_id", sa.Integer, nullable=False),
    )
    for statement in _sqlite_triggers() if sqlite else _postgresql_triggers():
        op.execute(statement)
    # A corpus that existed before: every norm is read at the next enrichment.
    op.execute("INSERT INTO enrich_queue (norm_id) SELECT id FROM norm "
               "WHERE merged_into IS NULL")


def _sqlite_triggers() -> list[str]:
    changed = " OR ".join(f"NEW.{f} IS NOT OLD.{f}" for f in _RECORD_FIELDS)
    return [
        """CREATE TRIGGER enrich_q_record_insert AFTER INSERT ON record
             WHEN NEW.norm_id IS NOT NULL BEGIN
             INSERT INTO enrich_queue (norm_id) VALUES (NEW.norm_id); END""",
        f"""CREATE TRIGGER enrich_q_record_update AFTER UPDATE ON record WHEN {changed} BEGIN
             INSERT INTO enrich_queue (norm_id) SELECT NEW.norm_id WHERE NEW.norm_id IS NOT NULL;
             INSERT INTO enrich_queue (norm_id) SELECT OLD.norm_id
               WHERE OLD.norm_id IS NOT NULL AND OLD.norm_id IS NOT NEW.norm_id;
             END""",
        """CREATE TRIGGER enrich_q_extraction_update AFTER UPDATE ON extraction BEGIN
             INSERT INTO enrich_queue (norm_id)
             SELECT r.norm_id FROM version v JOIN document d ON d.id = v.document_id
             JOIN record r ON r.id = d.record_id
             WHERE v.id = NEW.version_id AND r.norm_id IS NOT NULL; END""",
        """CREATE TRIGGER enrich_q_document_update AFTER UPDATE ON document
             WHEN NEW.current_version_id IS NOT OLD.current_version_id
               OR NEW.removed_at IS NOT OLD.removed_at BEGIN
             INSERT INTO enrich_queue (norm_id)
             SELECT norm_id FROM record WHERE id = NEW.record_id AND norm_id IS NOT NULL; END""",
    ]


def _postgresql_triggers() -> list[str]:
    changed = " OR ".join(f"NEW.{f} IS DISTINCT FROM OLD.{f}" for f in _RECORD_FIELDS)
    return [
        """CREATE FUNCTION enrich_enqueue_record() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO enrich_queue (norm_id)
             SELECT DISTINCT n FROM unnest(ARRAY[NEW.norm_id,
               CASE WHEN TG_OP = 'UPDATE' THEN OLD.norm_id END]) AS n WHERE n IS NOT NULL;
             RETURN NULL;
           END $$""",
        """CREATE FUNCTION enrich_enqueue_extraction() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO enrich_queue (norm_id)
             SELECT r.norm_id FROM version v JOIN document d ON d.id = v.document_id
             JOIN record r ON r.id = d.record_id
             WHERE v.id = NEW.version_id AND r.norm_id IS NOT NULL;
             RETURN NULL;
           END $$""",
        """CREATE FUNCTION enrich_enqueue_document() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO enrich_queue (norm_id)
             SELECT norm_id FROM record WHERE id = NEW.record_id AND norm_id IS NOT NULL;
             RETURN NULL;
           END $$""",
        """CREATE TRIGGER enrich_q_record_insert AFTER INSERT ON record
           FOR EACH ROW EXECUTE FUNCTION enrich_enqueue_record()""",
        f"""CREATE TRIGGER enrich_q_record_update AFTER UPDATE ON record
           FOR EACH ROW WHEN ({changed}) EXECUTE FUNCTION enrich_enqueue_record()""",
        """CREATE TRIGGER enrich_q_extraction_update AFTER UPDATE ON extraction
           FOR EACH ROW EXECUTE FUNCTION enrich_enqueue_extraction()""",
        """CREATE TRIGGER enrich_q_document_update AFTER UPDATE ON document
           FOR EACH ROW WHEN (NEW.current_version_id IS DISTINCT FROM OLD.current_version_id
             OR NEW.removed_at IS DISTINCT FROM OLD.removed_at)
           EXECUTE FUNCTION enrich_enqueue_document()""",
    ]


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    triggers = {"record": ("enrich_q_record_insert", "enrich_q_record_update"),
                "extraction": ("enrich_q_extraction_update",),
                "document": ("enrich_q_document_update",)}
    for table, names in triggers.items():
        for name in names:
            op.execute(f"DROP TRIGGER IF EXISTS {name}" if sqlite
                       else f"DROP TRIGGER IF EXISTS {name} ON {table}")
    if not sqlite:
        for function in ("enrich_enqueue_record", "enrich_enqueue_extraction",
                         "enrich_enqueue_document"):
            op.execute(f"DROP FUNCTION IF EXISTS {function}()")
    op.drop_table("enrich_queue")
    for index in ("ix_citation_target_key", "ix_citation_target", "ix_citation_norm"):
        op.drop_index(index, table_name="citation")
    op.drop_table("citation")
    op.drop_column("record", "heading_disagreement")
    op.drop_index("ix_norm_number", table_name="norm")
    op.drop_index("ix_norm_status", table_name="norm")
    for column in ("number_key", "enriched_at", "cited_by", "status_evidence", "status"):
        op.drop_column("norm", column)
