"""The explorer's reads: each function returns the JSON-ready data of one page.

Counts that do not depend on a query come from the precomputed search_place and
search_facet tables; lists are paged by key (never OFFSET); nothing here writes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache

from sqlalchemy import Select, and_, case, false, func, literal_column, null, or_, select
from sqlalchemy.engine import Connection

from ..jurisdictions import fold
from ..params import check_method, check_type, ibge_code_problem
from ..search.engine import UFS
from ..search.query import quoted
from ..store import Store, metadata
from ..store.openings import WHOLE_TEXT_CHARS, read_opening
from ..store.schema import (
    document,
    extraction,
    jurisdiction,
    norm,
    page,
    record,
    source,
    version,
)
from ..store.search_schema import search_facet, search_norm, search_place, search_queue
from .links import public_origin, public_url

LIST_PAGE = 25
NORM_PAGES_SHOWN = 60  # pages of text shown per document on a norm page
DOCUMENT_PAGES = 50  # pages of text per document page
FACET_BOUND = 20_000  # filtered jurisdiction facets are counted over at most this many norms
FAILURES_PAGE = 50
SOURCES_PAGE = 200
PAGE_TEXT_SHOWN = 200_000  # characters of one page's text shown (a page can be megabytes)
_AFTER = re.compile(r"([0-9]{1,8})_([0-9]{1,12})")
_ID = re.compile(r"[0-9]{1,12}")  # ASCII digits only: "²".isdigit() is True
_YEAR = re.compile(r"[0-9]{1,4}|none")
STATUSES = ("pending", "extracted", "empty", "failed")
FACETS = ("type", "year", "method", "text")
# A norm's legal life (enrich/status.py), strongest first; none_known is "no revocation
# known", never "in force".
LEGAL_STATUSES = ("revoked", "revoked_in_part", "suspended", "altered", "none_known")


class NotFound(Exception):
    """An id that names nothing: the explorer answers 404."""


class BadRequest(Exception):
    """A parameter the explorer cannot use: the explorer answers 400 with this message."""


class Moved(Exception):
    """A norm merged into another (its records found to be of one norm): a lasting redirect."""

    def __init__(self, norm_id: int) -> None:
        super().__init__(f"norm merged into norm {norm_id}")
        self.norm_id = norm_id


def _int_id(value: str | int, what: str) -> int:
    text = str(value)
    if not _ID.fullmatch(text):
        raise NotFound(f"no {what} {quoted(text)}")
    return int(text)


def _page_after(text: str | None) -> int | None:
    """A page token that is a row id: ASCII digits that fit the database's integers."""
    if not text:
        return None
    if not _ID.fullmatch(text):
        raise BadRequest("this page link is damaged: start from the first page")
    return int(text)


def day_date(day: int) -> str | None:
    """The display form of a sort key: 2011-06-27, 2011 or None."""
    if not day:
        return None
    year, month, dom = day // 10000, day // 100 % 100, day % 100
    return f"{year:04d}-{month:02d}-{dom:02d}" if month else f"{year:04d}"


# -- shared pieces --------------------------------------------------------------------------


@dataclass(frozen=True)
class Places:
    """The static jurisdiction list: UF names and municipality counts, loaded once."""

    uf_names: dict[str, str]
    uf_codes: dict[str, int]
    municipalities: dict[str, int]
    total: int
    names: dict[int, tuple[str, str]]  # IBGE code -> (name, UF)


@lru_cache(maxsize=8)
def places(store: Store) -> Places:
    """Cached per store: the IBGE list never changes while a server runs."""
    with store.engine.connect() as conn:
        names, codes, counts, total, every = {}, {}, Counter(), 0, {}
        for code, level, uf, name in conn.execute(
            select(jurisdiction.c.ibge_code, jurisdiction.c.level, jurisdiction.c.uf,
                   jurisdiction.c.name)
        ):
            total += 1
            every[code] = (name, uf)
            if level == "municipal":
                counts[uf] += 1
            else:
                names[uf], codes[uf] = name, code
    return Places(names, codes, dict(counts), total, every)


