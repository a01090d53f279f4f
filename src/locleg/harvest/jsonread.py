"""Reading publishers' JSON defensively: streamed arrays, and values nested too deep to parse.

Python's json module recurses once per level and raises RecursionError on a value nested a
thousand deep, which a hostile or broken server can send in any field. Such a value is cut
down (levels past MAX_DEPTH become null) instead of failing the whole answer: the row it is
in loses that field, the rest of the listing goes on.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterator
from typing import Any

from .net import FetchError, status_error

MAX_DEPTH = 64
MAX_JSON_ITEM = 16 * 2**20  # one row of a streamed listing


def loads(text: str | bytes) -> Any:
    """json.loads, with values nested past MAX_DEPTH replaced by null. ValueError if invalid."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except RecursionError:
        return json.loads(prune(text))


def value_end(text: str, pos: int) -> int | None:
    """Where the JSON value starting at pos ends (exclusive); None if the text stops first.

    Only brackets and strings are followed, so it finds the end of a value of any depth
    without recursion; whether the value is valid is left to the parser.
    """
    depth, i, n = 0, pos, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            if i >= n:
                return None
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth <= 0:
                return i + 1
        elif depth == 0 and c in ",\r\n\t ":
            return i  # a scalar ends at a separator
        i += 1
    return None


def prune(text: str, max_depth: int = MAX_DEPTH) -> str:
    """The JSON text with every value nested deeper than max_depth replaced by null."""
    out: list[str] = []
    depth, i, n, start = 0, 0, len(text), 0
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "[{":
            if depth == max_depth:
                end = value_end(text, i)
                out.append(text[start:i])
                out.append("null")
                i = start = end if end is not None else n
                continue
            depth += 1
        elif c in "]}":
            depth -= 1
        i += 1
    out.append(text[start:])
    return "".join(out)


async def iter_json_array(chunks: AsyncIterator[bytes], url: str) -> AsyncIterator[Any]:
    """The items of a JSON array as the bytes arrive: a 100,000-row get_all never sits whole."""
    decoder = json.JSONDecoder()
    text = codecs.getincrementaldecoder("utf-8")("replace")
    buffer, pos, started, finished, expect_item = "", 0, False, False, True
    async for chunk in chunks:
        buffer = buffer[pos:] + text.decode(chunk)
        pos = 0
        while not finished:
            while pos < len(buffer) and buffer[pos] in " \t\r\n":
                pos += 1
            if pos >= len(buffer):
                break
            char = buffer[pos]
            if not started:
                if char != "[":
                    kind = "an HTML page" if char == "<" else "not a JSON array"
                    raise FetchError(f"{kind} instead of the listing: {url}", transient=True)
                started, pos = True, pos + 1
                continue
            if char == "]":
                finished, pos = True, pos + 1
                break
            if char == "," and not expect_item:
                expect_item, pos = True, pos + 1
                continue
            try:
                item, end = decoder.raw_decode(buffer, pos)
            except RecursionError:
                end = value_end(buffer, pos)
                if end is None:
                    break  # not whole yet
                try:
                    item = json.loads(prune(buffer[pos:end]))
                except ValueError:
                    raise FetchError(f"invalid JSON in the listing: {url}",
                                     transient=True) from None
            except json.JSONDecodeError:
                if len(buffer) - pos > MAX_JSON_ITEM:
                    raise FetchError(f"invalid JSON in the listing: {url}",
                                     transient=True) from None
                break  # the item is not whole yet
            if not expect_item:
                raise FetchError(f"invalid JSON in the listing (missing comma): {url}",
                                 transient=True)
            yield item
            pos, expect_item = end, False
    if not finished:
        raise FetchError(f"the listing ended before its closing bracket: {url}", transient=True)


def json_body(fetched, url: str) -> Any:
    """The JSON of a 200 answer, or a FetchError saying what came instead."""
    if fetched.status != 200:
        raise status_error(url, fetched.status, fetched.headers, fetched.body)
    content_type = fetched.headers.get("content-type", "")
    if "html" in content_type or fetched.body.lstrip()[:1] == b"<":
        raise FetchError(f"an HTML page instead of JSON (HTTP 200): {url}", transient=True)
    try:
        return loads(fetched.body)
    except ValueError as e:
        raise FetchError(f"invalid JSON ({e}): {url}", transient=True) from None
