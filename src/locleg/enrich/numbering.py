"""How norms are numbered: one canonical form for "2.199", "2199" and "02199", never for "12-A"
and "12", and none for "s/n".

Used wherever two writings of a number must compare: matching records of one norm, reading a
heading, resolving a citation.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..jurisdictions import fold

# "s/n", "S/N", "sem número", "sn", "-", "0": a norm without a number.
_NO_NUMBER = re.compile(r"^(s\s*/?\s*n[ºo°]?|sem\s+n[uú]mero|n/?c|-+|0+)$", re.IGNORECASE)
# Digits with thousands dots or spaces, then an optional letter suffix: 2.199, 12-A, 12A, 45-B.
_NUMBER = re.compile(r"^0*(?P<digits>\d{1,3}(?:[.\s]\d{3})+|\d+)\s*(?:-\s*)?(?P<suffix>[a-z])?$")


@lru_cache(maxsize=65536)  # numbers repeat across records, headings and citations
def canonical_number(raw: str | None) -> str | None:
    """'2.199' -> '2199', '02199' -> '2199', '12-A' and '12a' -> '12-A', 's/n' -> None.

    A number that does not read as digits with an optional letter ("II", "12/2011",
    "2199-2011") is returned folded and stripped, never guessed into another number: only
    equal writings of the same digits become equal.
    """
    if raw is None:
        return None
    text = " ".join(str(raw).split()).strip(" .,;:")
    text = re.sub(r"^n[ºo°]\.?\s*", "", text, flags=re.IGNORECASE)
    if not text or _NO_NUMBER.match(text):
        return None
    match = _NUMBER.match(fold(text))
    if not match:
        return fold(text).upper() or None
    digits = re.sub(r"[.\s]", "", match["digits"]).lstrip("0") or "0"
    if digits == "0":
        return None
    return f"{digits}-{match['suffix'].upper()}" if match["suffix"] else digits
