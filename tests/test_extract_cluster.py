"""Extraction on a real Dask cluster on 127.0.0.1: the same records as the local pool, workers
killed mid-task (retried, then recorded failed), the limits per document, an interrupted run,
an unreachable scheduler and workers refused for their locleg."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster
from PIL import Image

from locleg import __version__
from locleg.corpus import init_corpus
from locleg.extract import Limits
from locleg.extract.cluster import ClusterError, connect
from locleg.extract.run import extract_versions
from locleg.fixtures.documents import born_digital_pdf, html_law_page, image_file, scanned_pdf
from tests.conftest import run_cli
from tests.test_extraction import (
    LAW,
    SCAN,
    _encrypted_pdf,
    _import,
    _long_scan,
    _record,
    _started,
    _statuses,
    _wait_for_extracted,
)

_DEADLINE_S = 120  # for conditions a busy 2-core machine reaches in seconds


def _until(condition, what: str, timeout: float = _DEADLINE_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"not in {timeout} s: {what}")


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes of one thread each, under nannies that restart a killed one; the
    scheduler gives up on a task after its second worker died (allowed-failures 1)."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        local = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                             host="127.0.0.1", dashboard_address="127.0.0.1:0")
    client = Client(local, set_as_default=False)
    yield local, client
    client.close()
    local.close()


@pytest.fixture
def client(cluster):
    local, client = cluster
    client.wait_for_workers(2, timeout=_DEADLINE_S)  # a worker killed by a test is back
    return client


@pytest.fixture
def corpus(tmp_path):
    """SQLite only: the runner commits through the store as the local pool does, and the
    store's two backends are covered by test_extraction.py."""
    c = init_corpus(tmp_path / "corpus")
    yield c
    c.close()


def _records(corpus, ids: dict) -> dict:
    out = {}
    for name, found in ids.items():
        record = _record(corpus, found)
        pages = corpus.store.pages_of(found["version_id"])
        out[name] = (record["status"], record["method"], record["backend"], record["error"],
                     record["pages"], record["confidence"],
                     [(p["number"], p["method"], p["text"]) for p in pages])
    return out


def test_the_cluster_stores_what_the_local_pool_stores(client, corpus, tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {
        "lei-born-digital.pdf": born_digital_pdf("LEI Nº 2.312/2013", LAW),
        "lei-3-paginas.pdf": born_digital_pdf("LEI Nº 7/2020", LAW * 40),
        "lei-scan.pdf": scanned_pdf([SCAN], dpi=120),
        "lei-es.html": html_law_page("Lei nº 2.482/1969", LAW),
        "protegida.pdf": _encrypted_pdf(),
    })
    local = extract_versions(corpus, workers=2)
    assert local.by_status == {"extracted": 4, "failed": 1}
    on_one_machine = _records(corpus, ids)
    assert on_one_machine["lei-scan.pdf"][1] == "ocr"

    # The command, as a user runs it: a client process of its own.
    address = client.scheduler.address
    done = run_cli("extract", "--force", "--cluster", address, corpus=corpus.folder,
                   check=True)
    assert f"Dask cluster at {address}: 2 workers, 2 threads; dashboard: http://127.0.0.1:" \
        in done.stderr
    assert f"with the 2 workers of the Dask cluster at {address}" in done.stderr
    assert "Extracted 5 documents" in done.stdout and "4 extracted, 1 failed" in done.stdout
    assert _records(corpus, ids) == on_one_machine


def _extract_problems(corpus) -> list[dict]:
    return [p for p in corpus.store.problems() if p["stage"] == "extract"]


def _pids(client: Client) -> dict[str, int]:
    return client.run(os.getpid)


def _executing_on(client: Client, version_id: int) -> str | None:
    """The worker running the task of this version now, if one is."""
    prefix = f"locleg-extract-{version_id}-"
    running = client.run(lambda dask_worker: [str(t.key) for t in dask_worker.state.executing],
                         on_error="ignore")  # a worker that a test killed does not answer
    return next((w for w, keys in running.items() if any(k.startswith(prefix) for k in keys)),
                None)


