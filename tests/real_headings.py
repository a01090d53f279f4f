"""The real labelled first pages (tests/data/real_headings/) and how a reading of them scores.

Shared by tests/test_enrich_real.py (which asserts the targets) and bench/enrich_real.py (which
prints the rows of docs/benchmarks.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from locleg.enrich.ementa import read_ementa, similarity
from locleg.enrich.heading import Heading, read_heading

DATA = Path(__file__).parent / "data" / "real_headings"
TODAY = date(2026, 12, 4)
# An ementa read counts when it is this alike the one printed (case, accents, punctuation aside).
EMENTA_SIMILAR = 0.9


def items(data: Path = DATA) -> Iterator[tuple[dict, str]]:
    """(label, text) of every labelled norm."""
    for label in json.loads((data / "labels.json").read_text()):
        yield label, (data / label["file"]).read_text()


def read(text: str, today: date = TODAY) -> tuple[Heading | None, str | None]:
    heading = read_heading(text, today)
    return heading, (read_ementa(text, heading) if heading else None)


def measure_real(data: Path = DATA, today: date = TODAY, wrong: list[str] | None = None
                 ) -> dict[str, tuple[int, int]]:
    """Per measure, (right, of):

    ementa: norms whose text prints one, read with similarity ≥ 0.9; ementa_where_none: norms
    printed without one, of which an ementa was made up (right = none read); date and
    decree_date: headings that print a date, read exactly; number and type: headings, read
    exactly. `wrong` collects a line per miss.
    """
    counts = {k: [0, 0] for k in ("ementa", "ementa_where_none", "date", "decree_date",
                                   "number", "type")}

    def count(measure: str, ok: bool, label: dict, got: object) -> None:
        counts[measure][1] += 1
        counts[measure][0] += ok
        if not ok and wrong is not None:
            wrong.append(f"{measure} {label['file']}: read {got!r}")

    for label, text in items(data):
        heading, ementa = read(text, today)
        if label["ementa"]:
            count("ementa", similarity(ementa or "", label["ementa"]) >= EMENTA_SIMILAR,
                  label, ementa)
        else:
            count("ementa_where_none", ementa is None, label, ementa)
        if label["heading"]:
            count("number", bool(heading) and heading.number == label["number"], label,
                  heading and heading.number)
            count("type", bool(heading) and heading.type == label["type"], label,
                  heading and heading.type)
        if label["date"]:
            read_date = heading.date.isoformat() if heading and heading.date else None
            count("date", read_date == label["date"], label, read_date)
            if label["type"] == "decreto":
                count("decree_date", read_date == label["date"], label, read_date)
    return {k: (v[0], v[1]) for k, v in counts.items()}
