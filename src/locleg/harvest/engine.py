"""The polite scheduler: many hosts at once, one request at a time per host, resumable at any point.

Each host with pending requests gets a worker coroutine. A worker takes its host's requests
from the frontier in order, waits for the host's turn (robots.txt Crawl-delay, else 1 s,
unless the operator set a delay for the source), makes the request inside a global
concurrency bound, and stores the result. Failures are retried later with exponential
backoff and jitter; a host that keeps failing is parked until later and reported. A 429 or
503 with a Retry-After is no failure but the server asking for a pause: the host waits as
asked (the other hosts go on) and the same request is made again first, up to `max_pauses`
pauses in a row (and `pause_budget` seconds) per request, after which each counts as a
failure. Database writes go through one thread, in batches for files.

A worker runs only for a host this process has claimed (claims.py): several processes can
share one PostgreSQL corpus, each host worked by one of them at a time, its delay kept in the
database for whichever process works it next.

The engine knows publishing platforms only through platform.py: a source's platform starts
its cycles and handles every request of its chain; files are the engine's own.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from protego import Protego
from sqlalchemy import bindparam, select, update
from sqlalchemy.engine import Connection

from ..corpus import Corpus
from ..store import utcnow
from ..store.schema import document, record, source, version
from . import claims, frontier, platform, revalidate, rows
from .net import (
    ROBOTS_AGENT,
    USER_AGENT,
    Fetched,
    FetchError,
    Guard,
    Refused,
    Resolver,
    TooSlow,
    host_key,
    make_client,
    open_stream,
    read_capped,
    status_error,
)


def aware(moment: datetime | None) -> datetime | None:
    """SQLite hands timestamps back without their UTC offset."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


@dataclass
class HarvestConfig:
    concurrency: int = 16  # requests in flight over all hosts
    timeout: float = 60.0  # seconds, per network operation
    # seconds for a whole request, body and writes included: a server that trickles a byte a
    # second passes every per-operation timeout
    request_deadline: float = 1800.0
    max_file_size: int = 200 * 2**20
    max_json_size: int = 64 * 2**20  # one page or small table (get_all listings are streamed)
    default_delay: float = 1.0  # when robots.txt names no Crawl-delay
    backoff_base: float = 30.0  # first retry after ~this, doubling, with jitter
    backoff_max: float = 6 * 3600.0
    max_attempts: int = 6  # then the request fails for this cycle (retried next cycle)
    park_after: int = 5  # consecutive failures on a host before it is parked
    park_for: float = 6 * 3600.0
    max_retry_after: float = 3600.0  # a longer Retry-After parks the host instead
    # A 429/503 with Retry-After pauses the host and retries the same request, without counting
    # a failure, up to this many times in a row for one request (and this many seconds of
    # pauses in all): past that, each further one counts as a failure, so a server asking for
    # pauses for ever ends in the usual retries, give-up and parking, with the reason.
    max_pauses: int = 5
    pause_budget: float = 3600.0
    robots_ttl: float = 86400.0
    interval: float = 86400.0  # between cycles of a source
    full_every: float = 7 * 86400.0  # every row rewritten at least this often
    revalidate_days: float = revalidate.DEFAULT_DAYS  # each file confirmed at least this often
    batch: int = 1000  # norms per transaction
    file_batch: int = 64  # fetched files per transaction
    refresh: bool = False  # start a new cycle even when the source is not due
    full: bool = False  # rewrite every row and revalidate every file this cycle
    files: bool = True  # fetch the originals (False: only list)
    # seconds a host claim lasts unless renewed (claims.py): how soon the hosts of a killed
    # harvester are taken over by another
    lease: float = field(default_factory=claims.default_lease)


@dataclass
class SourceContext:
    """A source being harvested: its row, its platform's state, the guard of its requests."""

    id: int
    base_url: str
    jurisdiction_code: int
    settings: dict  # JSON column, set by the operator (delay, interval, ...)
    state: dict  # JSON column, the platform's own (save it with Harvest.save_state)
    guard: Guard
    platform: platform.Platform | None = None

    @property
    def version(self) -> str | None:
        """The publisher's software version, when its platform keeps one in state."""
        return self.state.get("version")

    @property
    def delay(self) -> float | None:
        value = self.settings.get("delay")
        return float(value) if value is not None else None

    def interval(self, config: HarvestConfig) -> float:
        return float(self.settings.get("interval") or config.interval)

    def revalidate_days(self, config: HarvestConfig) -> float:
        value = self.settings.get("revalidate_days")
        return float(value) if value is not None else config.revalidate_days


@dataclass
class HostState:
    host: str
    robots: Protego | None = None
    robots_loaded: bool = False
    crawl_delay: float | None = None
    next_allowed: float = 0.0  # loop time
    failures: int = 0
    parked_until: datetime | None = None
    pauses: int = 0  # pauses the host asked for (429/503 with Retry-After) and got
    robots_pauses: int = 0  # of which in a row on robots.txt
    # what the run did, for progress and the report
    requests: int = 0
    ok: int = 0
    errors: int = 0
    files: int = 0
    bytes: int = 0
    norms: int = 0
    last_error: str | None = None
    busy: bool = False
    waiting_until: float | None = None
    wait_reason: str | None = None  # why the host waits: shown by the progress
    delay_reason: str = ""  # where the spacing after the last request comes from
    refused: str | None = None  # a host we will not talk to (private address, ...)
    source_id: int | None = None  # the source of its latest request, to report to


