"""A norm's page (its records, vínculos, publications and documents), a document's page with
its text page by page, and the stored original behind a download."""

from __future__ import annotations

import json
import re

from sqlalchemy import case, false, func, literal_column, null, or_, select
from sqlalchemy.engine import Connection

from ...jurisdictions import fold
from ...store import Store, metadata
from ...store.openings import WHOLE_TEXT_CHARS, read_opening
from ...store.schema import document, extraction, jurisdiction, norm, page, record, source, version
from ..links import public_origin
from .common import (
    Moved,
    NotFound,
    as_date,
    int_id,
    json_list,
    norm_summary,
    source_query,
    source_view,
    summary_query,
)

NORM_PAGES_SHOWN = 60  # pages of text shown per document on a norm page
DOCUMENT_PAGES = 50  # pages of text per document page
PAGE_TEXT_SHOWN = 200_000  # characters of one page's text shown (a page can be megabytes)


def _extraction_view(r) -> dict | None:
    if r is None or r["status"] is None:
        return None
    return {k: r[k] for k in ("status", "method", "backend", "backend_version", "confidence",
                              "pages", "chars", "error", "detail", "duration_s",
                              "extracted_at")}


def _relations(conn: Connection, record_ids: list[int]) -> list[dict]:
    """The vínculos a source declares for these records, each side named by its norm."""
    relation = metadata.tables.get("sapl_relation")
    if relation is None or not record_ids:
        return []
    other_record = record.alias("other_record")
    other = norm.alias("other")
    found, seen = [], set()
    for direction, here, there, label_column, native in (
        ("active", relation.c.record_id, relation.c.related_record_id,
         relation.c.descricao_ativa, relation.c.related_native_id),
        ("passive", relation.c.related_record_id, relation.c.record_id,
         relation.c.descricao_passiva, relation.c.norm_native_id),
    ):
        query = (
            select(relation.c.source_id, relation.c.native_id.label("relation_id"),
                   relation.c.tipo_sigla, label_column.label("label"), native.label("native"),
                   other.c.id.label("other_id"), other.c.type_raw, other.c.number,
                   other.c.year, other.c.ementa, relation.c.resumo)
            .outerjoin(other_record, other_record.c.id == there)
            .outerjoin(other, other.c.id == other_record.c.norm_id)
            .where(here.in_(record_ids), relation.c.removed_at.is_(None))
            .order_by(relation.c.source_id, relation.c.native_id)
        )
        for r in conn.execute(query).mappings():
            if (direction, r["source_id"], r["relation_id"]) in seen:
                continue
            seen.add((direction, r["source_id"], r["relation_id"]))
            found.append({
                "direction": direction, "kind": r["tipo_sigla"], "label": r["label"],
                "norm_id": r["other_id"], "native_id": r["native"], "type_raw": r["type_raw"],
                "number": r["number"], "year": r["year"], "ementa": r["ementa"],
                "resumo": r["resumo"],
            })
    return found


def _record_view(r, src) -> dict:
    """A record as its source gives it: the norm page lists each one, with provenance."""
    return {
        "id": r["id"], "native_id": r["native_id"], "url": r["url"],
        "type_raw": r["type_raw"], "type": r["type_normalized"], "number": r["number"],
        "year": r["year"], "date": as_date(r["date"]), "ementa": r["ementa"],
        "first_seen_at": r["first_seen_at"], "last_seen_at": r["last_seen_at"],
        "changed_at": r["changed_at"], "removed_at": r["removed_at"],
        "unmatched": r["unmatched"],
        "heading": {"type": r["heading_family"], "number": r["heading_number"],
                    "year": r["heading_year"], "date": as_date(r["heading_date"])}
        if r["heading_version_id"] is not None else None,
        "heading_disagreement": json_list(r["heading_disagreement"]),
        "source": source_view(src),
    }


def _publications(conn: Connection, record_ids: list[int]) -> dict[int, list[dict]]:
    """Where records cut out of official gazettes were published (Querido Diário): each
    publication's gazette (date, edition, extra, page) and the act's span of its text."""
    from ...store.gazette_schema import gazette, gazette_act

    found: dict[int, list[dict]] = {}
    if not record_ids:
        return found
    query = (select(gazette_act.c.record_id, gazette_act.c.start, gazette_act.c.end,
                    gazette_act.c.page, gazette_act.c.flags, gazette.c.date, gazette.c.edition,
                    gazette.c.is_extra, gazette.c.url, gazette.c.txt_url)
             .join(gazette, gazette.c.id == gazette_act.c.gazette_id)
             .where(gazette_act.c.record_id.in_(record_ids))
             .order_by(gazette.c.date, gazette_act.c.id))
    for r in conn.execute(query):
        found.setdefault(r.record_id, []).append({
            "date": as_date(r.date), "edition": r.edition, "is_extra": bool(r.is_extra),
            "page": r.page, "gazette_url": r.url, "text_url": r.txt_url,
            "act_url": f"{r.txt_url}#char={r.start},{r.end}" if r.txt_url else None,
            "flags": r.flags.split() if r.flags else []})
    return found


