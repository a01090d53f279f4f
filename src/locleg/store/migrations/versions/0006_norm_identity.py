"""Norm identity: the source rows become `record`s, and `norm` is the norm of a jurisdiction.

Revision ID: 0006
Revises: 0003, 0005
Create Date: 2026-12-01

What was a `norm` (one row of one source) is renamed `record`, ids kept, and every record
gets a norm of its own with the same id, so `/norm/11` still names what it named. The next
enrichment (run by import, harvest and extract, or `locleg enrich`) gives records their keys
and merges those of one norm; a norm left without records then redirects to the one they
joined. Documents belong to records (`document.record_id`), as do SAPL's rows. The search
index is keyed by the new norms: it is emptied here and rebuilt by the next refresh.

SQLite cannot rename constraints or repoint foreign keys in place, so there the tables are
rebuilt (the store runs migrations with foreign keys off); PostgreSQL renames in place.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = ("0003", "0005")
branch_labels = None
depends_on = None

Timestamp = sa.DateTime(timezone=True)

_RECORD_COLUMNS = ("id", "source_id", "jurisdiction_code", "native_id", "type_raw",
                   "type_normalized", "number", "year", "date", "ementa", "url", "first_seen_at",
                   "last_seen_at", "changed_at", "removed_at")
_OLD_TRIGGERS = {"norm": ("search_q_norm_insert", "search_q_norm_update"),
                 "document": ("search_q_document_insert", "search_q_document_update"),
                 "extraction": ("search_q_extraction_update",)}
_OLD_FUNCTIONS = ("search_enqueue_norm", "search_enqueue_document", "search_enqueue_extraction")
# What a norm's index entry is made of: the triggers fire when one of these changes.
_NORM_FIELDS = ("ementa", "type_raw", "type_normalized", "number", "year", "date",
                "jurisdiction_code", "removed_at", "changed_at", "merged_into")


def _record_columns(identity: bool = True) -> list:
    """The record table; without identity: the norm table as it was before (for downgrades)."""
    return [
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), nullable=False),
        sa.Column("jurisdiction_code", sa.Integer, sa.ForeignKey("jurisdiction.ibge_code"),
                  nullable=False),
        sa.Column("native_id", sa.Text, nullable=False),
        *([sa.Column("norm_id", sa.Integer, sa.ForeignKey("norm.id"))] if identity else []),
        sa.Column("type_raw", sa.Text),
        sa.Column("type_normalized", sa.String(64)),
        sa.Column("number", sa.String(32)),
        sa.Column("year", sa.Integer),
        sa.Column("date", sa.Date),
        sa.Column("ementa", sa.Text),
        sa.Column("url", sa.Text),
        sa.Column("first_seen_at", Timestamp, nullable=False),
        sa.Column("last_seen_at", Timestamp, nullable=False),
        sa.Column("changed_at", Timestamp, nullable=False),
        sa.Column("removed_at", Timestamp),
        *(_heading_columns() if identity else []),
        sa.UniqueConstraint("source_id", "native_id",
                            name="uq_record_native" if identity else "uq_norm_native"),
    ]


def _heading_columns() -> list[sa.Column]:
    return [
        sa.Column("heading_family", sa.String(64)),
        sa.Column("heading_number", sa.String(32)),
        sa.Column("heading_year", sa.Integer),
        sa.Column("heading_date", sa.Date),
        sa.Column("heading_version_id", sa.Integer),
        sa.Column("unmatched", sa.Text),
    ]


def _norm_table(name: str = "norm") -> None:
    op.create_table(
        name,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("jurisdiction_code", sa.Integer, sa.ForeignKey("jurisdiction.ibge_code"),
                  nullable=False),
        sa.Column("key", sa.Text),
        sa.Column("family", sa.String(64)),
        sa.Column("type_raw", sa.Text),
        sa.Column("type_normalized", sa.String(64)),
        sa.Column("number", sa.String(32)),
        sa.Column("year", sa.Integer),
        sa.Column("date", sa.Date),
        sa.Column("ementa", sa.Text),
        sa.Column("urn", sa.Text),
        sa.Column("provenance", sa.Text, nullable=False),
        sa.Column("conflicts", sa.Text),
        sa.Column("records", sa.Integer, nullable=False),
        sa.Column("first_seen_at", Timestamp, nullable=False),
        sa.Column("changed_at", Timestamp, nullable=False),
        sa.Column("removed_at", Timestamp),
        sa.Column("merged_into", sa.Integer, sa.ForeignKey("norm.id")),
        sa.UniqueConstraint("key", name="uq_norm_key"),
    )


def _drop_search(sqlite: bool) -> None:
    for table, names in _OLD_TRIGGERS.items():
        for name in names:
            op.execute(f"DROP TRIGGER IF EXISTS {name}" if sqlite
                       else f"DROP TRIGGER IF EXISTS {name} ON {table}")
    if not sqlite:
        for function in _OLD_FUNCTIONS:
            op.execute(f"DROP FUNCTION IF EXISTS {function}()")
    # Derived data, keyed by what is now a record: emptied, rebuilt by the next refresh.
    for table in ("search_queue", "search_facet", "search_place"):
        op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM search_fts")
    op.drop_table("search_norm")


def _search_norm_table(target: str) -> None:
    op.create_table(
        "search_norm",
        sa.Column("norm_id", sa.Integer, sa.ForeignKey(f"{target}.id"), primary_key=True,
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


def _sqlite_rebuild(name: str, columns: list, copy: dict[str, str]) -> None:
    """Rebuild a table under its own name with new columns; copy maps new <- old columns."""
    op.create_table(f"{name}_rebuilt", *columns)
    new, old = ", ".join(copy), ", ".join(copy.values())
    op.execute(f"INSERT INTO {name}_rebuilt ({new}) SELECT {old} FROM {name}")
    op.drop_table(name)
    op.rename_table(f"{name}_rebuilt", name)


def _document_columns(parent: str, column: str) -> list:
    return [
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(column, sa.Integer, sa.ForeignKey(f"{parent}.id"), nullable=False),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("current_version_id", sa.Integer),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("removed_at", Timestamp),
        sa.Column("checked_at", Timestamp),
        sa.UniqueConstraint(column, "url", name="uq_document_url"),
    ]


def _sapl_norm_columns(parent: str, column: str) -> list:
    return [
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("native_id", sa.Text, primary_key=True),
        sa.Column(column, sa.Integer, sa.ForeignKey(f"{parent}.id"), nullable=False),
        sa.Column("updated", sa.Text),
        sa.Column("texto_integral", sa.Text),
    ]


def _sapl_relation_columns(parent: str, column: str, related: str) -> list:
    return [
        sa.Column("source_id", sa.Integer, sa.ForeignKey("source.id"), primary_key=True,
                  autoincrement=False),
        sa.Column("native_id", sa.Text, primary_key=True),
        sa.Column("norm_native_id", sa.Text, nullable=False),
        sa.Column(column, sa.Integer, sa.ForeignKey(f"{parent}.id")),
        sa.Column("related_native_id", sa.Text, nullable=False),
        sa.Column(related, sa.Integer, sa.ForeignKey(f"{parent}.id")),
        sa.Column("tipo_sigla", sa.String(8)),
        sa.Column("descricao_ativa", sa.Text),
        sa.Column("descricao_passiva", sa.Text),
        sa.Column("revoga_integralmente", sa.Boolean),
        sa.Column("resumo", sa.Text),
        sa.Column("seen_at", Timestamp, nullable=False),
        sa.Column("removed_at", Timestamp),
    ]


_SAPL_RELATION_COMMON = ("source_id", "native_id", "norm_native_id", "related_native_id",
                         "tipo_sigla", "descricao_ativa", "descricao_passiva",
                         "revoga_integralmente", "resumo", "seen_at", "removed_at")
_DOCUMENT_COMMON = ("id", "role", "title", "url", "current_version_id", "created_at",
                    "removed_at", "checked_at")


def _fill_norms() -> None:
    """One norm per record, with the record's id and fields; merging comes at enrichment."""
    op.execute(
        "INSERT INTO norm (id, jurisdiction_code, type_raw, type_normalized, number, year, "
        "date, ementa, provenance, records, first_seen_at, changed_at, removed_at) "
        "SELECT id, jurisdiction_code, type_raw, type_normalized, number, year, date, ementa, "
        "'{}', 1, first_seen_at, changed_at, removed_at FROM record")
    op.execute("UPDATE record SET norm_id = id")


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    _drop_search(sqlite)
    if sqlite:
        _upgrade_sqlite()
    else:
        _upgrade_postgresql()
    op.create_index("ix_norm_jurisdiction_date", "norm", ["jurisdiction_code", "date", "id"])
    _fill_norms()
    if not sqlite:
        # The norms took their records' ids: new ones continue after them (from 1 if none).
        op.execute("SELECT setval('norm_id_seq', COALESCE((SELECT max(id) FROM norm), 0) + 1, "
                   "false)")
    _search_norm_table("norm")
    if not sqlite:
        op.execute("ALTER TABLE search_fts DROP CONSTRAINT IF EXISTS search_fts_norm_id_fkey")
        op.execute("ALTER TABLE search_fts ADD CONSTRAINT search_fts_norm_id_fkey "
                   "FOREIGN KEY (norm_id) REFERENCES norm (id)")
    for statement in _sqlite_triggers() if sqlite else _postgresql_triggers():
        op.execute(statement)
    op.execute("INSERT INTO search_queue (norm_id) SELECT id FROM norm")


