"""Search index: build time and size, and the cost of keeping it in step, per changed norm.

Reads what bench/explorer_corpus.py recorded when it built the N-norm corpus (the whole
index built from the database by rebuild_index: seconds and bytes), then measures on that
corpus, in process, what an import or a harvest costs the index afterwards: K norms whose
ementa changed in the database (the triggers queue them) refreshed at once, and a single
changed norm (one refresh: its batch, one commit, the counts of its jurisdiction). The
ementas are put back afterwards (and refreshed again). The reference is the build's own
cost per norm, in the same corpus.

With --baseline-tree and --baseline-corpus, the same measurement runs with that checkout's
code (its src/ first on the path) on its copy of the corpus, in the same run.

    .venv/bin/python bench/search_index.py --norms 1000000 [--changed 1000]
        [--baseline-tree ../wt-base --baseline-corpus ../wt-base/bench/out/explorer-1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = " (bench)"


def incremental(folder: Path, changed: int, seed: int = 11) -> dict:
    """Seconds to refresh `changed` norms changed at once, and one norm alone."""
    from sqlalchemy import bindparam, text

    from locleg.corpus import open_corpus
    from locleg.search import refresh_index

    corpus = open_corpus(folder)
    store = corpus.store
    refresh_index(store)  # start from an index in step
    with store.engine.connect() as conn:
        top = conn.scalar(text("SELECT max(id) FROM norm"))
    rng = random.Random(seed)
    ids = sorted(rng.sample(range(1, top + 1), changed + 1))
    single, many = ids[0], ids[1:]

    def touch(norm_ids: list[int], back: bool = False) -> None:
        change = ("substr(ementa, 1, length(ementa) - :n)" if back
                  else "ementa || :mark")
        with store.engine.begin() as conn:
            conn.execute(text(f"UPDATE norm SET ementa = {change} WHERE id IN :ids")
                         .bindparams(bindparam("ids", expanding=True)),
                         {"ids": norm_ids, "mark": MARK, "n": len(MARK)})

    figures = {}
    try:
        touch(many)
        started = time.monotonic()
        report = refresh_index(store)
        figures["many_s"] = time.monotonic() - started
        figures["many_norms"] = report.norms
        touch([single])
        started = time.monotonic()
        refresh_index(store)
        figures["single_s"] = time.monotonic() - started
    finally:
        touch(ids, back=True)
        refresh_index(store)
        corpus.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=1000)
    parser.add_argument("--baseline-tree", type=Path)
    parser.add_argument("--baseline-corpus", type=Path)
    parser.add_argument("--incremental-only", type=Path, metavar="CORPUS",
                        help=argparse.SUPPRESS)  # the baseline's run, answering JSON
    args = parser.parse_args()
    if args.incremental_only:
        print(json.dumps(incremental(args.incremental_only, args.changed)))
        return
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT / "src"))
    from explorer_corpus import build, corpus_folder

    folder = build(args.norms, corpus_folder(args.norms))
    built = json.loads((folder / "built.json").read_text())
    ours = incremental(folder, args.changed)
    theirs = None
    if args.baseline_tree is not None:
        out = subprocess.run(
            [sys.executable, __file__, "--incremental-only", str(args.baseline_corpus),
             "--changed", str(args.changed)], check=True, capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(args.baseline_tree.resolve() / "src")})
        theirs = json.loads(out.stdout.strip().splitlines()[-1])
    n = built["norms"]
    per_norm_build = built["tantivy_index_s"] / n
    print(f"\nSearch index of {n:,} norms (bench/explorer_corpus.py), SQLite; "
          f"{args.changed:,} norms changed at once, then one\n")
    print("| figure | this checkout | per norm | × build per norm |"
          + (" baseline | per norm |" if theirs else ""))
    print("|---|---|---|---|" + ("---|---|" if theirs else ""))
    print(f"| build (rebuild_index, whole corpus) | {built['tantivy_index_s']:,} s | "
          f"{per_norm_build * 1000:.2f} ms | 1.00 |"
          + (f" {built.get('index_s', '—')} s (FTS5) | |" if theirs else ""))
    print(f"| index size | {built['index_bytes'] / 1e9:.2f} GB | "
          f"{built['index_bytes'] / n:,.0f} B | |" + (" | |" if theirs else ""))
    many = ours["many_s"] / args.changed
    print(f"| refresh of {args.changed:,} changed norms | {ours['many_s']:.2f} s | "
          f"{many * 1000:.2f} ms | {many / per_norm_build:.2f} |"
          + (f" {theirs['many_s']:.2f} s | {theirs['many_s'] / args.changed * 1000:.2f} ms |"
             if theirs else ""))
    print(f"| refresh of 1 changed norm | {ours['single_s'] * 1000:.0f} ms | "
          f"{ours['single_s'] * 1000:.0f} ms | {ours['single_s'] / per_norm_build:.0f} |"
          + (f" {theirs['single_s'] * 1000:.0f} ms | |" if theirs else ""))
    print(f"\ndatabase {built['db_bytes'] / 1e9:.1f} GB; corpus written in {built['load_s']:,} s")


if __name__ == "__main__":
    main()
