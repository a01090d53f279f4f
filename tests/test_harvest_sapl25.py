"""Harvesting SAPL 2.5 (Zope): the stand-in end to end through the CLI, the 5,000-row cap,
pages that changed shape, Retry-After, a portal without RSS, telling 2.5 from 3.1."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from locleg.corpus import open_corpus
from locleg.fixtures.documents import born_digital_pdf, scanned_pdf
from locleg.fixtures.harvesting import JUAZEIRO, problems, run
from locleg.fixtures.sapl25_server import (
    CAP,
    Norma,
    Sapl25,
    crowded_year,
    texto_consolidado,
    texto_integral,
)
from locleg.fixtures.server import Request, Response, Server
from locleg.harvest import platform
from locleg.harvest.net import Resolver
from locleg.harvest.platform import NotThisPlatform
from locleg.harvest.sapl25 import PLATFORM
from locleg.harvest.sapl25_pages import parse_detail, parse_rss
from locleg.store.schema import document, record, source, version
from tests.conftest import run_cli

DOC = Path(__file__).parent / "data" / "lei-2312-2013.doc"


def _camara(**kw) -> Sapl25:
    """A small câmara: a PDF, a DOC, a scan with a consolidated text, a norm without a file."""
    norms = [
        Norma(1461, 1, 2199, 2011, date(2011, 6, 27), "Dispõe sobre o serviço de transporte "
              "de passageiros em motocicletas (moto-táxi) & dá outras providências."),
        Norma(1462, 2, 45, 2012, date(2012, 3, 1), "Institui o Código Tributário Municipal."),
        Norma(1470, 3, 3, 2013, date(2013, 5, 10), "Concede título de cidadão juazeirense."),
        Norma(1471, 5, 7, 2014, date(2014, 2, 3), "Aprova o Regimento Interno.", situacao=3),
        Norma(1480, 1, 2300, 2015, date(2015, 8, 31), "Denomina a Rua Açucena, no bairro São "
              "José."),
    ]
    camara = Sapl25({n.cod: n for n in norms}, synthetic_files=False, **kw)
    camara.put_file(1461, born_digital_pdf("Lei nº 2.199, de 27 de junho de 2011",
                                           ["Art. 1º Fica regulamentado o moto-táxi."]))
    camara.put_file(1462, born_digital_pdf("Lei Complementar nº 45/2012",
                                           ["Art. 1º Este Código institui os tributos."]))
    camara.put_file(1470, DOC.read_bytes())
    camara.put_file(1471, scanned_pdf([["RESOLUÇÃO Nº 7/2014", "Aprova o Regimento Interno."]]))
    camara.put_file(1471, born_digital_pdf("Resolução nº 7/2014 (texto consolidado)",
                                           ["Art. 1º Fica aprovado o Regimento Interno."]),
                    consolidado=True)
    return camara


@pytest.fixture
def camara():
    with _camara() as srv:
        yield srv


def _records(corpus) -> dict[str, dict]:
    with corpus.store.engine.connect() as conn:
        return {r["native_id"]: dict(r) for r in conn.execute(select(record)).mappings()}


def _documents(corpus) -> dict[tuple[str, str], list[dict]]:
    """(native_id, role) -> the document's versions, oldest first."""
    with corpus.store.engine.connect() as conn:
        found = conn.execute(
            select(record.c.native_id, document.c.role, document.c.url, document.c.removed_at,
                   version.c.sha256, version.c.media_type, version.c.id)
            .join(record, record.c.id == document.c.record_id)
            .outerjoin(version, version.c.document_id == document.c.id)
            .order_by(version.c.id)).mappings().all()
    docs: dict[tuple[str, str], list[dict]] = {}
    for d in found:
        docs.setdefault((d["native_id"], d["role"]), []).append(dict(d))
    return docs


def _add(corpus, url: str) -> int:
    """The source, registered by its probe (as `sources add sapl25` does)."""
    from locleg.harvest.discover import register

    found = asyncio.run(PLATFORM.probe(url, resolver=Resolver({})))
    source_id, _ = register(corpus.store, JUAZEIRO, found, {"delay": 0})
    return source_id


