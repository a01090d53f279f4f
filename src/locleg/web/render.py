"""One page, two forms: the data a view computed, as HTML (Jinja2) or as its JSON twin."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from .. import __version__
from ..enrich.status import STATUS_LABELS
from .links import public_url

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
env = templates.env
env.globals["version"] = __version__

TYPE_LABELS = {
    "lei": "Lei", "lei.complementar": "Lei Complementar", "decreto": "Decreto",
    "decreto.legislativo": "Decreto Legislativo", "decreto.lei": "Decreto-Lei",
    "resolucao": "Resolução", "portaria": "Portaria", "lei.organica": "Lei Orgânica",
    "emenda.lei.organica": "Emenda à Lei Orgânica", "lei.delegada": "Lei Delegada",
    "instrucao.normativa": "Instrução Normativa", "ato": "Ato", "deliberacao": "Deliberação",
    "emenda.constitucional": "Emenda Constitucional", "constituicao": "Constituição",
    "outro": "Outro", "none": "Unknown type",
}
METHOD_LABELS = {"ocr": "OCR", "text": "text layer", "mixed": "text + OCR", "html": "HTML",
                 "plain": "plain text", "none": "no text"}
ROLE_LABELS = {"texto_integral": "texto integral", "anexo": "anexo"}
# What a citation does to the norm it names, as a reader says it.
CITATION_KINDS = {"cites": "cites", "revokes": "revokes", "revokes_in_part": "revokes in part",
                  "alters": "alters", "regulates": "regulates",
                  "altered_by": "altered by (note in its text)",
                  "revoked_by": "revoked by (note in its text)",
                  "revoked_in_part_by": "revoked in part by (note in its text)",
                  "regulated_by": "regulated by (note in its text)"}


def wants_json(request: Request) -> bool:
    if getattr(request.state, "json", False):  # set by the .json suffix
        return True
    accept = request.headers.get("accept", "")
    first = accept.split(",")[0].split(";")[0].strip().lower()
    return first == "application/json"


def jsonable(value: Any) -> Any:
    """Dates and times as ISO 8601 strings, Markup as its HTML string, the rest as is."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Markup):
        return str(value)
    return value


# Links that continue a list (its next page, the rest of it, all of it): in a JSON answer
# they lead to the JSON twin, so that a client follows them as they are.
PAGE_LINKS = frozenset({"next", "more", "all"})


def json_twin(path: str) -> str:
    """'/search?q=x' -> '/search.json?q=x'; '/' -> '/index.json'."""
    base, mark, query = path.partition("?")
    if base.endswith(".json"):
        return path
    base = "/index" if base in ("", "/") else base.rstrip("/")
    return f"{base}.json{mark}{query}"


def json_links(value: Any) -> Any:
    """The data with every page link (PAGE_LINKS) pointing at its JSON twin."""
    if isinstance(value, dict):
        return {k: json_twin(v) if k in PAGE_LINKS and isinstance(v, str)
                and v.startswith("/") else json_links(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_links(v) for v in value]
    return value


def respond(request: Request, template: str, data: dict, status: int = 200,
            **context: Any) -> Response:
    if wants_json(request):
        return JSONResponse(json_links(jsonable(data)), status_code=status)
    return templates.TemplateResponse(request, template, {"data": data, **context},
                                      status_code=status)


def error_page(request: Request, status: int, message: str,
               headers: dict[str, str] | None = None) -> Response:
    titles = {400: "This request cannot be answered", 404: "Not found",
              405: "Method not allowed", 500: "Something went wrong on our side",
              503: "Temporarily unavailable"}
    data = {"error": {"status": status, "title": titles.get(status, "Error"),
                      "message": message}}
    if wants_json(request):
        return JSONResponse(data, status_code=status, headers=headers)
    return HTMLResponse(
        env.get_template("error.html").render(request=request, data=data),
        status_code=status, headers=headers)


# -- template helpers ------------------------------------------------------------------------


def url(path: str, params: list[tuple[str, str]] | dict | None = None) -> str:
    if not params:
        return path
    return path + "?" + urlencode(params)


def json_href(request: Request) -> str:
    """This page's JSON twin, built from the path's segments so that it stays on this site
    whatever the path holds ('//evil.example/x', backslashes, dot segments)."""
    segments = [quote(s, safe="") for s in request.url.path.split("/") if s not in ("", ".", "..")]
    href = "/" + "/".join(segments) if segments else "/index"
    query = request.url.query
    return href + ".json" + ("?" + query if query else "")


def number(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return f"{value:,}"


def type_label(value: str | None) -> str:
    return TYPE_LABELS.get(value or "none", value or "Unknown type")


def norm_title(n: dict) -> str:
    """'Lei nº 2199/2011', falling back on what is known."""
    known = n.get("type") not in (None, "outro", "none")
    kind = type_label(n.get("type")) if known else (n.get("type_raw") or "norma")
    number_part = n.get("number") or "s/n"
    year = n.get("year")
    return f"{kind} nº {number_part}" + (f"/{year}" if year else "")


def size(value: int | None) -> str:
    if value is None:
        return "—"
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1024
    return str(value)


def when(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    return str(value)


env.globals.update(url=url, type_label=type_label, norm_title=norm_title, json_href=json_href,
                   METHOD_LABELS=METHOD_LABELS, ROLE_LABELS=ROLE_LABELS,
                   STATUS_LABELS=STATUS_LABELS, CITATION_KINDS=CITATION_KINDS)
# `x|http_url`: the address when it may be a link (http or https only), else None.
env.filters.update(number=number, size=size, when=when, http_url=public_url)
