"""Text-layer figure: pages/s of our whole extraction of born-digital PDFs against pdftotext.

Ours is `locleg.extract.extract` on the bytes of each file: sniffing, pypdfium2 per page,
the per-page OCR decision (dictionary and garbage checks), normalization. The reference is
poppler's `pdftotext` run on each file, as a user would run it. Both on one core, on the
same 200-page set (20 documents of 10 pages), median of 3 runs.

    .venv/bin/python bench/extract_text_layer.py [--pages 200]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from extract_common import law_pages, load_note, median_time, row
from locleg.extract import extract
from locleg.fixtures.documents import text_pdf


def build(folder: Path, pages: int, per_document: int = 10) -> list[Path]:
    texts = law_pages(pages, chars=2260)
    files = []
    for n in range(0, pages, per_document):
        path = folder / f"lei-{n // per_document:03d}.pdf"
        # Laid out line by line at the reference density (~2,260 characters a page).
        lines = [[piece for para in page for piece in _wrap(para)] for page in
                 texts[n:n + per_document]]
        path.write_bytes(text_pdf(lines))
        files.append(path)
    return files


def _wrap(paragraph: str, width: int = 95) -> list[str]:
    out, line = [], ""
    for word in paragraph.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return out + ([line] if line else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="locleg-bench-text-"))
    files = build(folder, args.pages)
    blobs = [f.read_bytes() for f in files]
    results = [extract(b) for b in blobs]
    pages = sum(len(r.pages) for r in results)
    assert all(r.method == "text" for r in results), "every page must be read from its layer"
    chars = sum(r.chars for r in results) / pages

    def ours() -> None:
        for data in blobs:
            extract(data)

    def pdftotext() -> None:
        for path in files:
            subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True,
                           stdout=subprocess.DEVNULL)

    ours_s = median_time(ours)
    ref_s = median_time(pdftotext)
    version = subprocess.run(["pdftotext", "-v"], capture_output=True, text=True).stderr.split(
        "\n")[0]
    print(f"Text layer: {pages} born-digital pages in {len(files)} PDFs, {chars:,.0f} "
          f"characters a page, one core, median of 3 runs")
    row("", "pages/s", "ms/page")
    row("locleg extract (pypdfium2 + checks)", f"{pages / ours_s:,.0f}",
        f"{ours_s / pages * 1000:.2f}")
    row(f"reference: {version}", f"{pages / ref_s:,.0f}", f"{ref_s / pages * 1000:.2f}")
    print(f"  ratio ours / pdftotext: {ref_s / ours_s:.2f}  (target ≥ 0.5, aim 0.8)")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
