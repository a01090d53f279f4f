"""Norm and document pages, and downloads of the archived originals."""

from __future__ import annotations

import mimetypes

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ...blobs import BlobError
from .. import data
from ..render import error_page, respond

router = APIRouter(tags=["norms"])

# Originals that a browser would run as a page of ours: handed over as files, sandboxed.
_ACTIVE_TYPES = ("text/html", "application/xhtml+xml", "image/svg+xml", "text/xml",
                 "application/xml", "text/javascript", "application/javascript")


@router.get("/norm/{norm_id}", name="norm",
            summary="A norm: metadata, URN, relations, documents with extraction and text")
def norm(request: Request, norm_id: str):
    return respond(request, "norm.html", data.norm_page(request.app.state.store, norm_id))


@router.get("/document/{document_id}", name="document",
            summary="A document: its text page by page, extraction record, versions")
def document(request: Request, document_id: str,
             after: int = Query(0, ge=0, description="show pages after this number")):
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
    media_type = found["media_type"] or "application/octet-stream"
    extension = mimetypes.guess_extension(media_type.split(";")[0].strip()) or ".bin"
    name = f"locleg-version-{found['id']}{extension}"
    active = media_type.split(";")[0].strip().lower() in _ACTIVE_TYPES
    headers = {
        "Content-Disposition": f'{"attachment" if active else "inline"}; filename="{name}"',
        "X-Content-Sha256": found["sha256"],
        "Cache-Control": "public, max-age=31536000, immutable",
    }
    if active:
        headers["Content-Security-Policy"] = "sandbox; default-src 'none'"
    return Response(content, media_type=media_type, headers=headers)
