"""PDF text layer with pypdfium2, page by page, and the decision which pages need OCR."""

from __future__ import annotations

from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pypdfium2.version import PDFIUM_INFO, PYPDFIUM_INFO

from .lexicon import assess
from .normalize import normalize_text
from .result import ExtractionResult, PageText, failed, page_ranges, weighted_confidence

BACKEND = "pypdfium2"
BACKEND_VERSION = f"{PYPDFIUM_INFO} (pdfium {PDFIUM_INFO})"

# The combined rule of extraction.md (114 of 114 pages right on its test set).
MIN_CHARS = 100  # fewer non-blank characters: judge the page by what is drawn on it
MIN_IMAGE_COVER = 0.30  # share of the page under images: a scan
MANY_PATHS = 500  # vector paths on a near-empty page: text drawn as outlines
MIN_DICT_RATIO = 0.80  # below: a garbage OCR layer or a font without a character map
MAX_GARBAGE = 0.01  # above: control chars, U+FFFD, (cid:N)

_ERRORS = {
    pdfium_c.FPDF_ERR_PASSWORD: "encrypted PDF",
    pdfium_c.FPDF_ERR_SECURITY: "encrypted PDF (unsupported security handler)",
}
_REASONS = {
    pdfium_c.FPDF_ERR_UNKNOWN: "unknown error",
    pdfium_c.FPDF_ERR_FILE: "file access error",
    pdfium_c.FPDF_ERR_FORMAT: "data format error",
    pdfium_c.FPDF_ERR_PAGE: "page not found or content error",
}


@dataclass(frozen=True)
class Drawing:
    image_cover: float  # 0..1
    paths: int


def needs_ocr(
    chars: int,
    dict_ratio: float | None,
    garbage_ratio: float,
    drawing: Drawing | None = None,
) -> bool:
    """True when a page's text layer is missing or unusable, so only OCR can read it."""
    if chars >= MIN_CHARS:
        few_words = dict_ratio is not None and dict_ratio < MIN_DICT_RATIO
        return few_words or garbage_ratio > MAX_GARBAGE
    if drawing is None:
        return False
    return drawing.image_cover >= MIN_IMAGE_COVER or drawing.paths >= MANY_PATHS


def measure_drawing(page: pdfium.PdfPage) -> Drawing:
    """Image cover and path count of a page, form XObjects included."""
    box = page.get_mediabox()  # object bounds are in this space, before any /Rotate
    area = (box[2] - box[0]) * (box[3] - box[1]) or 1.0
    covered = 0.0
    paths = 0
    for obj in page.get_objects(max_depth=1):
        if obj.type == pdfium_c.FPDF_PAGEOBJ_PATH:
            paths += 1
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            covered += _overlap(obj.get_bounds(), box)
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_FORM:
            # Bounds inside a form are in the form's own space: measure the form instead.
            inner = [o.type for o in page.get_objects(form=obj, level=1)]
            paths += inner.count(pdfium_c.FPDF_PAGEOBJ_PATH)
            if pdfium_c.FPDF_PAGEOBJ_IMAGE in inner:
                covered += _overlap(obj.get_bounds(), box)
    # Overlapping images may add up past the page; a share is enough here.
    return Drawing(min(1.0, covered / area), paths)


def _overlap(bounds: tuple[float, float, float, float], box: tuple[float, ...]) -> float:
    left, bottom, right, top = bounds
    w = min(right, box[2]) - max(left, box[0])
    h = min(top, box[3]) - max(bottom, box[1])
    return w * h if w > 0 and h > 0 else 0.0


def _read_page(pdf: pdfium.PdfDocument, index: int) -> PageText:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            raw = textpage.get_text_range(errors="replace")
        finally:
            textpage.close()
        text = normalize_text(raw)
        quality = assess(raw, text)
        drawing = measure_drawing(page) if quality.chars < MIN_CHARS else None
    finally:
        page.close()
    if needs_ocr(quality.chars, quality.dict_ratio, quality.garbage_ratio, drawing):
        return PageText(index + 1, "", "none", None, 0)
    return PageText(index + 1, text, "text", quality.confidence, len(text))


def _open_error(e: pdfium.PdfiumError, data: bytes) -> ExtractionResult:
    if _loads_without_pages(data):
        # pypdfium2 refuses a document with no pages; pdfium itself loads it fine.
        return _result("empty", detail="no pages")
    if e.err_code in _ERRORS:
        return _record(failed(_ERRORS[e.err_code]))
    reason = _REASONS.get(e.err_code, str(e))
    if b"%%EOF" not in data[-2048:]:
        reason += "; truncated (no %%EOF at the end)"
    return _record(failed(f"corrupted PDF: {reason}"))


def _loads_without_pages(data: bytes) -> bool:
    # The error code pypdfium2 reports for a zero-page document is whatever failed last, so
    # ask pdfium directly whether the document loads.
    doc = pdfium_c.FPDF_LoadMemDocument64(data, len(data), None)
    if not doc:
        return False
    try:
        return pdfium_c.FPDF_GetPageCount(doc) == 0
    finally:
        pdfium_c.FPDF_CloseDocument(doc)


def _record(result: ExtractionResult) -> ExtractionResult:
    result.backend, result.backend_version = BACKEND, BACKEND_VERSION
    return result


def _result(
    status: str,
    method: str | None = None,
    confidence: float | None = None,
    pages: list[PageText] | None = None,
    detail: str | None = None,
) -> ExtractionResult:
    return _record(
        ExtractionResult(status, method, confidence=confidence, pages=pages or [], detail=detail)
    )


def extract_pdf(data: bytes) -> ExtractionResult:
    """Text layer of every page; pages without a usable one are left for OCR ('pending')."""
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        return _open_error(e, data)
    try:
        pages = []
        for index in range(len(pdf)):
            try:
                pages.append(_read_page(pdf, index))
            except pdfium.PdfiumError as e:
                return _record(failed(f"corrupted PDF: page {index + 1}: {e}"))
    finally:
        pdf.close()
    return summarize(pages)


def summarize(pages: list[PageText]) -> ExtractionResult:
    """The document record from its pages: extracted, empty, or pending OCR (maybe mixed)."""
    total = len(pages)
    if not total:
        return _result("empty", detail="no pages")
    ocr = [p.number for p in pages if p.method == "none"]
    with_text = any(p.method == "text" and p.chars for p in pages)
    confidence = weighted_confidence(pages)
    if ocr:
        return _result(
            "pending",
            method="mixed" if with_text else None,
            confidence=confidence,
            pages=pages,
            detail=f"needs OCR: {len(ocr)} of {total} {_plural(total, 'page')}"
            f" {'has' if len(ocr) == 1 else 'have'} no usable text layer"
            f" ({_plural(len(ocr), 'page')} {page_ranges(ocr)})",
        )
    if not with_text:
        detail = f"no text on {total} {_plural(total, 'page')}"
        return _result("empty", "text", pages=pages, detail=detail)
    return _result("extracted", method="text", confidence=confidence, pages=pages)


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"
