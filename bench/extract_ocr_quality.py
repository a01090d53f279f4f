"""OCR quality figure: character and word error rates against the printed text, and how the
confidence we record tracks word accuracy, on synthetic scans of law pages at several qualities.

Each page is printed from known lines (`samples.scanned_page`), so the ground truth is exact.
Levels: 300 dpi clean, 200 dpi, 150 dpi blurred, 200 dpi rotated 1.5° (a crooked feed), and
100 dpi blurred to show the confidence falling with the accuracy.

    .venv/bin/python bench/extract_ocr_quality.py [--pages 4]
"""

from __future__ import annotations

import argparse
import random
import statistics

import pypdfium2 as pdfium

from extract_common import error_rates, law_pages, load_note, row
from locleg.extract import extract
from locleg.extract.lexicon import assess
from locleg.extract.normalize import normalize_text
from locleg.samples import (
    image_pdf,
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
    print("Text-layer confidence: min(1, dictionary share / 0.9) × max(0, 1 − 10 × garbage "
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
    args = parser.parse_args()
    pages = law_pages(args.pages)
    print(f"OCR quality: {args.pages} dense law pages per level, tesseract por, our pipeline "
          "(render at the scan's own resolution, normalize)")
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
