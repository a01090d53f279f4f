"""Walking the frontier: hosts claimed, one worker per host, each taking its requests in order.

Each host with pending requests gets a worker coroutine. A worker takes its host's requests
from the frontier in order, waits for the host's turn (politeness.py), makes the request
inside a global concurrency bound, and hands it to the source's platform (a step of its
chain) or to the files (files.py). A worker runs only for a host this process has claimed
(claims.py): several processes can share one PostgreSQL corpus, each host worked by one of
them at a time, its delay kept in the database for whichever process works it next.

`HostWorkers` is a part of `engine.Harvest`: it uses the harvest's `db`, `problem`, its
politeness (`_delay`, `_load_host`, `_fetch_robots`, `_pause`, `_failed`, ...) and files.
"""

from __future__ import annotations

import asyncio
import json
import traceback
from collections import deque
from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ..store import utcnow
from ..store.schema import source
from . import claims, frontier
from .claims import ClaimLost
from .frontier import aware
from .net import FetchError, TooSlow
from .politeness import HostState

if TYPE_CHECKING:
    from .platform import SourceContext


class HostWorkers:
    """Claims hosts with pending requests and works each, until none is left to this process."""

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

    def wake(self, hosts: Iterable[str]) -> None:
        """New requests for these hosts: start or wake their workers (from any thread)."""
        hosts = list(hosts)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake_now, hosts)

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


def _internal(e: BaseException) -> str:
    """An unforeseen exception as one line: its kind, message and where it was raised."""
    frames = traceback.extract_tb(e.__traceback__)
    where = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    message = str(e).splitlines()[0][:300] if str(e) else ""
    return f"{type(e).__name__}{where}: {message}" if message else f"{type(e).__name__}{where}"
