"""Mixed-corpus figure: a corpus of 100 documents, 70 % born-digital and 30 % scanned, extracted
by `extract_versions` (worker processes, SQLite) with the per-page decision, against the same
corpus with OCR of every page ("OCR everything", what a pipeline without the decision does).

    .venv/bin/python bench/extract_mixed_corpus.py [--documents 100] [--workers 2]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from extract_common import corpus_with, law_pages, load_note, paragraphs, row
from locleg.extract.run import default_workers, extract_versions
from locleg.fixtures.documents import born_digital_pdf, image_pdf, scanned_page


def build(documents: int) -> dict[str, bytes]:
    pool = paragraphs()
    scanned = round(documents * 0.3)
    files: dict[str, bytes] = {}
    for n in range(documents - scanned):
        # One to three pages each, as municipal laws and decrees are.
        size = 8 + (n % 3) * 14
        chosen = [pool[(n * 5 + k) % len(pool)] for k in range(size)]
        files[f"lei-{n:03d}.pdf"] = born_digital_pdf(f"LEI Nº {n}", chosen)
    for n, lines in enumerate(law_pages(scanned)):
        files[f"scan-{n:03d}.pdf"] = image_pdf([scanned_page(lines, 200, seed=n)])
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100)
    parser.add_argument("--workers", type=int, default=default_workers())
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="locleg-bench-mixed-"))
    corpus = corpus_with(build(args.documents), folder)
    runs = {}
    for mode in ("auto", "always"):
        report = extract_versions(corpus, None, workers=args.workers, ocr=mode)
        assert report.by_status == {"extracted": args.documents}, report.by_status
        with corpus.store.engine.connect() as conn:
            ocr_pages = conn.exec_driver_sql(
                "SELECT count(*) FROM page WHERE method = 'ocr'").scalar()
        runs[mode] = (report.seconds, report.pages, ocr_pages)
    corpus.close()
    shutil.rmtree(folder, ignore_errors=True)
    pages = runs["auto"][1]
    print(f"Mixed corpus: {args.documents} documents ({pages} pages), 70 % born-digital, "
          f"30 % scanned at 200 dpi; {args.workers} workers")
    row("", "seconds", "OCRed pages", "pages/s")
    row("locleg extract (per-page decision)", f"{runs['auto'][0]:.1f}", str(runs["auto"][2]),
        f"{pages / runs['auto'][0]:.1f}")
    row("reference: OCR everything (--ocr always)", f"{runs['always'][0]:.1f}",
        str(runs["always"][2]), f"{pages / runs['always'][0]:.1f}")
    print(f"  ratio OCR everything / ours: {runs['always'][0] / runs['auto'][0]:.1f}×  "
          "(target ≥ 3× faster)")


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
