"""Harvesting SAPL: the sample câmara end to end, incremental re-runs, sources, discovery."""

from __future__ import annotations

import json
import time
from datetime import date

import pytest
from sqlalchemy import inspect, select

from locleg.corpus import open_corpus
from locleg.fixtures import camara as sample_camara
from locleg.fixtures.documents import born_digital_pdf
from locleg.fixtures.harvesting import JUAZEIRO, add_source, counts, problems, run
from locleg.fixtures.sapl_server import Camara, SaplServer
from locleg.harvest.discover import host_label
from locleg.store.harvest_schema import harvest_host, sapl_relation
from locleg.store.schema import document, record, version
from tests.conftest import run_cli


@pytest.fixture
def server():
    srv = SaplServer(Camara.juazeiro(crawl_delay=None)).start()
    yield srv
    srv.stop()


def _norms(corpus) -> dict[str, dict]:
    with corpus.store.engine.connect() as conn:
        return {r["native_id"]: dict(r) for r in conn.execute(select(record)).mappings()}


def _documents(corpus) -> list[dict]:
    with corpus.store.engine.connect() as conn:
        rows = conn.execute(
            select(document, record.c.native_id, version.c.sha256, version.c.media_type,
                   version.c.http_status, version.c.last_modified, version.c.origin)
            .join(record, record.c.id == document.c.record_id)
            .outerjoin(version, version.c.id == document.c.current_version_id)
            .order_by(document.c.id)
        ).mappings()
        return [dict(r) for r in rows]


def test_harvest_of_the_sample_camara_stores_norms_documents_files_and_vinculos(corpus, server):
    source_id = add_source(corpus, server.url)
    report = run(corpus)
    assert report.cycles_finished == 1 and report.errors == 0

    norms = _norms(corpus)
    assert len(norms) == 25
    lei = norms["1461"]  # seed 000: Lei 2.199/2011, moto-táxi
    assert (lei["type_raw"], lei["type_normalized"], lei["number"], lei["year"]) == (
        "Lei Ordinária", "lei", "2199", 2011)
    assert lei["date"] == date(2011, 6, 27)
    assert "MOTO - TÁXI" in lei["ementa"]
    assert lei["url"] == f"{server.url}/norma/1461"
    assert lei["source_id"] == source_id and lei["jurisdiction_code"] == JUAZEIRO
    assert norms["1482"]["number"] == "12-A"  # numero with letters stays a string
    assert norms["1479"]["date"] is None and norms["1479"]["year"] == 2012  # null data
    assert norms["1462"]["type_normalized"] == "lei.complementar"
    assert norms["1485"]["type_normalized"] == "emenda.lei.organica"

    docs = _documents(corpus)
    by_norm: dict[str, list[dict]] = {}
    for d in docs:
        by_norm.setdefault(d["native_id"], []).append(d)
    assert set(by_norm) == {"1461", "1464", "1473", "1483"}  # null texto_integral: no document
    roles = sorted((d["role"], d["title"]) for d in by_norm["1461"])
    assert roles == [("anexo", "Anexo I - Pontos de estacionamento de moto-táxi"),
                     ("anexo", "Anexo II - Modelo de colete de identificação do mototaxista"),
                     ("texto_integral", None)]
    files = sample_camara.files()
    for d in docs:
        path = d["url"].removeprefix(server.url)
        assert corpus.blobs.read(d["sha256"]) == files[path]
        assert d["http_status"] == 200 and d["last_modified"].endswith("GMT")
    texto = next(d for d in by_norm["1461"] if d["role"] == "texto_integral")
    assert texto["media_type"] == "application/pdf"
    assert texto["url"] == f"{server.url}/media/sapl/public/normajuridica/2011/1461/" \
                           "lei_2199_de_2011.pdf"
    media = {d["native_id"]: d["media_type"] for d in docs if d["role"] == "texto_integral"}
    assert "wordprocessingml" in media["1473"] and "opendocument.text" in media["1483"]

    with corpus.store.engine.connect() as conn:
        relations = {r["native_id"]: dict(r) for r in conn.execute(select(sapl_relation))
                     .mappings()}
    revoga = relations["2"]
    assert (revoga["norm_native_id"], revoga["related_native_id"]) == ("1461", "1464")
    assert revoga["tipo_sigla"] == "R" and revoga["revoga_integralmente"] is True
    assert revoga["descricao_passiva"] == "Revogado(a) integralmente pelo(a)"
    assert revoga["record_id"] == lei["id"] and revoga["related_record_id"] == norms["1464"]["id"]
    assert relations["1"]["tipo_sigla"] == "A" and relations["1"]["norm_native_id"] == "1462"

    # Editors' ip and user are never kept, anywhere.
    tables = inspect(corpus.store.engine)
    columns = {c["name"] for t in tables.get_table_names() for c in tables.get_columns(t)}
    assert not columns & {"ip", "user"}
    assert problems(corpus) == []
    assert counts(corpus)["frontier"] == 0


