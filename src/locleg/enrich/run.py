"""Enrichment: what the texts say, read once per change — headings, citations, legal status.

Triggers queue a norm in `enrich_queue` when a record of it, a document or an extraction
changes (migration 0007). `enrich(corpus)` works through the queue in batches: it reads the
heading of each record's texto integral (typing a generic record, flagging a heading that
disagrees with its metadata, reading it again from the original when that looks like an OCR
misreading) and the ementa printed after it (shown where no record has one, compared with the
record's where it has one: a different ementa is flagged, the source's kept), extracts the
citations of the norm's texts and resolves them to corpus norms, and recomputes the legal
status and cited-by counts of every norm those citations touch. Norms that did not
change are not read again. Import, harvest and extract run it at their end.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from sqlalchemy import bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection

from ..corpus import Corpus
from ..originals.base import BlobError
from ..store import utcnow
from ..store.db import queue_batch
from ..store.schema import (
    citation,
    document,
    enrich_queue,
    extraction,
    jurisdiction,
    norm,
    page,
    problem,
    record,
    version,
)
from .citations import NormRef, citation_key, citation_urn, find_citations, revocation_cycles
from .ementa import disagreement as ementa_disagreement
from .ementa import read_ementa
from .heading import compare, read_heading
from .identity import family_of
from .norms import records_changed, resolve
from .reread import RereadError, settle
from .status import REVOKED, recompute
from .town_numbering import FAMILIES as NUMBERED_FAMILIES
from .town_numbering import TownNumbering
from .types import OTHER

BATCH = 500  # norms per transaction: fewer commits (each an fsync on SQLite)
TEXTO_INTEGRAL = "texto_integral"
_REVOKING = ("revokes", "revoked_by")


@dataclass
class EnrichReport:
    norms: int = 0
    headings: int = 0  # records whose heading was read
    ementas: int = 0  # of them, those whose ementa was read from the text
    rereads: int = 0  # headings read again from the original at a higher resolution
    disagreements: int = 0  # records whose heading or ementa still disagrees with their metadata
    ementa_disagreements: int = 0  # of them, those whose text prints another ementa
    citations: int = 0
    resolved: int = 0  # citations that name a norm of the corpus
    moved: int = 0  # records that joined another norm after their heading was read
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def pending(corpus: Corpus) -> int:
    with corpus.store.engine.connect() as conn:
        return conn.scalar(select(func.count()).select_from(enrich_queue)) or 0


def enrich(corpus: Corpus, *, batch: int = BATCH, reread: bool = True,
           on_progress: Callable[[int, int], None] | None = None) -> EnrichReport:
    """Work through the enrichment queue; safe while others write (only rows read are removed)."""
    started = time.monotonic()
    report = EnrichReport()
    total = pending(corpus)
    # each town's numbering, read once per run: what its corpus held when the run began
    numberings: dict[int, TownNumbering] = {}
    while True:
        with corpus.store.engine.connect() as conn:
            queued = conn.execute(select(enrich_queue.c.id, enrich_queue.c.norm_id)
                                  .order_by(enrich_queue.c.id).limit(batch * 4)).all()
        if not queued:
            break
        norm_ids, queue_ids = queue_batch(queued, batch)
        reading = _read(corpus, norm_ids, report, reread, numberings)
        with corpus.store.transaction() as conn:
            _write(conn, reading, report)
            conn.execute(delete(enrich_queue).where(enrich_queue.c.id.in_(queue_ids)))
        report.norms += len(norm_ids)
        if on_progress:
            on_progress(report.norms, total)
    report.seconds = time.monotonic() - started
    return report


# -- reading (no lock held: OCR may run here) ------------------------------------------------


@dataclass
class _Reading:
    live: list = field(default_factory=list)  # norm rows to (re)read
    merged: dict[int, int] = field(default_factory=dict)  # norm -> the norm it merged into
    headings: list[dict] = field(default_factory=list)  # record updates
    citations: dict[int, list[dict]] = field(default_factory=dict)  # norm -> citation rows


def _read(corpus: Corpus, norm_ids: list[int], report: EnrichReport,
          reread: bool, numberings: dict[int, TownNumbering]) -> _Reading:
    reading = _Reading()
    with corpus.store.engine.connect() as conn:
        rows = conn.execute(
            select(norm.c.id, norm.c.merged_into, norm.c.family, norm.c.number_key,
                   norm.c.year, norm.c.jurisdiction_code, jurisdiction.c.level,
                   jurisdiction.c.lexml_label)
            .join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
            .where(norm.c.id.in_(norm_ids))
        ).all()
        reading.merged = {r.id: r.merged_into for r in rows if r.merged_into is not None}
        reading.live = [r for r in rows if r.merged_into is None]
        live_ids = [r.id for r in reading.live]
        _read_numberings(conn, {r.jurisdiction_code for r in reading.live
                                if r.level == "municipal"}, numberings)
        docs = conn.execute(
            select(record.c.id.label("record_id"), record.c.norm_id, record.c.type_normalized,
                   record.c.type_raw, record.c.number, record.c.year, record.c.date,
                   record.c.ementa, record.c.heading_version_id,
                   document.c.role, version.c.id.label("version_id"), version.c.sha256)
            .join(document, document.c.record_id == record.c.id)
            .join(version, version.c.id == document.c.current_version_id)
            .join(extraction, extraction.c.version_id == version.c.id)
            .where(record.c.norm_id.in_(live_ids), document.c.removed_at.is_(None),
                   extraction.c.status == "extracted")
            .order_by(record.c.id, document.c.id)
        ).all() if live_ids else []
        version_ids = sorted({d.version_id for d in docs})
        texts: dict[int, list[tuple[int, str]]] = defaultdict(list)
        methods: dict[int, str] = {}  # how each version's first page was read
        for start in range(0, len(version_ids), 200):
            for version_id, number, method, text in conn.execute(
                select(page.c.version_id, page.c.number, page.c.method, page.c.text)
                .where(page.c.version_id.in_(version_ids[start:start + 200]))
                .order_by(page.c.version_id, page.c.number)
            ):
                texts[version_id].append((number, text))
                if number == 1:
                    methods[version_id] = method
    _read_headings(corpus, docs, texts, methods, reading, report, reread)
    by_norm = {r.id: r for r in reading.live}
    seen: set[tuple[int, str]] = set()
    for d in docs:
        if (d.norm_id, d.sha256) in seen:  # one original held by two sources: read once
            continue
        seen.add((d.norm_id, d.sha256))
        n = by_norm[d.norm_id]
        own = NormRef(n.family, n.number_key, n.year) if n.family else None
        found = reading.citations.setdefault(d.norm_id, [])
        for number, text in texts.get(d.version_id, []):
            for c in find_citations(text, own, level=n.level,
                                    numbering=numberings.get(n.jurisdiction_code)):
                found.append(_citation_row(c, n, d.version_id, number))
    for n in reading.live:
        reading.citations.setdefault(n.id, [])
    return reading


def _read_numberings(conn: Connection, codes: set[int],
                     numberings: dict[int, TownNumbering]) -> None:
    """The numbering of each town not read yet in this run, from the norms its corpus holds."""
    missing = sorted(codes - numberings.keys())
    if not missing:
        return
    held: dict[int, list[tuple]] = defaultdict(list)
    for start in range(0, len(missing), 200):
        for code, family, number, year in conn.execute(
            select(norm.c.jurisdiction_code, norm.c.family, norm.c.number_key, norm.c.year)
            .where(norm.c.jurisdiction_code.in_(missing[start:start + 200]),
                   norm.c.family.in_(NUMBERED_FAMILIES), norm.c.year.is_not(None),
                   norm.c.merged_into.is_(None))
        ):
            held[code].append((family, number, year))
    for code in missing:
        numberings[code] = TownNumbering(held.get(code, ()))


def _read_headings(corpus: Corpus, docs: list, texts: dict, methods: dict[int, str],
                   reading: _Reading, report: EnrichReport, reread: bool) -> None:
    for d in docs:
        if d.role != TEXTO_INTEGRAL or d.heading_version_id == d.version_id:
            continue
        pages = texts.get(d.version_id)
        if not pages or pages[0][0] != 1:
            continue
        report.headings += 1
        heading = first = read_heading(pages[0][1])
        disagreements = compare(heading, d.type_normalized, d.number, d.year, d.date) \
            if heading else []
        # An OCRed page whose heading was not found, of a record that has a number: its OCR may
        # have lost the heading line (a logo beside it splits the page into columns).
        lost = heading is None and methods.get(d.version_id) == "ocr" and d.number
        if reread and (lost or heading and any(x.ocr_misreading for x in disagreements)):
            try:
                original = corpus.blobs.read(d.sha256)
                heading, disagreements = settle(heading, original, 1, d.type_normalized,
                                                d.number, d.year, d.date)
                report.rereads += 1
            except (BlobError, RereadError) as e:
                report.problems.append(f"record {d.record_id}: heading not read again: {e}")
        # Read after the heading as the page prints it (a second reading's lines are of
        # another text). A record with an ementa of its own keeps it: the text's is only
        # compared with it, and a different one is flagged beside the heading's fields.
        ementa = read_ementa(pages[0][1], first) if first else None
        if ementa and d.ementa:
            differs = ementa_disagreement(d.ementa, ementa)
            if differs:
                disagreements = [*disagreements, differs]
                report.ementa_disagreements += 1
            ementa = None
        report.disagreements += bool(disagreements)
        report.ementas += ementa is not None
        reading.headings.append({
            "b_id": d.record_id, "b_version": d.version_id,
            # only a record without a specific type of its own is keyed by its heading, and
            # only one missing a field has a norm field to take from it
            "typed_by_text": family_of(d.type_normalized, d.type_raw) in (None, OTHER),
            "fills": None in (d.number, d.year, d.date) or not d.ementa,
            "b_family": heading.type if heading else None,
            "b_number": heading.number if heading else None,
            "b_year": heading.year if heading else None,
            "b_date": heading.date if heading else None,
            "b_ementa": ementa,
            "b_disagreement": json.dumps([asdict(x) for x in disagreements],
                                         ensure_ascii=False) if disagreements else None,
        })


def _citation_row(c, n, version_id: int, page_number: int) -> dict:
    key = citation_key(c, n)
    return {
        "norm_id": n.id, "version_id": version_id, "page": page_number, "start": c.start,
        "end": c.end, "text": c.text[:500], "kind": c.kind, "family": c.family,
        "number": c.number[:32] if c.number else None, "year": c.year, "date": c.date,
        "sphere": c.sphere, "fragment": c.fragment, "sentence": (c.sentence or "")[:2000],
        "article": c.article, "flags": " ".join(c.flags) or None,
        "urn": citation_urn(c, n),
        # the scope is a LexML locality; _write turns it into a jurisdiction code
        "_scope": key.scope if key else None, "_year": key.year if key else None,
    }


# -- writing (one transaction per batch) ------------------------------------------------------


def _write(conn: Connection, reading: _Reading, report: EnrichReport) -> None:
    now = utcnow()
    affected: set[int] = set()
    if reading.headings:
        conn.execute(update(record).where(record.c.id == bindparam("b_id")).values(
            heading_version_id=bindparam("b_version"), heading_family=bindparam("b_family"),
            heading_number=bindparam("b_number"), heading_year=bindparam("b_year"),
            heading_date=bindparam("b_date"), heading_ementa=bindparam("b_ementa"),
            heading_disagreement=bindparam("b_disagreement")), reading.headings)
    # Records matched again: those whose heading was just read (a generic record, "Legislação
    # Municipal", typed by it may now join a norm) and those of norms without a key (a lone
    # record, or a corpus made before norms had identity, queued whole by migration 0007).
    # A keyed norm's records were matched when they were written.
    before = dict(conn.execute(
        select(record.c.id, record.c.norm_id).join(norm, norm.c.id == record.c.norm_id)
        .where(record.c.norm_id.in_([n.id for n in reading.live]),
               or_(norm.c.key.is_(None),
                   record.c.id.in_([h["b_id"] for h in reading.headings
                                    if h["typed_by_text"]])))).all())
    fill = [h["b_id"] for h in reading.headings if h["fills"] and not h["typed_by_text"]]
    if fill:
        filled = set(conn.scalars(select(record.c.norm_id).where(record.c.id.in_(fill))))
        resolve(conn, filled, now)
        affected |= filled
    if before:
        affected |= records_changed(conn, list(before), now)
        after = dict(conn.execute(select(record.c.id, record.c.norm_id).where(
            record.c.id.in_(list(before)))).all())
        report.moved += sum(1 for r, n in after.items() if before[r] != n)
    merged = dict(reading.merged)
    merged.update({n: into for n, into in conn.execute(
        select(norm.c.id, norm.c.merged_into).where(
            norm.c.id.in_([n.id for n in reading.live]), norm.c.merged_into.is_not(None)))})
    for old, into in merged.items():
        # A merged norm cites nothing of its own (its records' texts are its target's now);
        # what cited it cites the norm it joined.
        affected |= set(conn.scalars(select(citation.c.target_norm_id).where(
            citation.c.norm_id == old, citation.c.target_norm_id.is_not(None))))
        conn.execute(delete(citation).where(citation.c.norm_id == old))
        conn.execute(update(citation).where(citation.c.target_norm_id == old)
                     .values(target_norm_id=into))
        conn.execute(insert(enrich_queue), {"norm_id": into})
        affected.add(into)
    live = [n for n in reading.live if n.id not in merged]
    live_ids = [n.id for n in live]
    if live_ids:
        affected |= set(conn.scalars(select(citation.c.target_norm_id).where(
            citation.c.norm_id.in_(live_ids), citation.c.target_norm_id.is_not(None))))
        conn.execute(delete(citation).where(citation.c.norm_id.in_(live_ids)))
    rows = [row for n in live for row in reading.citations.get(n.id, [])]
    _resolve_rows(conn, rows)
    if rows:
        conn.execute(insert(citation), rows)
    report.citations += len(rows)
    report.resolved += sum(1 for r in rows if r["target_norm_id"] is not None)
    affected |= {r["target_norm_id"] for r in rows if r["target_norm_id"] is not None}
    affected |= _claim_waiting_citations(conn, live)
    affected |= set(live_ids)
    affected.discard(None)
    live_now = set(conn.scalars(select(norm.c.id).where(
        norm.c.id.in_(affected), norm.c.merged_into.is_(None))))
    recompute(conn, live_now)
    if live_ids:
        conn.execute(update(norm).where(norm.c.id.in_(live_ids)).values(enriched_at=now))
    _record_cycles(conn, live_now, now)
    for message in report.problems:
        conn.execute(insert(problem), {"at": now, "stage": "enrich", "subject": "heading",
                                       "message": message[:4000]})
    report.problems.clear()


def _resolve_rows(conn: Connection, rows: list[dict]) -> None:
    """Each citation's key in the corpus's terms, and the norm it names when there is one.

    A citation with a year names the norm of that key; one without a year names the only
    norm of that jurisdiction, family and number, when there is only one. A numberless one
    of a family that a jurisdiction has once ("a Lei Orgânica do Município") names that
    norm, when the corpus holds exactly one.
    """
    scopes = {r["_scope"] for r in rows if r["_scope"]}
    codes = dict(conn.execute(select(jurisdiction.c.lexml_label, jurisdiction.c.ibge_code)
                              .where(jurisdiction.c.lexml_label.in_(scopes))).all()) \
        if scopes else {}
    for r in rows:
        code = codes.get(r.pop("_scope"))
        year = r.pop("_year")
        if code and r["number"]:
            r["target_key"] = f"{code}|{r['family']}|{r['number']}|{year or ''}"
        elif code and r["family"] in UNNUMBERED:
            r["target_key"] = _unnumbered_key(code, r["family"])
        else:
            r["target_key"] = None
        r["target_norm_id"] = None
    keyed = {r["target_key"] for r in rows if r["target_key"] and not r["target_key"]
             .endswith("|")}
    exact = dict(conn.execute(select(norm.c.key, norm.c.id).where(norm.c.key.in_(keyed)))
                 .all()) if keyed else {}
    partial = {r["target_key"] for r in rows if r["target_key"] and r["target_key"]
               .endswith("|") and not r["target_key"].endswith("||")}
    only = {}
    for key in partial:
        found = list(conn.scalars(select(norm.c.id).where(
            norm.c.key.like(_like_prefix(key)), norm.c.merged_into.is_(None)).limit(2)))
        if len(found) == 1:
            only[key] = found[0]
    unnumbered = {r["target_key"] for r in rows if r["target_key"] and r["target_key"]
                  .endswith("||")}
    ones = _the_ones(conn, {(int(k.split("|")[0]), k.split("|")[1]) for k in unnumbered})
    for key in unnumbered:
        code, family = key.split("|")[:2]
        only[key] = ones.get((int(code), family))
    for r in rows:
        key = r["target_key"]
        if key:
            target = exact.get(key) or only.get(key)
            # the Lei Orgânica's "esta Lei Orgânica do Município" is not a citation of it
            r["target_norm_id"] = target if target != r["norm_id"] else None


# Families a jurisdiction has once and cites without a number.
UNNUMBERED = frozenset({"lei.organica"})


def _unnumbered_key(code: int, family: str) -> str:
    return f"{code}|{family}||"


def _the_ones(conn: Connection, wanted: set[tuple[int, str]]) -> dict[tuple[int, str], int]:
    """(jurisdiction, family) -> its norm of that family, for those the corpus holds exactly
    one of: one query per family and batch (a query each cost a batch more than its reading
    of the Lei Orgânica citations)."""
    by_family: dict[str, list[int]] = defaultdict(list)
    for code, family in wanted:
        by_family[family].append(code)
    found: dict[tuple[int, str], list[int]] = defaultdict(list)
    for family, codes in by_family.items():
        codes.sort()
        for start in range(0, len(codes), 500):
            for code, norm_id in conn.execute(
                    select(norm.c.jurisdiction_code, norm.c.id).where(
                        norm.c.jurisdiction_code.in_(codes[start:start + 500]),
                        norm.c.family == family, norm.c.merged_into.is_(None))):
                found[(code, family)].append(norm_id)
    return {k: ids[0] for k, ids in found.items() if len(ids) == 1}


def _like_prefix(key: str) -> str:
    return key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _claim_waiting_citations(conn: Connection, live: list) -> set[int]:
    """Citations made before a norm existed (or got its key) that name it: resolved now."""
    claimed = _claim_unnumbered(conn, live)
    keys = dict(conn.execute(select(norm.c.key, norm.c.id).where(
        norm.c.id.in_([n.id for n in live]), norm.c.key.is_not(None))).all())
    if not keys:
        return claimed
    wanted = set(keys) | {k.rsplit("|", 1)[0] + "|" for k in keys}
    # Unresolved is tested here, not in SQL: with "target_norm_id IS NULL" beside the keys,
    # SQLite (no statistics) walks the index of unresolved citations, nearly all of them,
    # for every batch, instead of looking the few keys up.
    waiting = [(cid, key) for cid, key, target in conn.execute(
        select(citation.c.id, citation.c.target_key, citation.c.target_norm_id)
        .where(citation.c.target_key.in_(sorted(wanted)))) if target is None]
    updates = []
    for cid, key in waiting:
        target = keys.get(key)
        if target is None:  # a year-less citation: only if this is the one such norm
            found = list(conn.scalars(select(norm.c.id).where(
                norm.c.key.like(_like_prefix(key)), norm.c.merged_into.is_(None)).limit(2)))
            target = found[0] if len(found) == 1 else None
        if target is not None:
            updates.append({"b_id": cid, "b_target": target})
            claimed.add(target)
    if updates:
        conn.execute(update(citation).where(citation.c.id == bindparam("b_id"))
                     .values(target_norm_id=bindparam("b_target")), updates)
    return claimed


def _claim_unnumbered(conn: Connection, live: list) -> set[int]:
    """"A Lei Orgânica do Município" cited before the corpus held it: resolved now, when the
    jurisdiction has exactly one."""
    kinds = conn.execute(select(norm.c.jurisdiction_code, norm.c.family).where(
        norm.c.id.in_([n.id for n in live]), norm.c.family.in_(UNNUMBERED))).all()
    claimed: set[int] = set()
    for (code, family), target in _the_ones(conn, set(kinds)).items():
        done = conn.execute(update(citation).where(
            citation.c.target_key == _unnumbered_key(code, family),
            citation.c.target_norm_id.is_(None), citation.c.norm_id != target)
            .values(target_norm_id=target))
        if done.rowcount:
            claimed.add(target)
    return claimed


def _record_cycles(conn: Connection, norm_ids: set[int], now) -> None:
    """Norms that revoke one another: said once on the quality page (a problem row)."""
    if not norm_ids:
        return
    edges = conn.execute(
        select(citation.c.norm_id, citation.c.target_norm_id, citation.c.kind).where(
            citation.c.kind.in_(_REVOKING), citation.c.target_norm_id.is_not(None),
            or_(citation.c.norm_id.in_(norm_ids), citation.c.target_norm_id.in_(norm_ids)))
    ).all()
    # (revoker, revoked): "revoked_by" notes point the other way.
    pairs = [(a, b) if kind == "revokes" else (b, a) for a, b, kind in edges]
    for cycle in revocation_cycles(pairs):
        subject = "norms " + ", ".join(str(n) for n in cycle)
        known = conn.scalar(select(func.count()).select_from(problem).where(
            problem.c.stage == "enrich", problem.c.subject == subject))
        if not known:
            conn.execute(insert(problem), {
                "at": now, "stage": "enrich", "subject": subject,
                "message": f"{subject} revoke one another: each is shown as {REVOKED}, with "
                           "the evidence; check the texts"})
