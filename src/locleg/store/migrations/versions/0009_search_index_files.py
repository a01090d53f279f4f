"""The search index leaves the database: a Tantivy index in the corpus folder instead.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02

Ranking every match (BM25 weighted by field, with authority), Portuguese stemming and
facets over every match live in a Tantivy index beside the originals (search/textindex.py),
the same for SQLite and PostgreSQL corpora. The database keeps what the explorer's pages and
counts read (search_norm, search_place, search_facet) and the queue that keeps the index in
step (search_queue and its triggers). The full-text tables of 0003 (FTS5 on SQLite, a
tsvector table on PostgreSQL) go, with the text they duplicated; every live norm is queued,
so the next refresh (`locleg index`, or any import, harvest or extract) builds the new index.
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.execute("DROP TABLE IF EXISTS search_fts")
    if not sqlite:
        op.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS locleg_fts")
    op.execute("DELETE FROM search_queue")
    op.execute("INSERT INTO search_queue (norm_id) SELECT id FROM norm "
               "WHERE merged_into IS NULL")


def downgrade() -> None:
    # The tables of 0003, empty: the older code fills them from the queue.
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE search_fts USING fts5(ementa, body, extra, tags, "
            "tokenize = \"unicode61 remove_diacritics 2 tokenchars '_'\")")
    else:
        op.execute("CREATE TEXT SEARCH CONFIGURATION locleg_fts (COPY = simple)")
        op.execute("ALTER TEXT SEARCH CONFIGURATION locleg_fts "
                   "ALTER MAPPING FOR hword, hword_part, word WITH unaccent, simple")
        op.execute(
            "CREATE TABLE search_fts (norm_id integer PRIMARY KEY REFERENCES norm (id), "
            "ementa text NOT NULL, body text NOT NULL, tsv tsvector NOT NULL)")
        op.execute("CREATE INDEX ix_search_fts_tsv ON search_fts USING gin (tsv)")
    op.execute("DELETE FROM search_norm")
    op.execute("INSERT INTO search_queue (norm_id) SELECT id FROM norm "
               "WHERE merged_into IS NULL")
