"""Search: the full-text index, its change queue and the precomputed counts of the explorer.

Revision ID: 0003
Revises: 0001
Create Date: 2026-11-29

Besides the Core tables of store/search_schema.py this creates, per backend, what Core cannot
express: SQLite gets an FTS5 table, PostgreSQL a tsvector table with a GIN index and the
`locleg_fts` text search configuration (simple + unaccent, used to highlight snippets).
Triggers on norm, document and extraction append the changed norm to search_queue in the
writer's own transaction, so the index can be brought up to date by whoever runs next.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0001"
branch_labels = None
depends_on = None

Timestamp = sa.DateTime(timezone=True)

# The norm columns an index entry is made of: a trigger fires when one of them changes.
_NORM_FIELDS = ("ementa", "type_raw", "type_normalized", "number", "year", "date",
                "jurisdiction_code", "removed_at", "changed_at")
_DOCUMENT_FIELDS = ("current_version_id", "removed_at", "norm_id")


def _sqlite_triggers() -> list[str]:
    def changed(fields):
        return " OR ".join(f"NEW.{f} IS NOT OLD.{f}" for f in fields)

    return [
        """CREATE TRIGGER search_q_norm_insert AFTER INSERT ON norm BEGIN
             INSERT INTO search_queue (norm_id) VALUES (NEW.id); END""",
        f"""CREATE TRIGGER search_q_norm_update AFTER UPDATE ON norm
             WHEN {changed(_NORM_FIELDS)} BEGIN
             INSERT INTO search_queue (norm_id) VALUES (NEW.id); END""",
        """CREATE TRIGGER search_q_document_insert AFTER INSERT ON document BEGIN
             INSERT INTO search_queue (norm_id) VALUES (NEW.norm_id); END""",
        f"""CREATE TRIGGER search_q_document_update AFTER UPDATE ON document
             WHEN {changed(_DOCUMENT_FIELDS)} BEGIN
             INSERT INTO search_queue (norm_id) VALUES (NEW.norm_id); END""",
        """CREATE TRIGGER search_q_extraction_update AFTER UPDATE ON extraction BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT d.norm_id FROM version v JOIN document d ON d.id = v.document_id
             WHERE v.id = NEW.version_id; END""",
    ]


def _postgresql_triggers() -> list[str]:
    def changed(fields):
        return " OR ".join(f"NEW.{f} IS DISTINCT FROM OLD.{f}" for f in fields)

    return [
        """CREATE FUNCTION search_enqueue_norm() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN INSERT INTO search_queue (norm_id) VALUES (NEW.id); RETURN NULL; END $$""",
        """CREATE FUNCTION search_enqueue_document() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN INSERT INTO search_queue (norm_id) VALUES (NEW.norm_id); RETURN NULL; END $$""",
        """CREATE FUNCTION search_enqueue_extraction() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT d.norm_id FROM version v JOIN document d ON d.id = v.document_id
             WHERE v.id = NEW.version_id;
             RETURN NULL;
           END $$""",
        """CREATE TRIGGER search_q_norm_insert AFTER INSERT ON norm
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_norm()""",
        f"""CREATE TRIGGER search_q_norm_update AFTER UPDATE ON norm
           FOR EACH ROW WHEN ({changed(_NORM_FIELDS)}) EXECUTE FUNCTION search_enqueue_norm()""",
        """CREATE TRIGGER search_q_document_insert AFTER INSERT ON document
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_document()""",
        f"""CREATE TRIGGER search_q_document_update AFTER UPDATE ON document
           FOR EACH ROW WHEN ({changed(_DOCUMENT_FIELDS)})
           EXECUTE FUNCTION search_enqueue_document()""",
        """CREATE TRIGGER search_q_extraction_update AFTER UPDATE ON extraction
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_extraction()""",
    ]


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "search_queue",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("norm_id", sa.Integer, nullable=False),
    )
    op.create_table(
        "search_norm",
        sa.Column("norm_id", sa.Integer, sa.ForeignKey("norm.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("jurisdiction_code", sa.Integer, nullable=False),
        sa.Column("uf", sa.String(2), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("year", sa.Integer),
        sa.Column("day", sa.Integer, nullable=False),
        sa.Column("methods", sa.String(64), nullable=False),
        sa.Column("has_text", sa.Boolean, nullable=False),
        sa.Column("confidence", sa.Float),
        sa.Column("documents", sa.Integer, nullable=False),
        sa.Column("pages", sa.Integer, nullable=False),
        sa.Column("indexed_at", Timestamp, nullable=False),
    )
    op.create_index("ix_search_norm_jurisdiction_day", "search_norm",
                    ["jurisdiction_code", "day", "norm_id"])
    op.create_index("ix_search_norm_day", "search_norm", ["day", "norm_id"])
    op.create_index("ix_search_norm_indexed_at", "search_norm", ["indexed_at"])
    op.create_table(
        "search_place",
        sa.Column("jurisdiction_code", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("uf", sa.String(2), nullable=False),
        *[sa.Column(name, sa.Integer, nullable=False)
          for name in ("norms", "removed", "with_text", "documents", "fetched", "pending",
                       "extracted", "empty", "failed", "pages", "newest_day")],
        sa.Column("updated_at", Timestamp, nullable=False),
    )
    op.create_index("ix_search_place_uf", "search_place", ["uf"])
    op.create_table(
        "search_facet",
        sa.Column("scope", sa.String(16), primary_key=True),
        sa.Column("facet", sa.String(16), primary_key=True),
        sa.Column("value", sa.String(64), primary_key=True),
        sa.Column("uf", sa.String(2), nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_index("ix_search_facet_uf", "search_facet", ["uf", "scope"])

    if dialect == "sqlite":
        # Filters live as tokens in `tags` ('_' kept inside tokens): search.md measured them
        # an order of magnitude faster than joins or UNINDEXED columns.
        op.execute(
            "CREATE VIRTUAL TABLE search_fts USING fts5(ementa, body, extra, tags, "
            "tokenize = \"unicode61 remove_diacritics 2 tokenchars '_'\")"
        )
        statements = _sqlite_triggers()
    else:
        op.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
        op.execute("CREATE TEXT SEARCH CONFIGURATION locleg_fts (COPY = simple)")
        op.execute("ALTER TEXT SEARCH CONFIGURATION locleg_fts "
                   "ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple")
        op.execute(
            "CREATE TABLE search_fts (norm_id integer PRIMARY KEY REFERENCES norm (id), "
            "ementa text NOT NULL, body text NOT NULL, tsv tsvector NOT NULL)"
        )
        op.execute("CREATE INDEX ix_search_fts_tsv ON search_fts USING gin (tsv)")
        statements = _postgresql_triggers()
    for statement in statements:
        op.execute(statement)
    # A corpus that existed before this revision gets every norm indexed at the next refresh.
    op.execute("INSERT INTO search_queue (norm_id) SELECT id FROM norm")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    triggers = {"norm": ("search_q_norm_insert", "search_q_norm_update"),
                "document": ("search_q_document_insert", "search_q_document_update"),
                "extraction": ("search_q_extraction_update",)}
    for table, names in triggers.items():
        for name in names:
            if dialect == "sqlite":
                op.execute(f"DROP TRIGGER IF EXISTS {name}")
            else:
                op.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
    op.execute("DROP TABLE IF EXISTS search_fts")
    if dialect != "sqlite":
        for function in ("search_enqueue_norm", "search_enqueue_document",
                         "search_enqueue_extraction"):
            op.execute(f"DROP FUNCTION IF EXISTS {function}()")
        op.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS locleg_fts")
    for table in ("search_facet", "search_place", "search_norm", "search_queue"):
        op.drop_table(table)
