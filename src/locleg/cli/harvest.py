"""`locleg sources`, `locleg discover` and `locleg harvest`: thin commands over locleg.harvest."""

from __future__ import annotations

import asyncio
import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path

import click
from rich.live import Live
from rich.padding import Padding
from rich.table import Table
from sqlalchemy import select, update

from ..errors import UserError
from ..harvest import platform
from ..harvest.revalidate import DEFAULT_DAYS as REVALIDATE_DAYS
from ..store.schema import source
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

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """'6h', '30m', '90s', '2d' or plain seconds."""
    match = _DURATION.match(text or "")
    if not match:
        raise UserError(f"not a duration: {text!r} (e.g. 90s, 30m, 6h, 2d)")
    return float(match[1]) * _UNITS[match[2]]


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "-"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _delay_option(value: str | None) -> float | None:
    if value is None or value == "auto":
        return None
    try:
        delay = float(value)
    except ValueError:
        raise UserError(f"--delay takes seconds (e.g. 0.5) or 'auto', not {value!r}") from None
    if delay < 0:
        raise UserError("--delay cannot be negative")
    return delay


# -- sources ---------------------------------------------------------------------------------


@cli.group()
def sources() -> None:
    """Publishers of norms to harvest: add, list, set."""


@sources.command("add", epilog="Platforms: " + ", ".join(platform.names()) + ".")
@click.argument("words", nargs=-1, required=True, metavar="[PLATFORM] URL")
@click.option("--jurisdiction", "-j", metavar="IBGE_CODE", required=True,
              help="The municipality or state the publisher legislates for.")
@click.option("--delay", metavar="SECONDS",
              help="Seconds between requests to this host (default: robots.txt Crawl-delay, "
                   "else 1).")
@click.option("--with-pdf", is_flag=True,
              help="Querido Diário: archive each gazette's PDF too (kept in the source's "
                   "settings, `with_pdf`).")
@corpus_option
def sources_add(words: tuple[str, ...], jurisdiction: str, delay: str | None, with_pdf: bool,
                corpus_dir: Path | None) -> None:
    """Add a publisher as a source, after checking what it runs (and which version).

    PLATFORM is one of the registered platforms (see below); without it, each is tried in
    turn (SAPL 3.1's API first) and the one that recognises the site is taken. For `portal`,
    URL names the portal's configuration file.
    """
    from ..harvest.discover import register
    from ..harvest.net import normalize_base_url
    from ..harvest.probing import within_deadline

    if len(words) > 2:
        raise click.UsageError("give a URL, or a PLATFORM and a URL")
    name, url = (None, words[0]) if len(words) == 1 else words
    chosen_platform = platform.get(name) if name is not None else None  # a known name?
    chosen = _delay_option(delay)
    try:
        shown = normalize_base_url(url)
    except ValueError:
        shown = url  # a portal's configuration file, or a URL its platform will refuse

    def waiting(seconds: float, why: str) -> None:
        err_console.print(f"waiting {seconds:g} s ({printable(why)}) before the next request to "
                          f"{printable(shown)}")

    with opened(corpus_dir) as corpus:
        place = corpus.store.require_jurisdiction(jurisdiction)

        async def probe() -> platform.Probe:
            if chosen_platform is None:
                return await platform.detect(url, on_wait=waiting,
                                             jurisdiction=place["ibge_code"])
            return await chosen_platform.probe(url, on_wait=waiting,
                                               jurisdiction=place["ibge_code"])

        try:
            # The whole probe within its deadline: nothing is stored before it ends.
            found = asyncio.run(within_deadline(probe(), shown))
        except ValueError as e:  # normalize_url: not a URL this platform can read
            raise UserError(str(e)) from None
        settings = {**found.settings, **({"delay": chosen} if chosen is not None else {})}
        chosen = settings.get("delay")  # the operator's, else the platform's own pace
        if with_pdf:
            settings["with_pdf"] = True
        source_id, new = register(corpus.store, place["ibge_code"], found, settings)
    console.print(f"Found {printable(found.describe())}"
                  + (" (detected)" if chosen_platform is None else ""))
    for note in found.notes:
        console.print(f"  {printable(note)}")
    uf = (found.state.get("casa") or {}).get("uf")
    if uf and uf != place["uf"]:
        err_console.print(f"[yellow]warning:[/] the publisher says UF {printable(uf)}, "
                          f"the jurisdiction is in {place['uf']}")
    verb = "Added" if new else "Already known:"
    console.print(f"{verb} source {source_id} for {place['name']} ({place['uf']}) "
                  f"{place['ibge_code']}"
                  + (f", {chosen:g} s between requests" if chosen is not None else
                     ", delay from robots.txt (else 1 s)"))
    console.print(f"Next: locleg harvest --source {source_id}")