def test_rerun_writes_only_what_changed_and_is_idempotent(corpus, server):
    add_source(corpus, server.url)
    run(corpus)
    first = counts(corpus)
    changed_at = {k: n["changed_at"] for k, n in _norms(corpus).items()}
    server.log.clear()

    run(corpus, refresh=True)  # nothing changed at the câmara
    assert counts(corpus) == first
    assert {k: n["changed_at"] for k, n in _norms(corpus).items()} == changed_at
    # One request lists every norm (and so every deletion); nothing is filtered by date.
    listing = [r[3] for r in server.requests(path="/norma/normajuridica/")]
    assert listing == ["/api/norma/normajuridica/?get_all=true&o=id"]
    assert not server.requests(path="/media/")  # unchanged norms: files not asked for

    # The câmara edits a norm, adds one and replaces a file (same URL, new bytes).
    camara = server.default
    camara.update_norm(1470, ementa="Ementa corrigida pela câmara.")
    camara.add_norm(numero="2300", ementa="Dispõe sobre o transporte por moto-táxi.",
                    texto_integral="lei_2300.pdf", ano=2026)
    added = max(camara.norms)
    camara.set_file(f"/media/sapl/public/normajuridica/2026/{added}/lei_2300.pdf",
                    born_digital_pdf("Lei 2300", ["moto-táxi"]))
    path_2199 = "/media/sapl/public/normajuridica/2011/1461/lei_2199_de_2011.pdf"
    camara.set_file(path_2199, born_digital_pdf("Lei 2199", ["texto consolidado"]))
    camara.update_norm(1461)
    run(corpus, refresh=True)

    norms = _norms(corpus)
    assert norms["1470"]["ementa"] == "Ementa corrigida pela câmara."
    assert norms[str(added)]["number"] == "2300"
    changed = {k for k, n in norms.items() if n["changed_at"] != changed_at.get(k)}
    assert changed == {"1470", str(added)}  # 1461's fields did not change, only its date
    after = counts(corpus)
    assert after["norms"] == 26 and after["documents"] == first["documents"] + 1
    assert after["versions"] == first["versions"] + 2  # the new file, and 2199's new version
    with corpus.store.engine.connect() as conn:
        history = conn.execute(
            select(version.c.sha256).join(document, document.c.id == version.c.document_id)
            .where(document.c.url == server.url + path_2199).order_by(version.c.id)
        ).scalars().all()
    assert len(history) == 2 and history[0] != history[1]  # never overwritten
    # Every file of the changed norm 1461 (its texto integral and its two anexos) was asked
    # for again, conditionally; the unchanged anexos answered 304.
    fetched = {r[3]: r for r in server.requests(path="/media/")}
    anexos = {p for p in fetched if "anexonormajuridica" in p}
    assert set(fetched) == {path_2199, f"/media/sapl/public/normajuridica/2026/{added}/"
                                       "lei_2300.pdf", *anexos} and len(anexos) == 2
    assert all(fetched[p][4] == 304 and "if-modified-since" in fetched[p][5] for p in anexos)
    assert "if-modified-since" in fetched[path_2199][5] and fetched[path_2199][4] == 200

    # A norm and an anexo disappear: the next scheduled cycle marks them removed (no --full).
    del camara.norms[1466]
    camara.anexos = camara.anexos[:1]
    report = run(corpus, refresh=True)
    assert report.removed == 1
    norms = _norms(corpus)
    assert norms["1466"]["removed_at"] is not None
    assert sum(1 for n in norms.values() if n["removed_at"]) == 1
    gone = [d for d in _documents(corpus) if d["removed_at"] is not None]
    assert [d["title"] for d in gone] == [
        "Anexo II - Modelo de colete de identificação do mototaxista"]
    assert counts(corpus)["versions"] == after["versions"]

    # It comes back (restored at the câmara): the norm is no longer marked removed.
    camara.norms[1466] = dict(sample_camara_norm(1466))
    run(corpus, refresh=True)
    assert _norms(corpus)["1466"]["removed_at"] is None


