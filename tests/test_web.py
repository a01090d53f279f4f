"""The explorer over HTTP (uvicorn on 127.0.0.1): every page and its JSON twin, field by
field; bad input (400), unknown ids (404), escaping, downloads, read-only, WAL readers."""

from __future__ import annotations

import csv
import io
import json
import os
import threading
import time
from datetime import date

import httpx
import pytest
from sqlalchemy import text

from locleg.corpus import init_corpus
from locleg.search import refresh_index
from locleg.store import utcnow
from locleg.web import data as web_data
from tests.conftest import BACKENDS
from tests.explorer_fixtures import (
    JUAZEIRO,
    SEED_EMENTA,
    SEED_PDF,
    SEED_URL,
    XSS_EMENTA,
    LiveServer,
    build_explorer_corpus,
)
from tests.seed000_text import PAGES

_databases = iter(range(10_000))


@pytest.fixture(scope="module", params=BACKENDS)
def site(request, tmp_path_factory):
    """The explorer corpus served over HTTP, once per backend for this module."""
    url = None
    if request.param == "postgresql":
        server = request.getfixturevalue("pg_server")
        url = server.create_database(f"web{os.getpid()}_{next(_databases)}")
    corpus = init_corpus(tmp_path_factory.mktemp("site") / "corpus", url)
    built = build_explorer_corpus(corpus)
    with LiveServer(corpus) as live, httpx.Client(base_url=live.url, timeout=30) as client:
        built.client = client
        built.live = live
        yield built
    corpus.close()


def get_json(site, path: str, status: int = 200) -> dict:
    response = site.client.get(path)
    assert response.status_code == status, response.text[:500]
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def get_html(site, path: str, status: int = 200) -> str:
    response = site.client.get(path)
    assert response.status_code == status, response.text[:500]
    assert response.headers["content-type"].startswith("text/html")
    return response.text


# -- pages and their JSON twins -------------------------------------------------------------

def test_home(site):
    home = get_json(site, "/index.json")
    assert home == get_json(site, "/.json")
    corpus = home["corpus"]
    assert (corpus["norms"], corpus["documents"], corpus["jurisdictions_covered"],
            corpus["jurisdictions_total"]) == (8, 8, 3, 5597)
    assert corpus["pages"] == 9 + 1 + 2 + 1 + 1 + 1 + 1
    assert corpus["failed"] == 1 and corpus["extracted"] == 7
    ba = next(u for u in home["ufs"] if u["uf"] == "BA")
    assert ba == {"uf": "BA", "name": "Bahia", "municipalities": 417,
                  "municipalities_covered": 1, "norms": 7, "documents": 7, "pages": 15,
                  "extracted": 6}
    assert len(home["ufs"]) == 27
    assert [n["id"] for n in home["latest"]][:1] == [site.norms["state"]]
    assert home["index"] == {"pending": 0}
    html = get_html(site, "/")
    assert "of 5,597 jurisdictions covered" in html and 'href="/uf/BA"' in html
    assert "<svg" in html  # coverage drawn inline


def test_uf_page(site):
    page = get_json(site, "/uf/ba.json")
    assert page["uf"] == {"code": "BA", "name": "Bahia", "ibge_code": 29}
    assert page["totals"]["municipalities"] == 417
    assert page["totals"]["municipalities_covered"] == 1
    juazeiro = next(m for m in page["municipalities"] if m["ibge_code"] == JUAZEIRO)
    assert (juazeiro["norms"], juazeiro["documents"], juazeiro["extracted"],
            juazeiro["failed"]) == (6, 6, 5, 1)
    assert juazeiro["sources"][0]["platform"] == "sapl"
    assert juazeiro["sources"][0]["health"] == "never run"
    assert [n["id"] for n in page["state_norms"]] == [site.norms["state"]]
    assert page["state"]["norms"] == 1
    html = get_html(site, "/uf/BA")
    assert 'href="/jurisdiction/2918407"' in html


