"""Explorer and search figures through the HTTP API, next to the naive FTS5 query.

Builds (or reuses) the synthetic corpus of bench/explorer_corpus.py, serves it with
`locleg serve` in its own process, warms the cache, then measures p50/p95 over HTTP:
search for two common words (20 ranked results, snippets, facet counts), the same with a UF
and a jurisdiction filter, the norm page, the jurisdiction page (with facet counts) and the
home page; and the server's peak RSS under a 4-client load. The naive query — bm25 over
every match, snippets for the top 20, exact facet counts over every match — runs in the same
script on the same corpus, in process (no HTTP), and every figure is printed with its ratio
to it.

    .venv/bin/python bench/explorer_speed.py --norms 1000000 [--queries 200]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from explorer_corpus import CORE, build, corpus_folder  # noqa: E402

NAIVE = """
WITH m AS (SELECT rowid AS id, bm25(search_fts, 8.0, 1.0, 1.0, 0.0) AS score
           FROM search_fts WHERE search_fts MATCH :q)
SELECT id, score FROM m ORDER BY score LIMIT 20
"""
NAIVE_SNIPPETS = ("SELECT rowid, snippet(search_fts, 1, '[', ']', '…', 36) FROM search_fts "
                  "WHERE search_fts MATCH :q AND rowid IN ({})")
NAIVE_FACETS = ("SELECT s.uf, s.type, s.year, count(*) FROM search_fts f "
                "JOIN search_norm s ON s.norm_id = f.rowid WHERE search_fts MATCH :q "
                "GROUP BY s.uf, s.type, s.year")
RAW = "SELECT rowid FROM search_fts WHERE search_fts MATCH :q LIMIT 20"


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return p50 * 1000, p95 * 1000


def pick_queries(db: sqlite3.Connection, n_norms: int, count: int, rng: random.Random
                 ) -> list[str]:
    """Pairs of common words, each pair matching 2-10 % of the corpus (as real searches for
    'iluminação pública' or 'servidor público' do)."""
    words = [w for w in dict.fromkeys(CORE) if len(w) > 3][40:220]
    low, high = 0.02 * n_norms, 0.10 * n_norms
    found: list[str] = []
    tries = 0
    while len(found) < min(count, 60) and tries < 3000:
        tries += 1
        a, b = rng.sample(words, 2)
        q = f'"{a}" "{b}"'
        matches = db.execute("SELECT count(*) FROM search_fts WHERE search_fts MATCH :q",
                             {"q": q}).fetchone()[0]
        if low <= matches <= high:
            found.append(f"{a} {b}")
    return [found[i % len(found)] for i in range(count)]


def fts_match(q: str) -> str:
    return "{ementa body extra} : (" + " AND ".join(f'"{w}"' for w in q.split()) + ")"


def naive(db: sqlite3.Connection, q: str) -> None:
    match = fts_match(q)
    top = [r[0] for r in db.execute(NAIVE, {"q": match})]
    if top:
        db.execute(NAIVE_SNIPPETS.format(",".join(map(str, top))), {"q": match}).fetchall()
    db.execute(NAIVE_FACETS, {"q": match}).fetchall()


def timed(fn, items) -> list[float]:
    times = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - start)
    return times


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--load-seconds", type=float, default=30)
    parser.add_argument("--port", type=int, default=8731)
    args = parser.parse_args()
    rng = random.Random(5)
    folder = build(args.norms, corpus_folder(args.norms))
    db_path = folder / "corpus.db"
    # Warm cache, as search.md measured: the database read once into the OS page cache.
    with open(db_path, "rb") as f:
        while f.read(1 << 24):
            pass
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA cache_size=-16000")
    queries = pick_queries(db, args.norms, args.queries, rng)
    places = db.execute("SELECT jurisdiction_code, uf, norms FROM search_place").fetchall()
    big = sorted(places, key=lambda p: -p[2])
    ufs = sorted({p[1] for p in places})
    max_id = db.execute("SELECT max(id) FROM norm").fetchone()[0]
    env = {**os.environ, "LOCLEG_CORPUS": str(folder)}
    server = subprocess.Popen(
        [sys.executable, "-m", "locleg", "serve", "--port", str(args.port),
         "--refresh-every", "0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{args.port}"
    try:
        client = httpx.Client(base_url=base, timeout=60)
        deadline = time.monotonic() + 120
        while True:
            try:
                client.get("/static/style.css")
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(server.stderr.read().decode()) from None
                time.sleep(0.2)

        def get(path: str) -> None:
            r = client.get(path)
            if r.status_code != 200:
                raise SystemExit(f"{path}: HTTP {r.status_code}: {r.text[:300]}")

        kinds = {
            "search, 2 common words": [f"/search.json?q={q}" for q in queries],
            "search + UF filter": [f"/search.json?q={q}&uf={rng.choice(ufs)}" for q in queries],
            "search + jurisdiction filter": [
                f"/search.json?q={q}&j={rng.choice(big[:500])[0]}" for q in queries],
            "norm page": [f"/norm/{rng.randint(1, max_id)}" for _ in queries],
            "jurisdiction page (with facets)": [
                f"/jurisdiction/{rng.choice(big)[0]}" for _ in queries],
            "home": ["/" for _ in queries],
        }
        for paths in kinds.values():  # warm-up: one pass over a few of each kind
            for path in paths[:20]:
                get(path)
        results = {name: percentiles(timed(get, paths)) for name, paths in kinds.items()}
        sample = client.get(f"/search.json?q={queries[0]}").json()
        estimate = (f"cover the {sample['within']:,} most recent matches, totals exact"
                    if sample["within"] else "exact")

        naive_times = timed(lambda q: naive(db, q), queries[: max(20, args.queries // 2)])
        raw_times = timed(lambda q: db.execute(RAW, {"q": fts_match(q)}).fetchall(), queries)
        naive_p50, naive_p95 = percentiles(naive_times)
        raw_p50, raw_p95 = percentiles(raw_times)

        # RSS under load: 4 clients on a mix of pages for a bounded time.
        stop = time.monotonic() + args.load_seconds
        peak = [rss_mb(server.pid)]
        done = [0]
        mix = [p for paths in kinds.values() for p in paths]

        def client_loop(seed: int) -> None:
            local = random.Random(seed)
            with httpx.Client(base_url=base, timeout=60) as c:
                while time.monotonic() < stop:
                    c.get(local.choice(mix))
                    done[0] += 1

        threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak.append(rss_mb(server.pid))
            time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(timeout=30)

    matches = [db.execute("SELECT count(*) FROM search_fts WHERE search_fts MATCH :q",
                          {"q": fts_match(q)}).fetchone()[0] for q in queries[:20]]
    print(f"\nExplorer on {args.norms:,} norms ({len(places):,} jurisdictions), SQLite FTS5, "
          f"warm cache; {args.queries} requests per row; two-word queries match "
          f"{min(matches):,}–{max(matches):,} norms; ranking and facets {estimate}\n")
    print(f"{'figure':<36}{'p50 ms':>9}{'p95 ms':>9}{'× naive p50':>13}{'× naive p95':>13}")
    print(f"{'naive: bm25 all + snippets + facets':<36}{naive_p50:>9.1f}{naive_p95:>9.1f}"
          f"{1:>13.2f}{1:>13.2f}")
    print(f"{'raw FTS5 MATCH … LIMIT 20':<36}{raw_p50:>9.2f}{raw_p95:>9.2f}"
          f"{raw_p50 / naive_p50:>13.3f}{raw_p95 / naive_p95:>13.3f}")
    for name, (p50, p95) in results.items():
        print(f"{name:<36}{p50:>9.1f}{p95:>9.1f}{p50 / naive_p50:>13.3f}{p95 / naive_p95:>13.3f}")
    print(f"\nserver peak RSS under 4 clients for {args.load_seconds:.0f} s: {max(peak):,.0f} MB "
          f"({done[0] / args.load_seconds:,.0f} requests/s)")


if __name__ == "__main__":
    main()