def sample_camara_norm(native_id: int) -> dict:
    return next(n for n in sample_camara.norms() if n["id"] == native_id)


def test_old_sapl_without_get_all_is_listed_page_by_page(corpus):
    camara = Camara.juazeiro(crawl_delay=None, version="3.1.150")
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url, version="3.1.150")
        report = run(corpus)
        listing = [r[3] for r in srv.requests(path="/norma/normajuridica/")]
    assert report.errors == 0
    assert all("page_size=50" in t and "o=id" in t and "get_all" not in t for t in listing)
    assert len(_norms(corpus)) == 25
    assert counts(corpus)["relations"] == 3


def test_sources_add_set_and_list(tmp_path, server, database_url):
    folder = tmp_path / "c"
    run_cli("init", str(folder), *(["--db", database_url] if database_url else []), check=True)
    added = run_cli("sources", "add", "sapl", server.url, "--jurisdiction", str(JUAZEIRO),
                    "--delay", "0.5", corpus=folder, check=True)
    assert "SAPL 3.1.163-RC20" in added.stdout and "get_all" in added.stdout
    assert "Added source 1 for Juazeiro (BA)" in added.stdout
    again = run_cli("sources", "add", "sapl", server.url + "/", "-j", str(JUAZEIRO),
                    corpus=folder, check=True)
    assert "Already known: source 1" in again.stdout
    run_cli("sources", "set", "1", "--delay", "0", corpus=folder, check=True)
    run_cli("harvest", "--source", "1", corpus=folder, check=True)
    listed = json.loads(run_cli("sources", "list", "--json", corpus=folder, check=True).stdout)
    assert listed[0]["version"] == "3.1.163-RC20" and listed[0]["norms"] == 25
    assert listed[0]["delay"] == 0 and listed[0]["delay_from"] == "operator"
    assert listed[0]["last_success_at"] and listed[0]["next_due_at"]
    assert listed[0]["last_error"] is None and listed[0]["pending"] == 0
    table = run_cli("sources", "list", corpus=folder, check=True).stdout
    assert "Juazeiro (BA)" in table and "3.1.163-RC20" in table

    bad = run_cli("sources", "add", "sapl", server.url, "-j", "9999999", corpus=folder)
    assert bad.returncode == 2 and "unknown IBGE code" in bad.stderr
    bad = run_cli("sources", "set", "1", "--delay", "soon", corpus=folder)
    assert bad.returncode == 2 and "--delay takes seconds" in bad.stderr


@pytest.mark.parametrize("kind, version, message", [
    ("sapl25", "3.1.163-RC20", "looks like SAPL 2.5"),
    ("other", "3.1.163-RC20", "is not a SAPL"),
    ("sapl31", "3.1.143", "without the norm API"),
])
def test_sources_add_refuses_what_is_not_a_sapl_31(tmp_path, kind, version, message):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    camara = Camara(kind=kind, version=version, crawl_delay=None)
    with SaplServer(camara) as srv:
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO), corpus=folder)
    assert result.returncode == 2 and message in result.stderr
    assert result.stderr.count("\n") == 1  # one clear line, no traceback
    nothing = run_cli("sources", "list", "--json", corpus=folder, check=True)
    assert json.loads(nothing.stdout) == []


