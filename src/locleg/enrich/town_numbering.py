"""How far a town's own numbering of each type of norm had gone around each year, from the norms
its corpus holds: a citation that writes no sphere ("Lei 3531 de 10 de novembro de 1976", a law
of Bahia cited in a Feira de Santana text) whose number is far beyond it is not the town's.

A town numbers its laws (decrees, resolutions…) in one growing series, so the numbers its
corpus holds of the cited year and of the WINDOW years after it bound what it could have
numbered then; earlier years bound nothing (Maricá's laws, numbered again from 1 in 1977, ran
to 17 that year and to 72 by November 1978). A number more than RATIO times the highest one
held in that window (and MARGIN beyond it) is another sphere's, most often the state's. No
judgement without a year, with fewer than MIN_NORMS held in the window, or for a type several
bodies number (portarias).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

FAMILIES = frozenset({"lei", "lei.complementar", "decreto", "decreto.legislativo",
                      "resolucao", "emenda.lei.organica"})
WINDOW = 2  # years after the cited one
RATIO = 1.5
MARGIN = 20  # a young series (LC 4 when LC 2 is the highest held) is not judged by ratio alone
MIN_NORMS = 5  # held within the window: fewer say little of a series

_LEADING = re.compile(r"\d+")


class TownNumbering:
    """The highest number and the count of a town's norms of each family, year by year."""

    __slots__ = ("_years",)

    def __init__(self, norms: Iterable[tuple[str | None, str | None, int | None]]) -> None:
        """`norms`: (family, canonical number, year) of the town's norms."""
        years: dict[tuple[str, int], list[int]] = {}
        for family, number, year in norms:
            value = _value(number)
            if family not in FAMILIES or year is None or value is None:
                continue
            top = years.setdefault((family, year), [0, 0])
            top[0] = max(top[0], value)
            top[1] += 1
        self._years = years

    def __bool__(self) -> bool:
        return bool(self._years)

    def beyond(self, family: str, number: str | None, year: int | None) -> bool:
        """Is this number far beyond what the town had numbered around that year?"""
        value = _value(number)
        if family not in FAMILIES or year is None or value is None:
            return False
        highest = held = 0
        for y in range(year, year + WINDOW + 1):
            top = self._years.get((family, y))
            if top is not None:
                highest, held = max(highest, top[0]), held + top[1]
        return held >= MIN_NORMS and value > RATIO * highest and value - highest >= MARGIN


def _value(number: str | None) -> int | None:
    m = _LEADING.match(number or "")
    return int(m.group()) if m else None