def jurisdiction_ref(code: int, name: str | None, uf: str | None) -> dict:
    """How every answer names a jurisdiction: one object, the same keys everywhere."""
    return {"ibge_code": code, "name": name, "uf": uf}


def _norm_summary(row) -> dict:
    return {
        "id": row.id, "jurisdiction": jurisdiction_ref(row.jurisdiction_code, row.name, row.uf),
        "type_raw": row.type_raw,
        "type": row.type_normalized, "number": row.number, "year": row.year,
        "date": _as_date(row.date), "ementa": row.ementa, "status": row.status,
    }


def _summary_query() -> Select:
    return (select(norm.c.id, norm.c.jurisdiction_code, jurisdiction.c.name, jurisdiction.c.uf,
                   norm.c.type_raw, norm.c.type_normalized, norm.c.number, norm.c.year,
                   norm.c.date, norm.c.ementa, norm.c.removed_at, norm.c.status)
            .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code))


def _as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value))


def _sum_places(conn: Connection, *where) -> dict:
    columns = ("norms", "removed", "with_text", "documents", "fetched", *STATUSES, "pages")
    row = conn.execute(
        select(func.count(), *[func.coalesce(func.sum(search_place.c[c]), 0) for c in columns])
        .where(*where)
    ).one()
    return {"jurisdictions": int(row[0]), **{c: int(v) for c, v in zip(columns, row[1:],
                                                                        strict=True)}}


