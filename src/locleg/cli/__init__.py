"""The locleg command: a thin layer that parses arguments, calls the library and shows progress.

Here: the group, what every command shares (printing data, --corpus, progress bars) and the
commands of the corpus itself (init, jurisdictions, import, status, check). Each feature's
commands are a module of this package, imported only when one of them is named
(LAZY_COMMANDS): harvest.py (sources, discover, harvest), extract.py (extract, show),
enrich.py, export.py, web.py (search, index, serve), lexml.py, migrate.py.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import __version__
from ..config import PASSWORD_HINT, SETTINGS_FILE, corpus_path
from ..dburl import has_password, safe_url
from ..errors import CorpusDamaged, UserError, disk_full

if TYPE_CHECKING:
    from ..corpus import Corpus

# The database libraries (SQLAlchemy, Alembic, psycopg) and the extractors load when a
# command needs them, not for `locleg --help` or `--version` (2 s -> a tenth of that).

# No emoji codes: ":warning:" in an ementa is text, not a picture.
console = Console(emoji=False)
# Errors stay on one line whatever the terminal width, so scripts and logs can grep them.
err_console = Console(stderr=True, soft_wrap=True, emoji=False)

# Control characters (but tab and newline) and the overrides that reorder a line's display
# (CVE-2021-42574): in data they are shown, never obeyed by the terminal.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# JSON escapes C0 controls itself, but not DEL, the C1 controls (0x9b starts a sequence as
# ESC [ does) or the overrides.
_JSON_UNESCAPED = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: object) -> str:
    """Data (an ementa, a page, a problem) as rich markup a terminal shows and never obeys.

    Control characters become visible escapes (ESC -> \\x1b), markup in the data is escaped
    ("[bold]" stays text). Every command prints data through this.
    """
    return escape(visible_controls(str(value)))


def visible_controls(text: str) -> str:
    """Plain text a terminal shows and never obeys: control characters as visible escapes
    (ESC -> \\x1b), a CRLF as a line break."""
    return _CONTROLS.sub(_visible, text.replace("\r\n", "\n"))


def json_text(data, indent: int | None = None, default=None) -> str:
    """JSON for a terminal or a pipe: UTF-8, with every control character escaped."""
    text = json.dumps(data, ensure_ascii=False, indent=indent, default=default or _json_default)
    return _JSON_UNESCAPED.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def corpus_option(f):
    return click.option(
        "--corpus",
        "corpus_dir",
        envvar="LOCLEG_CORPUS",
        type=click.Path(file_okay=False, path_type=Path),
        help="Corpus folder (default: $LOCLEG_CORPUS, else the current folder).",
    )(f)


@contextmanager
def opened(corpus_dir: Path | None):
    from ..corpus import open_corpus

    corpus = open_corpus(corpus_path(corpus_dir))
    try:
        yield corpus
    finally:
        corpus.close()


@contextmanager
def progress_bar(description: str, unit: str = "files"):
    """A rich progress bar on stderr; silent when stderr is not a terminal."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
        disable=not err_console.is_terminal,
    )
    with progress:
        task = progress.add_task(description, total=None)
        yield progress, task


def refresh_derived(corpus: Corpus) -> None:
    """Enrich and index what a run changed (headings, citations, legal status; the search
    index), so the explorer and search see it at once.

    Writers queue changed norms in their own transactions (database triggers), so a run
    that was killed before this loses nothing: the next run reads and indexes its changes.
    """
    from ..enrich.run import enrich
    from ..search import refresh_index

    report = enrich(corpus)
    if report.norms:
        err_console.print(f"enriched {report.norms:,} norms: {report.citations:,} citations "
                          f"({report.resolved:,} to norms of the corpus), {report.headings:,} "
                          f"headings read ({report.rereads:,} read again)", highlight=False)
    refresh_index(corpus.store)


def _json_default(value):
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(type(value))


def print_json(data) -> None:
    click.echo(json_text(data, indent=2))


# Commands of the feature modules, imported when first named: (module, their one-line help,
# which `locleg --help` shows without importing them; a test keeps the two the same).
LAZY_COMMANDS = {
    "discover": ("harvest", "Find sources by probing the hosts platforms use."),
    "enrich": ("enrich", "Headings, citations and legal status of the norms that changed "
               "since the last run."),
    "export": ("export", "Write a release of the corpus to OUT_DIR: tables, README.md (the "
               "dataset card), manifest.json and SHA256SUMS."),
    "extract": ("extract", "Extract the text of every document version still pending (or "
                "of the selected ones)."),
    "harvest": ("harvest", "Harvest sources politely: norms, their documents and the "
                "originals."),
    "index": ("web", "Bring the search index and the explorer's counts up to date."),
    "lexml": ("lexml", "LexML (SRU): search it, cross-check a place's norms by URN."),
    "migrate": ("migrate", "Move the corpus to other storage; prints counts and checksums "
                "of both sides."),
    "search": ("web", 'Full-text search: words, "exact phrases", prefix*, AND / OR / NOT, '
               "accents ignored."),
    "serve": ("web", "Serve the explorer and its JSON API (read-only) over HTTP."),
    "show": ("extract", "Print a document's extraction record and its text page by page."),
    "sources": ("harvest", "Publishers of norms to harvest: add, list, set."),
}


