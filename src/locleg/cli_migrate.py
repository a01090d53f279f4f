"""`locleg migrate`: move a corpus to other storage (a thin layer over originals_move)."""

from __future__ import annotations

from pathlib import Path

import click

from .cli import cli, console, corpus_option, err_console, opened, printable, progress_bar
from .errors import CorpusDamaged, UserError


@cli.command()
@click.option("--originals", "originals", metavar="URL",
              help="Move the originals to this store: s3://bucket/prefix (any fsspec URL; "
                   "endpoint and credentials from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID…) or a "
                   "folder.")
@corpus_option
def migrate(originals: str | None, corpus_dir: Path | None) -> None:
    """Move the corpus to other storage; prints counts and checksums of both sides.

    Interrupted, run it again: what was already copied and verified is skipped. The corpus
    settings switch to the new store only once every original is there and verified.
    """
    if not originals:
        raise UserError("say what to move: --originals URL")
    from .originals_move import move_originals, removal_hint

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
