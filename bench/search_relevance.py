"""Relevance: nDCG@10 and success@1 of search over the labelled set, against plain BM25.

Builds the relevance corpus of tests/relevance_fixtures.py (1,571 norms of six municipalities
and a state, shaped like real municipal corpora: codes amended many times, honorary decrees,
street names, budget decrees; enriched and indexed) and runs its 86 graded queries through:

- locleg.search.search: the engine of this checkout, as the explorer and the API call it
  (first page of 10, filters as the user set them);
- plain BM25 over every match (the reference): the same query, matched the same way on the
  corpus's own index, ranked by BM25 alone (k1 = 1.2, b = 0.75), no field weights, no
  authority, no stemming beyond what the index does. On SQLite this is FTS5's bm25() with its
  default weights over the search_fts table; on PostgreSQL, which has no BM25, the same
  formula computed here from the tsvectors of every match (term frequencies from the
  positions, document frequencies and lengths over the whole table).

Prints a table with one row per system and one column per query class (all; known-item,
topical, phrase, inflection, accents, spelling; with and without a UF or jurisdiction
filter), each cell the mean nDCG@10 / success@1, and a row of ratios engine ÷ reference;
--verbose adds each query's figures and first three results.

    .venv/bin/python bench/search_relevance.py [--postgresql [URL]] [--label NAME] [--verbose]

--postgresql without a URL starts a throwaway server as the suite does (tests/pgserver.py).
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from sqlalchemy import text  # noqa: E402
from tests.relevance_fixtures import (  # noqa: E402
    KINDS,
    QUERIES,
    Query,
    build_norms,
    build_relevance_corpus,
    engine_ranking,
    judgments,
    ndcg_at,
    success_at_1,
)

from locleg.corpus import init_corpus  # noqa: E402
from locleg.search import SearchRequest  # noqa: E402
from locleg.search.query import (  # noqa: E402
    parse,
    tags_to_fts5,
    tags_to_tsquery,
    to_fts5,
    to_tsquery,
    with_joined_words,
    words_of,
)

K = 10
K1, B = 1.2, 0.75  # FTS5's bm25() constants


def request_of(query: Query) -> SearchRequest:
    return SearchRequest.from_params({**query.params, "limit": [str(K)]})


def rank_bm25_sqlite(store, query: Query) -> list[int]:
    """FTS5 bm25() with its default weights over every match of the query and filters."""
    request = request_of(query)
    node = with_joined_words(parse(query.q))
    expression = "{ementa body extra} : (" + to_fts5(node) + ")"
    groups = request.tag_groups()
    if groups:
        expression += " AND " + tags_to_fts5(groups)
    with store.engine.connect() as conn:
        return list(conn.scalars(text(
            "SELECT rowid FROM search_fts WHERE search_fts MATCH :m "
            "ORDER BY bm25(search_fts), rowid LIMIT :k"), {"m": expression, "k": K}))


_ENTRY = re.compile(r"'((?:[^']|'')*)':([0-9A-D,]+)")


def _positions(tsv: str) -> dict[str, int]:
    """lexeme -> how many positions it holds outside the filter tags (weight D)."""
    found = {}
    for lexeme, positions in _ENTRY.findall(tsv):
        count = sum(1 for p in positions.split(",") if not p.endswith("D"))
        if count:
            found[lexeme.replace("''", "'")] = count
    return found


class _PostgresBM25:
    """BM25 over every match on PostgreSQL, from the tsvectors the index stores."""

    def __init__(self, store) -> None:
        self.store = store
        with store.engine.connect() as conn:
            self.total = conn.scalar(text("SELECT count(*) FROM search_fts"))
            lengths = [sum(_positions(t).values()) for t in conn.scalars(
                text("SELECT tsv::text FROM search_fts"))]
        self.average = statistics.mean(lengths) if lengths else 1.0
        self.df: dict[str, int] = {}

    def frequency(self, conn, lexeme: str) -> int:
        if lexeme not in self.df:
            self.df[lexeme] = conn.scalar(
                text("SELECT count(*) FROM search_fts WHERE tsv @@ CAST(:q AS tsquery)"),
                {"q": to_tsquery(parse(f'"{lexeme}"'))})
        return self.df[lexeme]

    def __call__(self, store, query: Query) -> list[int]:
        request = request_of(query)
        node = with_joined_words(parse(query.q))
        expression = f"({to_tsquery(node)})"
        groups = request.tag_groups()
        if groups:
            expression += f" & ({tags_to_tsquery(groups)})"
        lexemes = list(dict.fromkeys(w.folded for w in words_of(node)))
        scored = []
        with store.engine.connect() as conn:
            idf = {}
            for lexeme in lexemes:
                n = self.frequency(conn, lexeme)
                # FTS5's idf, floored as FTS5 floors it.
                idf[lexeme] = max(math.log((self.total - n + 0.5) / (n + 0.5)), 1e-6)
            for norm_id, tsv in conn.execute(text(
                    "SELECT norm_id, tsv::text FROM search_fts "
                    "WHERE tsv @@ CAST(:m AS tsquery)"), {"m": expression}):
                tf = _positions(tsv)
                length = sum(tf.values())
                score = sum(
                    idf[w] * tf[w] * (K1 + 1)
                    / (tf[w] + K1 * (1 - B + B * length / self.average))
                    for w in lexemes if w in tf)
                scored.append((-score, norm_id))
        return [norm_id for _, norm_id in sorted(scored)[:K]]


def evaluate(store, names: dict[int, str], ranker: Callable, norms) -> list[dict]:
    """Each query's figures under one ranker."""
    rows = []
    for query in QUERIES:
        judged = judgments(query, norms)
        ranked = [names[i] for i in ranker(store, query)]
        rows.append({"query": query, "ndcg": ndcg_at(ranked, judged, K),
                     "s1": success_at_1(ranked, judged), "top": ranked[:3]})
    return rows


