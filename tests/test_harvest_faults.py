"""Bad input from a câmara: each fault leaves a record a user can see, loses nothing, and the
harvest goes on (with a scheduled retry where retrying makes sense)."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from sqlalchemy import select

from locleg.fixtures.harvesting import add_source, counts, problems, requests_left, run
from locleg.fixtures.sapl_server import Camara, SaplServer
from locleg.harvest.jsonread import iter_json_array
from locleg.harvest.net import FetchError, Guard, Refused, Resolver, parse_overrides
from locleg.harvest.sapl import parse_norm
from locleg.store.harvest_schema import harvest_host
from locleg.store.schema import document, record, source
from tests.conftest import run_cli

LEI_2199 = "/media/sapl/public/normajuridica/2011/1461/lei_2199_de_2011.pdf"
COMPLETE = {"norms": 25, "documents": 6, "versions": 6, "relations": 3, "frontier": 0}


@pytest.fixture
def server():
    srv = SaplServer(Camara.juazeiro(crawl_delay=None)).start()
    yield srv
    srv.stop()


def _complete(corpus) -> None:
    found = counts(corpus)
    assert {k: found[k] for k in COMPLETE} == COMPLETE


def _messages(corpus) -> str:
    return "\n".join(p["message"] for p in problems(corpus))


@pytest.mark.parametrize("kind, path, expected", [
    ("500", "casalegislativa", "HTTP 500 server error"),
    ("502", "tiponormajuridica", "HTTP 502 server error"),
    ("503", "normarelacionada", "HTTP 503"),
    ("reset", "get_all=true&o=id", "network error"),
    ("truncated", "get_all=true&o=id", "connection broken mid-response"),
    ("truncated", LEI_2199, "connection broken mid-response"),
    ("invalid_json", "tipovinculo", "invalid JSON"),
    ("html200", "api/norma/anexonormajuridica", "an HTML page instead of JSON"),
    ("html200", "get_all=true&o=id", "an HTML page instead of JSON"),
])
def test_transient_faults_are_recorded_and_retried_until_complete(corpus, server, kind, path,
                                                                  expected):
    add_source(corpus, server.url)
    server.add_fault(kind, path, times=2)
    report = run(corpus)
    _complete(corpus)  # nothing lost, nothing twice
    assert report.errors == 2
    messages = _messages(corpus)
    assert messages.count(expected) == 2 and "retry at" in messages
    assert len(server.requests(path=path.replace("?", r"\?"))) == 3


def test_429_retry_after_is_honoured(corpus, server):
    add_source(corpus, server.url)
    server.add_fault("429", "tiponormajuridica", times=1, value=1)
    report = run(corpus)
    _complete(corpus)
    log = server.log
    limited = next(i for i, r in enumerate(log) if r[4] == 429)
    # Nothing reached the host until Retry-After had passed, and then the same request.
    assert log[limited + 1][0] - log[limited][0] >= 0.95
    assert log[limited + 1].target == log[limited].target
    # A pause asked for is neither an error nor a problem; the run counts it.
    assert report.pauses == 1 and report.errors == 0 and _messages(corpus) == ""


@pytest.mark.parametrize("status", [503, 429])
def test_a_host_shedding_load_is_waited_for_not_parked(corpus, server, status):
    """Each file's first request answered 503/429 with Retry-After 1, the next as usual: the
    due file is asked again after the pause, all 6 files come in, no failure is counted and
    the host is never parked (the defaults: parked after 5 failures in a row)."""
    add_source(corpus, server.url)
    server.shed_load("^/media/", status=status, retry_after=1)
    started = time.monotonic()
    report = run(corpus, park_after=5, max_attempts=6)
    elapsed = time.monotonic() - started
    assert not report.parked and report.errors == 0
    _complete(corpus)
    files = [(r.target, r.status, r.time) for r in server.requests(path="^/media/")]
    assert len(files) == 12
    # The due request first: each file asked again right after its own pause, never the
    # next file in between; and never before its Retry-After had passed.
    for (first, paused, at), (again, ok, later) in zip(files[::2], files[1::2], strict=True):
        assert (first, paused) == (again, status) and ok == 200
        assert later - at >= 0.95
    assert len({target for target, *_ in files}) == 6
    assert elapsed >= 6 * 0.95
    assert report.pauses == 6
    assert "Retry-After" not in _messages(corpus)  # a pause is no problem


def test_a_host_asking_for_pauses_for_ever_is_bounded(corpus, server):
    """One file always answered 503 Retry-After 0: after max_pauses pauses in a row each
    attempt counts as a failure, the file gives up with the reason, the rest is harvested."""
    add_source(corpus, server.url)
    server.add_fault("503", LEI_2199, value=0)
    report = run(corpus, park_after=5, max_attempts=2, max_pauses=3)
    assert not report.parked
    assert len(server.requests(path=LEI_2199)) == 2 * (3 + 1)
    assert counts(corpus)["versions"] == 5
    assert [(r["state"], r["attempts"]) for r in requests_left(corpus)] == [("failed", 2)]
    messages = _messages(corpus)
    assert "asked to pause 4 times in a row" in messages
    assert "gave up after 2 attempt(s)" in messages


def test_a_host_asking_for_pauses_on_everything_for_ever_is_parked_with_the_reason(corpus,
                                                                                   server):
    add_source(corpus, server.url)
    server.add_fault("503", "^/api/", value=0)
    report = run(corpus, park_after=3, max_attempts=10, max_pauses=2)
    assert [h.host for h in report.parked] == [server.url.removeprefix("http://")]
    assert len(server.requests(path="^/api/")) == 3 * (2 + 1)  # then left alone
    messages = _messages(corpus)
    assert "asked to pause 3 times in a row" in messages
    assert "parked until" in messages and "3 failures in a row" in messages


def test_timeout_is_retried(corpus, server):
    add_source(corpus, server.url)
    # The server holds the request for a minute; the client gives up after its timeout (not
    # so short that an answer from a busy machine would pass it too).
    server.add_fault("timeout", LEI_2199, times=1, value=60)
    run(corpus, timeout=3)
    _complete(corpus)
    assert "timed out" in _messages(corpus)


def test_a_request_that_keeps_failing_gives_up_and_is_retried_next_cycle(corpus, server):
    add_source(corpus, server.url)
    server.add_fault("503", LEI_2199)
    run(corpus, max_attempts=3)
    left = requests_left(corpus)
    assert [(r["url"].endswith(LEI_2199), r["state"], r["attempts"]) for r in left] == [
        (True, "failed", 3)]
    assert counts(corpus)["versions"] == 5 and counts(corpus)["norms"] == 25
    assert "gave up after 3 attempt(s); retried next cycle" in _messages(corpus)
    server.clear_faults()
    run(corpus, refresh=True)
    _complete(corpus)


def test_a_host_that_keeps_failing_is_parked_and_reported(corpus, server):
    folder = corpus.folder
    source_id = add_source(corpus, server.url)
    server.add_fault("503")  # everything, always
    report = run(corpus, park_after=3, max_attempts=10)
    assert [h.host for h in report.parked] == [server.url.removeprefix("http://")]
    assert len(server.log) == 3  # parked after 3 failures: no loop of retries
    with corpus.store.engine.connect() as conn:
        parked = conn.execute(select(harvest_host.c.parked_until)).scalar_one()
        error = conn.execute(select(source.c.last_error)
                             .where(source.c.id == source_id)).scalar_one()
    assert parked is not None and "parked until" in error
    # A new run leaves the parked host alone.
    run(corpus)
    assert len(server.log) == 3
    listed = json.loads(run_cli("sources", "list", "--json", corpus=folder, check=True).stdout)
    assert listed[0]["parked_until"] and "parked until" in listed[0]["last_error"]
    status = run_cli("status", corpus=folder, check=True).stdout
    assert "parked until" in status and "HTTP 503" in status


def test_oversize_file_is_refused_and_the_rest_goes_on(corpus, server):
    add_source(corpus, server.url)
    server.add_fault("oversize", LEI_2199, value=3 * 2**20)
    run(corpus, max_file_size=2**20)
    found = counts(corpus)
    assert found["norms"] == 25 and found["documents"] == 6 and found["versions"] == 5
    assert [r["state"] for r in requests_left(corpus)] == ["failed"]
    assert "over the cap" in _messages(corpus)
    assert list(corpus.blobs.leftover_temp_files()) == []


@pytest.mark.parametrize("location, why", [
    ("file:///etc/passwd", "only http(s) URLs are followed"),
    ("ftp://example.org/lei.pdf", "only http(s) URLs are followed"),
    ("http://10.0.0.7/media/x.pdf", "loopback, private or link-local"),
    ("http://169.254.169.254/latest/meta-data/", "loopback, private or link-local"),
    ("http://127.0.0.1:9/media/x.pdf", "loopback, private or link-local"),
])
def test_redirects_to_other_schemes_or_private_addresses_are_refused(corpus, server, location,
                                                                     why):
    add_source(corpus, server.url)
    server.add_fault("redirect_private", LEI_2199, value=location)
    run(corpus)
    assert counts(corpus)["versions"] == 5
    assert why in _messages(corpus)
    assert [r["state"] for r in requests_left(corpus)] == ["failed"]  # not retried in a loop


def test_page_past_the_end_ends_the_listing_without_marking_removals(corpus):
    camara = Camara(version="3.1.150", synthetic=120, files_every=0, crawl_delay=None)
    with SaplServer(camara) as srv:
        source_id = add_source(corpus, srv.url, version="3.1.150")
        run(corpus)
        assert counts(corpus)["norms"] == 120
        srv.add_fault("past_end", r"normajuridica/\?.*page=2")
        run(corpus, full=True)
    with corpus.store.engine.connect() as conn:
        removed = conn.scalar(select(record.c.id).where(record.c.removed_at.is_not(None)))
        error = conn.scalar(select(source.c.last_error).where(source.c.id == source_id))
    assert removed is None  # an incomplete listing never marks norms removed
    assert "Página inválida" in _messages(corpus) and "incomplete" in error


def test_duplicated_ids_across_pages_store_each_norm_once(corpus):
    camara = Camara(version="3.1.150", synthetic=120, files_every=0, crawl_delay=None)
    with SaplServer(camara) as srv:
        source_id = add_source(corpus, srv.url, version="3.1.150")
        srv.add_fault("dup_pages", "normajuridica/")  # each page repeats the last row before it
        report = run(corpus)
        pages = srv.requests(path=r"/norma/normajuridica/\?")
    assert report.errors == 0 and len(pages) == 3
    with corpus.store.engine.connect() as conn:
        native = conn.execute(select(record.c.native_id).where(record.c.source_id == source_id)
                              ).scalars().all()
    assert sorted(native, key=int) == [str(i) for i in range(1, 121)]


def test_the_server_rejects_datetimes_with_t_as_sapl_does(server):
    """The fixture keeps SAPL's filter (and its 400s) though the harvest lists everything."""
    import httpx

    bad = httpx.get(server.url + "/api/norma/normajuridica/?data_ultima_atualizacao__gte="
                    "2026-01-01T00:00:00&o=id")
    assert bad.status_code == 400
    assert bad.json() == {"data_ultima_atualizacao__gte": ["Informe uma data/hora válida."]}
    good = httpx.get(server.url + "/api/norma/normajuridica/", params={
        "data_ultima_atualizacao__gte": "2026-01-09 10:24:36", "o": "id", "page_size": 100})
    assert [r["id"] for r in good.json()["results"]][:1] == [1474]


