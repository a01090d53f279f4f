"""What a column accepts: the values either database would refuse, found before writing.

SQLite stores almost anything; PostgreSQL refuses a NUL in text, a string over a
varchar's width, an integer beyond its type and an index entry over a third of a page. A
batch holding one such value aborts whole, so input is checked against the schema first and
both backends refuse the same values.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from sqlalchemy import (
    BigInteger,
    Column,
    Integer,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Table,
    UniqueConstraint,
)

# PostgreSQL's btree refuses an entry over 2,704 bytes (after compression, which random text
# escapes); this leaves room for the other columns of a composite key.
INDEXED_TEXT_BYTES = 2000
# Most specific first: BigInteger and SmallInteger are Integers too.
_INTEGER_BITS = ((BigInteger, 64), (SmallInteger, 16), (Integer, 32))


def _indexed(column: Column) -> bool:
    table = column.table
    in_index = any(column.name in index.columns for index in table.indexes)
    in_constraint = any(
        column.name in constraint.columns for constraint in table.constraints
        if isinstance(constraint, UniqueConstraint | PrimaryKeyConstraint)
    )
    return in_index or in_constraint


def integer_range(column: Column) -> tuple[int, int] | None:
    """The smallest and largest value of an integer column; None for other types."""
    for kind, bits in _INTEGER_BITS:
        if isinstance(column.type, kind):
            return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return None


def text_refusal(text: str) -> str | None:
    """Why no text column would take TEXT (a NUL, a lone surrogate), or None."""
    if "\x00" in text:
        return "contains a NUL character (U+0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"contains a lone surrogate (U+{ord(text[e.start]):04X}), not a character"
    return None


@cache
def _rules(column: Column) -> tuple[int | None, bool, tuple[int, int] | None]:
    """(varchar width, indexed unbounded text, integer range) of a column, worked out once."""
    width = column.type.length if isinstance(column.type, String) else None
    return width, width is None and _indexed(column), integer_range(column)


def refusal(column: Column, value: object) -> str | None:
    """Why the database would refuse VALUE in COLUMN, or None when it fits."""
    if value is None:
        return None
    width, indexed, bounds = _rules(column)
    if isinstance(value, str):
        why = text_refusal(value)
        if why:
            return why
        if width is not None and len(value) > width:
            return f"is longer than {width:,} characters ({len(value):,})"
        if indexed and len(value) > INDEXED_TEXT_BYTES // 4:  # 4 bytes at most a character
            size = len(value.encode("utf-8"))
            if size > INDEXED_TEXT_BYTES:
                return (f"is longer than {INDEXED_TEXT_BYTES:,} bytes ({size:,}), "
                        "the most an indexed text can hold")
        return None
    if bounds and isinstance(value, int) and not isinstance(value, bool):
        if not bounds[0] <= value <= bounds[1]:
            return f"is out of range ({bounds[0]:,} to {bounds[1]:,})"
    return None


@cache
def _columns(table: Table) -> dict[str, Column]:
    return {c.name: c for c in table.c}  # a plain dict: checked for every row of an import


def refusals(table: Table, row: Mapping[str, object]) -> list[tuple[str, str]]:
    """(column, why) for every value of ROW that TABLE would refuse."""
    columns = _columns(table)
    return [(name, why) for name, value in row.items()
            if value is not None and name in columns
            and (why := refusal(columns[name], value)) is not None]
