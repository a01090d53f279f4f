"""The corpus by place: the home page, the place finder and a federative unit's page."""

from __future__ import annotations

from collections import Counter
from datetime import date

from sqlalchemy import Select, case, func, select
from sqlalchemy.engine import Connection

from ...jurisdictions import fold
from ...search.engine import UFS
from ...search.query import quoted
from ...store import Store
from ...store.schema import jurisdiction, norm
from ...store.search_schema import search_norm, search_place
from .common import (
    STATUSES,
    BadRequest,
    NotFound,
    norm_summary,
    pending_changes,
    places,
    sources_of,
    sum_places,
    summary_query,
)
from .jurisdiction import norms_listing

COVERED_SHOWN = 12  # covered places on the home page, most norms first
PLACES_FOUND = 50  # places a search of the finder lists


def home(store: Store) -> dict:
    p = places(store)
    with store.engine.connect() as conn:
        totals = sum_places(conn)
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
        summary_query().where(norm.c.id.in_(ids), norm.c.merged_into.is_(None)))}
    return [norm_summary(rows[i]) for i in ids if i in rows]


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
        sources = sources_of(conn, [r["ibge_code"] for r in rows if r["norms"]])
        totals = sum_places(conn, search_place.c.uf == uf)
        state_norms = norms_listing(conn, state_code, {}, None, 10)
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
