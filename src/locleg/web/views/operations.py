"""Quality and sources pages for a corpus operator, and the API's own page."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from .. import data
from ..render import respond, url

router = APIRouter(tags=["operations"])


@router.get("/quality", name="quality",
            summary="Extraction status counts, OCR confidence histogram, failures")
def quality(request: Request,
            j: str | None = Query(None, description="IBGE code of one jurisdiction"),
            after: str | None = Query(None, description="page token from `next`")):
    page = data.quality_page(request.app.state.store, j, after)
    base = {"j": j} if j else {}
    page["next"] = url("/quality", {**base, "after": page["next_after"]}) \
        if page["next_after"] else None
    return respond(request, "quality.html", page)


@router.get("/sources", name="sources", summary="Every source and its harvest health")
def sources(request: Request,
            after: str | None = Query(None, description="page token from `next`")):
    page = data.sources_page(request.app.state.store, after)
    page["next"] = url("/sources", {"after": page["next_after"]}) if page["next_after"] else None
    return respond(request, "sources.html", page)


@router.get("/api", name="api", summary="The JSON API: every route and its parameters")
def api(request: Request):
    schema = request.app.openapi()
    routes = []
    for path, methods in schema["paths"].items():
        for method, spec in methods.items():
            routes.append({
                "method": method.upper(), "path": path, "summary": spec.get("summary", ""),
                "parameters": [{"name": p["name"], "in": p["in"],
                                "description": p.get("description", "")}
                               for p in spec.get("parameters", [])],
            })
    return respond(request, "api.html", {"openapi": "/openapi.json", "routes": routes})