def test_jurisdiction_page_with_facets_and_keyset_pages(site, monkeypatch):
    page = get_json(site, f"/jurisdiction/{JUAZEIRO}.json")
    assert page["jurisdiction"]["name"] == "Juazeiro" and page["jurisdiction"]["uf"] == "BA"
    assert page["counts"]["norms"] == 6
    dates = [n["date"] for n in page["norms"]]
    assert dates == sorted(dates, reverse=True)
    facets = {f: {i["value"]: i["count"] for i in items} for f, items in page["facets"].items()}
    assert facets["type"] == {"lei": 5, "decreto": 1}
    assert facets["year"] == {"2013": 1, "2012": 3, "2011": 1, "2008": 1}
    assert facets["method"] == {"ocr": 2, "text": 1, "html": 1, "none": 2}
    assert facets["text"] == {"yes": 4, "no": 2}
    assert page["facets_exact"] is True
    lei = next(i for i in page["facets"]["type"] if i["value"] == "lei")
    assert lei["toggle_url"] == f"/jurisdiction/{JUAZEIRO}?type=lei" and not lei["selected"]
    filtered = get_json(site, lei["toggle_url"].replace("?", ".json?"))
    assert len(filtered["norms"]) == 5 and all(n["type"] == "lei" for n in filtered["norms"])
    assert {i["value"]: i["count"] for i in filtered["facets"]["type"]} == {"lei": 5}
    assert filtered["facets"]["type"][0]["selected"] is True
    assert filtered["facets"]["type"][0]["toggle_url"] == f"/jurisdiction/{JUAZEIRO}"
    both = get_json(site, f"/jurisdiction/{JUAZEIRO}.json?type=lei&year=2012&text=no")
    assert [n["id"] for n in both["norms"]] == [site.norms["bare"], site.norms["failed"]]
    ocr = get_json(site, f"/jurisdiction/{JUAZEIRO}.json?method=ocr")
    assert {n["id"] for n in ocr["norms"]} == {site.norms["seed"], site.norms["revoked"]}
    # Keyset pages: two at a time, every norm once, newest first.
    monkeypatch.setattr(web_data, "LIST_PAGE", 2)
    seen, path = [], f"/jurisdiction/{JUAZEIRO}.json"
    while path:
        chunk = get_json(site, path)
        seen += [n["id"] for n in chunk["norms"]]
        path = chunk["next"] and chunk["next"].replace("?", ".json?", 1)
    assert seen == [n["id"] for n in page["norms"]]


def test_norm_page_shows_everything_seed_000_showed(site):
    page = get_json(site, f"/norm/{site.norms['seed']}.json")
    norm = page["norm"]
    assert {k: norm[k] for k in ("type_raw", "type", "number", "year", "date", "ementa",
                                 "native_id", "url")} == {
        "type_raw": "Legislação Municipal", "type": "lei", "number": "2199", "year": 2011,
        "date": "2011-06-27", "ementa": SEED_EMENTA, "native_id": "1461",
        "url": "https://sapl.juazeiro.ba.leg.br/norma/1461"}
    assert norm["urn"] == "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199"
    assert norm["jurisdiction"] == {"ibge_code": JUAZEIRO, "name": "Juazeiro", "uf": "BA",
                                    "level": "municipal"}
    assert norm["source"]["base_url"] == "https://sapl.juazeiro.ba.leg.br"
    [doc] = page["documents"]
    assert doc["role"] == "texto_integral" and doc["url"] == SEED_URL
    extraction = doc["extraction"]
    assert (extraction["status"], extraction["method"], extraction["backend"],
            extraction["confidence"], extraction["pages"]) == ("extracted", "ocr", "tesseract",
                                                               0.94, 9)
    assert [p["number"] for p in doc["pages"]] == list(range(1, 10))
    assert [p["text"] for p in doc["pages"]] == PAGES
    assert doc["versions"][0]["sha256"] == site.sha256["seed"]
    assert doc["versions"][0]["media_type"] == "application/pdf"
    assert page["relations"] == [{
        "direction": "active", "kind": "R", "label": "Revoga integralmente o(a)",
        "norm_id": site.norms["revoked"], "native_id": "1200", "type_raw": "Lei Ordinária",
        "number": "1996", "year": 2008,
        "ementa": "Regulamenta o transporte de passageiros em motocicletas no Município.",
        "resumo": None}]
    html = get_html(site, f"/norm/{site.norms['seed']}")
    for shown in ("← Juazeiro (BA)", "Legislação Municipal", "2199 / 2011", "2011-06-27",
                  "native_id", "1461", "Documents (1)", "texto integral", "status:",
                  "extracted", "method: <b>ocr</b>", "backend: <b>tesseract</b>",
                  "confidence: <b>0.94</b>", "pages: <b>9</b>", "open original →",
                  "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199",
                  "Revoga integralmente o(a)", f'href="/norm/{site.norms["revoked"]}"'):
        assert shown in html, shown
    doc_id = doc["id"]
    for n in range(1, 10):
        assert f'id="d{doc_id}-p{n}"' in html  # a stable anchor per page
    assert "Art. 33. Esta Lei entra em vigor na data de sua publicação." in html
    revoked = get_json(site, f"/norm/{site.norms['revoked']}.json")
    assert revoked["relations"][0]["direction"] == "passive"
    assert revoked["relations"][0]["label"] == "Revogado(a) integralmente pelo(a)"
    assert revoked["relations"][0]["norm_id"] == site.norms["seed"]


