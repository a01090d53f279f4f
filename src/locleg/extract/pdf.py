"""PDF: the text layer with pypdfium2 page by page, the per-page OCR decision, OCR of the rest.

Each page is read from its text layer when that layer is usable; otherwise the page is
rendered (at the resolution of its scan, then resampled to 300 dpi) and OCRed. A
born-digital law with a scanned annex OCRs only the annex pages (method 'mixed').
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pypdfium2.version import PDFIUM_INFO, PYPDFIUM_INFO

from . import ocr
from .lexicon import TextQuality, assess
from .limits import DEFAULT_LIMITS, Limits
from .normalize import normalize_text
from .result import (
    ExtractionResult,
    PageText,
    failed,
    page_ranges,
    plural,
    weighted_confidence,
)

BACKEND = "pypdfium2"
BACKEND_VERSION = f"{PYPDFIUM_INFO} (pdfium {PDFIUM_INFO.build})"

# The combined rule of extraction.md (114 of 114 pages right on its test set; the labelled
# set of fixtures.pdf_cases.needs_ocr_cases() checks it here).
MIN_CHARS = 100  # fewer non-blank characters: judge the page by what is drawn on it
MIN_IMAGE_COVER = 0.30  # share of the page under images: a scan
MANY_PATHS = 500  # vector paths on a near-empty page: text drawn as outlines
MIN_WORD_SHARE = 0.80  # below: a garbage OCR layer or a font without a character map
MAX_GARBAGE = 0.01  # above: control chars, U+FFFD, (cid:N)

# Rendering for OCR: a scan at its own resolution (its pixels as they are), which
# ocr.at_ocr_resolution then resamples to 300 dpi; past 300 tesseract gains nothing.
MAX_RENDER_DPI = 300
MIN_RENDER_DPI_SCAN = 72  # a thumbnail stretched over the page
VECTOR_RENDER_DPI = 300  # a page with no image (outlines, a broken font) renders sharp at any dpi
MIN_RENDER_DPI = 50  # a page so large that the pixel limit forces less is not OCRed

OCR_MODES = ("auto", "always", "never")

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
    image_dpi: float | None = None  # resolution of the largest image, in its own pixels


def needs_ocr(
    chars: int,
    word_share: float | None,
    garbage_ratio: float,
    drawing: Drawing | None = None,
) -> bool:
    """True when a page's text layer is missing or unusable, so only OCR can read it."""
    return ocr_reason(chars, word_share, garbage_ratio, drawing) is not None


def ocr_reason(
    chars: int,
    word_share: float | None,
    garbage_ratio: float,
    drawing: Drawing | None = None,
) -> str | None:
    """Why a page needs OCR, in words for the page record; None when its text layer is good."""
    if chars >= MIN_CHARS:
        if garbage_ratio > MAX_GARBAGE:
            return f"text layer unusable: {garbage_ratio:.0%} garbage characters"
        if word_share is not None and word_share < MIN_WORD_SHARE:
            return f"text layer unusable: {word_share:.0%} known words"
        return None
    if drawing is None:
        return None
    if drawing.image_cover >= MIN_IMAGE_COVER:
        what = "no text layer" if chars == 0 else f"{chars} characters of text"
        return f"{what}; images cover {drawing.image_cover:.0%} of the page"
    if drawing.paths >= MANY_PATHS:
        return f"text drawn as outlines ({drawing.paths:,} vector paths)"
    return None


def measure_drawing(page: pdfium.PdfPage) -> Drawing:
    """Image cover, path count and scan resolution of a page, form XObjects included."""
    box = page.get_mediabox()  # object bounds are in this space, before any /Rotate
    area = (box[2] - box[0]) * (box[3] - box[1]) or 1.0
    covered = 0.0
    paths = 0
    largest, dpi = 0.0, None
    for obj in page.get_objects(max_depth=1):
        if obj.type == pdfium_c.FPDF_PAGEOBJ_PATH:
            paths += 1
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE:
            bounds = obj.get_bounds()
            shown = _overlap(bounds, box)
            covered += shown
            if shown > largest:
                largest, dpi = shown, _image_dpi(obj, bounds)
        elif obj.type == pdfium_c.FPDF_PAGEOBJ_FORM:
            # Bounds inside a form are in the form's own space: measure the form instead.
            inner = list(page.get_objects(form=obj, level=1))
            paths += sum(1 for o in inner if o.type == pdfium_c.FPDF_PAGEOBJ_PATH)
            images = [o for o in inner if o.type == pdfium_c.FPDF_PAGEOBJ_IMAGE]
            if images:
                bounds = obj.get_bounds()
                shown = _overlap(bounds, box)
                covered += shown
                if shown > largest:
                    largest, dpi = shown, _image_dpi(images[0], bounds)
    # Overlapping images may add up past the page; a share is enough here.
    return Drawing(min(1.0, covered / area), paths, dpi)


def _image_dpi(image: pdfium.PdfImage, bounds: tuple[float, float, float, float]) -> float | None:
    """Pixels per inch of an image as placed; the geometric mean ignores a 90° turn."""
    try:
        width_px, height_px = image.get_px_size()
    except pdfium.PdfiumError:
        return None
    width_pt, height_pt = bounds[2] - bounds[0], bounds[3] - bounds[1]
    if width_px <= 0 or height_px <= 0 or width_pt <= 1 or height_pt <= 1:
        return None
    return math.sqrt(width_px * height_px / (width_pt * height_pt)) * 72


def _overlap(bounds: tuple[float, float, float, float], box: tuple[float, ...]) -> float:
    left, bottom, right, top = bounds
    w = min(right, box[2]) - max(left, box[0])
    h = min(top, box[3]) - max(bottom, box[1])
    return w * h if w > 0 and h > 0 else 0.0