@dataclass
class HarvestReport:
    hosts: dict[str, HostState] = field(default_factory=dict)
    cycles_started: int = 0
    cycles_finished: int = 0
    removed: int = 0
    new_versions: int = 0
    pending: int = 0
    failed: int = 0
    next_request_at: datetime | None = None
    stopped_by_deadline: bool = False
    revalidations: int = 0  # files queued to be confirmed at their source
    confirmed: int = 0  # files whose source confirmed the stored bytes (304, same sha256)
    not_due: list[dict] = field(default_factory=list)  # {id, base_url, next_due_at}

    @property
    def norms(self) -> int:
        return sum(h.norms for h in self.hosts.values())

    @property
    def files(self) -> int:
        return sum(h.files for h in self.hosts.values())

    @property
    def errors(self) -> int:
        return sum(h.errors for h in self.hosts.values())

    @property
    def pauses(self) -> int:
        return sum(h.pauses for h in self.hosts.values())

    @property
    def parked(self) -> list[HostState]:
        return [h for h in self.hosts.values() if h.parked_until]


class ClaimLost(Exception):
    """This process no longer holds the host (its lease ran out): its worker stops."""


@dataclass
class FileOutcome:
    """A file request done: a new version to store, or the stored one confirmed."""

    request: frontier.Request
    document_id: int
    new_version: dict | None = None
    # the same bytes with new validators: kept on the current version for the next request
    current_version_id: int | None = None
    etag: str | None = None
    last_modified: str | None = None


