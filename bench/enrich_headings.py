"""Heading figures: how well and how fast the heading of a first page is read.

1. Precision and recall of the type, number, date and year read from the labelled first pages
   (`tests/heading_cases.py`, the set the tests assert on), and pages per second on one
   core, against the cheapest reader conceivable measured in the same run: one regular
   expression searched over the same top of each page.
2. --ocr N: the same precision and recall on real tesseract output: N labelled pages printed
   as 200-dpi scans (clean, faded, worn in turn), OCRed by the project's adapter, then read.
3. --reread N: N headings printed small (6-8 pt) on randomly damaged 200-dpi scans; for those
   whose number OCR misread as a near match of the truth, the share a second reading of the
   heading region recovers at 300, 400 and 500 dpi, and its cost; the same region read again
   at 200 dpi is the control (what cropping alone does).

    .venv/bin/python bench/enrich_headings.py [--ocr 45] [--reread 400]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import Counter

from extract_common import ROOT, load_note, row, texts_per_second
from locleg.enrich.heading import looks_like_ocr, read_heading
from locleg.enrich.reread import REREAD_DPIS, reread_heading
from locleg.extract import extract
from locleg.fixtures.documents import image_pdf

sys.path.insert(0, str(ROOT))  # the labelled cases are test data, under tests/
from tests.heading_cases import (  # noqa: E402
    TODAY,
    HeadingCase,
    heading_cases,
    random_print,
    scanned_first_page,
)

FIELDS = ("type", "number", "date", "year")
TARGET_PAGES_S = 2000
# The cheapest reader conceivable: one search for "TYPE Nº digits" in the top of the page.
_REFERENCE = re.compile(r"(?im)^\W*(?:lei|decreto|resolu\w+|portaria)\b[^\n]{0,40}?n\W{0,3}\d")


def _fields(case_expected, heading) -> tuple[dict, dict]:
    want = {f: getattr(case_expected, f) if case_expected else None for f in FIELDS}
    got = {f: getattr(heading, f) if heading else None for f in FIELDS}
    return want, got


def _score(pairs: list[tuple[dict, dict]]) -> dict[str, tuple[float, float, int]]:
    """Per field: precision, recall and the count of values to read."""
    out = {}
    for field in FIELDS:
        right = wrong = missed = 0
        for want, got in pairs:
            w, g = want[field], got[field]
            if g is not None and g == w:
                right += 1
            elif g is not None:
                wrong += 1
            if w is not None and g != w:
                missed += 1
        precision = right / (right + wrong) if right + wrong else 1.0
        recall = right / (right + missed) if right + missed else 1.0
        out[field] = (precision, recall, right + missed)
    return out


def _print_scores(title: str, pairs: list[tuple[dict, dict]]) -> None:
    print(title)
    row("field", "values", "precision", "recall")
    for field, (precision, recall, total) in _score(pairs).items():
        row(field, str(total), f"{precision:.3f}", f"{recall:.3f}")


def labelled(cases: list[HeadingCase]) -> None:
    pairs, wrong = [], []
    for case in cases:
        heading = read_heading(case.text, TODAY)
        want, got = _fields(case.expected, heading)
        pairs.append((want, got))
        if want != got:
            wrong.append(f"{case.name}: read {got}, truth {want}")
    kinds = Counter(case.kind for case in cases)
    print(f"Labelled first pages: {len(cases)} "
          f"({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    _print_scores("  reading of the text as extracted (text layers and simulated OCR noise)",
                  pairs)
    for line in wrong:
        print(f"  wrong: {line}")


def speed(cases: list[HeadingCase]) -> None:
    texts = [case.text for case in cases]
    mean = sum(map(len, texts)) / len(texts)
    ours = texts_per_second(texts, lambda t: read_heading(t, TODAY))
    reference = texts_per_second(texts, lambda t: _REFERENCE.search(t[:4000]))
    print(f"Speed on one core, {len(texts)} pages of {mean:,.0f} characters on average")
    row("", "pages/s", "reference", "ratio", "target")
    row("read_heading", f"{ours:,.0f}", f"{reference:,.0f}", f"{ours / reference:.2f}",
        f"≥ {TARGET_PAGES_S:,}")
    # The worst case: no heading and no first article to stop at, the whole top is read.
    tables = ["\n".join(f"{i} | Ciclovia da Avenida {i} | {2017 + i % 5} | R$ {i},00 | nº {i}"
                        for i in range(80))] * 50
    worst = texts_per_second(tables, lambda t: read_heading(t, TODAY))
    row("  worst case: a table page, nothing to stop at", f"{worst:,.0f}", "", "", "")


def real_ocr(cases: list[HeadingCase], count: int) -> None:
    rng = random.Random(9)
    chosen = rng.sample([c for c in cases if c.text], count)
    qualities = ("clean", "faded", "worn")
    pairs: dict[str, list] = {q: [] for q in qualities}
    wrong = []
    start = time.perf_counter()
    for index, case in enumerate(chosen):
        quality = qualities[index % 3]
        page = scanned_first_page(case.text, 200, quality, seed=index)
        text = extract(image_pdf([page])).pages[0].text
        heading = read_heading(text, TODAY)
        want, got = _fields(case.expected, heading)
        pairs[quality].append((want, got))
        if want != got:
            printed = heading.lines if heading else "no heading"
            wrong.append(f"{quality} {case.name}: OCR printed {printed}, read "
                         f"{[got[f] for f in FIELDS]}, truth {[want[f] for f in FIELDS]}")
    seconds = time.perf_counter() - start
    print(f"Real OCR: {count} labelled pages printed as 200-dpi scans, tesseract, then read "
          f"({seconds / count:.2f} s per page, OCR included)")
    for quality in qualities:
        _print_scores(f"  {quality} print, {len(pairs[quality])} pages", pairs[quality])
    _print_scores(f"  all {count} pages", [p for q in qualities for p in pairs[q]])
    for line in wrong:
        print(f"  wrong: {line}")


_REREAD_PAGE = (
    "MUNICÍPIO DE JUAZEIRO\nESTADO DA BAHIA\nGABINETE DO PREFEITO\nLEI Nº {number}, DE 02 DE "
    "ABRIL DE 2014\nDispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do Município."
    "\nO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições legais,\n"
    "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:\nArt. 1º Fica "
    "instituído o serviço de moto-táxi."
)


def reread(count: int, seed: int, dpis: tuple[int, ...] = (200, 300, 400, 500)) -> None:
    """200 dpi is the control: the same region read again at the scan's own resolution."""
    rng = random.Random(seed)
    outcome: Counter = Counter()
    recovered: Counter = Counter()
    spent: Counter = Counter()
    first_pass = 0.0
    for index in range(count):
        number = f"{rng.randrange(1, 9)}.{rng.randrange(0, 999):03d}"
        size = rng.choice([6, 7, 8])
        page = scanned_first_page(_REREAD_PAGE.format(number=number), 200, random_print(rng),
                                  seed=index, size_pt=size)
        pdf = image_pdf([page])
        start = time.perf_counter()
        heading = read_heading(extract(pdf).pages[0].text, TODAY)
        first_pass += time.perf_counter() - start
        truth = number.replace(".", "")
        if heading is None or heading.number is None:
            outcome["no number read"] += 1
            continue
        if heading.number == truth:
            outcome["right"] += 1
            continue
        if not looks_like_ocr(heading.number_printed or heading.number, truth):
            outcome["misread, far"] += 1
            continue
        outcome["misread, near"] += 1
        found = set()
        for dpi in dpis:
            start = time.perf_counter()
            again = reread_heading(pdf, 1, heading, dpi=dpi, today=TODAY).heading
            spent[dpi] += time.perf_counter() - start
            if again is not None and again.number == truth:
                recovered[dpi] += 1
                found.add(dpi)
        if found & set(REREAD_DPIS):
            recovered["any"] += 1
    near = outcome["misread, near"]
    print(f"Re-reading: {count} small headings (6-8 pt) on damaged 200-dpi scans; first "
          f"reading {first_pass / count:.2f} s per page (full page OCR)")
    print("  " + ", ".join(f"{k}: {v}" for k, v in sorted(outcome.items())))
    row("second reading of the heading region", "recovered", "share", "s per reread")
    for dpi in dpis:
        share = recovered[dpi] / near if near else 0.0
        label = f"  at {dpi} dpi" + (" (the scan's own resolution)" if dpi == 200 else "")
        row(label, f"{recovered[dpi]} of {near}", f"{share:.0%}",
            f"{spent[dpi] / near:.2f}" if near else "")
    if near:
        row(f"  at any of {', '.join(map(str, REREAD_DPIS))} dpi (what settle() tries)",
            f"{recovered['any']} of {near}", f"{recovered['any'] / near:.0%}", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--ocr", type=int, default=45, help="pages for real OCR (0: none)")
    parser.add_argument("--reread", type=int, default=0, help="damaged scans to re-read")
    parser.add_argument("--seed", type=int, default=21, help="of the damaged scans")
    args = parser.parse_args()
    cases = heading_cases()
    labelled(cases)
    speed(cases)
    if args.ocr:
        real_ocr(cases, args.ocr)
    if args.reread:
        reread(args.reread, args.seed)


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
