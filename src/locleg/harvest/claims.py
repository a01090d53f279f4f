"""Host claims: which harvest process may fetch a host now, kept in the corpus database.

Several `locleg harvest` processes (on one machine or several) can share one PostgreSQL
corpus. Before a process fetches from a host it claims the host's harvest_host row in a short
transaction (SELECT … FOR UPDATE SKIP LOCKED, then its id and a lease expiry written on the
row), so two processes never hold the same host. It renews the lease while it works the host
and releases it when the host has nothing left; a process that dies (a crash, kill -9) stops
renewing, its lease runs out and another process takes the host over. The host's
next-allowed time (its Crawl-delay) is written on the same row, so it holds across processes.

Times come from the database's clock on PostgreSQL, so machines with skewed clocks agree.
A SQLite corpus takes one harvest at a time (`SingleHarvest`, a lock on a file of the corpus
folder): SQLite has no SKIP LOCKED and one writer at a time, so a second process could only
wait on the first; it is refused at once, with a message saying so.
"""

from __future__ import annotations

import fcntl
import os
import socket
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import func, or_, select, text, update
from sqlalchemy.engine import Connection

from ..errors import UserError
from ..store import utcnow
from ..store.harvest_schema import harvest_host, harvest_request
from .frontier import PENDING, aware, insert_ignoring_duplicates

LEASE_ENV = "LOCLEG_HARVEST_LEASE"  # seconds; tests shorten it to see a takeover quickly
DEFAULT_LEASE = 60.0
LOCK_FILE = "harvest.lock"


def default_lease() -> float:
    value = os.environ.get(LEASE_ENV)
    if not value:
        return DEFAULT_LEASE
    try:
        lease = float(value)
    except ValueError:
        raise UserError(f"{LEASE_ENV}={value!r}: give the lease in seconds, e.g. 60") from None
    if lease < 1:
        raise UserError(f"{LEASE_ENV}={value!r}: the lease must be at least 1 second")
    return lease


