"""What the harvest engine knows of a publishing platform: one module each, named in a registry.

A platform (SAPL 3.1's REST API, OAI-PMH with oai_lexml, SAPL 2.5, a portal described by a
TOML file, Querido Diário's gazettes...) is a module that exposes one object, `PLATFORM`,
with the members of `Platform` below. The engine (engine.py) imports no platform: it looks a
source's `platform` column up here, asks the platform to start a cycle, and hands it every
request of its chain that is not a file. Politeness (robots.txt, Crawl-delay, Retry-After,
backoff, the SSRF guard, size caps), the persistent frontier, claims, incremental runs,
removals and file revalidation stay in the engine, the same for every platform.

A cycle is a chain of requests, each queued by the one before it in the same transaction
that stores its results (frontier.enqueue). A platform turns what it reads into
`ListedNorm`s and stores them through `listed.write_listed`; when it has read a listing it
knows to be complete, `listed.close_listing` marks the norms it no longer holds removed
(never on a listing that is partial, cut short or suspicious); the last request of the chain
calls `finish_cycle`.

A platform sees the running harvest as a `RunningHarvest` and each source as a
`SourceContext`, both defined here: this module imports neither the engine nor any platform.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import UserError

if TYPE_CHECKING:
    import httpx
    from sqlalchemy.engine import Connection

    from ..corpus import Corpus
    from ..store.db import Store
    from .config import HarvestConfig
    from .frontier import Request
    from .net import Fetched, Guard, Resolver

# name → the module that defines PLATFORM; imported only when a source of it is harvested.
REGISTRY: dict[str, str] = {
    "sapl": "locleg.harvest.sapl",
    "oai": "locleg.harvest.oai",
    "sapl25": "locleg.harvest.sapl25",
    "portal": "locleg.harvest.portal",
    # a gazette archive, not a publisher's site: named, never detected
    "querido-diario": "locleg.harvest.querido_diario",
}
# The order in which `sources add URL` tries to recognise a site (most specific first).
DETECTION_ORDER = ["sapl", "sapl25", "oai"]

# A document's role within its norm (document.role).
TEXTO_INTEGRAL = "texto_integral"
ANEXO = "anexo"


class NotThisPlatform(UserError):
    """The site answered, but not as this platform does (detection tries the next one)."""


@dataclass
class Probe:
    """What a platform found at a URL when a source was added: enough to register it."""

    platform: str
    base_url: str  # normalised: what the source is keyed by
    version: str | None = None
    title: str | None = None  # the publisher's own name for itself, when it says
    state: dict = field(default_factory=dict)  # the source's initial state column
    notes: list[str] = field(default_factory=list)  # said to the operator (e.g. crawl delay)
    # the source's settings the platform needs kept (a portal's description, read from its
    # file): merged into the settings the operator gives
    settings: dict = field(default_factory=dict)
    # robots.txt as the probe read it (its HTTP status; None: not read), kept for the host so
    # that the first harvest need not ask again
    robots_txt: str | None = None
    robots_status: int | None = None
    crawl_delay: float | None = None

    def describe(self) -> str:
        what = self.platform + (f" {self.version}" if self.version else "")
        return f"{what} at {self.base_url}" + (f" ({self.title})" if self.title else "")


@dataclass
class ListedNorm:
    """A norm as a listing (or a detail page) gave it, ready for the store.

    `fields` are the record's columns the platform could read (type_raw, type_normalized,
    number, year, date, ementa, url, urn; none required but the native id); `marker` is what
    changes when the publisher changes the norm (SAPL's data_ultima_atualizacao, an OAI
    datestamp, a hash of the detail page): a norm whose marker and files are unchanged is
    not written again. `files` are its documents as (url, role), the texto integral first.
    """

    native_id: str
    fields: dict = field(default_factory=dict)
    marker: str | None = None
    files: list[tuple[str, str]] = field(default_factory=list)


class RunningHarvest(Protocol):
    """What a platform may use of the running harvest (engine.Harvest): every request goes
    through `get`/`stream`, never a client of its own, so that politeness and the SSRF guard
    hold; every write through `db`, on the harvest's one database thread."""

    corpus: Corpus
    store: Store
    config: HarvestConfig

    async def get(self, ctx: SourceContext, url: str, *, headers: dict | None = None,
                  max_bytes: int | None = None, form: dict | None = None) -> Fetched:
        """A whole answer (up to max_bytes), politely; with `form`, those fields are POSTed."""
        ...

    def stream(self, ctx: SourceContext,
               url: str) -> AbstractAsyncContextManager[httpx.Response]:
        """An answer read as it comes (a listing too big to hold), politely."""
        ...

    async def pause(self, ctx: SourceContext, url: str) -> None:
        """Between two requests of one handler (pages of a table): the host's delay."""
        ...

    async def db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(conn, *args) in one transaction, on the harvest's one database thread."""
        ...

    async def analyze(self) -> None:
        """Fresh planner statistics while a big listing fills empty tables (PostgreSQL)."""
        ...

    async def problem(self, ctx: SourceContext, stage: str, subject: str,
                      message: str) -> None:
        """A problem recorded for the source, where `sources list` and `status` show it."""
        ...

    def count(self, ctx: SourceContext, what: str, n: int) -> None:
        """A tally of the run: "norms" listed, "removed" marked removed."""
        ...

    def save_state(self, conn: Connection, ctx: SourceContext, **values: Any) -> None:
        """The platform's own state of the source, updated in this transaction."""
        ...

    def wake(self, hosts: Iterable[str]) -> None:
        """New requests queued for these hosts: their workers start or wake."""
        ...

    async def finish_cycle(self, ctx: SourceContext, payload: dict) -> None:
        """The metadata of a cycle is in: the run recorded on the source, the next due time."""
        ...


