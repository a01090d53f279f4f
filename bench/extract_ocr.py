"""OCR figures: pages/s against the Debian tesseract CLI, and 2 workers over 1.

1. One core each, the same scanned pages. Ours is `locleg.extract.extract` on a scanned PDF:
   open, find the scan's resolution, render the page (pypdfium2, grayscale, in memory),
   resample it to 300 dpi if it is not (Lanczos), OCR (tesserocr, por), measure the ink
   read, normalize, score. The reference is `tesseract PAGE.png - -l por` with
   OMP_THREAD_LIMIT=1 on the page image at the scan's resolution, already written as PNG (its
   writing is not timed), one process per page as the CLI is used. With --dpi 200 ours reads
   the pages at 300 dpi and the CLI at 200: the ratio then includes the price of resampling.
2. The whole runner (`extract_versions`: worker processes, commits to SQLite) on single-page
   scanned documents with 1 worker, then 2.

    .venv/bin/python bench/extract_ocr.py [--pages 8] [--dpi 300]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from extract_common import corpus_with, law_pages, load_note, row
from locleg.extract import extract
from locleg.extract.ocr import OCR_DPI, backend_version
from locleg.extract.run import extract_versions
from locleg.fixtures.documents import image_pdf, scanned_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--dpi", type=int, default=300)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="locleg-bench-ocr-"))
    images = [scanned_page(lines, args.dpi, seed=n)
              for n, lines in enumerate(law_pages(args.pages))]
    pdfs = [image_pdf([image]) for image in images]
    pngs = []
    for n, image in enumerate(images):
        path = folder / f"page-{n}.png"
        image.save(path)
        pngs.append(path)

    extract(pdfs[0])  # load the model once, as a worker does before its first document
    start = time.perf_counter()
    results = [extract(data) for data in pdfs]
    ours_s = time.perf_counter() - start
    assert all(r.method == "ocr" and r.pages[0].dpi == OCR_DPI for r in results)

    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    start = time.perf_counter()
    for path in pngs:
        subprocess.run(["tesseract", str(path), "-", "-l", "por"], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cli_s = time.perf_counter() - start
    cli_version = subprocess.run(["tesseract", "--version"], capture_output=True,
                                 text=True).stdout.split("\n")[0]

    n = args.pages
    print(f"OCR: {n} dense scanned pages of {args.dpi} dpi (ours read at {OCR_DPI}), one core "
          f"each; ours: tesseract "
          f"{backend_version()}; reference: {cli_version}")
    row("", "pages/s", "s/page")
    row("locleg extract (render + tesserocr)", f"{n / ours_s:.2f}",
        f"{ours_s / n:.2f}")
    row("reference: tesseract CLI, OMP_THREAD_LIMIT=1", f"{n / cli_s:.2f}",
        f"{cli_s / n:.2f}")
    print(f"  ratio ours / tesseract CLI: {cli_s / ours_s:.2f}  (target ≥ 1.0)")

    corpus = corpus_with({f"scan-{i}.pdf": data for i, data in enumerate(pdfs)}, folder / "c")
    rates = {}
    for workers in (1, 2):
        report = extract_versions(corpus, None, workers=workers)
        assert report.by_status == {"extracted": n}, report.by_status
        rates[workers] = report.pages / report.seconds
    corpus.close()
    print(f"Runner: {n} single-page scanned documents, worker processes, commits to SQLite")
    row("", "pages/s")
    for workers, rate in rates.items():
        row(f"extract_versions, {workers} worker{'s' if workers > 1 else ''}", f"{rate:.2f}")
    print(f"  ratio 2 workers / 1: {rates[2] / rates[1]:.2f}  (target ≥ 1.8 on 2 cores)")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
