"""`locleg migrate`: move a corpus to other storage (thin layers over store/move.py for the
database and originals/move.py for the originals)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from ..config import PASSWORD_HINT, SETTINGS_FILE, corpus_path, read_settings
from ..dburl import has_password, safe_url
from ..errors import CorpusDamaged, UserError
from . import cli, console, corpus_option, err_console, opened, printable, progress_bar


@cli.command()
@click.option("--to", "to_url", metavar="URL",
              help="Move the tables and the search index to this PostgreSQL database "
                   "(postgresql://user@host/db).")
@click.option("--originals", "originals", metavar="URL",
              help="Move the originals to this store: s3://bucket/prefix (any fsspec URL; "
                   "endpoint and credentials from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID…) or a "
                   "folder.")
@corpus_option
def migrate(to_url: str | None, originals: str | None, corpus_dir: Path | None) -> None:
    """Move the corpus to other storage; prints counts and checksums of both sides.

    Interrupted, run it again: what was already copied and verified is skipped. The corpus
    settings switch to the new store only once everything is there and verified. With both
    options, the tables move first, then the originals.
    """
    if not to_url and not originals:
        raise UserError("say what to move: --to postgresql://user@host/db, "
                        "--originals URL, or both")
    if to_url:
        _move_database(to_url, corpus_dir)
    if originals:
        _move_originals(originals, corpus_dir)


def _move_database(to_url: str, corpus_dir: Path | None) -> None:
    from ..store.move import move_to_postgresql

    settings = read_settings(corpus_path(corpus_dir))
    with progress_bar("copying", "rows") as (progress, task):
        report = move_to_postgresql(
            settings, to_url,
            on_table=lambda name, rows: progress.update(task, description=name, total=rows,
                                                        completed=0),
            on_rows=lambda n: progress.advance(task, n))
    table = Table(box=None, header_style="bold")
    table.add_column("table", no_wrap=True)
    for heading in ("rows SQLite", "rows PG"):
        table.add_column(heading, justify="right", no_wrap=True)
    # The first 48 bits of each 128-bit checksum fit a terminal; equality compares all 128.
    for heading in ("checksum SQLite", "checksum PG", ""):
        table.add_column(heading, no_wrap=True)
    for t in report.tables:
        verdict = ("copied" if t.copied else "already there") if t.equal else "[red]DIFFERS[/]"
        table.add_row(t.name, f"{t.source_rows:,}", f"{t.target_rows:,}",
                      t.source_checksum[:12], t.target_checksum[:12], verdict)
    console.print(f"[bold]from[/] {printable(report.source)}", soft_wrap=True)
    console.print(f"[bold]to[/]   {printable(report.target)}", soft_wrap=True)
    console.print(table)
    console.print(f"{report.rows_copied:,} rows copied in {report.copy_seconds:,.1f} s "
                  f"({report.rows_per_second:,.0f} rows/s); {len(report.tables)} tables "
                  f"verified in {report.seconds:,.1f} s in all", highlight=False)
    if report.changed_meanwhile:
        raise UserError("the SQLite corpus was written to during the move (a harvest, import "
                        "or extract?): stop it and run the command again; the settings still "
                        "name SQLite")
    if not report.switched:
        differ = ", ".join(t.name for t in report.tables if not t.equal)
        raise CorpusDamaged(f"tables differ after the copy ({differ}): the corpus still uses "
                            "SQLite; run the command again")
    if report.index_kept is not None:
        console.print(f"search index kept as it is ({printable(report.index_kept)}): it names "
                      "norms by id, and every id was copied unchanged", highlight=False)
    console.print(f"checksums match: the corpus now uses {printable(safe_url(to_url))} "
                  f"({SETTINGS_FILE}). The SQLite database is left untouched in "
                  f"{printable(report.source)}: remove it once you no longer need it",
                  highlight=False, soft_wrap=True)
    if has_password(to_url):
        err_console.print(f"The password is not written to {SETTINGS_FILE}: {PASSWORD_HINT}",
                          highlight=False)


def _move_originals(originals: str, corpus_dir: Path | None) -> None:
    from ..originals.move import move_originals, removal_hint

    with opened(corpus_dir) as corpus, progress_bar("copying", "originals") as (progress, task):
        report = move_originals(
            corpus, originals,
            on_planned=lambda n: progress.update(task, total=n),
            on_progress=lambda n: progress.advance(task, n),
        )
    console.print(f"originals: {report.copied:,} copied ({report.copied_bytes / 1e6:,.1f} MB), "
                  f"{report.already_there:,} already there and intact"
                  + (f", {report.repaired:,} damaged copies replaced" if report.repaired else ""),
                  highlight=False)
    for side, inventory, where in (("old", report.before, report.source),
                                   ("new", report.after, report.target)):
        if inventory is not None:
            console.print(f"  {side}  {inventory.originals:,} originals, {inventory.bytes:,} "
                          f"bytes, sha256 of the list {inventory.checksum}  "
                          f"{printable(where)}", highlight=False, soft_wrap=True)
    for error in report.errors[:50]:
        err_console.print(f"[red]wrong:[/] {printable(error)}", highlight=False)
    if not report.switched:
        raise CorpusDamaged(f"{len(report.errors)} problem(s): the corpus still uses "
                            f"{report.source}; fix them (see `locleg check`) and run the "
                            "command again")
    console.print(f"checksums match: the corpus now uses {printable(report.target)}. "
                  f"The old store is left in place: {printable(removal_hint(report.source))}",
                  highlight=False, soft_wrap=True)
