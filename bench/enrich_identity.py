"""Same-norm matching on the labelled record pairs (tests/identity_pairs.py).

Writes the records as their sources would into a fresh corpus (folder records with their
first page's text), lets the store and the enrichment merge them, and scores "same norm" over
every labelled pair. Reference in the same run: the naive rule (records are one norm when
their raw type, number and year strings are equal).

    .venv/bin/python bench/enrich_identity.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.identity_pairs import load_into, pairs, records, scores  # noqa: E402

from locleg.corpus import init_corpus  # noqa: E402

TARGET_PRECISION, TARGET_RECALL = 0.99, 0.97


def main() -> None:
    found = records()
    labelled = pairs(found)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = init_corpus(Path(tmp) / "corpus")
        started = time.perf_counter()
        norm_ids = load_into(corpus, found)
        seconds = time.perf_counter() - started
        corpus.close()
    precision, recall, true_pairs, total = scores(found, norm_ids)
    naive = [hash((w.jurisdiction, w.type_raw, w.number, w.year)) for w in found]
    n_precision, n_recall, _, _ = scores(found, naive)
    print(f"{len(found)} records, {total} labelled pairs ({true_pairs} of one norm); "
          f"written, merged and enriched in {seconds:.1f} s")
    print(f"  ours:  precision {precision:.3f}  recall {recall:.3f}  "
          f"(targets {TARGET_PRECISION} / {TARGET_RECALL})")
    print("  naive: " + (f"precision {n_precision:.3f}  recall {n_recall:.3f}" if n_recall
                         else "merges no pair (recall 0)")
          + " (equal raw type, number and year strings)")
    misses = [(found[a], found[b]) for a, b, same in labelled
              if same and norm_ids[a] != norm_ids[b]]
    for a, b in misses:
        print(f"  not merged: {a.type_raw} {a.number}/{a.year} ({a.source}) and "
              f"{b.type_raw} {b.number}/{b.year} ({b.source})")


if __name__ == "__main__":
    main()