def test_norm_page_without_the_relation_table(site, monkeypatch):
    from sqlalchemy import MetaData

    monkeypatch.setattr(web_data, "metadata", MetaData())
    page = get_json(site, f"/norm/{site.norms['seed']}.json")
    assert page["relations"] == []
    assert "Related norms" not in get_html(site, f"/norm/{site.norms['seed']}")


def test_document_page_and_downloads(site):
    doc_id = site.documents["seed"]
    page = get_json(site, f"/document/{doc_id}.json")
    assert page["norm"]["id"] == site.norms["seed"]
    assert page["document"]["extraction"]["backend_version"] == "5.3.0"
    assert [p["number"] for p in page["document"]["pages"]] == list(range(1, 10))
    assert page["next_page_after"] is None
    later = get_json(site, f"/document/{doc_id}.json?after=7")
    assert [p["number"] for p in later["document"]["pages"]] == [8, 9]
    html = get_html(site, f"/document/{doc_id}")
    assert "Extraction record" in html and f'href="/document/{doc_id}/original"' in html
    original = site.client.get(f"/document/{doc_id}/original")
    assert original.status_code == 200 and original.content == SEED_PDF
    assert original.headers["content-type"] == "application/pdf"
    version = site.client.get(f"/version/{site.versions['seed']}/original")
    assert version.content == SEED_PDF
    # An archived HTML page is handed over as a sandboxed file, never run as ours.
    html_original = site.client.get(f"/document/{site.documents['xss']}/original")
    assert html_original.headers["content-type"].startswith("text/html")
    assert html_original.headers["content-disposition"].startswith("attachment")
    assert "sandbox" in html_original.headers["content-security-policy"]


def test_search_page_and_json_twin(site):
    result = get_json(site, "/search.json?q=moto+taxi")
    assert result["total"] == 3 and result["total_exact"] and result["within"] is None
    top = result["results"][0]
    assert top["norm_id"] == site.norms["seed"] and top["url"] == f"/norm/{site.norms['seed']}"
    assert top["jurisdiction"] == {"ibge_code": JUAZEIRO, "name": "Juazeiro", "uf": "BA"}
    assert "<mark>MOTO</mark>" in top["ementa_html"]
    assert "<mark>moto</mark>-<mark>táxi</mark>" in top["snippet_html"]
    uf = {i["value"]: i for i in result["facets"]["uf"]}
    assert uf["BA"]["count"] == 3 and uf["BA"]["toggle_url"] == "/search?q=moto+taxi&uf=BA"
    same = site.client.get("/search?q=moto+taxi", headers={"Accept": "application/json"})
    assert same.json()["total"] == 3
    html = get_html(site, "/search?q=moto-t%C3%A1xi&uf=BA")
    assert "4</b> norms match" in html and "<mark>" in html
    both = get_json(site, "/search.json?q=moto-t%C3%A1xi&uf=BA&uf=PE&sort=date&limit=2")
    assert both["total"] == 5 and len(both["results"]) == 2 and both["next"]
    rest = get_json(site, both["next"].replace("/search?", "/search.json?"))
    assert len(rest["results"]) == 2
    assert get_json(site, "/search.json")["empty"] is True


