"""Finding a norm by its number: a query that names one ("lei 2199", "Lei nº 2.199/2011",
"2199/2011", "LC 45/2013", "decreto 187 de 2011") puts the norms it names first.

The query is read with the grammar that reads citations in texts (enrich/citation_patterns),
so a number typed in the search box and a number cited in a law are understood alike: "Lei"
and "Lei Ordinária" are one type family, "LC" is "Lei Complementar", "2.199", "2199" and
"02199" are one number (enrich/numbering) and "12-A" is not "12". The norms named are found
by their canonical number (index ix_norm_number on number_key, family, year), within the
search's filters, at most MAX_NAMED of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sqlalchemy import case, select
from sqlalchemy.engine import Connection

from ..enrich import citation_patterns as P
from ..enrich.citation_scan import _year as year
from ..enrich.citation_scan import _year_of as year_of
from ..enrich.numbering import canonical_number
from ..store.schema import jurisdiction, norm

# The norms a query names are pinned first, at most this many (a number without a type or a
# place names one norm in each of thousands of jurisdictions).
MAX_NAMED = 100
# Where a norm without a type in the query ("2199/2011") is looked for first when the same
# number and year name several: the higher norm, as a reader would.
FAMILY_ORDER = ("lei.organica", "emenda.lei.organica", "lei.complementar", "lei",
                "decreto.legislativo", "decreto", "resolucao", "portaria")
# A sphere written in the query ("lei municipal 1.167") is the level of the jurisdiction.
_LEVELS = ("municipal", "estadual", "distrital")
# "lc 45": the acronym typed in lowercase, which the citation grammar reads only in capitals.
_LOWER_LC = re.compile(r"(?<![^\W_])lc(?=[\s.]*(?:n|\d))", re.IGNORECASE)
_WORD_START = re.compile(r"(?<![^\s(\"'])[^\W_]")
_NOT_BEFORE = re.compile(r"\bNOT\s+$")


@dataclass(frozen=True)
class Reference:
    """A norm named in a query: its type family (None when not typed), canonical number,
    year (None when not typed), the sphere written ("municipal"...), and the words typed."""

    family: str | None
    number: str
    year: int | None
    sphere: str | None
    typed: str

    def as_json(self) -> dict:
        return {"family": self.family, "number": self.number, "year": self.year,
                "typed": self.typed}


def references(q: str) -> list[Reference]:
    """The norms a query names, in the order typed; none inside quotes or after NOT / '-'."""
    typed = q or ""
    q = _LOWER_LC.sub("LC", typed)  # same length: spans still point into what was typed
    quoted = [m.span() for m in re.finditer(r'"[^"]*"?', q)]
    found: list[Reference] = []
    consumed = 0
    for start in _WORD_START.finditer(q):
        pos = start.start()
        if pos < consumed or any(a <= pos < b for a, b in quoted) \
                or _NOT_BEFORE.search(q, 0, pos):
            continue
        reference, end = _read(q, pos)
        if reference is not None:
            found.append(replace(reference, typed=typed[pos:end].strip()))
            consumed = end
    return found


def _read(q: str, pos: int) -> tuple[Reference | None, int]:
    """The reference that starts at pos: a type then a number, or a number with its year."""
    family = None
    t = P.TYPE.match(q, pos)
    if t is not None and not q[t.end():t.end() + 1].isalpha():
        family = P.FAMILY[t.lastgroup]
        r = P.REST.match(q, t.end())
    elif q[pos].isdigit():
        r = P.REST.match(q, pos)
        if r is not None and not (r["year"] or r["dyear"] or r["nyear"] or r["oyear"]):
            return None, pos  # a bare number is a word to search, not a norm
    else:
        emenda = P.EMENDA_NUMBER_FIRST.match(q, pos)
        if emenda is None:
            return None, pos
        number = canonical_number(emenda["num"])
        return (Reference("emenda.lei.organica", number, year(emenda["year"]), None,
                          q[pos:emenda.end()]) if number else None, emenda.end())
    if r is None or q[r.end():r.end() + 1] in tuple("/.-") or q[r.end():r.end() + 1].isalnum():
        return None, pos
    if r["compl"] and family == "lei":
        family = "lei.complementar"
    number = canonical_number(r["num"] + (r["suffix"] or ""))
    if number is None:
        return None, pos
    sphere = (r["sphere"] or r["sphere2"] or "").lower() or None
    return Reference(family, number, year_of(r), sphere, q[pos:r.end()].strip()), r.end()


def named_norms(conn: Connection, found: list[Reference], *, jurisdictions: tuple[int, ...],
                ufs: tuple[str, ...], year_from: int | None, year_to: int | None) -> list[int]:
    """The norms these references name, in order: per reference, the most cited first, then
    the higher type (for a number typed without one), then the newest. Only the filters on
    place and year apply here; the caller checks the others against the index."""
    ordered: list[int] = []
    for reference in found:
        if reference.sphere == "federal":
            continue  # no federal norm is a record of this corpus
        query = select(norm.c.id).where(norm.c.number_key == reference.number,
                                        norm.c.merged_into.is_(None))
        if reference.family is not None:
            query = query.where(norm.c.family == reference.family)
        if reference.year is not None:
            query = query.where(norm.c.year == reference.year)
        if jurisdictions:
            query = query.where(norm.c.jurisdiction_code.in_(jurisdictions))
        if year_from:
            query = query.where(norm.c.year >= year_from)
        if year_to:
            query = query.where(norm.c.year <= year_to)
        level = reference.sphere if reference.sphere in _LEVELS else None
        if ufs or level:
            query = query.join(jurisdiction, jurisdiction.c.ibge_code == norm.c.jurisdiction_code)
            if ufs:
                query = query.where(jurisdiction.c.uf.in_(ufs))
            if level:
                query = query.where(jurisdiction.c.level == level)
        rank = case({f: i for i, f in enumerate(FAMILY_ORDER)}, value=norm.c.family,
                    else_=len(FAMILY_ORDER))
        query = query.order_by(norm.c.cited_by.desc(), rank, norm.c.date.is_(None),
                               norm.c.date.desc(), norm.c.id.desc()).limit(MAX_NAMED)
        ordered += [i for i in conn.scalars(query) if i not in ordered]
    return ordered
