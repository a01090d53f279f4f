"""The nouns of citations: a Citation, the citing norm (NormRef), the key that resolves a
citation (CitationKey), and the kinds of act a text does to the norm it cites."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import NamedTuple, Protocol

CITES = "cites"
REVOKES = "revokes"
REVOKES_IN_PART = "revokes_in_part"
ALTERS = "alters"
REGULATES = "regulates"
# From the notes of consolidated texts, "(Redação dada pela Lei nº …)": the cited norm acted
# on the citing one.
ALTERED_BY = "altered_by"
REVOKED_BY = "revoked_by"
REVOKED_IN_PART_BY = "revoked_in_part_by"
REGULATED_BY = "regulated_by"
KINDS = (CITES, REVOKES, REVOKES_IN_PART, ALTERS, REGULATES,
         ALTERED_BY, REVOKED_BY, REVOKED_IN_PART_BY, REGULATED_BY)
FORWARD = (REVOKES, REVOKES_IN_PART, ALTERS, REGULATES)  # acts of the citing norm

# The first and the latest plausible year of a Brazilian norm: the court's arrival in 1808
# and next year (laws are dated ahead by mistake, never by a century).
FIRST_YEAR = 1808


@dataclass(frozen=True, slots=True)
class NormRef:
    """The citing norm, to drop its mentions of itself: family, number, year."""

    family: str
    number: str | None
    year: int | None = None


class JurisdictionInfo(Protocol):
    """What naming a cited norm needs of the citing jurisdiction (`Jurisdiction` has it)."""

    level: str  # municipal, estadual or distrital
    lexml_label: str  # br;bahia;juazeiro


@dataclass(slots=True)
class Citation:
    """One reference to another norm, as written, with what it does to that norm.

    `sphere_source` says where `sphere` came from: `written` ("Lei Federal"), `type`
    (a Decreto-Lei is federal), `issuer` (Resolução CONTRAN), `known` (a well-known federal
    law recognised by number and year, or by name), `text` (the same norm was cited with its
    sphere earlier in the text), `implied` (no sphere written: the citing jurisdiction's),
    `unknown` (none written, and not the citing town's: flag `beyond_town_numbering`; sphere
    None).
    `article` ("Art. 31") is filled for every kind but `cites`; None there, or before the
    first article (heading, ementa, preamble). `flags` give reasons to doubt.
    """

    start: int
    end: int
    text: str
    family: str
    number: str | None
    year: int | None
    date: date | None
    sphere: str | None
    sphere_source: str
    fragment: str | None = None
    kind: str = CITES
    sentence: str = ""
    article: str | None = None
    flags: tuple[str, ...] = ()
    issuer: str | None = None

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


class CitationKey(NamedTuple):
    """What resolves a citation to a corpus norm: LexML locality (`br`, `br;bahia`,
    `br;bahia;juazeiro`), family, canonical number, year (None when not written)."""

    scope: str
    family: str
    number: str | None
    year: int | None
