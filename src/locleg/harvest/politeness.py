"""Politeness: how the harvest behaves towards each host, the same for every platform.

One request at a time per host, spaced by the operator's delay for the source, else
robots.txt's Crawl-delay, else 1 s; robots.txt read first and obeyed (RFC 9309: one that
cannot be read keeps us away for now). A 429 or 503 with a Retry-After is no failure but the
server asking for a pause: the host waits as asked (the other hosts go on) and the same
request is made again first, up to `max_pauses` pauses in a row (and `pause_budget` seconds)
per request, after which each counts as a failure. Failures are retried later with
exponential backoff and jitter; a host that keeps failing is parked until later and
reported; a host we will not talk to (the SSRF guard) is refused at once.

`Politeness` is a part of `engine.Harvest`: it uses the harvest's `db`, `problem`,
`finish_cycle`, its host claims (`_held`, `_renew`) and its run's clock (`_loop`, `_sem`).
"""

from __future__ import annotations

import asyncio
import random
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import httpx
from protego import Protego

from ..store import utcnow
from . import claims, frontier, rows
from .claims import ClaimLost
from .frontier import aware
from .net import (
    ROBOTS_AGENT,
    USER_AGENT,
    Fetched,
    FetchError,
    Refused,
    TooSlow,
    host_key,
    make_client,
    open_stream,
    read_capped,
    status_error,
)

if TYPE_CHECKING:
    from .platform import SourceContext


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


class Politeness:
    """The requests of a harvest, made politely, and what a host's answers make it do."""

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

    def _parked(self, host: str) -> bool:
        state = self.hosts.get(host)
        return bool(state and state.parked_until and state.parked_until > utcnow())

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