def test_unreachable_url_is_one_clear_line(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    result = run_cli("sources", "add", "sapl", "http://127.0.0.1:9", "-j", str(JUAZEIRO),
                     corpus=folder)
    assert result.returncode == 2 and "did not answer" in result.stderr


@pytest.mark.parametrize("request_deadline, probe_deadline, why", [
    ("2", "60", "no whole answer within 2 s (the request's deadline)"),
    ("60", "3", "the probe did not end within 3 s (LOCLEG_PROBE_DEADLINE"),
])
def test_sources_add_ends_at_its_deadline_on_a_server_that_trickles(tmp_path, request_deadline,
                                                                    probe_deadline, why):
    """A byte a second passes every per-read timeout: the request's deadline, or the whole
    probe's, ends the command with one line, and nothing of the source is stored."""
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    env = {"LOCLEG_REQUEST_DEADLINE": request_deadline, "LOCLEG_PROBE_DEADLINE": probe_deadline}
    with SaplServer(Camara.juazeiro(crawl_delay=None)) as srv:
        srv.trickle("casalegislativa", interval=1)
        started = time.monotonic()
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO), corpus=folder,
                         env=env, timeout=120)
        elapsed = time.monotonic() - started
        host = srv.url.removeprefix("http://")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"error: {host} answered too slowly: ")
    assert why in " ".join(result.stderr.split())
    assert result.stderr.count("\n") == 1  # one clear line, no traceback
    assert elapsed < 60  # the trickle alone would take an hour
    assert json.loads(run_cli("sources", "list", "--json", corpus=folder,
                              check=True).stdout) == []
    corpus = open_corpus(folder)
    try:
        with corpus.store.engine.connect() as conn:
            assert conn.execute(select(harvest_host)).all() == []  # not even its robots.txt
    finally:
        corpus.close()


