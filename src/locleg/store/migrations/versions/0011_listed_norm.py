"""Listed norms for every platform: sapl_norm becomes listed_norm.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02

What the harvester last saw of a norm (harvest/listed.py) is the same for every platform: the
publisher's change marker (SAPL's data_ultima_atualizacao, was `updated`) and the files it
lists, JSON [[url, role], ...] (SAPL's one texto integral URL, was `texto_integral`). Every
row is kept; the JSON is compared parsed, so its spacing (SQLite's json_array, PostgreSQL's
json_build_array) marks no norm changed.
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "listed_norm",
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("native_id", sa.Text, primary_key=True),
        sa.Column("record_id", sa.Integer, sa.ForeignKey("record.id"), nullable=False),
        sa.Column("marker", sa.Text),
        sa.Column("files", sa.Text, nullable=False),
    )
    pair = ("json_array(json_array(texto_integral, 'texto_integral'))" if sqlite else
            "json_build_array(json_build_array(texto_integral, 'texto_integral'))::text")
    op.execute("INSERT INTO listed_norm (source_id, native_id, record_id, marker, files) "
               "SELECT source_id, native_id, record_id, updated, "
               f"CASE WHEN texto_integral IS NULL THEN '[]' ELSE {pair} END FROM sapl_norm")
    op.drop_table("sapl_norm")


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "sapl_norm",
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("native_id", sa.Text, primary_key=True),
        sa.Column("record_id", sa.Integer, sa.ForeignKey("record.id"), nullable=False),
        sa.Column("updated", sa.Text),
        sa.Column("texto_integral", sa.Text),
    )
    # SAPL's norms only (the one file they list is their texto integral); other platforms'
    # listed norms have no place in the older schema.
    first = "json_extract(l.files, '$[0][0]')" if sqlite else "(l.files::json -> 0 ->> 0)"
    op.execute("INSERT INTO sapl_norm (source_id, native_id, record_id, updated, "
               f"texto_integral) SELECT l.source_id, l.native_id, l.record_id, l.marker, {first} "
               "FROM listed_norm l JOIN source s ON s.id = l.source_id "
               "WHERE s.platform = 'sapl'")
    op.drop_table("listed_norm")
