"""Per-page extraction details: which backend read each page, at what resolution, and why.

Four nullable columns added to `page` (migration 0004); rows written before it keep nulls.
"""

from __future__ import annotations

from sqlalchemy import Column, Integer, String, Text

from .schema import page

PAGE_DETAIL_COLUMNS = (
    Column("backend", String(32)),  # 'pypdfium2', 'tesseract', 'lxml', 'antiword', ...
    Column("chars", Integer),  # characters of the page's text
    Column("dpi", Integer),  # the resolution an OCRed page was read at
    Column("detail", Text),  # why OCR: "no text layer; images cover 100% of the page"
)

for _column in PAGE_DETAIL_COLUMNS:
    if _column.name not in page.c:
        page.append_column(_column)
