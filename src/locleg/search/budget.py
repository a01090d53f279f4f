"""How long one search may run: a deadline and a cancel switch, enforced inside the database.

A search that would run past its deadline is stopped where the database does the work: on
SQLite by a progress handler on the connection (called every few thousand virtual-machine
steps), on PostgreSQL by a cancel request sent from a watcher thread (a statement of its own
to set `statement_timeout` would cost a round trip on every search, a tenth of its database
time). The same switch stops the work when the one who asked is gone (a
closed browser tab): `Budget.cancel()`. Both end in an exception, never in a half answer.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from ..errors import UserError

# A search in the explorer or `locleg search` is stopped after this many seconds.
DEADLINE = 10.0
# SQLite calls the progress handler every this many virtual-machine instructions.
_PROGRESS_STEPS = 2_000
# PostgreSQL's code for a statement stopped by a cancel request (or statement_timeout).
_QUERY_CANCELED = "57014"


class SearchTooCostly(UserError):
    """A search that ran past its deadline; the message says how to narrow it."""


class SearchCancelled(Exception):
    """The search was called off (its client went away): nobody waits for an answer."""


class Budget:
    """A deadline (seconds from now, None for none) and a cancel switch, shared by every
    connection one search uses."""

    def __init__(self, seconds: float | None = DEADLINE) -> None:
        self.seconds = seconds
        self._cancelled = threading.Event()
        self.restart()

    def restart(self) -> None:
        """Start the clock again: an export grants the budget to each chunk of rows."""
        self.deadline = None if self.seconds is None else time.monotonic() + self.seconds

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def check(self) -> None:
        """Raise if the search must stop: called between the steps done in Python."""
        if self.cancelled:
            raise SearchCancelled("the search was cancelled")
        if self.expired:
            raise self.too_costly()

    def too_costly(self) -> SearchTooCostly:
        return SearchTooCostly(
            f"this search took longer than {self.seconds:g} s and was stopped: narrow it "
            "(more or rarer words, an exact \"phrase\", a UF, a jurisdiction or a year range)")

    def _stop(self) -> int:
        """SQLite progress handler: non-zero interrupts the running statement."""
        return 1 if self.cancelled or self.expired else 0

    @contextmanager
    def guard(self, conn: Connection) -> Iterator[None]:
        """Statements run on `conn` inside this block stop at the deadline or on cancel()."""
        self.check()
        try:
            if conn.dialect.name == "sqlite":
                with self._sqlite(conn):
                    yield
            else:
                with self._postgresql(conn):
                    yield
        except (DBAPIError, sqlite3.OperationalError) as e:
            if not _stopped(e):
                raise
            self.check()
            if conn.dialect.name == "sqlite":
                # Neither our deadline nor a cancel: Ctrl-C, which sqlite3 swallows when it
                # arrives during the progress handler, turning it into this interrupt.
                raise KeyboardInterrupt from None
            raise self.too_costly() from None  # the watcher's cancel, or the server's timeout

    @contextmanager
    def _sqlite(self, conn: Connection) -> Iterator[None]:
        driver = conn.connection.driver_connection
        driver.set_progress_handler(self._stop, _PROGRESS_STEPS)
        try:
            yield
        finally:
            driver.set_progress_handler(None, 0)

    @contextmanager
    def _postgresql(self, conn: Connection) -> Iterator[None]:
        watcher = _Watcher(self, conn.connection.driver_connection)
        watcher.start()
        try:
            yield
        finally:
            watcher.stop()
            if watcher.fired:
                # A cancel request may land after its statement ended: never hand this
                # connection to another request.
                conn.invalidate()


class _Watcher(threading.Thread):
    """Sends PostgreSQL a cancel request when the budget runs out or is cancelled."""

    def __init__(self, budget: Budget, driver_connection) -> None:
        super().__init__(name="locleg-search-watch", daemon=True)
        self.budget, self.driver = budget, driver_connection
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.fired = False

    def run(self) -> None:
        while not self.done.wait(0.1):
            if self.budget.cancelled or self.budget.expired:
                with self.lock:
                    if not self.done.is_set():
                        self.fired = True
                        self.driver.cancel()
                return

    def stop(self) -> None:
        with self.lock:
            self.done.set()
        self.join()


def _stopped(error: BaseException) -> bool:
    """Whether a database error is our own stop (progress handler, timeout or cancel)."""
    original = getattr(error, "orig", error)
    if isinstance(original, sqlite3.OperationalError):
        return str(original) == "interrupted"
    return getattr(original, "sqlstate", None) == _QUERY_CANCELED
