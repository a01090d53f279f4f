"""LexML URNs for norms: urn:lex:<local>:<autoridade>:<tipo>:<data>;<numero>."""

from __future__ import annotations

import re
from datetime import date

from .types import OTHER

_AUTHORITY = {"municipal": "municipal", "estadual": "estadual", "distrital": "distrital"}


def lexml_number(number: str | None) -> str | None:
    """'2.199' -> 2199, '12-A' -> 12-a; None when there is nothing to cite."""
    if not number:
        return None
    cleaned = re.sub(r"[.\s]", "", number).lower()
    return cleaned or None


def norm_urn(lexml_label: str, level: str, type_normalized: str | None,
             signed: date | None, number: str | None) -> str | None:
    """The norm's URN, or None when the type, date or number is unknown (no guessing)."""
    numero = lexml_number(number)
    if not type_normalized or type_normalized == OTHER or signed is None or numero is None:
        return None
    authority = _AUTHORITY.get(level, level)
    return f"urn:lex:{lexml_label}:{authority}:{type_normalized}:{signed.isoformat()};{numero}"
