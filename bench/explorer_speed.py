"""Explorer and search figures through the HTTP API, next to today's engine and the naive query.

Builds (or reuses) the synthetic corpus of bench/explorer_corpus.py, serves it with
`locleg serve` in its own process, warms the cache, then measures p50/p95 over HTTP:
search for two common words (20 ranked results, snippets, facet counts), for the
colloquial queries of the real relevance set (tests/data/search_real: 1-8 words as people
type them, which ask for more words and their synonyms), the same two-word searches with a UF
and a jurisdiction filter, the norm page, the jurisdiction page (with facet counts) and the
home page; and the server's peak RSS under a 4-client load.

With --baseline-tree (a checkout of another commit, e.g. the code before issue 10) and
--baseline-corpus (the same corpus built by that checkout), that commit's explorer is served
beside this one and every request is made to both, one after the other, so that both see
the same machine at the same moment: the ratio this ÷ baseline is the figure. The naive query
of the issue-5 bench (FTS5 bm25 over every match + snippets + exact facets, in process) runs
on the baseline corpus when it has an FTS5 index.

    .venv/bin/python bench/explorer_speed.py --norms 1000000 [--queries 200] [--texts real]
        [--baseline-tree ../wt-base --baseline-corpus ../wt-base/bench/out/explorer-1000000]

The same table on PostgreSQL: --database URL moves the SQLite bench corpus into that
(empty) database once, with `locleg migrate --to URL`, in a folder of its own beside it
(explorer-N-pg/, sharing the search index's files by hard links); --corpus PATH measures an
existing corpus instead, e.g. one migrated already. bench/postgres.py starts a server.

    .venv/bin/python bench/explorer_speed.py --norms 100000 \
        --database postgresql://postgres@127.0.0.1:5440/bench100k
    .venv/bin/python bench/explorer_speed.py --corpus bench/out/explorer-1000000-pg
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
from urllib.parse import urlencode

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

from sqlalchemy import create_engine, text  # noqa: E402

from explorer_corpus import CORE, build, corpus_folder  # noqa: E402
from locleg.config import read_settings  # noqa: E402
from locleg.dburl import safe_url  # noqa: E402
from locleg.search import textindex  # noqa: E402
from locleg.search.query import parse, with_joined_words  # noqa: E402

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


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return p50 * 1000, p95 * 1000


def pick_queries(folder: Path, n_norms: int, count: int, rng: random.Random) -> list[str]:
    """Pairs of common words, the norms holding both being 2-10 % of the corpus (as real
    searches for 'iluminação pública' or 'servidor público' are), counted in this checkout's
    index. Typed side by side, each word is optional since issue 22: the pair then matches
    the norms holding either, those holding both first."""
    searcher = textindex.for_folder(folder / textindex.INDEX_FOLDER).searcher()
    words = [w for w in dict.fromkeys(CORE) if len(w) > 3][40:220]
    low, high = 0.02 * n_norms, 0.10 * n_norms
    found: list[str] = []
    tries = 0
    while len(found) < min(count, 60) and tries < 3000:
        tries += 1
        a, b = rng.sample(words, 2)
        query = textindex.compile_words(with_joined_words(parse(f"{a} AND {b}")))
        if query is not None and low <= searcher.search(query, 1, count=True).count <= high:
            found.append(f"{a} {b}")
    return [found[i % len(found)] for i in range(count)]


def real_queries(count: int) -> list[str]:
    """The colloquial texts of the real relevance set (every group but the known items), in
    file order, repeated up to `count`: how people type (several words, synonyms), beside the
    bench's pairs of common words."""
    sys.path.insert(0, str(ROOT))
    from tests.real_fixtures import real_queries as labelled
    texts = [q.q for q in labelled() if q.group != "known"]
    return [texts[i % len(texts)] for i in range(count)]


def fts_match(q: str) -> str:
    return "{ementa body extra} : (" + " AND ".join(f'"{w}"' for w in q.split()) + ")"


def naive_query(db: sqlite3.Connection, q: str) -> None:
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


class Server:
    """`locleg serve` of one checkout over one corpus, in its own process."""

    def __init__(self, folder: Path, port: int, tree: Path | None = None) -> None:
        env = {**os.environ, "LOCLEG_CORPUS": str(folder)}
        if tree is not None:
            env["PYTHONPATH"] = str(tree / "src")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "locleg", "serve", "--port", str(port),
             "--refresh-every", "0"], env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, cwd=tree or ROOT)
        self.base = f"http://127.0.0.1:{port}"
        self.client = httpx.Client(base_url=self.base, timeout=120)
        deadline = time.monotonic() + 600  # a first start may migrate a big corpus
        while True:
            try:
                self.client.get("/static/style.css")
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise SystemExit(self.process.stderr.read().decode()) from None
                time.sleep(0.2)

    def get(self, path: str) -> float:
        start = time.perf_counter()
        r = self.client.get(path)
        elapsed = time.perf_counter() - start
        if r.status_code != 200:
            raise SystemExit(f"{self.base}{path}: HTTP {r.status_code}: {r.text[:300]}")
        return elapsed

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