def test_export_streams_every_match(site):
    response = site.client.get("/search.csv?q=mototáxi")
    assert response.status_code == 200 and response.headers["content-type"].startswith(
        "text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == 5 and {r["uf"] for r in rows} == {"BA", "PE"}
    lines = site.client.get("/search.jsonl?q=mototáxi&uf=PE").text.splitlines()
    assert [json.loads(line)["jurisdiction"] for line in lines] == ["Petrolina"]


def test_quality_and_sources(site):
    quality = get_json(site, "/quality.json")
    assert quality["status"] == {"pending": 0, "extracted": 7, "empty": 0, "failed": 1}
    buckets = {b["from"]: b["count"] for b in quality["ocr_confidence"]}
    assert buckets[0.9] == 1 and buckets[0.4] == 1 and sum(buckets.values()) == 2
    [failure] = quality["failures"]
    assert failure["norm_id"] == site.norms["failed"]
    assert failure["error"] == "the PDF is encrypted and cannot be read"
    assert {"locleg extract", "locleg extract --force"} <= {
        c["command"] for c in quality["commands"]}
    here = get_json(site, "/quality.json?j=2611101")
    assert here["failures"] == [] and here["scope"]["name"] == "Petrolina (PE)"
    assert "locleg extract --force --jurisdiction 2611101" in get_html(site, "/quality?j=2611101")
    sources = get_json(site, "/sources.json")
    assert len(sources["sources"]) == 3 and sources["health"] == {"never run": 3}
    assert "<table" in get_html(site, "/sources")


def test_api_page_lists_every_route(site):
    page = get_json(site, "/api.json")
    paths = {r["path"] for r in page["routes"]}
    assert {"/", "/uf/{uf}", "/jurisdiction/{code}", "/norm/{norm_id}",
            "/document/{document_id}", "/search", "/search.csv", "/quality",
            "/sources"} <= paths
    assert site.client.get("/openapi.json").json()["info"]["title"] == "br-locleg explorer API"


# -- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("query", ['"moto taxi', "AND", "moto OR", "NOT moto", "(moto",
                                   "moto ^", "*", "ta*xi", "{ }", "moto ^ :", ")"])
def test_malformed_queries_get_a_400_page(site, query):
    response = site.client.get("/search", params={"q": query})
    assert response.status_code == 400
    assert "This request cannot be answered" in response.text
    twin = site.client.get("/search.json", params={"q": query})
    assert twin.status_code == 400 and twin.json()["error"]["status"] == 400
    assert twin.json()["error"]["message"]


@pytest.mark.parametrize("path", [
    "/search?q=moto&uf=ZZ", "/search?q=moto&year_from=abc", "/search?q=moto&after=zzz",
    "/search.csv?q=%22x", f"/jurisdiction/{JUAZEIRO}?after=bad",
    f"/jurisdiction/{JUAZEIRO}?type=lei%27--", "/quality?after=x", "/document/1?after=-1",
])
def test_bad_parameters_get_a_400_page(site, path):
    assert site.client.get(path).status_code == 400


@pytest.mark.parametrize("path", [
    "/norm/999999", "/norm/abc", "/norm/-1", "/document/999999", "/document/1.5",
    "/jurisdiction/1234567", "/jurisdiction/juazeiro", "/uf/XX", "/version/999999/original",
    "/document/999999/original", "/quality?j=99", "/no/such/page", "/norm/1/../../etc/passwd",
    "/document/%2e%2e%2f%2e%2e%2fetc%2fpasswd/original", "/version/..%2F..%2Flocleg.toml/original",
])
def test_unknown_ids_get_a_404_page(site, path):
    response = site.client.get(path)
    assert response.status_code == 404
    assert "Not found" in response.text
    assert "root:" not in response.text and "database" not in response.text


