"""`locleg search`, `locleg index` and `locleg serve`: thin commands over locleg.search and web."""

from __future__ import annotations

import gc
import socket
import sys
from pathlib import Path

import click

from ..config import corpus_path, read_settings
from ..enrich.status import NONE_KNOWN, STATUS_LABELS
from ..errors import UserError
from ..search import (
    DEADLINE,
    STATUSES,
    Budget,
    SearchRequest,
    csv_lines,
    iter_matches,
    pending_changes,
    rebuild_index,
    refresh_index,
)
from ..search import search as run_search
from ..search.text import MARK_END, MARK_START
from ..store import Store
from . import (
    cli,
    console,
    corpus_option,
    err_console,
    json_text,
    opened,
    print_json,
    printable,
    progress_bar,
    visible_controls,
)

# Below this many queued changes a search brings the index up to date first (seconds at most).
REFRESH_BEFORE_SEARCH = 20_000


def ensure_fresh(store: Store, quiet: bool = False) -> None:
    """Index what changed since the last refresh, or say how far behind the index is."""
    pending = pending_changes(store)
    if not pending:
        return
    if pending <= REFRESH_BEFORE_SEARCH:
        report = refresh_index(store)
        if not quiet:
            err_console.print(f"index: {report.norms:,} changed norms indexed first")
    else:
        err_console.print(f"[yellow]note:[/] the search index is {pending:,} changes behind: "
                          "run `locleg index` (results may miss recent changes)")


def _marked(fragment: str) -> str:
    """Highlight markers as rich markup, everything else escaped."""
    return printable(fragment).replace(MARK_START, "[bold yellow]").replace(MARK_END, "[/]")


@click.command()
@click.argument("query", required=False, default="")
@click.option("--uf", multiple=True, help="Only this UF (repeat for several).")
@click.option("--jurisdiction", "-j", multiple=True, metavar="IBGE_CODE",
              help="Only this jurisdiction (repeat for several).")
@click.option("--type", "types", multiple=True, help="LexML type: lei, decreto, ... (repeat).")
@click.option("--year-from", type=int, help="First year.")
@click.option("--year-to", type=int, help="Last year.")
@click.option("--method", multiple=True, help="Extraction method: ocr, text, html, ... (repeat).")
@click.option("--min-confidence", type=float, help="Lowest OCR confidence, 0..1.")
@click.option("--text", "has_text", type=click.Choice(["yes", "no"]),
              help="Only norms with (yes) or without (no) text.")
@click.option("--number", "numbers", multiple=True,
              help="Only norms of this number: 2199, 2.199 and 02199 alike, 12-A (repeat).")
@click.option("--status", "statuses", multiple=True, type=click.Choice(STATUSES),
              help="Only norms of this legal status (repeat).")
@click.option("--sort", type=click.Choice(["relevance", "date"]), default="relevance",
              show_default=True)
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True,
              help="Results shown (--csv and --jsonl give every match).")
@click.option("--json", "as_json", is_flag=True, help="The result page as JSON (as the API).")
@click.option("--jsonl", "as_jsonl", is_flag=True, help="Every match as JSON lines.")
@click.option("--csv", "as_csv", is_flag=True, help="Every match as CSV.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEADLINE,
              show_default=True, metavar="SECONDS",
              help="Stop a search (or each chunk of 1,000 exported rows) after this long.")
@corpus_option
def search(query: str, uf, jurisdiction, types, year_from, year_to, method, min_confidence,
           has_text, numbers, statuses, sort, limit, as_json, as_jsonl, as_csv, timeout: float,
           corpus_dir: Path | None) -> None:
    """Full-text search: words, "exact phrases", prefix*, AND / OR / NOT, accents ignored.

    A query that names a norm ("lei 2199", "LC 45/2013", "2199/2011") lists it first."""
    params = {"q": [query], "uf": list(uf), "j": list(jurisdiction), "type": list(types),
              "year_from": [str(year_from)] if year_from is not None else [],
              "year_to": [str(year_to)] if year_to is not None else [],
              "method": list(method),
              "min_confidence": [str(min_confidence)] if min_confidence is not None else [],
              "text": [has_text] if has_text else [], "number": list(numbers),
              "status": list(statuses), "sort": [sort], "limit": [str(limit)]}
    request = SearchRequest.from_params(params)  # a bad value: one line, exit 2
    if request.is_empty:
        raise UserError('give words to search, or a filter: locleg search "moto-táxi" --uf BA')
    with opened(corpus_dir) as corpus:
        ensure_fresh(corpus.store, quiet=as_json or as_jsonl or as_csv)
        if as_jsonl or as_csv:
            rows = iter_matches(corpus.store, request, budget=Budget(timeout))
            if as_csv:
                if sys.stdout.isatty():
                    rows = map(_shown_row, rows)
                for piece in csv_lines(rows):
                    sys.stdout.write(piece)
            else:
                for row in rows:  # json_text: C1 controls escaped too, as on every output
                    sys.stdout.write(json_text(row, default=str) + "\n")
            sys.stdout.flush()
            return
        result = run_search(corpus.store, request, budget=Budget(timeout))
    if as_json:
        print_json({
            "total": result.total, "total_exact": result.total_exact, "within": result.within,
            "facets": {k: [{"value": v, "count": c} for v, c in items]
                       for k, items in result.facets.items()},
            "lookup": {"references": [r.as_json() for r in result.references],
                       "named": result.named},
            "results": [{"id": h.norm_id, "jurisdiction": {
                "ibge_code": h.jurisdiction_code, "name": h.jurisdiction, "uf": h.uf},
                "type_raw": h.type_raw, "type": h.type, "number": h.number, "year": h.year,
                "date": h.date, "ementa": h.ementa, "ementa_html": str(h.ementa_html),
                "snippet_html": str(h.snippet_html), "score": h.score, "named": h.named,
                "status": h.status, "urn": h.urn, "cited_by": h.cited_by}
                for h in result.hits],
        })
        return
    if result.references and not result.named:
        typed = ", ".join(printable(r.typed) for r in result.references)
        console.print(f"[dim]no norm named {typed} within these filters[/]", highlight=False)
    if not result.hits:
        console.print("No norm matches.")
        return
    for i, h in enumerate(result.hits, 1):
        title = f"{h.type_raw or h.type or 'norma'} nº {h.number or 's/n'}" + (
            f"/{h.year}" if h.year else "")
        badge = f" [reverse] {STATUS_LABELS[h.status]} [/]" \
            if h.status in STATUS_LABELS and h.status != NONE_KNOWN else ""
        console.print(f"[bold]{i}. {printable(title)}[/]{badge} · {printable(h.jurisdiction)} "
                      f"({printable(h.uf)})" + (f" · {printable(h.date)}" if h.date else "")
                      + f"  [dim]norm {h.norm_id}" + (" · named" if h.named else "")
                      + (f" · {printable(h.urn)}" if h.urn else "") + "[/]",
                      highlight=False)
        if h.ementa:
            console.print("   " + _ementa_text(h), highlight=False)
        snippet = " ".join(_snippet_text(h).split())
        if snippet:
            # The snippet says itself where it was cut ("… text …"): dim those marks.
            lead = "[dim]…[/]" if snippet.startswith("…") else ""
            tail = "[dim]…[/]" if snippet.endswith("…") and len(snippet) > 1 else ""
            console.print(f"   {lead}{snippet.removeprefix('…').removesuffix('…')}{tail}",
                          highlight=False)
    about = "" if result.total_exact else "about "
    console.print(f"{about}{result.total:,} norms match")


