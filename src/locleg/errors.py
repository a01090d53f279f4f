"""Errors a user can cause: the CLI shows them as one line and exits non-zero."""

import errno


class UserError(Exception):
    """Bad input from the user (a path, a URL, a manifest, an id): never a bug of ours."""

    exit_code = 2


class NotACorpus(UserError):
    """The path given as a corpus holds no corpus settings file."""


class ManifestError(UserError):
    """A manifest that cannot be imported as it is; nothing was written."""


class CorpusDamaged(UserError):
    """`locleg check` found originals or rows that are wrong: exit 1, as a failed test would."""

    exit_code = 1


class DiskFull(UserError):
    """A full disk found before anything was written (a database that refuses new sessions):
    exit 1, as when a full disk interrupts a write (cli.main), not 2 as for bad input."""

    exit_code = 1


# ENOSPC, EDQUOT; SQLite's SQLITE_FULL; PostgreSQL's disk_full (class 53).
_FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
_SQLITE_FULL = 13
_POSTGRESQL_DISK_FULL = "53100"


def disk_full(error: BaseException) -> str | None:
    """One line for an error that is a full disk (or quota), wherever it arose; else None.

    Writes are atomic (temp file + rename for originals, a transaction per batch), so what
    was stored before stays whole and the same command resumes once there is room.
    """
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        cause = getattr(current, "orig", None) or current  # SQLAlchemy wraps the driver's
        where = None
        if isinstance(cause, OSError) and cause.errno in _FULL_ERRNOS:
            where = cause.filename or "a file"
        elif getattr(cause, "sqlite_errorcode", None) == _SQLITE_FULL:
            where = "the database"
        elif getattr(cause, "sqlstate", None) == _POSTGRESQL_DISK_FULL:
            where = "the PostgreSQL database"
        if where is not None:
            return (f"disk full while writing {where}: free space and run the command again; "
                    "nothing stored was lost")
        current = current.__cause__ or current.__context__
    return None
