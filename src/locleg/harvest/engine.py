"""The polite scheduler: many hosts at once, one request at a time per host, resumable at any point.

`Harvest` composes the parts of a run, each a module of its own:

    politeness.py  per-host spacing, robots.txt, Retry-After pauses, backoff, parking
    workers.py     the frontier walked: hosts claimed, one worker per host, requests in order
    files.py       the originals fetched (conditional GETs) and stored in batches
    cycles.py      sources due, cycles started and finished, the run's report

and gives them, and the platforms, the services they share: one database thread (`db`),
problems recorded on the source (`problem`), progress. Database writes go through that one
thread, in batches for files.

The engine knows publishing platforms only through platform.py (`RunningHarvest` is what a
platform sees of this class): a source's platform starts its cycles and handles every
request of its chain; files are the engine's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

import httpx
from sqlalchemy import update
from sqlalchemy.engine import Connection

from ..corpus import Corpus
from ..store import utcnow
from ..store.schema import source
from . import claims, rows
from .config import HarvestConfig
from .cycles import Cycles, HarvestReport
from .files import FileFetching, FileOutcome
from .net import Resolver
from .platform import SourceContext
from .politeness import HostState, Politeness
from .workers import HostWorkers

__all__ = ["Harvest", "HarvestConfig", "HarvestReport", "HostState", "harvest"]


class Harvest(Politeness, HostWorkers, FileFetching, Cycles):
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
        self._db_lock = asyncio.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._deadline: float | None = None
        # politeness: one client per host (a host gets one request at a time, so one
        # connection each, and no pool shared by thousands of hosts to search on every
        # request); pauses in a row of the requests a host asked to wait for: id -> (count,
        # seconds)
        self._clients: dict[str, httpx.AsyncClient] = {}
        self._ssl = None
        self._sem: asyncio.Semaphore | None = None
        self._pauses: dict[int, tuple[int, float]] = {}
        # workers, and the host claims (claims.py): held hosts and until when (loop time)
        # the lease is sure
        self._workers: dict[str, asyncio.Task] = {}
        self._wakeups: dict[str, asyncio.Event] = {}
        self.claimant = claims.claimant_id()
        self._shared = self.store.dialect != "sqlite"
        self._held: dict[str, float] = {}
        self._finished: set[str] = set()  # hosts whose worker ended: claimed again on wake()
        self._claim_wakeup: asyncio.Event | None = None
        self._source_hosts: dict[str, list[int]] = {}
        # files fetched, written in batches
        self._files_done: list[FileOutcome] = []
        self._flush_lock = asyncio.Lock()


    # -- services for the parts and the platforms ------------------------------------------

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

    def _progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self)

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


def harvest(corpus: Corpus, source_ids: Iterable[int] | None = None, *,
            config: HarvestConfig | None = None, max_time: float | None = None,
            resolver: Resolver | None = None,
            on_progress: Callable[[Harvest], None] | None = None) -> HarvestReport:
    """Run a harvest to its end (or max_time seconds); safe to interrupt and run again."""
    run = Harvest(corpus, config, resolver=resolver, on_progress=on_progress)
    return asyncio.run(run.run(source_ids, max_time))