def test_a_sapl25_camara_end_to_end_through_the_cli(tmp_path, camara):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    added = run_cli("sources", "add", "sapl25", camara.url, "-j", str(JUAZEIRO), "--delay", "0",
                    corpus=folder, check=True)
    # The portal is found under /sapl, as host:8080/sapl sites have it.
    assert f"sapl25 2.5 at {camara.url}/sapl" in added.stdout
    assert "Added source 1 for Juazeiro (BA)" in added.stdout
    # Without a platform, SAPL 3.1's probe says no and SAPL 2.5's recognises the site.
    detected = run_cli("sources", "add", camara.url, "-j", str(JUAZEIRO), "--delay", "0",
                       corpus=folder, check=True)
    assert f"Found sapl25 2.5 at {camara.url}/sapl (detected)" in detected.stdout
    assert "Already known: source 1 for Juazeiro (BA)" in detected.stdout
    run_cli("harvest", "--source", "1", corpus=folder, check=True)

    corpus = open_corpus(folder)
    try:
        norms = _records(corpus)
        assert set(norms) == {"1461", "1462", "1470", "1471", "1480"}
        lei = norms["1461"]
        assert (lei["type_raw"], lei["type_normalized"], lei["number"], lei["year"],
                lei["date"]) == ("Lei Ordinária", "lei", "2199", 2011, date(2011, 6, 27))
        # ISO-8859-1 pages under a utf-8 header, a bare & in the feed: read right.
        assert lei["ementa"].startswith("Dispõe sobre o serviço de transporte") \
            and "(moto-táxi) & dá outras" in lei["ementa"]
        assert lei["url"] == f"{camara.url}/sapl/consultas/norma_juridica/" \
                             "norma_juridica_mostrar_proc?cod_norma=1461"
        assert norms["1462"]["type_normalized"] == "lei.complementar"
        assert norms["1471"]["type_raw"] == "Resolução"
        assert norms["1480"]["ementa"] == "Denomina a Rua Açucena, no bairro São José."

        docs = _documents(corpus)
        assert set(docs) == {("1461", "texto_integral"), ("1462", "texto_integral"),
                             ("1470", "texto_integral"), ("1471", "texto_integral"),
                             ("1471", "texto_consolidado")}  # 1480 has no file
        # No extension: the bytes say what each file is.
        assert docs[("1461", "texto_integral")][0]["media_type"] == "application/pdf"
        assert docs[("1470", "texto_integral")][0]["media_type"] == "application/msword"
        assert docs[("1471", "texto_integral")][0]["media_type"] == "application/pdf"
        assert docs[("1461", "texto_integral")][0]["url"] == \
            f"{camara.url}{texto_integral(1461)}"  # not the localhost:8080 of the feed
        assert docs[("1471", "texto_consolidado")][0]["url"] == \
            f"{camara.url}{texto_consolidado(1471)}"
        for (cod, role), versions in docs.items():
            path = texto_consolidado(int(cod)) if role == "texto_consolidado" \
                else texto_integral(int(cod))
            assert corpus.blobs.read(versions[0]["sha256"]) == camara.files.get(path)
    finally:
        corpus.close()
    # A few requests per search (RSS + HTML results), none per norm but its files.
    searches = camara.requests(path=r"RSS2_normas|pesquisar_proc")
    assert len(searches) == 8 and not camara.requests(path="mostrar_proc")

    # Between runs: a norm deleted, a file replaced in place, a norm added.
    camara.delete(1480)
    camara.put_file(1461, born_digital_pdf("Lei nº 2.199/2011 (republicada)",
                                           ["Art. 1º Fica regulamentado o moto-táxi.",
                                            "Republicada por incorreção."]))
    camara.norms[1490] = Norma(1490, 1, 2301, 2015, date(2015, 9, 1), "Altera a Lei 2.199.")
    camara.put_file(1490, born_digital_pdf("Lei nº 2.301/2015", ["Art. 1º Altera."]))
    run_cli("harvest", "--source", "1", "--full", corpus=folder, check=True)

    corpus = open_corpus(folder)
    try:
        norms = _records(corpus)
        assert norms["1480"]["removed_at"] is not None  # marked, never deleted
        assert all(norms[c]["removed_at"] is None for c in ("1461", "1462", "1470", "1471"))
        assert norms["1490"]["number"] == "2301"
        docs = _documents(corpus)
        versions = docs[("1461", "texto_integral")]
        assert len(versions) == 2 and versions[0]["sha256"] != versions[1]["sha256"]
        assert corpus.blobs.read(versions[1]["sha256"]) == camara.files.get(texto_integral(1461))
        assert len(docs[("1462", "texto_integral")]) == 1  # unchanged: confirmed, no new version
        listed = json.loads(run_cli("sources", "list", "--json", corpus=folder,
                                    check=True).stdout)
        assert listed[0]["last_error"] is None and listed[0]["pending"] == 0
    finally:
        corpus.close()


