"""The store on both backends: schema and migrations, norms, documents, versions, status."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from locleg.store import Store, metadata, utcnow
from locleg.store.db import MIGRATIONS

JUAZEIRO = 2918407


def _record(native_id: str, **fields) -> dict:
    return {"native_id": native_id, "jurisdiction_code": JUAZEIRO, "type_raw": "Lei",
            "type_normalized": "lei", "number": native_id, "year": 2011,
            "date": date(2011, 6, 27), "ementa": f"Ementa {native_id}", "url": None, **fields}


def test_init_loads_every_jurisdiction(corpus):
    rows = corpus.store.jurisdictions()
    assert len(rows) == 5597
    assert sum(r["level"] == "municipal" for r in rows) == 5570
    assert {r["level"] for r in rows if r["ibge_code"] < 100} == {"estadual", "distrital"}
    juazeiro = corpus.store.jurisdiction(JUAZEIRO)
    assert juazeiro["name"] == "Juazeiro" and juazeiro["uf"] == "BA"
    assert juazeiro["lexml_label"] == "br;bahia;juazeiro"
    assert corpus.store.jurisdiction(53)["level"] == "distrital"


def test_jurisdiction_search_ignores_accents_and_case(corpus):
    names = [r["name"] for r in corpus.store.jurisdictions(uf="sp", search="SAO PAULO")]
    assert "São Paulo" in names
    assert all(r["uf"] == "SP" for r in corpus.store.jurisdictions(uf="sp"))
    # LIKE wildcards typed by a user are literal characters, not patterns.
    assert corpus.store.jurisdictions(search="%") == []


def _core_objects(obj, name, type_, reflected, compare_to) -> bool:
    # The full-text tables of migration 0003 (FTS5 virtual + shadow tables, or PostgreSQL's
    # tsvector table) were SQL that Core cannot express; 0009 dropped them for the Tantivy
    # index, and a downgrade below 0009 creates them again.
    return not (type_ == "table" and name.startswith("search_fts"))


def test_migrations_create_exactly_the_schema(corpus):
    with corpus.store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"include_object": _core_objects})
        diff = compare_metadata(context, metadata)
    assert diff == []
    heads = set(ScriptDirectory(str(MIGRATIONS)).get_heads())
    assert corpus.store.schema_revisions() == heads


def test_downgrade_and_upgrade_again(corpus):
    store: Store = corpus.store
    store.downgrade("base")
    assert "norm" not in inspect(store.engine).get_table_names()
    store.migrate()
    assert {"norm", "document", "version", "extraction", "page", "problem"} <= set(
        inspect(store.engine).get_table_names()
    )


def test_upsert_records_is_idempotent_and_tracks_changes(corpus):
    store = corpus.store
    source_id = store.ensure_source(JUAZEIRO, "folder", "file:///dump")
    assert store.ensure_source(JUAZEIRO, "folder", "file:///dump") == source_id
    first = utcnow()
    with store.transaction() as conn:
        ids = store.upsert_records(conn, source_id, [_record("1"), _record("2"), _record("2")],
                                   first)
    assert set(ids) == {"1", "2"}
    later = first + timedelta(hours=1)
    with store.transaction() as conn:
        again = store.upsert_records(
            conn, source_id, [_record("1"), _record("2", ementa="Nova ementa", number="12-A")],
            later
        )
    assert again == ids
    with store.engine.connect() as conn:
        rows = {r.native_id: r for r in conn.execute(metadata.tables["record"].select())}
    assert len(rows) == 2
    assert rows["2"].ementa == "Nova ementa" and rows["2"].number == "12-A"
    assert rows["2"].changed_at.replace(tzinfo=None) == later.replace(tzinfo=None)
    assert rows["1"].changed_at.replace(tzinfo=None) == first.replace(tzinfo=None)
    assert rows["1"].last_seen_at.replace(tzinfo=None) == later.replace(tzinfo=None)


def test_missing_records_are_marked_removed_never_deleted(corpus):
    store = corpus.store
    source_id = store.ensure_source(JUAZEIRO, "folder", "file:///dump")
    t0 = utcnow()
    with store.transaction() as conn:
        store.upsert_records(conn, source_id, [_record("1"), _record("2")], t0)
    t1 = t0 + timedelta(minutes=5)
    with store.transaction() as conn:
        store.upsert_records(conn, source_id, [_record("1")], t1)
    assert store.mark_removed(source_id, t1) == 1
    counts = store.status()
    assert counts["norms"] == 2 and counts["removed"] == 1
    # It comes back: no longer removed.
    with store.transaction() as conn:
        store.upsert_records(conn, source_id, [_record("1"), _record("2")],
                             t1 + timedelta(minutes=5))
    assert store.status()["removed"] == 0


def test_versions_keep_history_and_status_counts_current_ones(corpus):
    store = corpus.store
    source_id = store.ensure_source(JUAZEIRO, "folder", "file:///dump")
    now = utcnow()
    with store.transaction() as conn:
        record_id = store.upsert_records(conn, source_id, [_record("1461")], now)["1461"]
        docs = store.ensure_documents(conn, [
            {"record_id": record_id, "url": "http://x/texto.pdf", "role": "texto_integral"},
            {"record_id": record_id, "url": "http://x/anexo.pdf", "role": "anexo",
             "title": "Mapa"},
        ])
        text_doc = docs[(record_id, "http://x/texto.pdf")]["id"]
        v1 = store.add_versions(conn, [{"document_id": text_doc, "sha256": "a" * 64, "size": 3,
                                        "media_type": "application/pdf", "fetched_at": now,
                                        "origin": "http://x/texto.pdf", "etag": '"v1"'}])
    with store.transaction() as conn:
        again = store.ensure_documents(conn, [{"record_id": record_id,
                                               "url": "http://x/texto.pdf",
                                               "role": "texto_integral"}])
        assert again[(record_id, "http://x/texto.pdf")]["current_sha256"] == "a" * 64
        v2 = store.add_versions(conn, [{"document_id": text_doc, "sha256": "b" * 64, "size": 4,
                                        "media_type": "application/pdf", "fetched_at": now,
                                        "origin": "http://x/texto.pdf"}])
    store.save_extraction(v2[0], {"status": "extracted", "method": "text", "pages": 2,
                                  "chars": 10, "confidence": 0.98},
                          [{"number": 1, "method": "text", "confidence": 1.0, "text": "Art. 1º"},
                           {"number": 2, "method": "text", "confidence": 0.9, "text": "§ 2º"}])
    counts = store.status(by_jurisdiction=True)
    assert counts["versions"] == 2
    assert counts["documents"] == 2 and counts["fetched"] == 1
    # Only the current version counts: v1 stays pending in history but is not counted.
    assert counts["extracted"] == 1 and counts["pending"] == 0
    assert counts["pages"] == 2
    assert store.extraction_of(v1[0])["status"] == "pending"
    assert [p["text"] for p in store.pages_of(v2[0])] == ["Art. 1º", "§ 2º"]
    (row,) = counts["by_jurisdiction"]
    assert row["ibge_code"] == JUAZEIRO and row["name"] == "Juazeiro" and row["norms"] == 1
    assert store.consistency_problems() == []


def test_unknown_jurisdiction_is_a_user_error(corpus):
    from locleg.errors import UserError

    with pytest.raises(UserError, match="unknown IBGE code 1234567"):
        corpus.store.require_jurisdiction("1234567")
    with pytest.raises(UserError, match="not an IBGE code"):
        corpus.store.require_jurisdiction("juazeiro")
