"""Every command and test ends what it starts, on any exit: a killed import or extraction
leaves no worker, forkserver or resource tracker behind; an interrupted `make demo`
harvest leaves no fixture server on its port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def _marked(marker: str) -> list[tuple[int, str]]:
    """Processes whose environment carries the marker: what one command started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if f"LOCLEG_TEST_MARK={marker}".encode() in environ.split(b"\0"):
            found.append((int(entry.name), command[:120]))
    return found


def _wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _killed_leaves_nothing(args: list[str], corpus: Path) -> None:
    """Start `locleg ARGS`, wait for its workers, SIGKILL the command alone (not its group,
    as the OOM killer or a `kill -9` would) and wait for every process it started to end
    on its own."""
    marker = uuid.uuid4().hex
    env = {**os.environ, "LOCLEG_CORPUS": str(corpus), "LOCLEG_TEST_MARK": marker}
    proc = subprocess.Popen([sys.executable, "-m", "locleg", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # The forkserver and at least one worker forked from it (both run its code).
        _wait_until(lambda: sum("forkserver" in c for _, c in _marked(marker)) >= 2, 120,
                    "the command's workers to start")
        proc.kill()
        proc.wait()
        _wait_until(lambda: not _marked(marker), 30, f"its processes to end: {_marked(marker)}")
    finally:
        for pid, _ in _marked(marker):  # a failed test still ends what it started
            os.kill(pid, signal.SIGKILL)


def test_a_killed_import_leaves_no_process_behind(tmp_path):
    run_cli("init", str(tmp_path / "c"), check=True)
    dump = tmp_path / "dump"
    dump.mkdir()
    rows = ["file,type,number,year"]
    for i in range(4000):
        (dump / f"lei{i}.txt").write_text(f"LEI Nº {i}/2020\nArt. 1º Norma {i}.")
        rows.append(f"lei{i}.txt,Lei,{i},2020")
    (dump / "manifest.csv").write_text("\n".join(rows) + "\n")
    _killed_leaves_nothing(["import", str(dump / "manifest.csv"), "-j", "2918407",
                            "--batch-size", "50"], tmp_path / "c")


def test_a_killed_extraction_leaves_no_process_behind(tmp_path):
    from locleg.corpus import init_corpus
    from tests.test_extraction import _import, _long_scan

    corpus = init_corpus(tmp_path / "c")
    try:
        _import(corpus, tmp_path / "docs", {f"longa{i}.pdf": _long_scan(20) for i in range(2)})
    finally:
        corpus.close()
    _killed_leaves_nothing(["extract", "--workers", "2"], tmp_path / "c")


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_interrupting_the_demo_harvest_ends_its_fixture_server(tmp_path):
    """Ctrl-C during `make demo`'s harvest (SIGINT to make's whole process group, as a
    terminal sends it): the SAPL fixture server ends too, and its port is free again."""
    run_cli("init", str(tmp_path / "c"), check=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pidfile = tmp_path / "c" / "sapl.pid"
    make = subprocess.Popen(
        ["make", "--no-print-directory", "demo-harvest", f"DEMO={tmp_path / 'c'}",
         f"DEMO_SAPL_PORT={port}", "DEMO_SAPL_DELAY=5", f"BIN={Path(sys.executable).parent}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    server = None
    try:
        _wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), 60,
                    "the fixture server to start")
        server = int(pidfile.read_text())
        status = tmp_path / "c" / "corpus.db"
        _wait_until(lambda: _harvesting(status), 60, "the harvest to store its first norms")
        os.killpg(make.pid, signal.SIGINT)
        out, _ = make.communicate(timeout=60)
        assert make.returncode != 0, out
        _wait_until(lambda: not _alive(server), 30, "the fixture server to end")
        # The server's closed connections may hold the port for a moment after it ends (the
        # kernel finishes their shutdown): what matters is that the next `make demo` gets it.
        try:
            _wait_until(lambda: _port_free(port), 30, "the port to be free again")
        except AssertionError as busy:  # say who holds it
            holders = subprocess.run(["ss", "-tanp", f"sport = :{port}"], text=True,
                                     capture_output=True).stdout
            raise AssertionError(f"{busy}\n{holders}\n{out}") from None
        assert not pidfile.exists(), out
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
        if server and _alive(server):
            os.kill(server, signal.SIGKILL)


def _harvesting(database: Path) -> bool:
    import sqlite3

    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM record").fetchone()[0] > 0
    except sqlite3.OperationalError:  # locked by the writer for a moment
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (ended, not yet reaped by its parent) is gone for every purpose here.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
