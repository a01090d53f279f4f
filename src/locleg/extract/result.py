"""What an extraction produces: page texts and one record for the document, failures included."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

PAGE_BREAK = "\f"
# Page methods that come from reading a format's own text, as opposed to OCR.
TEXT_METHODS = ("text", "html", "xml", "plain", "docx", "odt", "rtf", "doc")


@dataclass
class PageText:
    number: int  # 1-based
    text: str  # normalized text of the page
    # 'text' (PDF text layer), 'ocr', 'html', 'xml', 'plain', 'docx', 'odt', 'rtf', 'doc',
    # or 'none' (the page needs OCR and OCR was not run)
    method: str
    confidence: float | None  # 0..1
    chars: int
    backend: str | None = None  # 'pypdfium2', 'tesseract', ...
    dpi: int | None = None  # resolution the page was OCRed at
    detail: str | None = None  # why this method: "no text layer; images cover 100%"


@dataclass
class ExtractionResult:
    status: str  # 'extracted' | 'empty' | 'failed' | 'pending' (OCR needed but not run)
    method: str | None = None  # a page method, or 'mixed' (text layer and OCR), or 'zip'
    backend: str | None = None  # 'pypdfium2', 'tesseract', 'pypdfium2+tesseract', 'lxml', ...
    backend_version: str | None = None
    confidence: float | None = None  # page confidences weighted by characters
    pages: list[PageText] = field(default_factory=list)
    error: str | None = None  # for 'failed': one readable line
    detail: str | None = None  # why 'empty' or 'pending', or how the text was read
    duration_s: float = 0.0

    @property
    def text(self) -> str:
        """The whole text, pages separated by a form feed."""
        return PAGE_BREAK.join(p.text for p in self.pages)

    @property
    def chars(self) -> int:
        return sum(p.chars for p in self.pages)


def failed(error: str) -> ExtractionResult:
    return ExtractionResult(status="failed", error=error)


def weighted_confidence(pages: Sequence[PageText]) -> float | None:
    """Document confidence: page confidences weighted by characters; None without scored text."""
    scored = [(p.confidence, p.chars) for p in pages if p.confidence is not None and p.chars]
    total = sum(chars for _, chars in scored)
    if not total:
        return None
    return round(sum(conf * chars for conf, chars in scored) / total, 4)


def split_text(text: str, cap: int) -> list[str]:
    """Pieces of at most cap characters, cut at a line break, else a space, else anywhere.

    The line break or space where a piece ends is the only character not kept.
    """
    pieces: list[str] = []
    start = 0
    while len(text) - start > cap:
        end = start + cap
        cut = text.rfind("\n", start + cap // 2, end + 1)
        if cut < 0:
            cut = text.rfind(" ", start + cap // 2, end + 1)
        if cut < 0:
            pieces.append(text[start:end])
            start = end
        else:
            pieces.append(text[start:cut])
            start = cut + 1
    pieces.append(text[start:])
    return pieces


def cap_pages(result: ExtractionResult, cap: int) -> ExtractionResult:
    """Split every page longer than cap characters into several pages, renumbered in order.

    Each piece keeps its page's method, confidence and backend, and says which part of
    which page it is; the document's detail says how many pages were split.
    """
    if all(len(p.text) <= cap for p in result.pages):
        return result
    pages: list[PageText] = []
    split = []
    for page in result.pages:
        if len(page.text) <= cap:
            page.number = len(pages) + 1
            pages.append(page)
            continue
        pieces = split_text(page.text, cap)
        split.append(page.number)
        for index, piece in enumerate(pieces, 1):
            note = f"part {index} of {len(pieces)} of page {page.number}"
            pages.append(PageText(
                len(pages) + 1, piece, page.method, page.confidence, len(piece), page.backend,
                page.dpi, f"{note}: {page.detail}" if page.detail else note))
    result.pages = pages
    note = (f"{plural(len(split), 'page')} of more than {cap:,} characters split "
            f"(page{'s' if len(split) > 1 else ''} {page_ranges(split)}), "
            f"now {plural(len(pages), 'page')}")
    result.detail = f"{result.detail}; {note}" if result.detail else note
    return result


def plural(n: int, word: str) -> str:
    """'1 page', '9 pages' (the number formatted with thousands separators)."""
    return f"{n:,} {word if n == 1 else word + 's'}"


def page_ranges(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 5] -> '1-3, 5': page lists stay short in a detail line."""
    parts: list[str] = []
    start = prev = None
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        parts.append(str(start) if start == prev else f"{start}-{prev}")
    return ", ".join(parts)
