"""A jurisdiction's page: its norms newest first (keyset pages), filtered, with facets."""

from __future__ import annotations

import re
from collections import Counter

from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection

from ...params import check_method, check_type
from ...search.query import quoted
from ...store import Store
from ...store.schema import jurisdiction, norm
from ...store.search_schema import search_facet, search_norm, search_place
from .common import (
    LEGAL_STATUSES,
    BadRequest,
    NotFound,
    jurisdiction_code,
    norm_summary,
    pending_changes,
    places,
    sources_of,
    sum_places,
    summary_query,
)

LIST_PAGE = 25
FACET_BOUND = 20_000  # filtered jurisdiction facets are counted over at most this many norms
_AFTER = re.compile(r"([0-9]{1,8})_([0-9]{1,12})")
_YEAR = re.compile(r"[0-9]{1,4}|none")
FACETS = ("type", "year", "method", "text")


def parse_listing_filters(params: dict[str, list[str]]) -> dict[str, str]:
    filters = {}
    for name in FACETS:
        values = [v for v in params.get(name, []) if v]
        if not values:
            continue
        value = values[-1]
        if not re.fullmatch(r"[a-z0-9.]{1,64}", value):
            raise BadRequest(f"not a valid {name}: {quoted(value)}")
        if name == "text" and value not in ("yes", "no"):
            raise BadRequest("text is 'yes' or 'no'")
        if name == "year" and not _YEAR.fullmatch(value):
            raise BadRequest("year is a year such as 2011, or 'none'")
        if name == "type":
            check_type(value)
        if name == "method":
            check_method(value)
        filters[name] = value
    statuses = [v for v in params.get("status", []) if v]
    if statuses:
        if statuses[-1] not in LEGAL_STATUSES:
            raise BadRequest(f"status is one of {', '.join(LEGAL_STATUSES)}, not "
                             f"{quoted(statuses[-1][:40])}")
        filters["status"] = statuses[-1]
    return filters


def parse_after(after: str | None) -> tuple[int, int] | None:
    if not after:
        return None
    match = _AFTER.fullmatch(after)
    if not match:
        raise BadRequest("this page link is damaged: start from the first page")
    return int(match[1]), int(match[2])


def _filter_clauses(filters: dict[str, str]) -> list:
    clauses = []
    if "type" in filters:
        clauses.append(search_norm.c.type == filters["type"])
    if "year" in filters:
        year = filters["year"]
        clauses.append(search_norm.c.year.is_(None) if year == "none"
                       else search_norm.c.year == int(year))
    if "method" in filters:
        method = filters["method"]
        clauses.append(search_norm.c.methods == "" if method == "none" else
                       (" " + search_norm.c.methods + " ").like(f"% {method} %"))
    if "text" in filters:
        clauses.append(search_norm.c.has_text.is_(filters["text"] == "yes"))
    if "status" in filters:
        # Status lives on the norm (enrichment changes it without touching the index); read
        # row by row along the listing's own order, so a common status costs nothing more.
        legal = norm.alias("legal")
        clauses.append(select(legal.c.id).where(legal.c.id == search_norm.c.norm_id,
                                                legal.c.status == filters["status"]).exists())
    return clauses


def norms_listing(conn: Connection, code: int, filters: dict[str, str],
             after: tuple[int, int] | None, limit: int) -> dict:
    """Norms of a jurisdiction, newest first, one keyset page."""
    query = (
        select(search_norm.c.norm_id, search_norm.c.day, search_norm.c.methods,
               search_norm.c.has_text, search_norm.c.confidence, search_norm.c.documents,
               search_norm.c.pages)
        .where(search_norm.c.jurisdiction_code == code, *_filter_clauses(filters))
        .order_by(search_norm.c.day.desc(), search_norm.c.norm_id.desc())
        .limit(limit + 1)
    )
    if after is not None:
        day, norm_id = after
        query = query.where(or_(search_norm.c.day < day,
                                and_(search_norm.c.day == day, search_norm.c.norm_id < norm_id)))
    rows = conn.execute(query).all()
    more = len(rows) > limit
    rows = rows[:limit]
    meta = {r.id: r for r in conn.execute(
        summary_query().where(norm.c.id.in_([r.norm_id for r in rows])))}
    norms = []
    for r in rows:
        m = meta.get(r.norm_id)
        if m is None:
            continue
        norms.append({**norm_summary(m), "removed": m.removed_at is not None,
                      "methods": r.methods.split(), "has_text": bool(r.has_text),
                      "confidence": r.confidence, "documents": r.documents, "pages": r.pages})
    next_after = f"{rows[-1].day}_{rows[-1].norm_id}" if more and rows else None
    return {"norms": norms, "next_after": next_after}


