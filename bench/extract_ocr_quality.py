"""OCR quality figure: character and word error rates against the printed text, and how the
confidence we record tracks word accuracy, on synthetic scans of law pages at several qualities.

Each page is printed from known lines, so the ground truth is exact.

1. Municipal scans (`documents.municipal_scan`): 200 dpi grayscale stored as JPEG in a PDF,
   faded and dotted print, a ruled table, a PROTOCOLO stamp over the signature, the heading
   "LEI MUNICIPAL Nº 1.167, DE 02 DE ABRIL DE 2014"; and a 150-dpi blurred one. Each page is
   read three ways in the same run: at the scan's own resolution, rendered by pdfium at 300
   dpi, and at its own resolution resampled to 300 dpi with Lanczos (the pipeline's way).
   Then the same page damaged (a stain over Art. 2, two table rows faded away): the
   confidence against the real share of words read.
2. Law pages (`documents.scanned_page`): 300 dpi clean, 200 dpi, 150 dpi blurred, 200 dpi
   rotated 1.5° (a crooked feed), and 100 dpi blurred, through the pipeline.
3. Text layers of known quality against the text-layer confidence.

    .venv/bin/python bench/extract_ocr_quality.py [--pages 4] [--scans 4]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time

import pypdfium2 as pdfium
from PIL import Image

from extract_common import error_rates, law_pages, load_note, row
from locleg.extract import extract, ocr
from locleg.extract.lexicon import assess
from locleg.extract.normalize import normalize_text
from locleg.fixtures.documents import (
    MUNICIPAL_HEADING,
    image_pdf,
    jpeg_pdf,
    municipal_scan,
    pdf_without_character_map,
    scanned_lines,
    scanned_page,
    text_pdf,
)

LEVELS = [
    ("300 dpi clean", dict(dpi=300, blur=0.0)),
    ("200 dpi", dict(dpi=200)),
    ("150 dpi blurred", dict(dpi=150, blur=1.0)),
    ("200 dpi rotated 1.5°", dict(dpi=200, rotate=1.5)),
    ("100 dpi blurred", dict(dpi=100, blur=1.0)),
]


MUNICIPAL = [
    ("200 dpi JPEG q65", dict(ink=70, dropout=0.12), 65),
    ("200 dpi faded, dotted, q60", dict(ink=105, dropout=0.3), 60),
    ("200 dpi soft focus, q70", dict(ink=70, dropout=0.12, blur=1.2), 70),
    ("200 dpi faded, soft, q60", dict(ink=120, dropout=0.35, blur=1.0), 60),
    ("150 dpi blurred, q70", dict(dpi=150, ink=70, dropout=0.12, blur=1.3), 70),
]


def _read(data: bytes, dpi: int, way: str) -> tuple[str, float | None]:
    """Page 1 OCRed one way: 'native', 'pdfium 300' or 'pipeline' (extract)."""
    if way == "pipeline":
        result = extract(data)
        return result.text, result.confidence
    pdf = pdfium.PdfDocument(data)
    scale = (dpi if way == "native" else 300) / 72
    image = pdf[0].render(scale=scale, grayscale=True).to_pil()
    pdf.close()
    found = ocr.recognize(image, dpi if way == "native" else 300)
    return normalize_text(found.text), found.confidence


def municipal(scans: int) -> None:
    """CER/WER/confidence of real-looking municipal scans read three ways, and damage."""
    print(f"Municipal scans: {scans} pages per level (JPEG in a PDF, stamp, table); the same "
          "pages read three ways in this run")
    row("level / way", "CER %", "WER %", "no stamp: CER", "WER", "confidence", "heading",
        "s/page")
    ways = (("native", "at the scan's dpi"), ("pdfium 300", "pdfium render at 300"),
            ("pipeline", "own dpi + Lanczos to 300 (ours)"))
    for label, options, quality in MUNICIPAL:
        dpi = options.get("dpi", 200)
        pages = [municipal_scan(seed=n, **options) for n in range(scans)]
        datas = [jpeg_pdf([p.image], quality=quality) for p in pages]
        # The same pages without the stamp: its letters read as junk weigh on every way alike.
        bare = [jpeg_pdf([municipal_scan(seed=n, stamp=False, **options).image],
                         quality=quality) for n in range(scans)]
        print(f"  {label}")
        for way, describe in ways:
            rates: dict[str, list[float]] = {"cer": [], "wer": [], "bare cer": [],
                                             "bare wer": [], "conf": []}
            right = 0
            seconds = 0.0
            for page, data, plain in zip(pages, datas, bare, strict=True):
                truth = normalize_text("\n".join(page.lines))
                start = time.perf_counter()
                text, confidence = _read(data, dpi, way)
                seconds += time.perf_counter() - start
                cer, wer = error_rates(text, truth)
                bare_cer, bare_wer = error_rates(_read(plain, dpi, way)[0], truth)
                for key, value in (("cer", cer), ("wer", wer), ("bare cer", bare_cer),
                                   ("bare wer", bare_wer), ("conf", confidence or 0.0)):
                    rates[key].append(value)
                right += text.startswith(MUNICIPAL_HEADING + "\n")
            mean = {key: statistics.fmean(values) for key, values in rates.items()}
            row(f"  {describe}", f"{100 * mean['cer']:.2f}", f"{100 * mean['wer']:.1f}",
                f"{100 * mean['bare cer']:.2f}", f"{100 * mean['bare wer']:.1f}",
                f"{mean['conf']:.3f}", f"{right}/{scans}", f"{seconds / scans:.2f}")
    print("  Damage: the same 200 dpi page, clean and with a stain over Art. 2 and two table "
          "rows faded away (1 - WER against everything printed)")
    row("page", "confidence", "1 - WER", "ink read")
    for damage in (False, True):
        confs, accuracies, coverages = [], [], []
        for n in range(scans):
            page = municipal_scan(seed=n, damage=damage)
            result = extract(jpeg_pdf([page.image], quality=65))
            truth = normalize_text("\n".join(page.lines + page.damaged))
            accuracies.append(1 - error_rates(result.text, truth)[1])
            confs.append(result.confidence or 0.0)
            found = re.search(r"(\d+)% of the ink read", result.pages[0].detail or "")
            coverages.append(int(found[1]) if found else 100)
        read = (f"{min(coverages)}-{max(coverages)} %" if max(coverages) < 100 else
                "≥ 90 %" if min(coverages) == 100 else f"≥ {min(coverages)} %")
        row("damaged" if damage else "clean", f"{statistics.fmean(confs):.3f}",
            f"{statistics.fmean(accuracies):.3f}", read)


def _pearson(xs: list[float], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def _text_layer(data: bytes) -> tuple[str, float]:
    """Text and confidence of a PDF's text layer (page 1), whatever the OCR decision says."""
    pdf = pdfium.PdfDocument(data)
    raw = pdf[0].get_textpage().get_text_range(errors="replace")
    text = normalize_text(raw)
    return text, assess(raw, text).confidence or 0.0