class LazyGroup(click.Group):
    """A group whose feature commands are imported only when named (see LAZY_COMMANDS)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in LAZY_COMMANDS:
            # The module attaches its commands to `cli` when imported.
            importlib.import_module(f"{__package__}.{LAZY_COMMANDS[name][0]}")
        return self.commands.get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None:
                summary = LAZY_COMMANDS[name][1]
                rows.append((name, summary if len(summary) <= limit
                             else summary[:limit - 3].rsplit(" ", 1)[0] + "..."))
            elif not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="locleg")
def cli() -> None:
    """br-locleg: the open corpus of Brazilian local legislation."""


@cli.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--db", "database_url", metavar="URL",
              help="Keep the tables in PostgreSQL (postgresql://user@host/db) instead of SQLite.")
@click.option("--originals", metavar="URL",
              help="Keep the originals on object storage (s3://bucket/prefix, any fsspec URL; "
                   "endpoint and credentials from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID…) "
                   "instead of the corpus's originals/ folder.")
def init(path: Path | None, database_url: str | None, originals: str | None) -> None:
    """Create a corpus in PATH (default: $LOCLEG_CORPUS or the current folder)."""
    from ..corpus import init_corpus

    folder = corpus_path(path)
    corpus = init_corpus(folder, database_url, originals)
    try:
        where = safe_url(corpus.settings.database_url)
        count = len(corpus.store.jurisdictions())
        console.print(f"Created corpus in [bold]{printable(folder)}[/]")
        console.print(f"  database   {printable(where)}")
        console.print(f"  originals  {printable(safe_url(str(corpus.settings.originals)))}")
        console.print(f"  {count:,} jurisdictions loaded (IBGE)")
        if database_url and has_password(database_url):
            console.print(f"The password is not written to {SETTINGS_FILE}: {PASSWORD_HINT}")
        console.print(f"Next: export LOCLEG_CORPUS={printable(folder)}; "
                      "locleg import FOLDER --jurisdiction CODE")
    finally:
        corpus.close()


@cli.command()
@click.option("--uf", help="Only this federative unit (e.g. BA).")
@click.option("--search", help="Part of the name, accents and case ignored.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@corpus_option
def jurisdictions(uf: str | None, search: str | None, as_json: bool,
                  corpus_dir: Path | None) -> None:
    """List municipalities and federative units with IBGE code and LexML label."""
    with opened(corpus_dir) as corpus:
        rows = corpus.store.jurisdictions(uf=uf, search=search)
    if as_json:
        print_json([{k: r[k] for k in ("ibge_code", "level", "uf", "name", "lexml_label")}
                    for r in rows])
        return
    if not rows:
        raise UserError("no jurisdiction matches")
    # Codes and labels are identifiers: never cut (no_wrap); the name wraps instead.
    table = Table(box=None)
    for heading in ("IBGE", "level", "UF"):
        table.add_column(heading, no_wrap=True)
    table.add_column("name", overflow="fold")
    table.add_column("LexML locality", no_wrap=True)
    for r in rows:
        table.add_row(str(r["ibge_code"]), r["level"], r["uf"], printable(r["name"]),
                      printable(r["lexml_label"]))
    console.print(table)
    console.print(f"{len(rows):,} jurisdictions")


@cli.command("import")
@click.argument("target", type=click.Path(path_type=Path))
@click.option("--jurisdiction", "-j", metavar="IBGE_CODE",
              help="Jurisdiction of the norms (a manifest may name one per row instead).")
@click.option("--batch-size", default=1000, show_default=True, hidden=True,
              type=click.IntRange(1, 100_000), help="Files per transaction.")
@corpus_option
def import_(target: Path, jurisdiction: str | None, batch_size: int,
            corpus_dir: Path | None) -> None:
    """Import a folder of files, or a manifest .csv with the norms' metadata."""
    from ..ingest.run import import_path

    with opened(corpus_dir) as corpus, progress_bar("importing") as (progress, task):
        report = import_path(
            corpus, target, jurisdiction, batch_size=batch_size,
            on_planned=lambda n: progress.update(task, total=n),
            on_progress=lambda n: progress.advance(task, n),
        )
    # No index refresh here: the text arrives with `locleg extract`, which refreshes; the
    # changed norms wait in the queue, and `serve` and `search` index them first.
    console.print(
        f"Imported {report.files:,} files ({report.bytes / 1e6:,.1f} MB) "
        f"of {report.records:,} records: "
        f"{report.new_versions:,} new versions, {report.unchanged:,} unchanged"
        + (f", {report.removed:,} records no longer in the input marked removed"
           if report.removed else "")
    )
    if report.unnumbered:
        shown = ", ".join(printable(name) for name in report.unnumbered[:5])
        more = f" and {len(report.unnumbered) - 5:,} more" if len(report.unnumbered) > 5 else ""
        err_console.print(f"[yellow]note:[/] {len(report.unnumbered):,} file(s) whose name gives "
                          f"no number, imported as norms without number (s/n), each titled by "
                          f"its file name: {shown}{more} (recorded: `locleg status`)",
                          highlight=False)
    if report.problems:
        for p in report.problems[:10]:
            err_console.print(f"[red]problem:[/] {printable(p)}")
        raise UserError(f"{len(report.problems)} file(s) skipped or unreadable, the rest imported "
                        "(see `locleg status`)")