def render_dpi(drawing: Drawing | None) -> int:
    """The resolution to render a page at for OCR: its scan's own, capped at 300."""
    if drawing is None or drawing.image_dpi is None or drawing.image_cover < MIN_IMAGE_COVER:
        return VECTOR_RENDER_DPI
    return round(min(MAX_RENDER_DPI, max(MIN_RENDER_DPI_SCAN, drawing.image_dpi)))


def _text_layer(page: pdfium.PdfPage) -> tuple[str, str, TextQuality]:
    textpage = page.get_textpage()
    try:
        raw = textpage.get_text_range(errors="replace")
    finally:
        textpage.close()
    text = normalize_text(raw)
    return raw, text, assess(raw, text)


def _ocr_page(page: pdfium.PdfPage, number: int, drawing: Drawing | None, reason: str,
              limits: Limits) -> PageText:
    dpi = render_dpi(drawing)
    width, height = page.get_size()
    # A huge page (a map, a poster) is rendered coarser rather than past the pixel limit.
    fitting = int(72 * math.sqrt(limits.pixels / max(1.0, width * height)))
    if fitting < dpi:
        dpi = fitting
        if dpi < MIN_RENDER_DPI:
            return PageText(number, "", "ocr", None, 0, ocr.BACKEND, None,
                            f"{reason}; page too large to OCR ({width / 72:.0f}×"
                            f"{height / 72:.0f} in)")
    bitmap = page.render(scale=dpi / 72, grayscale=True, may_draw_forms=True)
    try:
        image, read_at = ocr.at_ocr_resolution(bitmap.to_pil(), dpi, limits.pixels)
        found = ocr.recognize(image, read_at)
    finally:
        bitmap.close()
    text = normalize_text(found.text)
    chars = len(text)
    notes = [reason]
    if read_at != dpi:
        notes.append(f"scan of {dpi} dpi read at {read_at}")
    if ocr.coverage_note(found):
        notes.append(ocr.coverage_note(found))
    return PageText(number, text, "ocr", found.confidence if chars else None, chars,
                    ocr.BACKEND, read_at, "; ".join(notes))


def _read_page(pdf: pdfium.PdfDocument, index: int, mode: str, limits: Limits) -> PageText:
    page = pdf[index]
    try:
        if mode == "always":
            return _ocr_page(page, index + 1, measure_drawing(page),
                             "OCR of every page requested", limits)
        raw, text, quality = _text_layer(page)
        drawing = measure_drawing(page) if quality.chars < MIN_CHARS else None
        reason = ocr_reason(quality.chars, quality.word_share, quality.garbage_ratio, drawing)
        if reason is None:
            return PageText(index + 1, text, "text", quality.confidence, len(text), BACKEND)
        if mode == "never":
            return PageText(index + 1, "", "none", None, 0, None, None, reason)
        if drawing is None:
            drawing = measure_drawing(page)
        return _ocr_page(page, index + 1, drawing, reason, limits)
    finally:
        page.close()


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


def extract_pdf(data: bytes, ocr_mode: str = "auto",
                limits: Limits = DEFAULT_LIMITS) -> ExtractionResult:
    """Every page from its text layer, or OCR where that layer is missing or unusable.

    ocr_mode 'never' leaves those pages without text (method 'none', document 'pending');
    'always' OCRs every page whatever its text layer (the reference of the mixed-corpus bench).
    """
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        return _open_error(e, data)
    try:
        count = len(pdf)
        if count > limits.pages:
            return _record(failed(f"too many pages ({count:,}; limit {limits.pages:,})"))
        pages = []
        for index in range(count):
            try:
                pages.append(_read_page(pdf, index, ocr_mode, limits))
            except pdfium.PdfiumError as e:
                return _record(failed(f"corrupted PDF: page {index + 1}: {e}"))
    finally:
        pdf.close()
    return summarize(pages)


def summarize(pages: list[PageText]) -> ExtractionResult:
    """The document record from its pages: extracted, empty, or pending OCR; method and backend."""
    total = len(pages)
    if not total:
        return _result("empty", detail="no pages")
    pending = [p.number for p in pages if p.method == "none"]
    ocred = [p.number for p in pages if p.method == "ocr"]
    with_text = any(p.method == "text" and p.chars for p in pages)
    confidence = weighted_confidence(pages)
    if pending:
        return _result(
            "pending",
            method="mixed" if with_text else None,
            confidence=confidence,
            pages=pages,
            detail=f"needs OCR: {len(pending)} of {plural(total, 'page')}"
            f" {'has' if len(pending) == 1 else 'have'} no usable text layer"
            f" ({'page' if len(pending) == 1 else 'pages'} {page_ranges(pending)})",
        )
    result = _result("extracted", confidence=confidence, pages=pages)
    if ocred and with_text:
        result.method = "mixed"
        result.backend = f"{BACKEND}+{ocr.BACKEND}"
        result.backend_version = f"pypdfium2 {PYPDFIUM_INFO}, tesseract {ocr.version()}"
        result.detail = (f"OCR on {len(ocred)} of {plural(total, 'page')}"
                         f" ({'page' if len(ocred) == 1 else 'pages'} {page_ranges(ocred)})")
    elif ocred:
        result.method = "ocr"
        result.backend, result.backend_version = ocr.BACKEND, ocr.backend_version()
        dpis = sorted({p.dpi for p in pages if p.dpi})
        result.detail = f"OCR of {plural(total, 'page')}" + (
            f" at {'/'.join(map(str, dpis))} dpi" if dpis else "")
    else:
        result.method = "text"
    if not result.chars:
        result.status, result.confidence = "empty", None
        result.detail = f"no text on {plural(total, 'page')}" + (
            f" (OCR found none on {page_ranges(ocred)})" if ocred else "")
    return result
