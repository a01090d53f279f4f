"""The real gazette set segmentation is measured on (tests and bench share it): editions of
municipal gazettes nobody on the project wrote, as pdftotext or Apache Tika extracted them,
each normative act labelled by reading (tests/data/real_gazettes: the texts, labels.json,
SOURCES.md).

An act found matches a labelled act when kind, number and year agree (the year the heading
prints, None when it prints none); acts are counted as a multiset, since two secretariats of
one town may both issue a "PORTARIA Nº 20130812-1". Only normative acts count: laws,
decrees, resolutions, portarias (Act.normative with portarias=True); notices and other
matter are not labelled.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path

from locleg.enrich.numbering import canonical_number

DATA = Path(__file__).parent / "data" / "real_gazettes"
# An ementa read counts as right from this similarity on (normalised text, see _plain).
EMENTA_SIMILARITY = 0.9


@dataclass(frozen=True)
class RealAct:
    line: int  # 1-based line of the heading in the text
    kind: str
    number: str
    year: int | None
    date: str | None
    ementa: str | None
    # a row of a table of acts under one preamble (no heading of its own): not read, counted
    # apart
    tabled: bool = False

    @property
    def key(self) -> tuple[str, str, int | None]:
        return self.kind, canonical_number(self.number), self.year


@dataclass(frozen=True)
class RealEdition:
    file: str
    system: str
    extractor: str
    cities: tuple[str, ...]
    territory_id: str
    source: dict
    acts: tuple[RealAct, ...]
    note: str

    @property
    def text(self) -> str:
        return (DATA / self.file).read_text(encoding="utf-8")


@cache
def editions(held_out: bool = False, fresh: bool = False) -> tuple[RealEdition, ...]:
    """The labelled editions; held_out: those labelled after the rules were fixed, never
    looked at while fixing them (tests/data/real_gazettes/held_out); fresh: a second held-out
    set, of other cities and gazette systems, labelled before the segmenter was run on it
    (tests/data/real_gazettes/fresh)."""
    folder = DATA / "fresh" if fresh else DATA / "held_out" if held_out else DATA
    labels = folder / "labels.json"
    raw = json.loads(labels.read_text(encoding="utf-8"))
    return tuple(
        RealEdition(e["file"], e["system"], e["extractor"], tuple(e["cities"]), e["territory_id"],
                    e["source"], tuple(RealAct(**a) for a in e["acts"]), e["note"])
        for e in raw["editions"])


def _plain(text: str) -> str:
    """Ementa text compared without case, accents, quotation marks and spacing."""
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[\"“”'‘’«»]", " ", text).split())


def ementa_right(read: str | None, printed: str) -> bool:
    return bool(read) and SequenceMatcher(None, _plain(read), _plain(printed)).ratio() >= (
        EMENTA_SIMILARITY)


@dataclass
class RealScore:
    labelled: int = 0  # acts with a heading of their own
    tabled: int = 0  # rows of tables of acts
    tabled_found: int = 0
    found: int = 0
    right: int = 0
    ementas: int = 0  # acts found whose text prints an ementa
    ementas_right: int = 0
    misses: list[str] = field(default_factory=list)  # labelled, not found
    false: list[str] = field(default_factory=list)  # found, not labelled
    wrong_ementas: list[str] = field(default_factory=list)
    no_ementa: int = 0  # acts found whose text prints no ementa
    invented: list[str] = field(default_factory=list)  # … given one all the same

    def add(self, edition: RealEdition, acts: list) -> None:
        found = [a for a in acts if a.normative]
        self.tabled += sum(a.tabled for a in edition.acts)
        wanted = Counter(a.key for a in edition.acts if not a.tabled)
        got = Counter((a.kind, canonical_number(a.number) if a.number else None, a.year)
                      for a in found)
        self.labelled += sum(wanted.values())
        self.found += sum(got.values())
        self.right += sum((wanted & got).values())
        self.misses += [f"{edition.file}: {k}" for k in (wanted - got).elements()]
        extra = got - wanted
        # a row of a table read as an act is no false act; it is counted apart
        tabled_found = sum((extra & Counter(a.key for a in edition.acts if a.tabled)).values())
        self.tabled_found += tabled_found
        self.found -= tabled_found
        extra -= Counter(a.key for a in edition.acts if a.tabled)
        self.false += [f"{edition.file}: {k}" for k in extra.elements()]
        by_key: dict[tuple, list] = {}
        for act in found:
            by_key.setdefault((act.kind, canonical_number(act.number) if act.number else None,
                               act.year), []).append(act)
        for label in edition.acts:  # in the order of the text, as the acts found are
            if label.tabled:
                continue
            same = by_key.get(label.key)
            act = same.pop(0) if same else None
            if act is None:
                continue
            if not label.ementa:
                self.no_ementa += 1
                if act.ementa:  # a preamble or a heading's repetition taken for one
                    self.invented.append(f"{edition.file}:{label.line}: {act.ementa!r}")
                continue
            self.ementas += 1
            if ementa_right(act.ementa, label.ementa):
                self.ementas_right += 1
            else:
                self.wrong_ementas.append(f"{edition.file}:{label.line}: {act.ementa!r}")

    @property
    def recall(self) -> float:
        return self.right / self.labelled if self.labelled else 1.0

    @property
    def precision(self) -> float:
        return self.right / self.found if self.found else 1.0

    @property
    def ementa(self) -> float:
        return self.ementas_right / self.ementas if self.ementas else 1.0
