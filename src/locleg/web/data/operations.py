"""The operator's pages: extraction quality (failures, OCR confidence) and the sources' health."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import and_, case, func, select

from ...store import Store
from ...store.schema import document, extraction, jurisdiction, norm, record, source, version
from ...store.search_schema import search_facet, search_place
from .common import (
    STATUSES,
    NotFound,
    after_id,
    jurisdiction_code,
    jurisdiction_ref,
    source_query,
    source_view,
    sum_places,
)

FAILURES_PAGE = 50
SOURCES_PAGE = 200


def quality_page(store: Store, code_text: str | None, after_text: str | None) -> dict:
    code = jurisdiction_code(code_text, parameter=True) if code_text else None
    after = after_id(after_text)
    with store.engine.connect() as conn:
        scope_name = None
        if code is not None:
            j = conn.execute(select(jurisdiction.c.name, jurisdiction.c.uf)
                             .where(jurisdiction.c.ibge_code == code)).first()
            if j is None:
                raise NotFound(f"no jurisdiction with IBGE code {code}")
            scope_name = f"{j.name} ({j.uf})"
            totals = sum_places(conn, search_place.c.jurisdiction_code == code)
        else:
            totals = sum_places(conn)
        scope = f"j:{code}" if code is not None else "all"
        buckets = Counter({int(v): c for v, c in conn.execute(
            select(search_facet.c.value, search_facet.c.count)
            .where(search_facet.c.scope == scope, search_facet.c.facet == "ocr_confidence"))})
        query = (
            select(extraction.c.version_id, extraction.c.status, extraction.c.method,
                   extraction.c.backend, extraction.c.error, extraction.c.detail,
                   extraction.c.extracted_at, document.c.id.label("document_id"),
                   document.c.url, norm.c.id.label("norm_id"), norm.c.type_raw, norm.c.number,
                   norm.c.year, jurisdiction.c.ibge_code, jurisdiction.c.name,
                   jurisdiction.c.uf, version.c.media_type)
            .join(document, document.c.current_version_id == extraction.c.version_id)
            .join(version, version.c.id == extraction.c.version_id)
            .join(record, record.c.id == document.c.record_id)
            .join(norm, norm.c.id == record.c.norm_id)
            .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
            .where(extraction.c.status.in_(("failed", "empty")))
            .order_by(extraction.c.version_id.desc())
            .limit(FAILURES_PAGE + 1)
        )
        if code is not None:
            query = query.where(norm.c.jurisdiction_code == code)
        if after is not None:
            query = query.where(extraction.c.version_id < after)
        failures = []
        for r in conn.execute(query).mappings():
            failure = {k: v for k, v in r.items() if k not in ("ibge_code", "name", "uf")}
            failure["jurisdiction"] = jurisdiction_ref(r["ibge_code"], r["name"], r["uf"])
            failures.append(failure)
    more = len(failures) > FAILURES_PAGE
    failures = failures[:FAILURES_PAGE]
    flag = f" --jurisdiction {code}" if code is not None else ""
    return {
        "scope": {"ibge_code": code, "name": scope_name},
        "status": {s: totals[s] for s in STATUSES},
        "documents": totals["documents"], "fetched": totals["fetched"],
        "pages": totals["pages"],
        "ocr_confidence": [{"from": b / 10, "to": (b + 1) / 10, "count": buckets.get(b, 0)}
                           for b in range(10)],
        "failures": failures,
        "next_after": str(failures[-1]["version_id"]) if more and failures else None,
        "commands": [
            {"what": "extract what is still pending", "command": f"locleg extract{flag}"},
            {"what": "try the failures again",
             "command": f"locleg extract --where \"status = 'failed'\"{flag}"},
            {"what": "OCR again where confidence is low",
             "command": f"locleg extract --where \"confidence < 0.8\"{flag}"},
            {"what": "extract everything again", "command": f"locleg extract --force{flag}"},
            {"what": "counts per stage and jurisdiction",
             "command": "locleg status --by jurisdiction"},
            {"what": "read headings, citations and legal status of what changed",
             "command": "locleg enrich"},
        ],
    }


def sources_page(store: Store, after_text: str | None = None) -> dict:
    after = after_id(after_text) or 0
    with store.engine.connect() as conn:
        rows = conn.execute(
            source_query().add_columns(search_place.c.norms, search_place.c.documents)
            .outerjoin(search_place,
                       search_place.c.jurisdiction_code == source.c.jurisdiction_code)
            .where(source.c.id > after)
            .order_by(source.c.id)
            .limit(SOURCES_PAGE + 1)
        ).mappings().all()
        never, failing, total = conn.execute(select(
            func.count(case((source.c.last_run_at.is_(None), 1))),
            func.count(case((and_(source.c.last_run_at.is_not(None),
                                  source.c.last_error.is_not(None)), 1))),
            func.count(),
        )).one()
    more = len(rows) > SOURCES_PAGE
    rows = rows[:SOURCES_PAGE]
    sources = [{**source_view(r), "jurisdiction_norms": int(r["norms"] or 0),
                "jurisdiction_documents": int(r["documents"] or 0)} for r in rows]
    health = {"ok": total - never - failing, "failing": failing, "never run": never}
    return {"sources": sources, "health": {k: v for k, v in health.items() if v},
            "total": total, "next_after": str(rows[-1]["id"]) if more and rows else None}
