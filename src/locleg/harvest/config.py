"""The settings of a harvest run: concurrency, deadlines, size caps, politeness, cycles."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import claims, revalidate


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