def _upgrade_sqlite() -> None:
    # SQLite names tables in foreign keys by name: `record` is created referencing `norm`, which
    # is the new table once the old one (copied into `record`) is dropped and the new one,
    # made as norm_new, takes its name.
    _norm_table("norm_new")
    op.create_table("record", *_record_columns())
    columns = ", ".join(_RECORD_COLUMNS)
    op.execute(f"INSERT INTO record ({columns}) SELECT {columns} FROM norm")
    op.drop_index("ix_norm_jurisdiction_date", table_name="norm")
    op.drop_table("norm")
    op.rename_table("norm_new", "norm")
    op.create_index("ix_record_norm", "record", ["norm_id"])
    op.create_index("ix_record_jurisdiction", "record", ["jurisdiction_code", "id"])
    _sqlite_rebuild("document", _document_columns("record", "record_id"),
                    {"record_id": "norm_id", **{c: c for c in _DOCUMENT_COMMON}})
    _sqlite_rebuild("sapl_norm", _sapl_norm_columns("record", "record_id"),
                    {"source_id": "source_id", "native_id": "native_id", "record_id": "norm_id",
                     "updated": "updated", "texto_integral": "texto_integral"})
    _sqlite_rebuild("sapl_relation",
                    _sapl_relation_columns("record", "record_id", "related_record_id"),
                    {"record_id": "norm_id", "related_record_id": "related_norm_id",
                     **{c: c for c in _SAPL_RELATION_COMMON}})
    op.create_index("ix_sapl_relation_related", "sapl_relation", ["related_record_id"])
    op.create_index("ix_sapl_relation_record", "sapl_relation", ["record_id"])


