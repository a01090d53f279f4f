"""Worker processes end with the process that started them, even when it was killed.

Pools start their workers from a multiprocessing forkserver, so a worker's parent is the
forkserver, not the command: when the command dies by SIGKILL (or any way that runs no
clean-up), its workers would wait on their queues for ever, and keep the forkserver and
the resource tracker alive with them. Each worker watches the command's pid instead.
"""

from __future__ import annotations

import os
import select
import threading


def end_with(pid: int) -> None:
    """In a worker: exit as soon as process PID ends (at once if it has already)."""
    try:
        watched = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(1)

    def wait() -> None:
        select.select([watched], [], [])  # readable once the process has ended
        os._exit(1)  # nothing of ours to flush: the command that wanted the work is gone

    threading.Thread(target=wait, name="locleg-lifeline", daemon=True).start()
