"""Records become norms: each record joins the norm of its key; a norm's fields come from its
records by precedence, each field saying which record (or which record's text) it came from.

Every writer of records calls `records_changed` in its own transaction, so a committed record
always belongs to a norm and a norm's fields always follow its records. A record that moves (its
key changed: the source corrected a number, its heading typed a generic record) leaves its old
norm; a norm left without records is marked `merged_into` the norm they went to, so links to
it still lead somewhere.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.engine import Connection

from ..jurisdictions import fold
from ..store.schema import jurisdiction, norm, record, source
from .identity import Identity, NormKey, identify
from .urn import norm_urn

# An official publisher's record wins over a dump's; a source's settings may say otherwise
# ({"precedence": 80}). Platforms not listed rank as a dump.
PLATFORM_PRECEDENCE = {"sapl": 50, "portal": 50, "sapl25": 45, "oai": 40,
                       "querido-diario": 30, "folder": 10}
DEFAULT_PRECEDENCE = 10
SHOWN = ("type_raw", "type_normalized", "number", "year", "date", "ementa")
# Fields whose disagreement between records is shown to the reader.
COMPARED = ("type_raw", "date", "ementa", "number")
_BATCH = 500


def precedence(platform: str, settings: str | None) -> int:
    """How much a source's word counts: its setting, else its platform's default."""
    try:
        chosen = json.loads(settings or "{}").get("precedence")
    except ValueError:
        chosen = None
    if isinstance(chosen, int | float) and not isinstance(chosen, bool):
        return int(chosen)
    return PLATFORM_PRECEDENCE.get(platform, DEFAULT_PRECEDENCE)


def records_changed(conn: Connection, record_ids: Iterable[int], now: datetime) -> set[int]:
    """Bring the norms of these records in step: keys, membership, shown fields.

    Returns the norms touched. Cheap for records whose key did not change.
    """
    ids = sorted(set(record_ids))
    touched: set[int] = set()
    for start in range(0, len(ids), _BATCH):
        chunk = ids[start:start + _BATCH]
        touched |= _attach(conn, chunk, now)
    resolve(conn, touched, now)
    return touched


# -- membership ----------------------------------------------------------------------------


@dataclass
class _Member:
    id: int
    norm_id: int | None
    identity: Identity
    jurisdiction_code: int
    first_seen_at: datetime
    changed_at: datetime
    unmatched: str | None


def _members(conn: Connection, record_ids: Sequence[int]) -> list[_Member]:
    rows = conn.execute(
        select(record.c.id, record.c.norm_id, record.c.jurisdiction_code, record.c.type_raw,
               record.c.type_normalized, record.c.number, record.c.year, record.c.date,
               record.c.heading_family, record.c.first_seen_at, record.c.changed_at,
               record.c.unmatched)
        .where(record.c.id.in_(record_ids))
    ).all()
    return [_Member(r.id, r.norm_id, identify(
        r.jurisdiction_code, type_normalized=r.type_normalized, type_raw=r.type_raw,
        number=r.number, year=r.year, signed=r.date, text_family=r.heading_family),
        r.jurisdiction_code, r.first_seen_at, r.changed_at, r.unmatched) for r in rows]


def _attach(conn: Connection, record_ids: Sequence[int], now: datetime) -> set[int]:
    members = _members(conn, record_ids)
    keys = {str(m.identity.key) for m in members if m.identity.key}
    holders = dict(conn.execute(
        select(norm.c.key, norm.c.id).where(norm.c.key.in_(keys))).all()) if keys else {}
    current = {m.norm_id for m in members if m.norm_id is not None}
    norms_now = {r.id: r for r in conn.execute(
        select(norm.c.id, norm.c.key, norm.c.records).where(norm.c.id.in_(current)))
    } if current else {}
    # A norm all of whose records are in this batch may be taken over by the key they share:
    # the 1:1 norms of a corpus that predates merging, or a lone record's own norm.
    batch_count: dict[int, int] = defaultdict(int)
    for m in members:
        if m.norm_id is not None:
            batch_count[m.norm_id] += 1

    def own_norm_free(m: _Member) -> bool:
        n = norms_now.get(m.norm_id)
        return n is not None and n.key is None and batch_count[m.norm_id] >= (n.records or 0)

    touched: set[int] = set()
    moves: list[dict] = []
    left: dict[int, int] = {}  # norm emptied -> norm its records went to
    unmatched: list[dict] = []
    by_key: dict[str, list[_Member]] = defaultdict(list)
    for m in members:
        if m.identity.key:
            by_key[str(m.identity.key)].append(m)
        else:
            # Never merged: a record without a key keeps a norm of its own.
            target = m.norm_id if m.norm_id is not None and (
                norms_now.get(m.norm_id) is not None and norms_now[m.norm_id].key is None
                and batch_count[m.norm_id] == 1 and norms_now[m.norm_id].records <= 1) \
                else _new_norm(conn, m, None, now)
            _move(m, target, moves, left)
            touched.add(target)
        if m.unmatched != m.identity.unmatched:
            unmatched.append({"b_id": m.id, "b_unmatched": m.identity.unmatched})
    for key, group in by_key.items():
        target = holders.get(key)
        if target is None:
            free = sorted(m.norm_id for m in group if own_norm_free(m))
            if free:
                target = free[0]
                conn.execute(update(norm).where(norm.c.id == target).values(key=key))
            else:
                target = _new_norm(conn, group[0], NormKey.parse(key), now)
        for m in group:
            _move(m, target, moves, left)
        touched.add(target)
    if moves:
        conn.execute(update(record).where(record.c.id == bindparam("b_id"))
                     .values(norm_id=bindparam("b_norm")), moves)
    if unmatched:
        conn.execute(update(record).where(record.c.id == bindparam("b_id"))
                     .values(unmatched=bindparam("b_unmatched")), unmatched)
    touched |= _settle_left(conn, left)
    return touched


def _move(m: _Member, target: int, moves: list[dict], left: dict[int, int]) -> None:
    if m.norm_id == target:
        return
    moves.append({"b_id": m.id, "b_norm": target})
    if m.norm_id is not None:
        left[m.norm_id] = target


def _new_norm(conn: Connection, m: _Member, key: NormKey | None, now: datetime) -> int:
    return conn.execute(insert(norm).returning(norm.c.id), {
        "jurisdiction_code": m.jurisdiction_code, "key": str(key) if key else None,
        "family": m.identity.family, "number_key": m.identity.number,
        "number": m.identity.number, "year": m.identity.year,
        "provenance": "{}", "records": 0, "first_seen_at": m.first_seen_at,
        "changed_at": now}).scalar_one()


def _settle_left(conn: Connection, left: dict[int, int]) -> set[int]:
    """Norms that lost records: re-resolved if some remain, else merged into where they went."""
    if not left:
        return set()
    remaining = dict(conn.execute(
        select(record.c.norm_id, func.count()).where(record.c.norm_id.in_(list(left)))
        .group_by(record.c.norm_id)).all())
    emptied = [{"b_id": n, "b_into": into} for n, into in left.items() if not remaining.get(n)]
    if emptied:
        # The key is freed: another norm may need it later; the id stays, redirecting.
        conn.execute(update(norm).where(norm.c.id == bindparam("b_id"))
                     .values(merged_into=bindparam("b_into"), key=None, records=0),
                     emptied)
        # Norms merged earlier into one that is merged now follow it.
        for row in emptied:
            conn.execute(update(norm).where(norm.c.merged_into == row["b_id"])
                         .values(merged_into=row["b_into"]))
    return {n for n in left if remaining.get(n)}


# -- the fields shown -------------------------------------------------------------------------


def _loose(value) -> str:
    """A value as compared between records: case, accents, spacing and punctuation aside."""
    return re.sub(r"[\W_]+", "", fold(str(value))) if value is not None else ""


def resolve(conn: Connection, norm_ids: Iterable[int], now: datetime) -> None:
    """Recompute the shown fields, provenance, conflicts, counts and URN of these norms."""
    ids = sorted(set(norm_ids))
    for start in range(0, len(ids), _BATCH):
        _resolve(conn, ids[start:start + _BATCH], now)


def _resolve(conn: Connection, norm_ids: list[int], now: datetime) -> None:
    rows = conn.execute(
        select(record, source.c.platform, source.c.settings)
        .join(source, source.c.id == record.c.source_id)
        .where(record.c.norm_id.in_(norm_ids))
    ).mappings().all()
    by_norm: dict[int, list] = defaultdict(list)
    for r in rows:
        by_norm[r["norm_id"]].append(r)
    places = {r.ibge_code: r for r in conn.execute(
        select(jurisdiction.c.ibge_code, jurisdiction.c.lexml_label, jurisdiction.c.level)
        .where(jurisdiction.c.ibge_code.in_({r["jurisdiction_code"] for r in rows})))}
    current = {r.id: r for r in conn.execute(select(norm).where(norm.c.id.in_(norm_ids)))}
    updates = []
    for norm_id in norm_ids:
        members = by_norm.get(norm_id)
        old = current.get(norm_id)
        if not members or old is None:
            continue
        values = _shown(members)
        place = places[members[0]["jurisdiction_code"]]
        values["records"] = len(members)
        values["first_seen_at"] = min(m["first_seen_at"] for m in members)
        removed = [m["removed_at"] for m in members]
        values["removed_at"] = max(removed) if all(removed) else None
        values["jurisdiction_code"] = members[0]["jurisdiction_code"]
        if old.key is None:  # a lone record's norm: its identity is the record's
            first = members[0]
            lone = identify(
                first["jurisdiction_code"], type_normalized=first["type_normalized"],
                type_raw=first["type_raw"], number=first["number"], year=first["year"],
                signed=first["date"], text_family=first["heading_family"])
            values["family"], values["number_key"] = lone.family, lone.number
        else:
            key = NormKey.parse(old.key)
            values["family"], values["number_key"] = key.family, key.number
        if values["type_normalized"] in (None, "outro") and values["family"] not in (None,
                                                                                "outro"):
            values["type_normalized"] = values["family"]  # what its key (or text) says
        values["urn"] = norm_urn(place.lexml_label, place.level, values["type_normalized"],
                                 values["date"], values["number"]) if old.key else None
        if any(getattr(old, k) != v for k, v in values.items()):
            values["changed_at"] = now
            updates.append({"b_id": norm_id, **values})
    if updates:
        columns = [k for k in updates[0] if k != "b_id"]
        conn.execute(update(norm).where(norm.c.id == bindparam("b_id"))
                     .values(**{c: bindparam(f"v_{c}") for c in columns}),
                     [{"b_id": u["b_id"], **{f"v_{c}": u[c] for c in columns}}
                      for u in updates])


def _rank(member) -> tuple:
    """Precedence first; a record still at its source before a removed one; then the oldest."""
    return (-precedence(member["platform"], member["settings"]),
            member["removed_at"] is not None, member["id"])


def _shown(members: list) -> dict:
    """The fields of a norm from its records: per field, the first record (by rank) that has
    a value, then the records' headings; where it came from; where the records disagree."""
    ranked = sorted(members, key=_rank)
    values: dict = {}
    origin: dict[str, dict] = {}
    for field in SHOWN:
        for m in ranked:
            value = m[field]
            if field == "type_normalized" and value == "outro":
                continue  # a generic type says less than any specific one
            if value is not None and value != "":
                values[field], origin[field] = value, {"record": m["id"]}
                break
        else:
            values[field] = None
    text_fields = {"type_normalized": "heading_family", "number": "heading_number",
                   "year": "heading_year", "date": "heading_date", "ementa": "heading_ementa"}
    for field, heading in text_fields.items():
        if values[field] is None:
            for m in ranked:
                if m[heading] is not None:
                    values[field], origin[field] = m[heading], {"record": m["id"],
                                                                 "from": "text"}
                    break
    if values["type_normalized"] is None and any(m["type_normalized"] == "outro"
                                                 for m in ranked):
        values["type_normalized"] = "outro"
    conflicts = {}
    if len(members) > 1:
        for field in COMPARED:
            seen: dict[str, list] = {}
            for m in ranked:
                if m[field] is not None and m[field] != "":
                    seen.setdefault(_loose(m[field]), []).append(m)
            if len(seen) > 1:
                conflicts[field] = [{"record": group[0]["id"], "value": _jsonable(
                    group[0][field])} for group in seen.values()]
    values["provenance"] = json.dumps(origin, sort_keys=True)
    values["conflicts"] = json.dumps(conflicts, sort_keys=True) if conflicts else None
    return values


def _jsonable(value):
    return value.isoformat() if isinstance(value, date) else value