def _upgrade_postgresql() -> None:
    for statement in (
        "ALTER TABLE norm RENAME TO record",
        "ALTER SEQUENCE norm_id_seq RENAME TO record_id_seq",
        "ALTER TABLE record RENAME CONSTRAINT norm_pkey TO record_pkey",
        "ALTER TABLE record RENAME CONSTRAINT uq_norm_native TO uq_record_native",
        "ALTER TABLE record RENAME CONSTRAINT norm_source_id_fkey TO record_source_id_fkey",
        "ALTER TABLE record RENAME CONSTRAINT norm_jurisdiction_code_fkey "
        "TO record_jurisdiction_code_fkey",
        "DROP INDEX ix_norm_jurisdiction_date",
        "ALTER TABLE document RENAME COLUMN norm_id TO record_id",
        "ALTER TABLE document RENAME CONSTRAINT document_norm_id_fkey "
        "TO document_record_id_fkey",
        "ALTER TABLE sapl_norm RENAME COLUMN norm_id TO record_id",
        "ALTER TABLE sapl_norm RENAME CONSTRAINT sapl_norm_norm_id_fkey "
        "TO sapl_norm_record_id_fkey",
        "ALTER TABLE sapl_relation RENAME COLUMN norm_id TO record_id",
        "ALTER TABLE sapl_relation RENAME COLUMN related_norm_id TO related_record_id",
        "ALTER TABLE sapl_relation RENAME CONSTRAINT sapl_relation_norm_id_fkey "
        "TO sapl_relation_record_id_fkey",
        "ALTER TABLE sapl_relation RENAME CONSTRAINT sapl_relation_related_norm_id_fkey "
        "TO sapl_relation_related_record_id_fkey",
        "ALTER INDEX ix_sapl_relation_norm RENAME TO ix_sapl_relation_record",
    ):
        op.execute(statement)
    _norm_table()
    op.add_column("record", sa.Column("norm_id", sa.Integer, sa.ForeignKey("norm.id")))
    for column in _heading_columns():
        op.add_column("record", column)
    op.create_index("ix_record_norm", "record", ["norm_id"])
    op.create_index("ix_record_jurisdiction", "record", ["jurisdiction_code", "id"])


