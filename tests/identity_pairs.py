"""Labelled record pairs for same-norm matching, in the shapes real sources give them.

Each true norm of a municipality is written by two or three sources the way they write it
(a SAPL's "Lei Ordinária" and "2199", a dump's "Lei" and "2.199", a bare folder's
"Legislação Municipal" whose first page says "LEI Nº 2.199/2011", a number with its year
"2199/2011", a two-digit year, an "s/n" no one can match), and next to it the norms a matcher
must not confuse it with (the same number in another type, another year, another town; "12"
beside "12-A"). The labels come from which true norm a record was written from, never from
the matcher under test. The bench (bench/enrich_identity.py) and the tests share them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select

JUAZEIRO, PETROLINA, SALVADOR = 2918407, 2611101, 2927408
_MONTHS = ("JANEIRO", "FEVEREIRO", "MARÇO", "ABRIL", "MAIO", "JUNHO", "JULHO", "AGOSTO",
           "SETEMBRO", "OUTUBRO", "NOVEMBRO", "DEZEMBRO")


@dataclass(frozen=True)
class Written:
    """One source's record of a norm."""

    truth: str  # the true norm it was written from
    source: str  # sapl, dump, folder
    jurisdiction: int
    type_raw: str | None
    number: str | None
    year: int | None
    signed: date | None = None
    heading: str | None = None  # the first page's text, when the record is known by it


# (family label per source, printed heading type) for the true norms' types
_LABELS = {
    "lei": (["Lei Ordinária", "Lei", "LEI", "Lei Municipal", "lei ordinaria", "LO"], "LEI"),
    "lei.complementar": (["Lei Complementar", "LC", "LEI COMPLEMENTAR", "Lei Compl.", "L.C."],
                         "LEI COMPLEMENTAR"),
    "decreto": (["Decreto", "Decreto Executivo", "DECRETO", "Dec."], "DECRETO"),
    "resolucao": (["Resolução", "Res.", "RESOLUÇÃO", "Resolução da Mesa"], "RESOLUÇÃO"),
    "decreto.legislativo": (["Decreto Legislativo", "Dec. Leg.", "DECRETO LEGISLATIVO"],
                            "DECRETO LEGISLATIVO"),
    "emenda.lei.organica": (["Emenda à Lei Orgânica", "Emenda à LOM", "ELOM"],
                            "EMENDA À LEI ORGÂNICA"),
}


def _number_forms(number: int, year: int) -> list[str]:
    dotted = f"{number:,}".replace(",", ".")
    return [str(number), dotted, f"0{number}", f"{number}/{year}", f"{dotted}/{year}",
            f"{number}/{year % 100:02d}"]


def _heading(family: str, number: int, signed: date) -> str:
    dotted = f"{number:,}".replace(",", ".")
    return (f"MUNICÍPIO DE JUAZEIRO\nESTADO DA BAHIA\n{_LABELS[family][1]} Nº {dotted}, DE "
            f"{signed.day:02d} DE {_MONTHS[signed.month - 1]} DE {signed.year}\n"
            "Dispõe sobre matéria de interesse local.\nArt. 1º Esta norma entra em vigor.")