def test_bad_norm_rows_are_recorded_and_skipped(corpus, server):
    add_source(corpus, server.url)
    camara = server.default
    real = camara.norm_json

    def broken(n, origin):
        row = real(n, origin)
        if n["id"] == 1470:
            row["id"] = "not-an-int"
        return row

    camara.norm_json = broken
    run(corpus)
    assert counts(corpus)["norms"] == 24
    assert "skipped a bad norm row" in _messages(corpus)


def test_null_or_empty_texto_integral_makes_no_document(corpus):
    from locleg.harvest.platform import SourceContext

    ctx = SourceContext(1, "http://sapl.x.ba.leg.br", 2918407, {}, {"types": {
        "1": {"descricao": "Lei Ordinária", "lexml": "lei"}}}, None)
    base = {"id": 7, "tipo": 1, "numero": "12-A", "ano": 2010, "data": None,
            "ementa": "E", "ip": "10.0.0.1", "user": 3}
    for value in (None, "", "   "):
        assert parse_norm({**base, "texto_integral": value}, ctx)[0]["texto_integral"] is None
    row, notes = parse_norm({**base, "texto_integral": "http://127.0.0.1:8000/media/sapl/public/"
                             "normajuridica/2010/7/a.pdf"}, ctx)
    assert notes == []
    # /media URLs are rebased on the source's own host and scheme.
    assert row["texto_integral"] == "http://sapl.x.ba.leg.br/media/sapl/public/normajuridica/" \
                                    "2010/7/a.pdf"
    assert row["number"] == "12-A" and row["date"] is None and "ip" not in row
    assert "user" not in row
    with pytest.raises(ValueError):
        parse_norm({"id": "7"}, ctx)


