"""One process at a time decides whether an index folder is current, removes it when it is not
and creates it again: processes sharing a corpus (harvesters on one PostgreSQL database, each
refreshing the search at its end) would otherwise remove a folder another is creating."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def deciding(folder: Path) -> Iterator[None]:
    """Hold the lock of FOLDER; its file lies beside the folder, which may be removed."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".{folder.name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
