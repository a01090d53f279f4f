"""Choose the extractor from a document's bytes, run and time it; bad input never raises."""

from __future__ import annotations

import time
import zipfile
import zlib

import pypdfium2 as pdfium
from lxml import etree

from . import sniff
from .archive import ArchiveError, extract_zip
from .html import extract_html, extract_xml
from .image import IMAGE_ERRORS, extract_image
from .lexicon import DictionaryUnavailable
from .limits import DEFAULT_LIMITS, Limits, human_bytes
from .ocr import OcrFailed, OcrUnavailable
from .office import extract_doc, extract_docx, extract_odt, extract_rtf
from .pdf import OCR_MODES, extract_pdf
from .plain import extract_plain
from .result import ExtractionResult, cap_pages, failed

# Errors that bad input can cause inside the backends; anything else is a bug and raises.
_INPUT_ERRORS = (pdfium.PdfiumError, etree.LxmlError, UnicodeError, ValueError, RecursionError,
                 ArchiveError, zipfile.BadZipFile, zlib.error, *IMAGE_ERRORS)
_WORD_PROCESSORS = {
    sniff.DOCX: lambda data, limits: extract_docx(data, limits),
    sniff.ODT: lambda data, limits: extract_odt(data, limits),
    sniff.RTF: lambda data, limits: extract_rtf(data),
    sniff.DOC: lambda data, limits: extract_doc(data),
}


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


def extract(
    data: bytes,
    media_type: str | None = None,
    *,
    ocr: str = "auto",
    limits: Limits = DEFAULT_LIMITS,
) -> ExtractionResult:
    """Extract the text of a document; never raises on bad input (status 'failed' instead).

    media_type, a server's Content-Type or the importer's sniffed type, is only a hint: the
    bytes decide, except that a promised PDF that turns out to be a web page fails as such,
    and a server's charset is used when the bytes do not settle the encoding.

    ocr: 'auto' OCRs the PDF pages without a usable text layer and images; 'never' leaves
    them without text (status 'pending'); 'always' OCRs every PDF page.
    """
    if ocr not in OCR_MODES:
        raise ValueError(f"ocr must be one of {OCR_MODES}, not {ocr!r}")
    start = time.perf_counter()
    declared, charset = _parse_declared(media_type)
    result = _dispatch(bytes(data), declared, charset, ocr, limits, 0)  # pdfium wants bytes
    cap_pages(result, limits.page_chars)
    result.duration_s = time.perf_counter() - start
    return result


def _dispatch(data: bytes, declared: str | None, charset: str | None, ocr: str,
              limits: Limits, depth: int) -> ExtractionResult:
    if len(data) > limits.file_bytes:
        return failed(f"file too large ({human_bytes(len(data))}; limit "
                      f"{human_bytes(limits.file_bytes)})")
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
            return extract_pdf(data, ocr, limits)
        if found == sniff.HTML:
            return extract_html(data, charset)
        if found == sniff.XML:
            return extract_xml(data)
        if found.startswith("text/"):
            return extract_plain(data, charset)
        if found in _WORD_PROCESSORS:
            return _WORD_PROCESSORS[found](data, limits)
        if found in sniff.IMAGES:
            if ocr == "never":
                return ExtractionResult("pending", detail=f"needs OCR: an image ({found})")
            return extract_image(data, found, limits)
        if found == sniff.ZIP:
            return extract_zip(
                data, lambda member, level: _dispatch(member, None, None, ocr, limits, level),
                limits, depth,
            )
    except OcrUnavailable as e:
        return failed(f"OCR unavailable: {e}")
    except DictionaryUnavailable as e:
        return failed(f"word check unavailable: {e}")
    except OcrFailed as e:
        return failed(f"OCR failed: {e}")
    except _INPUT_ERRORS as e:
        return failed(f"cannot read {found}: {type(e).__name__}: {e}")
    if found == sniff.OCTET:
        return failed(f"unknown format ({found})")
    return failed(f"unsupported format ({found})")
