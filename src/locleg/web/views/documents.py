"""Norm and document pages, and downloads of the archived originals."""

from __future__ import annotations

import mimetypes
import re

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ...originals.base import BlobError
from .. import data
from ..citations import legal_life
from ..render import error_page, respond

router = APIRouter(tags=["norms"])

# A media type as RFC 6838 names it (type/subtype, restricted characters), without
# parameters; what an import or a portal recorded may be anything ("text/html,").
_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}")
_CHARSET = re.compile(r"\s*charset=\"?([a-z0-9._-]{1,40})\"?\s*", re.I)
# Types a browser shows without running anything of the file's own in our origin. Every
# other original (HTML, SVG, XML, office files, unknown or malformed types) is handed over
# as a sandboxed attachment of bytes.
INLINE_TYPES = frozenset({"application/pdf", "image/png", "image/jpeg", "image/gif",
                          "image/webp", "text/plain"})
MAX_PAGE_AFTER = 1_000_000


@router.get("/norm/{norm_id}", name="norm",
            summary="A norm: metadata, records, legal status, citations, relations, documents")
def norm(request: Request, norm_id: str):
    store = request.app.state.store
    page = data.norm_page(store, norm_id)
    life = legal_life(store, page["norm"]["id"])
    page["norm"].update(life.pop("norm"))
    return respond(request, "norm.html", {**page, **life})


@router.get("/document/{document_id}", name="document",
            summary="A document: its text page by page, extraction record, versions")
def document(request: Request, document_id: str,
             after: int = Query(0, ge=0, le=MAX_PAGE_AFTER,
                                description="show pages after this number")):
    return respond(request, "document.html",
                   data.document_page(request.app.state.store, document_id, after))


@router.get("/document/{document_id}/original", name="document_original",
            summary="The archived original of a document's current version")
def document_original(request: Request, document_id: str):
    return _original(request, "document", document_id)


@router.get("/version/{version_id}/original", name="version_original",
            summary="The archived original of one version")
def version_original(request: Request, version_id: str):
    return _original(request, "version", version_id)


def _original(request: Request, kind: str, object_id: str) -> Response:
    found = data.original_of(request.app.state.store, kind, object_id)
    try:
        # The file is named by the digest stored in the database, never by the URL.
        content = request.app.state.blobs.read(found["sha256"])
    except BlobError as e:
        return error_page(request, 503, f"the archived original cannot be served: {e}")
    served, inline, extension = served_type(found["media_type"])
    name = found["file_stem"] + extension
    headers = {
        "Content-Disposition": f'{"inline" if inline else "attachment"}; filename="{name}"',
        "X-Content-Sha256": found["sha256"],
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "public, max-age=31536000, immutable",
    }
    if not inline:
        headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return Response(content, media_type=served, headers=headers)


def served_type(recorded: str | None) -> tuple[str, bool, str]:
    """(Content-Type, shown inline?, file extension) for an original's recorded type."""
    essence, _, parameters = (recorded or "").partition(";")
    essence = essence.strip().lower()
    if not _MEDIA_TYPE.fullmatch(essence):
        return "application/octet-stream", False, ".bin"
    extension = mimetypes.guess_extension(essence) or ".bin"
    if essence not in INLINE_TYPES:
        return "application/octet-stream", False, extension
    if essence == "text/plain":
        charset = _CHARSET.fullmatch(parameters)
        return f"text/plain; charset={charset[1] if charset else 'utf-8'}", True, extension
    return essence, True, extension
