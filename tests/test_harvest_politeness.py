"""Politeness: per-host spacing, many hosts at once, robots.txt, an honest User-Agent."""

from __future__ import annotations

import time
from collections import defaultdict

from locleg.harvest.fixture_server import Camara, FixtureServer, synthetic_camaras
from locleg.harvest.net import USER_AGENT
from locleg.harvest.testing import add_source, counts, problems, run


def _arrivals(log) -> dict[str, list[float]]:
    per_host: dict[str, list[float]] = defaultdict(list)
    for at, host, *_ in log:
        per_host[host].append(at)
    return per_host


def test_each_host_is_spaced_by_its_crawl_delay_and_hosts_run_in_parallel(corpus):
    delay = 0.15
    camaras = synthetic_camaras(4, 5, files_every=1, crawl_delay=delay)
    with FixtureServer(camaras) as srv:
        for host in camaras:
            add_source(corpus, f"http://{host}", delay=None)  # the delay comes from robots.txt
        started = time.monotonic()
        report = run(corpus, resolve=srv.resolve_env())
        elapsed = time.monotonic() - started
        log = list(srv.app.log)
    assert report.errors == 0 and counts(corpus)["versions"] == 20
    per_host = _arrivals(log)
    assert set(per_host) == set(camaras)
    for host, times in per_host.items():
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) >= delay, (host, min(gaps))  # never two requests closer than d
    longest = max((len(t) - 1) * delay for t in per_host.values())
    serial = sum((len(t) - 1) * delay for t in per_host.values())
    # Total time ≈ the slowest host, not the sum over hosts.
    assert longest <= elapsed < longest + 0.5 * (serial - longest)
    # An honest User-Agent with a contact URL, Accept and Accept-Language on every request.
    for *_, headers in log:
        assert headers["user-agent"] == USER_AGENT
        assert "br-locleg" in USER_AGENT and "https://" in USER_AGENT
        assert headers["accept-language"].startswith("pt-BR") and headers["accept"]


def test_an_operator_delay_overrides_robots_txt(corpus):
    camaras = synthetic_camaras(1, 2, files_every=1, crawl_delay=0.01)
    with FixtureServer(camaras) as srv:
        host = next(iter(camaras))
        add_source(corpus, f"http://{host}", delay=0.25)
        run(corpus, resolve=srv.resolve_env())
        times = _arrivals(srv.app.log)[host]
    assert len(times) == 9
    assert min(b - a for a, b in zip(times, times[1:], strict=False)) >= 0.25


def test_robots_txt_disallow_is_honoured(corpus):
    camara = Camara.juazeiro(robots="User-agent: *\nDisallow: /media/\n")
    with FixtureServer(camara) as srv:
        add_source(corpus, srv.url)
        run(corpus)
        paths = [r[3] for r in srv.app.log]
    assert not [p for p in paths if p.startswith("/media/")]
    found = counts(corpus)
    assert found["norms"] == 25 and found["documents"] == 6 and found["versions"] == 0
    refused = [p for p in problems(corpus) if "disallowed by robots.txt" in p["message"]]
    assert len(refused) == 6


def test_a_crawler_shut_out_by_robots_txt_asks_for_nothing_else(corpus):
    camara = Camara.juazeiro(robots="User-agent: br-locleg\nDisallow: /\n\nUser-agent: *\n"
                                    "Crawl-delay: 1\n")
    with FixtureServer(camara) as srv:
        add_source(corpus, srv.url)
        run(corpus)
        paths = [r[3] for r in srv.app.log]
    assert paths == ["/robots.txt"]
    assert counts(corpus)["norms"] == 0
    assert "disallowed by robots.txt" in problems(corpus)[0]["message"]


def test_max_time_stops_starting_requests_and_the_next_run_goes_on(corpus):
    camaras = synthetic_camaras(1, 10, files_every=1, crawl_delay=0.2)
    with FixtureServer(camaras) as srv:
        host = next(iter(camaras))
        add_source(corpus, f"http://{host}", delay=None)
        report = run(corpus, resolve=srv.resolve_env(), max_time=0.7)
        assert report.stopped_by_deadline and report.pending > 0
        assert counts(corpus)["frontier"] > 0
        report = run(corpus, resolve=srv.resolve_env())
    assert report.pending == 0 and counts(corpus)["versions"] == 10