def _sources_of(conn: Connection, codes: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    if not codes:
        return found
    for r in conn.execute(_source_query().where(source.c.jurisdiction_code.in_(codes))
                          .order_by(source.c.id)).mappings():
        found.setdefault(r["jurisdiction_code"], []).append(source_view(r))
    return found


def _source_query() -> Select:
    """Sources with the name and UF of their jurisdiction, as source_view reads them."""
    return (select(source, jurisdiction.c.name.label("jurisdiction_name"), jurisdiction.c.uf)
            .join(jurisdiction, jurisdiction.c.ibge_code == source.c.jurisdiction_code))


def source_view(r) -> dict:
    now = datetime.now(UTC)
    if r["last_run_at"] is None:
        health = "never run"
    elif r["last_error"]:
        health = "failing"
    else:
        health = "ok"
    due = r["next_due_at"]
    if due is not None and due.tzinfo is None:
        due = due.replace(tzinfo=UTC)
    return {
        "id": r["id"],
        "jurisdiction": jurisdiction_ref(r["jurisdiction_code"], r["jurisdiction_name"],
                                         r["uf"]),
        "platform": r["platform"],
        "base_url": public_url(r["base_url"]), "created_at": r["created_at"],
        "last_run_at": r["last_run_at"], "last_success_at": r["last_success_at"],
        "last_error": r["last_error"], "next_due_at": r["next_due_at"],
        "health": health, "overdue": bool(due and due < now),
    }


def pending_changes(conn: Connection) -> int:
    return conn.scalar(select(func.count()).select_from(search_queue)) or 0


# -- home -----------------------------------------------------------------------------------


COVERED_SHOWN = 12  # covered places on the home page, most norms first
PLACES_FOUND = 50  # places a search of the finder lists


def home(store: Store) -> dict:
    p = places(store)
    with store.engine.connect() as conn:
        totals = _sum_places(conn)
        covered_municipal = Counter()
        per_uf: dict[str, dict] = {uf: {"norms": 0, "documents": 0, "pages": 0,
                                        "extracted": 0} for uf in UFS}
        for uf, code, norms, documents, pages, extracted in conn.execute(
            select(search_place.c.uf, search_place.c.jurisdiction_code, search_place.c.norms,
                   search_place.c.documents, search_place.c.pages, search_place.c.extracted)
        ):
            entry = per_uf.setdefault(uf, {"norms": 0, "documents": 0, "pages": 0,
                                           "extracted": 0})
            entry["norms"] += norms
            entry["documents"] += documents
            entry["pages"] += pages
            entry["extracted"] += extracted
            if code >= 100:
                covered_municipal[uf] += 1
        covered = _covered_places(conn, COVERED_SHOWN)
        latest = _newest_norms(conn, 10)
        pending = pending_changes(conn)
    ufs = [{
        "uf": uf, "name": p.uf_names.get(uf, uf), "municipalities": p.municipalities.get(uf, 0),
        "municipalities_covered": covered_municipal[uf], **per_uf[uf],
    } for uf in UFS]
    return {
        "corpus": {**totals, "jurisdictions_covered": totals["jurisdictions"],
                   "jurisdictions_total": p.total},
        "covered": covered,
        "ufs": ufs,
        "latest": latest,
        "index": {"pending": pending},
    }


def _place_view(r) -> dict:
    return {"ibge_code": r.ibge_code, "name": r.name, "uf": r.uf, "level": r.level,
            "norms": int(r.norms or 0), "documents": int(r.documents or 0),
            "url": f"/jurisdiction/{r.ibge_code}"}


def _place_query() -> Select:
    return (select(jurisdiction.c.ibge_code, jurisdiction.c.name, jurisdiction.c.uf,
                   jurisdiction.c.level, search_place.c.norms, search_place.c.documents)
            .outerjoin(search_place,
                       search_place.c.jurisdiction_code == jurisdiction.c.ibge_code))


def _covered_places(conn: Connection, limit: int) -> list[dict]:
    """The places the corpus holds norms of, most norms first."""
    return [_place_view(r) for r in conn.execute(
        _place_query().where(search_place.c.norms > 0)
        .order_by(search_place.c.norms.desc(), jurisdiction.c.name_folded).limit(limit))]


def _newest_norms(conn: Connection, limit: int) -> list[dict]:
    """The newest norms by their own date (never a date after today: a misread year)."""
    today = date.today()
    newest = today.year * 10000 + today.month * 100 + today.day
    ids = [r.norm_id for r in conn.execute(
        select(search_norm.c.norm_id).where(search_norm.c.day <= newest)
        .order_by(search_norm.c.day.desc(), search_norm.c.norm_id.desc()).limit(limit))]
    rows = {r.id: r for r in conn.execute(
        _summary_query().where(norm.c.id.in_(ids), norm.c.merged_into.is_(None)))}
    return [_norm_summary(rows[i]) for i in ids if i in rows]


def find_places(store: Store, q: str | None, uf: str | None = None) -> dict:
    """The place finder: names containing the words, accents and case aside ("juazeiro",
    "sao jose"), or an IBGE code; a trailing UF narrows ("juazeiro ba"); covered first."""
    text = (q or "").strip()
    if len(text) > 100:
        raise BadRequest("a place name has at most 100 characters")
    uf = (uf or "").strip().upper() or None
    if uf is not None and uf not in places(store).uf_codes:
        raise BadRequest(f"no federative unit {quoted(uf[:10])}: use a code such as BA or SP")
    words = "".join(c if c.isalnum() else " " for c in fold(text)).split()
    if len(words) > 1 and words[-1].upper() in UFS and uf is None:
        uf = words.pop().upper()
    query = _place_query()
    prefix = None
    if len(words) == 1 and words[0].isdigit():
        if len(words[0]) > 7:
            raise BadRequest("an IBGE code has 7 digits (2 for a state), such as 2918407")
        query = query.where(jurisdiction.c.ibge_code == int(words[0]))
    elif words:
        folded = " ".join(words)
        # name_folded keeps punctuation ("d'oeste", "pau-d'arco"): match word by word.
        # Words are letters and digits only (no LIKE wildcard survives the split above).
        for w in words:
            query = query.where(jurisdiction.c.name_folded.like(f"%{w}%"))
        prefix = case((jurisdiction.c.name_folded.like(folded + "%"), 0), else_=1)
    if uf:
        query = query.where(jurisdiction.c.uf == uf)
    with store.engine.connect() as conn:
        if not words and not uf:
            found = _covered_places(conn, PLACES_FOUND + 1)
        else:
            order = [func.coalesce(search_place.c.norms, 0).desc()]
            if prefix is not None:
                order.append(prefix)
            found = [_place_view(r) for r in conn.execute(
                query.order_by(*order, jurisdiction.c.level.desc(), jurisdiction.c.name_folded)
                .limit(PLACES_FOUND + 1))]
    more = len(found) > PLACES_FOUND
    found = found[:PLACES_FOUND]
    return {"query": {"q": text, "uf": uf}, "places": found, "more": more,
            "covered": sum(1 for f in found if f["norms"])}


# -- UF -------------------------------------------------------------------------------------


def uf_page(store: Store, uf: str) -> dict:
    uf = uf.upper()
    p = places(store)
    if uf not in p.uf_codes:
        raise NotFound(f"no federative unit {quoted(uf)}: use a code such as BA or SP")
    state_code = p.uf_codes[uf]
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(jurisdiction.c.ibge_code, jurisdiction.c.name, jurisdiction.c.level,
                   search_place)
            .outerjoin(search_place,
                       search_place.c.jurisdiction_code == jurisdiction.c.ibge_code)
            .where(jurisdiction.c.uf == uf)
            .order_by(jurisdiction.c.level.desc(), jurisdiction.c.name_folded)
        ).mappings().all()
        sources = _sources_of(conn, [r["ibge_code"] for r in rows if r["norms"]])
        totals = _sum_places(conn, search_place.c.uf == uf)
        state_norms = _listing(conn, state_code, {}, None, 10)
    municipalities, state = [], None
    for r in rows:
        entry = {
            "ibge_code": r["ibge_code"], "name": r["name"], "level": r["level"],
            **{k: int(r[k] or 0) for k in ("norms", "documents", "fetched", "with_text",
                                            *STATUSES, "pages")},
            "sources": sources.get(r["ibge_code"], []),
        }
        if r["level"] == "municipal":
            municipalities.append(entry)
        else:
            state = entry
    covered = sum(1 for m in municipalities if m["norms"])
    return {
        "uf": {"code": uf, "name": p.uf_names[uf], "ibge_code": state_code},
        "totals": {**totals, "municipalities": len(municipalities),
                   "municipalities_covered": covered},
        "state": state,
        "state_norms": state_norms["norms"],
        "municipalities": municipalities,
    }


