"""Cluster overhead: the mixed corpus of extract_mixed_corpus.py (70 % born-digital, 30 %
scanned) extracted on a local Dask cluster of 1 and 2 worker processes against today's local
pool of 1 and 2 workers, in the same run (target: cluster overhead ≤ 10 %).

Each cluster is started before its run and not timed (a cluster is a running service); the
workers' child processes start inside the timed run, as the local pool's do.

    .venv/bin/python bench/extract_cluster.py [--documents 20]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from extract_common import corpus_with, load_note, row
from extract_mixed_corpus import build
from locleg.extract_cluster import connect
from locleg.extraction import extract_versions


def _on_cluster(corpus, workers: int) -> float:
    from distributed import LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as local, \
            connect(local.scheduler_address) as cluster:
        report = extract_versions(corpus, None, cluster=cluster)
    assert report.by_status == {"extracted": report.documents}, report.by_status
    return report.seconds


def _local(corpus, workers: int) -> float:
    report = extract_versions(corpus, None, workers=workers)
    assert report.by_status == {"extracted": report.documents}, report.by_status
    return report.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="locleg-bench-cluster-"))
    corpus = corpus_with(build(args.documents), folder)
    times = {}
    for workers in (1, 2):
        times[("local", workers)] = _local(corpus, workers)
        times[("cluster", workers)] = _on_cluster(corpus, workers)
    with corpus.store.engine.connect() as conn:
        pages = conn.exec_driver_sql("SELECT count(*) FROM page").scalar()
    corpus.close()
    shutil.rmtree(folder, ignore_errors=True)
    print(f"Mixed corpus: {args.documents} documents ({pages} pages), 70 % born-digital, "
          "30 % scanned at 200 dpi")
    row("", "local pool s", "Dask cluster s", "overhead")
    for workers in (1, 2):
        local, cluster = times[("local", workers)], times[("cluster", workers)]
        row(f"{workers} worker process{'es' if workers > 1 else ''}", f"{local:.1f}",
            f"{cluster:.1f}", f"{(cluster / local - 1) * 100:+.1f} %")
    print("  target: cluster overhead ≤ 10 %")


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
    print(f"({load_note()}, after the run)")