def _sqlite_triggers() -> list[str]:
    def changed(fields):
        return " OR ".join(f"NEW.{f} IS NOT OLD.{f}" for f in fields)

    return [
        """CREATE TRIGGER search_q_norm_insert AFTER INSERT ON norm BEGIN
             INSERT INTO search_queue (norm_id) VALUES (NEW.id); END""",
        f"""CREATE TRIGGER search_q_norm_update AFTER UPDATE ON norm
             WHEN {changed(_NORM_FIELDS)} BEGIN
             INSERT INTO search_queue (norm_id) VALUES (NEW.id); END""",
        # A record that moves takes its documents from one norm's text to another's.
        """CREATE TRIGGER search_q_record_move AFTER UPDATE OF norm_id ON record
             WHEN NEW.norm_id IS NOT OLD.norm_id BEGIN
             INSERT INTO search_queue (norm_id) SELECT OLD.norm_id WHERE OLD.norm_id IS NOT NULL;
             INSERT INTO search_queue (norm_id) SELECT NEW.norm_id WHERE NEW.norm_id IS NOT NULL;
             END""",
        """CREATE TRIGGER search_q_document_insert AFTER INSERT ON document BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT norm_id FROM record WHERE id = NEW.record_id AND norm_id IS NOT NULL; END""",
        """CREATE TRIGGER search_q_document_update AFTER UPDATE ON document
             WHEN NEW.current_version_id IS NOT OLD.current_version_id
               OR NEW.removed_at IS NOT OLD.removed_at OR NEW.record_id IS NOT OLD.record_id
             BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT norm_id FROM record WHERE id IN (NEW.record_id, OLD.record_id)
               AND norm_id IS NOT NULL; END""",
        """CREATE TRIGGER search_q_extraction_update AFTER UPDATE ON extraction BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT r.norm_id FROM version v JOIN document d ON d.id = v.document_id
             JOIN record r ON r.id = d.record_id
             WHERE v.id = NEW.version_id AND r.norm_id IS NOT NULL; END""",
    ]


def _postgresql_triggers() -> list[str]:
    def changed(fields):
        return " OR ".join(f"NEW.{f} IS DISTINCT FROM OLD.{f}" for f in fields)

    return [
        """CREATE FUNCTION search_enqueue_norm() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN INSERT INTO search_queue (norm_id) VALUES (NEW.id); RETURN NULL; END $$""",
        """CREATE FUNCTION search_enqueue_record_move() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT n FROM unnest(ARRAY[OLD.norm_id, NEW.norm_id]) AS n WHERE n IS NOT NULL;
             RETURN NULL;
           END $$""",
        """CREATE FUNCTION search_enqueue_document() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT norm_id FROM record
             WHERE id IN (NEW.record_id, CASE WHEN TG_OP = 'UPDATE' THEN OLD.record_id END)
               AND norm_id IS NOT NULL;
             RETURN NULL;
           END $$""",
        """CREATE FUNCTION search_enqueue_extraction() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN
             INSERT INTO search_queue (norm_id)
             SELECT r.norm_id FROM version v JOIN document d ON d.id = v.document_id
             JOIN record r ON r.id = d.record_id
             WHERE v.id = NEW.version_id AND r.norm_id IS NOT NULL;
             RETURN NULL;
           END $$""",
        """CREATE TRIGGER search_q_norm_insert AFTER INSERT ON norm
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_norm()""",
        f"""CREATE TRIGGER search_q_norm_update AFTER UPDATE ON norm
           FOR EACH ROW WHEN ({changed(_NORM_FIELDS)}) EXECUTE FUNCTION search_enqueue_norm()""",
        """CREATE TRIGGER search_q_record_move AFTER UPDATE OF norm_id ON record
           FOR EACH ROW WHEN (NEW.norm_id IS DISTINCT FROM OLD.norm_id)
           EXECUTE FUNCTION search_enqueue_record_move()""",
        """CREATE TRIGGER search_q_document_insert AFTER INSERT ON document
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_document()""",
        """CREATE TRIGGER search_q_document_update AFTER UPDATE ON document
           FOR EACH ROW WHEN (NEW.current_version_id IS DISTINCT FROM OLD.current_version_id
             OR NEW.removed_at IS DISTINCT FROM OLD.removed_at
             OR NEW.record_id IS DISTINCT FROM OLD.record_id)
           EXECUTE FUNCTION search_enqueue_document()""",
        """CREATE TRIGGER search_q_extraction_update AFTER UPDATE ON extraction
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_extraction()""",
    ]


