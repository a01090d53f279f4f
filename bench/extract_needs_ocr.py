"""Needs-OCR figure: accuracy per page of the per-page OCR decision on the labelled set.

The set is `pdf_cases.needs_ocr_cases()`, the one the tests assert on: clean born-digital pages
(also over a background image and with ruled tables), tables of figures and units, decrees
full of codes, lists of names, scans (with a stamped page number), scans under a good
invisible OCR layer, under garbage ones (lower case, capitalized, 30 % misread), a font
without a character map, a law with a scanned annex, near-empty pages and text drawn as
vector outlines. The decision is timed too: it is paid on every page of the corpus. The
margin is the share of legitimate tokens on the worst good layer against the best layer that
needs OCR (pages of 100 characters or more without garbage characters), around the 0.80 threshold.

    .venv/bin/python bench/extract_needs_ocr.py
"""

from __future__ import annotations

import time
from collections import defaultdict

import pypdfium2 as pdfium

from extract_common import load_note, row
from locleg.extract import extract
from locleg.extract.lexicon import assess, dictionary_version, is_word
from locleg.extract.normalize import normalize_text
from locleg.extract.pdf import MAX_GARBAGE, MIN_CHARS, MIN_WORD_SHARE
from locleg.fixtures.pdf_cases import needs_ocr_cases


def _shares(data: bytes) -> list[tuple[int, float | None, float]]:
    """Characters, legitimate-token share and garbage share of each page's text layer."""
    pdf = pdfium.PdfDocument(data)
    out = []
    for page in pdf:
        raw = page.get_textpage().get_text_range(errors="replace")
        quality = assess(raw, normalize_text(raw))
        out.append((quality.chars, quality.word_share, quality.garbage_ratio))
    return out


def main() -> None:
    cases = needs_ocr_cases()
    start = time.perf_counter()
    is_word("lei")  # the dictionary loads once per process, as in a worker
    load_s = time.perf_counter() - start
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
    print(f"  {seconds / pages * 1000:.1f} ms per page for reading the layer and deciding; "
          f"dictionary ({dictionary_version()}) loaded once in {load_s:.2f} s")
    good, bad = [], []
    for case in cases:
        for (chars, share, garbage), want in zip(_shares(case.data), case.needs_ocr,
                                                 strict=True):
            # Pages decided by their character count or their garbage are not the word check's.
            if chars >= MIN_CHARS and share is not None and garbage <= MAX_GARBAGE:
                (bad if want else good).append(share)
    print(f"  margin: worst good layer {min(good):.3f}, best layer needing OCR {max(bad):.3f} "
          f"(threshold {MIN_WORD_SHARE:.2f})")
    print("  target: 100 % on this set")


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
