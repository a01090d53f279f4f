"""A norm's legal life and its place in the citation graph, as the explorer shows them.

The legal status with its evidence, the citations a norm's texts make ("cita"), the
citations that name it ("citada por"), and every edge of the graph as keyed pages of data
(`/citations`). A norm may cite hundreds of norms and be cited by thousands: the norm page
shows a bounded first part of each, says how many there are, and links the full list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from ..enrich.citation_model import KINDS
from ..search.query import quoted
from ..store import Store
from ..store.schema import citation, document, jurisdiction, norm, record
from .data.common import (
    LEGAL_STATUSES,
    BadRequest,
    NotFound,
    after_id,
    as_date,
    int_id,
    json_list,
    jurisdiction_code,
    jurisdiction_ref,
    places,
)
from .data.norms import NORM_PAGES_SHOWN

CITATIONS_SHOWN = 200  # a norm's own citations shown on its page
CITED_BY_SHOWN = 100  # citations naming a norm shown on its page
EVIDENCE_SHOWN = 50  # pieces of status evidence shown (a code may be altered by hundreds)
EDGES_LIMIT, EDGES_MAX = 100, 1000  # /citations: edges per page, default and most
# /citations without a norm to start from reads at most this range of citation ids per page
# (from the first id after the page token): filters that match few edges (one small
# jurisdiction) then give short pages instead of a scan of the whole table, and `next` goes
# on from where the page stopped reading.
SCAN_WINDOW = 20_000
LEXML_RESOLVER = "https://www.lexml.gov.br/urn/"
_FLAGS_OK = re.compile(r"[a-z_]{1,40}")


def lexml_url(urn: str | None) -> str | None:
    """LexML's own resolver for a URN the corpus does not hold (a federal law, say)."""
    return LEXML_RESOLVER + quote(urn, safe=":;@!.-~") if urn else None


def base_urn(urn: str | None) -> str | None:
    """The norm's URN without a fragment (!art39-B) or version (@...)."""
    return re.split(r"[!@~]", urn, maxsplit=1)[0] if urn else None


def _flags(text: str | None) -> list[str]:
    return [f for f in (text or "").split() if _FLAGS_OK.fullmatch(f)]


# -- norms named by citations and evidence ---------------------------------------------------


def norm_refs(conn: Connection, ids: Iterable[int]) -> dict[int, dict]:
    """The few fields that name a norm in a list, with its place and legal status."""
    wanted = sorted({i for i in ids if i is not None})
    found: dict[int, dict] = {}
    for start in range(0, len(wanted), 500):
        for r in conn.execute(
            select(norm.c.id, norm.c.jurisdiction_code, jurisdiction.c.name, jurisdiction.c.uf,
                   norm.c.type_raw, norm.c.type_normalized, norm.c.number, norm.c.year,
                   norm.c.date, norm.c.urn, norm.c.status, norm.c.merged_into)
            .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
            .where(norm.c.id.in_(wanted[start:start + 500]))
        ):
            found[r.id] = {
                "id": r.id, "url": f"/norm/{r.id}",
                "jurisdiction": jurisdiction_ref(r.jurisdiction_code, r.name, r.uf),
                "type_raw": r.type_raw,
                "type": r.type_normalized, "number": r.number, "year": r.year,
                "date": as_date(r.date), "urn": r.urn, "status": r.status,
                "merged_into": r.merged_into}
    return found


def _anchors(conn: Connection, norm_ids: Iterable[int]) -> dict[int, int]:
    """version id -> the document whose current version it is, among these norms' documents."""
    ids = sorted(set(norm_ids))
    if not ids:
        return {}
    return {v: d for v, d in conn.execute(
        select(document.c.current_version_id, document.c.id)
        .join(record, record.c.id == document.c.record_id)
        .where(record.c.norm_id.in_(ids), document.c.current_version_id.is_not(None)))}


def _at(norm_id: int, document_id: int | None, page_number: int) -> str:
    """Where a citation stands: its page on the norm page, or on the document page past the
    pages a norm page shows."""
    if document_id is None:
        return f"/norm/{norm_id}"
    anchor = f"#d{document_id}-p{page_number}"
    if page_number <= NORM_PAGES_SHOWN:
        return f"/norm/{norm_id}{anchor}"
    return f"/document/{document_id}?after={page_number - 1}{anchor}"


# -- status ------------------------------------------------------------------------------