# -- downgrade: back to one norm per source row (merges are lost; records keep their ids) ----


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    new_triggers = {"norm": ("search_q_norm_insert", "search_q_norm_update"),
                    "record": ("search_q_record_move",),
                    "document": ("search_q_document_insert", "search_q_document_update"),
                    "extraction": ("search_q_extraction_update",)}
    for table, names in new_triggers.items():
        for name in names:
            op.execute(f"DROP TRIGGER IF EXISTS {name}" if sqlite
                       else f"DROP TRIGGER IF EXISTS {name} ON {table}")
    if not sqlite:
        for function in (*_OLD_FUNCTIONS, "search_enqueue_record_move"):
            op.execute(f"DROP FUNCTION IF EXISTS {function}()")
    for table in ("search_queue", "search_facet", "search_place"):
        op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM search_fts")
    op.drop_table("search_norm")
    if sqlite:
        _downgrade_sqlite()
    else:
        _downgrade_postgresql()
    _search_norm_table("norm")
    if not sqlite:
        op.execute("ALTER TABLE search_fts ADD CONSTRAINT search_fts_norm_id_fkey "
                   "FOREIGN KEY (norm_id) REFERENCES norm (id)")
    for statement in _old_triggers(sqlite):
        op.execute(statement)
    op.execute("INSERT INTO search_queue (norm_id) SELECT id FROM norm")


def _downgrade_sqlite() -> None:
    op.create_table("norm_old", *_record_columns(identity=False))
    columns = ", ".join(_RECORD_COLUMNS)
    op.execute(f"INSERT INTO norm_old ({columns}) SELECT {columns} FROM record")
    op.drop_index("ix_record_norm", table_name="record")
    op.drop_index("ix_record_jurisdiction", table_name="record")
    op.drop_table("record")
    op.drop_index("ix_norm_jurisdiction_date", table_name="norm")
    op.drop_table("norm")
    op.rename_table("norm_old", "norm")
    op.create_index("ix_norm_jurisdiction_date", "norm", ["jurisdiction_code", "date", "id"])
    _sqlite_rebuild("document", _document_columns("norm", "norm_id"),
                    {"norm_id": "record_id", **{c: c for c in _DOCUMENT_COMMON}})
    _sqlite_rebuild("sapl_norm", _sapl_norm_columns("norm", "norm_id"),
                    {"source_id": "source_id", "native_id": "native_id", "norm_id": "record_id",
                     "updated": "updated", "texto_integral": "texto_integral"})
    _sqlite_rebuild("sapl_relation", _sapl_relation_columns("norm", "norm_id", "related_norm_id"),
                    {"norm_id": "record_id", "related_norm_id": "related_record_id",
                     **{c: c for c in _SAPL_RELATION_COMMON}})
    op.create_index("ix_sapl_relation_related", "sapl_relation", ["related_norm_id"])
    op.create_index("ix_sapl_relation_norm", "sapl_relation", ["norm_id"])