def _classes() -> list[tuple[str, Callable[[Query], bool]]]:
    return ([("all", lambda q: True)]
            + [(kind, lambda q, kind=kind: q.kind == kind) for kind in KINDS]
            + [("with a UF or jurisdiction filter", lambda q: q.filtered),
               ("without a filter", lambda q: not q.filtered)])


def table(label: str, engine: str, engine_rows: list[dict],
          reference_rows: list[dict]) -> None:
    """One row per system, one column per query class: mean nDCG@10 / success@1."""
    classes = _classes()
    print(f"\n{label}: mean nDCG@{K} / success@1 over the queries of each class")
    print("\n| system | " + " | ".join(f"{name} ({sum(keep(q) for q in QUERIES)})"
                                      for name, keep in classes) + " |")
    print("|---|" + "---|" * len(classes))
    means = {}
    for system, rows in ((engine, engine_rows), ("plain BM25 over every match",
                                                 reference_rows)):
        cells = []
        for name, keep in classes:
            kept = [r for r in rows if keep(r["query"])]
            means[system, name] = (statistics.mean(r["ndcg"] for r in kept),
                                   statistics.mean(r["s1"] for r in kept))
            cells.append("{:.3f} / {:.2f}".format(*means[system, name]))
        print(f"| {system} | " + " | ".join(cells) + " |")
    ratios = []
    for name, _ in classes:
        (n1, s1), (n2, s2) = means[engine, name], means["plain BM25 over every match", name]
        ratios.append(f"{_ratio(n1, n2)} / {_ratio(s1, s2)}")
    print(f"| ratio {engine} ÷ plain BM25 | " + " | ".join(ratios) + " |")


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "—"


def details(engine_rows: list[dict], reference_rows: list[dict]) -> None:
    print(f"\n| query | filter | class | engine nDCG@{K} | S@1 | BM25 nDCG@{K} | S@1 | engine "
          "top 3 | BM25 top 3 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for mine, theirs in zip(engine_rows, reference_rows, strict=True):
        q = mine["query"]
        print(f"| {q.q} | {q.uf or q.place or ''} | {q.kind} | {mine['ndcg']:.2f} | "
              f"{mine['s1']:.0f} | {theirs['ndcg']:.2f} | {theirs['s1']:.0f} | "
              f"{', '.join(mine['top'])} | {', '.join(theirs['top'])} |")


def measure(database_url: str | None, engine: str, verbose: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="locleg-relevance-") as folder:
        corpus = init_corpus(Path(folder) / "corpus", database_url)
        started = time.monotonic()
        built = build_relevance_corpus(corpus)
        store = corpus.store
        norms = build_norms()
        names = {norm_id: name for name, norm_id in built.norms.items()}
        with store.engine.connect() as conn:
            citations = conn.scalar(text("SELECT count(target_norm_id) FROM citation"))
        print(f"\n## {store.dialect}: {len(norms):,} norms, {citations:,} citations resolved "
              f"to corpus norms; built, enriched and indexed in "
              f"{time.monotonic() - started:.1f} s")
        kinds = Counter(q.kind for q in QUERIES)
        print(f"{len(QUERIES)} queries: " + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
              + f"; {sum(q.filtered for q in QUERIES)} with a filter")
        reference = rank_bm25_sqlite if store.dialect == "sqlite" else _PostgresBM25(store)
        started = time.monotonic()
        engine_rows = evaluate(store, names, engine_ranking, norms)
        engine_seconds = time.monotonic() - started
        started = time.monotonic()
        reference_rows = evaluate(store, names, reference, norms)
        reference_seconds = time.monotonic() - started
        corpus.close()
    table(f"{store.dialect}, {engine} = locleg.search.search of this checkout", engine,
          engine_rows, reference_rows)
    print(f"\n(all {len(QUERIES)} queries: engine {engine_seconds:.2f} s, plain BM25 "
          f"{reference_seconds:.2f} s)")
    if verbose:
        details(engine_rows, reference_rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgresql", nargs="?", const="", default=None, metavar="URL",
                        help="also on PostgreSQL: the empty database at URL, or a throwaway "
                             "server when no URL is given")
    parser.add_argument("--label", default="engine",
                        help="the engine's name in the tables, e.g. 'today (5a96086)'")
    parser.add_argument("--verbose", action="store_true", help="each query's figures")
    args = parser.parse_args()
    measure(None, args.label, args.verbose)
    if args.postgresql is None:
        return
    if args.postgresql:
        measure(args.postgresql, args.label, args.verbose)
        return
    from tests.pgserver import PostgresServer

    try:
        server = PostgresServer().start()
    except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
        print(f"\nPostgreSQL: no server could be started ({error}); figures on SQLite only")
        return
    try:
        measure(server.create_database("relevance_bench"), args.label, args.verbose)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
