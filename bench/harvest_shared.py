"""Shared harvest figure: two `locleg harvest` processes on one PostgreSQL corpus vs one.

50 synthetic câmaras (sapl.sinteticaN.ba.leg.br) with a robots.txt Crawl-delay, harvested
from scratch into a fresh PostgreSQL database twice in the same run: by one process, then by
two processes sharing the corpus (hosts claimed with row locks and leases,
harvest/claims.py). Each harvest process talks to a fixture server process of its own that
serves the same câmaras and writes its request log when stopped, so the logs say who asked
what and when. Prints, from the logs: duplicate requests, hosts asked by two processes,
requests closer than the host's delay; and the total time of 2 processes against 1 (from the
moment every process is ready to claim to the last exit). Target: 2 processes ≤ 1.

    .venv/bin/python bench/harvest_shared.py [--hosts 50] [--norms 30] [--delay 0.05]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pgserver import PostgresServer  # noqa: E402
from tests.shared_harvest import Gate, check_logs, corpus_counts, make_corpus  # noqa: E402

from locleg.fixtures.sapl_server import SaplServer, synthetic_camaras  # noqa: E402

CONCURRENCY = 16


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(port: int, log_path: str, hosts: int, norms: int, delay: float) -> None:
    """The server process: the câmaras on PORT until SIGTERM, then its log as JSON."""
    server = SaplServer(synthetic_camaras(hosts, norms, files_every=1, crawl_delay=delay),
                           port=port).start()
    stopped = []
    signal.signal(signal.SIGTERM, lambda *_: stopped.append(True))
    while not stopped:
        signal.pause()
    server.stop()
    Path(log_path).write_text(json.dumps([list(r[:5]) for r in server.log]))


class Server:
    def __init__(self, work: Path, args: argparse.Namespace, n: int) -> None:
        self.port = free_port()
        self.log_path = work / f"server{n}-{self.port}.json"
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(self.port), str(self.log_path),
             "--hosts", str(args.hosts), "--norms", str(args.norms), "--delay", str(args.delay)])
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        names = [f"sapl.sintetica{i}.ba.leg.br" for i in range(1, args.hosts + 1)]
        self.resolve = ",".join(f"{h}=127.0.0.1:{self.port}" for h in names) + ",*="

    def log(self) -> list[tuple]:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)
        return [tuple(r) for r in json.loads(self.log_path.read_text())]


def run(work: Path, pg: PostgresServer, args: argparse.Namespace, processes: int) -> dict:
    url = pg.create_database(f"bench_shared_{processes}")
    folder = work / f"corpus{processes}"
    make_corpus(folder, url, synthetic_camaras(args.hosts, args.norms, files_every=1,
                                               crawl_delay=args.delay))
    servers = [Server(work, args, i) for i in range(processes)]
    gate = Gate(url)
    procs = [subprocess.Popen(
        [sys.executable, "-m", "locleg", "harvest", "--concurrency", str(CONCURRENCY)],
        env={**os.environ, "LOCLEG_CORPUS": str(folder),
             "LOCLEG_RESOLVE": s.resolve, "COLUMNS": "200"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for s in servers]
    gate.wait_for(processes)
    started = time.monotonic()
    gate.open()
    outs = [p.communicate() for p in procs]
    seconds = time.monotonic() - started
    for p, (out, err) in zip(procs, outs, strict=True):
        if p.returncode:
            raise RuntimeError(f"locleg harvest failed:\n{out}\n{err}")
    checks = check_logs([s.log() for s in servers], args.delay)
    # The harvest loop alone, as each process reports it (its indexing afterwards left out).
    loops = [float(re.search(r"Harvested in ([\d,.]+) s", out)[1].replace(",", ""))
             for out, _ in outs]
    return {"seconds": seconds, "loop": max(loops), "checks": checks,
            "counts": corpus_counts(folder)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=50)
    parser.add_argument("--norms", type=int, default=30, help="norms (one file each) per host")
    parser.add_argument("--delay", type=float, default=0.05, help="robots.txt Crawl-delay, s")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "LOG"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1], args.hosts, args.norms, args.delay)
        return
    work = Path(tempfile.mkdtemp(prefix="locleg-bench-shared-"))
    pg = PostgresServer().start()
    try:
        results = {n: run(work, pg, args, n) for n in (1, 2)}
    finally:
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    expected = args.hosts * args.norms
    print(f"{args.hosts} hosts × {args.norms} norms (one file each), Crawl-delay "
          f"{args.delay:g} s, --concurrency {CONCURRENCY} per process")
    print(f"{'processes':>9} {'requests':>8} {'per process':>14} {'dupl.':>5} "
          f"{'shared hosts':>12} {'too close':>9} {'versions':>8} {'harvest s':>9} "
          f"{'total s':>8} {'ratio':>6}")
    one = results[1]["seconds"]
    for n, r in results.items():
        c = r["checks"]
        complete = r["counts"]["versions"] == expected and r["counts"]["frontier"] == 0
        print(f"{n:>9} {c.requests:>8,} {'/'.join(map(str, c.per_process)):>14} "
              f"{len(c.duplicates):>5} {len(c.shared_hosts):>12} {len(c.too_close):>9} "
              f"{r['counts']['versions']:>8,}{'' if complete else '!'} {r['loop']:>9.2f} "
              f"{r['seconds']:>8.2f} "
              f"{r['seconds'] / one:>6.2f}")
    two = results[2]
    ok = (not two["checks"].duplicates and not two["checks"].shared_hosts
          and not two["checks"].too_close and two["seconds"] <= one)
    print(f"no duplicate, no host shared, every delay respected, 2 processes ≤ 1: "
          f"{'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
