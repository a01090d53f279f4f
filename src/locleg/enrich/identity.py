"""Which records are one norm: jurisdiction + type family + number + year, and nothing looser.

A norm of a jurisdiction is known by its type family (LexML's tipoDocumento: "Lei" and "Lei
Ordinária" are both `lei`), its number ("2.199", "2199" and "02199" are one number; "12-A"
is not "12") and its year (decrees restart their numbering every year, so the year is part of
the key everywhere). Two records merge only when all four agree. A record that lacks one of
them — no year, "s/n", a generic type such as "Legislação Municipal" that its text did not
resolve — is never merged: it stands as a norm of its own and is listed as unmatched, with
the reason, on the quality page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from .numbering import canonical_number
from .types import OTHER, normalize_type

# A year outside this range is a typo or an OCR misreading, never a key.
FIRST_YEAR, LAST_YEAR = 1800, 2100
# "2199/2011", "2.199-2011", "45/13": dumps often write the year into the number.
_NUMBER_YEAR = re.compile(
    r"^(?P<number>.*?\d(?:-?[a-zA-Z])?)\s*[/-]\s*(?P<year>\d{4}|\d{2})$")


@dataclass(frozen=True)
class NormKey:
    jurisdiction_code: int
    family: str
    number: str
    year: int

    def __str__(self) -> str:
        return f"{self.jurisdiction_code}|{self.family}|{self.number}|{self.year}"

    @classmethod
    def parse(cls, text: str) -> NormKey:
        code, family, number, year = text.split("|")
        return cls(int(code), family, number, int(year))


@dataclass(frozen=True)
class Identity:
    """What a record says the norm is, and the key it merges by (None: it stands alone)."""

    family: str | None
    number: str | None
    year: int | None
    key: NormKey | None
    unmatched: str | None  # why there is no key
    family_from: str | None = None  # "metadata" or "text": where the type family came from


def family_of(type_normalized: str | None, type_raw: str | None) -> str | None:
    """The LexML type family of a record: the source's own mapping, else its raw label's."""
    family = (type_normalized or "").strip().lower() or normalize_type(type_raw)
    return family or None


def identify(jurisdiction_code: int, *, type_normalized: str | None, type_raw: str | None,
             number: str | None, year: int | None, signed: date | None,
             text_family: str | None = None) -> Identity:
    """The identity of a record from its metadata; text_family types a generic record.

    The year comes from the record's year, else its date's; a year and a date that disagree
    keep the year (SAPL's `ano` is the numbering year).
    """
    family = family_of(type_normalized, type_raw)
    family_from = "metadata" if family and family != OTHER else None
    if (family is None or family == OTHER) and text_family and text_family != OTHER:
        family, family_from = text_family, "text"
    if year is None and signed is not None:
        year = signed.year
    number, year = split_number_year(number, year)
    canonical = canonical_number(number)
    if year is not None and not FIRST_YEAR <= year <= LAST_YEAR:
        return Identity(family, canonical, year, None, f"implausible year {year}", family_from)
    reason = None
    if family is None:
        reason = "no type"
    elif family == OTHER:
        reason = f"generic type ({type_raw or 'none'}) not resolved by its text"
    elif canonical is None:
        reason = "no number (s/n)"
    elif year is None:
        reason = "no year"
    if reason:
        return Identity(family, canonical, year, None, reason, family_from)
    return Identity(family, canonical, year, NormKey(jurisdiction_code, family, canonical, year),
                    None, family_from)


def split_number_year(number: str | None, year: int | None) -> tuple[str | None, int | None]:
    """'2199/2011' -> ('2199', 2011); the year kept only when it agrees with the one given.

    A two-digit year reads as 19xx or 20xx, whichever is not after the record's own year
    (or after this year when it has none).
    """
    if not number:
        return number, year
    match = _NUMBER_YEAR.match(number.strip())
    if not match:
        return number, year
    written = int(match["year"])
    if len(match["year"]) == 2:
        latest = year or date.today().year
        century = latest // 100 * 100
        written += century if century + written <= latest else century - 100
    if year is not None and written != year:
        return number, year  # "12/2011" with year 2013: not a year suffix, leave it be
    return match["number"], written
