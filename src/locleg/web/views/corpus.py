"""Home, UF and jurisdiction pages: what the corpus holds, where."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from .. import data
from ..render import METHOD_LABELS, STATUS_LABELS, respond, type_label, url

router = APIRouter(tags=["corpus"])


@router.get("/", name="home", summary="What the corpus holds, coverage per UF, latest norms")
def home(request: Request):
    return respond(request, "home.html", data.home(request.app.state.store))


@router.get("/places", name="places",
            summary="The place finder: municipalities and states by name (accents aside), "
                    "covered places first with their norm counts")
def places(request: Request,
           q: str | None = Query(None, description="words of a place's name, or an IBGE code; "
                                                   "a trailing UF narrows: 'juazeiro ba'"),
           uf: str | None = Query(None, description="UF code, e.g. BA")):
    return respond(request, "places.html", data.find_places(request.app.state.store, q, uf))


@router.get("/uf/{uf}", name="uf", summary="A federative unit: its municipalities and own norms")
def uf(request: Request, uf: str):
    return respond(request, "uf.html", data.uf_page(request.app.state.store, uf))


@router.get("/jurisdiction/{code}", name="jurisdiction",
            summary="A jurisdiction's norms, newest first, with facets and keyset pages")
def jurisdiction(
    request: Request, code: str,
    type: str | None = Query(None, description="LexML type, e.g. lei"),
    year: str | None = Query(None, description="a year, or 'none'"),
    method: str | None = Query(None, description="extraction method: ocr, text, html, ..."),
    text: str | None = Query(None, description="'yes' (has text) or 'no'"),
    status: str | None = Query(None, description="legal status: revoked, revoked_in_part, "
                                                 "suspended, altered or none_known"),
    after: str | None = Query(None, description="page token from `next`"),
):
    params = {"type": [type or ""], "year": [year or ""], "method": [method or ""],
              "text": [text or ""], "status": [status or ""]}
    filters = data.parse_listing_filters(params)
    page = data.jurisdiction_page(request.app.state.store, code, filters,
                                  data.parse_after(after))
    base = f"/jurisdiction/{page['jurisdiction']['ibge_code']}"
    page["next"] = (url(base, {**filters, "after": page["next_after"]})
                    if page["next_after"] else None)
    for facet, values in page["facets"].items():
        for item in values:
            selected = filters.get(facet) == item["value"]
            toggled = {k: v for k, v in filters.items() if k != facet}
            if not selected:
                toggled[facet] = item["value"]
            item["label"] = _label(facet, item["value"])
            item["selected"] = selected
            item["toggle_url"] = url(base, toggled)
    return respond(request, "jurisdiction.html", page)


def _label(facet: str, value: str) -> str:
    if facet == "type":
        return type_label(value)
    if facet == "method":
        return METHOD_LABELS.get(value, value)
    if facet == "text":
        return "has text" if value == "yes" else "no text yet"
    if facet == "status":
        return STATUS_LABELS.get(value, value)
    return "unknown year" if value == "none" else value
