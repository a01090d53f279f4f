"""`locleg export`: a bulk release of the corpus (a thin layer over locleg.export)."""

from __future__ import annotations

from pathlib import Path

import click

from ..export.writers import FORMATS
from . import cli, console, corpus_option, err_console, opened, printable, progress_bar


@cli.command()
@click.argument("out_dir", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="parquet",
              show_default=True, help="Parquet (partitioned by UF), or gzipped JSON lines / CSV.")
@click.option("--uf", multiple=True, help="Only this UF (repeat for several).")
@click.option("--jurisdiction", "-j", multiple=True, metavar="IBGE_CODE",
              help="Only this jurisdiction (repeat for several).")
@click.option("--since", metavar="DATE",
              help="An incremental release: only the norms that changed since DATE "
                   "(YYYY-MM-DD or DD/MM/YYYY).")
@click.option("--with-text/--no-text", default=False, show_default=True,
              help="Include the texts, page by page (texts/).")
@corpus_option
def export(out_dir: Path, fmt: str, uf: tuple[str, ...], jurisdiction: tuple[str, ...],
           since: str | None, with_text: bool, corpus_dir: Path | None) -> None:
    """Write a release of the corpus to OUT_DIR: tables, README.md (the dataset card),
    manifest.json and SHA256SUMS. Interrupted, run it again: it goes on where it stopped.

    Releases in the corpus's exports/ folder are listed by the explorer at /exports."""
    from ..export import check_folder, export_release, make_options

    check_folder(out_dir)  # before opening anything: a bad folder is one line at once
    with opened(corpus_dir) as corpus:
        options = make_options(corpus, fmt, uf, jurisdiction, since, with_text)
        with progress_bar("exporting", "rows") as (progress, task):
            report = export_release(
                corpus, out_dir, options,
                on_table=lambda name, _i: progress.update(task, description=name),
                on_rows=lambda n: progress.advance(task, n))
    if report.up_to_date:
        console.print(f"{printable(report.folder)} already holds this release, up to date "
                      "with the corpus: nothing to do")
        return
    if report.resumed:
        err_console.print(f"went on from an interrupted export: {', '.join(report.resumed)} "
                          "were already written", highlight=False)
    rows = ", ".join(f"{name} {count:,}" for name, count in report.tables.items())
    console.print(f"Release written to [bold]{printable(report.folder)}[/] "
                  f"({report.bytes / 1e6:,.1f} MB in {report.seconds:,.1f} s): {rows}",
                  highlight=False)
