"""`locleg lexml`: LexML Brasil's SRU search, to discover norms and cross-check a place."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click
from rich.table import Table

from ..errors import UserError
from . import cli, console, corpus_option, err_console, opened, print_json, printable

SRU_HELP = "LexML's SRU base URL (default: the public one)."


def _waiting(seconds: float, why: str) -> None:
    err_console.print(f"waiting {seconds:g} s ({printable(why)}) before asking LexML again")


def _max(value: int) -> int:
    if value < 1:
        raise UserError("--max must be at least 1")
    return value


@cli.group()
def lexml() -> None:
    """LexML (SRU): search it, cross-check a place's norms by URN.

    LexML is used to discover and to compare, never as a source of texts.
    """


@lexml.command("search")
@click.argument("query")
@click.option("--max", "max_records", type=int, default=20, show_default=True,
              help="At most this many records.")
@click.option("--sru-url", default=None, metavar="URL", help=SRU_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def lexml_search(query: str, max_records: int, sru_url: str | None, as_json: bool) -> None:
    """Search LexML with a CQL QUERY (words, or e.g. urn="urn:lex:br;bahia;juazeiro…")."""
    from ..harvest.lexml import DEFAULT_SRU_URL, search

    total, records = asyncio.run(search(query, max_records=_max(max_records),
                                        sru_url=sru_url or DEFAULT_SRU_URL, on_wait=_waiting))
    if as_json:
        print_json({"query": query, "total": total, "records": [r.as_dict() for r in records]})
        return
    for r in records:
        console.print(f"[bold]{printable(r.title or r.urn or '?')}[/]", soft_wrap=True)
        console.print(f"  {printable(r.urn or 'no URN')}  {printable(r.localidade or '')}",
                      soft_wrap=True, highlight=False)
        if r.description:
            console.print(f"  {printable(r.description[:300])}", soft_wrap=True,
                          highlight=False)
    count = f"{total:,}" if total is not None else "an unknown number of"
    console.print(f"{len(records):,} shown of {count} records in LexML", highlight=False)


@lexml.command("check")
@click.option("--jurisdiction", "-j", metavar="IBGE_CODE", required=True,
              help="The municipality or state to compare.")
@click.option("--max", "max_records", type=int, default=10_000, show_default=True,
              help="At most this many LexML records are read.")
@click.option("--query", default=None, metavar="CQL",
              help='The query for the place\'s records (default: localidade="Name - UF").')
@click.option("--sru-url", default=None, metavar="URL", help=SRU_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@corpus_option
def lexml_check(jurisdiction: str, max_records: int, query: str | None, sru_url: str | None,
                as_json: bool, corpus_dir: Path | None) -> None:
    """Compare a place's norms in the corpus with LexML's records for it, by URN."""
    from ..harvest.lexml import DEFAULT_SRU_URL, check

    with opened(corpus_dir) as corpus:
        result = asyncio.run(check(corpus, jurisdiction, sru_url=sru_url or DEFAULT_SRU_URL,
                                   max_records=_max(max_records), query=query,
                                   on_wait=_waiting))
    if as_json:
        print_json(result.as_dict())
        return
    console.print(f"[bold]{printable(result.name)}[/] {result.jurisdiction}: LexML query "
                  f"{printable(result.query)}", soft_wrap=True, highlight=False)
    table = Table(box=None, header_style="bold")
    table.add_column("")
    table.add_column("norms", justify="right")
    table.add_row("in the corpus", f"{result.corpus_norms:,}")
    table.add_row("  without a URN (not compared)", f"{result.corpus_without_urn:,}")
    table.add_row("in LexML for this place", f"{result.lexml_records:,}")
    table.add_row("in both", f"{result.both:,}")
    table.add_row("only in the corpus", f"{len(result.only_corpus):,}")
    table.add_row("only in LexML", f"{len(result.only_lexml):,}")
    console.print(table)
    if result.lexml_elsewhere:
        console.print(f"{result.lexml_elsewhere:,} records the query matched are of another "
                      "place (URN not under "
                      f"{printable(result.urn_prefix)}): left out", highlight=False)
    for title, rows in (("only in the corpus", result.only_corpus),
                        ("only in LexML", result.only_lexml)):
        if rows:
            console.print(f"[bold]{title}[/]")
            for r in rows:
                console.print(f"  {printable(r['urn'])}", soft_wrap=True, highlight=False)
    if result.truncated:
        err_console.print(f"[yellow]warning:[/] LexML holds {result.lexml_total:,} records for "
                          f"the query, {max_records:,} were read (--max): \"only in the "
                          "corpus\" may list norms LexML has")
