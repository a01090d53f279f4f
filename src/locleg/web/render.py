"""One page, two forms: the data a view computed, as HTML (Jinja2) or as its JSON twin."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import orjson
from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates

from .. import __version__
from ..enrich.status import STATUS_LABELS
from . import i18n
from .i18n import N_
from .links import public_text, public_url, shown_address
from .reflow import paragraphs

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
env = templates.env
env.add_extension("jinja2.ext.i18n")
env.globals["version"] = __version__
env.install_gettext_callables(i18n.gettext, i18n.ngettext, newstyle=True,
                              pgettext=i18n.pgettext, npgettext=i18n.npgettext)

TYPE_LABELS = {
    "lei": "Lei", "lei.complementar": "Lei Complementar", "decreto": "Decreto",
    "decreto.legislativo": "Decreto Legislativo", "decreto.lei": "Decreto-Lei",
    "resolucao": "Resolução", "portaria": "Portaria", "lei.organica": "Lei Orgânica",
    "emenda.lei.organica": "Emenda à Lei Orgânica", "lei.delegada": "Lei Delegada",
    "instrucao.normativa": "Instrução Normativa", "ato": "Ato", "deliberacao": "Deliberação",
    "emenda.constitucional": "Emenda Constitucional", "constituicao": "Constituição",
    "outro": "Outro", "none": N_("Unknown type"),
}
# Labels shown on pages are English source strings, translated where they are shown (`_()`).
METHOD_LABELS = {"ocr": "OCR", "text": N_("text layer"), "mixed": N_("text + OCR"),
                 "html": "HTML", "plain": N_("plain text"), "none": N_("no text")}
ROLE_LABELS = {"texto_integral": "texto integral", "anexo": "anexo"}
# What a citation does to the norm it names, as a reader says it.
CITATION_KINDS = {"cites": N_("cites"), "revokes": N_("revokes"),
                  "revokes_in_part": N_("revokes in part"),
                  "alters": N_("alters"), "regulates": N_("regulates"),
                  "altered_by": N_("altered by (note in its text)"),
                  "revoked_by": N_("revoked by (note in its text)"),
                  "revoked_in_part_by": N_("revoked in part by (note in its text)"),
                  "regulated_by": N_("regulated by (note in its text)")}
# A legal status as a badge says it (enrich/status.py's labels are the JSON's).
LEGAL_LABELS = {"revoked": N_("revoked"), "revoked_in_part": N_("revoked in part"),
                "suspended": N_("suspended"), "altered": N_("altered"),
                "none_known": N_("no revocation known")}
# Extraction statuses and source health, as badges say them.
STATE_LABELS = {"pending": N_("pending"), "extracted": N_("extracted"), "empty": N_("empty"),
                "failed": N_("failed"), "ok": N_("ok"), "failing": N_("failing"),
                "never run": N_("never run"), "no record": N_("no record")}


def wants_json(request: Request) -> bool:
    if getattr(request.state, "json", False):  # set by the .json suffix
        return True
    accept = request.headers.get("accept", "")
    first = accept.split(",")[0].split(";")[0].strip().lower()
    return first == "application/json"


class JSON(JSONResponse):
    """JSON by orjson: dates and times as ISO 8601 strings, Markup (a str) as its HTML, in a
    quarter of json.dumps's time (a search answer is ~30 KB of snippets and facet links)."""

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)


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
    if isinstance(value, list | tuple):
        return [json_links(v) for v in value]
    return value


def respond(request: Request, template: str, data: dict, status: int = 200,
            **context: Any) -> Response:
    if wants_json(request):
        return JSON(json_links(data), status_code=status)
    with i18n.rendering(i18n.page_for(request)) as page:
        response = templates.TemplateResponse(request, template, {"data": data, **context},
                                              status_code=status)
    return _spoken(response, page)


def _spoken(response: Response, page: i18n.Page) -> Response:
    """Say the page's language; remember a language chosen by ?lang= for the next pages."""
    response.headers["Content-Language"] = page.tag
    response.headers["Vary"] = "Accept, Accept-Language, Cookie"
    if page.explicit:
        response.set_cookie(i18n.COOKIE, page.tag, max_age=365 * 24 * 3600,
                            samesite="lax", httponly=True)
    return response


# Facet labels the views give (JSON keeps them in English), translated where shown.
KNOWN_LABELS = (N_("has text"), N_("unknown year"))
ERROR_TITLES = {400: N_("This request cannot be answered"), 404: N_("Not found"),
                405: N_("Method not allowed"), 500: N_("Something went wrong on our side"),
                503: N_("Temporarily unavailable")}


def error_page(request: Request, status: int, message: str,
               headers: dict[str, str] | None = None) -> Response:
    data = {"error": {"status": status, "title": ERROR_TITLES.get(status, N_("Error")),
                      "message": message}}
    if wants_json(request):
        return JSON(data, status_code=status, headers=headers)
    with i18n.rendering(i18n.page_for(request)) as page:
        content = env.get_template("error.html").render(request=request, data=data)
    return _spoken(HTMLResponse(content, status_code=status, headers=headers), page)


# -- template helpers ------------------------------------------------------------------------


def url(path: str, params: list[tuple[str, str]] | dict | None = None) -> str:
    if not params:
        return path
    return path + "?" + urlencode(params)


def _own_path(request: Request) -> str:
    """This page's path rebuilt from its segments, so that it stays on this site whatever
    the path holds ('//evil.example/x', backslashes, dot segments); '' for the home page."""
    segments = [quote(s, safe="") for s in request.url.path.split("/") if s not in ("", ".", "..")]
    return "/" + "/".join(segments) if segments else ""


def json_href(request: Request) -> str:
    """This page's JSON twin (on this site, see _own_path)."""
    query = request.url.query
    return (_own_path(request) or "/index") + ".json" + ("?" + query if query else "")


def type_label(value: str | None) -> str:
    """The label data carries (JSON stays one language); pages translate it when shown."""
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
            shown = i18n.number(value, 0 if unit == "bytes" else 1)
            return f"{shown} {unit}"
        value /= 1024
    return str(value)


def page_link(request: Request, **changes: str | None) -> str:
    """This page with some query parameters changed (None removes one): toggles, languages."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k not in changes]
    params += [(k, v) for k, v in changes.items() if v is not None]
    return url(_own_path(request) or "/", params)


def demo() -> bool:
    """Whether the corpus shown is built from made-up samples (see config.mark_demo)."""
    return i18n.current().demo


def lang() -> str:
    return i18n.current().tag


env.globals.update(url=url, type_label=lambda v: i18n.gettext(type_label(v)),
                   norm_title=norm_title, json_href=json_href,
                   METHOD_LABELS=METHOD_LABELS, ROLE_LABELS=ROLE_LABELS,
                   STATUS_LABELS=STATUS_LABELS, CITATION_KINDS=CITATION_KINDS,
                   LEGAL_LABELS=LEGAL_LABELS, STATE_LABELS=STATE_LABELS,
                   page_link=page_link, demo=demo, lang=lang,
                   # `tr(value)`: a value from data translated when the catalogue knows it,
                   # never %-formatted (it may hold anything).
                   tr=i18n.gettext, error_message=i18n.message)
# `x|http_url`: the address when it may be a link (http or https only, and not a made-up
# sample's), else None.
env.filters.update(number=i18n.number, size=size, when=i18n.when, day=i18n.day,
                   paragraphs=paragraphs, public_address=lambda v: shown_address(v, i18n.gettext),
                   public_text=lambda v: public_text(v, i18n.gettext),
                   http_url=lambda v: None if demo() else public_url(v))
