"""The quality page's review of identity and enrichment: what an operator should look at.

Records that stand alone (no year, "s/n", a generic type its text did not resolve), headings
that disagree with their source's metadata (and whether that looks like an OCR misreading) or
are followed by another ementa than the source's (a disagreement of field "ementa"),
and the problems enrichment recorded (norms that revoke one another, headings it could not
read again). Each list is keyed by id, newest first, and scoped like the rest of the page.
"""

from __future__ import annotations

import re

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from ..store import Store
from ..store.schema import jurisdiction, norm, problem, record, source
from .citations import norm_refs
from .data.common import after_id, as_date, json_list
from .links import public_url

REVIEW_PAGE = 50  # rows per section page
COUNT_BOUND = 10_000  # counts stop here ("10,000 or more") instead of reading every record
PROBLEMS_READ = 5_000  # enrichment problems read per page when scoped to a jurisdiction
# What enrichment writes in a problem's subject or message (enrich/run.py): the norms of a
# revocation cycle, or the record whose heading could not be read again.
_CYCLE = re.compile(r"norms ([0-9]{1,12}(?:, [0-9]{1,12})*)")
_RECORD = re.compile(r"record ([0-9]{1,12}):")
TOKENS = ("unmatched_after", "headings_after", "problems_after")


def review(store: Store, code: int | None, tokens: dict[str, str | None]) -> dict:
    """The three review sections of the quality page, for a jurisdiction or the corpus."""
    after = {name: after_id(tokens.get(name)) for name in TOKENS}
    with store.engine.connect() as conn:
        return {
            "unmatched": _unmatched(conn, code, after["unmatched_after"]),
            "headings": _headings(conn, code, after["headings_after"]),
            "enrich_problems": _problems(conn, code, after["problems_after"]),
        }


def _record_columns() -> list:
    return [record.c.id, record.c.norm_id, record.c.native_id, record.c.type_raw,
            record.c.number, record.c.year, record.c.date, record.c.url, record.c.unmatched,
            record.c.heading_disagreement, record.c.heading_family, record.c.heading_number,
            record.c.heading_year, record.c.heading_date, record.c.source_id,
            source.c.platform, source.c.base_url, record.c.jurisdiction_code,
            jurisdiction.c.name.label("jurisdiction_name"), jurisdiction.c.uf]


def _record_row(r) -> dict:
    return {
        "id": r["id"], "norm_id": r["norm_id"], "native_id": r["native_id"],
        "type_raw": r["type_raw"], "number": r["number"], "year": r["year"],
        "date": as_date(r["date"]), "url": r["url"],
        "jurisdiction": {"ibge_code": r["jurisdiction_code"], "name": r["jurisdiction_name"],
                         "uf": r["uf"]},
        # never a folder import's own path: public_url keeps http(s) addresses only
        "source": {"id": r["source_id"], "platform": r["platform"],
                   "base_url": public_url(r["base_url"])},
    }


def _bounded_count(conn: Connection, query) -> tuple[int, bool]:
    """How many rows the query gives, up to COUNT_BOUND: (count, exact)."""
    found = conn.scalar(select(func.count()).select_from(
        query.with_only_columns(record.c.id).order_by(None).limit(COUNT_BOUND + 1).subquery()))
    return min(found, COUNT_BOUND), found <= COUNT_BOUND


def _page(rows: list, key: str) -> tuple[list, str | None]:
    more = len(rows) > REVIEW_PAGE
    rows = rows[:REVIEW_PAGE]
    return rows, str(rows[-1][key]) if more and rows else None


def _unmatched(conn: Connection, code: int | None, after: int | None) -> dict:
    # A record that stands alone is the only record of a norm without a key: found through
    # the norm key's index rather than by reading every record.
    query = (select(*_record_columns())
             .select_from(record)
             .join(norm, norm.c.id == record.c.norm_id)
             .join(source, source.c.id == record.c.source_id)
             .join(jurisdiction, jurisdiction.c.ibge_code == record.c.jurisdiction_code)
             .where(norm.c.key.is_(None), norm.c.merged_into.is_(None),
                    record.c.unmatched.is_not(None)))
    if code is not None:
        query = query.where(norm.c.jurisdiction_code == code)
    total, exact = _bounded_count(conn, query)
    if after is not None:
        query = query.where(record.c.id < after)
    rows = conn.execute(query.order_by(record.c.id.desc()).limit(REVIEW_PAGE + 1)
                        ).mappings().all()
    rows, next_after = _page(list(rows), "id")
    return {"total": total, "total_exact": exact,
            "records": [{**_record_row(r), "reason": r["unmatched"]} for r in rows],
            "next_after": next_after}