def status_view(conn: Connection, norm_id: int, status: str, evidence_json: str | None
                ) -> dict:
    """The status and its evidence, strongest first, each naming the norm that acted."""
    evidence = json_list(evidence_json)
    rank = {s: i for i, s in enumerate(LEGAL_STATUSES)}
    evidence.sort(key=lambda e: rank.get(e.get("status"), len(rank)))
    shown = evidence[:EVIDENCE_SHOWN]
    refs = norm_refs(conn, [e.get("by_norm") for e in shown
                            if isinstance(e.get("by_norm"), int)])
    acting = {e["by_norm"] for e in shown if e.get("via") == "text"
              and isinstance(e.get("by_norm"), int)}
    anchors = _anchors(conn, acting | {norm_id})
    located = _evidence_versions(conn, norm_id, acting)
    items = []
    for e in shown:
        by = refs.get(e.get("by_norm")) if isinstance(e.get("by_norm"), int) else None
        own_note = e.get("kind") in ("revoked_by", "revoked_in_part_by", "altered_by")
        page_number = e.get("page") if isinstance(e.get("page"), int) else None
        href = None
        if e.get("via") == "text" and page_number is not None:
            # The sentence stands in the acting norm's text, or in this norm's own note.
            in_norm = norm_id if own_note else (by or {}).get("id")
            version = located.get((in_norm, page_number, e.get("kind")))
            if in_norm is not None:
                href = _at(in_norm, anchors.get(version), page_number)
        items.append({
            "status": e.get("status"), "via": e.get("via"), "kind": e.get("kind"),
            "by_norm": by, "in_own_text": own_note,
            "citation": e.get("citation"), "article": e.get("article"), "page": page_number,
            "sentence": e.get("sentence"), "label": e.get("label"),
            "native_id": e.get("native_id"), "urn": e.get("urn"),
            "flags": [f for f in e.get("flags") or [] if isinstance(f, str)], "at": href})
    return {"status": status, "evidence": items, "evidence_total": len(evidence)}


def _evidence_versions(conn: Connection, norm_id: int, acting: set[int]
                       ) -> dict[tuple[int, int, str], int]:
    """(norm, page, kind) -> the version whose text holds that act on this norm."""
    found = {}
    rows = conn.execute(
        select(citation.c.norm_id, citation.c.page, citation.c.kind, citation.c.version_id)
        .where(citation.c.target_norm_id == norm_id, citation.c.norm_id.in_(sorted(acting)))
    ).all() if acting else []
    rows += conn.execute(
        select(citation.c.norm_id, citation.c.page, citation.c.kind, citation.c.version_id)
        .where(citation.c.norm_id == norm_id,
               citation.c.kind.in_(("revoked_by", "revoked_in_part_by", "altered_by")))
    ).all()
    for n, page_number, kind, version in rows:
        found.setdefault((n, page_number, kind), version)
    return found


# -- a norm's citations and the citations naming it ------------------------------------------


def _item(c, anchors: dict[int, int]) -> dict:
    return {"id": c.id, "kind": c.kind, "text": c.text, "fragment": c.fragment,
            "article": c.article, "page": c.page, "sentence": c.sentence,
            "flags": _flags(c.flags), "urn": c.urn,
            "at": _at(c.norm_id, anchors.get(c.version_id), c.page)}


def outgoing(conn: Connection, norm_id: int) -> dict:
    """What this norm's texts cite, grouped by the norm cited, in the order first cited."""
    total = conn.scalar(select(func.count()).select_from(citation)
                        .where(citation.c.norm_id == norm_id)) or 0
    rows = conn.execute(
        select(citation).where(citation.c.norm_id == norm_id)
        .order_by(citation.c.id).limit(CITATIONS_SHOWN)
    ).all() if total else []
    refs = norm_refs(conn, [r.target_norm_id for r in rows])
    anchors = _anchors(conn, [norm_id])
    groups: dict[tuple, dict] = {}
    for c in rows:
        if c.target_norm_id is not None:
            key: tuple = ("norm", c.target_norm_id)
        elif c.urn:
            key = ("urn", base_urn(c.urn))
        elif c.target_key:
            key = ("key", c.target_key)
        else:
            key = ("text", " ".join(c.text.lower().split()))
        group = groups.get(key)
        if group is None:
            urn = (refs.get(c.target_norm_id) or {}).get("urn") or base_urn(c.urn)
            group = groups[key] = {
                "norm": refs.get(c.target_norm_id), "urn": urn,
                "lexml_url": None if c.target_norm_id is not None else lexml_url(urn),
                "text": c.text, "sphere": c.sphere, "family": c.family, "number": c.number,
                "year": c.year, "date": as_date(c.date), "kinds": [], "citations": []}
        if c.kind not in group["kinds"]:
            group["kinds"].append(c.kind)
        group["citations"].append(_item(c, anchors))
    return {"total": total, "shown": len(rows), "groups": list(groups.values()),
            "all": f"/citations?from={norm_id}",
            "more": f"/citations?from={norm_id}&after={rows[-1].id}"
            if total > len(rows) and rows else None}