def resolve_norm_id(conn: Connection, norm_id: int) -> dict:
    """The norm row, or Moved when it was merged into another, or NotFound."""
    n = conn.execute(
        select(norm, jurisdiction.c.name.label("jurisdiction_name"), jurisdiction.c.uf,
               jurisdiction.c.level, jurisdiction.c.lexml_label)
        .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
        .where(norm.c.id == norm_id)
    ).mappings().first()
    if n is None:
        raise NotFound(f"no norm {norm_id}")
    if n["merged_into"] is not None:
        raise Moved(n["merged_into"])
    return dict(n)


def norm_page(store: Store, norm_id_text: str) -> dict:
    norm_id = int_id(norm_id_text, "norm")
    with store.engine.connect() as conn:
        n = resolve_norm_id(conn, norm_id)
        rows = conn.execute(select(record).where(record.c.norm_id == norm_id)
                            .order_by(record.c.id)).mappings().all()
        sources = {r["id"]: r for r in conn.execute(
            source_query().where(source.c.id.in_({r["source_id"] for r in rows}))).mappings()}
        records = [_record_view(r, sources[r["source_id"]]) for r in rows]
        record_ids = [r["id"] for r in records]
        published = _publications(conn, record_ids)
        for r in records:
            r["publications"] = published.get(r["id"], [])
        docs = _documents(conn, record_ids, NORM_PAGES_SHOWN)
        relations = _relations(conn, record_ids)
    return {
        "norm": {
            "id": n["id"], "type_raw": n["type_raw"], "type": n["type_normalized"],
            "family": n["family"], "number": n["number"], "year": n["year"],
            "date": as_date(n["date"]), "ementa": n["ementa"], "urn": n["urn"],
            "key": n["key"], "records": len(records),
            "provenance": json.loads(n["provenance"] or "{}"),
            "conflicts": json.loads(n["conflicts"]) if n["conflicts"] else {},
            "first_seen_at": n["first_seen_at"], "changed_at": n["changed_at"],
            "removed_at": n["removed_at"], "enriched_at": n["enriched_at"],
            "jurisdiction": {"ibge_code": n["jurisdiction_code"], "name": n["jurisdiction_name"],
                             "uf": n["uf"], "level": n["level"]},
        },
        "records": records,
        "relations": relations,
        "documents": docs,
    }


def _documents(conn: Connection, record_ids: list[int], pages_shown: int,
               document_id: int | None = None, page_after: int = 0) -> list[dict]:
    query = (
        select(document, record.c.norm_id, extraction.c.status, extraction.c.method,
               extraction.c.backend, extraction.c.backend_version, extraction.c.confidence,
               extraction.c.pages, extraction.c.chars, extraction.c.error, extraction.c.detail,
               extraction.c.duration_s, extraction.c.extracted_at)
        .join(record, record.c.id == document.c.record_id)
        .outerjoin(extraction, extraction.c.version_id == document.c.current_version_id)
        .order_by((document.c.role != "texto_integral"), document.c.id)
    )
    if document_id is not None:
        query = query.where(document.c.id == document_id)
    else:
        query = query.where(document.c.record_id.in_(record_ids))
    docs = conn.execute(query).mappings().all()
    doc_ids = [d["id"] for d in docs]
    versions: dict[int, list[dict]] = {}
    if doc_ids:
        for v in conn.execute(
            select(version, source.c.base_url)
            .join(document, document.c.id == version.c.document_id)
            .join(record, record.c.id == document.c.record_id)
            .join(source, source.c.id == record.c.source_id)
            .where(version.c.document_id.in_(doc_ids)).order_by(version.c.id.desc())
        ).mappings():
            versions.setdefault(v["document_id"], []).append({
                **{k: v[k] for k in ("id", "sha256", "size", "media_type", "fetched_at")},
                # Never the importing machine's own paths: the path inside the import.
                "origin": public_origin(v["origin"], v["base_url"]),
                **{k: v[k] for k in ("http_status", "etag", "last_modified")}})
    current = [d["current_version_id"] for d in docs if d["current_version_id"]]
    texts: dict[int, list[dict]] = {}
    if current:
        opening = func.substr(page.c.text, 1, PAGE_TEXT_SHOWN + 1)
        # On SQLite a page of a huge version is read by its opening bytes (store.openings).
        on_sqlite = conn.dialect.name == "sqlite"
        huge = or_(extraction.c.chars > WHOLE_TEXT_CHARS,
                   extraction.c.chars.is_(None)) if on_sqlite else false()
        rowid = literal_column("page.rowid") if on_sqlite else null()
        for p in conn.execute(
            select(page.c.version_id, page.c.number, page.c.method, page.c.confidence,
                   case((huge, null()), else_=opening).label("text"),
                   case((huge, rowid), else_=null()).label("page_row"))
            .select_from(page.outerjoin(extraction,
                                        extraction.c.version_id == page.c.version_id))
            .where(page.c.version_id.in_(current), page.c.number > page_after,
                   page.c.number <= page_after + pages_shown)
            .order_by(page.c.version_id, page.c.number)
        ).mappings():
            shown = (read_opening(conn, p["page_row"], PAGE_TEXT_SHOWN + 1)
                     if p["page_row"] is not None else p["text"] or "")
            texts.setdefault(p["version_id"], []).append({
                **{k: p[k] for k in ("number", "method", "confidence")},
                "text": shown[:PAGE_TEXT_SHOWN],
                "text_truncated": len(shown) > PAGE_TEXT_SHOWN})
    found = []
    for d in docs:
        shown = texts.get(d["current_version_id"], [])
        total_pages = d["pages"] or 0
        found.append({
            "id": d["id"], "record_id": d["record_id"], "norm_id": d["norm_id"],
            "role": d["role"], "title": d["title"],
            "url": d["url"], "current_version_id": d["current_version_id"],
            "created_at": d["created_at"], "removed_at": d["removed_at"],
            "extraction": _extraction_view(d),
            "versions": versions.get(d["id"], []),
            "pages": shown,
            "pages_total": total_pages,
            "more_pages": bool(shown) and shown[-1]["number"] < total_pages,
        })
    return found