@sources.command("set")
@click.argument("source_id", type=int)
@click.option("--delay", metavar="SECONDS|auto",
              help="Seconds between requests to this host; 'auto' = robots.txt, else 1 s.")
@click.option("--interval", metavar="DURATION",
              help="How often to harvest it again (e.g. 24h; default 24h).")
@click.option("--revalidate-days", metavar="DAYS", type=float,
              help="Ask for every stored file again (conditionally) at least this often, a "
                   "share each cycle; default 30, 0 = never (only files of changed norms).")
@click.option("--precedence", metavar="N", type=click.IntRange(0, 100),
              help="How much this source's word counts when sources disagree on a norm's "
                   "fields (0-100; default 50 for SAPL and other official publishers, 10 for "
                   "local dumps).")
@corpus_option
def sources_set(source_id: int, delay: str | None, interval: str | None,
                revalidate_days: float | None, precedence: int | None,
                corpus_dir: Path | None) -> None:
    """Change a source's settings."""
    if delay is None and interval is None and revalidate_days is None and precedence is None:
        raise UserError("nothing to set: give --delay, --interval, --revalidate-days and/or "
                        "--precedence")
    if revalidate_days is not None and not 0 <= revalidate_days <= 3650:
        raise UserError("--revalidate-days takes a number of days from 0 (never) to 3650")
    with opened(corpus_dir) as corpus:
        row = next((s for s in corpus.store.sources() if s["id"] == source_id), None)
        if row is None:
            raise UserError(f"no source {source_id}: see `locleg sources list`")
        settings = json.loads(row["settings"] or "{}")
        if delay is not None:
            settings["delay"] = _delay_option(delay)
            if settings["delay"] is None:
                settings.pop("delay")
        if interval is not None:
            settings["interval"] = parse_duration(interval)
        if revalidate_days is not None:
            settings["revalidate_days"] = revalidate_days
        if precedence is not None:
            settings["precedence"] = precedence
        with corpus.store.transaction() as conn:
            conn.execute(update(source).where(source.c.id == source_id)
                         .values(settings=json.dumps(settings)))
            if precedence is not None:
                # The fields of its norms are chosen again, by the new order.
                from ..enrich.norms import resolve
                from ..store import utcnow
                from ..store.schema import record

                resolve(conn, set(conn.scalars(select(record.c.norm_id).where(
                    record.c.source_id == source_id))), utcnow())
    shown = ", ".join(f"{k} {v:g}" for k, v in settings.items()) or "defaults"
    console.print(f"Source {source_id}: {shown}")


@sources.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@corpus_option
def sources_list(as_json: bool, corpus_dir: Path | None) -> None:
    """Every source with its harvest health: last success, norms, errors, next due."""
    from ..harvest import frontier

    with opened(corpus_dir) as corpus:
        rows = corpus.store.sources()
        with corpus.store.engine.connect() as conn:
            health = frontier.source_health(conn)
            hosts = frontier.hosts_table(conn)
        names = {j["ibge_code"]: j for j in corpus.store.jurisdictions()}
    items = []
    for r in rows:
        settings = json.loads(r["settings"] or "{}")
        state = json.loads(r["state"] or "{}")
        h = health.get(r["id"], {})
        place = names.get(r["jurisdiction_code"], {})
        host_row = hosts.get(re.sub(r"^\w+://", "", r["base_url"]).split("/")[0], {})
        delay = settings.get("delay")
        items.append({
            "id": r["id"], "jurisdiction_code": r["jurisdiction_code"],
            "jurisdiction": f"{place.get('name', '?')} ({place.get('uf', '?')})",
            "platform": r["platform"], "base_url": r["base_url"],
            "version": state.get("version"),
            "delay": delay if delay is not None else host_row.get("crawl_delay"),
            "delay_from": "operator" if delay is not None else (
                "robots.txt" if host_row.get("crawl_delay") is not None else "default"),
            "revalidate_days": settings.get("revalidate_days", REVALIDATE_DAYS),
            "norms": h.get("norms", 0), "removed": h.get("removed", 0),
            "pending": h.get("pending", 0), "files_pending": h.get("files_pending", 0),
            "failed": h.get("failed", 0), "parked_until": h.get("parked_until"),
            "last_run_at": r["last_run_at"], "last_success_at": r["last_success_at"],
            "next_due_at": r["next_due_at"], "next_request_at": h.get("next_request_at"),
            "last_error": r["last_error"],
        })
    if as_json:
        print_json(items)
        return
    if not items:
        console.print("No sources yet: `locleg sources add URL --jurisdiction CODE` or "
                      "`locleg discover sapl --uf BA`")
        return
    rows = []
    for i in items:
        delay = "-" if i["delay"] is None else f"{i['delay']:g} s ({i['delay_from']})"
        norms = f"{i['norms']:,}" + (f" ({i['removed']:,} removed)" if i["removed"] else "")
        pending = f"{i['pending']:,}" + (f" ({i['files_pending']:,} files)"
                                        if i["files_pending"] else "")
        error = i["last_error"] or ""
        if i["parked_until"]:
            error = f"parked until {_when(i['parked_until'])}; {error}"
        rows.append({"ID": str(i["id"]), "jurisdiction": printable(i["jurisdiction"]),
                     "platform": printable(i["platform"]),
                     "URL": printable(i["base_url"]), "version": printable(i["version"] or "-"),
                     "delay": delay, "norms": norms, "pending": pending,
                     "failed": f"{i['failed']:,}", "last success": _when(i["last_success_at"]),
                     "next due": _when(i["next_due_at"]), "last error": printable(error[:120])})
    _print_sources(rows)