def _headings(conn: Connection, code: int | None, after: int | None) -> dict:
    query = (select(*_record_columns())
             .select_from(record)
             .join(source, source.c.id == record.c.source_id)
             .join(jurisdiction, jurisdiction.c.ibge_code == record.c.jurisdiction_code)
             .where(record.c.heading_disagreement.is_not(None)))
    if code is not None:
        query = query.where(record.c.jurisdiction_code == code)
    total, exact = _bounded_count(conn, query)
    if after is not None:
        query = query.where(record.c.id < after)
    rows = conn.execute(query.order_by(record.c.id.desc()).limit(REVIEW_PAGE + 1)
                        ).mappings().all()
    rows, next_after = _page(list(rows), "id")
    found = []
    for r in rows:
        disagreements = [{
            "field": d.get("field"), "heading": d.get("heading"), "source": d.get("source"),
            "ocr_misreading": bool(d.get("ocr_misreading")), "detail": d.get("detail"),
        } for d in json_list(r["heading_disagreement"])]
        found.append({
            **_record_row(r),
            "heading": {"type": r["heading_family"], "number": r["heading_number"],
                        "year": r["heading_year"], "date": as_date(r["heading_date"])},
            "disagreements": disagreements,
            "ocr_misreading": any(d["ocr_misreading"] for d in disagreements)})
    return {"total": total, "total_exact": exact, "records": found, "next_after": next_after}


def _problems(conn: Connection, code: int | None, after: int | None) -> dict:
    """Problems enrichment recorded, newest first; scoped by the norms or records they name
    (read PROBLEMS_READ at most per page: `next` then reads on from where the page stopped)."""
    chunk = 500 if code is not None else REVIEW_PAGE + 1
    budget = PROBLEMS_READ if code is not None else chunk
    found: list[dict] = []
    last_read, read, exhausted = after, 0, False
    while len(found) <= REVIEW_PAGE and read < budget:
        query = (select(problem.c.id, problem.c.at, problem.c.subject, problem.c.message)
                 .where(problem.c.stage == "enrich").order_by(problem.c.id.desc())
                 .limit(chunk))
        if last_read is not None:
            query = query.where(problem.c.id < last_read)
        rows = conn.execute(query).all()
        read += len(rows)
        items = [_problem_view(r) for r in rows]
        _name_norms(conn, items)
        for item in items:
            last_read = item["id"]
            if code is None or code in item["jurisdictions"]:
                found.append(item)
                if len(found) > REVIEW_PAGE:
                    break
        if len(rows) < chunk:
            exhausted = True
            break
    more = len(found) > REVIEW_PAGE
    found = found[:REVIEW_PAGE]
    next_after = found[-1]["id"] if more else None if exhausted else last_read
    return {"problems": found, "next_after": str(next_after) if next_after else None}


def _problem_view(r) -> dict:
    cycle = _CYCLE.fullmatch(r.subject or "")
    heading = _RECORD.match(r.message or "")
    return {
        "id": r.id, "at": r.at, "subject": r.subject, "message": r.message,
        "kind": "revocation cycle" if cycle else "heading" if heading else "other",
        "norm_ids": [int(n) for n in cycle[1].split(", ")] if cycle else [],
        "record_id": int(heading[1]) if heading else None,
    }


def _name_norms(conn: Connection, items: list[dict]) -> None:
    """The norms each problem names (a record's through its norm), with their places."""
    record_ids = [i["record_id"] for i in items if i["record_id"] is not None]
    of_record = dict(conn.execute(select(record.c.id, record.c.norm_id)
                                  .where(record.c.id.in_(record_ids))).all()) \
        if record_ids else {}
    for item in items:
        if item["record_id"] is not None and of_record.get(item["record_id"]):
            item["norm_ids"] = [of_record[item["record_id"]]]
    refs = norm_refs(conn, [n for i in items for n in i["norm_ids"]])
    for item in items:
        item["norms"] = [refs[n] for n in item["norm_ids"] if n in refs]
        item["jurisdictions"] = sorted({n["jurisdiction"]["ibge_code"] for n in item["norms"]})
        del item["norm_ids"]
