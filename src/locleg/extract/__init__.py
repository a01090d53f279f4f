"""Text extraction: sniff a document's type from its bytes and read its text, page by page.

    >>> from locleg.extract import extract
    >>> result = extract(pdf_bytes)
    >>> result.status, result.method, result.confidence, result.text

PDF text layers (pypdfium2) with OCR (tesseract) of the pages that have no usable one, images
through OCR, HTML and XML (lxml), DOCX and ODT, RTF (striprtf), DOC (antiword), plain text in
any common encoding, and ZIP archives of any of these.

Running it over a corpus: run.py (the local runner, `locleg extract`: selects the versions,
commits each result alone), cluster.py (the same on a Dask cluster), worker.py (what both
share: the pool of worker processes under time and memory limits, the task, its outcome).
They import this package's formats; nothing here imports them.
"""

from .dispatch import extract
from .limits import DEFAULT_LIMITS, Limits
from .result import ExtractionResult, PageText
from .sniff import sniff_media_type

__all__ = ["DEFAULT_LIMITS", "ExtractionResult", "Limits", "PageText", "extract",
           "sniff_media_type"]
