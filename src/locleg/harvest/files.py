"""The files of a harvest: each document's original fetched, conditionally, and stored.

Files are the engine's own request kind, the same for every platform: a conditional GET
(the stored version's ETag and Last-Modified, unless the request says unconditional), the
bytes stored as a new version when their sha256 differs, else the stored one confirmed.
Outcomes are written in batches (`file_batch`), the originals on disk before the rows that
name them.

`FileFetching` is a part of `engine.Harvest`: it uses the harvest's `get`, `db` and report.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from ..store import utcnow
from ..store.schema import document, record, version
from . import frontier, rows
from .net import host_key, status_error

if TYPE_CHECKING:
    from .platform import SourceContext


@dataclass
class FileOutcome:
    """A file request done: a new version to store, or the stored one confirmed."""

    request: frontier.Request
    document_id: int
    new_version: dict | None = None
    # the same bytes with new validators: kept on the current version for the next request
    current_version_id: int | None = None
    etag: str | None = None
    last_modified: str | None = None


class FileFetching:
    """File requests made, and their outcomes written in batches."""

    async def _file(self, ctx: SourceContext, req: frontier.Request) -> None:
        current = await self.db(_current_version, req.payload.get("document_id"))
        if current is None:  # the document is gone from the corpus or its source: skip it
            await self.db(lambda conn: frontier.complete(conn, [req.id]))
            return
        headers = {}
        if not req.payload.get("unconditional"):
            if current.get("etag"):
                headers["If-None-Match"] = current["etag"]
            if current.get("last_modified"):
                headers["If-Modified-Since"] = current["last_modified"]
        fetched = await self.get(ctx, req.url, headers=headers,
                                 max_bytes=self.config.max_file_size)
        state = self.hosts[host_key(req.url)]
        outcome = FileOutcome(req, current["document_id"])
        if fetched.status == 304:
            await self._file_done(outcome)
            return
        if fetched.status != 200:
            raise status_error(req.url, fetched.status, fetched.headers)
        data = fetched.body
        state.files += 1
        state.bytes += len(data)
        etag = rows.text(fetched.headers.get("etag"))
        last_modified = rows.text(fetched.headers.get("last-modified"))

        def store_blob() -> None:
            digest = hashlib.sha256(data).hexdigest()
            if digest == current.get("sha256"):
                if (etag, last_modified) != (current["etag"], current["last_modified"]):
                    outcome.current_version_id = current["version_id"]
                    outcome.etag, outcome.last_modified = etag, last_modified
                return
            from ..extract import sniff_media_type

            self.corpus.blobs.put(data, digest)
            outcome.new_version = {
                "document_id": current["document_id"], "sha256": digest, "size": len(data),
                "media_type": sniff_media_type(data), "fetched_at": utcnow(),
                "origin": fetched.url, "http_status": fetched.status, "etag": etag,
                "last_modified": last_modified}

        await asyncio.to_thread(store_blob)
        await self._file_done(outcome)

    async def _file_done(self, outcome: FileOutcome) -> None:
        self._files_done.append(outcome)
        if len(self._files_done) >= self.config.file_batch:
            await self._flush_files()

    async def _flush_files(self) -> None:
        async with self._flush_lock:
            done, self._files_done = self._files_done, []
            if not done:
                return
            new = [o.new_version for o in done if o.new_version is not None]
            if new:
                # Originals reach the disk before the rows that name them are committed.
                await asyncio.to_thread(self.corpus.blobs.sync)
            validators = [{"b_id": o.current_version_id, "b_etag": o.etag,
                           "b_modified": o.last_modified}
                          for o in done if o.current_version_id is not None]
            now = utcnow()

            def write(conn: Connection) -> None:
                self.store.add_versions(conn, new)
                if validators:
                    conn.execute(update(version).where(version.c.id == bindparam("b_id"))
                                 .values(etag=bindparam("b_etag"),
                                         last_modified=bindparam("b_modified")), validators)
                conn.execute(update(document)
                             .where(document.c.id.in_({o.document_id for o in done}))
                             .values(checked_at=now))
                frontier.complete(conn, [o.request.id for o in done])

            await self.db(write)
            self.report.new_versions += len(new)
            self.report.confirmed += len(done) - len(new)

    async def _flush_periodically(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            await self._flush_files()


def _current_version(conn: Connection, document_id: int | None) -> dict | None:
    if document_id is None:
        return None
    row = conn.execute(
        select(document.c.id, document.c.current_version_id, version.c.sha256, version.c.etag,
               version.c.last_modified)
        .outerjoin(version, version.c.id == document.c.current_version_id)
        .join(record, record.c.id == document.c.record_id)
        .where(document.c.id == document_id, document.c.removed_at.is_(None),
               record.c.removed_at.is_(None))
    ).first()
    if row is None:
        return None
    return {"document_id": row.id, "version_id": row.current_version_id, "sha256": row.sha256,
            "etag": row.etag, "last_modified": row.last_modified}