def test_a_bad_deadline_setting_is_one_clear_line(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    result = run_cli("sources", "add", "sapl", "http://127.0.0.1:9", "-j", str(JUAZEIRO),
                     corpus=folder, env={"LOCLEG_PROBE_DEADLINE": "soon"})
    assert result.returncode == 2
    assert "LOCLEG_PROBE_DEADLINE='soon': give a number of seconds above 0" in result.stderr


def test_discover_reports_a_host_that_trickles_and_goes_on(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    camaras = {"sapl.juazeiro.ba.leg.br": Camara.juazeiro(crawl_delay=None),
               "sapl.feiradesantana.ba.leg.br": Camara(nome="Câmara Municipal de Feira de "
                                                       "Santana", municipio="Feira de Santana",
                                                       synthetic=3, crawl_delay=None)}
    with SaplServer(camaras) as srv:
        srv.trickle("casalegislativa", host="sapl.juazeiro.ba.leg.br", interval=1)
        env = {"LOCLEG_RESOLVE": srv.resolve_env(), "LOCLEG_REQUEST_DEADLINE": "2"}
        started = time.monotonic()
        result = run_cli("discover", "sapl", "--uf", "ba", corpus=folder, env=env,
                         check=True, timeout=120)
        elapsed = time.monotonic() - started
    out = " ".join(result.stdout.split())
    assert "too slow, try again later sapl.juazeiro.ba.leg.br: sapl.juazeiro.ba.leg.br " \
           "answered too slowly: no whole answer within 2 s" in out
    assert "1 SAPL (1 new sources)" in out and "1 answered too slowly" in out
    assert elapsed < 60
    listed = json.loads(run_cli("sources", "list", "--json", corpus=folder, check=True).stdout)
    assert [s["base_url"] for s in listed] == ["http://sapl.feiradesantana.ba.leg.br"]


def test_host_labels_fold_names_the_way_sapl_hosts_do():
    assert host_label("Juazeiro") == "juazeiro"
    assert host_label("Feira de Santana") == "feiradesantana"
    assert host_label("Dias d'Ávila") == "diasdavila"
    assert host_label("Muquém do São Francisco") == "muquemdosaofrancisco"
    assert host_label("Santa Bárbara d'Oeste") == "santabarbaradoeste"


def test_discover_sapl_probes_every_municipality_through_a_resolver_override(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    # Crawl-delay 1 s: the probes wait for it (between a probe's own requests), all at once.
    camaras = {
        "sapl.juazeiro.ba.leg.br": Camara.juazeiro(crawl_delay=1),
        "sapl.feiradesantana.ba.leg.br": Camara(nome="Câmara Municipal de Feira de Santana",
                                                municipio="Feira de Santana", synthetic=3,
                                                crawl_delay=1),
        "sapl.al.ba.leg.br": Camara(nome="Assembleia Legislativa da Bahia", version="3.1.150",
                                    synthetic=2, crawl_delay=1),
        "sapl.salvador.ba.leg.br": Camara(kind="other", crawl_delay=1),
        "sapl.ilheus.ba.leg.br": Camara(kind="sapl25", crawl_delay=1),
    }
    with SaplServer(camaras) as srv:
        env = {"LOCLEG_RESOLVE": srv.resolve_env()}
        result = run_cli("discover", "sapl", "--uf", "ba", corpus=folder, env=env, check=True)
        again = run_cli("discover", "sapl", "--uf", "BA", corpus=folder, env=env, check=True)
    out = result.stdout
    assert "Probed 418 hosts of BA: 3 SAPL (3 new sources), 2 answered but are not a SAPL" \
        in " ".join(out.split())
    assert "http://sapl.feiradesantana.ba.leg.br" in out
    assert "3 SAPL (0 new sources)" in " ".join(again.stdout.split())
    listed = json.loads(run_cli("sources", "list", "--json", corpus=folder, check=True).stdout)
    by_url = {s["base_url"]: s for s in listed}
    assert set(by_url) == {"http://sapl.juazeiro.ba.leg.br",
                           "http://sapl.feiradesantana.ba.leg.br", "http://sapl.al.ba.leg.br"}
    assert by_url["http://sapl.juazeiro.ba.leg.br"]["jurisdiction_code"] == JUAZEIRO
    assert by_url["http://sapl.feiradesantana.ba.leg.br"]["jurisdiction_code"] == 2910800
    assert by_url["http://sapl.al.ba.leg.br"]["jurisdiction_code"] == 29  # the state
    assert by_url["http://sapl.al.ba.leg.br"]["version"] == "3.1.150"


def test_harvest_through_host_names_on_loopback(corpus):
    """Hosts named like real câmaras, served on 127.0.0.1: the source's own host is allowed."""
    camaras = {"sapl.juazeiro.ba.leg.br": Camara.juazeiro(crawl_delay=None)}
    with SaplServer(camaras) as srv:
        add_source(corpus, "http://sapl.juazeiro.ba.leg.br")
        report = run(corpus, resolve=srv.resolve_env())
        hosts = {r[1] for r in srv.log}
    assert report.errors == 0 and hosts == {"sapl.juazeiro.ba.leg.br"}
    docs = _documents(corpus)
    assert len(docs) == 6 and all(d["url"].startswith("http://sapl.juazeiro.ba.leg.br/media/")
                                  for d in docs)


def test_etags_make_conditional_requests_and_304_stores_nothing(corpus):
    camara = Camara.juazeiro(crawl_delay=None, etags=True)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        run(corpus)
        before = counts(corpus)
        srv.log.clear()
        camara.update_norm(1461)  # saved again at the câmara, same file
        run(corpus, refresh=True)
        texto = [r for r in srv.requests(path="/media/") if "lei_2199" in r[3]]
    assert len(texto) == 1 and texto[0][4] == 304
    assert texto[0][5]["if-none-match"].startswith('"')
    assert counts(corpus) == before


def _init(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    return folder


def test_sources_add_reads_robots_first_and_waits_out_a_short_429(tmp_path):
    folder = _init(tmp_path)
    with SaplServer(Camara.juazeiro(crawl_delay=None)) as srv:
        srv.add_fault("429", "casalegislativa", times=1, value=1)
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO),
                         corpus=folder, check=True)
        paths = [(r[3], r[4]) for r in srv.log]
    assert paths[:3] == [("/robots.txt", 200), ("/api/base/casalegislativa/", 429),
                         ("/api/base/casalegislativa/", 200)]
    assert "waiting 1 s (HTTP 429 Retry-After)" in result.stderr
    assert "Added source 1" in result.stdout


@pytest.mark.parametrize("kind, value, path, said", [
    ("429", 3600, "casalegislativa", "HTTP 429 (rate-limited, Retry-After 3600 s)"),
    ("429", None, "casalegislativa", "HTTP 429 (rate-limited)"),
    ("503", 5, "normajuridica", "HTTP 503"),
    ("502", None, "casalegislativa", "HTTP 502 (server error)"),
    ("500", None, "robots.txt", "HTTP 500"),
])
def test_a_busy_or_failing_sapl_is_never_told_to_upgrade(tmp_path, kind, value, path, said):
    folder = _init(tmp_path)
    # An instance that publishes no version: the probe must ask the norm API itself, and a
    # busy answer there is no sign of a missing API.
    camara = Camara.juazeiro(crawl_delay=None, version="3.1.143")
    with SaplServer(camara) as srv:
        srv.add_fault(kind, path, value=value)
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO),
                         corpus=folder)
    lines = [line for line in result.stderr.splitlines() if not line.startswith("waiting ")]
    assert result.returncode == 2 and len(lines) == 1  # waits told, then one line
    assert said in lines[0] and "try again later" in lines[0]
    assert "upgrade" not in result.stderr and "not supported" not in result.stderr