def incoming(conn: Connection, norm_id: int, citing_norms: int) -> dict:
    """The citations of other norms that name this one, grouped by the citing norm."""
    where = (citation.c.target_norm_id == norm_id, citation.c.norm_id != norm_id)
    # Counted from the index alone (a norm may be cited thousands of times), less the few
    # citations of itself found through its own citations (`+ 0`: not the target's index).
    total = (conn.scalar(select(func.count()).select_from(citation)
                         .where(citation.c.target_norm_id == norm_id)) or 0) - (
        conn.scalar(select(func.count()).select_from(citation)
                    .where(citation.c.norm_id == norm_id,
                           citation.c.target_norm_id + 0 == norm_id)) or 0)
    rows = conn.execute(
        select(citation).where(*where).order_by(citation.c.id).limit(CITED_BY_SHOWN)
    ).all() if total else []
    refs = norm_refs(conn, [r.norm_id for r in rows])
    anchors = _anchors(conn, {r.norm_id for r in rows})
    groups: dict[int, dict] = {}
    for c in rows:
        group = groups.setdefault(c.norm_id, {"norm": refs.get(c.norm_id), "kinds": [],
                                              "citations": []})
        if c.kind not in group["kinds"]:
            group["kinds"].append(c.kind)
        group["citations"].append(_item(c, anchors))
    return {"total": total, "norms": citing_norms, "shown": len(rows),
            "groups": list(groups.values()), "all": f"/citations?to={norm_id}",
            "more": f"/citations?to={norm_id}&after={rows[-1].id}"
            if total > len(rows) and rows else None}


# -- the graph as data --------------------------------------------------------------------

RESOLVED = ("yes", "no")


def parse_edge_filters(params: dict[str, str | None]) -> dict:
    """The filters of /citations, checked: j, kind, resolved, from, to, limit."""
    filters: dict = {}
    j = params.get("j")
    if j:
        filters["j"] = jurisdiction_code(j, parameter=True)
    kind = params.get("kind")
    if kind:
        if kind not in KINDS:
            raise BadRequest(f"kind is one of {', '.join(KINDS)}, not {quoted(kind[:40])}")
        filters["kind"] = kind
    resolved = params.get("resolved")
    if resolved:
        if resolved not in RESOLVED:
            raise BadRequest("resolved is 'yes' (the cited norm is in the corpus) or 'no'")
        filters["resolved"] = resolved
    for name in ("from", "to"):
        value = params.get(name)
        if value:
            filters[name] = int_id(value, "norm")
    limit = params.get("limit")
    if limit:
        if not re.fullmatch(r"[0-9]{1,4}", limit) or not 1 <= int(limit) <= EDGES_MAX:
            raise BadRequest(f"limit is a number from 1 to {EDGES_MAX}")
        filters["limit"] = int(limit)
    return filters


def citations_page(store: Store, filters: dict, after_text: str | None) -> dict:
    """One keyed page of citation edges, oldest first, with the norms at both ends."""
    after = after_id(after_text) or 0
    limit = filters.get("limit", EDGES_LIMIT)
    citing = norm.alias("citing")
    cited = norm.alias("cited")
    with store.engine.connect() as conn:
        scope = _edge_scope(conn, filters)
        where = [citation.c.id > after]
        if "kind" in filters:
            where.append(citation.c.kind == filters["kind"])
        if "resolved" in filters:
            where.append(citation.c.target_norm_id.is_not(None) if filters["resolved"] == "yes"
                         else citation.c.target_norm_id.is_(None))
        if "from" in filters:
            where.append(citation.c.norm_id == filters["from"])
        if "to" in filters:
            where.append(citation.c.target_norm_id == filters["to"])
        if "j" in filters:
            # `+ 0`: never lead with the jurisdiction's norms; the id range leads (see below).
            where.append(citing.c.jurisdiction_code + 0 == filters["j"])
        total = window_end = None
        if "from" in filters or "to" in filters:
            counted = select(func.count()).select_from(citation)
            if "j" in filters:
                counted = counted.join(citing, citing.c.id == citation.c.norm_id)
            total = conn.scalar(counted.where(*where[1:])) or 0
        else:
            first = conn.scalar(select(func.min(citation.c.id)).where(citation.c.id > after))
            window_end = (first or after) + SCAN_WINDOW - 1
            where.append(citation.c.id <= window_end)
        rows = conn.execute(
            select(citation, citing.c.jurisdiction_code.label("citing_jurisdiction"),
                   citing.c.urn.label("citing_urn"), citing.c.type_normalized.label("c_type"),
                   citing.c.type_raw.label("c_type_raw"), citing.c.number.label("c_number"),
                   citing.c.year.label("c_year"), cited.c.urn.label("cited_urn"),
                   cited.c.type_normalized.label("t_type"), cited.c.type_raw.label("t_type_raw"),
                   cited.c.number.label("t_number"), cited.c.year.label("t_year"),
                   cited.c.jurisdiction_code.label("cited_jurisdiction"),
                   cited.c.status.label("t_status"))
            .join(citing, citing.c.id == citation.c.norm_id)
            .outerjoin(cited, cited.c.id == citation.c.target_norm_id)
            .where(*where).order_by(citation.c.id).limit(limit + 1)
        ).all()
        more = len(rows) > limit
        rows = rows[:limit]
        anchors = _anchors(conn, {r.norm_id for r in rows})
        last = conn.scalar(select(func.max(citation.c.id))) if not more else None
    next_after = None
    if more:
        next_after = rows[-1].id
    elif window_end is not None and last is not None and window_end < last:
        next_after = window_end
    return {
        "filters": {k: v for k, v in filters.items() if k != "limit"},
        "scope": scope,
        "limit": limit,
        "total": total,
        "citations": [_edge(r, anchors, places(store).names) for r in rows],
        "next_after": str(next_after) if next_after is not None else None,
    }


