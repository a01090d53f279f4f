"""Several `locleg harvest` processes on one PostgreSQL corpus: setup and log checks.

Shared by tests/test_harvest_shared.py and bench/harvest_shared.py. Each process is pointed
(LOCLEG_RESOLVE) at a fixture server of its own that serves the same câmaras, so each
server's request log is exactly what one process asked; merged, the logs show whether a host
was ever asked by two processes at once, twice for one thing, or faster than its delay.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from locleg.corpus import init_corpus, open_corpus
from locleg.fixtures.harvesting import add_source, counts
from locleg.fixtures.sapl_server import Camara, SaplServer, synthetic_camaras


def make_corpus(folder: Path, url: str, camaras: dict[str, Camara]) -> None:
    """A PostgreSQL corpus with one SAPL source per câmara, delays from their robots.txt."""
    corpus = init_corpus(folder, url)
    try:
        for host in camaras:
            add_source(corpus, f"http://{host}", delay=None)
    finally:
        corpus.close()


def servers(camaras: dict[str, Camara], n: int) -> list[SaplServer]:
    """n fixture servers serving the same câmaras (the same objects), one per process."""
    return [SaplServer(camaras).start() for _ in range(n)]


def start_harvest(folder: Path, server: SaplServer, *args: str,
                  lease: float | None = None) -> subprocess.Popen:
    env = {**os.environ, "LOCLEG_CORPUS": str(folder), "LOCLEG_RESOLVE": server.resolve_env(),
           "COLUMNS": "200"}
    if lease is not None:
        env["LOCLEG_HARVEST_LEASE"] = str(lease)
    return subprocess.Popen([sys.executable, "-m", "locleg", "harvest", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Gate:
    """Holds harvest_host locked so processes started one after another claim together.

    Without it the first process could claim every host before the next has even imported
    its modules; what is tested is sharing, not who starts faster.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn = psycopg.connect(url)
        self.conn.execute("LOCK TABLE harvest_host IN ACCESS EXCLUSIVE MODE")

    def wait_for(self, waiting: int, timeout: float = 120) -> None:
        """Until `waiting` sessions are blocked on the lock (each a process about to claim)."""
        with psycopg.connect(self.url, autocommit=True) as watcher:
            deadline = time.monotonic() + timeout
            while True:
                blocked = watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query ILIKE '%%harvest_host%%' AND pid <> %s",
                    (self.conn.info.backend_pid,)).fetchone()[0]
                if blocked >= waiting:
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{blocked} of {waiting} harvesters reached the claim")
                time.sleep(0.05)

    def open(self) -> None:
        self.conn.commit()
        self.conn.close()


@dataclass
class Checks:
    """What the merged request logs say."""

    requests: int = 0
    per_process: list[int] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (host, target)
    too_close: list[tuple[str, float]] = field(default_factory=list)  # (host, gap in s)
    hosts_by_process: dict[str, list[int]] = field(default_factory=dict)  # host -> processes
    first_at: dict[tuple[int, str], float] = field(default_factory=dict)  # (process, host)
    last_at: dict[tuple[int, str], float] = field(default_factory=dict)

    @property
    def shared_hosts(self) -> list[str]:
        """Hosts asked by more than one process (a handover, or a fault)."""
        return [h for h, ps in self.hosts_by_process.items() if len(ps) > 1]


def check_logs(logs: list[list[tuple]], delay: float) -> Checks:
    found = Checks(per_process=[len(log) for log in logs])
    per_host: dict[str, list[tuple[float, int]]] = defaultdict(list)
    seen: Counter = Counter()
    for process, log in enumerate(logs):
        for at, host, _method, target, *_ in log:
            per_host[host].append((at, process))
            seen[(host, target)] += 1
            key = (process, host)
            found.first_at[key] = min(found.first_at.get(key, at), at)
            found.last_at[key] = max(found.last_at.get(key, at), at)
    found.requests = sum(found.per_process)
    found.duplicates = sorted(k for k, n in seen.items() if n > 1)
    for host, arrivals in per_host.items():
        arrivals.sort()
        found.hosts_by_process[host] = sorted({p for _, p in arrivals})
        for (a, _), (b, _) in zip(arrivals, arrivals[1:], strict=False):
            if b - a < delay:
                found.too_close.append((host, b - a))
    return found


def corpus_counts(folder: Path) -> dict[str, int]:
    corpus = open_corpus(folder)
    try:
        return counts(corpus)
    finally:
        corpus.close()


__all__ = ["make_corpus", "servers", "start_harvest", "Gate", "Checks", "check_logs",
           "corpus_counts", "synthetic_camaras"]
