"""Several `locleg harvest` processes sharing one PostgreSQL corpus (real processes, real server).

Hosts are claimed with row locks and leases (harvest/claims.py): what the fixture servers'
logs must show is that no request is made twice, no host is asked by two processes, every
host's Crawl-delay holds across processes, and the corpus ends complete; a process killed
with SIGKILL loses nothing, its hosts being taken over once its lease runs out.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from datetime import timedelta

import psycopg
import pytest

from locleg.fixtures.harvesting import add_source
from locleg.fixtures.sapl_server import synthetic_camaras
from tests.conftest import run_cli
from tests.shared_harvest import (
    Gate,
    check_logs,
    corpus_counts,
    make_corpus,
    servers,
    start_harvest,
)

DELAY = 0.2  # robots.txt Crawl-delay of every fixture câmara


def _wait(proc: subprocess.Popen, timeout: float = 240) -> subprocess.CompletedProcess:
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _until(condition, timeout: float = 120, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        time.sleep(0.02)


@pytest.fixture
def pg_url(pg_server, request):
    return pg_server.create_database(f"shared{os.getpid()}_{abs(hash(request.node.name))}")


def test_three_harvesters_share_the_hosts_without_overlap(tmp_path, pg_url):
    camaras = synthetic_camaras(6, 6, files_every=1, crawl_delay=DELAY)
    folder = tmp_path / "corpus"
    make_corpus(folder, pg_url, camaras)
    srvs = servers(camaras, 3)
    try:
        gate = Gate(pg_url)
        procs = [start_harvest(folder, s, "--concurrency", "2") for s in srvs]
        gate.wait_for(3)  # all three reached their first claim: they claim together
        gate.open()
        results = [_wait(p) for p in procs]
        logs = [list(s.log) for s in srvs]
    finally:
        for s in srvs:
            s.stop()
    for r in results:
        assert r.returncode == 0, r.stderr
        assert "Harvested in" in r.stdout
    checks = check_logs(logs, DELAY)
    assert checks.duplicates == []  # nothing asked twice (robots.txt and the casa included)
    assert checks.too_close == []  # the Crawl-delay held on every host
    assert checks.shared_hosts == []  # each host asked by one process only
    assert all(n > 0 for n in checks.per_process)  # and every process had hosts of its own
    assert set(checks.hosts_by_process) == set(camaras)
    found = corpus_counts(folder)
    assert found["records"] == found["versions"] == 36 and found["frontier"] == 0
    assert found["listed_norms"] == 36
    # Every file asked for was stored: one request per version, over all processes.
    files = sum(1 for log in logs for r in log if r[3].startswith("/media/"))
    assert files == 36
    # The claims were given back at the end, each host's next-allowed time kept.
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT host, claimed_by, next_allowed_at FROM harvest_host").fetchall()
    assert {r[0] for r in rows} == set(camaras)
    assert all(r[1] is None and r[2] is not None for r in rows)


def test_a_killed_harvester_hosts_are_taken_over_and_nothing_is_lost(tmp_path, pg_url):
    lease = 2.0
    camaras = synthetic_camaras(4, 12, files_every=1, crawl_delay=DELAY)
    folder = tmp_path / "corpus"
    make_corpus(folder, pg_url, camaras)
    victim_srv, survivor_srv = servers(camaras, 2)
    try:
        gate = Gate(pg_url)
        victim = start_harvest(folder, victim_srv, "--concurrency", "2", lease=lease)
        survivor = start_harvest(folder, survivor_srv, "--concurrency", "2", lease=lease)
        gate.wait_for(2)
        gate.open()
        # The victim is killed in the middle of its files, claims held, nothing released.
        _until(lambda: len(victim_srv.requests(path="/media/")) >= 4, what="its files")
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        result = _wait(survivor)
        victim_log, survivor_log = list(victim_srv.log), list(survivor_srv.log)
    finally:
        victim_srv.stop()
        survivor_srv.stop()
    assert result.returncode == 0, result.stderr
    checks = check_logs([victim_log, survivor_log], DELAY)
    taken = {h for h, ps in checks.hosts_by_process.items() if ps == [0, 1]}
    victims = {h for h, ps in checks.hosts_by_process.items() if 0 in ps}
    assert victims and taken == victims  # every host of the victim was taken over
    for host in taken:
        # Not before the victim was dead and its lease run out: never two at once.
        assert checks.first_at[(1, host)] > checks.last_at[(0, host)]
    assert checks.too_close == []
    found = corpus_counts(folder)
    assert found["records"] == found["versions"] == 48 and found["frontier"] == 0
    # Asked twice: only what the victim had fetched but not yet committed when it died.
    assert all(host in victims for host, _ in checks.duplicates)


def test_a_second_harvest_on_a_sqlite_corpus_is_refused_while_one_runs(tmp_path):
    from locleg.corpus import init_corpus
    from tests.shared_harvest import SaplServer

    camaras = synthetic_camaras(2, 6, files_every=1, crawl_delay=0.5)
    folder = tmp_path / "corpus"
    corpus = init_corpus(folder)
    for host in camaras:
        add_source(corpus, f"http://{host}", delay=None)
    corpus.close()
    with SaplServer(camaras) as srv:
        first = start_harvest(folder, srv)
        _until(lambda: len(srv.log) >= 2, what="the first harvest's requests")
        second = run_cli("harvest", corpus=folder, env={"LOCLEG_RESOLVE": srv.resolve_env()})
        assert second.returncode == 2
        assert "another `locleg harvest` is running on this corpus" in second.stderr
        assert f":{first.pid})" in second.stderr and "Traceback" not in second.stderr
        done = _wait(first)
    assert done.returncode == 0, done.stderr
    assert corpus_counts(folder)["versions"] == 12
    # Once the first has ended, a harvest runs again (the lock went with its process).
    again = run_cli("harvest", corpus=folder, env={"LOCLEG_RESOLVE": srv.resolve_env()})
    assert again.returncode == 0, again.stderr


def test_a_claim_is_exclusive_until_its_lease_runs_out_and_carries_the_delay(pg_url, tmp_path):
    """The claim functions on one PostgreSQL corpus, two claimants, the database's clock."""
    from sqlalchemy import update

    from locleg.corpus import init_corpus
    from locleg.harvest import claims
    from locleg.store.harvest_schema import harvest_host

    corpus = init_corpus(tmp_path / "corpus", pg_url)
    store = corpus.store
    hosts = ["a.leg.br", "b.leg.br", "c.leg.br"]
    try:
        with store.transaction() as conn:
            first = claims.claim(conn, "one", hosts, 60, 2)
        assert sorted(first) == ["a.leg.br", "b.leg.br"]
        with store.transaction() as conn:  # the rest only: a live claim is never shared
            assert list(claims.claim(conn, "two", hosts, 60, 5)) == ["c.leg.br"]
        with store.transaction() as conn:
            claims.note_request(conn, "one", "a.leg.br", 30)  # a 30 s Crawl-delay
            assert claims.renew(conn, "one", hosts, 60, {}) == {"a.leg.br", "b.leg.br"}
            # "one" dies: its leases run out (moved into the past rather than waited for).
            conn.execute(update(harvest_host).where(harvest_host.c.claimed_by == "one")
                         .values(claim_expires_at=claims.db_now(conn)
                                 - timedelta(seconds=1)))
        with store.transaction() as conn:
            taken = claims.claim(conn, "two", hosts, 60, 5)
            assert claims.renew(conn, "one", hosts, 60, {}) == set()  # "one" lost them
        assert sorted(taken) == ["a.leg.br", "b.leg.br", "c.leg.br"]
        assert 28 < taken["a.leg.br"] <= 30 and taken["b.leg.br"] == 0  # the delay held
        with store.transaction() as conn:
            claims.release(conn, "two", "b.leg.br", 5)
            assert list(claims.claim(conn, "three", ["b.leg.br"], 60, 1)) == ["b.leg.br"]
    finally:
        corpus.close()
