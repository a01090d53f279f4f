"""The explorer's legal-life pages over a big citation graph, through HTTP.

One big jurisdiction of NORMS norms (10 % revoked, 5 % altered, 0.1 % suspended, the rest
"no revocation known") whose texts all cite its Lei Orgânica, a code that cites 1,000 of them,
a few citations more per norm (about 3 per norm), and a small jurisdiction of 500 norms read
last. Rows go in with bulk inserts. Served by the explorer in a thread (uvicorn), then timed
p50 / p95 over HTTP: the Lei Orgânica's norm page (cited by every norm), the code's norm
page (cites 1,000), the jurisdiction page with its live status facet, filtered by a common
and by a rare status, and /citations pages (the whole graph, one small jurisdiction).

The reference, timed in the same run on the same corpus: what an unbounded page would read —
every citation naming the Lei Orgânica with its citing norm, every citation of the code,
the status of every norm of the jurisdiction, every edge of the small jurisdiction found by
reading the whole citation table, the graph's first 1,000 edges in one SELECT.

    .venv/bin/python bench/explorer_citations.py [--norms 50000] [--requests 40]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import httpx
from sqlalchemy import delete, func, insert, select, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.explorer_fixtures import LiveServer  # noqa: E402

from locleg.corpus import init_corpus  # noqa: E402
from locleg.store import utcnow  # noqa: E402
from locleg.store.schema import (  # noqa: E402
    citation,
    document,
    enrich_queue,
    norm,
    record,
    version,
)
from locleg.store.search_schema import search_norm, search_place, search_queue  # noqa: E402

BIG, SMALL = 2918407, 2611101  # Juazeiro (BA), Petrolina (PE)
LABELS = {BIG: "br;bahia;juazeiro", SMALL: "br;pernambuco;petrolina"}


def build(corpus, norms: int, rng: random.Random) -> dict[str, int]:
    """Norms, citations and index rows straight into the tables; returns the named norms."""
    store = corpus.store
    now = utcnow()
    source_id = store.ensure_source(BIG, "sapl", "https://sapl.juazeiro.ba.leg.br")
    rows, index = [], []
    plan = [(BIG, i) for i in range(norms)] + [(SMALL, i) for i in range(500)]
    for n, (code, i) in enumerate(plan, 1):
        signed = date(1990, 1, 1) + timedelta(days=i % 12000)
        family = "lei.organica" if i == 0 else "lei" if i % 3 else "decreto"
        roll = rng.random()
        status = ("revoked" if roll < 0.10 else "altered" if roll < 0.15
                  else "suspended" if roll < 0.151 else "none_known")
        rows.append({
            "id": n, "jurisdiction_code": code, "key": f"{code}|{family}|{i + 1}|{signed.year}",
            "family": family, "number_key": str(i + 1), "type_raw": family,
            "type_normalized": family, "number": str(i + 1), "year": signed.year,
            "date": signed, "ementa": f"Norma {i + 1}", "provenance": "{}", "records": 1,
            "first_seen_at": now, "changed_at": now, "status": status,
            "urn": f"urn:lex:{LABELS[code]}:municipal:{family}:{signed.isoformat()};{i + 1}"})
        index.append({"norm_id": n, "jurisdiction_code": code, "uf": "BA" if code == BIG
                      else "PE", "type": family, "year": signed.year,
                      "day": signed.year * 10000 + signed.month * 100 + signed.day,
                      "methods": "text", "has_text": True, "confidence": None,
                      "documents": 1, "pages": 1, "indexed_at": now})
    organica, code_norm, small_first = 1, 2, norms + 1
    with store.transaction() as conn:
        for start in range(0, len(rows), 5000):
            conn.execute(insert(norm), rows[start:start + 5000])
            conn.execute(insert(search_norm), index[start:start + 5000])
        record_id = conn.execute(insert(record).returning(record.c.id), {
            "source_id": source_id, "jurisdiction_code": BIG, "native_id": "1",
            "norm_id": organica, "first_seen_at": now, "last_seen_at": now,
            "changed_at": now}).scalar_one()
        document_id = conn.execute(insert(document).returning(document.c.id), {
            "record_id": record_id, "role": "texto_integral", "url": "https://x/1.pdf",
            "created_at": now}).scalar_one()
        version_id = conn.execute(insert(version).returning(version.c.id), {
            "document_id": document_id, "sha256": "0" * 64, "size": 1,
            "media_type": "application/pdf", "fetched_at": now, "origin": "https://x/1.pdf"}
        ).scalar_one()
        edges = []

        def cite(citing: int, cited: int | None, kind: str = "cites") -> None:
            edges.append({
                "norm_id": citing, "version_id": version_id, "page": 1, "start": 0, "end": 10,
                "text": "Lei nº 1", "kind": kind, "family": "lei", "number": "1",
                "year": 2000, "sphere": "municipal",
                "sentence": "Fica revogada a Lei nº 1, de 1º de janeiro de 2000.",
                "target_key": None, "target_norm_id": cited})

        for n in range(2, norms + 1):  # every norm cites the Lei Orgânica, and two others
            cite(n, organica)
            cite(n, rng.randrange(2, norms + 1), rng.choice(("cites", "revokes", "alters")))
            cite(n, None)
        for cited in rng.sample(range(3, norms + 1), 1000):  # the code cites 1,000 norms
            cite(code_norm, cited)
        for n in range(small_first, small_first + 500):  # the small place's edges come last
            cite(n, small_first)
        for start in range(0, len(edges), 5000):
            conn.execute(insert(citation), edges[start:start + 5000])
        conn.execute(update_cited_by(organica, norms - 1))
        for code, count in ((BIG, norms), (SMALL, 500)):
            conn.execute(insert(search_place), {
                "jurisdiction_code": code, "uf": "BA" if code == BIG else "PE",
                "norms": count, "removed": 0, "with_text": count, "documents": count,
                "fetched": count, "pending": 0, "extracted": count, "empty": 0, "failed": 0,
                "pages": count, "newest_day": 0, "updated_at": now})
        conn.execute(delete(search_queue))
        conn.execute(delete(enrich_queue))
    return {"organica": organica, "code": code_norm, "edges": len(edges)}


def update_cited_by(norm_id: int, count: int):
    return norm.update().where(norm.c.id == norm_id).values(cited_by=count)


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return statistics.median(ordered) * 1000, p95 * 1000


def timed(client: httpx.Client, path: str, requests: int) -> tuple[float, float]:
    client.get(path).raise_for_status()  # warm
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(path)
        times.append(time.perf_counter() - started)
        response.raise_for_status()
    return percentiles(times)


def reference(engine, statement, params: dict, requests: int) -> tuple[float, float]:
    times = []
    with engine.connect() as conn:
        conn.execute(statement, params).all()  # warm
        for _ in range(requests):
            started = time.perf_counter()
            conn.execute(statement, params).all()
            times.append(time.perf_counter() - started)
    return percentiles(times)


def pull(client: httpx.Client, path: str) -> tuple[int, int, float]:
    """Edges and pages a /citations.json address gives when `next` is followed; seconds."""
    started, edges, pages = time.perf_counter(), 0, 0
    while path:
        page = client.get(path).json()
        edges += len(page["citations"])
        pages += 1
        path = page["next"]  # a JSON answer links its JSON pages
    return edges, pages, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=50_000)
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    rng = random.Random(9)
    with tempfile.TemporaryDirectory() as folder:
        corpus = init_corpus(Path(folder) / "corpus")
        started = time.perf_counter()
        named = build(corpus, args.norms, rng)
        print(f"{args.norms:,} + 500 norms, {named['edges']:,} citations, built in "
              f"{time.perf_counter() - started:.1f} s")
        engine = corpus.store.engine
        with engine.connect() as conn:
            conn.execute(text("ANALYZE")) if engine.dialect.name == "sqlite" else None
            top = conn.scalar(select(func.max(citation.c.id)))
        citing = norm.alias("citing")
        refs = {
            "hub": (select(citation, citing.c.type_raw, citing.c.number, citing.c.year)
                    .join(citing, citing.c.id == citation.c.norm_id)
                    .where(citation.c.target_norm_id == named["organica"]), {}),
            "code": (select(citation).where(citation.c.norm_id == named["code"]), {}),
            "statuses": (select(norm.c.id, norm.c.status).where(
                norm.c.jurisdiction_code == BIG), {}),
            "small": (select(citation).join(citing, citing.c.id == citation.c.norm_id)
                      .where(citing.c.jurisdiction_code + 0 == SMALL), {}),
            "first": (select(citation).order_by(citation.c.id).limit(1000), {}),
        }
        measured = {k: reference(engine, q, p, max(5, args.requests // 4))
                    for k, q, p in ((k, *v) for k, v in refs.items())}
        rows = [
            ("norm page of the Lei Orgânica (cited by every norm)",
             f"/norm/{named['organica']}", "hub"),
            ("its JSON twin", f"/norm/{named['organica']}.json", "hub"),
            ("norm page of a code that cites 1,000 norms", f"/norm/{named['code']}", "code"),
            ("jurisdiction page, live status facet", f"/jurisdiction/{BIG}", "statuses"),
            ("jurisdiction page, status=revoked (10 %)",
             f"/jurisdiction/{BIG}?status=revoked", "statuses"),
            ("jurisdiction page, status=suspended (0.1 %)",
             f"/jurisdiction/{BIG}?status=suspended", "statuses"),
            ("/citations.json?limit=1000 (first page of the graph)",
             "/citations.json?limit=1000", "first"),
            (f"/citations.json?to=<Lei Orgânica> (total of {args.norms - 1:,})",
             f"/citations.json?to={named['organica']}", "hub"),
            ("/citations.json?j=<small place> (first page)", f"/citations.json?j={SMALL}",
             "small"),
        ]
        print("\n| figure | p50 ms | p95 ms | reference p50 ms | × reference p50 |")
        print("|---|---|---|---|---|")
        for what, key in (("reference: every citation naming the Lei Orgânica", "hub"),
                          ("reference: every citation of the code", "code"),
                          ("reference: the status of every norm of the jurisdiction",
                           "statuses"),
                          ("reference: the small place's edges, whole table read", "small"),
                          ("reference: the first 1,000 edges, one SELECT", "first")):
            p50, p95 = measured[key]
            print(f"| {what} | {p50:.1f} | {p95:.1f} | {p50:.1f} | 1.00 |")
        with LiveServer(corpus, refresh_at_start=False) as live, \
                httpx.Client(base_url=live.url, timeout=120) as client:
            for what, path, key in rows:
                p50, p95 = timed(client, path, args.requests)
                ref = measured[key][0]
                print(f"| {what} | {p50:.1f} | {p95:.1f} | {ref:.1f} | {p50 / ref:.2f} |")
            edges, pages, seconds = pull(client, "/citations.json?limit=1000")
            print(f"\nwhole graph: {edges:,} edges (of {top:,} ids) in {pages:,} pages, "
                  f"{seconds:.1f} s ({edges / seconds:,.0f} edges/s)")
            edges, pages, seconds = pull(client, f"/citations.json?j={SMALL}&limit=1000")
            print(f"small place: {edges:,} edges in {pages:,} pages, {seconds:.2f} s")
        corpus.close()


if __name__ == "__main__":
    main()