def text_layers(pages: list[list[str]]) -> None:
    """The text-layer confidence against the real error of layers of known quality."""
    rng = random.Random(5)
    print("Text-layer confidence: min(1, legitimate-token share / 0.9) × max(0, 1 − 10 × garbage "
          "share), against the real error of layers of known quality")
    row("layer", "CER %", "WER %", "confidence", "1 - WER")
    lines = [line[:95] for page in pages for line in page][:40]
    truth = normalize_text("\n".join(lines))

    def junk(share: float) -> list[str]:
        out = []
        for line in lines:
            words = [("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(len(w)))
                      if rng.random() < share else w) for w in line.split()]
            out.append(" ".join(words))
        return out

    layers = [
        ("born-digital", text_pdf([lines])),
        ("font without a character map", pdf_without_character_map([lines])),
        ("earlier OCR, 10 % words wrong", text_pdf([junk(0.10)])),
        ("earlier OCR, 30 % words wrong", text_pdf([junk(0.30)])),
        ("garbage OCR layer", text_pdf([junk(1.0)])),
    ]
    for label, data in layers:
        text, confidence = _text_layer(data)
        cer, wer = error_rates(text, truth)
        row(label, f"{100 * cer:.2f}", f"{100 * wer:.1f}", f"{confidence:.3f}", f"{1 - wer:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=4)
    parser.add_argument("--scans", type=int, default=4)
    args = parser.parse_args()
    ocr.recognize(Image.new("L", (64, 64), 255))  # load the model before timing
    municipal(args.scans)
    pages = law_pages(args.pages)
    print(f"OCR quality: {args.pages} dense law pages per level, tesseract por, our pipeline "
          "(render at the scan's own resolution, resample to 300 dpi, normalize)")
    row("level", "CER %", "WER %", "confidence", "1 - WER")
    confidences: list[float] = []
    accuracies: list[float] = []
    for label, options in LEVELS:
        cers, wers, confs = [], [], []
        for n, lines in enumerate(pages):
            image = scanned_page(lines, seed=n, **options)
            result = extract(image_pdf([image]))
            # The printed lines, with the same dehyphenation as ours: OCR errors only count.
            truth = normalize_text("\n".join(scanned_lines(lines, options["dpi"])))
            cer, wer = error_rates(result.text, truth)
            cers.append(cer)
            wers.append(wer)
            confs.append(result.confidence or 0.0)
        confidences += confs
        accuracies += [1 - w for w in wers]
        row(label, f"{100 * statistics.fmean(cers):.2f}", f"{100 * statistics.fmean(wers):.1f}",
            f"{statistics.fmean(confs):.3f}", f"{1 - statistics.fmean(wers):.3f}")
    print(f"  correlation of page confidence with 1 - WER over {len(confidences)} pages: "
          f"{_pearson(confidences, accuracies):.3f}")
    gaps = [abs(c - a) for c, a in zip(confidences, accuracies, strict=True)]
    print(f"  mean |confidence - (1 - WER)|: {statistics.fmean(gaps):.3f}")
    print("  target: CER ≤ 1 % at 300 dpi clean")
    text_layers(pages)


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