def test_no_route_writes(site):
    for path in ("/", "/search", f"/norm/{site.norms['seed']}"):
        assert site.client.post(path).status_code == 405
        assert site.client.delete(path).status_code == 405
    # The connections requests read through refuse writes, whatever a bug might try.
    with pytest.raises(Exception, match="(?i)read.only|readonly"), \
            site.live.app.state.store.engine.begin() as conn:
        conn.execute(text("DELETE FROM problem"))


def test_scripts_in_ementas_and_texts_are_shown_as_text(site):
    norm_id = site.norms["xss"]
    for path in (f"/norm/{norm_id}", f"/document/{site.documents['xss']}",
                 f"/jurisdiction/{JUAZEIRO}", "/", "/search?q=alert",
                 "/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E+rua"):
        html = get_html(site, path)
        assert "<script>" not in html and "<img src=x" not in html, path
    html = get_html(site, f"/norm/{norm_id}")
    assert "&lt;script&gt;alert(&#39;ementa&#39;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(&#39;texto&#39;)&gt;" in html
    assert get_json(site, f"/norm/{norm_id}.json")["norm"]["ementa"] == XSS_EMENTA
    assert "script-src 'self'" in site.client.get("/").headers["content-security-policy"]


def test_wal_readers_see_no_error_while_a_writer_writes(corpus):
    build_explorer_corpus(corpus)
    store = corpus.store
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    stop = time.monotonic() + 3
    failures: list[str] = []
    with LiveServer(corpus) as live:

        def read() -> None:
            with httpx.Client(base_url=live.url, timeout=30) as client:
                while time.monotonic() < stop:
                    for path in ("/", f"/jurisdiction/{JUAZEIRO}.json", "/search.json?q=lei",
                                 "/norm/1"):
                        response = client.get(path)
                        if response.status_code != 200:
                            failures.append(f"{path}: {response.status_code}")

        readers = [threading.Thread(target=read) for _ in range(3)]
        for t in readers:
            t.start()
        written = 0
        while time.monotonic() < stop:  # a harvest writes in small transactions meanwhile
            with store.transaction() as conn:
                store.upsert_norms(conn, sapl, [{
                    "native_id": f"wal-{written}", "jurisdiction_code": JUAZEIRO,
                    "type_raw": "Lei", "type_normalized": "lei", "number": f"9{written}",
                    "year": 2024, "date": date(2024, 1, 1), "ementa": f"Lei de teste {written}",
                    "url": None}], utcnow())
            refresh_index(store)
            written += 1
        for t in readers:
            t.join()
        assert written > 3 and failures == []
        with httpx.Client(base_url=live.url) as client:
            page = client.get(f"/jurisdiction/{JUAZEIRO}.json").json()
        assert page["counts"]["norms"] == 6 + written


def test_docs_describe_every_route_and_field(site):
    """docs/api.md names every route the app serves and every top-level field it answers."""
    import re
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "api.md").read_text(encoding="utf-8")
    documented = {re.sub(r"\{\w+\}", "{}", p) for p in re.findall(r"`GET (/[^` ]*)`", doc)}
    served = {re.sub(r"\{\w+\}", "{}", r["path"]) for r in get_json(site, "/api.json")["routes"]}
    assert served - documented == set()
    for path in ("/index.json", "/uf/BA.json", f"/jurisdiction/{JUAZEIRO}.json",
                 f"/norm/{site.norms['seed']}.json", f"/document/{site.documents['seed']}.json",
                 "/search.json?q=moto", "/quality.json", "/sources.json", "/api.json"):
        for key in get_json(site, path):
            assert f'"{key}"' in doc, f"{path}: {key} is not in docs/api.md"


def test_serve_command_serves_the_corpus(tmp_path):
    import socket
    import subprocess
    import sys

    corpus = init_corpus(tmp_path / "corpus")
    build_explorer_corpus(corpus, refresh=False)  # `serve` indexes what is pending first
    corpus.close()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "LOCLEG_CORPUS": str(tmp_path / "corpus")}
    server = subprocess.Popen([sys.executable, "-m", "locleg", "serve", "--port", str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/search.json?q=moto+taxi")
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.1)
        assert response.status_code == 200 and response.json()["total"] == 3
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=30)
    assert f"http://localhost:{port}/" in out
