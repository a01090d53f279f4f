"""Search: ranked results with snippets and facets, and the streamed export of every match."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from ...enrich.status import STATUS_LABELS
from ...search import (
    Budget,
    QueryError,
    SearchRequest,
    SearchResult,
    csv_lines,
    iter_matches,
    jsonl_lines,
    pending_changes,
    search,
)
from ...search.query import quoted
from ..client import budget_for, run_for, stream_for
from ..render import METHOD_LABELS, respond, type_label, url

router = APIRouter(tags=["search"])

_DESCRIPTIONS = {
    "q": "words; \"exact phrase\", prefix*, AND, OR, NOT (or -word), parentheses",
    "uf": "UF code, repeatable (OR)", "j": "IBGE code of a jurisdiction, repeatable (OR)",
    "type": "LexML type (lei, decreto, ...), repeatable", "year_from": "first year",
    "year_to": "last year", "year": "one year (year_from and year_to alike)",
    "method": "extraction method (ocr, text, html, ...), repeatable",
    "min_confidence": "lowest OCR confidence of the norm's documents, 0..1",
    "text": "'yes': only norms with text, 'no': only those without",
    "number": "norm number, repeatable (OR): 2199, 2.199 and 02199 alike; 12-A is not 12",
    "status": "legal status, repeatable (OR): revoked, revoked_in_part, suspended, altered, "
              "none_known",
    "sort": "'relevance' (default) or 'date'", "after": "page token from `next`",
    "limit": "results per page, 1..100",
}


def _request(request: Request) -> SearchRequest:
    params: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        params.setdefault(key, []).append(value)
    # `year`, as the jurisdiction pages name it, is the range of that one year here.
    years = [v.strip() for v in params.pop("year", []) if v.strip()]
    if years:
        if len(set(years)) > 1 or params.get("year_from") or params.get("year_to"):
            raise QueryError("give one year, or a range with year_from and year_to")
        if not years[0].isascii() or not years[0].isdigit():
            raise QueryError(f"year is a year such as 2011, not {quoted(years[0])}")
        params["year_from"] = params["year_to"] = [years[0]]
    return SearchRequest.from_params(params)


def _toggle(r: SearchRequest, facet: str, value: str) -> tuple[bool, SearchRequest]:
    """Whether the value is selected, and the request with it switched."""
    if facet in ("uf", "jurisdiction", "type", "method", "status"):
        field = {"uf": "ufs", "jurisdiction": "jurisdictions", "type": "types",
                 "method": "methods", "status": "statuses"}[facet]
        current = getattr(r, field)
        typed = int(value) if facet == "jurisdiction" else value
        selected = typed in current
        changed = tuple(v for v in current if v != typed) if selected else (*current, typed)
        return selected, replace(r, **{field: changed})
    if facet == "year":
        year = int(value) if value.isdigit() else None
        selected = year is not None and r.year_from == year and r.year_to == year
        if selected:
            return True, replace(r, year_from=None, year_to=None)
        return False, replace(r, year_from=year, year_to=year)
    selected = r.has_text is (value == "yes")
    return selected, replace(r, has_text=None if selected else value == "yes")


def _label(facet: str, value: str, names: dict[int, str]) -> str:
    if facet == "type":
        return type_label(value)
    if facet == "method":
        return METHOD_LABELS.get(value, value)
    if facet == "jurisdiction":
        return names.get(int(value), value)
    if facet == "text":
        return "has text" if value == "yes" else "no text yet"
    if facet == "status":
        return STATUS_LABELS.get(value, value)
    if facet == "year" and value == "none":
        return "unknown year"
    return value


def page_data(request: Request, r: SearchRequest, result: SearchResult) -> dict:
    """The JSON twin of a result page (reads the index queue: call it in a worker thread)."""
    facets = {}
    for facet, items in result.facets.items():
        entries = []
        for value, count in items:
            if facet == "year" and value == "none":
                continue
            selected, toggled = _toggle(r, facet, value)
            entries.append({"value": value, "label": _label(facet, value,
                                                            result.jurisdiction_names),
                            "count": count, "selected": selected,
                            "toggle_url": url("/search", toggled.to_params())})
        facets[facet] = entries
    export = url("/search", r.to_params())
    return {
        "query": {"q": r.q, "uf": list(r.ufs), "j": list(r.jurisdictions),
                  "type": list(r.types), "year_from": r.year_from, "year_to": r.year_to,
                  "method": list(r.methods), "min_confidence": r.min_confidence,
                  "text": None if r.has_text is None else ("yes" if r.has_text else "no"),
                  "number": list(r.numbers), "status": list(r.statuses),
                  "sort": r.sort, "after": r.after, "limit": r.limit},
        "empty": r.is_empty,
        "total": result.total,
        "total_exact": result.total_exact,
        "within": result.within,
        "relaxed": result.relaxed,
        "facets": facets,
        "facets_exact": result.facets_exact,
        "lookup": {"references": [ref.as_json() for ref in result.references],
                   "named": result.named},
        "results": [{
            "id": h.norm_id, "url": f"/norm/{h.norm_id}",
            "jurisdiction": {"ibge_code": h.jurisdiction_code, "name": h.jurisdiction,
                             "uf": h.uf},
            "type_raw": h.type_raw, "type": h.type, "number": h.number, "year": h.year,
            "date": h.date, "ementa": h.ementa, "ementa_html": h.ementa_html,
            "snippet_html": h.snippet_html, "score": h.score, "named": h.named,
            "status": h.status, "status_label": STATUS_LABELS.get(h.status, h.status),
            "urn": h.urn, "cited_by": h.cited_by,
        } for h in result.hits],
        "next_after": result.next_after,
        "next": url("/search", r.to_params(after=result.next_after))
        if result.next_after else None,
        "sort_urls": {s: url("/search", replace(r, sort=s).to_params())
                      for s in ("relevance", "date")},
        "export": {"csv": export.replace("/search", "/search.csv", 1),
                   "jsonl": export.replace("/search", "/search.jsonl", 1)},
        "index": {"pending": pending_changes(request.app.state.store)},
    }


@router.get("/search", name="search",
            summary="Full-text search with filters, facets, snippets and keyset pages")
async def search_page(
    request: Request,
    q: Annotated[str | None, Query(description=_DESCRIPTIONS["q"])] = None,
    uf: Annotated[list[str] | None, Query(description=_DESCRIPTIONS["uf"])] = None,
    j: Annotated[list[str] | None, Query(description=_DESCRIPTIONS["j"])] = None,
    type: Annotated[list[str] | None, Query(description=_DESCRIPTIONS["type"])] = None,
    year_from: Annotated[str | None, Query(description=_DESCRIPTIONS["year_from"])] = None,
    year_to: Annotated[str | None, Query(description=_DESCRIPTIONS["year_to"])] = None,
    year: Annotated[str | None, Query(description=_DESCRIPTIONS["year"])] = None,
    method: Annotated[list[str] | None, Query(description=_DESCRIPTIONS["method"])] = None,
    min_confidence: Annotated[str | None,
                              Query(description=_DESCRIPTIONS["min_confidence"])] = None,
    text: Annotated[str | None, Query(description=_DESCRIPTIONS["text"])] = None,
    number: Annotated[list[str] | None, Query(description=_DESCRIPTIONS["number"])] = None,
    status: Annotated[list[str] | None, Query(description=_DESCRIPTIONS["status"])] = None,
    sort: Annotated[str | None, Query(description=_DESCRIPTIONS["sort"])] = None,
    after: Annotated[str | None, Query(description=_DESCRIPTIONS["after"])] = None,
    limit: Annotated[str | None, Query(description=_DESCRIPTIONS["limit"])] = None,
):
    r = _request(request)

    def work(budget: Budget) -> dict:
        return page_data(request, r, search(request.app.state.store, r, budget=budget))

    return respond(request, "search.html", await run_for(request, work))


async def _export(request: Request, formatted: Callable[[Iterable[dict]], Iterator[str]],
                  media_type: str, headers: dict[str, str] | None = None) -> StreamingResponse:
    """Stream every match; the first piece is computed before answering, so that a search
    too costly or malformed gets its 400 / 503 page instead of a broken download."""
    r = _request(request)
    budget = budget_for(request)
    lines = formatted(iter_matches(request.app.state.store, r, budget=budget))
    first = await run_for(request, lambda _: next(lines, None), budget)
    return StreamingResponse(stream_for(lines, first, budget), media_type=media_type,
                             headers=headers)


@router.get("/search.csv", name="search_csv",
            summary="Every match of a search as CSV, streamed (same parameters as /search)")
async def search_csv(request: Request):
    return await _export(request, csv_lines, "text/csv; charset=utf-8",
                         {"Content-Disposition": 'attachment; filename="locleg-search.csv"'})


@router.get("/search.jsonl", name="search_jsonl",
            summary="Every match of a search as JSON lines, streamed (same parameters)")
async def search_jsonl(request: Request):
    return await _export(request, jsonl_lines, "application/x-ndjson; charset=utf-8")
