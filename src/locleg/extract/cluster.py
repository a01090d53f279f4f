"""Extraction on a Dask distributed cluster: the documents run on the cluster's workers and
their results come back here, to be committed one at a time as on one machine.

The time and memory limits per document hold as they do locally: on each worker a task
hands its document to a child process (the same pebble pool as `locleg extract` uses, one
child per worker thread), which is killed past the time limit and runs under RLIMIT_AS.
A Dask task cannot be stopped from outside its thread, so without the child a runaway OCR
would hold a worker for ever, and a document over the memory limit would take the worker
and the other tasks it holds down with it.

Faults are Dask's to handle: a worker that dies (killed, its machine lost) has its tasks
rescheduled on others by the scheduler; a document whose workers keep dying ends, after the
scheduler's `distributed.scheduler.allowed-failures`, in KilledWorker, recorded 'failed'.

    >>> with connect("tcp://scheduler:8786") as cluster:
    ...     extract_versions(corpus, cluster=cluster)
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import itertools
import multiprocessing
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import wait
from dataclasses import dataclass

from distributed import Client, WorkerPlugin

from .. import __version__
from ..dburl import safe_url
from ..errors import UserError
from . import ExtractionResult, Limits
from .result import failed
from .worker import _outcome_of, _pool, extract_stored, originals_store

PACKAGE = "br-locleg"  # the distribution that installs `locleg` on a worker
_QUEUE_PER_THREAD = 2  # tasks submitted ahead, per worker thread of the cluster
_SLOTS_EVERY_S = 5.0  # how often the cluster's size is read again (workers come and go)
_CANCEL_POLL_S = 0.5  # how often a task checks whether Dask has cancelled it


class ClusterError(UserError):
    """The cluster cannot do the run: unreachable, refused workers, lost mid-run."""

    exit_code = 1


@dataclass
class Cluster:
    """A client connected to a Dask scheduler whose workers were checked."""

    client: Client
    address: str  # as it may be shown: any password masked

    @property
    def dashboard_link(self) -> str | None:
        try:
            return self.client.dashboard_link
        except KeyError:  # a scheduler started without its dashboard
            return None

    def size(self) -> tuple[int, int]:
        """(workers, threads) the scheduler has now."""
        threads = self.client.nthreads()
        return len(threads), sum(threads.values())

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def connect(address: str, on_waiting: Callable[[str], None] | None = None) -> Cluster:
    """Connect to the scheduler at address, wait for a worker, and check every worker runs
    this version of locleg; ClusterError (one line, password masked) when that fails.

    The connection gives up after Dask's `distributed.comm.timeouts.connect` (30 s unless
    configured, e.g. DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s).
    """
    import dask
    from dask.utils import parse_timedelta

    shown = safe_url(address)
    timeout = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s")
    try:
        # A bare connection first: a Client that fails to start leaves a half-made client
        # that prints a traceback when Python collects it.
        asyncio.run(_answers(address, timeout))
        client = Client(address, timeout=timeout, set_as_default=False)
    except TypeError:  # Dask's way of saying a tls:// address has no certificates set
        raise ClusterError(f"--cluster: {shown} needs TLS certificates, from Dask's "
                           "distributed.comm.tls settings") from None
    except ValueError:  # an unknown scheme, a malformed host:port
        raise ClusterError(f"--cluster: not a Dask scheduler address: {shown} "
                           "(e.g. tcp://scheduler:8786)") from None
    except (OSError, TimeoutError):
        # Dask's message repeats the address as given: it is not shown, for a password.
        raise ClusterError(f"cannot reach the Dask scheduler at {shown} (no answer in "
                           f"{timeout:g} s): is `dask scheduler` running there?") from None
    cluster = Cluster(client, shown)
    try:
        if not client.nthreads():
            if on_waiting:
                on_waiting(f"waiting for a worker to join the scheduler at {shown} "
                           f"(`dask worker {shown}`)")
            client.wait_for_workers(1)
        check_workers(client)
    except BaseException:
        client.close()
        raise
    return cluster


async def _answers(address: str, timeout: float) -> None:
    """Open and close a connection to the scheduler (OSError when nothing answers)."""
    from distributed.comm import connect as open_comm
    from distributed.security import Security

    comm = await open_comm(address, timeout=timeout,
                           **Security().get_connection_args("client"))
    await comm.close()


# --- refusing workers that cannot do the work -------------------------------------------------


def worker_version() -> str:
    """Run on a worker: the version of the locleg it imports."""
    return __version__


def check_workers(client: Client) -> None:
    """Refuse the run (ClusterError) when a worker lacks locleg or has another version.

    Two questions, before anything is submitted: which br-locleg the worker's environment
    has installed (asked with a standard-library function, so a worker without locleg can
    answer), then which locleg it actually imports (what would run the tasks).
    """
    installed = client.run(importlib.metadata.version, PACKAGE, on_error="return")
    bad = {w: v for w, v in installed.items() if not isinstance(v, str) or v != __version__}
    if not bad:
        imported = client.run(worker_version, on_error="return")
        bad = {w: v for w, v in imported.items() if not isinstance(v, str) or v != __version__}
    if not bad:
        return
    worker, found = sorted(bad.items())[0]
    more = f" (and {len(bad) - 1} more of the {len(installed)} workers)" if len(bad) > 1 else ""
    if isinstance(found, str):
        why = f"runs locleg {found}, this command {__version__}"
    elif isinstance(found, importlib.metadata.PackageNotFoundError | ImportError):
        why = "has no locleg installed"
    else:
        why = f"cannot load locleg ({type(found).__name__}: {found})"
    raise ClusterError(f"refused: worker {safe_url(worker)} {why}{more}: install "
                       f"{PACKAGE} {__version__} in every worker's environment")


def _sees_original(blob_root: str, sha256: str) -> bool:
    """Run on a worker: whether it can read this original where the corpus keeps it."""
    return originals_store(blob_root).exists(sha256)


def _check_originals(client: Client, blob_root: str, sha256: str) -> None:
    """Refuse the run when a worker cannot see an original this machine sees: otherwise every
    document would be recorded failed, 'missing', by the workers that cannot."""
    if not _sees_original(blob_root, sha256):
        return  # missing here too: recorded as a missing original, as on one machine
    seen = client.run(_sees_original, blob_root, sha256, on_error="return")
    blind = sorted(w for w, ok in seen.items() if ok is not True)
    if blind:
        more = f" (and {len(blind) - 1} more)" if len(blind) > 1 else ""
        raise ClusterError(
            f"refused: worker {safe_url(blind[0])}{more} cannot read the originals at "
            f"{safe_url(blob_root)}: every worker must reach the corpus's originals store "
            "(a local folder only when the workers share that filesystem)")


# --- the worker side --------------------------------------------------------------------------

class ChildPool(WorkerPlugin):
    """On each worker, for one run: the child processes its documents are extracted in,
    started by the run's first task there, stopped when the run ends or the worker closes
    (a child left running would hold the worker's exit up until the nanny kills it)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    def setup(self, worker) -> None:
        self.worker = worker
        self._lock = threading.Lock()
        self._pool = None

    def pool(self):
        with self._lock:
            if self._pool is None:
                # Dask starts workers as daemonic processes, which multiprocessing forbids
                # to have children; ours end with the worker (lifeline.end_with its pid).
                multiprocessing.current_process().daemon = False
                self._pool = _pool(self.worker.state.nthreads, self.limits)
            return self._pool

    async def teardown(self, worker) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()
            await asyncio.to_thread(pool.join, 10)


def _cancelled(key: str) -> bool:
    from distributed import get_worker

    task = get_worker().state.tasks.get(key)
    return task is None or task.state in ("cancelled", "released", "forgotten")


def extract_on_worker(plugin: str, key: str, blob_root: str, sha256: str,
                      media_type: str | None, size: int, ocr: str,
                      limits: Limits) -> tuple[ExtractionResult, bool]:
    """A Dask task: extract one stored original in a child process of this worker (from the
    run's ChildPool plugin), with the limits; the result and whether it is a problem to
    record, as the local pool returns them."""
    from distributed import get_worker

    future = get_worker().plugins[plugin].pool().schedule(
        extract_stored, args=(blob_root, sha256, media_type, size, ocr, limits),
        timeout=limits.time_s)
    while not wait([future], timeout=_CANCEL_POLL_S).done:
        if _cancelled(key):
            # The run was interrupted or its client is gone: free the worker now rather
            # than finish an OCR nobody will commit (cancelling kills the child).
            future.cancel()
            return failed("cancelled"), False
    return _outcome_of(future, limits)


# --- the parent side --------------------------------------------------------------------------


def _death(error: Exception) -> ExtractionResult:
    from distributed.scheduler import KilledWorker

    assert isinstance(error, KilledWorker)
    worker = getattr(error.last_worker, "address", None)
    last = f"; the last on {safe_url(worker)}" if worker else ""
    return failed(f"{error.allowed_failures + 1} workers died extracting it (Dask KilledWorker, "
                  f"allowed-failures {error.allowed_failures}{last}; memory of the machine?)")


def _outcome(future, cluster: Cluster) -> tuple[ExtractionResult, bool]:
    from distributed.scheduler import KilledWorker

    if future.status == "finished":
        return future.result()
    if future.status == "error":
        error = future.exception()
        if isinstance(error, KilledWorker):
            return _death(error), True
        # Every error of a document is caught on the worker: this one is the cluster's (a
        # worker that joined without locleg, say) and would repeat on every document.
        raise ClusterError(f"the cluster at {cluster.address} could not run a task: "
                           f"{type(error).__name__}: {error}; what was extracted is kept")
    raise ClusterError(f"lost the Dask scheduler at {cluster.address} ({future.status}): what "
                       "was extracted is kept; run the same command again to resume")


def run_on_cluster(cluster: Cluster | str, todo: Iterator[dict], blob_root: str, ocr: str,
                   limits: Limits, finish: Callable[[dict, ExtractionResult, bool], None]) -> None:
    """Extract the documents of todo on the cluster, a few per worker thread in flight, and
    hand each result to finish (which commits it) as it arrives."""
    if isinstance(cluster, str):
        with connect(cluster) as connected:
            return run_on_cluster(connected, todo, blob_root, ocr, limits, finish)
    from distributed import as_completed

    client = cluster.client
    first = next(todo, None)
    if first is None:
        return
    _check_originals(client, blob_root, first["sha256"])
    todo = itertools.chain([first], todo)
    run = uuid.uuid4().hex[:8]  # keys of this run: another client's run never shares them
    plugin = f"locleg-extract-{run}"
    client.register_plugin(ChildPool(limits), name=plugin)
    in_flight: dict = {}
    finished = as_completed(loop=client.loop)

    def submit() -> bool:
        item = next(todo, None)
        if item is None:
            return False
        key = f"locleg-extract-{item['id']}-{run}"
        future = client.submit(extract_on_worker, plugin, key, blob_root, item["sha256"],
                               item["media_type"], item["size"], ocr, limits, key=key)
        in_flight[future] = item
        finished.add(future)
        return True

    def slots() -> int:
        return max(1, cluster.size()[1]) * _QUEUE_PER_THREAD

    try:
        wanted, measured = slots(), time.monotonic()
        while len(in_flight) < wanted and submit():
            pass
        for future in finished:
            item = in_flight.pop(future)
            result, problem = _outcome(future, cluster)
            future.release()  # the worker may drop the result now
            finish(item, result, problem)
            if time.monotonic() - measured > _SLOTS_EVERY_S:
                wanted, measured = slots(), time.monotonic()
            while len(in_flight) < wanted and submit():
                pass
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM), the database or the cluster failed: cancel what is
        # in flight (its workers stop, see extract_on_worker); it stays pending for next time.
        client.cancel(list(in_flight), force=True)
        raise
    finally:
        if client.status == "running":
            with contextlib.suppress(OSError, TimeoutError):
                client.unregister_worker_plugin(plugin)  # stops the children
