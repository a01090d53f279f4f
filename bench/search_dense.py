"""The dense stage of search: does it earn its cost? Relevance with and without it, its
latency, its build time and memory, each beside the engine without it in the same run.

1. The old labelled set (tests/relevance_fixtures.py: 1,571 generated norms, 86 queries):
   nDCG@10, success@1, MRR and "meant in the top 10" (the meant = the query's highest grade)
   of locleg.search.search without the dense stage and with it.
2. The real set (tests/data/search_real/ or --real DIR: norms.jsonl.gz and queries.jsonl,
   real municipal norms and the queries people type, grade 2 = the norm meant): MRR, meant in
   the top 10 and nDCG@10 per group, without and with; search latency p50/p95 over its
   queries, without and with.
3. The build: embedding throughput (norms/s, one process, as `refresh_index` fills) over the
   real norms, extrapolated to hours at 1M norms.
4. The dense stage at scale: --million N synthetic unit vectors (default 1,000,000) in the
   on-disk format, then the time of the stage's part of a search (query embedding + the
   exact matrix product and top-k over every vector, unfiltered and with a UF filter), and
   the memory they take.

    .venv/bin/python bench/search_dense.py [--real DIR] [--million N] [--skip-old]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

import numpy as np  # noqa: E402
from sqlalchemy import select  # noqa: E402
from tests.dense_fixtures import load_norms, read_norms  # noqa: E402
from tests.relevance_fixtures import (  # noqa: E402
    QUERIES,
    build_norms,
    build_relevance_corpus,
    judgments,
    ndcg_at,
    success_at_1,
)

from locleg.config import set_search_dense  # noqa: E402
from locleg.corpus import init_corpus, open_corpus  # noqa: E402
from locleg.search import (  # noqa: E402
    SearchRequest,
    dense,
    refresh_index,
    search,
)
from locleg.store.schema import record  # noqa: E402

K = 10


def _measures(ranked: list[str], judged: dict[str, int], meant: set[str]) -> dict:
    rank = next((i for i, name in enumerate(ranked, 1) if name in meant), None)
    return {"ndcg": ndcg_at(ranked, judged, K), "s1": success_at_1(ranked, judged),
            "rr": 1 / rank if rank else 0.0, "top": 1.0 if rank and rank <= K else 0.0}


def _mean(rows: list[dict], key: str) -> float:
    return statistics.mean(r[key] for r in rows) if rows else 0.0


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "—"


def _table(title: str, groups: dict[str, dict[bool, list[dict]]]) -> None:
    print(f"\n{title}\n")
    print(f"| group | queries | stage | MRR | meant in top {K} | nDCG@{K} | success@1 |")
    print("|---|---|---|---|---|---|---|")
    for group, by in groups.items():
        for on in (False, True):
            rows = by[on]
            print(f"| {group} | {len(rows)} | {'BM25 + dense' if on else 'BM25 alone'} | "
                  f"{_mean(rows, 'rr'):.3f} | {_mean(rows, 'top'):.0%} | "
                  f"{_mean(rows, 'ndcg'):.3f} | {_mean(rows, 's1'):.2f} |")
        off, on = by[False], by[True]
        print(f"| {group} | | ratio with ÷ without | {_ratio(_mean(on, 'rr'), _mean(off, 'rr'))}"
              f" | {_ratio(_mean(on, 'top'), _mean(off, 'top'))} | "
              f"{_ratio(_mean(on, 'ndcg'), _mean(off, 'ndcg'))} | "
              f"{_ratio(_mean(on, 's1'), _mean(off, 's1'))} |")


def _fill(store) -> tuple[int, float]:
    started = time.monotonic()
    report = refresh_index(store, dense_seconds=None).dense
    return report.embedded, time.monotonic() - started


def old_set(folder: Path) -> None:
    corpus = init_corpus(folder / "old", None)
    built = build_relevance_corpus(corpus)
    set_search_dense(corpus.folder, True)
    embedded, seconds = _fill(corpus.store)
    print(f"\n## The old set: {len(built.norms):,} generated norms, {len(QUERIES)} queries; "
          f"{embedded:,} norms embedded in {seconds:.1f} s ({embedded / seconds:.1f} norms/s)")
    names = {norm_id: name for name, norm_id in built.norms.items()}
    norms = build_norms()
    groups: dict[str, dict[bool, list[dict]]] = {"all": {False: [], True: []}}
    for query in QUERIES:
        judged = judgments(query, norms)
        best = max(judged.values(), default=0)
        meant = {name for name, grade in judged.items() if grade == best}
        request = SearchRequest.from_params({**query.params, "limit": [str(K)]})
        for on in (False, True):
            ranked = [names[h.norm_id] for h in
                      search(corpus.store, request, use_dense=on).hits]
            row = _measures(ranked, judged, meant)
            groups["all"][on].append(row)
            groups.setdefault(query.kind, {False: [], True: []})[on].append(row)
    _table("nDCG, success@1, MRR and top 10 of the meant (the query's highest grade)", groups)
    corpus.close()


def real_set(folder: Path, data: Path, kept: Path | None = None) -> None:
    norms = read_norms(data / "norms.jsonl.gz")
    with open(data / "queries.jsonl", encoding="utf-8") as lines:
        queries = [json.loads(line) for line in lines if line.strip()]
    print(f"\n## The real set: {len(norms):,} norms ({data}), {len(queries)} queries")
    if kept is not None and (kept / "locleg.toml").is_file():
        corpus = open_corpus(kept)  # built by an earlier run with --corpus: searches only
        with corpus.store.engine.connect() as conn:
            ids = dict(conn.execute(select(record.c.native_id, record.c.norm_id)).all())
        print(f"\n(the corpus built earlier in {kept}; {len(dense.vectors_of(corpus.store)):,} "
              "vectors)")
    else:
        corpus = init_corpus(kept or folder / "real", None)
        started = time.monotonic()
        ids = load_norms(corpus, norms)
        indexed = time.monotonic() - started
        set_search_dense(corpus.folder, True)
        embedded, seconds = _fill(corpus.store)
        rate = embedded / seconds
        print(f"\nBuild: stored and indexed (Tantivy) in {indexed:.1f} s; embedded "
              f"{embedded:,} norms in {seconds:.1f} s: {rate:.1f} norms/s on one process, so "
              f"1M norms take {1e6 / rate / 3600:.1f} h of one core (built in the background "
              f"by the refreshes, {dense.FILL_SECONDS:.0f} s of each)")
    names = {norm_id: name for name, norm_id in ids.items()}
    groups: dict[str, dict[bool, list[dict]]] = {"all": {False: [], True: []}}
    times: dict[bool, list[float]] = {False: [], True: []}
    worst: list[tuple[float, str]] = []
    for query in queries:
        judged = query["judged"]
        meant = {name for name, grade in judged.items() if grade >= 2}
        request = SearchRequest.from_params({"q": [query["q"]], "limit": [str(K)]})
        rows = {}
        for on in (False, True):
            search(corpus.store, request, use_dense=on)  # warm
            for _ in range(3):
                started = time.perf_counter()
                result = search(corpus.store, request, use_dense=on)
                times[on].append(time.perf_counter() - started)
            ranked = [names[h.norm_id] for h in result.hits]
            rows[on] = _measures(ranked, judged, meant)
            groups["all"][on].append(rows[on])
            groups.setdefault(query["group"], {False: [], True: []})[on].append(rows[on])
        worst.append((rows[True]["rr"] - rows[False]["rr"], query["q"]))
    _table("MRR and top 10 of the norm meant (grade 2)", groups)
    worst.sort()
    print("\nQueries the dense stage moved most (RR with − RR without): worst "
          + "; ".join(f"{q!r} {d:+.2f}" for d, q in worst[:5]) + " — best "
          + "; ".join(f"{q!r} {d:+.2f}" for d, q in worst[-5:]))
    off, on = _percentiles(times[False]), _percentiles(times[True])
    print(f"\nSearch latency over the real set's queries ({len(times[False])} searches each), "
          f"ms p50 / p95: BM25 alone {off[0]:.1f} / {off[1]:.1f}; BM25 + dense {on[0]:.1f} / "
          f"{on[1]:.1f}; ratio of p95 {_ratio(on[1], off[1])}")
    corpus.close()


def _percentiles(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return (1000 * ordered[len(ordered) // 2],
            1000 * ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)])


def at_scale(folder: Path, size: int) -> None:
    """The stage's part of a search over `size` vectors in the on-disk format."""
    target = folder / "scale" / dense.FOLDER
    rng = np.random.default_rng(7)
    with dense._Writing(target) as w:
        step = 100_000
        for start in range(0, size, step):
            n = min(step, size - start)
            vectors = rng.standard_normal((n, dense.DIM), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            codes = rng.choice([2910800, 3302700, 3550308, 2927408], n).astype(np.int32)
            w.add(np.arange(start, start + n), codes, np.zeros(n, np.int64), vectors)
        w.merge()
    vectors = dense.Vectors(target)
    started = time.monotonic()
    held = len(vectors)
    loaded = time.monotonic() - started
    memory = sum(s.vectors.nbytes + s.ids.nbytes + s.codes.nbytes + s.digests.nbytes
                 for s in vectors.segments())
    queries = ["lei que proíbe soltar fogos", "meia passagem de ônibus para estudante",
               "estacionamento rotativo", "feriados municipais", "fila preferencial",
               "imposto sobre imóveis", "poda de árvores", "horário do comércio"] * 4
    embedding, unfiltered, filtered = [], [], []
    for q in queries:
        started = time.perf_counter()
        vector = dense.embed([q])[0]
        embedding.append(time.perf_counter() - started)
        started = time.perf_counter()
        vectors.nearest(vector, 200)
        unfiltered.append(time.perf_counter() - started)
        started = time.perf_counter()
        vectors.nearest(vector, 200, ufs=("BA",))
        filtered.append(time.perf_counter() - started)
    size_on_disk = sum(p.stat().st_size for p in target.iterdir())
    print(f"\n## The dense stage over {held:,} vectors ({dense.DIM} dimensions; "
          f"{size_on_disk / 2**30:.2f} GiB on disk as float16, read in {loaded:.1f} s, "
          f"{memory / 2**30:.2f} GiB in memory as float32)\n")
    print("| part of a search | p50 ms | p95 ms |")
    print("|---|---|---|")
    for name, seconds in (("embed the query", embedding),
                          ("nearest 200 over every vector", unfiltered),
                          ("nearest 200 within a UF", filtered)):
        p50, p95 = _percentiles(seconds)
        print(f"| {name} | {p50:.1f} | {p95:.1f} |")
    del vectors
    # What fewer dimensions (a projection of the vectors, not built) would cost: the bare
    # product and top-k over as many float32 rows.
    for dims in (256, 128):
        matrix = rng.standard_normal((held, dims), dtype=np.float32)
        query = rng.standard_normal(dims, dtype=np.float32)
        seconds = []
        for _ in range(len(queries)):
            started = time.perf_counter()
            scores = matrix @ query
            np.argpartition(-scores, 200)[:200]
            seconds.append(time.perf_counter() - started)
        p50, p95 = _percentiles(seconds)
        print(f"| product + top 200 at {dims} dimensions (not built) | {p50:.1f} | {p95:.1f} |")
        del matrix


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=ROOT / "tests" / "data" / "search_real",
                        help="a folder with norms.jsonl.gz and queries.jsonl")
    parser.add_argument("--million", type=int, default=1_000_000, metavar="N",
                        help="vectors for the scale figures (0: none)")
    parser.add_argument("--skip-old", action="store_true", help="not the old set")
    parser.add_argument("--corpus", type=Path, metavar="DIR",
                        help="build the real set's corpus here and keep it; if it is there "
                             "already, only search it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="locleg-dense-") as folder:
        if not args.skip_old:
            old_set(Path(folder))
        if (args.real / "queries.jsonl").is_file():
            real_set(Path(folder), args.real, args.corpus)
        else:
            print(f"\n(no real set at {args.real})")
        if args.million:
            at_scale(Path(folder), args.million)


if __name__ == "__main__":
    main()
