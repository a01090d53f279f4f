"""Text a spreadsheet would run as a formula, made inert: the one rule for every CSV we write
(search exports on the web and the CLI, bulk releases).

A cell starting with one of FORMULA_START is a formula (or becomes one) in Excel,
LibreOffice and Google Sheets: OWASP's advice is to prefix it with a single quote, which
spreadsheets show as text and which leaves the value readable by anyone else.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_FORMULA = "^[" + re.escape("".join(FORMULA_START)) + "]"


def inert(value: str) -> str:
    """The value, with a quote before it if a spreadsheet would run it."""
    return "'" + value if value.startswith(FORMULA_START) else value


def inert_column(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """inert() over a column of strings at Arrow's speed (other columns are returned as
    they are: numbers and times are never formulas)."""
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return column
    if isinstance(column, pa.ChunkedArray):
        return pa.chunked_array([inert_column(c) for c in column.chunks], type=column.type)
    # Found with one anchored pattern (16 ms for 100 MB of page text); the few cells found
    # are rewritten alone and the column put together again around them by slices, one
    # copy: Arrow's if_else and replace_with_mask on strings took 4 s for those 100 MB.
    found = pc.indices_nonzero(pc.match_substring_regex(column, _FORMULA)).to_pylist()
    if not found:
        return column
    pieces, after = [], 0
    for i in found:
        pieces += [column.slice(after, i - after), pa.array([inert(column[i].as_py())],
                                                          type=column.type)]
        after = i + 1
    pieces.append(column.slice(after))
    return pa.concat_arrays(pieces)