def warm_files(folder: Path) -> None:
    """Read files once into the OS page cache, as search.md measured 'warm'."""
    for path in ([folder] if folder.is_file() else sorted(folder.rglob("*"))):
        if path.is_file():
            with open(path, "rb") as f:
                while f.read(1 << 24):
                    pass


def postgresql_copy(folder: Path, url: str) -> Path:
    """The SQLite bench corpus moved to PostgreSQL by `locleg migrate --to`, once, in a
    folder of its own (settings, and the search index's files hard-linked: an index is never
    rewritten in place), so the SQLite corpus stays as the other figures need it."""
    pg_folder = folder.with_name(folder.name + "-pg")
    if (pg_folder / "migrated.json").exists():
        return pg_folder
    if pg_folder.exists():
        subprocess.run(["rm", "-rf", str(pg_folder)], check=True)
    pg_folder.mkdir()
    (pg_folder / "locleg.toml").write_bytes((folder / "locleg.toml").read_bytes())
    (pg_folder / "originals").mkdir()
    (pg_folder / "corpus.db").symlink_to(folder / "corpus.db")
    subprocess.run(["cp", "-al", str(folder / textindex.INDEX_FOLDER),
                    str(pg_folder / textindex.INDEX_FOLDER)], check=True)
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "locleg", "migrate", "--to", url, "--corpus",
                    str(pg_folder)], check=True)
    (pg_folder / "migrated.json").write_text(
        f'{{"database": "{safe_url(url)}", "seconds": {time.monotonic() - started:.0f}}}')
    return pg_folder


