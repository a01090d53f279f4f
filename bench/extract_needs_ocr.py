"""Needs-OCR figure: accuracy per page of the per-page OCR decision on the labelled set.

The set is `samples.needs_ocr_cases()`, the one the tests assert on: clean born-digital pages
(also over a background image and with ruled tables), scans (with a stamped page number),
scans under a good invisible OCR layer, under a garbage one, a font without a character map,
a law with a scanned annex, near-empty pages and text drawn as vector outlines. The decision
is timed too: it is paid on every page of the corpus.

    .venv/bin/python bench/extract_needs_ocr.py
"""

from __future__ import annotations

import time
from collections import defaultdict

from extract_common import load_note, row
from locleg.extract import extract
from locleg.samples import needs_ocr_cases


def main() -> None:
    cases = needs_ocr_cases()
    right: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    wrong: list[str] = []
    start = time.perf_counter()
    for case in cases:
        result = extract(case.data, ocr="never")  # the decision alone, no OCR
        decided = [p.method == "none" for p in result.pages]
        for number, (got, want) in enumerate(zip(decided, case.needs_ocr, strict=True), 1):
            total[case.kind] += 1
            right[case.kind] += got == want
            if got != want:
                wrong.append(f"{case.name}, page {number}: decided {got}, truth {want}")
    seconds = time.perf_counter() - start
    pages = sum(total.values())
    print(f"Needs-OCR decision: {pages} labelled pages in {len(cases)} PDFs")
    row("kind", "pages", "right", "accuracy")
    for kind in sorted(total):
        row(kind, str(total[kind]), str(right[kind]), f"{right[kind] / total[kind]:.0%}")
    all_right = sum(right.values())
    row("all", str(pages), str(all_right), f"{all_right / pages:.1%}")
    for line in wrong:
        print(f"  wrong: {line}")
    print(f"  {seconds / pages * 1000:.1f} ms per page for reading the layer and deciding")
    print("  target: 100 % on this set")


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
