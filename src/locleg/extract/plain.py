"""Plain text files in any common encoding, as one page."""

from __future__ import annotations

import charset_normalizer

from .encoding import decode_text
from .lexicon import assess
from .normalize import normalize_text
from .result import ExtractionResult, PageText

BACKEND = "charset-normalizer"
BACKEND_VERSION = charset_normalizer.__version__


def extract_plain(data: bytes, charset: str | None = None) -> ExtractionResult:
    """Decode (BOM, valid UTF-8, declared charset, detection), normalize, score."""
    raw, encoding = decode_text(data, charset)
    result = ExtractionResult(status="empty", method="plain", backend=BACKEND,
                              backend_version=BACKEND_VERSION, detail=f"encoding {encoding}")
    return single_page(result, raw, "no text in the file")


def single_page(result: ExtractionResult, raw: str, empty_detail: str) -> ExtractionResult:
    """Fill a one-page document's result (text, HTML, XML): normalized text and its score.

    The result stays 'empty' with empty_detail when nothing is left after normalization.
    """
    text = normalize_text(raw)
    if not text:
        result.detail = empty_detail
        return result
    quality = assess(raw, text)
    result.status = "extracted"
    result.confidence = quality.confidence
    result.pages = [PageText(1, text, result.method, quality.confidence, len(text),
                             result.backend)]
    return result
