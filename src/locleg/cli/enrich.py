"""`locleg enrich`: read what changed texts say of themselves and of other norms."""

from __future__ import annotations

from pathlib import Path

import click

from . import cli, console, corpus_option, opened, progress_bar


@cli.command()
@click.option("--no-reread", is_flag=True,
              help="Never OCR a heading again from the original (a quicker pass).")
@corpus_option
def enrich(no_reread: bool, corpus_dir: Path | None) -> None:
    """Headings, citations and legal status of the norms that changed since the last run.

    Import, harvest and extract run it at their end; run it by hand after a bulk load.
    """
    from ..enrich import run as enrichment
    from ..search import refresh_index

    with opened(corpus_dir) as corpus:
        with progress_bar("enriching", "norms") as (progress, task):
            progress.update(task, total=enrichment.pending(corpus))
            report = enrichment.enrich(corpus, reread=not no_reread,
                                       on_progress=lambda done, total: progress.update(
                                           task, completed=done))
        refresh_index(corpus.store)
    console.print(
        f"Enriched {report.norms:,} norms in {report.seconds:,.1f} s: {report.headings:,} "
        f"headings read ({report.ementas:,} ementas read from the text, "
        f"{report.rereads:,} read again from the original, "
        f"{report.disagreements:,} disagreeing with their source, "
        f"{report.ementa_disagreements:,} of them on the ementa), {report.citations:,} "
        f"citations ({report.resolved:,} to norms of the corpus), {report.moved:,} records "
        "joined another norm")