def test_guard_allows_a_loopback_source_only_its_own_host_and_port():
    resolver = Resolver(parse_overrides("sapl.x.ba.leg.br=127.0.0.1:8001,"
                                        "public.example=93.184.216.34:80,*="))

    async def check(base: str, url: str) -> str:
        try:
            await Guard(base, resolver).check(url)
            return "ok"
        except Refused as e:
            return str(e)
        except FetchError as e:
            return f"error: {e}"

    async def main():
        local = "http://sapl.x.ba.leg.br"
        assert await check(local, "http://sapl.x.ba.leg.br/media/a.pdf") == "ok"
        assert "private" in await check(local, "http://sapl.x.ba.leg.br:8080/a")
        assert "private" in await check(local, "http://127.0.0.1:8001/a")
        assert "private" in await check("http://public.example", "http://sapl.x.ba.leg.br/a")
        assert await check("http://public.example", "https://public.example/a") == "ok"
        assert "only http(s)" in await check(local, "gopher://sapl.x.ba.leg.br/")
        assert "private" in await check("http://public.example", "http://[::1]/a")
        assert "private" in await check("http://public.example", "http://192.168.0.1/a")
        assert "cannot resolve" in await check(local, "http://unknown.example/a")
        # IPv6 addresses that lead to an IPv4 host are as private as that host: NAT64,
        # 6to4, IPv4-compatible, IPv4-mapped, IPv4-translated, Teredo; and a network's own
        # NAT64 prefix. Each form with a private, a loopback and a link-local (cloud
        # metadata) IPv4 inside; each with a public one inside passes.
        for address in ("64:ff9b::a00:1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe",
                        "2002:c0a8:1::1", "2002:7f00:1::1", "2002:a9fe:a9fe::1",
                        "::7f00:1", "::a9fe:a9fe", "::1", "::",
                        "::ffff:10.0.0.1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
                        "::ffff:0:10.0.0.1", "::ffff:0:127.0.0.1", "::ffff:0:169.254.169.254",
                        "::ffff:0:0:0", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                        "2001:0:4136:e378:8000:63bf:f5ff:fffe", "64:ff9b:1::808:808"):
            assert "private" in await check("http://public.example",
                                            f"http://[{address}]/a"), address
        for address in ("64:ff9b::808:808", "2002:808:808::1", "2001:4860:4860::8888",
                        "::ffff:0:808:808", "::ffff:8.8.8.8", "::808:808"):
            assert await check("http://public.example", f"http://[{address}]/a") == "ok"

    asyncio.run(main())