def _kill_the_worker_running(client: Client, version_id: int, not_on: str | None = None) -> str:
    worker = _until(lambda: (w := _executing_on(client, version_id)) and w != not_on and w,
                    "the document's task runs on a worker")
    pid = _pids(client)[worker]
    os.kill(pid, signal.SIGKILL)  # as the kernel's OOM killer or a lost machine would
    _until(lambda: not Path(f"/proc/{pid}").exists()
           or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2], "the worker died")
    return worker


def _extract_in_background(corpus, **kwargs) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def run() -> None:
        try:
            out["report"] = extract_versions(corpus, **kwargs)
        except BaseException as e:  # handed to the test, which fails on it
            out["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_a_worker_killed_mid_task_has_its_document_done_elsewhere(client, corpus,
                                                                  tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {
        "longa.pdf": _long_scan(4),  # the largest, so it is submitted first
        **{f"lei-{n}.pdf": born_digital_pdf(f"LEI Nº {n}", LAW) for n in range(3)},
    })
    address = client.scheduler.address
    thread, out = _extract_in_background(corpus, cluster=address)
    _kill_the_worker_running(client, ids["longa.pdf"]["version_id"])
    thread.join(_DEADLINE_S)
    assert "error" not in out, out.get("error")
    assert out["report"].by_status == {"extracted": 4}
    record = _record(corpus, ids["longa.pdf"])
    assert (record["status"], record["method"], record["pages"]) == ("extracted", "ocr", 4)
    assert "LEI Nº 2.199/2011" in corpus.store.pages_of(ids["longa.pdf"]["version_id"])[0]["text"]
    assert _extract_problems(corpus) == []


def test_a_document_that_keeps_killing_workers_is_recorded_failed(client, corpus,
                                                                 tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {"longa.pdf": _long_scan(12)})
    vid = ids["longa.pdf"]["version_id"]
    thread, out = _extract_in_background(corpus, cluster=client.scheduler.address)
    first = _kill_the_worker_running(client, vid)
    # Its nanny's new worker up first: a worker killed while it starts may never come back.
    _until(lambda: len(w := client.nthreads()) == 2 and first not in w, "the worker is back")
    _kill_the_worker_running(client, vid, not_on=first)  # the scheduler retried it there
    thread.join(_DEADLINE_S)
    assert "error" not in out, out.get("error")
    assert out["report"].by_status == {"failed": 1}
    record = _record(corpus, ids["longa.pdf"])
    assert record["status"] == "failed"
    assert record["error"].startswith(
        "2 workers died extracting it (Dask KilledWorker, allowed-failures 1; the last on "
        "tcp://127.0.0.1:")
    assert corpus.store.pages_of(vid) == []
    assert [p["message"] for p in _extract_problems(corpus)] == [record["error"]]


def test_time_and_memory_limits_hold_on_the_cluster(client, corpus, tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {
        "longa.pdf": _long_scan(40),
        "planta.png": image_file([Image.new("L", (9000, 9000), 255)], "PNG", dpi=300),
        "lei.pdf": born_digital_pdf("LEI", LAW),
    })
    workers = _pids(client)
    report = extract_versions(corpus, cluster=client.scheduler.address,
                              limits=Limits(time_s=1.5, memory_bytes=450 << 20))
    assert report.by_status == {"failed": 2, "extracted": 1}
    assert _record(corpus, ids["longa.pdf"])["error"] == "timeout after 1.5 s"
    assert "memory" in _record(corpus, ids["planta.png"])["error"]
    assert _record(corpus, ids["lei.pdf"])["status"] == "extracted"
    # The limits killed the documents' child processes, never the Dask workers.
    assert _pids(client) == workers


def test_an_interrupted_cluster_run_keeps_what_it_committed(client, corpus, tmp_path) -> None:
    files = {f"lei-{n}.pdf": born_digital_pdf(f"LEI Nº {n}", LAW) for n in range(3)}
    files["longa.pdf"] = _long_scan(30)
    ids = _import(corpus, tmp_path / "docs", files)
    proc = _started(["extract", "--cluster", client.scheduler.address], corpus.folder)
    _wait_for_extracted(corpus.folder, 3)
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    _, err = proc.communicate(timeout=_DEADLINE_S)
    assert proc.returncode == 130, f"the run was not interrupted (exit {proc.returncode}): {err}"
    assert "interrupted after 3 documents: they are kept" in err
    assert _statuses(corpus) == {"extracted": 3, "pending": 1}
    assert _record(corpus, ids["longa.pdf"])["status"] == "pending"
    # The long scan's task was cancelled, its OCR stopped: the workers are free again.
    _until(lambda: not any(client.processing().values()), "the cluster is idle")


