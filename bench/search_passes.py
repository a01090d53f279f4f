"""What the passes of a search cost at scale, and what the ranking's parts cost, in one process.

For the labelled queries of the real relevance set (tests/data/search_real, the texts people
typed), over a bench corpus (bench/explorer_corpus.py; --texts real gives its words the
frequencies of real legislation and one norm in nine cited by others):

- ranking: the first 50 by the whole query (engine._ranked_page's pass), and by the same
  query without the clauses that take the coordination rewards back out of the authority's
  multiplication (textindex._rewards, the views of the cited norms) — a different ranking,
  measured only to show what those clauses cost;
- counting: the count of every match, and the count and facets of a search as the engine
  asks them (engine._count_and_facets: facets exact up to 50,000 matches, sampled beyond);
- the floor: the plainest ranking Tantivy offers, the stems of the typed words joined by OR
  in one field (BM25 alone, which Tantivy prunes by block-max WAND), then the same times the
  authority (weight_by_field: the collector must score every match, no pruning). Any
  ranking that multiplies by the authority costs at least the second row.

Each figure is the best of two runs of that query, warm; the table gives p50 and p95 over
the queries, and each second row's ratio to the row above it.

    .venv/bin/python bench/search_passes.py --norms 1000000 --texts real [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import Future
from pathlib import Path

from tantivy import Occur, Query

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.real_fixtures import real_queries  # noqa: E402

from explorer_corpus import build, corpus_folder  # noqa: E402
from locleg.corpus import open_corpus  # noqa: E402
from locleg.search import analysis, engine, textindex  # noqa: E402
from locleg.search.engine import SearchRequest, _plan  # noqa: E402

DEPTH = 50


def best_of_two(fn):
    fastest, result = float("inf"), None
    for _ in range(2):
        started = time.perf_counter()
        result = fn()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest * 1000, result


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(round(0.95 * (len(ordered) - 1)))]


NAMES = ("ranking", "ranking without correction", "count", "count and facets",
         "floor: plain OR", "floor: plain OR x authority")


def _without_correction(node):
    """The query without the rewards' correction for the cited norms (a different ranking:
    measured only to show what it costs)."""
    kept = textindex._REWARD_VIEWS
    textindex._REWARD_VIEWS = kept[:1]
    try:
        return textindex.compile_words(node)
    finally:
        textindex._REWARD_VIEWS = kept


def _plain_or(q: str) -> Query | None:
    """The stems of the typed words joined by OR in the one field a word is matched in."""
    stems = sorted({s for word in q.split() for s, _ in analysis.stems_of(word)})
    return Query.boolean_query([(Occur.Should, Query.term_query(
        textindex.SCHEMA, textindex.MATCH_FIELD, s)) for s in stems]) if stems else None


def measure(searcher, plan) -> list[float]:
    """The passes' times for one query."""
    t_whole, _ = best_of_two(lambda: searcher.search(plan.query, DEPTH, count=False,
                                                     weight_by_field="authority"))
    uncorrected = _without_correction(plan.node)
    t_uncorrected, _ = best_of_two(lambda: searcher.search(uncorrected, DEPTH, count=False,
                                                           weight_by_field="authority"))
    t_count, _ = best_of_two(lambda: engine._count(searcher, plan.matching))

    def count_and_facets():
        counted: Future = Future()
        engine._count_and_facets(searcher, plan, counted, engine.FACETS_EXACT_UP_TO)
        return counted.result()

    t_both, _ = best_of_two(count_and_facets)
    plain = _plain_or(plan.request.q)
    t_plain, _ = best_of_two(lambda: searcher.search(plain, DEPTH, count=False))
    t_weighted, _ = best_of_two(lambda: searcher.search(plain, DEPTH, count=False,
                                                        weight_by_field="authority"))
    return [t_whole, t_uncorrected, t_count, t_both, t_plain, t_weighted]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--texts", choices=("synthetic", "real"), default="real")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--corpus", type=Path, help="an existing corpus instead")
    args = parser.parse_args()
    folder = args.corpus or build(args.norms, corpus_folder(args.norms, args.texts),
                                  texts=args.texts)
    corpus = open_corpus(folder)
    searcher = textindex.for_store(corpus.store).searcher()
    texts = [q.q for q in real_queries() if q.group != "known"]
    random.Random(5).shuffle(texts)
    rows: dict[str, list[float]] = {name: [] for name in NAMES}
    for q in texts[:args.queries]:
        plan = _plan(SearchRequest.from_params({"q": [q]}))
        if plan.words is None or _plain_or(q) is None:
            continue
        for name, t in zip(NAMES, measure(searcher, plan), strict=True):
            rows[name].append(t)
    matches = [searcher.search(plan_words, 1, count=True).count for plan_words in
               (_plan(SearchRequest.from_params({"q": [q]})).matching
                for q in texts[:args.queries]) if plan_words is not None]
    print(f"\n{searcher.num_docs:,} norms ({folder.name}), {len(rows['count'])} real queries "
          f"(matching {statistics.median(matches):,.0f} norms at the median, "
          f"{max(matches):,} at most), best of two, warm; depth {DEPTH}\n")
    print(f"{'pass':<36}{'p50 ms':>9}{'p95 ms':>9}{'× above p50':>13}{'× above p95':>13}")
    for i, name in enumerate(NAMES):
        p50, p95 = percentiles(rows[name])
        line = f"{name:<36}{p50:>9.1f}{p95:>9.1f}"
        if i % 2:
            a50, a95 = percentiles(rows[NAMES[i - 1]])
            line += f"{p50 / a50:>13.3f}{p95 / a95:>13.3f}"
        print(line)


if __name__ == "__main__":
    main()
