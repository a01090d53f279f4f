"""Bulk releases: the ones in the corpus's exports folder, and their files as downloads."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse

from ...export.listing import list_releases, release_file
from ..data import NotFound
from ..render import respond

router = APIRouter(tags=["exports"])

_TYPES = {".parquet": "application/vnd.apache.parquet", ".gz": "application/gzip",
          ".json": "application/json", ".md": "text/plain; charset=utf-8"}


@router.get("/exports", name="exports",
            summary="Bulk releases (Parquet, JSON lines, CSV) with their files, sizes and "
                    "checksums")
def exports(request: Request):
    folder = request.app.state.settings.exports
    return respond(request, "exports.html", {
        "folder": "exports/", "command": f"locleg export {folder.name}/NAME --format parquet",
        **list_releases(folder)})


@router.get("/exports/{release}/{path:path}", name="export_file",
            summary="A file of a release, as listed in its SHA256SUMS (a download)")
def export_file(request: Request, release: str, path: str):
    found = release_file(request.app.state.settings.exports, release, path)
    if found is None:
        raise NotFound("no such file in a complete release of this corpus: see /exports")
    target, digest = found
    media_type = _TYPES.get(target.suffix, "text/plain; charset=utf-8")
    headers = {"X-Content-Type-Options": "nosniff",
               "Content-Security-Policy": "sandbox; default-src 'none'"}
    if digest:
        headers["X-Content-Sha256"] = digest
    inline = target.suffix in (".md", ".json") or target.name == "SHA256SUMS"
    return FileResponse(target, media_type=media_type, headers=headers,
                        filename=None if inline else f"{release}-{path.replace('/', '-')}",
                        content_disposition_type="inline" if inline else "attachment")
