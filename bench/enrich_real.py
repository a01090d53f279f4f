"""Headings and ementas read from real texts: the rows the issue-21 targets apply to.

1. tests/data/real_headings/: 413 norms of Feira de Santana (BA), Maricá (RJ), Rio Branco (AC)
   and Tucano (BA) as their publishers print them, labelled by reading: the ementa (share read
   with normalised similarity ≥ 0.9, of the norms whose text prints one; and ementas made up
   where none is printed), the date (of the headings that print one; decrees apart), the
   number and type. Beside them, the generated set (`tests/heading_cases.py`) as before.
2. tests/data/real_scans/: 20 scanned first pages of 5 municipalities (Gurupá and
   Parauapebas, PA; Ananás, TO; Tucano, BA; Vargem Grande do Sul, SP): number and date after
   the extraction's OCR, and after the second reading enrichment gives a heading that
   disagrees with its record or that the page's OCR lost (`reread.settle`: the heading region
   again at 400/300/200 dpi, the page turned upside down when no heading is found, the
   heading's line alone); the 200–300 dpi rows are the target's. The second readings' cost:
   seconds per page that needed them, beside the page's own OCR.
3. Speed on one core: heading and ementa per first page, against the heading alone measured in
   the same run (the ementa's price); enrichment's norms/s is bench/enrich.py's.
4. --damaged N: the line reading beyond the real pages, on the N generated damaged 200-dpi
   scans of bench/enrich_headings.py --reread (same seed): of the near misreadings, how many
   the region readings settle, and how many with the line reading after them (and lost by it).

    .venv/bin/python bench/enrich_real.py [--no-ocr] [--damaged 300]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

from tests import real_headings, real_scans  # noqa: E402
from tests.heading_cases import TODAY as CASES_TODAY  # noqa: E402
from tests.heading_cases import (  # noqa: E402
    heading_cases,
    random_print,
    scanned_first_page,
)

import enrich_headings  # noqa: E402
from extract_common import load_note, row, texts_per_second  # noqa: E402
from locleg.enrich import reread  # noqa: E402
from locleg.enrich.ementa import read_ementa  # noqa: E402
from locleg.enrich.heading import looks_like_ocr, read_heading  # noqa: E402
from locleg.extract import extract  # noqa: E402
from locleg.fixtures.documents import image_pdf  # noqa: E402

TARGETS = {"ementa": 0.95, "date": 0.98, "ocr": 0.95}


def _share(right: int, of: int) -> str:
    return f"{right / of:.3f} ({right} of {of})" if of else "—"


def real_texts() -> None:
    wrong: list[str] = []
    figures = real_headings.measure_real(wrong=wrong)
    by_city: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for label, text in real_headings.items():
        heading, ementa = real_headings.read(text)
        city = by_city[label["city"]]
        if label["ementa"]:
            city["ementa"][1] += 1
            city["ementa"][0] += real_headings.similarity(ementa or "", label["ementa"]) >= 0.9
        if label["date"]:
            city["date"][1] += 1
            city["date"][0] += bool(heading and heading.date
                                    and heading.date.isoformat() == label["date"])
    cases = heading_cases()
    generated_dates = [(c.expected.date, read_heading(c.text, CASES_TODAY)) for c in cases
                       if c.expected and c.expected.date]
    generated = sum(1 for want, got in generated_dates if got and got.date == want)
    print(f"Real texts: {figures['number'][1]} headings of {len(by_city)} municipalities")
    row("measure", "real texts", "target", "generated set")
    row("ementa read (similarity ≥ 0.9)", _share(*figures["ementa"]), f"≥ {TARGETS['ementa']}",
        "— (none labelled)")
    kept, of = figures["ementa_where_none"]
    row("ementa made up where none is printed", f"{of - kept} of {of}", "0", "")
    row("date of headings printing one", _share(*figures["date"]), f"≥ {TARGETS['date']}",
        _share(generated, len(generated_dates)))
    row("  of them decrees", _share(*figures["decree_date"]), f"≥ {TARGETS['date']}", "")
    row("number", _share(*figures["number"]), "", "")
    row("type", _share(*figures["type"]), "", "")
    for city, measures in sorted(by_city.items()):
        row(f"  {city}", f"ementa {_share(*measures['ementa'])}",
            f"date {_share(*measures['date'])}", "")
    for line in wrong:
        print(f"  wrong: {line}")


def scans() -> None:
    readings = []
    start = time.perf_counter()
    for label in real_scans.labels():
        readings.append(real_scans.read_scan(label))
    seconds = time.perf_counter() - start
    reread = [r for r in readings if r.settle_seconds > 0.01]
    print(f"Real scans: {len(readings)} first pages of "
          f"{len({r.label['city'] for r in readings})} municipalities, OCR and second readings "
          f"({seconds / len(readings):.1f} s a page)")
    print(f"  the page's OCR: {sum(r.ocr_seconds for r in readings) / len(readings):.1f} s a "
          f"page; second readings on {len(reread)} of {len(readings)} pages: "
          f"{sum(r.settle_seconds for r in reread) / max(1, len(reread)):.1f} s each "
          f"(max {max((r.settle_seconds for r in reread), default=0):.1f} s)")
    row("scans", "pages", "page's OCR", "after the second reading", "target")
    for name, keep in (("200–300 dpi", lambda r: r.label["dpi"] >= 200),
                       ("96–100 dpi", lambda r: r.label["dpi"] < 200),
                       ("all", lambda r: True)):
        chosen = [r for r in readings if keep(r)]
        first = sum(real_scans.right(r.first, r.label) for r in chosen)
        settled = sum(real_scans.right(r.settled, r.label) for r in chosen)
        row(f"  number and date, {name}", str(len(chosen)), _share(first, len(chosen)),
            _share(settled, len(chosen)), f"≥ {TARGETS['ocr']}")
    for r in readings:
        if not real_scans.right(r.settled, r.label):
            got = r.settled and (r.settled.number, r.settled.date)
            print(f"  wrong: {r.label['file']}: read {got}, printed {r.label['heading']!r}")


def damaged(count: int, seed: int = 21) -> None:
    """The pages of enrich_headings.reread (same seed, same order): each near misreading settled
    with the line reading switched off, then as settle() does it."""
    rng = random.Random(seed)
    near = by_region = with_line = lost = 0
    seconds = 0.0
    line_reading = reread.read_line
    for index in range(count):
        number = f"{rng.randrange(1, 9)}.{rng.randrange(0, 999):03d}"
        size = rng.choice([6, 7, 8])
        page = scanned_first_page(enrich_headings._REREAD_PAGE.format(number=number), 200,
                                  random_print(rng), seed=index, size_pt=size)
        pdf = image_pdf([page])
        heading = read_heading(extract(pdf).pages[0].text, CASES_TODAY)
        truth = number.replace(".", "")
        if heading is None or heading.number in (None, truth) or not looks_like_ocr(
                heading.number_printed or heading.number, truth):
            continue
        near += 1
        reread.read_line = lambda *_, **__: None
        try:
            region, _ = reread.settle(heading, pdf, 1, "lei", truth, 2014, None,
                                      today=CASES_TODAY)
        finally:
            reread.read_line = line_reading
        start = time.perf_counter()
        kept, _ = reread.settle(heading, pdf, 1, "lei", truth, 2014, None, today=CASES_TODAY)
        seconds += time.perf_counter() - start
        right_region = region is not None and region.number == truth
        right = kept is not None and kept.number == truth
        by_region += right_region
        with_line += right
        lost += right_region and not right
    print(f"Generated damaged scans: {count} headings (6-8 pt) on 200-dpi scans, seed {seed}; "
          f"{near} near misreadings")
    row("near misreadings settled", "region readings", "and the line reading", "lost by it")
    row("", f"{by_region} of {near}", f"{with_line} of {near}", str(lost))
    print(f"  settle() with the line reading: {seconds / max(1, near):.2f} s per near misreading")


def speed() -> None:
    texts = [text for _, text in real_headings.items()]

    def both(text: str) -> None:
        heading = read_heading(text, real_headings.TODAY)
        if heading:
            read_ementa(text, heading)

    alone = texts_per_second(texts, lambda t: read_heading(t, real_headings.TODAY))
    ours = texts_per_second(texts, both)
    print(f"Speed on one core, {len(texts)} real first pages")
    row("", "pages/s", "reference: heading alone", "ratio", "target")
    row("heading and ementa", f"{ours:,.0f}", f"{alone:,.0f}", f"{ours / alone:.2f}",
        "— (enrichment's: bench/enrich.py)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--no-ocr", action="store_true", help="skip the scans (OCR)")
    parser.add_argument("--damaged", type=int, default=0,
                        help="generated damaged scans for the line reading (0: none)")
    args = parser.parse_args()
    real_texts()
    speed()
    if not args.no_ocr:
        scans()
    if args.damaged:
        damaged(args.damaged)


if __name__ == "__main__":
    print(f"({load_note()}, before the run)")
    main()
