"""What the index and the dense stage read of a batch of norms: their documents with text and
the body those pages make, each original counted once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from ..store.schema import document, extraction, page, record, version
from .text import clean


@dataclass
class NormText:
    """A norm's documents with text (their rows and pages) and its body: their pages joined."""

    documents: list = field(default_factory=list)
    pages: list[list[str]] = field(default_factory=list)  # per document, the non-empty ones
    body: str = ""


def norm_texts(conn: Connection, norm_ids: Sequence[int], chars: int | None = None
               ) -> dict[int, NormText]:
    """The documents and text of these norms: the pages of their documents' current
    versions (one original held by two sources counts once). `chars`: read at most that
    many characters of each page and of the whole (the snippet window)."""
    # A norm's documents are its records'.
    docs = conn.execute(
        select(record.c.norm_id, document.c.current_version_id, extraction.c.status,
               extraction.c.method, extraction.c.confidence, version.c.sha256)
        .select_from(document)
        .join(record, record.c.id == document.c.record_id)
        .outerjoin(version, version.c.id == document.c.current_version_id)
        .outerjoin(extraction, extraction.c.version_id == document.c.current_version_id)
        .where(record.c.norm_id.in_(norm_ids), document.c.removed_at.is_(None))
        .order_by(record.c.norm_id, document.c.id)
    ).all()
    version_ids = [d.current_version_id for d in docs if d.current_version_id is not None]
    texts: dict[int, list[str]] = defaultdict(list)
    if version_ids:
        body = page.c.text if chars is None else func.substr(page.c.text, 1, chars)
        for version_id, page_text in conn.execute(
            select(page.c.version_id, body)
            .where(page.c.version_id.in_(version_ids))
            .order_by(page.c.version_id, page.c.number)
        ):
            if page_text and page_text.strip():
                texts[version_id].append(page_text)
    found = {norm_id: NormText() for norm_id in norm_ids}
    digests: set[tuple[int, str]] = set()
    for d in docs:
        if d.sha256 is not None:
            if (d.norm_id, d.sha256) in digests:
                continue
            digests.add((d.norm_id, d.sha256))
        found[d.norm_id].documents.append(d)
        found[d.norm_id].pages.append(texts.get(d.current_version_id, []))
    for text_ in found.values():
        joined = clean("\n\n".join("\n\n".join(p) for p in text_.pages if p))
        text_.body = joined if chars is None else joined[:chars]
    return found
