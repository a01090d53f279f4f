"""Enrichment throughput over the explorer bench corpus, and what a later run re-reads.

Builds (or reuses) bench/out/explorer-N (bench/explorer_corpus.py: municipal-shaped texts with
a heading, a preamble citing the Lei Orgânica and a federal law, revocations and decrees that
regulate laws), queues every norm, and runs `locleg.enrich.run.enrich` in this one process
(one core), the OCR re-read off (no original is an image here). Reference in the same run: the
citation extractor alone over the same texts (pure CPU), so the ratio says what the store's
reads and writes cost on top. Then 1 % of the norms get a new text and the next run must read
those only. --no-ementa: the records have no ementa (a LAI dump), so each norm's is read
from its text (issue 21).

    .venv/bin/python bench/enrich.py --norms 100000 [--no-ementa]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import explorer_corpus  # noqa: E402
from locleg.corpus import open_corpus  # noqa: E402
from locleg.enrich.citations import find_citations  # noqa: E402
from locleg.enrich.run import enrich, pending  # noqa: E402

TARGET = 2000  # norms per second on one core


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--sample", type=int, default=5000,
                        help="norms whose texts the reference reads")
    parser.add_argument("--no-ementa", action="store_true",
                        help="records without an ementa (a LAI dump): each is read from the text")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    source = explorer_corpus.build(args.norms, explorer_corpus.corpus_folder(args.norms))
    # A copy: enrichment writes, and the explorer bench wants its corpus as built.
    folder = source.parent / f"enrich-{args.norms}"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(source, folder)
    corpus = open_corpus(folder)
    try:
        store = corpus.store
        with store.engine.begin() as conn:
            conn.exec_driver_sql("DELETE FROM enrich_queue")
            conn.exec_driver_sql("INSERT INTO enrich_queue (norm_id) SELECT id FROM norm")
            if args.no_ementa:
                conn.exec_driver_sql("UPDATE record SET ementa = NULL")
        queued = pending(corpus)
        cpu, wall = time.process_time(), time.perf_counter()
        report = enrich(corpus, reread=False)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rate = report.norms / wall
        print(f"enrichment of {report.norms:,} norms ({queued:,} queued): {wall:,.1f} s wall, "
              f"{cpu:,.1f} s CPU = {rate:,.0f} norms/s ({report.norms / cpu:,.0f} per CPU s; "
              f"target {TARGET:,}); {report.headings:,} headings, {report.ementas:,} ementas "
              f"read from the text, {report.citations:,} citations, {report.resolved:,} "
              "resolved")
        with store.engine.connect() as conn:
            texts = [t for (t,) in conn.exec_driver_sql(
                "SELECT text FROM page WHERE number = 1 ORDER BY version_id LIMIT ?",
                (args.sample,))]
            statuses = dict(conn.exec_driver_sql(
                "SELECT status, count(*) FROM norm GROUP BY status").fetchall())
        started, started_cpu = time.perf_counter(), time.process_time()
        for text in texts:
            find_citations(text)
        reference = len(texts) / (time.perf_counter() - started)
        reference_cpu = len(texts) / (time.process_time() - started_cpu)
        # Both clocks: on a shared machine the wall ratio swings with the load, the CPU one less.
        print(f"reference, citations alone over {len(texts):,} first pages: {reference:,.0f} "
              f"pages/s wall, {reference_cpu:,.0f} per CPU s; enrichment/reference "
              f"{rate / reference:.2f} wall, {report.norms / cpu / reference_cpu:.2f} CPU")
        print(f"status: {statuses}")
        # A later run: 1 % of the norms got a new text.
        with store.engine.connect() as conn:
            ids = [i for (i,) in conn.exec_driver_sql("SELECT version_id FROM extraction "
                                                      "WHERE status = 'extracted'")]
        changed = random.Random(5).sample(ids, max(1, len(ids) // 100))
        with store.engine.begin() as conn:
            for version_id in changed:
                conn.exec_driver_sql("UPDATE extraction SET extracted_at = CURRENT_TIMESTAMP "
                                     "WHERE version_id = ?", (version_id,))
        wall = time.perf_counter()
        again = enrich(corpus, reread=False)
        wall = time.perf_counter() - wall
        print(f"later run after {len(changed):,} texts changed: {again.norms:,} norms read "
              f"again in {wall:,.1f} s (the rest untouched)")
    finally:
        corpus.close()


if __name__ == "__main__":
    main()
