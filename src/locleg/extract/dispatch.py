"""Choose the extractor from a document's bytes, run and time it; bad input never raises."""

from __future__ import annotations

import time

import pypdfium2 as pdfium
from lxml import etree

from . import sniff
from .html import extract_html
from .pdf import extract_pdf
from .plain import extract_plain
from .result import ExtractionResult, failed

# Formats a later extractor will read (office documents, images for OCR, archives).
_LATER = "no extractor yet for {}"
# Errors that bad input can cause inside the backends; anything else is a bug and raises.
_INPUT_ERRORS = (pdfium.PdfiumError, etree.LxmlError, UnicodeError, ValueError, RecursionError)


def _parse_declared(media_type: str | None) -> tuple[str | None, str | None]:
    """'text/html; charset=ISO-8859-1' -> ('text/html', 'ISO-8859-1')."""
    if not media_type:
        return None, None
    kind, _, params = media_type.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'")
    return kind.strip().lower() or None, charset


def extract(data: bytes, media_type: str | None = None) -> ExtractionResult:
    """Extract the text of a document; never raises on bad input (status 'failed' instead).

    media_type, a server's Content-Type or the importer's sniffed type, is only a hint: the
    bytes decide, except that a promised PDF that turns out to be a web page fails as such,
    and a server's charset is used when the bytes do not settle the encoding.
    """
    start = time.perf_counter()
    result = _dispatch(bytes(data), *_parse_declared(media_type))  # pdfium wants bytes
    result.duration_s = time.perf_counter() - start
    return result


def _dispatch(data: bytes, declared: str | None, charset: str | None) -> ExtractionResult:
    found = sniff.sniff_media_type(data)
    if found == sniff.EMPTY:
        return failed("empty file")
    if declared == sniff.PDF and found in (sniff.HTML, sniff.PLAIN):
        # A server that promised a PDF and sent a page sent an error or a login page.
        return failed("not a PDF (HTML error page)" if found == sniff.HTML else "not a PDF (text)")
    if found == sniff.PLAIN and declared in (sniff.HTML, "application/xhtml+xml"):
        found = sniff.HTML  # a fragment without tags we recognize: trust the server
    try:
        if found == sniff.PDF:
            return extract_pdf(data)
        if found == sniff.HTML:
            return extract_html(data, charset)
        if found.startswith("text/"):
            return extract_plain(data, charset)
    except _INPUT_ERRORS as e:
        return failed(f"cannot read {found}: {type(e).__name__}: {e}")
    if found == sniff.OCTET:
        return failed(f"unknown format ({found})")
    return ExtractionResult(status="pending", detail=_LATER.format(found))
