"""A publisher's values as the store can keep them: any JSON value in, a safe value or None out.

A câmara's API can send anything in any field (an object where a string belongs, 10**30 as a
year, a lone surrogate, a NUL that PostgreSQL refuses). Every value a platform reads from a
row goes through one of these, so that one bad field costs that field, never the harvest.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from sqlalchemy import Column

from .net import http_url

# Lone surrogates cannot be encoded (SQLite, PostgreSQL, JSON files); NUL is refused by
# PostgreSQL; both come from JSON escapes ("\ud800", "\u0000").
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
MIN_YEAR, MAX_YEAR = 1000, 2999  # wide: a typo is kept, 10**30 is not
MAX_TEXT = 1_000_000  # characters of one field (an ementa of a megabyte is already absurd)


def text(value: Any, column: Column | None = None) -> str | None:
    """A string field: strings only, unstorable characters replaced, cut to the column width."""
    if not isinstance(value, str):
        return None
    if _UNSTORABLE.search(value):
        value = _UNSTORABLE.sub("\ufffd", value)
    width = getattr(column.type, "length", None) if column is not None else None
    return value[: width or MAX_TEXT]


def label(value: Any, column: Column | None = None) -> str | None:
    """A short code or name: a string, or a number written as one (SAPL's numero, ids)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        value = str(value)
    value = text(value, column)
    return value.strip() or None if value is not None else None


def integer(value: Any, low: int, high: int) -> int | None:
    """An int within [low, high]; bools, floats and strings are not ints."""
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return None


def year(value: Any) -> int | None:
    return integer(value, MIN_YEAR, MAX_YEAR)


def iso_date(value: Any) -> date | None:
    """A date from 'YYYY-MM-DD' (a time after it is ignored); None for anything else."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def native_id(value: Any) -> str | None:
    """A row's own id: a non-negative int (SAPL's primary keys), as a string."""
    found = integer(value, 0, 2**63 - 1)
    return str(found) if found is not None else None


def boolean(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def url(value: Any) -> str | None:
    """An http(s) URL we may follow, or None (empty, another scheme, a broken port...)."""
    try:
        return http_url(value)
    except ValueError:
        return None