# Below this width a table of every column would cut URLs and ids: one block per source.
_SOURCES_TABLE_WIDTH = 160


def _print_sources(rows: list[dict]) -> None:
    if console.width >= _SOURCES_TABLE_WIDTH:
        table = Table(box=None)
        for heading in rows[0]:
            # Ids, URLs, versions and times are never cut; the place and the error wrap.
            wraps = heading in ("jurisdiction", "last error")
            table.add_column(heading, no_wrap=not wraps, overflow="fold")
        for row in rows:
            table.add_row(*row.values())
        console.print(table)
        return
    for row in rows:
        console.print(f"[bold]source {row['ID']}[/]  {row['URL']}", soft_wrap=True,
                      highlight=False)
        details = Table.grid(padding=(0, 2))
        details.add_column(no_wrap=True, style="dim")
        details.add_column(overflow="fold")
        details.add_row("place", row["jurisdiction"])
        details.add_row("platform", f"{row['platform']} {row['version']}")
        details.add_row("delay", row["delay"])
        details.add_row("norms", f"{row['norms']} · pending {row['pending']} · failed "
                                 f"{row['failed']}")
        details.add_row("harvest", f"last success {row['last success']} · next due "
                                   f"{row['next due']}")
        if row["last error"]:
            details.add_row("last error", row["last error"])
        console.print(Padding(details, (0, 0, 0, 2), expand=False), highlight=False)


# -- discover --------------------------------------------------------------------------------


@cli.group()
def discover() -> None:
    """Find sources by probing the hosts platforms use."""


@discover.command("sapl")
@click.option("--uf", required=True, help="The federative unit to probe (e.g. BA).")
@click.option("--concurrency", default=16, show_default=True, help="Hosts probed at once.")
@click.option("--timeout", default=15.0, show_default=True,
              help="Seconds per network operation (connect, each read); a whole request "
                   "ends within $LOCLEG_REQUEST_DEADLINE (120 s), a host's whole probe within "
                   "$LOCLEG_PROBE_DEADLINE (300 s).")
@click.option("--dry-run", is_flag=True, help="Report what answers; register nothing.")
@corpus_option
def discover_sapl(uf: str, concurrency: int, timeout: float, dry_run: bool,
                  corpus_dir: Path | None) -> None:
    """Probe sapl.<município>.<uf>.leg.br for every municipality of a UF; register the SAPLs."""
    from ..harvest.discover import discover as run

    with opened(corpus_dir) as corpus:
        if not corpus.store.jurisdictions(uf=uf):
            raise UserError(f"unknown UF {uf!r}")
        report = asyncio.run(run(corpus.store, uf, concurrency=concurrency, timeout=timeout,
                                 dry_run=dry_run))
    for f in report.found:
        mark = "new" if f["new"] else ("seen" if not dry_run else "")
        console.print(f"  {f['ibge_code']}  {f['name']:<32} {f['base_url']:<45} "
                      f"SAPL {printable(f['version'] or '3.1')}  {mark}")
    for host, why in report.refused:
        console.print(f"  [yellow]not registered[/] {host}: {printable(why)}")
    for host, why in report.busy:
        console.print(f"  [yellow]busy, try again later[/] {host}: {printable(why)}")
    for host, why in report.slow:
        console.print(f"  [yellow]too slow, try again later[/] {host}: {printable(why)}")
    new = sum(1 for f in report.found if f["new"])
    console.print(f"Probed {report.probed:,} hosts of {uf.upper()}: {len(report.found):,} SAPL "
                  f"({new:,} new sources), {len(report.refused):,} answered but are not a SAPL "
                  f"3.1, {len(report.busy):,} were busy (429/5xx), {len(report.slow):,} "
                  f"answered too slowly, {report.unreachable:,} did not answer")


