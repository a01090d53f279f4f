"""Text extraction: sniff a document's type from its bytes and read its text, page by page.

    >>> from locleg.extract import extract
    >>> result = extract(pdf_bytes)
    >>> result.status, result.method, result.confidence, result.text

PDF text layers (pypdfium2), HTML (lxml) and plain text (charset-normalizer) are read now;
pages without a usable text layer are marked for OCR (status 'pending', page method 'none').
"""

from .dispatch import extract
from .result import ExtractionResult, PageText
from .sniff import sniff_media_type

__all__ = ["ExtractionResult", "PageText", "extract", "sniff_media_type"]
