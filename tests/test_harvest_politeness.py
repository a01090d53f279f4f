"""Politeness: per-host spacing, many hosts at once, robots.txt, an honest User-Agent."""

from __future__ import annotations

import re
import time
from collections import defaultdict

from locleg.fixtures.harvesting import add_source, counts, problems, requests_left, run
from locleg.fixtures.sapl_server import Camara, SaplServer, synthetic_camaras
from locleg.harvest.net import USER_AGENT


def _arrivals(log) -> dict[str, list[float]]:
    per_host: dict[str, list[float]] = defaultdict(list)
    for at, host, *_ in log:
        per_host[host].append(at)
    return per_host


def test_each_host_is_spaced_by_its_crawl_delay_and_hosts_run_in_parallel(corpus):
    delay = 0.15
    camaras = synthetic_camaras(4, 5, files_every=1, crawl_delay=delay)
    with SaplServer(camaras) as srv:
        for host in camaras:
            add_source(corpus, f"http://{host}", delay=None)  # the delay comes from robots.txt
        started = time.monotonic()
        report = run(corpus, resolve=srv.resolve_env())
        elapsed = time.monotonic() - started
        log = list(srv.log)
    assert report.errors == 0 and counts(corpus)["versions"] == 20
    per_host = _arrivals(log)
    assert set(per_host) == set(camaras)
    for host, times in per_host.items():
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        assert min(gaps) >= delay, (host, min(gaps))  # never two requests closer than d
    longest = max((len(t) - 1) * delay for t in per_host.values())
    assert elapsed >= longest
    # Hosts in parallel, not one after another: every host's requests began before any host
    # had finished (a fact of order, which holds however busy the machine is).
    assert max(t[0] for t in per_host.values()) < min(t[-1] for t in per_host.values())
    # An honest User-Agent with a contact URL, Accept and Accept-Language on every request.
    for *_, headers in log:
        assert headers["user-agent"] == USER_AGENT
        assert "br-locleg" in USER_AGENT and "https://" in USER_AGENT
        assert headers["accept-language"].startswith("pt-BR") and headers["accept"]


def test_an_operator_delay_overrides_robots_txt(corpus):
    camaras = synthetic_camaras(1, 2, files_every=1, crawl_delay=0.01)
    with SaplServer(camaras) as srv:
        host = next(iter(camaras))
        add_source(corpus, f"http://{host}", delay=0.25)
        run(corpus, resolve=srv.resolve_env())
        times = _arrivals(srv.log)[host]
    assert len(times) == 9
    assert min(b - a for a, b in zip(times, times[1:], strict=False)) >= 0.25


def test_robots_txt_disallow_is_honoured(corpus):
    camara = Camara.juazeiro(robots="User-agent: *\nDisallow: /media/\n")
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        run(corpus)
        paths = [r[3] for r in srv.log]
    assert not [p for p in paths if p.startswith("/media/")]
    found = counts(corpus)
    assert found["norms"] == 25 and found["documents"] == 6 and found["versions"] == 0
    refused = [p for p in problems(corpus) if "disallowed by robots.txt" in p["message"]]
    assert len(refused) == 6


def test_a_crawler_shut_out_by_robots_txt_asks_for_nothing_else(corpus):
    camara = Camara.juazeiro(robots="User-agent: br-locleg\nDisallow: /\n\nUser-agent: *\n"
                                    "Crawl-delay: 1\n")
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        run(corpus)
        paths = [r[3] for r in srv.log]
    assert paths == ["/robots.txt"]
    assert counts(corpus)["norms"] == 0
    assert "disallowed by robots.txt" in problems(corpus)[0]["message"]


def test_max_time_stops_starting_requests_and_the_next_run_goes_on(corpus):
    camaras = synthetic_camaras(1, 10, files_every=1, crawl_delay=0.2)
    with SaplServer(camaras) as srv:
        host = next(iter(camaras))
        add_source(corpus, f"http://{host}", delay=None)
        report = run(corpus, resolve=srv.resolve_env(), max_time=0.7)
        assert report.stopped_by_deadline and report.pending > 0
        assert counts(corpus)["frontier"] > 0
        report = run(corpus, resolve=srv.resolve_env())
    assert report.pending == 0 and counts(corpus)["versions"] == 10


def test_a_waiting_host_says_why_and_until_when(corpus):
    from locleg.fixtures.harvesting import fast_config
    from locleg.harvest.engine import harvest
    from locleg.harvest.net import Resolver

    camara = Camara.juazeiro(crawl_delay=0.3)
    seen: set[str] = set()

    def progress(run) -> None:
        seen.update(h.wait_reason for h in run.hosts.values() if h.wait_reason)

    with SaplServer(camara) as srv:
        add_source(corpus, srv.url, delay=None)
        harvest(corpus, config=fast_config(), resolver=Resolver({}), on_progress=progress)
    reasons = {r.split(";")[0] for r in seen}
    assert "robots.txt Crawl-delay 0.3 s" in reasons
    assert all(re.search(r"; next request \d\d:\d\d:\d\d UTC$", r) for r in seen)