# -- harvest ---------------------------------------------------------------------------------


def _host_state(h, now: float) -> str:
    if h.parked_until:
        return f"parked until {_when(h.parked_until)}"
    if h.busy:
        return "fetching"
    if h.waiting_until:
        return f"waiting {max(0.0, h.waiting_until - now):.0f} s: {h.wait_reason or ''}"
    return "idle"


def _hosts_table(run, limit: int = 20) -> Table:
    table = Table("host", "requests", "ok", "errors", "norms", "files", "MB", "state",
                  box=None, title="harvest", title_justify="left")
    loop_time = time.monotonic()
    hosts = sorted(run.hosts.values(), key=lambda h: (not h.busy, h.waiting_until is None,
                                                       -h.requests))
    for h in hosts[:limit]:
        table.add_row(printable(h.host), f"{h.requests:,}", f"{h.ok:,}", f"{h.errors:,}",
                      f"{h.norms:,}", f"{h.files:,}", f"{h.bytes / 1e6:,.1f}",
                      printable(_host_state(h, loop_time)))
    if len(hosts) > limit:
        table.add_row(f"… and {len(hosts) - limit:,} more hosts", "", "", "", "", "", "", "")
    return table


_TOLD_HOSTS = 10  # a log names the spacing of the first hosts; the minute lines the rest


class _Heartbeat:
    """Progress for a log (no terminal): one line a minute, with what each host waits for."""

    def __init__(self, every: float = 60.0) -> None:
        self.every = every
        # The first line comes at once: a log shows from the start what each host waits for
        # (a Crawl-delay of 60 s is a minute of silence otherwise).
        self.last = float("-inf")
        self.told: set[str] = set()  # hosts whose spacing was said

    def __call__(self, run) -> None:
        now = time.monotonic()
        hosts = list(run.hosts.values())
        for h in hosts:
            # Each host's spacing, once, as soon as it is known: the waits it explains may
            # be a minute each (SAPL's robots.txt asks 60 s).
            if h.delay_reason and h.host not in self.told and len(self.told) < _TOLD_HOSTS:
                self.told.add(h.host)
                err_console.print(f"{printable(h.host)}: one request at a time, "
                                  f"{printable(h.delay_reason)} between them", highlight=False)
        if now - self.last < self.every or not hosts:
            return
        self.last = now
        fetching = sum(1 for h in hosts if h.busy)
        waiting = [h for h in hosts if h.waiting_until]
        sample = "; ".join(f"{h.host}: {_host_state(h, now)}" for h in waiting[:3])
        err_console.print(
            f"{datetime.now(UTC):%H:%M:%S} UTC  {len(hosts):,} host(s): {fetching:,} fetching, "
            f"{len(waiting):,} waiting" + (f" ({printable(sample)})" if sample else "")
            + f"; {sum(h.requests for h in hosts):,} requests, "
            f"{sum(h.files for h in hosts):,} files so far", highlight=False)


@cli.command()
@click.option("--source", "source_ids", type=int, multiple=True, metavar="ID",
              help="Harvest this source (repeatable).")
@click.option("--all", "all_sources", is_flag=True, help="Harvest every SAPL source (default).")
@click.option("--max-time", metavar="DURATION", help="Stop after this long (e.g. 6h), even in "
              "the middle of a request; what is left stays in the frontier for the next run.")
@click.option("--concurrency", default=16, show_default=True,
              help="Requests in flight across all hosts (each host: one at a time).")
@click.option("--timeout", default=60.0, show_default=True,
              help="Seconds per network operation (connect, each read).")
@click.option("--request-deadline", default="30m", show_default=True, metavar="DURATION",
              help="Longest a whole request may take, body included (a server that trickles "
                   "a byte at a time is cut off and retried later).")
@click.option("--max-file-size", default=200, show_default=True, metavar="MB",
              help="Originals larger than this are refused and recorded.")
@click.option("--refresh", is_flag=True, help="Start a new cycle even if the source is not due.")
@click.option("--full", is_flag=True, help="Rewrite every norm and ask for every file again "
              "(unconditionally), even those whose source gives no sign of change.")