def claimant_id() -> str:
    """This process, as its claims name it: machine, pid and a nonce (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def db_now(conn: Connection) -> datetime:
    """The database's clock on PostgreSQL (shared by every machine), else this machine's."""
    if conn.dialect.name == "postgresql":
        return conn.scalar(text("SELECT clock_timestamp()"))
    return utcnow()


class ClaimLost(Exception):
    """This process no longer holds the host (its lease ran out): its worker stops."""


def claim(conn: Connection, me: str, hosts: Sequence[str], lease: float, limit: int,
          exclusive: bool = False) -> dict[str, float]:
    """Claim up to `limit` of these hosts that no live process holds.

    Returns {host: seconds until its next request is allowed} for the hosts now ours. With
    `exclusive` (a SQLite corpus, whose file lock makes this the only harvester) a claim left
    by a killed earlier run is taken at once instead of after its lease.
    """
    if not hosts or limit <= 0:
        return {}
    now = db_now(conn)
    # Sorted: two processes inserting the same new hosts take their locks in one order.
    insert_ignoring_duplicates(conn, harvest_host,
                               [{"host": h, "failures": 0} for h in sorted(hosts)])
    free = or_(harvest_host.c.claimed_by.is_(None), harvest_host.c.claimed_by == me,
               harvest_host.c.claim_expires_at < now)
    # A parked host is claimed too: its worker reads why and ends, and the run reports it.
    query = (select(harvest_host.c.host, harvest_host.c.next_allowed_at)
             .where(harvest_host.c.host.in_(list(hosts)))
             .order_by(harvest_host.c.host).limit(limit)
             # Rows another process is claiming right now are skipped, not waited for.
             .with_for_update(skip_locked=True))
    if not exclusive:
        query = query.where(free)
    got = conn.execute(query).all()
    if not got:
        return {}
    conn.execute(update(harvest_host).where(harvest_host.c.host.in_([h for h, _ in got]))
                 .values(claimed_by=me, claim_expires_at=now + timedelta(seconds=lease)))
    return {h: max(0.0, ((aware(at) or now) - now).total_seconds()) for h, at in got}


def renew(conn: Connection, me: str, hosts: Sequence[str], lease: float,
          next_allowed: dict[str, float]) -> set[str]:
    """Extend the lease of the hosts still ours (and note their next-allowed times)."""
    if not hosts:
        return set()
    now = db_now(conn)
    kept = set(conn.scalars(
        update(harvest_host)
        .where(harvest_host.c.host.in_(list(hosts)), harvest_host.c.claimed_by == me)
        .values(claim_expires_at=now + timedelta(seconds=lease))
        .returning(harvest_host.c.host)))
    _note(conn, now, {h: s for h, s in next_allowed.items() if h in kept}, me)
    return kept


def note_request(conn: Connection, me: str, host: str, wait: float) -> None:
    """A request to the host is being made: the next may not come before `wait` seconds."""
    _note(conn, db_now(conn), {host: wait}, me)


def _note(conn: Connection, now: datetime, waits: dict[str, float], me: str) -> None:
    for host, wait in waits.items():
        at = now + timedelta(seconds=max(0.0, wait))
        # Never earlier than what is stored: a Retry-After may already push it further.
        conn.execute(update(harvest_host)
                     .where(harvest_host.c.host == host, harvest_host.c.claimed_by == me,
                            or_(harvest_host.c.next_allowed_at.is_(None),
                                harvest_host.c.next_allowed_at < at))
                     .values(next_allowed_at=at))


def release(conn: Connection, me: str, host: str, wait: float) -> None:
    """The host is done with (for now): free for any process, its next-allowed time kept."""
    now = db_now(conn)
    _note(conn, now, {host: wait}, me)
    conn.execute(update(harvest_host)
                 .where(harvest_host.c.host == host, harvest_host.c.claimed_by == me)
                 .values(claimed_by=None, claim_expires_at=None))


def release_all(conn: Connection, me: str) -> int:
    return conn.execute(update(harvest_host).where(harvest_host.c.claimed_by == me)
                        .values(claimed_by=None, claim_expires_at=None)).rowcount


def held_elsewhere(conn: Connection, me: str, source_ids: Sequence[int]) -> int:
    """Hosts with pending requests of these sources that another live process holds.

    While there are any, a process with nothing of its own to do stays: should their holder
    die, their leases run out and this process takes them over.
    """
    now = db_now(conn)
    return conn.scalar(
        select(func.count(func.distinct(harvest_request.c.host)))
        .select_from(harvest_request.join(harvest_host,
                                          harvest_host.c.host == harvest_request.c.host))
        .where(harvest_request.c.source_id.in_(list(source_ids)),
               harvest_request.c.state == PENDING,
               harvest_host.c.claimed_by.is_not(None), harvest_host.c.claimed_by != me,
               harvest_host.c.claim_expires_at >= now,
               or_(harvest_host.c.parked_until.is_(None), harvest_host.c.parked_until <= now)))


class SingleHarvest:
    """One harvest at a time on a SQLite corpus: an exclusive lock on a file of its folder.

    The operating system drops the lock when the process ends, however it ends, so a killed
    harvest never leaves a stale lock behind.
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown"
            os.close(fd)
            raise UserError(
                f"another `locleg harvest` is running on this corpus (process {holder}): a "
                "SQLite corpus takes one harvest at a time; wait for it to end, or keep the "
                "corpus in PostgreSQL (`locleg init --db postgresql://…`) to run several "
                "harvesters on it") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{socket.gethostname()}:{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


__all__ = ["ClaimLost", "LEASE_ENV", "DEFAULT_LEASE", "default_lease", "claimant_id", "db_now",
           "claim",
           "renew", "note_request", "release", "release_all", "held_elsewhere",
           "SingleHarvest"]
