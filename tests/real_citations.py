"""The real-text citation sets (tests/data/real_citations, sources in SOURCES.md) and how they
are scored; shared by tests/test_enrich_real_citations.py and bench/enrich_real_citations.py.

- `links/`: real texts with the citation links their publishers put in them (leismunicipais.com.br
  pages of Feira de Santana/BA, Maricá/RJ's Markdown), rebuilt by bench/real_citations_build.py.
  A link is found when a citation overlaps its span and has its number.
- `labelled/`: excerpts of five municipalities' texts, each citation labelled by hand inline in
  the format of tests/citation_labels.py (what it cites, its sphere, what the text does to it).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from locleg.enrich.citations import (
    REVOKED_BY,
    REVOKES,
    NormRef,
    TownNumbering,
    citation_key,
    find_citations,
)
from tests.citation_labels import Citing, LabelledText, parse

FOLDER = Path(__file__).parent / "data" / "real_citations"


@dataclass(frozen=True)
class LinkedText:
    name: str
    text: str
    links: list[dict]
    citing: Citing
    own: NormRef | None


def load_links(folder: Path | None = None) -> list[LinkedText]:
    out = []
    for path in sorted((folder or FOLDER / "links").glob("*.json")):
        d = json.loads(path.read_text("utf-8"))
        own = None
        if d["own"]:
            family, number, year = d["own"].split(":")
            own = NormRef(family, number, int(year))
        out.append(LinkedText(d["name"], d["text"], d["links"],
                              Citing(d["level"], d["citing"]), own))
    return out


def load_labelled() -> list[LabelledText]:
    return [parse(p.name, p.read_text("utf-8"))
            for p in sorted((FOLDER / "labelled").glob("*.txt"))]


def _digits(number: str | None) -> str:
    return re.sub(r"\D", "", number or "").lstrip("0")


def _municipal_key(c, citing: Citing) -> bool:
    """Would the resolver look the citation up among a town's norms (br;uf;town)?"""
    key = citation_key(c, citing)
    return key is not None and key.scope.count(";") == 2


def corpus_keys(path: Path | None = None) -> dict[str, set[tuple[str, str, int]]]:
    """The norms each town's publisher holds: what a citation can resolve to there."""
    d = json.loads((path or FOLDER / "corpus_keys.json").read_text("utf-8"))
    return {town: {(f, n, int(y)) for f, n, y in (k.split("|") for k in keys)}
            for town, keys in d.items()}


def score_links(texts: list[LinkedText], keys: Path | None = None
                ) -> tuple[Counter, list[tuple]]:
    """Recall against the publishers' own links; the year and sphere of the found ones; and
    resolution in the town's whole corpus (every norm its publisher holds): a found citation
    whose key names a norm there is resolved, rightly when that is the norm the site links;
    a link to a state or federal norm must never resolve to a municipal norm."""
    held = corpus_keys(keys)
    numberings = _numberings(held)
    s: Counter = Counter()
    misses = []
    for lt in texts:
        found = find_citations(lt.text, lt.own, level=lt.citing.level,
                               numbering=numberings.get(lt.citing.lexml_label))
        for link in lt.links:
            s["links"] += 1
            hits = [c for c in found if c.start < link["end"] and link["start"] < c.end
                    and _digits(c.number) == link["number"]]
            if not hits:
                misses.append((lt.name, link, lt.text[max(0, link["start"] - 60):
                                                      link["end"] + 30]))
                continue
            c = hits[0]
            s["found"] += 1
            s["year_written"] += c.year is not None
            s["year_agrees"] += c.year == link["year"]
            if link["sphere"] != "municipal":
                s["not_municipal"] += 1
                s["not_municipal_ok"] += not _municipal_key(c, lt.citing)
            key = citation_key(c, lt.citing)
            if key is not None and key.scope == lt.citing.lexml_label and (
                    key.family, _digits(key.number), key.year) in held.get(key.scope, ()):
                s["resolved"] += 1
                s["resolved_right"] += (key.family, _digits(key.number), key.year) == (
                    link["family"], link["number"], link["year"]) and link["sphere"] == "municipal"
    return s, misses


def _numberings(held: dict[str, set[tuple[str, str, int]]]) -> dict[str, TownNumbering]:
    """Each town's numbering from the norms its publisher holds, as enrichment reads it from
    the corpus (enrich/town_numbering.py)."""
    return {town: TownNumbering(keys) for town, keys in held.items()}


def load_revocations() -> list[dict]:
    """50 revocations sampled from what the reading said on every Feira de Santana text
    (seed 2112), each with its context (its article, or the head of its list, to the end of
    its sentence) and whether the text revokes the whole norm, as read by hand."""
    return json.loads((FOLDER / "revocations.json").read_text("utf-8"))


def score_revocations(cases: list[dict]) -> Counter:
    """Whole-law revocations said on the real sample, against the hand reading."""
    s: Counter = Counter()
    for case in cases:
        found = [c for c in find_citations(case["context"]) if c.text == case["citation"]]
        said = bool(found) and found[0].kind in (REVOKES, REVOKED_BY)
        s["cases"] += 1
        s["whole"] += case["whole"]
        s["said"] += said
        s["right"] += said and case["whole"]
    return s


def score_labelled(texts: list[LabelledText]) -> Counter:
    """Citations (span, family, number, year), their kinds, spheres and the revoked flags."""
    s: Counter = Counter()
    numberings = _numberings(corpus_keys())
    for lt in texts:
        found = find_citations(lt.text, lt.own, level=lt.citing.level,
                               numbering=numberings.get(lt.citing.lexml_label))
        got = {(c.start, c.end, c.family, c.number, c.year): c for c in found}
        want = {(x.start, x.end, x.family, x.number, x.year): x for x in lt.labels}
        s["labels"] += len(want)
        s["tp"] += len(got.keys() & want.keys())
        s["fp"] += len(got.keys() - want.keys())
        s["fn"] += len(want.keys() - got.keys())
        for key in got.keys() & want.keys():
            c, x = got[key], want[key]
            s["kind"] += c.kind == x.kind
            s["sphere"] += c.sphere == x.sphere
            if x.sphere != "municipal":
                s["not_municipal"] += 1
                s["not_municipal_ok"] += not _municipal_key(c, lt.citing)
        # a whole-law revocation (of the cited norm, or of the citing one by a note) said by
        # the reading, against the labels: the flags a norm's status "revoked" rests on
        whole = (REVOKES, REVOKED_BY)
        said = {k for k, c in got.items() if c.kind in whole}
        meant = {k for k, x in want.items() if x.kind in whole}
        s["revoked_said"] += len(said)
        s["revoked_right"] += len(said & meant)
        s["revoked_meant"] += len(meant)
    return s