def _edge_scope(conn: Connection, filters: dict) -> dict:
    """The jurisdiction and norms the filters name, checked to exist (404 otherwise)."""
    scope: dict = {"jurisdiction": None, "from": None, "to": None}
    if "j" in filters:
        code = filters["j"]
        j = conn.execute(select(jurisdiction.c.name, jurisdiction.c.uf)
                         .where(jurisdiction.c.ibge_code == code)).first()
        if j is None:
            raise NotFound(f"no jurisdiction with IBGE code {code}")
        scope["jurisdiction"] = {"ibge_code": code, "name": j.name, "uf": j.uf}
    named = [filters[k] for k in ("from", "to") if k in filters]
    refs = norm_refs(conn, named)
    for name in ("from", "to"):
        if name in filters:
            ref = refs.get(filters[name])
            if ref is None:
                raise NotFound(f"no norm {filters[name]}")
            scope[name] = ref
    return scope


def _edge(r, anchors: dict[int, int], names: dict[int, tuple[str, str]]) -> dict:
    return {
        "id": r.id,
        "from": {"id": r.norm_id, "url": f"/norm/{r.norm_id}",
                 "jurisdiction": jurisdiction_ref(r.citing_jurisdiction,
                                                  *names.get(r.citing_jurisdiction, (None, None))),
                 "urn": r.citing_urn,
                 "type": r.c_type, "type_raw": r.c_type_raw, "number": r.c_number,
                 "year": r.c_year},
        "to": {"id": r.target_norm_id, "url": f"/norm/{r.target_norm_id}",
               "jurisdiction": jurisdiction_ref(r.cited_jurisdiction,
                                                *names.get(r.cited_jurisdiction, (None, None))),
               "urn": r.cited_urn,
               "type": r.t_type, "type_raw": r.t_type_raw, "number": r.t_number,
               "year": r.t_year, "status": r.t_status}
        if r.target_norm_id is not None else None,
        "kind": r.kind, "text": r.text, "sphere": r.sphere, "family": r.family,
        "number": r.number, "year": r.year, "date": as_date(r.date), "fragment": r.fragment,
        "urn": r.urn, "lexml_url": lexml_url(base_urn(r.urn))
        if r.target_norm_id is None else None,
        "target_key": r.target_key, "article": r.article, "page": r.page,
        "sentence": r.sentence, "flags": _flags(r.flags),
        "at": _at(r.norm_id, anchors.get(r.version_id), r.page),
    }


def legal_life(store: Store, norm_id: int) -> dict:
    """The norm page's legal part: status with evidence, "cita" and "citada por"."""
    with store.engine.connect() as conn:
        n = conn.execute(select(norm.c.status, norm.c.status_evidence, norm.c.cited_by)
                         .where(norm.c.id == norm_id)).one()
        status = status_view(conn, norm_id, n.status, n.status_evidence)
        return {
            "norm": {"status": status["status"], "status_evidence": status["evidence"],
                     "status_evidence_total": status["evidence_total"]},
            "citations": outgoing(conn, norm_id),
            "cited_by": incoming(conn, norm_id, n.cited_by),
        }
