"""The real labelled first pages (tests/data/real_headings/) and how a reading of them scores.

Shared by tests/test_enrich_real.py (which asserts the targets) and bench/enrich_real.py (which
prints the rows of docs/benchmarks.md).
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from locleg.enrich.ementa import disagreement, read_ementa, similarity
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


# -- the source's ementa against the text's (enrich/ementa.disagreement) -------------------------

MARICA_SOURCE = Path(__file__).parent / "data" / "search_real" / "norms.jsonl.gz"


def read_ementas(data: Path = DATA, today: date = TODAY) -> list[tuple[dict, str]]:
    """(label, the ementa read from its text) of every labelled norm whose text prints one and
    whose ementa is read."""
    found = []
    for label, text in items(data):
        _, ementa = read(text, today)
        if label["ementa"] and ementa:
            found.append((label, ementa))
    return found


def another_norms_ementa(read: list[tuple[dict, str]]) -> list[str]:
    """For each of `read`, the labelled ementa of the next norm of its municipality (the
    first's for the last): what a source that mixed up two records would give."""
    by_city: dict[str, list[int]] = {}
    for index, (label, _) in enumerate(read):
        by_city.setdefault(label["city"], []).append(index)
    other = [""] * len(read)
    for indexes in by_city.values():
        for at, index in enumerate(indexes):
            other[index] = read[indexes[(at + 1) % len(indexes)]][0]["ementa"]
    return other


def marica_source_ementas() -> dict[str, str]:
    """Maricá's ementas as tests/data/search_real holds them (bench/search_real_corpus.py's
    reading of each Markdown file, links and notes as written), by the file's path."""
    found = {}
    with gzip.open(MARICA_SOURCE, "rt", encoding="utf-8") as lines:
        for line in lines:
            n = json.loads(line)
            if n["jurisdiction"] == 3302700 and n["ementa"]:
                found[n["source"].split(":", 1)[1]] = n["ementa"]
    return found


# What OCR makes of a letter (tesseract's commonest confusions on worn prints).
OCR_LOOKALIKES = {"i": "l", "l": "1", "o": "0", "e": "c", "m": "rn", "a": "o", "s": "5",
                  "u": "ii", "c": "e", "n": "ri"}


def ocr_damaged(text: str, every: int, seed: int = 21) -> str:
    """`text` with one letter of about one word in `every` printed as OCR misreads it."""
    rng = random.Random(f"{seed}:{text}")
    words = text.split(" ")
    for index, word in enumerate(words):
        spots = [at for at, ch in enumerate(word) if ch.lower() in OCR_LOOKALIKES]
        if spots and rng.random() < 1 / every:
            at = rng.choice(spots)
            words[index] = word[:at] + OCR_LOOKALIKES[word[at].lower()] + word[at + 1:]
    return " ".join(words)


def measure_ementa_flags(data: Path = DATA, today: date = TODAY,
                         flagged: list[str] | None = None) -> dict[str, tuple[int, int]]:
    """Per measure, (flagged, of):

    labelled: the source's ementa is the labelled one (every flag is false); half: the labelled
    one cut at half its length (every flag is false); ocr_5 and ocr_10: the labelled one
    against the text's with one word in 5 (in 10) misread as OCR does (every flag is false);
    marica: Maricá's ementa as tests/data/search_real holds it; other: another norm's ementa
    (every flag is true);
    other_distinct: of those, the pairs whose two ementas differ, case, accents, punctuation
    and spacing aside (the others are one ementa, e.g. Feira's decrees' "ABRE CRÉDITO
    SUPLEMENTAR AO ORÇAMENTO DO MUNICÍPIO, E DÁ OUTRAS PROVIDÊNCIAS.").
    `flagged` collects a line per flag of the first three, and per pair the fourth missed.
    """
    read = read_ementas(data, today)
    counts = {k: [0, 0] for k in ("labelled", "half", "ocr_10", "ocr_5", "marica", "other",
                                   "other_distinct")}

    def count(measure: str, label: dict, source: str, ementa: str, want: bool) -> None:
        found = disagreement(source, ementa)
        counts[measure][0] += found is not None
        counts[measure][1] += 1
        if (found is not None) != want and flagged is not None:
            flagged.append(f"{measure} {label['file']}: {source!r} against {ementa!r}")

    for label, ementa in read:
        count("labelled", label, label["ementa"], ementa, False)
        count("half", label, label["ementa"][:len(label["ementa"]) // 2], ementa, False)
        for every in (10, 5):
            count(f"ocr_{every}", label, label["ementa"], ocr_damaged(ementa, every), False)
    marica = marica_source_ementas()
    for label, ementa in read:
        if label["city"] == "marica-rj" and label["source"]["path"] in marica:
            count("marica", label, marica[label["source"]["path"]], ementa, False)
    for (label, ementa), other in zip(read, another_norms_ementa(read), strict=True):
        count("other", label, other, ementa, True)
        if similarity(other, label["ementa"]) < 1:
            counts["other_distinct"][0] += disagreement(other, ementa) is not None
            counts["other_distinct"][1] += 1
    return {k: (v[0], v[1]) for k, v in counts.items()}
