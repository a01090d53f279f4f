"""The worker side of extraction, shared by the local runner (run.py) and the cluster runner
(cluster.py): a pool of worker processes under time and memory limits, the task
each runs (read one original, extract it), and the outcome of a finished task.

Both runners import this module and neither imports the other back at module level (the
local runner hands a --cluster run to cluster.py). The forkserver preloads it, so a new
worker starts with the extractors loaded and without the database or the runner.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import signal
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from ..lifeline import end_with
from ..originals import open_blobs
from ..originals.base import BlobError
from . import ExtractionResult, Limits, extract
from .limits import human_bytes
from .result import failed

# --- the worker side --------------------------------------------------------------------------


def _start_worker(memory_bytes: int, command_pid: int) -> None:
    """Runs once in each new worker: one OCR thread, the memory limit of the worker, and
    its end with the command's."""
    end_with(command_pid)  # before the limit: the watching thread needs its stack
    os.environ["OMP_THREAD_LIMIT"] = "1"
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def originals_store(blob_root: str):
    """The originals store at blob_root (a folder or an fsspec URL), as a worker opens it
    (here or on a cluster's worker): the one place the runners open it."""
    return open_blobs(blob_root)


def extract_stored(blob_root: str, sha256: str, media_type: str | None, size: int, ocr: str,
                   limits: Limits) -> ExtractionResult:
    """Read one original from the blob store and extract it (in a worker, or in-process)."""
    if size > limits.file_bytes:
        return failed(f"file too large ({human_bytes(size)}; limit "
                      f"{human_bytes(limits.file_bytes)})")
    try:
        data = originals_store(blob_root).read(sha256)
    except BlobError as e:
        result = failed(str(e))
        result.detail = "original unreadable"
        return result
    try:
        return extract(data, media_type, ocr=ocr, limits=limits)
    except MemoryError:
        del data
        return failed(f"out of memory (limit {human_bytes(limits.memory_bytes)})")


# --- the parent side --------------------------------------------------------------------------


def _worker_death(exitcode: int | None, limits: Limits) -> str:
    memory = f"memory limit {human_bytes(limits.memory_bytes)}?"
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"worker killed ({name}; {memory})"
    return f"worker died (exit code {exitcode}; {memory})"


def _outcome_of(future: Future, limits: Limits) -> tuple[ExtractionResult, bool]:
    """The result of a finished task, and whether it is a problem to record for the operator."""
    from pebble import ProcessExpired

    try:
        return future.result(), False
    except FutureTimeout:
        result = failed(f"timeout after {limits.time_s:g} s")
        result.duration_s = limits.time_s
        return result, True
    except ProcessExpired as e:
        return failed(_worker_death(e.exitcode, limits)), True
    except MemoryError:
        return failed(f"out of memory (limit {human_bytes(limits.memory_bytes)})"), True
    except Exception as e:  # a bug of ours in one document must not end a days-long run
        return failed(f"internal error: {type(e).__name__}: {e}"), True


def _pool(workers: int, limits: Limits):
    from pebble import ProcessPool

    # Workers start from a clean server process that has the extractors loaded: no fork of
    # a parent that holds database connections and a progress thread, and a fast start.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["locleg.extract.worker", "locleg.extract.ocr"])
    return ProcessPool(max_workers=workers, initializer=_start_worker,
                       initargs=(limits.memory_bytes, os.getpid()), context=context)