@dataclass
class SourceContext:
    """A source being harvested: its row, its platform's state, the guard of its requests."""

    id: int
    base_url: str
    jurisdiction_code: int
    settings: dict  # JSON column, set by the operator (delay, interval, ...)
    state: dict  # JSON column, the platform's own (save it with Harvest.save_state)
    guard: Guard
    platform: Platform | None = None

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


class Platform(Protocol):
    """One publishing platform. `h` is the running harvest (`RunningHarvest`)."""

    name: str  # the registry key, stored in source.platform
    title: str  # for people: "SAPL 3.1 (REST API)"

    def normalize_url(self, url: str) -> str:
        """The source's base URL as stored (scheme, host, path; no query, no trailing /).
        ValueError with a one-line reason when it cannot be this platform's URL."""
        ...

    async def probe(self, url: str, *, resolver: Resolver | None = None,
                    on_wait: Callable[[float, str], None] | None = None,
                    jurisdiction: int | None = None) -> Probe:
        """Confirm the site is this platform (a few polite requests, robots.txt read first).
        NotThisPlatform when it answers otherwise; UserError when it cannot be reached.
        `jurisdiction` is the IBGE code the source is added for: an archive that serves many
        places (Querido Diário) asks for that one; a publisher's own site may ignore it."""
        ...

    def start_cycle(self, conn: Connection, ctx: SourceContext, rewrite: bool) -> None:
        """Queue the head of a new cycle (and retry last cycle's failed requests)."""
        ...

    def handle(self, h: RunningHarvest, ctx: SourceContext, req: Request) -> Awaitable[None]:
        """Make the request `req` (one of this platform's kinds) and store what it brings,
        queueing what follows. A FetchError is retried by the engine; anything else the
        answer held that could not be handled costs this request only."""
        ...


def names() -> list[str]:
    return list(REGISTRY)


def get(name: str) -> Platform:
    """The platform registered under `name` (its module imported now)."""
    try:
        module = REGISTRY[name]
    except KeyError:
        raise UserError(f"unknown platform {name!r}: one of {', '.join(REGISTRY)}") from None
    return importlib.import_module(module).PLATFORM


async def detect(url: str, *, resolver: Resolver | None = None,
                 on_wait: Callable[[float, str], None] | None = None,
                 jurisdiction: int | None = None) -> Probe:
    """Which platform serves `url`: each is asked in DETECTION_ORDER, the first that
    recognises the site wins. UserError naming what was tried when none does."""
    tried = []
    for name in DETECTION_ORDER:
        platform = get(name)
        try:
            return await platform.probe(url, resolver=resolver, on_wait=on_wait,
                                        jurisdiction=jurisdiction)
        except NotThisPlatform as e:
            tried.append(f"{platform.title}: {e}")
    raise UserError(f"no known platform answers at {url}: " + "; ".join(tried))