def jurisdiction_page(store: Store, code_text: str, filters: dict[str, str],
                      after: tuple[int, int] | None) -> dict:
    code = jurisdiction_code(code_text)
    p = places(store)
    with store.engine.connect() as conn:
        j = conn.execute(select(jurisdiction).where(jurisdiction.c.ibge_code == code)
                         ).mappings().first()
        if j is None:
            raise NotFound(f"no jurisdiction with IBGE code {code}")
        counts = sum_places(conn, search_place.c.jurisdiction_code == code)
        exact = True
        if filters:
            facets, exact = _live_facets(conn, code, filters)
        else:
            facets = _stored_facets(conn, f"j:{code}")
            facets["status"] = _status_facet(conn, code)
        listing = norms_listing(conn, code, filters, after, LIST_PAGE)
        sources = sources_of(conn, [code]).get(code, [])
        pending = pending_changes(conn)
    return {
        "jurisdiction": {"ibge_code": j["ibge_code"], "name": j["name"], "uf": j["uf"],
                         "uf_name": p.uf_names.get(j["uf"], j["uf"]), "level": j["level"],
                         "lexml_label": j["lexml_label"]},
        "counts": counts,
        "filters": filters,
        "facets": facets,
        "facets_exact": exact,
        "norms": listing["norms"],
        "next_after": listing["next_after"],
        "sources": sources,
        "index": {"pending": pending},
    }


def _stored_facets(conn: Connection, scope: str) -> dict[str, list[dict]]:
    found: dict[str, Counter] = {f: Counter() for f in FACETS}
    for facet, value, count in conn.execute(
        select(search_facet.c.facet, search_facet.c.value, search_facet.c.count)
        .where(search_facet.c.scope == scope, search_facet.c.facet.in_(FACETS))
        # Values of equal counts in one order on every backend (SQLite reads them in key
        # order, PostgreSQL in whatever order its heap holds them).
        .order_by(search_facet.c.facet, search_facet.c.value)
    ):
        found[facet][value] = count
    return _facet_lists(found)


def _status_facet(conn: Connection, code: int) -> list[dict]:
    """Norms of a jurisdiction per legal status, counted now: enrichment changes a status
    without touching the search index whose counts the other facets come from."""
    counts = Counter(dict(conn.execute(
        select(norm.c.status, func.count())
        .where(norm.c.jurisdiction_code == code, norm.c.merged_into.is_(None))
        .group_by(norm.c.status)).all()))
    return _status_list(counts)


def _status_list(counts: Counter) -> list[dict]:
    return [{"value": s, "count": int(counts[s])} for s in LEGAL_STATUSES if counts[s]]


def _live_facets(conn: Connection, code: int, filters: dict[str, str]
                 ) -> tuple[dict[str, list[dict]], bool]:
    rows = conn.execute(
        select(search_norm.c.type, search_norm.c.year, search_norm.c.methods,
               search_norm.c.has_text, norm.c.status)
        .join(norm, norm.c.id == search_norm.c.norm_id)
        .where(search_norm.c.jurisdiction_code == code, *_filter_clauses(filters))
        .limit(FACET_BOUND + 1)
    ).all()
    exact = len(rows) <= FACET_BOUND
    found: dict[str, Counter] = {f: Counter() for f in FACETS}
    statuses: Counter = Counter()
    for type_, year, methods, has_text, status in rows[:FACET_BOUND]:
        found["type"][type_] += 1
        found["year"][str(year) if year else "none"] += 1
        for method in methods.split() or ["none"]:
            found["method"][method] += 1
        found["text"]["yes" if has_text else "no"] += 1
        statuses[status] += 1
    return {**_facet_lists(found), "status": _status_list(statuses)}, exact


def _facet_lists(found: dict[str, Counter]) -> dict[str, list[dict]]:
    lists = {}
    for facet, counter in found.items():
        if facet == "year":
            items = sorted(counter.items(), key=lambda kv: kv[0], reverse=True)
        else:
            items = counter.most_common()
        lists[facet] = [{"value": v, "count": int(c)} for v, c in items]
    return lists