@click.option("--no-files", is_flag=True, help="List norms and documents; fetch no originals.")
@corpus_option
def harvest(source_ids: tuple[int, ...], all_sources: bool, max_time: str | None,
            concurrency: int, timeout: float, request_deadline: str, max_file_size: int,
            refresh: bool, full: bool, no_files: bool, corpus_dir: Path | None) -> None:
    """Harvest sources politely: norms, their documents and the originals.

    Sources of every platform (`locleg sources list`) are harvested. Every cycle lists the
    norms (deletions included), stores what changed, and asks again for the files of changed
    norms and for a share of all files (see `sources set --revalidate-days`). Interrupt it at
    any moment (Ctrl-C, or even a kill) and run it again: it resumes from the frontier kept
    in the corpus database.
    """
    from ..harvest.engine import Harvest, HarvestConfig

    if source_ids and all_sources:
        raise UserError("give --source ID or --all, not both")
    seconds = parse_duration(max_time) if max_time else None
    if concurrency < 1:
        raise UserError("--concurrency must be at least 1")
    deadline = parse_duration(request_deadline)
    if deadline <= 0 or timeout <= 0:
        raise UserError("--timeout and --request-deadline must be more than 0")
    config = HarvestConfig(concurrency=concurrency, timeout=timeout, request_deadline=deadline,
                           max_file_size=max_file_size * 2**20, refresh=refresh or full,
                           full=full, files=not no_files)
    with opened(corpus_dir) as corpus:
        known = {s["id"]: s for s in corpus.store.sources()
                 if s["platform"] in platform.REGISTRY}
        if not known:
            raise UserError("no source to harvest: add one with `locleg sources add URL "
                            "--jurisdiction CODE` or `locleg discover sapl --uf UF`")
        for sid in source_ids:
            if sid not in known:
                raise UserError(f"no source {sid} to harvest (local folders and dumps are "
                                "imported, not harvested): see `locleg sources list`")
        live = Live(console=err_console, refresh_per_second=2, transient=True,
                    auto_refresh=True) if err_console.is_terminal else None
        progress = (lambda r: live.update(_hosts_table(r))) if live else _Heartbeat()
        run = Harvest(corpus, config, on_progress=progress)
        started = time.monotonic()
        if live:
            with live:
                report = asyncio.run(run.run(list(source_ids) or None, seconds))
        else:
            report = asyncio.run(run.run(list(source_ids) or None, seconds))
        elapsed = time.monotonic() - started
        refresh_derived(corpus)
    if report.hosts:
        console.print(_hosts_table(run, limit=50))
    console.print(
        f"Harvested in {elapsed:,.1f} s: {report.cycles_started} cycle(s) started, "
        f"{report.cycles_finished} finished; {report.norms:,} norms listed, "
        f"{report.files:,} files fetched ({report.new_versions:,} new versions, "
        f"{report.confirmed:,} confirmed unchanged)"
        + (f", {report.removed:,} norms marked removed" if report.removed else "")
        + (f"; {report.errors:,} errors (see `locleg sources list`, `locleg status`)"
           if report.errors else "")
        + (f"; {report.pauses:,} pauses asked by hosts (429/503 Retry-After), waited for"
           if report.pauses else "")
    )
    for h in report.parked:
        err_console.print(f"[yellow]parked:[/] {printable(h.host)} until "
                          f"{_when(h.parked_until)}: {printable(h.last_error or '')}")
    if report.pending:
        when = _when(report.next_request_at)
        why = " (--max-time reached)" if report.stopped_by_deadline else ""
        console.print(f"{report.pending:,} requests left in the frontier{why}, the next due "
                      f"{when} UTC: run `locleg harvest` again to go on")
    if report.failed:
        console.print(f"{report.failed:,} requests failed this cycle; they are retried next "
                      "cycle")
    if report.not_due:
        _say_not_due(report.not_due, nothing_done=not report.hosts)


def _say_not_due(not_due: list[dict], nothing_done: bool) -> None:
    """Which sources were left alone because their next cycle is not due, and how to go now."""
    head = "Nothing to do: " if nothing_done else ""
    console.print(f"{head}{len(not_due):,} source(s) not due yet:")
    for item in sorted(not_due, key=lambda i: i["next_due_at"])[:20]:
        console.print(f"  source {item['id']}  {printable(item['base_url'])}  next due "
                      f"{_when(item['next_due_at'])} UTC")
    if len(not_due) > 20:
        console.print(f"  … and {len(not_due) - 20:,} more (`locleg sources list`)")
    ids = " ".join(f"--source {i['id']}" for i in not_due[:3])
    console.print(f"To harvest now: `locleg harvest --refresh` (all of them) or "
                  f"`locleg harvest {ids} --refresh`")
