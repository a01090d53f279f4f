"""Lookup by number: top-1 accuracy over the labelled queries, and what a lookup costs.

Builds the lookup corpus of tests/lookup_fixtures.py (the hard cases of real municipal
corpora: one number in several types and years, decrees that restart their numbering every
year, amendments whose ementas cite the number, LC beside Lei, 12-A beside 12) plus FILLER
norms numbered the way municipalities number them, enriched and indexed. Then, in the same
run:

- top-1 accuracy of the LOOKUPS queries (query + filters -> the norm that must come first);
  the reference is the same queries ranked by their words alone (the lookup switched off);
- p50 / p95 latency of those searches (20 results, snippets, facets) next to plain word
  searches (PLAIN) and to the same queries with the lookup switched off, over the same
  corpus, and the ratios.

    .venv/bin/python bench/search_lookup.py [--filler 100000] [--repeat 5] [--backend both]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.lookup_fixtures import LOOKUPS, PLAIN, SHARED, build_lookup_corpus  # noqa: E402
from tests.pgserver import PostgresServer  # noqa: E402

from locleg.corpus import init_corpus  # noqa: E402
from locleg.search import SearchRequest, search  # noqa: E402
from locleg.search import engine as search_engine  # noqa: E402


def request(q: str, params: dict[str, list[str]]) -> SearchRequest:
    return SearchRequest.from_params({"q": [q], **params})


def top1(store, norms: dict[str, int]) -> tuple[int, list[str]]:
    right, wrong = 0, []
    for q, params, first in LOOKUPS:
        hits = search(store, request(q, params)).hits
        if hits and hits[0].norm_id == norms[first]:
            right += 1
        else:
            wrong.append(f"{q} {params}")
    return right, wrong


def latencies(store, queries: list[tuple[str, dict]], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        for q, params in queries:
            r = request(q, params)
            started = time.perf_counter()
            search(store, r)
            times.append(time.perf_counter() - started)
    return times


def p(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))] * 1000


def measure(database_url: str | None, filler: int, repeat: int) -> bool:
    """Build the corpus on one backend, print its figures; whether every lookup was right."""
    with tempfile.TemporaryDirectory(prefix="locleg-lookup-") as folder:
        corpus = init_corpus(Path(folder) / "corpus", database_url)
        started = time.monotonic()
        built = build_lookup_corpus(corpus, filler=filler)
        store = corpus.store
        with store.engine.connect() as conn:
            norms = conn.exec_driver_sql(
                "SELECT count(*) FROM norm WHERE merged_into IS NULL").scalar()
        print(f"\n## {store.dialect}: {norms:,} norms ({filler:,} filler), built, enriched "
              f"and indexed in {time.monotonic() - started:.1f} s")

        named = [(q, f) for q, f, _ in LOOKUPS]
        latencies(store, named + list(PLAIN), 1)  # warm up
        right, wrong = top1(store, built.norms)
        lookup_times = latencies(store, named, repeat)
        plain_times = latencies(store, list(PLAIN), repeat * 4)
        shared_times = latencies(store, list(SHARED), repeat * 4)
        shared_named = [len(search(store, request(q, f)).named) for q, f in SHARED]
        # The reference: the same queries ranked by their words only.
        kept = search_engine.references
        search_engine.references = lambda q: []
        try:
            words_right, _ = top1(store, built.norms)
            words_times = latencies(store, named, repeat)
        finally:
            search_engine.references = kept
        corpus.close()

    total = len(LOOKUPS)
    print(f"\nlookup queries: {total}; top-1 {right}/{total} = {right / total:.1%} "
          f"(words alone: {words_right}/{total} = {words_right / total:.1%})")
    for miss in wrong:
        print(f"  missed: {miss}")
    lp50, lp95 = statistics.median(lookup_times) * 1000, p(lookup_times, 0.95)
    pp50, pp95 = statistics.median(plain_times) * 1000, p(plain_times, 0.95)
    wp50, wp95 = statistics.median(words_times) * 1000, p(words_times, 0.95)
    print("\n| figure | p50 ms | p95 ms | × plain p50 | × plain p95 |")
    print("|---|---|---|---|---|")
    print(f"| plain word search (reference), {len(plain_times)} runs | {pp50:.1f} | "
          f"{pp95:.1f} | 1.00 | 1.00 |")
    print(f"| same queries, lookup off (words only), {len(words_times)} runs | "
          f"{wp50:.1f} | {wp95:.1f} | {wp50 / pp50:.2f} | {wp95 / pp95:.2f} |")
    print(f"| search naming a norm, {len(lookup_times)} runs | {lp50:.1f} | {lp95:.1f} | "
          f"{lp50 / pp50:.2f} | {lp95 / pp95:.2f} |")
    sp50, sp95 = statistics.median(shared_times) * 1000, p(shared_times, 0.95)
    print(f"| a number every place has (named: {min(shared_named)}-{max(shared_named)}), "
          f"{len(shared_times)} runs | {sp50:.1f} | {sp95:.1f} | {sp50 / pp50:.2f} | "
          f"{sp95 / pp95:.2f} |")
    print(f"\nlookup cost: +{lp50 - wp50:.1f} ms p50 (× {lp50 / wp50:.2f}), "
          f"+{lp95 - wp95:.1f} ms p95 (× {lp95 / wp95:.2f}) over the same queries without it")
    return right == total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filler", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both",
                        help="PostgreSQL: a throwaway server (tests/pgserver.py)")
    args = parser.parse_args()
    ok = True
    if args.backend in ("sqlite", "both"):
        ok &= measure(None, args.filler, args.repeat)
    if args.backend in ("postgresql", "both"):
        server = PostgresServer().start()
        try:
            ok &= measure(server.create_database("lookup_bench"), args.filler, args.repeat)
        finally:
            server.stop()
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