def test_searches_over_the_cap_are_split_until_none_hits_it(corpus):
    crowded = crowded_year(CAP + 200, 2020)
    crowded[1] = Norma(1, 1, 9, 1999, date(1999, 1, 5), "Uma lei antiga.")
    with Sapl25(crowded) as camara:
        _add(corpus, camara.url + "/sapl")
        report = run(corpus, files=False)
        searches = [r.target for r in camara.requests(path="RSS2_normas")]
        assert report.cycles_finished == 1 and report.errors == 0
        norms = _records(corpus)
        assert len(norms) == CAP + 201
        assert norms["100001"]["date"] == date(2020, 1, 1) and norms["1"]["year"] == 1999
        # The type's search hit the cap; its years were searched, 2020 (still over it) in
        # halves, the years before the ones seen as a date range.
        assert any("lst_tip_norma=1&" in t and "txt_ano=&dt_norma=&" in t for t in searches)
        assert any("txt_ano=2020" in t for t in searches)
        assert any("dt_norma=01%2F01%2F2020&dt_norma2=30%2F06%2F2020" in t for t in searches)
        assert any("dt_norma=01%2F01%2F1000&dt_norma2=31%2F12%2F2019" in t for t in searches)
        assert not problems(corpus)

        # A single day over the cap cannot be split: recorded, the listing incomplete, and so
        # nothing removed (though a norm is gone).
        for cod in range(200_001, 200_002 + CAP):
            camara.norms[cod] = Norma(cod, 2, cod, 2021, date(2021, 12, 30), f"Norma {cod}.")
        camara.delete(1)
        run(corpus, files=False, refresh=True)
    found = [p["message"] for p in problems(corpus)]
    assert any("Lei Complementar from 30/12/2021 to 30/12/2021: 5,000 rows, the most a SAPL "
               "2.5 search returns, on a single day: cannot be split further" in m
               for m in found)
    assert _records(corpus)["1"]["removed_at"] is None
    with corpus.store.engine.connect() as conn:
        assert "incomplete" in conn.scalar(select(source.c.last_error))


def test_a_page_that_changed_shape_removes_nothing(corpus, camara):
    _add(corpus, camara.url + "/sapl")
    run(corpus, files=False)
    assert len(_records(corpus)) == 5
    # The câmara's new portal answers the Lei Ordinária searches with a page of another shape.
    camara.add_fault("changed_shape", r"lst_tip_norma=1&")
    camara.delete(1462)
    report = run(corpus, files=False, refresh=True)
    assert report.cycles_finished == 1
    messages = [p["message"] for p in problems(corpus)]
    assert any(m.startswith("0 items where 2 were expected (Lei Ordinária)") for m in messages)
    # Incomplete: nothing is removed, not even the norm that is really gone.
    assert all(r["removed_at"] is None for r in _records(corpus).values())

    camara.clear_faults()
    run(corpus, files=False, refresh=True)
    norms = _records(corpus)
    assert norms["1462"]["removed_at"] is not None
    assert sum(r["removed_at"] is None for r in norms.values()) == 4