# -- jurisdiction ---------------------------------------------------------------------------


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


def _listing(conn: Connection, code: int, filters: dict[str, str],
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
        _summary_query().where(norm.c.id.in_([r.norm_id for r in rows])))}
    norms = []
    for r in rows:
        m = meta.get(r.norm_id)
        if m is None:
            continue
        norms.append({**_norm_summary(m), "removed": m.removed_at is not None,
                      "methods": r.methods.split(), "has_text": bool(r.has_text),
                      "confidence": r.confidence, "documents": r.documents, "pages": r.pages})
    next_after = f"{rows[-1].day}_{rows[-1].norm_id}" if more and rows else None
    return {"norms": norms, "next_after": next_after}


def _jurisdiction_code(text: str, parameter: bool = False) -> int:
    """An IBGE code from a path (NotFound when it is not one) or a parameter (BadRequest
    when malformed; NotFound when well formed but no jurisdiction's), saying what is wrong."""
    problem = ibge_code_problem(text)
    if problem and parameter and not problem.startswith("no jurisdiction"):
        raise BadRequest(problem)
    if problem:
        raise NotFound(problem)
    return int(text)


def jurisdiction_page(store: Store, code_text: str, filters: dict[str, str],
                      after: tuple[int, int] | None) -> dict:
    code = _jurisdiction_code(code_text)
    p = places(store)
    with store.engine.connect() as conn:
        j = conn.execute(select(jurisdiction).where(jurisdiction.c.ibge_code == code)
                         ).mappings().first()
        if j is None:
            raise NotFound(f"no jurisdiction with IBGE code {code}")
        counts = _sum_places(conn, search_place.c.jurisdiction_code == code)
        exact = True
        if filters:
            facets, exact = _live_facets(conn, code, filters)
        else:
            facets = _stored_facets(conn, f"j:{code}")
            facets["status"] = _status_facet(conn, code)
        listing = _listing(conn, code, filters, after, LIST_PAGE)
        sources = _sources_of(conn, [code]).get(code, [])
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