@pytest.mark.parametrize(("address", "message"), [
    ("tcp://127.0.0.1:{port}", "error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port} "
                               "(no answer in 2 s): is `dask scheduler` running there?"),
    ("tcp://ana:segredo@127.0.0.1:{port}", "error: --cluster: not a Dask scheduler address: "
                                           "tcp://ana:***@127.0.0.1:{port} "
                                           "(e.g. tcp://scheduler:8786)"),
])
def test_a_scheduler_out_of_reach_is_one_line_and_nothing_written(corpus, tmp_path, address,
                                                                  message) -> None:
    _import(corpus, tmp_path / "docs", {"lei.pdf": born_digital_pdf("LEI", LAW)})
    port = _closed_port()
    result = run_cli("extract", "--cluster", address.format(port=port), corpus=corpus.folder,
                     env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [message.format(port=port)]
    assert "segredo" not in result.stdout + result.stderr
    assert _statuses(corpus) == {"pending": 1} and _extract_problems(corpus) == []


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


# --- workers refused for their locleg --------------------------------------------------------


def _env_without_locleg(folder: Path) -> Path:
    """A Python environment with distributed and everything else of ours but locleg: a venv
    whose only path is a folder of links to this one's packages, locleg's left out."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / "env")],
                   check=True)
    ours = Path(sysconfig.get_paths()["purelib"])
    linked = folder / "site"
    linked.mkdir()
    for entry in ours.iterdir():
        if not entry.name.startswith(("__editable__.br_locleg", "br_locleg")):
            (linked / entry.name).symlink_to(entry)
    site = next((folder / "env" / "lib").glob("python3*/site-packages"))
    (site / "ours.pth").write_text(f"{linked}\n")
    return folder / "env" / "bin" / "python"


def _other_version(folder: Path) -> dict:
    """The environment of a worker where br-locleg 0.0.9 is what is installed."""
    info = folder / "br_locleg-0.0.9.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: br-locleg\nVersion: 0.0.9\n")
    return {**os.environ, "PYTHONPATH": str(folder)}


@pytest.fixture
def lone_scheduler():
    with LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address=None) as local:
        yield local


@pytest.mark.parametrize("kind", ["other version", "without locleg"])
def test_a_worker_with_another_locleg_or_none_is_refused(lone_scheduler, corpus, tmp_path,
                                                         kind) -> None:
    address = lone_scheduler.scheduler_address
    if kind == "other version":
        python, env = sys.executable, _other_version(tmp_path / "fake")
        why = f"runs locleg 0.0.9, this command {__version__}"
    else:
        python, env = _env_without_locleg(tmp_path), dict(os.environ)
        env.pop("PYTHONPATH", None)
        why = "has no locleg installed"
    # cwd away from the repository: `python -m` puts the working folder on sys.path.
    worker = subprocess.Popen(
        [str(python), "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
         "--no-nanny", "--no-dashboard"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with Client(address, set_as_default=False) as watcher:
            watcher.wait_for_workers(1, timeout=_DEADLINE_S)
            [worker_address] = watcher.nthreads()
        _import(corpus, tmp_path / "docs", {"lei.pdf": born_digital_pdf("LEI", LAW)})
        result = run_cli("extract", "--cluster", address, corpus=corpus.folder)
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == [
            f"error: refused: worker {worker_address} {why}: install br-locleg {__version__} "
            "in every worker's environment"]
        assert _statuses(corpus) == {"pending": 1}
        with pytest.raises(ClusterError, match=f"^refused: worker {worker_address} {why}"):
            connect(address)
    finally:
        worker.terminate()
        worker.wait(timeout=_DEADLINE_S)
