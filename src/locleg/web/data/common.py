"""What every page of the explorer reads the same way: errors, ids and page tokens, the
jurisdiction list, a norm's summary, a source's health, the precomputed counts of places.

Counts that do not depend on a query come from the precomputed search_place and search_facet
tables; lists are paged by key (never OFFSET); nothing here writes.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache

from sqlalchemy import Select, func, select
from sqlalchemy.engine import Connection

from ...params import ibge_code_problem
from ...search.query import quoted
from ...store import Store
from ...store.schema import jurisdiction, norm, source
from ...store.search_schema import search_place, search_queue
from ..links import public_url

_ID = re.compile(r"[0-9]{1,12}")  # ASCII digits only: "²".isdigit() is True
STATUSES = ("pending", "extracted", "empty", "failed")
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


def int_id(value: str | int, what: str) -> int:
    text = str(value)
    if not _ID.fullmatch(text):
        raise NotFound(f"no {what} {quoted(text)}")
    return int(text)


def after_id(text: str | None) -> int | None:
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


def norm_summary(row) -> dict:
    return {
        "id": row.id, "jurisdiction": jurisdiction_ref(row.jurisdiction_code, row.name, row.uf),
        "type_raw": row.type_raw,
        "type": row.type_normalized, "number": row.number, "year": row.year,
        "date": as_date(row.date), "ementa": row.ementa, "status": row.status,
    }


def summary_query() -> Select:
    return (select(norm.c.id, norm.c.jurisdiction_code, jurisdiction.c.name, jurisdiction.c.uf,
                   norm.c.type_raw, norm.c.type_normalized, norm.c.number, norm.c.year,
                   norm.c.date, norm.c.ementa, norm.c.removed_at, norm.c.status)
            .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code))


def as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value))


def sum_places(conn: Connection, *where) -> dict:
    columns = ("norms", "removed", "with_text", "documents", "fetched", *STATUSES, "pages")
    row = conn.execute(
        select(func.count(), *[func.coalesce(func.sum(search_place.c[c]), 0) for c in columns])
        .where(*where)
    ).one()
    return {"jurisdictions": int(row[0]), **{c: int(v) for c, v in zip(columns, row[1:],
                                                                        strict=True)}}


def sources_of(conn: Connection, codes: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    if not codes:
        return found
    for r in conn.execute(source_query().where(source.c.jurisdiction_code.in_(codes))
                          .order_by(source.c.id)).mappings():
        found.setdefault(r["jurisdiction_code"], []).append(source_view(r))
    return found


def source_query() -> Select:
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


def json_list(text: str | None) -> list[dict]:
    """A JSON list of objects stored by enrichment; anything else reads as empty."""
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return []
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def jurisdiction_code(text: str, parameter: bool = False) -> int:
    """An IBGE code from a path (NotFound when it is not one) or a parameter (BadRequest
    when malformed; NotFound when well formed but no jurisdiction's), saying what is wrong."""
    problem = ibge_code_problem(text)
    if problem and parameter and not problem.startswith("no jurisdiction"):
        raise BadRequest(problem)
    if problem:
        raise NotFound(problem)
    return int(text)
