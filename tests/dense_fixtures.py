"""Real municipal norms loaded into a corpus, for the dense stage's tests and bench.

The norms are lines of a `norms.jsonl.gz` in the format of tests/data/search_real/ (id,
jurisdiction, uf, type, number, year, title, ementa, text, source): each becomes a record of
its place's source and, when it has a text, a texto integral whose text layer was extracted
(title, ementa and body, as real texts begin: the rows explorer_fixtures writes), then the
corpus is indexed.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path

from sqlalchemy import bindparam, insert, update

from locleg.corpus import Corpus
from locleg.search import refresh_index
from locleg.store import utcnow
from locleg.store.schema import extraction, page
from tests.explorer_fixtures import norms_of

DATA = Path(__file__).parent / "data" / "search_dense"
NORMS = DATA / "norms.jsonl.gz"


def read_norms(path: Path = NORMS) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_norms(corpus: Corpus, norms: Iterable[dict], index: bool = True,
               dense_seconds: float | None = None) -> dict[str, int]:
    """The norms in `corpus` (then indexed); returns {norm's id in the file: norm id}."""
    store = corpus.store
    norms = list(norms)
    seen = utcnow() - timedelta(hours=1)
    records: dict[str, int] = {}
    for code in sorted({n["jurisdiction"] for n in norms}):
        source = store.ensure_source(code, "folder", f"https://norms.{code}.example")
        mine = [n for n in norms if n["jurisdiction"] == code]
        with store.transaction() as conn:
            records.update(store.upsert_records(conn, source, [{
                "native_id": n["id"], "jurisdiction_code": code, "type_raw": n["type"],
                "type_normalized": n["type"], "number": n["number"], "year": n["year"],
                "date": None, "ementa": n["ementa"],
                "url": f"https://norms.{code}.example/{n['id']}"} for n in mine], seen))
        _add_texts(corpus, records, [n for n in mine if n.get("text")])
    if index:
        refresh_index(store, dense_seconds=dense_seconds)
    return norms_of(corpus, records)


def printed(norm: dict) -> str:
    """The text as an extraction of the published norm gives it: title, ementa, body."""
    return "\n\n".join(p for p in (norm.get("title"), norm.get("ementa"), norm["text"]) if p)


def _add_texts(corpus: Corpus, records: dict[str, int], norms: list[dict]) -> None:
    if not norms:
        return
    store = corpus.store
    now = utcnow()
    urls = {n["id"]: f"https://norms.{n['jurisdiction']}.example/{n['id']}.pdf" for n in norms}
    with store.transaction() as conn:
        docs = store.ensure_documents(conn, [
            {"record_id": records[n["id"]], "url": urls[n["id"]], "role": "texto_integral",
             "title": None} for n in norms])
        rows = []
        for n in norms:
            stored = corpus.blobs.put(f"%PDF-1.4 {n['id']}".encode())
            rows.append({"document_id": docs[(records[n["id"]], urls[n["id"]])]["id"],
                         "sha256": stored.sha256, "size": stored.size,
                         "media_type": "application/pdf", "fetched_at": now,
                         "origin": urls[n["id"]], "http_status": 200})
        versions = store.add_versions(conn, rows)
        conn.execute(insert(page), [
            {"version_id": v, "number": 1, "method": "text", "confidence": None,
             "text": printed(n)} for n, v in zip(norms, versions, strict=True)])
        conn.execute(
            update(extraction).where(extraction.c.version_id == bindparam("b_version"))
            .values(status="extracted", method="text", backend="pdfium", backend_version="1",
                    confidence=None, pages=1, chars=bindparam("b_chars"), duration_s=0.1,
                    extracted_at=now),
            [{"b_version": v, "b_chars": len(printed(n))}
             for n, v in zip(norms, versions, strict=True)])
