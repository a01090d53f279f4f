"""`locleg extract` and `locleg show`: run extraction with a progress bar, read a document back."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from pathlib import Path

import click
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from ..errors import UserError
from ..extract.limits import DEFAULT_LIMITS, Limits, human_bytes, parse_bytes
from ..extract.result import plural
from ..extract.run import ExtractReport, Outcome, Plan, default_workers, document_extraction
from ..extract.where import FIELDS, parse_where
from . import (
    cli,
    console,
    corpus_option,
    err_console,
    opened,
    print_json,
    printable,
    refresh_derived,
)

_SHOWN_FAILURES = 20


class _PagesRate(ProgressColumn):
    """Pages done and pages per second since the start."""

    def render(self, task: Task) -> Text:
        pages = task.fields.get("pages", 0)
        elapsed = task.elapsed or 0.0
        rate = f"{pages / elapsed:,.1f} pages/s" if elapsed > 0.5 else "… pages/s"
        return Text(f"{pages:,} pages · {rate}", style="progress.data.speed")


def _progress() -> Progress:
    # The bar advances by bytes: time per document follows its size (a long scan is big)
    # far better than its count, so the ETA does too.
    return Progress(
        TextColumn("[bold]extracting"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[docs]:,}/{task.fields[total_docs]:,} documents"),
        _PagesRate(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
        disable=not err_console.is_terminal,
    )


@contextmanager
def _sigterm_interrupts():
    """SIGTERM stops a run as Ctrl-C does: workers killed, everything committed kept."""

    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@cli.command()
@click.option("--jurisdiction", "-j", metavar="IBGE_CODE", help="Only this jurisdiction.")
@click.option("--workers", "-w", type=click.IntRange(0, 512), metavar="N",
              help="Worker processes (default: one per core). 0 runs in this process, "
                   "without time or memory limits.")
@click.option("--where", "where", metavar="EXPR",
              help="Extract again the versions whose record matches EXPR, whatever their "
                   "status, e.g. \"confidence < 0.8\", \"status = 'failed' and error ~ "
                   f"'timeout'\". Fields: {', '.join(sorted(FIELDS))}.")
@click.option("--force", is_flag=True,
              help="Extract again every selected version, not only the pending ones.")
@click.option("--ocr", type=click.Choice(["auto", "always", "never"]), default="auto",
              show_default=True,
              help="auto: OCR the pages without a usable text layer; always: OCR every PDF "
                   "page; never: leave those pages pending.")
@click.option("--timeout", type=click.FloatRange(1, None), default=DEFAULT_LIMITS.time_s,
              show_default=True, metavar="SECONDS",
              help="Time limit per document; its worker is killed past it.")
@click.option("--memory-limit", default=human_bytes(DEFAULT_LIMITS.memory_bytes),
              show_default=True, metavar="SIZE", help="Memory limit per worker (2G, 1500M).")
@click.option("--cluster", metavar="ADDRESS",
              help="Run on the workers of the Dask scheduler at ADDRESS "
                   "(tcp://scheduler:8786) instead of on this machine; see docs/cluster.md.")
@corpus_option
def extract(jurisdiction: str | None, workers: int | None, where: str | None, force: bool,
            ocr: str, timeout: float, memory_limit: str, cluster: str | None,
            corpus_dir: Path | None) -> None:
    """Extract the text of every document version still pending (or of the selected ones).

    PDF text layers, OCR of scanned pages and images, HTML, DOCX, ODT, RTF, DOC, TXT, ZIP.
    Interrupt at any time: what was extracted is kept, and the same command resumes.
    """
    from ..extract.run import extract_versions

    try:
        memory = parse_bytes(memory_limit)
    except ValueError:
        raise UserError(
            f"--memory-limit: not a size: {memory_limit!r} (e.g. 2G, 1500M)") from None
    if cluster is not None and workers is not None:
        raise UserError("--workers and --cluster: the cluster's workers are started with "
                        "`dask worker --nworkers N`, not here")
    where_clause = parse_where(where) if where is not None else None
    limits = Limits(time_s=timeout, memory_bytes=memory)
    statuses = None if (force or where is not None) else ("pending",)
    count = workers if workers is not None else default_workers()
    report = ExtractReport()
    with _connected(cluster) as on_cluster, opened(corpus_dir) as corpus:
        if on_cluster is not None:
            count = on_cluster.size()[1]
        code = None
        if jurisdiction:
            code = corpus.store.require_jurisdiction(jurisdiction)["ibge_code"]
        progress = _progress()
        task = progress.add_task("extracting", total=None, docs=0, total_docs=0, pages=0)

        def planned(p: Plan) -> None:
            progress.update(task, total=max(p.bytes, 1), total_docs=p.documents)
            if p.documents:
                how = f"{count} worker{'s' if count != 1 else ''}" if count else "this process"
                if on_cluster is not None:
                    how = f"the {how} of the Dask cluster at {on_cluster.address}"
                err_console.print(f"Extracting {plural(p.documents, 'document')} "
                                  f"({p.bytes / 1e6:,.1f} MB) with {how}", highlight=False)

        report_so_far = {"docs": 0}

        def advanced(o: Outcome) -> None:
            report_so_far["docs"] += 1
            fields = task_fields()
            progress.update(task, advance=max(o.size, 1), docs=fields["docs"] + 1,
                            pages=fields["pages"] + o.pages)
            if o.status == "failed":
                progress.console.print(
                    f"[red]failed:[/] document {o.document_id}: {printable(o.error or '')}",
                    highlight=False)

        def task_fields() -> dict:
            return progress.tasks[0].fields

        try:
            with progress, _sigterm_interrupts():
                report = extract_versions(
                    corpus, statuses, code, on_progress=advanced, on_planned=planned,
                    where=where_clause, workers=count, limits=limits, ocr=ocr,
                    cluster=on_cluster,
                )
        except KeyboardInterrupt:
            refresh_derived(corpus)
            err_console.print(f"interrupted after {plural(report_so_far['docs'], 'document')}: "
                              "they are kept; run the same command again to resume",
                              highlight=False)
            raise
        refresh_derived(corpus)
    _print_report(report, count)


@contextmanager
def _connected(address: str | None):
    """The Dask cluster at address, connected and its workers checked (None: no cluster)."""
    if address is None:
        yield None
        return
    import logging

    from ..extract.cluster import connect

    # Dask logs every failed attempt to connect, and a warning for each version mismatch
    # of its own packages: the user is told once, in one line, by connect.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    with connect(address, on_waiting=lambda m: err_console.print(m, highlight=False)) as cluster:
        workers, threads = cluster.size()
        dashboard = cluster.dashboard_link
        err_console.print(
            f"Dask cluster at {cluster.address}: {plural(workers, 'worker')}, "
            f"{plural(threads, 'thread')}"
            + (f"; dashboard: {dashboard}" if dashboard else ""), highlight=False)
        yield cluster


def _print_report(report: ExtractReport, workers: int) -> None:
    summary = ", ".join(f"{n:,} {s}" for s, n in sorted(report.by_status.items()))
    if not report.documents:
        console.print("Nothing to extract: every selected document is done "
                      "(--force or --where to extract again)")
        return
    rate = report.pages / report.seconds if report.seconds else 0.0
    console.print(f"Extracted {plural(report.documents, 'document')}, "
                  f"{plural(report.pages, 'page')} in {report.seconds:,.1f} s "
                  f"({rate:,.1f} pages/s): {summary}")
    if report.failures:
        for o in report.failures[:_SHOWN_FAILURES]:
            console.print(f"  document {o.document_id}: failed: {printable(o.error or '')}",
                          highlight=False)
        more = report.by_status.get("failed", 0) - _SHOWN_FAILURES
        if more > 0:
            console.print(f"  … and {more:,} more "
                          "(locleg extract --where \"status = 'failed'\" retries them)")
        console.print("See one with `locleg show DOCUMENT`.")


@cli.command()
@click.argument("document")
@click.option("--page", "pages", metavar="N[-M]", help="Only these pages (e.g. 2 or 2-4).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@corpus_option
def show(document: str, pages: str | None, as_json: bool, corpus_dir: Path | None) -> None:
    """Print a document's extraction record and its text page by page.

    DOCUMENT is a document id, as the explorer's pages (/document/ID) and the failures
    `locleg extract` lists name them, or the sha256 of an original (its first 8
    characters are enough).
    """
    with opened(corpus_dir) as corpus:
        found = document_extraction(corpus, document)
    if pages:
        first, last = _page_range(pages)
        found["pages"] = [p for p in found["pages"] if first <= p["number"] <= last]
    if as_json:
        print_json(found)
        return
    norm = " ".join(str(x) for x in (found["type_raw"], found["number"]) if x)
    year = f"/{found['year']}" if found["year"] else ""
    console.print(f"[bold]{printable(norm)}{year}[/] · {printable(found['jurisdiction'])} "
                  f"({printable(found['uf'])}) · norm {found['norm_id']}", highlight=False)
    if found["ementa"]:
        console.print(printable(found["ementa"]), style="italic", highlight=False)
    role = found["role"] + (f" – {found['title']}" if found["title"] else "")
    console.print(f"document {found['document_id']} · {printable(role)} · "
                  f"{printable(found['url'])}", highlight=False)
    if found["version_id"] is None:
        console.print("no original stored yet")
        return
    console.print(f"original {found['sha256'][:16]}… · {printable(found['media_type'])} · "
                  f"{found['size']:,} bytes", highlight=False)
    record = found["extraction"]
    if record is None:
        console.print("no extraction record")
        return
    console.print(extraction_line(record), highlight=False)
    if record["error"]:
        console.print(f"[red]error:[/] {printable(record['error'])}", highlight=False)
    if record["detail"]:
        console.print(f"detail: {printable(record['detail'])}", highlight=False)
    total = record["pages"] or 0
    for p in found["pages"]:
        console.print(f"[dim]── {printable(_page_title(p, total))} ──[/]", highlight=False)
        console.print(printable(p["text"]) if p["text"] else "[dim](no text)[/]",
                      highlight=False)


def extraction_line(record: dict) -> str:
    """'status: extracted · method: ocr · backend: tesseract · confidence: 0.94 · pages: 9'."""
    parts = [f"status: {record['status']}"]
    for key in ("method", "backend"):
        if record.get(key):
            parts.append(f"{key}: {record[key]}")
    if record.get("confidence") is not None:
        parts.append(f"confidence: {record['confidence']:.2f}")
    if record.get("pages") is not None:
        parts.append(f"pages: {record['pages']}")
    if record.get("backend_version"):
        parts.append(f"version: {record['backend_version']}")
    if record.get("duration_s") is not None:
        parts.append(f"{record['duration_s']:.2f} s")
    return printable(" · ".join(parts))


def _page_title(p: dict, total: int) -> str:
    parts = [f"page {p['number']}" + (f" of {total}" if total else ""), p["method"]]
    if p.get("backend"):
        parts.append(p["backend"])
    if p.get("dpi"):
        parts.append(f"{p['dpi']} dpi")
    if p.get("confidence") is not None:
        parts.append(f"confidence {p['confidence']:.2f}")
    if p.get("detail"):
        parts.append(p["detail"])
    return " · ".join(parts)


def _page_range(text: str) -> tuple[int, int]:
    first, _, last = text.partition("-")
    try:
        start = int(first)
        end = int(last) if last else start
    except ValueError:
        raise UserError(f"--page: not a page or range: {text!r} (e.g. 2 or 2-4)") from None
    if start < 1 or end < start:
        raise UserError(f"--page: not a page or range: {text!r} (e.g. 2 or 2-4)")
    return start, end
