"""The citation graph as data, and LexML URNs resolved to the norm pages they name."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse

from ..citations import EDGES_MAX, citations_page, parse_edge_filters
from ..render import respond, url, wants_json
from ..urns import norm_for_urn

router = APIRouter(tags=["citations"])


@router.get("/citations", name="citations",
            summary="Citation edges between norms, oldest first, in keyset pages")
def citations(
    request: Request,
    j: str | None = Query(None, description="IBGE code of the citing norms' jurisdiction"),
    kind: str | None = Query(None, description="cites, revokes, revokes_in_part, alters, "
                                               "regulates, altered_by, revoked_by, ..."),
    resolved: str | None = Query(None, description="'yes': the cited norm is in the corpus; "
                                                   "'no': it is not"),
    from_: str | None = Query(None, alias="from", description="id of the citing norm"),
    to: str | None = Query(None, description="id of the cited norm"),
    limit: str | None = Query(None, description=f"edges per page, 1..{EDGES_MAX}"),
    after: str | None = Query(None, description="page token from `next`"),
):
    filters = parse_edge_filters({"j": j, "kind": kind, "resolved": resolved, "from": from_,
                                  "to": to, "limit": limit})
    page = citations_page(request.app.state.store, filters, after)
    params = {k: str(v) for k, v in filters.items()}
    page["next"] = url("/citations", {**params, "after": page["next_after"]}) \
        if page["next_after"] else None
    return respond(request, "citations.html", page)


@router.get("/urn/{urn}", name="urn",
            summary="A LexML URN: a lasting redirect to the page of the norm it names")
def urn(request: Request, urn: str):
    norm_id = norm_for_urn(request.app.state.store, urn)
    suffix = ".json" if wants_json(request) else ""
    return RedirectResponse(f"/norm/{norm_id}{suffix}", status_code=301)
