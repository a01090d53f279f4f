"""The few polite requests a platform's probe makes when a source is added: robots.txt first
(obeyed, its Crawl-delay between the probe's own requests), each request retried when the site
says it is busy (429, 503 with a Retry-After that fits the wait allowed), never a verdict on
what the site is from a busy answer. SAPL 3.1, SAPL 2.5 and OAI-PMH probe through it.

A probe ends in time: each request within its client's deadline (net.request_deadline(),
LOCLEG_REQUEST_DEADLINE, 120 s), the whole probe within `probe_deadline()`
(LOCLEG_PROBE_DEADLINE, 300 s); past either, one line "<host> answered too slowly: …" and
nothing stored."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
from protego import Protego

from ..errors import UserError
from .net import (
    ROBOTS_AGENT,
    USER_AGENT,
    FetchError,
    Guard,
    TooSlow,
    fetch,
    host_key,
    request_deadline,
    retry_after_seconds,
    seconds_setting,
)
from .platform import NotThisPlatform

PROBE_DEADLINE_ENV = "LOCLEG_PROBE_DEADLINE"
# Seconds a whole probe may take: robots.txt and two or three requests, each within the
# request deadline, and the Retry-After waits a probe accepts (at most 120 s in all).
DEFAULT_PROBE_DEADLINE = 300.0
T = TypeVar("T")


class Unreachable(UserError):
    """Nothing answered at that URL (no such host, refused, timed out)."""


class Busy(UserError):
    """It answered, but only to say it cannot now (429, 5xx): nothing is known of what it is."""


class SlowAnswer(UserError):
    """It answered, but too slowly to end within the request's or the probe's deadline."""


def probe_deadline() -> float:
    """LOCLEG_PROBE_DEADLINE, else DEFAULT_PROBE_DEADLINE seconds."""
    return seconds_setting(PROBE_DEADLINE_ENV, DEFAULT_PROBE_DEADLINE)


def did_not_answer(base_url: str, error: FetchError) -> UserError:
    """The one line for a probe's request that failed: too slow, or no answer at all."""
    if isinstance(error, TooSlow):
        return SlowAnswer(str(error))
    return Unreachable(f"{base_url} did not answer: {error}")


async def within_deadline(work: Awaitable[T], where: str, seconds: float | None = None) -> T:
    """`work` (a probe of the URL `where`), ended at the probe's deadline with SlowAnswer."""
    if seconds is None:
        seconds = probe_deadline()
    timer = asyncio.timeout(seconds)
    try:
        async with timer:
            return await work
    except TimeoutError:
        if not timer.expired():
            raise
    try:
        host = host_key(where if "://" in where else "https://" + where)
    except ValueError:
        host = where
    raise SlowAnswer(f"{host} answered too slowly: the probe did not end within {seconds:g} s "
                     f"({PROBE_DEADLINE_ENV}; each request within {request_deadline():g} s, "
                     "LOCLEG_REQUEST_DEADLINE)")


class Prober:
    """The few requests a probe makes: robots.txt first, then each one spaced and retried."""

    def __init__(self, base_url: str, client: httpx.AsyncClient, guard: Guard,
                 max_wait: float, on_wait: Callable[[float, str], None] | None) -> None:
        self.base_url, self.client, self.guard = base_url, client, guard
        self.max_wait = max_wait
        self.on_wait = on_wait
        self.waited = 0.0
        self.robots: Protego | None = None
        self.robots_txt: str | None = None
        self.robots_status: int | None = None
        self.crawl_delay: float | None = None
        self._requests = 0

    async def read_robots(self) -> None:
        parts = urlsplit(self.base_url)
        url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        try:
            answer = await self._get(url, robots=True)
        except FetchError as e:
            raise did_not_answer(self.base_url, e) from None
        self.robots_status = answer.status
        if answer.status == 200:
            self.robots_txt = answer.body.decode("utf-8", "replace")
            self.robots = Protego.parse(self.robots_txt)
            self.crawl_delay = self.robots.crawl_delay(ROBOTS_AGENT)

    async def get(self, url: str):
        if self.robots is not None and not self.robots.can_fetch(url, USER_AGENT):
            raise NotThisPlatform(f"{self.base_url}: robots.txt does not let br-locleg read "
                                  f"{urlsplit(url).path}: not harvested (ask the publisher "
                                  "to allow it)")
        if self._requests and self.crawl_delay:
            await self._wait(self.crawl_delay, "robots.txt Crawl-delay")
        self._requests += 1
        return await self._get(url)

    async def _get(self, url: str, robots: bool = False):
        for attempt in range(1, 4):
            try:
                answer = await fetch(self.client, url, self.guard, max_bytes=2**20)
            except TooSlow as e:
                raise SlowAnswer(str(e)) from None
            if answer.status not in (429, 503) and not (answer.status >= 500 and robots):
                return answer
            # Busy: wait as asked when the wait is short, else say so. Never a verdict on
            # what the site is.
            retry = retry_after_seconds(answer.headers.get("retry-after"))
            if retry is not None and attempt < 3 and self.waited + retry <= self.max_wait:
                await self._wait(retry, f"HTTP {answer.status} Retry-After")
                continue
            what = "rate-limited" if answer.status == 429 else "unavailable"
            asked = f", Retry-After {retry:.0f} s" if retry is not None else ""
            raise Busy(f"{self.base_url} answered HTTP {answer.status} ({what}{asked}) to "
                       f"{urlsplit(url).path}: it is busy or limiting us, not refusing; try "
                       "again later")
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _wait(self, seconds: float, why: str) -> None:
        self.waited += seconds
        if self.on_wait is not None:
            self.on_wait(seconds, why)
        await asyncio.sleep(seconds)