class Harvest:
    """One harvest run over some sources of a corpus (of any registered platform)."""

    def __init__(self, corpus: Corpus, config: HarvestConfig | None = None, *,
                 resolver: Resolver | None = None,
                 on_progress: Callable[[Harvest], None] | None = None) -> None:
        self.corpus = corpus
        self.store = corpus.store
        self.config = config or HarvestConfig()
        self.resolver = resolver or Resolver()
        self.on_progress = on_progress
        self.sources: dict[int, SourceContext] = {}
        self.hosts: dict[str, HostState] = {}
        self.report = HarvestReport(hosts=self.hosts)
        self._workers: dict[str, asyncio.Task] = {}
        self._wakeups: dict[str, asyncio.Event] = {}
        self._files_done: list[FileOutcome] = []
        self._flush_lock = asyncio.Lock()
        self._db_lock = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._deadline: float | None = None
        # One client per host: a host gets one request at a time, so one connection each,
        # and no pool shared by thousands of hosts to search on every request.
        self._clients: dict[str, httpx.AsyncClient] = {}
        self._ssl = None
        self._sem: asyncio.Semaphore | None = None
        # Host claims (claims.py): held hosts and until when (loop time) the lease is sure.
        self.claimant = claims.claimant_id()
        self._shared = self.store.dialect != "sqlite"
        self._held: dict[str, float] = {}
        self._finished: set[str] = set()  # hosts whose worker ended: claimed again on wake()
        self._claim_wakeup: asyncio.Event | None = None
        self._source_hosts: dict[str, list[int]] = {}
        # Pauses in a row of the requests a host asked to wait for: id -> (count, seconds).
        self._pauses: dict[int, tuple[int, float]] = {}

    # -- services for the source handlers ------------------------------------------------

    async def db(self, fn: Callable, *args: Any) -> Any:
        """Run fn(conn, *args) in one transaction, on the one database thread.

        A cancelled caller (a deadline, Ctrl-C) waits for the transaction to end first, so
        the lock is never released while a write is still running.
        """

        def run() -> Any:
            with self.store.transaction() as conn:
                return fn(conn, *args)

        async with self._db_lock:
            task = asyncio.ensure_future(asyncio.to_thread(run))
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                await asyncio.wait([task])
                raise

    async def analyze(self) -> None:
        """Fresh planner statistics while a big listing fills empty tables (PostgreSQL).

        Without them PostgreSQL keeps planning for the empty tables it last measured and
        each batch scans what the previous ones wrote: quadratic time.
        """
        if self.store.dialect != "postgresql":
            return

        def run(conn: Connection) -> None:
            conn.exec_driver_sql("ANALYZE norm, document, listed_norm, harvest_request")

        await self.db(run)

    async def get(self, ctx: SourceContext, url: str, *, headers: dict | None = None,
                  max_bytes: int | None = None, form: dict | None = None) -> Fetched:
        """A whole answer (up to max_bytes), politely; with `form`, those fields are POSTed
        (an ASP.NET postback) through the same path."""
        self._check_robots(url)
        await self._before_request(ctx, url)
        async with open_stream(self._client(url), url, ctx.guard, headers=headers,
                               form=form) as response:
            body = await read_capped(response, max_bytes or self.config.max_json_size)
            return Fetched(str(response.url), response.status_code, response.headers, body)

    @asynccontextmanager
    async def stream(self, ctx: SourceContext, url: str):
        self._check_robots(url)
        await self._before_request(ctx, url)
        async with open_stream(self._client(url), url, ctx.guard) as response:
            yield response

    async def pause(self, ctx: SourceContext, url: str) -> None:
        """Between two requests of one handler (pages of a table): the host's delay, slot freed."""
        state = self.hosts[host_key(url)]
        wait = self._delay(state, ctx)
        self._sem.release()
        try:
            await asyncio.sleep(wait)
        finally:
            await self._sem.acquire()

    async def problem(self, ctx: SourceContext, stage: str, subject: str, message: str) -> None:
        message = rows.text(message) or ""
        subject = rows.text(subject) or ""

        def write(conn: Connection) -> None:
            from ..store.schema import problem
            conn.execute(problem.insert(), {"at": utcnow(), "stage": stage,
                                            "subject": subject[:2000],
                                            "message": message[:4000], "source_id": ctx.id})
            conn.execute(update(source).where(source.c.id == ctx.id)
                         .values(last_error=message[:2000]))

        await self.db(write)

    def count(self, ctx: SourceContext, what: str, n: int) -> None:
        """A handler's tally: norms listed, norms marked removed."""
        state = self.hosts.get(host_key(ctx.base_url))
        if state is not None and what == "norms":
            state.norms += n
        elif what == "removed":
            self.report.removed += n
        self._progress()

    def save_state(self, conn: Connection, ctx: SourceContext, **values: Any) -> None:
        ctx.state.update(values)
        # ASCII JSON: a lone surrogate in a publisher's value stays an escape, never a str
        # the database cannot encode.
        conn.execute(update(source).where(source.c.id == ctx.id)
                     .values(state=json.dumps(ctx.state)))

    async def _before_request(self, ctx: SourceContext, url: str, count: bool = True) -> None:
        """Count the request; on a shared corpus, make sure the host is still ours and leave
        its next-allowed time in the database before asking (it holds should we die)."""
        if count:
            self._note_request(url)
        host = host_key(url)
        state = self.hosts.get(host)
        if state is None or host not in self._held:
            return
        if self._loop.time() >= self._held[host]:
            await self._renew([host])
            if host not in self._held:
                raise ClaimLost(host)
        delay = self._delay(state, ctx)
        # A process killed now is taken over once its lease runs out, at least 2/3 of a
        # lease after this request: only a delay longer than that needs writing down before
        # asking (renewals and the release carry the others), and those requests are rare.
        if self._shared and delay >= self.config.lease / 2:
            await self.db(claims.note_request, self.claimant, host, delay)

    def wake(self, hosts: Iterable[str]) -> None:
        """New requests for these hosts: start or wake their workers (from any thread)."""
        hosts = list(hosts)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake_now, hosts)

    async def finish_cycle(self, ctx: SourceContext, payload: dict) -> None:
        """The metadata of a cycle is in: the run record, the next due time.

        `payload` is the cycle's: "cycle" (when it started, ISO), "mode" ("full" when every
        row was rewritten), "complete" (False when a listing was cut short), "seen_since"
        (when its listing began). Removals are the platform's (listed.close_listing), made
        when it knew its listing complete.
        """
        started = datetime.fromisoformat(payload["cycle"])
        complete = payload.get("complete", True)
        full = payload.get("mode") == "full" and complete
        now = utcnow()

        def write(conn: Connection) -> None:
            seen_since = datetime.fromisoformat(payload.get("seen_since") or payload["cycle"])
            values = {"last_listing_at": seen_since.isoformat()}
            if full:
                values["last_full_at"] = values["last_listing_at"]
            self.save_state(conn, ctx, **values)
            error = None if complete else "the last listing was incomplete (see problems)"
            row = {"last_run_at": started, "last_error": error,
                   "next_due_at": now + timedelta(seconds=ctx.interval(self.config))}
            if complete:
                row["last_success_at"] = started
            conn.execute(update(source).where(source.c.id == ctx.id).values(**row))

        await self.db(write)
        self.report.cycles_finished += 1

    # -- running -------------------------------------------------------------------------

    async def run(self, source_ids: Iterable[int] | None = None,
                  max_time: float | None = None) -> HarvestReport:
        self._loop = asyncio.get_running_loop()
        self._deadline = self._loop.time() + max_time if max_time else None
        self._sem = asyncio.Semaphore(self.config.concurrency)
        self._claim_wakeup = asyncio.Event()
        single = None
        if not self._shared:
            single = claims.SingleHarvest(self.corpus.folder)
            await asyncio.to_thread(single.acquire)
        try:
            await self._load_sources(source_ids)
            if not self.sources:
                return self.report
            self._ssl = httpx.create_ssl_context()
            flusher = asyncio.create_task(self._flush_periodically())
            renewer = asyncio.create_task(self._renew_periodically())
            try:
                await self._schedule()
                await self._flush_files()
            finally:
                flusher.cancel()
                renewer.cancel()
                for client in self._clients.values():
                    await client.aclose()
                if self._held:
                    await self.db(claims.release_all, self.claimant)
            await self._summarize()
            return self.report
        finally:
            if single is not None:
                single.release()

    async def _schedule(self) -> None:
        """Claim hosts with pending requests, work them, until none is left to this process.

        On a shared corpus hosts are claimed a few at a time (a quarter of --concurrency, in
        quick rounds), so processes started together share them; a process with nothing of
        its own stays while another live process holds hosts with pending requests, to take
        them over should it die.
        """
        sources = list(self.sources)
        loop = self._loop
        busy_poll = min(self.config.lease / 2, 5.0)
        batch = max(1, self.config.concurrency // 4)
        backlog: list[str] = []  # hosts the last round had no room for
        scan = True  # look at the frontier: at the start, on wake(), on a poll

        def eligible(host: str) -> bool:
            return (host not in self._workers and host not in self._finished
                    and not self._parked(host))

        while True:
            self._claim_wakeup.clear()
            past_deadline = self._deadline is not None and loop.time() >= self._deadline
            more = False
            scanned = scan
            if not past_deadline and (scan or backlog):
                if backlog and not scan:
                    wanted = [h for h in backlog if eligible(h)]
                else:
                    wanted = [h for h in await self.db(frontier.pending_hosts, sources)
                              if eligible(h)]
                if self._shared:
                    chunk = wanted[:batch * 8]  # enough to find `batch` free ones, mostly
                    got = await self.db(claims.claim, self.claimant, chunk,
                                        self.config.lease, batch)
                    # A short round means the rest of its chunk is held by others.
                    rest = wanted[len(chunk):]
                    backlog = ([h for h in chunk if h not in got] + rest
                               if len(got) == batch else rest)
                    more = bool(backlog)
                else:
                    got = await self.db(claims.claim, self.claimant, wanted,
                                        self.config.lease, len(wanted), True)
                await self._start_workers(got)
            if not self._workers and not more:
                if not scanned and not past_deadline:
                    scan = True  # a last look at the frontier before ending
                    continue
                if past_deadline or not self._shared:
                    break
                if not await self.db(claims.held_elsewhere, self.claimant, sources):
                    break
            if not self._shared:
                timeout = None  # nothing but wake() brings this process new hosts
            else:
                timeout = 0.05 if more else busy_poll if self._workers else 1.0
            waits = [*self._workers.values(),
                     asyncio.ensure_future(self._claim_wakeup.wait())]
            try:
                done, _ = await asyncio.wait(waits, timeout=timeout,
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                waits[-1].cancel()
            # A worker that ended leaves nothing new to claim; a wake() or a poll may.
            scan = self._claim_wakeup.is_set() or not done
        if self._workers:
            await asyncio.gather(*list(self._workers.values()))

    def _parked(self, host: str) -> bool:
        state = self.hosts.get(host)
        return bool(state and state.parked_until and state.parked_until > utcnow())

    async def _start_workers(self, got: dict[str, float]) -> None:
        """Workers for newly claimed hosts, with what other processes left of them."""
        if not got:
            return
        now = self._loop.time()
        sure = now + self.config.lease * 2 / 3
        if self._shared:
            await self._reload_states(list(got))
        for host, wait in got.items():
            self._held[host] = sure
            state = self.hosts.setdefault(host, HostState(host))
            state.next_allowed = max(state.next_allowed, now + wait)
            if self._shared:
                state.robots_loaded = False  # another process may have read it since
            self._wakeups[host] = asyncio.Event()
            self._workers[host] = asyncio.create_task(self._worker(host))

    async def _reload_states(self, hosts: list[str]) -> None:
        """The sources of these hosts as the database has them: another process may have
        worked them (their version, types, …) since this one started."""
        ids = [sid for h in hosts for sid in self._source_hosts.get(h, ())]
        if not ids:
            return

        def read(conn: Connection) -> list:
            return conn.execute(select(source.c.id, source.c.state)
                                .where(source.c.id.in_(ids))).all()

        for sid, state in await self.db(read):
            self.sources[sid].state = json.loads(state or "{}")

    async def _renew(self, hosts: list[str]) -> None:
        """Extend the leases of these hosts; a host found lost stops its worker."""
        if not hosts:
            return
        loop = self._loop
        started = loop.time()
        waits = {h: self.hosts[h].next_allowed - started for h in hosts if h in self.hosts}
        kept = await self.db(claims.renew, self.claimant, hosts, self.config.lease, waits)
        sure = started + self.config.lease * 2 / 3
        for host in hosts:
            if host in kept:
                self._held[host] = sure
                continue
            self._held.pop(host, None)
            worker = self._workers.get(host)
            if worker is not None and worker is not asyncio.current_task():
                worker.cancel()

    async def _renew_periodically(self) -> None:
        while True:
            await asyncio.sleep(self.config.lease / 3)
            await self._renew(list(self._held))

    async def _load_sources(self, source_ids: Iterable[int] | None) -> None:
        wanted = set(source_ids) if source_ids is not None else None
        rows_ = await asyncio.to_thread(self.store.sources)
        now = utcnow()
        for row in rows_:
            # Sources of no registered platform (local folders, dumps) are not harvested.
            if row["platform"] not in platform.REGISTRY or (wanted is not None
                                                             and row["id"] not in wanted):
                continue
            ctx = SourceContext(row["id"], row["base_url"], row["jurisdiction_code"],
                                json.loads(row["settings"] or "{}"),
                                json.loads(row["state"] or "{}"),
                                Guard(row["base_url"], self.resolver),
                                platform.get(row["platform"]))
            self.sources[ctx.id] = ctx
            self._source_hosts.setdefault(host_key(ctx.base_url), []).append(ctx.id)
            next_due = aware(row["next_due_at"])
            due = self.config.refresh or self.config.full or next_due is None or next_due <= now
            if not due:
                self.report.not_due.append({"id": ctx.id, "base_url": ctx.base_url,
                                            "next_due_at": next_due})
                continue
            rewrite = self._rewrite(ctx, now)

            def seed(conn: Connection, ctx=ctx, rewrite=rewrite) -> int | None:
                # Harvesters started together: one starts the cycle, the others wait for its
                # commit here and find the cycle begun (or the source no longer due).
                due_at = aware(conn.scalar(select(source.c.next_due_at)
                                           .where(source.c.id == ctx.id).with_for_update()))
                if not (self.config.refresh or self.config.full or due_at is None
                        or due_at <= utcnow()):
                    return None
                if frontier.has_pending_chain(conn, ctx.id):
                    return None
                ctx.platform.start_cycle(conn, ctx, rewrite)
                return revalidate.queue(conn, ctx.id, now, days=ctx.revalidate_days(self.config),
                                        interval=ctx.interval(self.config),
                                        everything=self.config.full)

            queued = await self.db(seed)
            if queued is not None:
                self.report.cycles_started += 1
                self.report.revalidations += queued

    def _rewrite(self, ctx: SourceContext, now: datetime) -> bool:
        """Whether this cycle rewrites every row (--full, the first, or a week since the last)."""
        last_full = ctx.state.get("last_full_at")
        return (self.config.full or not last_full
                or now - datetime.fromisoformat(last_full)
                > timedelta(seconds=self.config.full_every))

    def _wake_now(self, hosts: Iterable[str]) -> None:
        for host in hosts:
            if host in self._workers:
                self._wakeups[host].set()
                continue
            # Not ours now: the scheduler claims it (it may be another process's).
            self._finished.discard(host)
            self._claim_wakeup.set()

    async def _worker(self, host: str) -> None:
        state = self.hosts[host]
        lost = False
        try:
            await self._work(state)
        except ClaimLost:
            lost = True
        except asyncio.CancelledError:
            if host in self._held:  # Ctrl-C or the run's end, not a lost claim
                raise
            lost = True
        except Exception as e:  # a bug of ours: this host stops, the others go on
            state.errors += 1
            state.last_error = _internal(e)
            ctx = self.sources.get(state.source_id) or next(iter(self.sources.values()))
            await self.problem(ctx, "harvest", host, f"the worker for {host} stopped: "
                               f"{state.last_error}")
        finally:
            self._workers.pop(host, None)
            self._wakeups.pop(host, None)
            client = self._clients.pop(host, None)
            if client is not None:
                await client.aclose()
            state.busy, state.waiting_until, state.wait_reason = False, None, None
            if not lost:
                self._finished.add(host)
            if self._held.pop(host, None) is not None:
                await self._flush_files()  # its files done: committed before another takes it
                await self.db(claims.release, self.claimant, host,
                              state.next_allowed - self._loop.time())
            self._progress()

    async def _work(self, state: HostState) -> None:
        host = state.host
        queue: deque[frontier.Request] = deque()
        loop = self._loop
        if not state.robots_loaded:
            await self._load_host(state)
        while True:
            if state.parked_until and state.parked_until > utcnow():
                break
            if not queue:
                await self._flush_files()
                queue.extend(await self.db(frontier.load, host, 100, self.config.files,
                                           list(self.sources),
                                           self.claimant if self._shared else None))
                if not queue:
                    break
            req = queue[0]
            ctx = self.sources[req.source_id]
            state.source_id = ctx.id
            if state.refused:
                await self._refuse_host(state, ctx, state.refused)
                queue.clear()
                continue
            due = loop.time() + (aware(req.not_before) - utcnow()).total_seconds()
            start = max(due, state.next_allowed)
            if self._deadline is not None and start > self._deadline:
                self.report.stopped_by_deadline = True
                break
            if start > loop.time():
                reason = self._wait_reason(state, req, due)
                if await self._sleep(state, start - loop.time(), reason):
                    queue.clear()  # new requests arrived: take them in order
                continue
            queue.popleft()
            if not state.robots_loaded:
                await self._fetch_robots(state, ctx, req.url)
                queue.appendleft(req)
                continue
            if not await self._perform(state, ctx, req, queue):
                break

    def _wait_reason(self, state: HostState, req: frontier.Request, due: float) -> str:
        if due > state.next_allowed and req.attempts:
            why = f"retry {req.attempts + 1} of {req.kind}"
            if req.last_error:
                why += f" after: {req.last_error[:80]}"
            return why
        return state.delay_reason or "spacing between requests"

    async def _sleep(self, state: HostState, seconds: float, reason: str) -> bool:
        """Wait for the host's turn; True when woken early by new requests."""
        event = self._wakeups[state.host]
        event.clear()
        state.waiting_until = self._loop.time() + seconds
        when = utcnow() + timedelta(seconds=seconds)
        state.wait_reason = f"{reason}; next request {when:%H:%M:%S} UTC"
        self._progress()
        try:
            await asyncio.wait_for(event.wait(), seconds)
            return True
        except TimeoutError:
            return False
        finally:
            state.waiting_until = state.wait_reason = None

    def _budget(self) -> float:
        """Seconds the next request may take: its own deadline, within the run's."""
        budget = self.config.request_deadline
        if self._deadline is not None:
            budget = min(budget, self._deadline - self._loop.time())
        return max(budget, 0.0)

    async def _perform(self, state: HostState, ctx: SourceContext, req: frontier.Request,
                       queue: deque) -> bool:
        """Make one request and store what it brings; False when the run's time is up."""
        budget = self._budget()
        async with self._sem:
            state.busy = True
            self._progress()
            error: FetchError | None = None
            try:
                async with asyncio.timeout(budget):
                    if req.kind == frontier.FILE:
                        await self._file(ctx, req)
                    else:
                        await ctx.platform.handle(self, ctx, req)
            except FetchError as e:
                error = e
            except ClaimLost:
                raise  # the request stays in the frontier for the host's new claimant
            except TimeoutError:
                if self._deadline is not None and self._loop.time() >= self._deadline - 0.05:
                    # --max-time: the request stays in the frontier, the next run redoes it.
                    self.report.stopped_by_deadline = True
                    return False
                error = TooSlow(req.url, budget)
            except Exception as e:
                # Whatever the answer held that we did not foresee costs this request, never
                # the harvest: recorded, set aside (failed) until the next cycle.
                error = FetchError(f"could not handle the answer to {req.url}: {_internal(e)}",
                                   transient=False)
            finally:
                state.busy = False
                state.next_allowed = self._loop.time() + self._delay(state, ctx)
                state.delay_reason = self._delay_reason(state, ctx)
        if error is None:
            state.ok += 1
            state.failures = 0
            self._pauses.pop(req.id, None)
            if req.kind != frontier.FILE:
                queue.clear()  # a step of the chain queues more: take them in priority order
        else:
            queue.clear()
            failure = await self._pause(state, req, error)
            if failure is not None:
                await self._failed(state, ctx, req, failure)
        self._progress()
        return True

    def _client(self, url: str) -> httpx.AsyncClient:
        host = host_key(url)
        client = self._clients.get(host)
        if client is None:
            client = make_client(self.resolver, timeout=self.config.timeout, max_connections=2,
                                 ssl_context=self._ssl, deadline=self.config.request_deadline)
            self._clients[host] = client
        return client

    def _delay(self, state: HostState, ctx: SourceContext) -> float:
        if ctx.delay is not None:
            return ctx.delay
        if state.crawl_delay is not None:
            return state.crawl_delay
        return self.config.default_delay

    def _delay_reason(self, state: HostState, ctx: SourceContext) -> str:
        delay = self._delay(state, ctx)
        if ctx.delay is not None:
            return f"operator delay {delay:g} s (sources set {ctx.id} --delay)"
        if state.crawl_delay is not None:
            return f"robots.txt Crawl-delay {delay:g} s"
        return f"default delay {delay:g} s"

    def _note_request(self, url: str) -> None:
        state = self.hosts.get(host_key(url))
        if state is not None:
            state.requests += 1

    # -- robots.txt ----------------------------------------------------------------------

    async def _load_host(self, state: HostState) -> None:
        row = await self.db(frontier.get_host, state.host)
        if not row:
            return
        state.failures = row["failures"] or 0
        parked = aware(row["parked_until"])
        if parked and parked > utcnow():
            state.parked_until = parked
        fetched = aware(row["robots_fetched_at"])
        if fetched and (utcnow() - fetched).total_seconds() < self.config.robots_ttl:
            state.robots = Protego.parse(row["robots_txt"]) if row["robots_txt"] else None
            state.crawl_delay = row["crawl_delay"]
            state.robots_loaded = True

    async def _fetch_robots(self, state: HostState, ctx: SourceContext, url: str) -> None:
        scheme = url.split("://", 1)[0]
        robots_url = f"{scheme}://{state.host}/robots.txt"
        try:
            await ctx.guard.check(robots_url)
        except Refused as e:
            # Not a server problem: no request, no retry, no waiting.
            state.refused = str(e)
            return
        except FetchError as e:
            await self._host_failed(state, ctx, robots_url, e)
            return
        async with self._sem:
            state.requests += 1
            await self._before_request(ctx, robots_url, count=False)
            try:
                async with asyncio.timeout(self._budget()), \
                        open_stream(self._client(robots_url), robots_url,
                                    ctx.guard) as response:
                    body = await read_capped(response, 2**20)
                    status, headers = response.status_code, response.headers
            except TimeoutError:
                state.next_allowed = self._loop.time() + self._delay(state, ctx)
                if self._deadline is not None and self._loop.time() >= self._deadline - 0.05:
                    return
                await self._host_failed(state, ctx, robots_url,
                                        TooSlow(robots_url, self.config.request_deadline))
                return
            except FetchError as e:
                state.next_allowed = self._loop.time() + self._delay(state, ctx)
                await self._host_failed(state, ctx, robots_url, e)
                return
        if status >= 500 or status == 429:
            # RFC 9309: an unreachable robots.txt means "stay away for now".
            await self._host_failed(state, ctx, robots_url,
                                    status_error(robots_url, status, headers))
            return
        text = rows.text(body.decode("utf-8", "replace")) if status == 200 else None
        state.robots = Protego.parse(text) if text else None
        state.crawl_delay = state.robots.crawl_delay(ROBOTS_AGENT) if state.robots else None
        state.robots_loaded = True
        state.robots_pauses = 0
        state.next_allowed = self._loop.time() + self._delay(state, ctx)
        state.delay_reason = self._delay_reason(state, ctx)
        await self.db(lambda conn: frontier.save_host(
            conn, state.host, robots_txt=text, robots_status=status,
            robots_fetched_at=utcnow(), crawl_delay=state.crawl_delay))

    def _check_robots(self, url: str) -> None:
        state = self.hosts.get(host_key(url))
        if state is not None and state.robots is not None \
                and not state.robots.can_fetch(url, USER_AGENT):
            raise Refused(f"disallowed by robots.txt: {url}")

    async def _refuse_host(self, state: HostState, ctx: SourceContext, reason: str) -> None:
        """Every request to a host we will not talk to fails now, recorded once per run."""
        count = await self.db(frontier.refuse_host, state.host, list(self.sources), reason)
        state.errors += count
        state.last_error = reason
        await self.problem(ctx, "fetch", state.host, f"{reason} ({count:,} request(s) refused, "
                           "not retried before the next cycle)")

    # -- files ---------------------------------------------------------------------------

    async def _file(self, ctx: SourceContext, req: frontier.Request) -> None:
        current = await self.db(_current_version, req.payload.get("document_id"))
        if current is None:  # the document is gone from the corpus or its source: skip it
            await self.db(lambda conn: frontier.complete(conn, [req.id]))
            return
        headers = {}
        if not req.payload.get("unconditional"):
            if current.get("etag"):
                headers["If-None-Match"] = current["etag"]
            if current.get("last_modified"):
                headers["If-Modified-Since"] = current["last_modified"]
        fetched = await self.get(ctx, req.url, headers=headers,
                                 max_bytes=self.config.max_file_size)
        state = self.hosts[host_key(req.url)]
        outcome = FileOutcome(req, current["document_id"])
        if fetched.status == 304:
            await self._file_done(outcome)
            return
        if fetched.status != 200:
            raise status_error(req.url, fetched.status, fetched.headers)
        data = fetched.body
        state.files += 1
        state.bytes += len(data)
        etag = rows.text(fetched.headers.get("etag"))
        last_modified = rows.text(fetched.headers.get("last-modified"))

        def store_blob() -> None:
            digest = hashlib.sha256(data).hexdigest()
            if digest == current.get("sha256"):
                if (etag, last_modified) != (current["etag"], current["last_modified"]):
                    outcome.current_version_id = current["version_id"]
                    outcome.etag, outcome.last_modified = etag, last_modified
                return
            from ..extract import sniff_media_type

            self.corpus.blobs.put(data, digest)
            outcome.new_version = {
                "document_id": current["document_id"], "sha256": digest, "size": len(data),
                "media_type": sniff_media_type(data), "fetched_at": utcnow(),
                "origin": fetched.url, "http_status": fetched.status, "etag": etag,
                "last_modified": last_modified}

        await asyncio.to_thread(store_blob)
        await self._file_done(outcome)

    async def _file_done(self, outcome: FileOutcome) -> None:
        self._files_done.append(outcome)
        if len(self._files_done) >= self.config.file_batch:
            await self._flush_files()

    async def _flush_files(self) -> None:
        async with self._flush_lock:
            done, self._files_done = self._files_done, []
            if not done:
                return
            new = [o.new_version for o in done if o.new_version is not None]
            if new:
                # Originals reach the disk before the rows that name them are committed.
                await asyncio.to_thread(self.corpus.blobs.sync)
            validators = [{"b_id": o.current_version_id, "b_etag": o.etag,
                           "b_modified": o.last_modified}
                          for o in done if o.current_version_id is not None]
            now = utcnow()

            def write(conn: Connection) -> None:
                self.store.add_versions(conn, new)
                if validators:
                    conn.execute(update(version).where(version.c.id == bindparam("b_id"))
                                 .values(etag=bindparam("b_etag"),
                                         last_modified=bindparam("b_modified")), validators)
                conn.execute(update(document)
                             .where(document.c.id.in_({o.document_id for o in done}))
                             .values(checked_at=now))
                frontier.complete(conn, [o.request.id for o in done])

            await self.db(write)
            self.report.new_versions += len(new)
            self.report.confirmed += len(done) - len(new)

    async def _flush_periodically(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            await self._flush_files()

    # -- pauses and failures ---------------------------------------------------------------

    def _asked_pause(self, error: FetchError) -> float | None:
        """The pause a 429/503 with Retry-After asks for (None: no pause asked, or one so long
        that the host is parked instead)."""
        seconds = error.retry_after
        if error.status not in (429, 503) or seconds is None \
                or seconds > self.config.max_retry_after:
            return None
        return seconds

    async def _pause(self, state: HostState, req: frontier.Request,
                     error: FetchError) -> FetchError | None:
        """None when the error is the server asking for a pause, taken: the host waits as
        asked and the same request stays first in the frontier (its place kept, no attempt
        counted). Else the error to count as a failure, with the pauses it follows said."""
        seconds = self._asked_pause(error)
        if seconds is None:
            return error
        count, total = self._pauses.get(req.id, (0, 0.0))
        count, total = count + 1, total + seconds
        if count > self.config.max_pauses or total > self.config.pause_budget:
            self._pauses.pop(req.id, None)
            return FetchError(f"{error}; asked to pause {count} times in a row ({total:.0f} s "
                              "in all): counted as a failure", transient=True,
                              status=error.status, retry_after=error.retry_after)
        self._pauses[req.id] = (count, total)
        state.pauses += 1
        state.next_allowed = max(state.next_allowed, self._loop.time() + seconds)
        state.delay_reason = (f"HTTP {error.status} Retry-After {seconds:g} s (pause {count} "
                              f"of at most {self.config.max_pauses} for one request)")
        if self._shared and seconds >= self.config.lease / 2 and state.host in self._held:
            # Written down now: whoever works the host next, should we die, waits too.
            await self.db(claims.note_request, self.claimant, state.host, seconds)
        return None

    def _backoff(self, attempts: int) -> float:
        wait = min(self.config.backoff_max, self.config.backoff_base * 2 ** (attempts - 1))
        return wait * random.uniform(0.5, 1.5)

    async def _failed(self, state: HostState, ctx: SourceContext, req: frontier.Request,
                      error: FetchError) -> None:
        attempts = req.attempts + 1
        state.errors += 1
        state.last_error = str(error)
        now = utcnow()
        stage = "fetch" if req.kind == frontier.FILE else "harvest"
        retry_after = error.retry_after
        if retry_after is not None and retry_after > self.config.max_retry_after:
            await self._park(state, ctx, now + timedelta(seconds=retry_after),
                             f"Retry-After {retry_after:.0f} s")
        if retry_after is not None:
            state.next_allowed = max(state.next_allowed, self._loop.time() + retry_after)
            state.delay_reason = f"HTTP {error.status} Retry-After {retry_after:.0f} s"
        if error.transient and attempts < self.config.max_attempts:
            wait = retry_after if retry_after is not None else self._backoff(attempts)
            when = now + timedelta(seconds=wait)
            message = f"{error} (attempt {attempts} of {self.config.max_attempts}; " \
                      f"retry at {when:%Y-%m-%d %H:%M:%S} UTC)"
            await self.db(frontier.reschedule, req.id, when, attempts, str(error))
        else:
            message = f"{error} (gave up after {attempts} attempt(s); retried next cycle)" \
                if error.transient else f"{error} (not retried before the next cycle)"
            await self.db(frontier.give_up, req.id, attempts, str(error))
            if req.payload.get("closes_cycle"):
                await self.finish_cycle(ctx, {**req.payload, "complete": False})
            # Any other step of the chain: the cycle stops there; the next run starts over.
        await self.problem(ctx, stage, req.url, message)
        if error.transient:
            state.failures += 1
            if state.failures >= self.config.park_after and not state.parked_until:
                await self._park(state, ctx, now + timedelta(seconds=self.config.park_for),
                                 f"{state.failures} failures in a row")
        await self.db(lambda conn: frontier.save_host(conn, state.host, failures=state.failures,
                                                       last_error=str(error)[:2000]))

    async def _host_failed(self, state: HostState, ctx: SourceContext, url: str,
                           error: FetchError) -> None:
        """robots.txt could not be read: the host waits (backoff), and may be parked; or it
        asked for a pause (429/503 with Retry-After), waited for as asked."""
        seconds = self._asked_pause(error)
        if seconds is not None and state.robots_pauses < self.config.max_pauses:
            state.robots_pauses += 1
            state.pauses += 1
            state.next_allowed = max(state.next_allowed, self._loop.time() + seconds)
            state.delay_reason = f"robots.txt: HTTP {error.status} Retry-After {seconds:g} s"
            return
        state.errors += 1
        state.failures += 1
        state.last_error = str(error)
        retry_after = error.retry_after
        if retry_after is not None and retry_after > self.config.max_retry_after:
            await self.problem(ctx, "harvest", url, f"{error} (robots.txt: asked to come back "
                               f"in {retry_after:.0f} s)")
            await self._park(state, ctx, utcnow() + timedelta(seconds=retry_after),
                             f"robots.txt Retry-After {retry_after:.0f} s")
        else:
            wait = retry_after if retry_after is not None else self._backoff(state.failures)
            state.next_allowed = self._loop.time() + wait
            state.delay_reason = f"robots.txt unreadable ({str(error)[:60]})"
            await self.problem(ctx, "harvest", url, f"{error} (robots.txt unreadable: host waits "
                               f"{wait:.1f} s)")
            if state.failures >= self.config.park_after:
                await self._park(state, ctx, utcnow() + timedelta(seconds=self.config.park_for),
                                 f"{state.failures} failures in a row")
        await self.db(lambda conn: frontier.save_host(conn, state.host, failures=state.failures,
                                                       last_error=str(error)[:2000]))

    async def _park(self, state: HostState, ctx: SourceContext, until: datetime,
                    why: str) -> None:
        state.parked_until = until
        await self.problem(ctx, "harvest", state.host,
                           f"host {state.host} parked until {until:%Y-%m-%d %H:%M} UTC: {why}")
        await self.db(lambda conn: frontier.save_host(conn, state.host, parked_until=until))

    # -- the end -------------------------------------------------------------------------

    async def _summarize(self) -> None:
        def read(conn: Connection) -> None:
            health = frontier.source_health(conn)
            for sid in self.sources:
                entry = health.get(sid, {})
                self.report.pending += entry.get("pending", 0)
                self.report.failed += entry.get("failed", 0)
                nxt = aware(entry.get("next_request_at"))
                if nxt and (self.report.next_request_at is None
                            or nxt < self.report.next_request_at):
                    self.report.next_request_at = nxt

        await self.db(read)

    def _progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self)


def _internal(e: BaseException) -> str:
    """An unforeseen exception as one line: its kind, message and where it was raised."""
    frames = traceback.extract_tb(e.__traceback__)
    where = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    message = str(e).splitlines()[0][:300] if str(e) else ""
    return f"{type(e).__name__}{where}: {message}" if message else f"{type(e).__name__}{where}"


def _current_version(conn: Connection, document_id: int | None) -> dict | None:
    if document_id is None:
        return None
    row = conn.execute(
        select(document.c.id, document.c.current_version_id, version.c.sha256, version.c.etag,
               version.c.last_modified)
        .outerjoin(version, version.c.id == document.c.current_version_id)
        .join(record, record.c.id == document.c.record_id)
        .where(document.c.id == document_id, document.c.removed_at.is_(None),
               record.c.removed_at.is_(None))
    ).first()
    if row is None:
        return None
    return {"document_id": row.id, "version_id": row.current_version_id, "sha256": row.sha256,
            "etag": row.etag, "last_modified": row.last_modified}


def harvest(corpus: Corpus, source_ids: Iterable[int] | None = None, *,
            config: HarvestConfig | None = None, max_time: float | None = None,
            resolver: Resolver | None = None,
            on_progress: Callable[[Harvest], None] | None = None) -> HarvestReport:
    """Run a harvest to its end (or max_time seconds); safe to interrupt and run again."""
    run = Harvest(corpus, config, resolver=resolver, on_progress=on_progress)
    return asyncio.run(run.run(source_ids, max_time))
