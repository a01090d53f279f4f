"""Quality and sources pages for a corpus operator, and the API's own page."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from .. import data
from ..render import respond, url
from ..review import review

router = APIRouter(tags=["operations"])


@router.get("/quality", name="quality",
            summary="Extraction counts, OCR confidence, failures; records not matched, "
                    "headings that disagree, enrichment problems")
def quality(request: Request,
            j: str | None = Query(None, description="IBGE code of one jurisdiction"),
            after: str | None = Query(None, description="failures: page token from `next`"),
            unmatched_after: str | None = Query(
                None, description="records not matched: page token from `unmatched.next`"),
            headings_after: str | None = Query(
                None, description="headings that disagree: token from `headings.next`"),
            problems_after: str | None = Query(
                None, description="enrichment problems: token from `enrich_problems.next`")):
    store = request.app.state.store
    page = data.quality_page(store, j, after)
    base = {"j": str(page["scope"]["ibge_code"])} if page["scope"]["ibge_code"] else {}
    page["next"] = url("/quality", {**base, "after": page["next_after"]}) \
        if page["next_after"] else None
    sections = review(store, page["scope"]["ibge_code"], {
        "unmatched_after": unmatched_after, "headings_after": headings_after,
        "problems_after": problems_after})
    for name, token in (("unmatched", "unmatched_after"), ("headings", "headings_after"),
                        ("enrich_problems", "problems_after")):
        section = sections[name]
        section["next"] = url("/quality", {**base, token: section["next_after"]}) \
            if section["next_after"] else None
    return respond(request, "quality.html", {**page, **sections})


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
