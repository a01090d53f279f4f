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
    text = normalize_text(raw)
    result = ExtractionResult(status="empty", method="plain", backend=BACKEND,
                              backend_version=BACKEND_VERSION, detail=f"encoding {encoding}")
    if not text:
        result.detail = "no text in the file"
        return result
    quality = assess(raw, text)
    result.status = "extracted"
    result.confidence = quality.confidence
    result.pages = [PageText(1, text, "plain", quality.confidence, len(text), BACKEND)]
    return result
