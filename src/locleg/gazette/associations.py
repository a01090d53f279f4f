"""Association gazettes: one gazette for many municipalities (Querido Diário territory ids
ending in 00000), split by the header each association prints above a municipality's acts.

Each association is one row of a small table: the header's pattern, with the municipality's
name in the group `name`. Upstream Querido Diário splits only Alagoas' (AMA) gazette, on
"ESTADO DE ALAGOAS / PREFEITURA MUNICIPAL DE …"; Sigpub's gazettes (diariomunicipal.com.br,
used by associations in many states) print "PREFEITURA MUNICIPAL DE X" (or "CÂMARA MUNICIPAL
DE X") above every act, then the entity that publishes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..jurisdictions import fold

# A municipality's name as headers print it: capitals, spaces, apostrophes and hyphens, no
# digits or punctuation (which would make the line a sentence or a signature).
_NAME = r"(?P<name>[A-ZÀ-Ý][A-ZÀ-Ý'’ -]{1,60}?)"


@dataclass(frozen=True)
class Association:
    key: str
    name: str
    header: re.Pattern[str]  # a municipality's header; group `name` holds the municipality


@dataclass(frozen=True)
class Section:
    """One municipality's part of an association gazette: text[start:end]."""

    municipality: str
    start: int
    end: int


ASSOCIATIONS: dict[str, Association] = {
    "ama": Association(
        "ama", "Associação dos Municípios Alagoanos",
        re.compile(r"^[ \t]*ESTADO DE ALAGOAS[ \t]*\n(?:[ \t]*\n)?"
                   rf"[ \t]*PREFEITURA MUNICIPAL DE {_NAME}[ \t]*$", re.MULTILINE)),
    "sigpub": Association(
        "sigpub", "Sigpub (diariomunicipal.com.br)",
        re.compile(rf"^[ \t]*(?:PREFEITURA|C[ÂA]MARA) MUNICIPAL DE {_NAME}[ \t]*$",
                   re.MULTILINE)),
}
# Querido Diário's association territories whose header is not Sigpub's.
ASSOCIATION_OF_TERRITORY = {"2700000": "ama"}


def association_for(territory_id: str | None) -> Association | None:
    """The association that publishes a territory's gazette; None for one municipality's."""
    if not territory_id or not territory_id.endswith("00000"):
        return None
    return ASSOCIATIONS[ASSOCIATION_OF_TERRITORY.get(territory_id, "sigpub")]


def split_municipalities(text: str, association: Association | str) -> list[Section]:
    """The municipalities' sections of an association gazette, in the order printed.

    A section runs from its header to the next header of another municipality: Sigpub repeats
    the header above each act, so consecutive headers of one municipality make one section.
    The masthead before the first header belongs to none.
    """
    if isinstance(association, str):
        if association not in ASSOCIATIONS:
            raise ValueError(f"unknown association {association!r}: "
                             f"known are {', '.join(sorted(ASSOCIATIONS))}")
        association = ASSOCIATIONS[association]
    sections: list[Section] = []
    for match in association.header.finditer(text):
        name = " ".join(match["name"].split())
        if sections and fold(sections[-1].municipality) == fold(name):
            continue
        if sections:
            sections[-1] = Section(sections[-1].municipality, sections[-1].start, match.start())
        sections.append(Section(name, match.start(), len(text)))
    return sections
