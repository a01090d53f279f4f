"""Cluster overhead: the mixed corpus of extract_mixed_corpus.py (70 % born-digital, 30 %
scanned) extracted on a local Dask cluster of 1 and 2 worker processes against today's local
pool of 1 and 2 workers, in the same run (target: cluster overhead ≤ 10 %).

Each of the four measures runs in a fresh Python process, so that each starts as a user's
command does: no forkserver left running by an earlier measure (the local pool's children,
and each Dask worker's, come from a forkserver that loads the extractors once per process).
A cluster is a running service: it is started before its runs and not timed. Each process
extracts the whole set twice: the first run (cold) pays the forkserver's start inside the
run, on the local machine and on every Dask worker; the second (warm) is what every later
run on the same workers costs.

    .venv/bin/python bench/extract_cluster.py [--documents 20]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from extract_common import corpus_with, load_note, row
from extract_mixed_corpus import build
from locleg.corpus import open_corpus
from locleg.extract.cluster import connect
from locleg.extract.run import extract_versions


def _twice(corpus, **how) -> list[float]:
    seconds = []
    for _ in range(2):
        report = extract_versions(corpus, None, **how)
        assert report.by_status == {"extracted": report.documents}, report.by_status
        seconds.append(report.seconds)
    return seconds


def measure(mode: str, workers: int, folder: Path) -> list[float]:
    """In this process: the cold and the warm run of one mode."""
    corpus = open_corpus(folder)
    try:
        if mode == "local":
            return _twice(corpus, workers=workers)
        from distributed import LocalCluster

        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address=None) as local, \
                connect(local.scheduler_address) as cluster:
            return _twice(corpus, cluster=cluster)
    finally:
        corpus.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20)
    parser.add_argument("--measure", nargs=3, metavar=("MODE", "WORKERS", "CORPUS"),
                        help=argparse.SUPPRESS)  # one measure, in a child process
    args = parser.parse_args()
    if args.measure:
        mode, workers, folder = args.measure
        print(json.dumps(measure(mode, int(workers), Path(folder))))
        return
    print(f"({load_note()}, before the run)")
    folder = Path(tempfile.mkdtemp(prefix="locleg-bench-cluster-"))
    corpus_with(build(args.documents), folder).close()
    times = {}
    for workers in (1, 2):
        for mode in ("local", "cluster"):
            child = subprocess.run(
                [sys.executable, __file__, "--measure", mode, str(workers),
                 str(folder / "corpus")],
                check=True, capture_output=True, text=True)
            times[mode, workers] = json.loads(child.stdout.strip().splitlines()[-1])
    corpus = open_corpus(folder / "corpus")
    with corpus.store.engine.connect() as conn:
        pages = conn.exec_driver_sql("SELECT count(*) FROM page").scalar()
    corpus.close()
    shutil.rmtree(folder, ignore_errors=True)
    print(f"Mixed corpus: {args.documents} documents ({pages} pages), 70 % born-digital, "
          "30 % scanned at 200 dpi")
    row("", "run", "local pool s", "Dask cluster s", "overhead")
    for workers in (1, 2):
        for n, run in enumerate(("cold", "warm")):
            local, cluster = times["local", workers][n], times["cluster", workers][n]
            row(f"{workers} worker process{'es' if workers > 1 else ''}", run, f"{local:.1f}",
                f"{cluster:.1f}", f"{(cluster / local - 1) * 100:+.1f} %")
    print("  target: cluster overhead ≤ 10 %")
    print(f"({load_note()}, after the run)")


if __name__ == "__main__":
    main()
