"""The hand-labelled citation set: realistic municipal texts under tests/data/citations, each
citation marked inline by hand as

    [[as written|family|number|date or year|sphere|kind|fragment]]

("-" for none; the fragment is optional), and a first line
`#! citing=br;bahia;juazeiro level=municipal own=lei:2199:2011` naming the citing norm.
The labels are read here and never computed by the code under test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from locleg.enrich.citations import NormRef

FOLDER = Path(__file__).parent / "data" / "citations"
_MARK = re.compile(r"\[\[(?P<body>[^\[\]]+?)\]\]")


@dataclass(frozen=True)
class Citing:
    level: str
    lexml_label: str


@dataclass(frozen=True)
class Label:
    start: int
    end: int
    text: str
    family: str
    number: str | None
    year: int | None
    date: date | None
    sphere: str
    kind: str
    fragment: str | None


@dataclass(frozen=True)
class LabelledText:
    name: str
    text: str
    labels: list[Label]
    citing: Citing
    own: NormRef | None


def _none(value: str) -> str | None:
    return None if value == "-" else value


def parse(name: str, source: str) -> LabelledText:
    header, _, body = source.partition("\n")
    fields = dict(item.split("=", 1) for item in header.removeprefix("#!").split())
    own = None
    if "own" in fields:
        family, number, year = fields["own"].split(":")
        own = NormRef(family, number, int(year) if year != "-" else None)
    citing = Citing(fields["level"], fields["citing"])
    out: list[str] = []
    labels: list[Label] = []
    length = 0
    last = 0
    for m in _MARK.finditer(body):
        out.append(body[last:m.start()])
        length += m.start() - last
        parts = m["body"].split("|")
        if len(parts) not in (6, 7):
            raise ValueError(f"{name}: a label needs 6 or 7 fields: {m.group()}")
        written, family, number, when, sphere, kind = parts[:6]
        fragment = parts[6] if len(parts) == 7 else None
        when_v = _none(when)
        labels.append(Label(
            length, length + len(written), written, family, _none(number),
            int(when_v[:4]) if when_v else None,
            date.fromisoformat(when_v) if when_v and len(when_v) == 10 else None,
            sphere, kind, fragment))
        out.append(written)
        length += len(written)
        last = m.end()
    out.append(body[last:])
    text = "".join(out)
    if "[[" in text or "]]" in text:
        raise ValueError(f"{name}: an unclosed label")
    for label in labels:
        assert text[label.start:label.end] == label.text
    return LabelledText(name, text, labels, citing, own)


def load() -> list[LabelledText]:
    return [parse(p.name, p.read_text("utf-8")) for p in sorted(FOLDER.glob("*.txt"))]