def _norms() -> list[tuple[str, str, int, int, date, int]]:
    """(name, family, number, year, date, jurisdiction): the true norms, with their confusers:
    the same number in other families, years and towns."""
    found = []
    families = list(_LABELS)
    for i in range(40):
        family = families[i % len(families)]
        number = [2199, 1167, 45, 187, 3, 1996, 12, 230, 1050, 7][i % 10] + (i // 10) * 1000
        year = 2005 + i % 15
        signed = date(year, 1 + i % 12, 1 + (i * 7) % 28)
        found.append((f"n{i}", family, number, year, signed, JUAZEIRO))
    # Confusers: the same numbers elsewhere.
    for i in range(40):
        _, family, number, year, signed, _ = found[i]
        if i % 4 == 0:  # another family
            other = families[(families.index(family) + 1) % len(families)]
            found.append((f"c{i}-type", other, number, year, signed, JUAZEIRO))
        elif i % 4 == 1:  # the next year (decrees restart their numbering)
            found.append((f"c{i}-year", family, number, year + 1,
                          date(year + 1, signed.month, signed.day), JUAZEIRO))
        elif i % 4 == 2:  # another town
            found.append((f"c{i}-town", family, number, year, signed,
                          PETROLINA if i % 8 == 2 else SALVADOR))
        else:  # a number one digit away
            found.append((f"c{i}-digit", family, number + 1, year, signed, JUAZEIRO))
    return found


def records() -> list[Written]:
    """Every record the sources hold, two or three per true norm."""
    written: list[Written] = []
    for k, (name, family, number, year, signed, code) in enumerate(_norms()):
        labels = _LABELS[family][0]
        forms = _number_forms(number, year)
        written.append(Written(name, "sapl", code, labels[0], str(number), year, signed))
        written.append(Written(name, "dump", code, labels[1 + k % (len(labels) - 1)],
                               forms[1 + k % (len(forms) - 1)],
                               None if forms[1 + k % (len(forms) - 1)].count("/") else year,
                               signed if k % 3 else None))
        if k % 3 == 0:  # a bare folder: a generic type, the number from the file's name
            written.append(Written(name, "folder", code, "Legislação Municipal",
                                   str(number), year, None, _heading(family, number, signed)))
    # Lettered numbers: 12-A is not 12, and "12a" is 12-A.
    for code in (JUAZEIRO,):
        written += [Written("l12", "sapl", code, "Lei", "12", 2010),
                    Written("l12", "dump", code, "Lei Ordinária", "012", 2010),
                    Written("l12a", "sapl", code, "Lei", "12-A", 2010),
                    Written("l12a", "dump", code, "Lei", "12a", 2010)]
    # Norms no one can match: without a number or a year they stand alone (counted as misses
    # when two of them are one norm: the price of never merging blindly).
    written += [Written("sn1", "sapl", JUAZEIRO, "Decreto", "s/n", 2014, date(2014, 2, 3)),
                Written("sn1", "dump", JUAZEIRO, "Decreto", "S/N", 2014, date(2014, 2, 3)),
                Written("sn2", "sapl", JUAZEIRO, "Decreto", "s/n", 2014, date(2014, 5, 6)),
                Written("noyear", "dump", JUAZEIRO, "Lei", "100", None)]
    return written


def pairs(found: list[Written]) -> list[tuple[int, int, bool]]:
    """(index, index, same norm?) over every pair of records that could be confused: those of
    one true norm, and those of norms that share a number."""
    by_number: dict[str, list[int]] = {}
    for i, w in enumerate(found):
        digits = "".join(c for c in (w.number or "").split("/")[0] if c.isdigit())
        by_number.setdefault(digits.lstrip("0"), []).append(i)
    labelled = set()
    for group in by_number.values():
        for a, b in itertools.combinations(group, 2):
            labelled.add((a, b, found[a].truth == found[b].truth))
    truths: dict[str, list[int]] = {}
    for i, w in enumerate(found):
        truths.setdefault(w.truth, []).append(i)
    for group in truths.values():
        for a, b in itertools.combinations(group, 2):
            labelled.add((a, b, True))
    return sorted(labelled)


def load_into(corpus, found: list[Written]) -> list[int]:
    """Write the records as their sources would (folder records with their first page's
    text, as extraction leaves it), run the enrichment, and return each record's norm id."""
    from locleg.enrich.run import enrich
    from locleg.enrich.types import normalize_type
    from locleg.store import utcnow
    from locleg.store.schema import record

    store = corpus.store
    sources: dict[tuple[str, int], int] = {}
    ids: list[int] = []
    for i, w in enumerate(found):
        key = (w.source, w.jurisdiction)
        if key not in sources:
            sources[key] = store.ensure_source(
                w.jurisdiction, "folder" if w.source != "sapl" else "sapl",
                f"https://{w.source}.{w.jurisdiction}.example")
        with store.transaction() as conn:
            got = store.upsert_records(conn, sources[key], [{
                "native_id": f"r{i}", "jurisdiction_code": w.jurisdiction,
                "type_raw": w.type_raw, "type_normalized": normalize_type(w.type_raw),
                "number": w.number, "year": w.year, "date": w.signed, "ementa": None,
                "url": None}], utcnow())
        ids.append(got[f"r{i}"])
        if w.heading:
            blob = corpus.blobs.put(w.heading.encode() + str(i).encode())
            with store.transaction() as conn:
                docs = store.ensure_documents(conn, [{"record_id": ids[-1], "url": f"file:r{i}",
                                                      "role": "texto_integral"}])
                [version_id] = store.add_versions(conn, [{
                    "document_id": docs[(ids[-1], f"file:r{i}")]["id"],
                    "sha256": blob.sha256, "size": blob.size,
                    "media_type": "application/pdf", "fetched_at": utcnow(),
                    "origin": f"file:r{i}"}])
            store.save_extraction(version_id, {"status": "extracted", "method": "text",
                                               "pages": 1, "chars": len(w.heading)},
                                  [{"number": 1, "method": "text", "text": w.heading}])
    enrich(corpus, reread=False)
    with store.engine.connect() as conn:
        norm_of = dict(conn.execute(select(record.c.id, record.c.norm_id)).all())
    return [norm_of[i] for i in ids]


def scores(found: list[Written], norm_ids: list[int]) -> tuple[float, float, int, int]:
    """(precision, recall, true pairs, pairs) of "same norm" over the labelled pairs."""
    tp = fp = fn = 0
    labelled = pairs(found)
    for a, b, same in labelled:
        merged = norm_ids[a] == norm_ids[b]
        tp += merged and same
        fp += merged and not same
        fn += same and not merged
    return tp / ((tp + fp) or 1), tp / ((tp + fn) or 1), tp + fn, len(labelled)