def test_max_time_stops_a_request_that_trickles(corpus):
    """A server sending a byte a second passes every per-read timeout: the run's deadline
    still holds, and the request stays in the frontier for the next run."""
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        srv.add_fault("trickle", "get_all=true&o=id", value=0.5)
        started = time.monotonic()
        report = run(corpus, max_time=3, timeout=5)
        elapsed = time.monotonic() - started
    assert elapsed < 30  # the trickle alone would take half an hour
    assert report.stopped_by_deadline
    left = requests_left(corpus)
    assert [(r["kind"], r["state"]) for r in left] == [("norms", "pending")]


def test_a_request_past_its_own_deadline_is_retried(corpus):
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        srv.add_fault("trickle", "get_all=true&o=id", times=1, value=0.5)
        report = run(corpus, request_deadline=2, timeout=5)
    assert report.cycles_finished == 1 and counts(corpus)["norms"] == 25
    assert "no whole answer within 2 s" in problems(corpus)[0]["message"]


def test_a_file_that_trickles_fails_with_the_reason_and_the_rest_goes_on(corpus):
    lei = "/media/sapl/public/normajuridica/2011/1461/lei_2199_de_2011.pdf"
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        srv.trickle(lei, interval=1)
        started = time.monotonic()
        report = run(corpus, request_deadline=2, timeout=5, max_attempts=2)
        elapsed = time.monotonic() - started
        host = srv.url.removeprefix("http://")
    assert elapsed < 60 and not report.parked
    assert counts(corpus)["norms"] == 25 and counts(corpus)["versions"] == 5
    left = requests_left(corpus)
    assert [(r["url"].endswith(lei), r["state"], r["attempts"]) for r in left] == [
        (True, "failed", 2)]
    assert left[0]["last_error"].startswith(f"{host} answered too slowly: no whole answer "
                                            "within 2 s (the request's deadline)")
    messages = [p["message"] for p in problems(corpus)]
    assert len(messages) == 2 and "gave up after 2 attempt(s)" in messages[-1]


def test_a_robots_txt_asking_for_a_short_pause_is_waited_for_not_counted(corpus):
    """robots.txt answered 429 Retry-After 1 twice: a pause each time, not an unreadable
    robots.txt; even a host parked at its first failure is not parked."""
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        srv.add_fault("429", "robots.txt", times=2, value=1)
        report = run(corpus, park_after=1)
        asked = [r.time for r in srv.requests(path="robots.txt")]
    assert not report.parked and report.errors == 0 and report.pauses == 2
    assert counts(corpus)["versions"] == 6 and problems(corpus) == []
    gaps = [b - a for a, b in zip(asked, asked[1:], strict=False)]
    assert len(asked) == 3 and min(gaps) >= 0.95


def test_a_robots_txt_that_asks_for_a_day_parks_the_host(corpus):
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        srv.add_fault("429", "robots.txt", value=86400)
        started = time.monotonic()
        report = run(corpus, max_time=120)
        elapsed = time.monotonic() - started
    assert elapsed < 30 and not report.stopped_by_deadline  # parked, not waited for
    assert [h.host for h in report.parked]
    assert "parked until" in " ".join(p["message"] for p in problems(corpus))


def test_files_on_private_addresses_are_refused_at_once(corpus):
    camara = Camara.juazeiro(crawl_delay=None)
    real = camara.norm_json

    def private_file(n, origin):
        row = real(n, origin)
        if n["id"] == 1464:
            row["texto_integral"] = "http://10.1.2.3/arquivos/lei.pdf"
        if n["id"] == 1473:
            row["texto_integral"] = "http://[fd00::7]:8080/arquivos/lei.docx"
        return row

    camara.norm_json = private_file
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        started = time.monotonic()
        report = run(corpus, backoff_base=30, backoff_max=600)
        elapsed = time.monotonic() - started
    assert elapsed < 30  # no backoff, no retries: nothing to wait for
    assert report.cycles_finished == 1
    left = {r["host"]: r for r in requests_left(corpus)}
    assert set(left) == {"10.1.2.3", "[fd00::7]:8080"}
    assert all(r["state"] == "failed" and "private" in r["last_error"] for r in left.values())
    messages = [p["message"] for p in problems(corpus)]
    assert not [m for m in messages if "robots.txt unreadable" in m]
    assert len([m for m in messages if "refused" in m]) == 2