def _shown_row(row: dict) -> dict:
    """An export row for a terminal: control characters in its text shown, never obeyed (a
    CSV written to a file or a pipe keeps the data exact, as the web's does)."""
    return {k: visible_controls(v) if isinstance(v, str)
            else [visible_controls(i) for i in v] if isinstance(v, list) else v
            for k, v in row.items()}


def _ementa_text(hit) -> str:
    return _marked(_unmark_html(str(hit.ementa_html)))


def _snippet_text(hit) -> str:
    return _marked(_unmark_html(str(hit.snippet_html)))


def _unmark_html(html: str) -> str:
    """Back from the page's HTML to plain text with highlight markers."""
    from html import unescape

    return unescape(html.replace("<mark>", MARK_START).replace("</mark>", MARK_END))


@click.command()
@click.option("--rebuild", is_flag=True, help="Drop the index and build it again from scratch.")
@corpus_option
def index(rebuild: bool, corpus_dir: Path | None) -> None:
    """Bring the search index and the explorer's counts up to date."""
    with opened(corpus_dir) as corpus, progress_bar("indexing", "norms") as (progress, task):
        pending = pending_changes(corpus.store)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        build = rebuild_index if rebuild else refresh_index
        report = build(corpus.store, on_progress=on_progress)
    if not rebuild and not pending:
        console.print("The index is up to date.")
        return
    console.print(f"Indexed {report.norms:,} norms in {report.seconds:,.1f} s; counts of "
                  f"{len(report.jurisdictions):,} jurisdictions updated")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--refresh-every", default=30.0, show_default=True, type=float,
              help="Seconds between index refreshes while serving (0: never).")
@click.option("--search-timeout", type=click.FloatRange(min=0, min_open=True),
              default=DEADLINE, show_default=True, metavar="SECONDS",
              help="Stop a search (or each chunk of an export) after this long: 503.")
@corpus_option
def serve(host: str, port: int, refresh_every: float, search_timeout: float,
          corpus_dir: Path | None) -> None:
    """Serve the explorer and its JSON API (read-only) over HTTP."""
    import uvicorn

    from ..web import create_app

    settings = read_settings(corpus_path(corpus_dir))
    port_in_use(host, port)  # before anything: the one line, not uvicorn's traceback
    with opened(corpus_dir) as corpus:
        pending = pending_changes(corpus.store)
    if pending > REFRESH_BEFORE_SEARCH:
        err_console.print(f"indexing {pending:,} changes before serving (`locleg index` does "
                          "the same, with progress)")
    app = create_app(settings, refresh_every=refresh_every, search_deadline=search_timeout)
    # What the explorer loaded to start (libraries, templates, the attribute arrays) lives as
    # long as the server: kept out of the collector's sight, a full collection takes next to
    # nothing instead of ~100 ms in the middle of some request (a search's p95 at 1M norms).
    gc.collect()
    gc.freeze()
    shown = f"http://{'localhost' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}/"
    console.print(f"Serving {settings.folder} at [bold]{shown}[/] (Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


def _can_listen(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As uvicorn binds: SO_REUSEADDR, so a port left in TIME_WAIT counts as free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def port_in_use(host: str, port: int) -> None:
    """UserError naming a free port to use instead when nothing can listen on this one."""
    if _can_listen(host, port):
        return
    free = next((p for p in range(port + 1, min(port + 100, 65536)) if _can_listen(host, p)),
                None)
    instead = f": use another, e.g. --port {free}" if free else ": use another with --port"
    raise UserError(f"cannot listen on {host}:{port}, the port is in use (another `locleg "
                    f"serve`?){instead} (with make demo: DEMO_PORT={free or 'N'} make demo)")


for _command in (search, index, serve):
    cli.add_command(_command)