def test_streamed_listing_parser_handles_every_chunk_boundary_and_rejects_bad_input():
    rows = [{"id": i, "ementa": f"Dispõe sobre {i} \u00e9 \"x\" [a, b]"} for i in range(5)]
    data = json.dumps(rows).encode()

    async def parse(chunks):
        async def gen():
            for c in chunks:
                yield c
        return [item async for item in iter_json_array(gen(), "u")]

    for cut in range(1, len(data)):
        assert asyncio.run(parse([data[:cut], data[cut:]])) == rows
    for bad, message in [(data[:-1], "ended before"), (b"<html>", "HTML page"),
                         (b'{"detail": "x"}', "not a JSON array"),
                         (b'[{"id": 1} {"id": 2}]', "missing comma")]:
        with pytest.raises(FetchError, match=message):
            asyncio.run(parse([bad]))


def test_documents_of_a_norm_whose_file_changed_name_are_marked_removed(corpus, server):
    add_source(corpus, server.url)
    run(corpus)
    camara = server.default
    camara.update_norm(1464, texto_integral="lei-1996-2008-v2.pdf")
    camara.set_file("/media/sapl/public/normajuridica/2008/1464/lei-1996-2008-v2.pdf",
                    b"%PDF-1.4 new file")
    run(corpus, refresh=True)
    with corpus.store.engine.connect() as conn:
        docs = conn.execute(select(document.c.url, document.c.removed_at)
                            .join(record, record.c.id == document.c.record_id)
                            .where(record.c.native_id == "1464")).all()
    assert sorted((d.url.rsplit("/", 1)[1], d.removed_at is None) for d in docs) == [
        ("lei-1996-2008-v2.pdf", True), ("lei-1996-2008.pdf", False)]