@cli.command()
@click.option("--by", type=click.Choice(["jurisdiction"]), help="Break the counts down.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@corpus_option
def status(by: str | None, as_json: bool, corpus_dir: Path | None) -> None:
    """Counts per stage: norms, documents, versions, extraction statuses, problems."""
    from ..store import STATUSES

    with opened(corpus_dir) as corpus:
        counts = corpus.store.status(by_jurisdiction=by == "jurisdiction")
        recent = corpus.store.problems(limit=5)
        counts["corpus"] = str(corpus.folder)
        counts["database"] = safe_url(corpus.settings.database_url)
    if as_json:
        print_json(counts)
        return
    # Paths and URLs are never broken: a long one runs past the width instead.
    console.print(f"[bold]Corpus[/] {printable(counts['corpus'])}", soft_wrap=True)
    console.print(f"[bold]database[/] {printable(counts['database'])}", soft_wrap=True)
    summary = Table(box=None, show_header=False)
    summary.add_row("jurisdictions with norms",
                    f"{counts['jurisdictions_with_norms']:,} of {counts['jurisdictions']:,}")
    summary.add_row("sources", f"{counts['sources']:,}")
    summary.add_row("norms", f"{counts['norms']:,}"
                    + (f"  ({counts['removed']:,} removed at their source)" if counts["removed"]
                       else ""))
    summary.add_row("records", f"{counts['records']:,}  (the norms as each source gives them"
                    + (f"; {counts['unmatched']:,} stand alone, unmatched)"
                       if counts["unmatched"] else ")"))
    summary.add_row("documents", f"{counts['documents']:,}  ({counts['fetched']:,} fetched)")
    summary.add_row("versions", f"{counts['versions']:,}  "
                    f"({counts['originals_bytes'] / 1e6:,.1f} MB of originals)")
    for s in STATUSES:
        summary.add_row(f"  {s}", f"{counts[s]:,}")
    summary.add_row("pages extracted", f"{counts['pages']:,}")
    summary.add_row("problems recorded", f"{counts['problems']:,}")
    console.print(summary)
    if by:
        table = Table(box=None, header_style="bold")
        table.add_column("IBGE", min_width=7, no_wrap=True)
        table.add_column("UF", no_wrap=True)
        # Codes and numbers never shrink: the name wraps on a narrow terminal, never cut.
        table.add_column("name", max_width=32, overflow="fold")
        for heading in ("norms", "docs", *STATUSES, "pages"):
            table.add_column(heading, justify="right", no_wrap=True, min_width=len(heading))
        for r in counts["by_jurisdiction"]:
            table.add_row(str(r["ibge_code"]), r["uf"], printable(r["name"]), f"{r['norms']:,}",
                          f"{r['documents']:,}", *(f"{r[s]:,}" for s in STATUSES),
                          f"{r['pages']:,}")
        console.print(table)
    if recent:
        console.print("[bold]Latest problems[/]")
        for p in recent:
            console.print(f"  {p['at']:%Y-%m-%d %H:%M} {p['stage']}: "
                          f"{printable(p['message'])}")


@cli.command()
@corpus_option
def check(corpus_dir: Path | None) -> None:
    """Verify every original against its hash and every version row against its file."""
    from ..check import check_corpus

    with opened(corpus_dir) as corpus, progress_bar("verifying", "originals") as (progress, task):
        report = check_corpus(
            corpus,
            on_planned=lambda n: progress.update(task, total=n),
            on_progress=lambda n: progress.advance(task, n),
        )
    for note in report.notes:
        console.print(f"note: {printable(note)}")
    for error in report.errors[:50]:
        err_console.print(f"[red]wrong:[/] {printable(error)}")
    if not report.ok:
        raise CorpusDamaged(
            f"{len(report.errors)} problem(s) found in {report.versions:,} versions"
        )
    console.print(f"OK: {report.versions:,} versions, {report.originals:,} originals verified")


def main() -> None:
    """Entry point: user errors become one line on stderr and a non-zero exit."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        err_console.print("interrupted")
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except UserError as e:
        err_console.print(f"[red]error:[/] {printable(e)}", highlight=False)
        sys.exit(e.exit_code)
    except Exception as e:
        # A full disk arrives from the OS, SQLite, PostgreSQL (even through a raw COPY) or
        # the copier process: named here once; anything else is a bug and stays loud.
        full = disk_full(e)
        if full is None:
            raise
        err_console.print(f"[red]error:[/] {printable(full)}", highlight=False)
        sys.exit(1)
    except KeyboardInterrupt:
        err_console.print("interrupted: what was committed is kept; run the command again")
        sys.exit(130)