def prewarm(engine) -> None:
    """PostgreSQL's twin of reading the SQLite file into the page cache: every table and
    index of the corpus read once (pg_prewarm, from PostgreSQL's contrib)."""
    with engine.begin() as conn:
        conn.execute(text("CREATE EXTENSION IF NOT EXISTS pg_prewarm"))
        conn.execute(text(
            "SELECT pg_prewarm(c.oid) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
            "AND c.relkind IN ('r', 'i')")).all()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--texts", choices=("synthetic", "real"), default="synthetic",
                        help="the bench corpus's texts (bench/explorer_corpus.py): real "
                             "norms' give words the frequencies they have in real legislation")
    parser.add_argument("--load-seconds", type=float, default=30)
    parser.add_argument("--port", type=int, default=8731)
    parser.add_argument("--baseline-tree", type=Path,
                        help="a checkout of the commit to compare with (its src/ is used)")
    parser.add_argument("--baseline-corpus", type=Path,
                        help="the same corpus, built by the baseline checkout")
    parser.add_argument("--database", metavar="URL",
                        help="measure on PostgreSQL: the bench corpus moved into this empty "
                             "database (once, by locleg migrate --to URL)")
    parser.add_argument("--corpus", type=Path,
                        help="measure this existing corpus (SQLite or PostgreSQL) instead of "
                             "the built one; --norms is then read from it")
    args = parser.parse_args()
    if (args.baseline_tree is None) != (args.baseline_corpus is None):
        parser.error("--baseline-tree and --baseline-corpus go together")
    if args.database and args.corpus:
        parser.error("--database moves the built corpus; --corpus names one already there")
    rng = random.Random(5)
    if args.corpus is not None:
        folder = args.corpus.resolve()
    else:
        folder = build(args.norms, corpus_folder(args.norms, args.texts), texts=args.texts)
        if args.database:
            folder = postgresql_copy(folder, args.database)
    settings = read_settings(folder)
    engine = create_engine(settings.database_url)
    backend = "SQLite" if settings.is_sqlite else "PostgreSQL"
    warm_files(folder / textindex.INDEX_FOLDER)
    if settings.is_sqlite:
        warm_files(folder / "corpus.db")
    else:
        prewarm(engine)
    with engine.connect() as db:
        if args.corpus is not None:
            args.norms = db.execute(text("SELECT count(*) FROM norm")).scalar_one()
        places = [tuple(r) for r in db.execute(
            text("SELECT jurisdiction_code, uf, norms FROM search_place"))]
        max_id = db.execute(text("SELECT max(id) FROM norm")).scalar_one()
    engine.dispose()
    queries = pick_queries(folder, args.norms, args.queries, rng)
    big = sorted(places, key=lambda p: -p[2])
    ufs = sorted({p[1] for p in places})
    baseline_db = None
    if args.baseline_corpus is not None:
        warm_files(args.baseline_corpus / "corpus.db")
        baseline_db = sqlite3.connect(args.baseline_corpus / "corpus.db")
        baseline_db.execute("PRAGMA cache_size=-16000")
    servers = {"this": Server(folder, args.port)}
    try:
        if args.baseline_tree is not None:
            servers["baseline"] = Server(args.baseline_corpus, args.port + 1,
                                         args.baseline_tree.resolve())
        kinds = {
            "search, 2 common words": [f"/search.json?q={q}" for q in queries],
            "search, colloquial real queries": [
                "/search.json?" + urlencode({"q": q}) for q in real_queries(args.queries)],
            "search + UF filter": [f"/search.json?q={q}&uf={rng.choice(ufs)}" for q in queries],
            "search + jurisdiction filter": [
                f"/search.json?q={q}&j={rng.choice(big[:500])[0]}" for q in queries],
            "norm page": [f"/norm/{rng.randint(1, max_id)}" for _ in queries],
            "jurisdiction page (with facets)": [
                f"/jurisdiction/{rng.choice(big)[0]}" for _ in queries],
            "home": ["/" for _ in queries],
        }
        for paths in kinds.values():  # warm-up: two passes over a few of each kind
            for path in paths[:40]:
                for server in servers.values():
                    server.get(path)
        times: dict[tuple[str, str], list[float]] = {}
        for name, paths in kinds.items():
            for path in paths:  # the same request to each server, one after the other
                for label, server in servers.items():
                    times.setdefault((name, label), []).append(server.get(path))
        sample = servers["this"].client.get(f"/search.json?q={queries[0]}").json()
        estimate = (f"facets estimated from a sample of {sample['within']:,} matches"
                    if sample["within"] else "facets exact over every match")

        naive = None
        if baseline_db is not None and baseline_db.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'search_fts'").fetchone():
            naive = percentiles(timed(lambda q: naive_query(baseline_db, q),
                                      queries[: max(20, args.queries // 2)]))

        # RSS under load: 4 clients on a mix of pages for a bounded time, this server only.
        this = servers["this"]
        stop = time.monotonic() + args.load_seconds
        peak = [rss_mb(this.process.pid)]
        done = [0]
        mix = [p for paths in kinds.values() for p in paths]

        def client_loop(seed: int) -> None:
            local = random.Random(seed)
            with httpx.Client(base_url=this.base, timeout=120) as c:
                while time.monotonic() < stop:
                    c.get(local.choice(mix))
                    done[0] += 1

        threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            peak.append(rss_mb(this.process.pid))
            time.sleep(0.2)
    finally:
        for server in servers.values():
            server.stop()

    searcher = textindex.for_folder(folder / textindex.INDEX_FOLDER).searcher()
    matches = [searcher.search(textindex.compile_words(with_joined_words(parse(q))), 1,
                               count=True).count for q in queries[:20]]
    print(f"\nExplorer on {args.norms:,} norms ({len(places):,} jurisdictions), {backend}, "
          f"warm cache; {args.queries} requests per row and server; two-word queries match "
          f"{min(matches):,}–{max(matches):,} norms here; ranking over every match, "
          f"{estimate}\n")
    has_baseline = "baseline" in servers
    header = f"{'figure':<36}{'p50 ms':>9}{'p95 ms':>9}"
    if has_baseline:
        header += f"{'today p50':>11}{'today p95':>11}{'× today p50':>13}{'× today p95':>13}"
    if naive:
        header += f"{'× naive p95':>13}"
    print(header)
    if naive:
        label = "naive: bm25 all + snippets + facets"
        print(f"{label:<36}{naive[0]:>9.1f}{naive[1]:>9.1f}")
    for name in kinds:
        p50, p95 = percentiles(times[name, "this"])
        line = f"{name:<36}{p50:>9.1f}{p95:>9.1f}"
        if has_baseline:
            b50, b95 = percentiles(times[name, "baseline"])
            line += f"{b50:>11.1f}{b95:>11.1f}{p50 / b50:>13.3f}{p95 / b95:>13.3f}"
        if naive:
            line += f"{p95 / naive[1]:>13.3f}"
        print(line)
    print(f"\nserver peak RSS under 4 clients for {args.load_seconds:.0f} s: {max(peak):,.0f} MB "
          f"({done[0] / args.load_seconds:,.0f} requests/s)")


if __name__ == "__main__":
    main()