def test_retry_after_is_obeyed_at_any_request(corpus, camara):
    _add(corpus, camara.url + "/sapl")
    camara.add_fault("429", r"RSS2_normas.*lst_tip_norma=2&", times=1, value=1)
    camara.add_fault("429", r"mostrar_proc|_texto_integral", times=1, value=1)
    report = run(corpus)
    assert report.cycles_finished == 1
    assert len(_records(corpus)) == 5 and report.new_versions == 5
    log = camara.requests(path=r"RSS2_normas.*lst_tip_norma=2&")
    assert [r.status for r in log] == [429, 200]
    assert log[1].time - log[0].time >= 0.95  # Retry-After: 1


def test_a_portal_without_rss_is_read_from_its_html_results_and_detail_pages(corpus):
    with _camara() as camara:
        camara.add_fault("no_rss", "RSS2_normas")
        _add(corpus, camara.url + "/sapl")
        report = run(corpus, files=False)
        details = camara.requests(path="mostrar_proc")
    assert report.cycles_finished == 1 and report.errors == 0
    norms = _records(corpus)
    # The results pages give no dates: the detail pages do, for each new norm.
    assert norms["1461"]["date"] == date(2011, 6, 27) and norms["1471"]["year"] == 2014
    assert norms["1461"]["type_raw"] == "Lei Ordinária"
    assert len(details) == 5
    with corpus.store.engine.connect() as conn:
        state = json.loads(conn.scalar(select(source.c.state)))
    assert state["listing"] == "html"
    roles = {(d["native_id"], d["role"]) for d in _documents_of(corpus)}
    assert ("1471", "texto_consolidado") in roles and ("1480", "texto_integral") not in roles


def _documents_of(corpus) -> list[dict]:
    with corpus.store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(
            select(record.c.native_id, document.c.role)
            .join(record, record.c.id == document.c.record_id)).mappings()]


# -- telling SAPL 2.5 from 3.1 ------------------------------------------------------------------


def test_the_probe_finds_the_portal_and_its_types(camara):
    found = asyncio.run(PLATFORM.probe(camara.url, resolver=Resolver({})))
    assert found.platform == "sapl25" and found.base_url == f"{camara.url}/sapl"
    assert found.state["types"]["1"] == "Lei Ordinária"
    assert "sapl25" in platform.REGISTRY and platform.DETECTION_ORDER.index("sapl25") > \
        platform.DETECTION_ORDER.index("sapl")


def test_sapl_31_and_other_sites_are_not_sapl25(tmp_path, camara):
    from locleg.fixtures.sapl_server import Camara, SaplServer

    with SaplServer(Camara.juazeiro(crawl_delay=None)) as sapl31:
        with pytest.raises(NotThisPlatform, match="not a SAPL 2.5 portal"):
            asyncio.run(PLATFORM.probe(sapl31.url, resolver=Resolver({})))
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    # SAPL 3.1's probe, given a 2.5, says which platform to use.
    result = run_cli("sources", "add", "sapl", camara.url + "/sapl", "-j", str(JUAZEIRO),
                     corpus=folder)
    assert result.returncode == 2 and "use `locleg sources add sapl25" in result.stderr


class _Sapl31Redirects(Server):
    """SAPL 3.1's redireciona_urls: old 2.5 URLs answered with a redirect to its own pages."""

    def answer(self, request: Request) -> Response:
        if "norma_juridica_pesquisar_" in request.path:
            return Response(301, headers={"Location": "/norma/pesquisar?tipo=&numero="})
        if request.path == "/norma/pesquisar":
            return Response.html(200, "<h1>Pesquisar Norma Jurídica</h1>")
        return super().answer(request)