def test_sources_add_obeys_robots_txt_and_its_crawl_delay(tmp_path):
    folder = _init(tmp_path)
    shut = Camara.juazeiro(robots="User-agent: *\nDisallow: /api/\n")
    with SaplServer(shut) as srv:
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO), corpus=folder)
        paths = [r[3] for r in srv.log]
    assert paths == ["/robots.txt"]
    assert result.returncode == 2 and "robots.txt does not let br-locleg read" in result.stderr
    # A probe that needs a second request (no casalegislativa: is it a SAPL 2.5?) waits for
    # the Crawl-delay first.
    zope = Camara(kind="sapl25", crawl_delay=1)
    with SaplServer(zope) as srv:
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO), corpus=folder)
        asked = [(r[0], r[3]) for r in srv.log]
    assert [p for _, p in asked] == ["/robots.txt", "/api/base/casalegislativa/", "/"]
    assert asked[2][0] - asked[1][0] >= 1
    assert "waiting 1 s (robots.txt Crawl-delay)" in result.stderr
    assert "looks like SAPL 2.5" in result.stderr
    # robots.txt read by the probe is kept: the first harvest does not ask for it again.
    with SaplServer(Camara.juazeiro(crawl_delay=1)) as srv:
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO),
                         "--delay", "0", corpus=folder, check=True)
        run_cli("harvest", "--max-time", "2s", corpus=folder, check=True)
        robots = [r for r in srv.log if r[3] == "/robots.txt"]
    assert "robots.txt Crawl-delay 1 s" in result.stdout
    assert len(robots) == 1


def test_sources_add_survives_json_nested_too_deep(tmp_path):
    from locleg.fixtures.sapl_server import raw_json

    folder = _init(tmp_path)
    camara = Camara.juazeiro(crawl_delay=None)
    deep = raw_json("[" * 100_000 + "]" * 100_000)
    camara.mangle_page = lambda path, page: {"pagination": deep, "results": deep}
    with SaplServer(camara) as srv:
        result = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO), corpus=folder)
    assert "Traceback" not in result.stderr and result.stderr.count("\n") <= 1
    assert result.returncode == 2 and "not a SAPL" in result.stderr


def test_a_harvest_with_nothing_due_says_when_and_how(tmp_path, server):
    folder = _init(tmp_path)
    run_cli("sources", "add", "sapl", server.url, "-j", str(JUAZEIRO), "--delay", "0",
            corpus=folder, check=True)
    run_cli("harvest", "--all", corpus=folder, check=True)
    requests = len(server.log)
    again = run_cli("harvest", "--all", corpus=folder, check=True)
    assert len(server.log) == requests  # nothing due: nothing asked
    out = " ".join(again.stdout.split())
    assert "Nothing to do: 1 source(s) not due yet" in out
    assert f"source 1 {server.url} next due 20" in out
    assert "To harvest now: `locleg harvest --refresh`" in out
    assert "`locleg harvest --source 1 --refresh`" in out