# -- norm -----------------------------------------------------------------------------------


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
        "year": r["year"], "date": _as_date(r["date"]), "ementa": r["ementa"],
        "first_seen_at": r["first_seen_at"], "last_seen_at": r["last_seen_at"],
        "changed_at": r["changed_at"], "removed_at": r["removed_at"],
        "unmatched": r["unmatched"],
        "heading": {"type": r["heading_family"], "number": r["heading_number"],
                    "year": r["heading_year"], "date": _as_date(r["heading_date"])}
        if r["heading_version_id"] is not None else None,
        "heading_disagreement": _json_list(r["heading_disagreement"]),
        "source": source_view(src),
    }


def _publications(conn: Connection, record_ids: list[int]) -> dict[int, list[dict]]:
    """Where records cut out of official gazettes were published (Querido Diário): each
    publication's gazette (date, edition, extra, page) and the act's span of its text."""
    from ..store.gazette_schema import gazette, gazette_act

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
            "date": _as_date(r.date), "edition": r.edition, "is_extra": bool(r.is_extra),
            "page": r.page, "gazette_url": r.url, "text_url": r.txt_url,
            "act_url": f"{r.txt_url}#char={r.start},{r.end}" if r.txt_url else None,
            "flags": r.flags.split() if r.flags else []})
    return found


def _json_list(text: str | None) -> list[dict]:
    """A JSON list of objects stored by enrichment; anything else reads as empty."""
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


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
    norm_id = _int_id(norm_id_text, "norm")
    with store.engine.connect() as conn:
        n = resolve_norm_id(conn, norm_id)
        rows = conn.execute(select(record).where(record.c.norm_id == norm_id)
                            .order_by(record.c.id)).mappings().all()
        sources = {r["id"]: r for r in conn.execute(
            _source_query().where(source.c.id.in_({r["source_id"] for r in rows}))).mappings()}
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
            "date": _as_date(n["date"]), "ementa": n["ementa"], "urn": n["urn"],
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
    document_id = _int_id(document_id_text, "document")
    with store.engine.connect() as conn:
        docs = _documents(conn, [], DOCUMENT_PAGES, document_id, page_after)
        if not docs:
            raise NotFound(f"no document {document_id}")
        doc = docs[0]
        n = conn.execute(_summary_query().where(norm.c.id == doc["norm_id"])).one()
    next_page = doc["pages"][-1]["number"] if doc["more_pages"] else None
    return {"document": doc, "norm": _norm_summary(n),
            "next_after": str(next_page) if next_page else None,
            "next": f"/document/{document_id}?after={next_page}" if next_page else None}


def original_of(store: Store, kind: str, id_text: str) -> dict:
    """The stored version behind a download: its digest and media type, never a path, and
    what names the file for a reader (the norm, its place, the document's role)."""
    object_id = _int_id(id_text, kind)
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


# -- quality and sources ---------------------------------------------------------------------


def quality_page(store: Store, code_text: str | None, after_text: str | None) -> dict:
    code = _jurisdiction_code(code_text, parameter=True) if code_text else None
    after = _page_after(after_text)
    with store.engine.connect() as conn:
        scope_name = None
        if code is not None:
            j = conn.execute(select(jurisdiction.c.name, jurisdiction.c.uf)
                             .where(jurisdiction.c.ibge_code == code)).first()
            if j is None:
                raise NotFound(f"no jurisdiction with IBGE code {code}")
            scope_name = f"{j.name} ({j.uf})"
            totals = _sum_places(conn, search_place.c.jurisdiction_code == code)
        else:
            totals = _sum_places(conn)
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
    after = _page_after(after_text) or 0
    with store.engine.connect() as conn:
        rows = conn.execute(
            _source_query().add_columns(search_place.c.norms, search_place.c.documents)
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