def test_a_sapl_31_that_redirects_2_5_urls_is_told_apart():
    with _Sapl31Redirects() as sapl31:
        with pytest.raises(NotThisPlatform, match="a SAPL 3.1, use `locleg sources add sapl"):
            asyncio.run(PLATFORM.probe(sapl31.url, resolver=Resolver({})))


def test_robots_txt_is_read_first_and_obeyed():
    with _camara() as camara:
        camara.robots = "User-agent: *\nDisallow: /sapl/generico/\n"
        with pytest.raises(NotThisPlatform, match="robots.txt does not let br-locleg read"):
            asyncio.run(PLATFORM.probe(camara.url + "/sapl", resolver=Resolver({})))
        assert [r.target for r in camara.requests()] == ["/robots.txt"]


# -- the pages, alone ---------------------------------------------------------------------------


def test_latin1_pages_and_a_feed_that_is_not_well_formed_xml():
    feed = ('\n<?xml version="1.0" encoding="iso-8859-1" ?>\n<rss version="2.0"><channel>'
            "<item><title> Lei Ordinária 12-A/2011 </title><description>Cria o Dia do "
            "Mototaxista & dá outras providências <b>urgente</b></description>"
            "<link>http://x/sapl/consultas/norma_juridica/norma_juridica_mostrar_proc?"
            "cod_norma=0042</link><pubDate>Mon, 27 Jun 2011 00:00:00 -0300</pubDate></item>"
            "</channel></rss>").encode("iso-8859-1")
    (row,) = parse_rss(feed).rows
    assert (row.cod_norma, row.tipo, row.numero, row.ano, row.data) == (
        "42", "Lei Ordinária", "12-A", 2011, date(2011, 6, 27))
    assert row.ementa == "Cria o Dia do Mototaxista & dá outras providências urgente"
    assert row.texto_integral is False  # no enclosure: no file
    page = ("<table><tr><th>Tipo:</th><td>LC - Lei Complementar</td><td><b>Número:</b></td>"
            "<td>45/2012</td></tr><tr><th>Data:</th><td>01/03/2012</td></tr><tr><th>Ementa:"
            "</th><td>Institui o Código.</td></tr></table>"
            '<a href="/sapl/sapl_documentos/norma_juridica/7_texto_consolidado">c</a>'
            ).encode("cp1252")
    detail = parse_detail(page, "7")
    assert (detail.tipo, detail.numero, detail.ano, detail.data, detail.ementa) == (
        "Lei Complementar", "45", 2012, date(2012, 3, 1), "Institui o Código.")
    assert detail.texto_consolidado and not detail.texto_integral


# -- hostile pages (issue 23) ----------------------------------------------------------------------


@pytest.mark.parametrize("fault, value, said", [
    # a page past the 64 MB cap of one answer: that search is lost, the others go on
    ("oversize", 80 * 2**20, "Lei Ordinária could not be read: more than 67,108,864 bytes, "
                             "over the cap; the listing is incomplete, nothing is removed"),
    # cut in the middle of a row, however often asked: the cycle ends there, incomplete
    ("truncated", None, "(gave up after 4 attempt(s); retried next cycle)"),
])
def test_a_huge_or_cut_search_page_is_recorded_and_removes_nothing(corpus, camara, fault, value,
                                                                   said):
    _add(corpus, camara.url + "/sapl")
    run(corpus, files=False)
    assert len(_records(corpus)) == 5
    camara.add_fault(fault, r"RSS2_normas.*lst_tip_norma=1&", value=value)
    camara.delete(1462)
    report = run(corpus, files=False, refresh=True, max_time=300)
    assert report.cycles_finished == 1
    messages = [p["message"] for p in problems(corpus)]
    assert not [m for m in messages if "could not handle" in m or "Traceback" in m]
    assert any(said in m for m in messages), messages
    norms = _records(corpus)
    if fault == "oversize":  # incomplete: nothing removed
        assert norms["1462"]["removed_at"] is None
    camara.clear_faults()
    run(corpus, files=False, refresh=True)
    assert _records(corpus)["1462"]["removed_at"] is not None
