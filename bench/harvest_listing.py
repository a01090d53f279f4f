"""Listing ingest figure: `locleg harvest --no-files` of a 100,000-norm SAPL câmara, delay 0.

The câmara is the fixture server's synthetic mode (SAPL 3.1.163, `get_all=true` streamed),
in a process of its own. Prints norms/s and the peak RSS of the harvest process, and the
ratio against the floor any harvester pays: downloading the same get_all listing and
parsing it with json.loads, storing nothing (measured in the same run).

    .venv/bin/python bench/harvest_listing.py [--norms 100000] [--backends sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pgserver import PostgresServer  # noqa: E402

JUAZEIRO = "2918407"
TARGET_RATE = 5000
TARGET_RSS_MB = 300


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_stand_in(module: str, *args: str, path: str = "") -> tuple[subprocess.Popen, str]:
    """`python -m locleg.fixtures.MODULE ARGS` on a free port, no Crawl-delay; (process, URL)
    once it accepts connections (the URL with PATH appended)."""
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", f"locleg.fixtures.{module}", *args, "--port", str(port),
         "--crawl-delay", "-1"], stdout=subprocess.DEVNULL)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return child, f"http://127.0.0.1:{port}{path}"
        except OSError:
            time.sleep(0.1)
    child.kill()
    raise RuntimeError(f"the {module} stand-in did not start")


def start_server(norms: int, files_every: int) -> tuple[subprocess.Popen, str]:
    return start_stand_in("sapl_server", "--synthetic", str(norms),
                          "--files-every", str(files_every))


def locleg(*args: str, corpus: Path) -> str:
    env = {**os.environ, "LOCLEG_CORPUS": str(corpus), "COLUMNS": "250"}
    result = subprocess.run([sys.executable, "-m", "locleg", *args], env=env,
                            capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"locleg {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def run_harvest(corpus: Path, *args: str) -> tuple[str, float, float]:
    """Like locleg(), with the peak RSS of the harvest process itself (wait4)."""
    env = {**os.environ, "LOCLEG_CORPUS": str(corpus), "COLUMNS": "250"}
    child = subprocess.Popen([sys.executable, "-m", "locleg", "harvest", *args], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = child.stdout.read()
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise RuntimeError(f"locleg harvest failed:\n{out}\n{err}")
    seconds = float(re.search(r"Harvested in ([\d,.]+) s", out)[1].replace(",", ""))
    return out, seconds, usage.ru_maxrss / 1024


def floor_seconds(base_url: str) -> tuple[float, int]:
    """Download the get_all listing and json.loads it: no politeness, no storage."""
    started = time.monotonic()
    with httpx.Client(timeout=600) as client:
        body = client.get(base_url + "/api/norma/normajuridica/?get_all=true&o=id").content
    rows = json.loads(body)
    return time.monotonic() - started, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--files-every", type=int, default=2,
                        help="every k-th norm has a texto integral (a document and a queued "
                             "fetch are stored for it)")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    server, base_url = start_server(args.norms, args.files_every)
    work = Path(tempfile.mkdtemp(prefix="locleg-bench-listing-"))
    pg = None
    try:
        results = []
        for backend in args.backends.split(","):
            corpus = work / backend
            init = ["init", str(corpus)]
            if backend == "postgresql":
                pg = pg or PostgresServer().start()
                init += ["--db", pg.create_database("bench_listing")]
            locleg(*init, corpus=corpus)
            locleg("sources", "add", "sapl", base_url, "-j", JUAZEIRO, "--delay", "0",
                   corpus=corpus)
            out, seconds, rss = run_harvest(corpus, "--no-files")
            listed = int(re.search(r"([\d,]+) norms listed", out)[1].replace(",", ""))
            assert listed == args.norms, out
            results.append((backend, listed, seconds, rss))
        # Last: a child forked from a process holding the whole listing would report its RSS.
        floor, rows = floor_seconds(base_url)
        assert rows == args.norms, rows
        print(f"floor: download + json.loads of the get_all listing: {floor:.2f} s "
              f"({args.norms / floor:,.0f} norms/s)")
        print(f"{'backend':<11} {'norms':>8} {'seconds':>8} {'norms/s':>9} {'ratio':>6} "
              f"{'peak RSS':>9}  targets: ≥ {TARGET_RATE:,} norms/s, < {TARGET_RSS_MB} MB")
        for backend, listed, seconds, rss in results:
            print(f"{backend:<11} {listed:>8,} {seconds:>8.2f} {listed / seconds:>9,.0f} "
                  f"{floor / seconds:>6.2f} {rss:>6.0f} MB")
    finally:
        server.terminate()
        server.wait()
        if pg:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