def _downgrade_postgresql() -> None:
    op.execute("ALTER TABLE search_fts DROP CONSTRAINT IF EXISTS search_fts_norm_id_fkey")
    op.drop_index("ix_record_norm", table_name="record")
    op.drop_index("ix_record_jurisdiction", table_name="record")
    for column in ("norm_id", *(c.name for c in _heading_columns())):
        op.drop_column("record", column)
    op.drop_index("ix_norm_jurisdiction_date", table_name="norm")
    op.drop_table("norm")
    for statement in (
        "ALTER INDEX ix_sapl_relation_record RENAME TO ix_sapl_relation_norm",
        "ALTER TABLE sapl_relation RENAME CONSTRAINT sapl_relation_related_record_id_fkey "
        "TO sapl_relation_related_norm_id_fkey",
        "ALTER TABLE sapl_relation RENAME CONSTRAINT sapl_relation_record_id_fkey "
        "TO sapl_relation_norm_id_fkey",
        "ALTER TABLE sapl_relation RENAME COLUMN related_record_id TO related_norm_id",
        "ALTER TABLE sapl_relation RENAME COLUMN record_id TO norm_id",
        "ALTER TABLE sapl_norm RENAME CONSTRAINT sapl_norm_record_id_fkey "
        "TO sapl_norm_norm_id_fkey",
        "ALTER TABLE sapl_norm RENAME COLUMN record_id TO norm_id",
        "ALTER TABLE document RENAME CONSTRAINT document_record_id_fkey "
        "TO document_norm_id_fkey",
        "ALTER TABLE document RENAME COLUMN record_id TO norm_id",
        "ALTER TABLE record RENAME CONSTRAINT record_jurisdiction_code_fkey "
        "TO norm_jurisdiction_code_fkey",
        "ALTER TABLE record RENAME CONSTRAINT record_source_id_fkey TO norm_source_id_fkey",
        "ALTER TABLE record RENAME CONSTRAINT uq_record_native TO uq_norm_native",
        "ALTER TABLE record RENAME CONSTRAINT record_pkey TO norm_pkey",
        "ALTER SEQUENCE record_id_seq RENAME TO norm_id_seq",
        "ALTER TABLE record RENAME TO norm",
        "CREATE INDEX ix_norm_jurisdiction_date ON norm (jurisdiction_code, date, id)",
    ):
        op.execute(statement)


def _old_triggers(sqlite: bool) -> list[str]:
    fields = ("ementa", "type_raw", "type_normalized", "number", "year", "date",
              "jurisdiction_code", "removed_at", "changed_at")
    document_fields = ("current_version_id", "removed_at", "norm_id")
    if sqlite:
        def changed(names):
            return " OR ".join(f"NEW.{f} IS NOT OLD.{f}" for f in names)

        return [
            """CREATE TRIGGER search_q_norm_insert AFTER INSERT ON norm BEGIN
                 INSERT INTO search_queue (norm_id) VALUES (NEW.id); END""",
            f"""CREATE TRIGGER search_q_norm_update AFTER UPDATE ON norm
                 WHEN {changed(fields)} BEGIN
                 INSERT INTO search_queue (norm_id) VALUES (NEW.id); END""",
            """CREATE TRIGGER search_q_document_insert AFTER INSERT ON document BEGIN
                 INSERT INTO search_queue (norm_id) VALUES (NEW.norm_id); END""",
            f"""CREATE TRIGGER search_q_document_update AFTER UPDATE ON document
                 WHEN {changed(document_fields)} BEGIN
                 INSERT INTO search_queue (norm_id) VALUES (NEW.norm_id); END""",
            """CREATE TRIGGER search_q_extraction_update AFTER UPDATE ON extraction BEGIN
                 INSERT INTO search_queue (norm_id)
                 SELECT d.norm_id FROM version v JOIN document d ON d.id = v.document_id
                 WHERE v.id = NEW.version_id; END""",
        ]

    def distinct(names):
        return " OR ".join(f"NEW.{f} IS DISTINCT FROM OLD.{f}" for f in names)

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
           FOR EACH ROW WHEN ({distinct(fields)}) EXECUTE FUNCTION search_enqueue_norm()""",
        """CREATE TRIGGER search_q_document_insert AFTER INSERT ON document
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_document()""",
        f"""CREATE TRIGGER search_q_document_update AFTER UPDATE ON document
           FOR EACH ROW WHEN ({distinct(document_fields)})
           EXECUTE FUNCTION search_enqueue_document()""",
        """CREATE TRIGGER search_q_extraction_update AFTER UPDATE ON extraction
           FOR EACH ROW EXECUTE FUNCTION search_enqueue_extraction()""",
    ]
