"""Real scanned first pages of municipal laws, decrees and portarias (tests/data/real_scans/)
and how their headings read through OCR: the text extraction's own OCR, then the enrichment's
second reading.

Shared by tests/test_enrich_real.py and bench/enrich_real.py.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from locleg.enrich.heading import Heading, read_heading
from locleg.enrich.reread import settle
from locleg.extract import extract

DATA = Path(__file__).parent / "data" / "real_scans"
TODAY = date(2026, 12, 4)


@dataclass
class ScanReading:
    label: dict
    ocr_text: str
    first: Heading | None  # read from the extraction's OCR of the page
    settled: Heading | None  # after the second reading enrichment does with the record's say
    ocr_seconds: float = 0.0  # the extraction's OCR of the page
    settle_seconds: float = 0.0  # the second readings (0 when the first reading was kept)


def labels(data: Path = DATA) -> list[dict]:
    return json.loads((data / "labels.json").read_text())


def read_scan(label: dict, data: Path = DATA, today: date = TODAY) -> ScanReading:
    """OCR the page as extraction does, read its heading, then settle it as enrichment does
    for a record whose source gives the type, number and year (the portal's listing)."""
    original = (data / label["file"]).read_bytes()
    start = time.perf_counter()
    text = extract(original).pages[0].text
    read_at = time.perf_counter()
    first = read_heading(text, today)
    settled, _ = settle(first, original, 1, label["type"], label["number"],
                        label["year"], None, today=today)
    return ScanReading(label, text, first, settled, read_at - start,
                       time.perf_counter() - read_at)


def right(heading: Heading | None, label: dict) -> bool:
    """Number and date (or year, where the heading prints none) read as printed."""
    if heading is None or heading.number != label["number"]:
        return False
    if label["date"]:
        return heading.date is not None and heading.date.isoformat() == label["date"]
    return heading.year == label["year"]