def document_page(store: Store, document_id_text: str, page_after: int = 0) -> dict:
    document_id = int_id(document_id_text, "document")
    with store.engine.connect() as conn:
        docs = _documents(conn, [], DOCUMENT_PAGES, document_id, page_after)
        if not docs:
            raise NotFound(f"no document {document_id}")
        doc = docs[0]
        n = conn.execute(summary_query().where(norm.c.id == doc["norm_id"])).one()
    next_page = doc["pages"][-1]["number"] if doc["more_pages"] else None
    return {"document": doc, "norm": norm_summary(n),
            "next_after": str(next_page) if next_page else None,
            "next": f"/document/{document_id}?after={next_page}" if next_page else None}


def original_of(store: Store, kind: str, id_text: str) -> dict:
    """The stored version behind a download: its digest and media type, never a path, and
    what names the file for a reader (the norm, its place, the document's role)."""
    object_id = int_id(id_text, kind)
    with store.engine.connect() as conn:
        query = select(version.c.id, version.c.sha256, version.c.media_type, norm.c.type_raw,
                       norm.c.type_normalized, norm.c.number, norm.c.year,
                       document.c.id.label("document_id"), document.c.role,
                       document.c.current_version_id, jurisdiction.c.name.label("place"),
                       jurisdiction.c.uf) \
            .join(document, document.c.id == version.c.document_id) \
            .join(record, record.c.id == document.c.record_id) \
            .join(norm, norm.c.id == record.c.norm_id) \
            .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
        if kind == "document":
            query = query.where(document.c.id == object_id,
                                version.c.id == document.c.current_version_id)
        else:
            query = query.where(version.c.id == object_id)
        row = conn.execute(query).mappings().first()
    if row is None:
        raise NotFound(f"no archived original for {kind} {object_id}")
    return {**dict(row), "file_stem": _file_stem(row)}


_TYPE_WORDS = {"lei": "lei", "lei.complementar": "lei-complementar", "decreto": "decreto",
               "decreto.legislativo": "decreto-legislativo", "decreto.lei": "decreto-lei",
               "resolucao": "resolucao", "portaria": "portaria", "lei.organica": "lei-organica",
               "emenda.lei.organica": "emenda-lei-organica"}


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in fold(text)).split())


def _file_stem(row) -> str:
    """lei-2199-2011-juazeiro-ba, -anexo-4 for an anexo, -versao-9 for an earlier version:
    ASCII letters, digits and hyphens only (a safe Content-Disposition filename)."""
    kind = _TYPE_WORDS.get(row["type_normalized"] or "") or _slug(row["type_raw"] or "") \
        or "norma"
    # 2.199 is 2199 (a thousands dot); 12-A stays 12-a.
    number = _slug(re.sub(r"(?<=\d)\.(?=\d)", "", row["number"] or "")) or "sn"
    parts = [kind[:40], number[:20], str(row["year"] or ""), _slug(row["place"])[:60],
             (row["uf"] or "").lower()]
    if row["role"] != "texto_integral":
        parts += [_slug(row["role"] or "documento")[:20], str(row["document_id"])]
    if row["id"] != row["current_version_id"]:
        parts += ["versao", str(row["id"])]
    return "-".join(p for p in parts if p)
