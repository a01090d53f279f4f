"""The explorer over HTTP (uvicorn on 127.0.0.1): every page and its JSON twin, field by
field; bad input (400), unknown ids (404), escaping, downloads, read-only, WAL readers."""

from __future__ import annotations

import csv
import io
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from datetime import date
from urllib.parse import quote

import httpx
import pytest
from fastapi import Request
from markupsafe import escape
from sqlalchemy import text

from locleg.corpus import init_corpus
from locleg.search import Budget, SearchCancelled, SearchTooCostly, refresh_index
from locleg.store import utcnow
from locleg.web import data as web_data
from locleg.web.client import run_for
from locleg.web.data import jurisdiction as web_jurisdiction
from locleg.web.data import norms as web_norms
from locleg.web.views.documents import served_type
from tests.conftest import BACKENDS, module_corpus
from tests.explorer_fixtures import (
    ALTERS_SENTENCE,
    BIG_TEXT_WORD,
    FORMULAS,
    IMPORT_FOLDER,
    JUAZEIRO,
    SEED_EMENTA,
    SEED_PDF,
    SEED_URL,
    SEED_URN,
    XSS_CITATION,
    XSS_DOCUMENT_URL,
    XSS_EMENTA,
    XSS_HTML,
    XSS_NORM_URL,
    LiveServer,
    add_formula_norm,
    build_big_text_corpus,
    build_explorer_corpus,
)
from tests.s3server import wait_for
from tests.seed000_text import PAGES

# These tests read the pages in English, the catalogue's source strings;
# tests/test_web_i18n.py reads them in pt-BR, the default.
ENGLISH = {"Accept-Language": "en"}


@pytest.fixture(scope="module", params=BACKENDS)
def site(request, tmp_path_factory):
    """The explorer corpus served over HTTP, once per backend for this module."""
    corpus, url = module_corpus(request, tmp_path_factory, "site")
    built = build_explorer_corpus(corpus, legal_life=True)
    with LiveServer(corpus) as live, httpx.Client(base_url=live.url, timeout=30,
                                                  headers=ENGLISH) as client:
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
            corpus["jurisdictions_total"]) == (12, 12, 3, 5597)
    # Seed 000's two records are one norm: its folder record adds a document, not a norm.
    assert corpus["pages"] == 9 + 1 + 2 + 1 + 1 + 1 + 1 + 4
    assert corpus["failed"] == 1 and corpus["extracted"] == 11
    ba = next(u for u in home["ufs"] if u["uf"] == "BA")
    assert ba == {"uf": "BA", "name": "Bahia", "municipalities": 417,
                  "municipalities_covered": 1, "norms": 11, "documents": 11, "pages": 19,
                  "extracted": 10}
    assert len(home["ufs"]) == 27
    # The newest by the norm's own date (Petrolina's 2018 law first), not the last added;
    # the ten newest leave out the state's 2010 law and the 2008 one.
    latest = {n["id"]: n["status"] for n in home["latest"]}
    assert list(latest)[:3] == [site.norms["petrolina"], site.norms["decree201"],
                                site.norms["decree200"]]
    assert [n["date"] for n in home["latest"]] == sorted(
        (n["date"] for n in home["latest"]), reverse=True)
    assert len(latest) == 10 and site.norms["state"] not in latest
    assert site.norms["merged"] not in latest  # a norm merged away is listed nowhere
    assert latest[site.norms["decree201"]] == "revoked"
    assert latest[site.norms["decree"]] == "revoked_in_part"
    assert latest[site.norms["seed"]] == "altered"
    assert home["index"] == {"pending": 0}
    html = get_html(site, "/")
    assert "places covered, of 5,597" in html and 'href="/uf/BA"' in html
    assert "<svg" in html  # coverage drawn inline


def test_uf_page(site):
    page = get_json(site, "/uf/ba.json")
    assert page["uf"] == {"code": "BA", "name": "Bahia", "ibge_code": 29}
    assert page["totals"]["municipalities"] == 417
    assert page["totals"]["municipalities_covered"] == 1
    juazeiro = next(m for m in page["municipalities"] if m["ibge_code"] == JUAZEIRO)
    assert (juazeiro["norms"], juazeiro["documents"], juazeiro["extracted"],
            juazeiro["failed"]) == (10, 10, 9, 1)
    assert juazeiro["sources"][0]["platform"] == "sapl"
    assert juazeiro["sources"][0]["health"] == "never run"
    assert [(n["id"], n["status"]) for n in page["state_norms"]] == [
        (site.norms["state"], "none_known")]
    assert page["state"]["norms"] == 1
    html = get_html(site, "/uf/BA")
    assert 'href="/jurisdiction/2918407"' in html


def test_jurisdiction_page_with_facets_and_keyset_pages(site, monkeypatch):
    page = get_json(site, f"/jurisdiction/{JUAZEIRO}.json")
    assert page["jurisdiction"]["name"] == "Juazeiro" and page["jurisdiction"]["uf"] == "BA"
    assert page["counts"]["norms"] == 10
    dates = [n["date"] for n in page["norms"]]
    assert dates == sorted(dates, reverse=True)
    facets = {f: {i["value"]: i["count"] for i in items} for f, items in page["facets"].items()}
    assert facets["type"] == {"lei": 6, "decreto": 3, "resolucao": 1}
    assert facets["year"] == {"2015": 2, "2014": 1, "2013": 2, "2012": 3, "2011": 1, "2008": 1}
    assert facets["method"] == {"ocr": 3, "text": 3, "html": 2, "none": 3}
    assert facets["text"] == {"yes": 7, "no": 3}
    assert page["facets_exact"] is True
    lei = next(i for i in page["facets"]["type"] if i["value"] == "lei")
    assert lei["toggle_url"] == f"/jurisdiction/{JUAZEIRO}?type=lei" and not lei["selected"]
    filtered = get_json(site, lei["toggle_url"].replace("?", ".json?"))
    assert len(filtered["norms"]) == 6 and all(n["type"] == "lei" for n in filtered["norms"])
    assert {i["value"]: i["count"] for i in filtered["facets"]["type"]} == {"lei": 6}
    assert filtered["facets"]["type"][0]["selected"] is True
    assert filtered["facets"]["type"][0]["toggle_url"] == f"/jurisdiction/{JUAZEIRO}"
    both = get_json(site, f"/jurisdiction/{JUAZEIRO}.json?type=lei&year=2012&text=no")
    assert [n["id"] for n in both["norms"]] == [site.norms["bare"], site.norms["failed"]]
    ocr = get_json(site, f"/jurisdiction/{JUAZEIRO}.json?method=ocr")
    assert {n["id"] for n in ocr["norms"]} == {site.norms["seed"], site.norms["revoked"],
                                             site.norms["altering"]}
    # Keyset pages: two at a time, every norm once, newest first.
    monkeypatch.setattr(web_jurisdiction, "LIST_PAGE", 2)
    seen, path = [], f"/jurisdiction/{JUAZEIRO}.json"
    while path:
        chunk = get_json(site, path)
        seen += [n["id"] for n in chunk["norms"]]
        path = chunk["next"]  # a JSON answer links its JSON pages
    assert seen == [n["id"] for n in page["norms"]]


def test_norm_page_shows_everything_seed_000_showed(site):
    page = get_json(site, f"/norm/{site.norms['seed']}.json")
    norm = page["norm"]
    assert {k: norm[k] for k in ("type_raw", "type", "number", "year", "date", "ementa")} == {
        "type_raw": "Legislação Municipal", "type": "lei", "number": "2199", "year": 2011,
        "date": "2011-06-27", "ementa": SEED_EMENTA}
    assert norm["urn"] == "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199"
    assert norm["jurisdiction"] == {"ibge_code": JUAZEIRO, "name": "Juazeiro", "uf": "BA",
                                    "level": "municipal"}
    # Its record at the câmara's SAPL, where every field above comes from, and its record in
    # a LAI dump (typed "Norma Jurídica", dated by publication), which its heading joined.
    rec, dump = page["records"]
    assert (rec["native_id"], rec["url"]) == ("1461", "https://sapl.juazeiro.ba.leg.br/norma/1461")
    assert rec["source"]["base_url"] == "https://sapl.juazeiro.ba.leg.br"
    assert (dump["id"], dump["native_id"], dump["source"]["platform"]) == (
        site.records["seed_dump"], "leis/lei_2199_2011.html", "folder")
    assert dump["source"]["base_url"] is None  # a folder's own path is never shown
    assert norm["records"] == 2
    assert norm["provenance"] == {f: {"record": rec["id"]} for f in (
        "type_raw", "type_normalized", "number", "year", "date", "ementa")}
    assert norm["conflicts"] == {
        "type_raw": [{"record": rec["id"], "value": "Legislação Municipal"},
                     {"record": dump["id"], "value": "Norma Jurídica"}],
        "date": [{"record": rec["id"], "value": "2011-06-27"},
                 {"record": dump["id"], "value": "2011-07-01"}]}
    assert dump["heading"] == {"type": "lei", "number": "2199", "year": 2011,
                               "date": "2011-06-27"}
    assert [(d["field"], d["heading"], d["source"], d["ocr_misreading"])
            for d in dump["heading_disagreement"]] == [
        ("date", "2011-06-27", "2011-07-01", False)]
    doc, dump_doc = page["documents"]
    assert (dump_doc["record_id"], dump_doc["url"]) == (dump["id"], "file:leis/lei_2199_2011.html")
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
    for shown in ("← Juazeiro (BA)", "Legislação Municipal", "2199 / 2011", "Jun 27, 2011",
                  "<code>1461</code>", "Records (2)", "Documents (2)", "texto integral", "status:",
                  "extracted", "method: <b>ocr</b>", "backend: <b>tesseract</b>",
                  "confidence: <b>0.94</b>", "pages: <b>9</b>", "open original →",
                  "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199",
                  "Revoga integralmente o(a)", f'href="/norm/{site.norms["revoked"]}"',
                  f"from record {rec['id']} (sapl)",
                  f"The records disagree: <q>Legislação Municipal</q> (record {rec['id']}), "
                  f"<q>Norma Jurídica</q> (record {dump['id']})",
                  "the heading says date <q>Jun 27, 2011</q>, the source <q>Jul 1, 2011</q>"):
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

    monkeypatch.setattr(web_norms, "metadata", MetaData())
    page = get_json(site, f"/norm/{site.norms['seed']}.json")
    assert page["relations"] == []
    assert "Related norms" not in get_html(site, f"/norm/{site.norms['seed']}")


def test_document_page_and_downloads(site):
    doc_id = site.documents["seed"]
    page = get_json(site, f"/document/{doc_id}.json")
    assert page["norm"]["id"] == site.norms["seed"]
    assert page["document"]["extraction"]["backend_version"] == "5.3.0"
    assert [p["number"] for p in page["document"]["pages"]] == list(range(1, 10))
    assert page["next_after"] is None and page["next"] is None
    later = get_json(site, f"/document/{doc_id}.json?after=7")
    assert [p["number"] for p in later["document"]["pages"]] == [8, 9]
    html = get_html(site, f"/document/{doc_id}")
    assert "Extraction record" in html and f'href="/document/{doc_id}/original"' in html
    original = site.client.get(f"/document/{doc_id}/original")
    assert original.status_code == 200 and original.content == SEED_PDF
    assert original.headers["content-type"] == "application/pdf"
    version = site.client.get(f"/version/{site.versions['seed']}/original")
    assert version.content == SEED_PDF



def test_search_page_and_json_twin(site):
    result = get_json(site, "/search.json?q=moto+taxi")
    # Seed 000, the decree and the state's law write "moto-táxi"; Petrolina and the revoked
    # law write it joined, which two words typed apart also find.
    assert result["total"] == 5 and result["total_exact"] and result["within"] is None
    top = result["results"][0]
    assert top["id"] == site.norms["seed"] and top["url"] == f"/norm/{site.norms['seed']}"
    assert top["jurisdiction"] == {"ibge_code": JUAZEIRO, "name": "Juazeiro", "uf": "BA"}
    assert "<mark>MOTO</mark>" in top["ementa_html"]
    assert "<mark>moto</mark>-<mark>táxi</mark>" in top["snippet_html"]
    uf = {i["value"]: i for i in result["facets"]["uf"]}
    assert uf["BA"]["count"] == 4 and uf["BA"]["toggle_url"] == "/search?q=moto+taxi&uf=BA"
    same = site.client.get("/search?q=moto+taxi", headers={"Accept": "application/json"})
    assert same.json()["total"] == 5
    html = get_html(site, "/search?q=moto-t%C3%A1xi&uf=BA")
    assert "4</b> norms match" in html and "<mark>" in html
    both = get_json(site, "/search.json?q=moto-t%C3%A1xi&uf=BA&uf=PE&sort=date&limit=2")
    assert both["total"] == 5 and len(both["results"]) == 2 and both["next"]
    assert both["next"].startswith("/search.json?") and both["next_after"]
    rest = get_json(site, both["next"])
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
    # Each row names its documents, how their text was read, its status and URN.
    seed = next(r for r in rows if r["norm_id"] == str(site.norms["seed"]))
    assert seed["document_urls"].split(" | ") == [SEED_URL, "file:leis/lei_2199_2011.html"]
    assert (seed["methods"], seed["confidence"]) == ("ocr | html", "0.94")
    assert (seed["status"], seed["urn"]) == ("altered", SEED_URN)
    decree = json.loads(site.client.get(f"/search.jsonl?q=decreto+100&j={JUAZEIRO}").text
                        .splitlines()[0])
    assert decree["norm_id"] == site.norms["decree"]
    assert decree["document_urls"] == ["https://sapl.juazeiro.ba.leg.br/100.pdf",
                                       "https://sapl.juazeiro.ba.leg.br/100-anexo.pdf"]
    assert decree["methods"] == ["text"] and decree["confidence"] is None
    assert decree["status"] == "revoked_in_part"


def test_quality_and_sources(site):
    quality = get_json(site, "/quality.json")
    assert quality["status"] == {"pending": 0, "extracted": 11, "empty": 0, "failed": 1}
    buckets = {b["from"]: b["count"] for b in quality["ocr_confidence"]}
    assert buckets[0.9] == buckets[0.8] == buckets[0.4] == 1 and sum(buckets.values()) == 3
    [failure] = quality["failures"]
    assert failure["norm_id"] == site.norms["failed"]
    assert failure["error"] == "the PDF is encrypted and cannot be read"
    assert {"locleg extract", "locleg extract --force"} <= {
        c["command"] for c in quality["commands"]}
    here = get_json(site, "/quality.json?j=2611101")
    assert here["failures"] == [] and here["scope"]["name"] == "Petrolina (PE)"
    # An operator's commands are in the JSON and the CLI's docs, not on the public page.
    assert "locleg extract" not in get_html(site, "/quality?j=2611101")
    sources = get_json(site, "/sources.json")
    assert len(sources["sources"]) == 4 and sources["health"] == {"never run": 4}
    assert 'class="plain source-list"' in get_html(site, "/sources")


def test_api_page_lists_every_route(site):
    page = get_json(site, "/api.json")
    paths = {r["path"] for r in page["routes"]}
    assert {"/", "/uf/{uf}", "/jurisdiction/{code}", "/norm/{norm_id}",
            "/document/{document_id}", "/search", "/search.csv", "/quality",
            "/sources"} <= paths
    assert site.client.get("/openapi.json").json()["info"]["title"] == "br-locleg explorer API"


# -- a norm's legal life: status, citations, the graph, URNs (issue 9) ----------------------


def test_norm_page_shows_the_legal_status_with_its_evidence(site):
    revoked = get_json(site, f"/norm/{site.norms['revoked']}.json")["norm"]
    assert revoked["status"] == "revoked" and revoked["status_evidence_total"] == 1
    # Seed 000's Art. 31 revokes "as disposições em contrário, especialmente as contidas na Lei
    # Municipal nº 1.996": the contrary provisions only, no evidence that the law was revoked
    # (issue 21); SAPL's vínculo says it was, wholly.
    [sapl] = revoked["status_evidence"]
    assert (sapl["via"], sapl["kind"], sapl["label"], sapl["by_norm"]["id"]) == (
        "sapl", "R", "Revogado(a) integralmente pelo(a)", site.norms["seed"])
    html = get_html(site, f"/norm/{site.norms['revoked']}")
    assert 'class="badge legal legal-revoked"' in html and "Revoked by" in html
    assert "SAPL vínculo: <q>Revogado(a) integralmente pelo(a)</q>" in html
    # Lei 1.169/2014 alters seed 000; a decree loses an article; silence is said honestly.
    seed = get_json(site, f"/norm/{site.norms['seed']}.json")["norm"]
    assert seed["status"] == "altered"
    assert {(e["kind"], e["by_norm"]["id"]) for e in seed["status_evidence"]} == {
        ("alters", site.norms["altering"])}
    assert "passa a vigorar com a seguinte redação" in seed["status_evidence"][-1]["sentence"]
    decree = get_json(site, f"/norm/{site.norms['decree']}.json")["norm"]
    assert decree["status"] == "revoked_in_part"
    assert decree["status_evidence"][0]["by_norm"]["id"] == site.norms["decree200"]
    quiet = get_json(site, f"/norm/{site.norms['petrolina']}.json")["norm"]
    assert (quiet["status"], quiet["status_evidence"]) == ("none_known", [])
    html = get_html(site, f"/norm/{site.norms['petrolina']}")
    assert "Legal status: <span" in html and ">no revocation known</span>" in html
    assert "That is not proof that it is in force" in html
    for norm_id in site.norms.values():
        page = site.client.get(f"/norm/{norm_id}", follow_redirects=True).text
        assert "em vigor" not in page.lower().replace("entra em vigor", "")
        assert ">in force<" not in page


def test_norm_page_lists_what_it_cites_and_what_cites_it(site):
    page = get_json(site, f"/norm/{site.norms['seed']}.json")
    cites = page["citations"]
    assert (cites["total"], cites["shown"], cites["more"]) == (5, 5, None)
    assert cites["all"] == f"/citations.json?from={site.norms['seed']}"
    organica, federal, lrf, revoked = cites["groups"]
    # Not resolvable to a norm: the text as written.
    assert (organica["norm"], organica["urn"], organica["text"]) == (
        None, None, "Lei Orgânica do Município")
    # Federal Lei 12.009/2009, cited twice (art. 39-B on p. 1, and p. 3): one group, its URN.
    assert federal["norm"] is None
    assert federal["urn"] == "urn:lex:br:federal:lei:2009-07-29;12009"
    assert federal["lexml_url"] == ("https://www.lexml.gov.br/urn/"
                                    "urn:lex:br:federal:lei:2009-07-29;12009")
    assert [(c["page"], c["fragment"]) for c in federal["citations"]] == [(1, "art39-B"),
                                                                         (3, None)]
    assert lrf["urn"] == "urn:lex:br:federal:lei.complementar:2000-05-04;101"
    assert "known_law" in lrf["citations"][0]["flags"]
    # Lei 1.996/2008, resolved to the corpus norm; its contrary provisions revoked (issue 21).
    assert revoked["norm"]["id"] == site.norms["revoked"]
    assert revoked["norm"]["status"] == "revoked" and revoked["kinds"] == ["cites"]
    [act] = revoked["citations"]
    assert (act["kind"], act["page"]) == ("cites", 9)
    assert "contrary_provisions" in act["flags"]
    assert act["at"] == f"/norm/{site.norms['seed']}#d{site.documents['seed']}-p9"
    cited = page["cited_by"]
    assert (cited["total"], cited["norms"], cited["shown"]) == (2, 1, 2)
    [group] = cited["groups"]
    assert group["norm"]["id"] == site.norms["altering"] and group["kinds"] == ["alters"]
    assert [c["fragment"] for c in group["citations"]] == [None, "art10"]
    assert group["citations"][1]["sentence"] == ALTERS_SENTENCE
    html = get_html(site, f"/norm/{site.norms['seed']}")
    for shown in ("Cites", "5 citations", "Cited by", "1 norm whose texts cite it",
                  f'<a href="/norm/{site.norms["revoked"]}">Lei nº 1996/2008</a>',
                  f'<a href="/norm/{site.norms["altering"]}">Lei nº 1169/2014</a>',
                  '<code class="urn">urn:lex:br:federal:lei:2009-07-29;12009</code>',
                  'href="https://www.lexml.gov.br/urn/urn:lex:br:federal:lei:2009-07-29;12009"',
                  "<q>Lei Orgânica do Município</q>", ALTERS_SENTENCE):
        assert shown in html, shown
    assert "No text in the corpus cites it." in get_html(site, f"/norm/{site.norms['state']}")


def test_a_norm_page_bounds_its_citations_and_says_how_many(site, monkeypatch):
    from locleg.web import citations as web_citations

    monkeypatch.setattr(web_citations, "CITATIONS_SHOWN", 2)
    monkeypatch.setattr(web_citations, "CITED_BY_SHOWN", 1)
    page = get_json(site, f"/norm/{site.norms['seed']}.json")
    cites, cited = page["citations"], page["cited_by"]
    assert (cites["total"], cites["shown"]) == (5, 2)
    assert sum(len(g["citations"]) for g in cites["groups"]) == 2
    assert (cited["total"], cited["shown"]) == (2, 1)
    # "more" goes on in /citations exactly where the page stopped.
    rest = get_json(site, cites["more"])
    shown = [c["id"] for g in cites["groups"] for c in g["citations"]]
    everything = get_json(site, cites["all"])
    assert shown + [c["id"] for c in rest["citations"]] == [
        c["id"] for c in everything["citations"]]
    assert everything["total"] == 5
    html = get_html(site, f"/norm/{site.norms['seed']}")
    assert "The first 2 of 5 citations." in html and "The first 1 of 2 citations." in html


def _pull(site, path: str) -> list[dict]:
    """Every edge a /citations.json address gives, following `next`."""
    edges = []
    while path:
        page = get_json(site, path)
        edges += page["citations"]
        path = page["next"]
    return edges


def test_the_citation_graph_as_data(site, monkeypatch):
    edges = _pull(site, "/citations.json")
    assert len(edges) == 12 and [e["id"] for e in edges] == sorted(e["id"] for e in edges)
    pairs = {(e["from"]["id"], e["to"] and e["to"]["id"], e["kind"]) for e in edges}
    n = site.norms
    assert {(n["seed"], n["revoked"], "cites"), (n["altering"], n["seed"], "alters"),
            (n["decree200"], n["decree201"], "revokes"), (n["decree201"], n["decree200"],
                                                          "revokes"),
            (n["decree200"], n["decree"], "revokes_in_part"), (n["seed"], None, "cites"),
            (n["decree200"], n["bare"], "revokes"),
            (n["decree201"], n["decree201"], "revokes")} == pairs  # a slip: it names itself
    federal = next(e for e in edges if e["urn"] == "urn:lex:br:federal:lei:2009-07-29;12009")
    assert federal["to"] is None and federal["sphere"] == "federal"
    assert federal["lexml_url"].endswith("urn:lex:br:federal:lei:2009-07-29;12009")
    # Small pages: every edge once, in order.
    assert [e["id"] for e in _pull(site, "/citations.json?limit=3")] == [e["id"] for e in edges]
    # Filters.
    assert len(_pull(site, f"/citations.json?j={JUAZEIRO}")) == 12
    assert _pull(site, "/citations.json?j=2611101") == []
    assert {e["kind"] for e in _pull(site, "/citations.json?kind=revokes")} == {"revokes"}
    assert len(_pull(site, "/citations.json?kind=revokes")) == 4  # not seed 000's Art. 31
    assert len(_pull(site, "/citations.json?resolved=no")) == 4
    assert all(e["to"] for e in _pull(site, "/citations.json?resolved=yes"))
    to_seed = get_json(site, f"/citations.json?to={n['seed']}")
    assert to_seed["total"] == 2 and to_seed["scope"]["to"]["id"] == n["seed"]
    assert {e["from"]["id"] for e in to_seed["citations"]} == {n["altering"]}
    assert get_json(site, f"/citations.json?from={n['seed']}&resolved=no")["total"] == 4
    # A filter that matches few edges reads a bounded stretch of ids per page: pages may be
    # short, even empty, and `next` reads on until the end.
    monkeypatch.setattr(web_citations_module(), "SCAN_WINDOW", 2)
    first = get_json(site, "/citations.json?j=2611101")
    assert first["citations"] == [] and first["next"]
    assert _pull(site, "/citations.json?j=2611101") == []
    assert [e["id"] for e in _pull(site, f"/citations.json?j={JUAZEIRO}&limit=1000")] == [
        e["id"] for e in edges]
    html = get_html(site, f"/citations?to={n['seed']}")
    assert "Citations between norms" in html and "<b>2</b> citations." in html
    assert f'<a href="/norm/{n["altering"]}">Lei nº 1169/2014</a>' in html


def test_a_norm_that_names_itself_is_not_cited_by_itself(site):
    page = get_json(site, f"/norm/{site.norms['decree201']}.json")
    mine = [g for g in page["citations"]["groups"] if g["norm"]["id"] == site.norms["decree201"]]
    [slip] = [c for g in mine for c in g["citations"]]
    assert (slip["kind"], slip["article"], slip["flags"]) == ("revokes", "Art. 2",
                                                            ["targets_itself"])
    cited = page["cited_by"]
    assert (cited["total"], cited["norms"]) == (1, 1)
    assert [g["norm"]["id"] for g in cited["groups"]] == [site.norms["decree200"]]
    # Its status comes from decree 200 alone, never from its own slip.
    assert [e["by_norm"]["id"] for e in page["norm"]["status_evidence"]] == [
        site.norms["decree200"]]
    assert "targets itself" in get_html(site, f"/norm/{site.norms['decree201']}")
    # The graph keeps the edge as the text wrote it.
    assert get_json(site, f"/citations.json?to={site.norms['decree201']}")["total"] == 2


def web_citations_module():
    from locleg.web import citations

    return citations


@pytest.mark.parametrize("path, status, message", [
    ("/citations?kind=cita", 400, "kind is one of cites, revokes"),
    ("/citations?resolved=maybe", 400, "resolved is 'yes'"),
    ("/citations?limit=0", 400, "limit is a number from 1 to 1000"),
    ("/citations?limit=1001", 400, "limit is a number from 1 to 1000"),
    ("/citations?after=x", 400, "damaged"),
    ("/citations?from=999999", 404, "no norm 999999"), ("/citations?to=abc", 404, "no norm"),
    ("/citations?j=1234567", 404, "no jurisdiction with IBGE code 1234567"),
    (f"/jurisdiction/{JUAZEIRO}?status=in_force", 400,
     "status is one of revoked, revoked_in_part, suspended, altered, none_known"),
    ("/urn/lei-2199", 400, "not a LexML URN of a norm"),
    ("/urn/urn:lex:br;bahia;juazeiro:municipal:lei:2011-13-45;2199", 400, "not a date"),
    ("/urn/urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;0", 400, "names no number"),
    ("/urn/urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;9999", 404,
     "no norm in the corpus has the URN"),
    ("/urn/urn:lex:br;bahia;atlantida:municipal:lei:2011-06-27;2199", 404,
     "no jurisdiction is br;bahia;atlantida"),
    ("/urn/urn:lex:br:federal:lei:2009-07-29;12009", 404, "federal and other national norms"),
    ("/quality?unmatched_after=²", 400, "damaged"),
    ("/quality?headings_after=99999999999999999999", 400, "damaged"),
])
def test_bad_graph_status_and_urn_requests_say_why(site, path, status, message):
    for accept in ("text/html", "application/json"):
        response = site.client.get(path, headers={"Accept": accept})
        assert response.status_code == status, (path, response.text[:300])
        if accept == "text/html":
            assert str(escape(message)) in response.text, path
        else:
            assert message in response.json()["error"]["message"], path


def test_a_urn_leads_to_its_norm_page(site):
    seed = site.norms["seed"]
    for written in (SEED_URN, quote(SEED_URN, safe=""), SEED_URN + "!art10",
                    SEED_URN + "@2011-06-28;publicacao", SEED_URN.upper(),
                    "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2.199"):
        response = site.client.get(f"/urn/{written}")
        assert response.status_code == 301, (written, response.text[:300])
        assert response.headers["location"] == f"/norm/{seed}", written
        twin = site.client.get(f"/urn/{written}.json")
        assert (twin.status_code, twin.headers["location"]) == (301, f"/norm/{seed}.json")
    asked = site.client.get(f"/urn/{SEED_URN}", headers={"Accept": "application/json"})
    assert asked.headers["location"] == f"/norm/{seed}.json"
    landed = site.client.get(f"/urn/{SEED_URN}.json", follow_redirects=True)
    assert landed.json()["norm"]["urn"] == SEED_URN
    # Every URN the corpus's own citations resolved leads to the norm they resolved to.
    for edge in _pull(site, "/citations.json?resolved=yes"):
        response = site.client.get(f"/urn/{edge['urn']}")
        assert response.headers["location"] == f"/norm/{edge['to']['id']}", edge["urn"]
    state = site.client.get("/urn/urn:lex:br;bahia:estadual:lei:2010-09-14;12000")
    assert state.headers["location"] == f"/norm/{site.norms['state']}"


def test_a_norm_merged_away_redirects_to_the_norm_it_joined(site):
    merged, seed = site.norms["merged"], site.norms["seed"]
    response = site.client.get(f"/norm/{merged}")
    assert (response.status_code, response.headers["location"]) == (301, f"/norm/{seed}")
    twin = site.client.get(f"/norm/{merged}.json")
    assert (twin.status_code, twin.headers["location"]) == (301, f"/norm/{seed}.json")


def test_jurisdiction_listing_filters_by_legal_status(site, monkeypatch):
    base = f"/jurisdiction/{JUAZEIRO}.json"
    page = get_json(site, base)
    assert all(n["status"] in web_data.LEGAL_STATUSES for n in page["norms"])
    status = {i["value"]: i for i in page["facets"]["status"]}
    assert {v: i["count"] for v, i in status.items()} == {
        "revoked": 4, "revoked_in_part": 1, "altered": 1, "none_known": 4}
    assert status["none_known"]["label"] == "no revocation known"
    assert status["revoked"]["toggle_url"] == f"/jurisdiction/{JUAZEIRO}?status=revoked"
    revoked = get_json(site, base + "?status=revoked")
    n = site.norms
    assert [x["id"] for x in revoked["norms"]] == [n["decree201"], n["decree200"], n["bare"],
                                                   n["revoked"]]
    assert revoked["filters"] == {"status": "revoked"}
    [chosen] = revoked["facets"]["status"]
    assert chosen["selected"] and chosen["toggle_url"] == f"/jurisdiction/{JUAZEIRO}"
    assert {i["value"]: i["count"] for i in revoked["facets"]["type"]} == {"decreto": 2, "lei": 2}
    laws = get_json(site, base + "?status=revoked&type=lei")
    assert [x["id"] for x in laws["norms"]] == [n["bare"], n["revoked"]]
    quiet = get_json(site, base + "?status=none_known")
    assert len(quiet["norms"]) == 4 and {x["status"] for x in quiet["norms"]} == {"none_known"}
    # Keyset pages keep the filter: one norm a page, every revoked norm once.
    monkeypatch.setattr(web_jurisdiction, "LIST_PAGE", 1)
    seen, path = [], base + "?status=revoked"
    while path:
        chunk = get_json(site, path)
        seen += [x["id"] for x in chunk["norms"]]
        path = chunk["next"]  # a JSON answer links its JSON pages
    assert seen == [n["decree201"], n["decree200"], n["bare"], n["revoked"]]
    monkeypatch.undo()
    html = get_html(site, f"/jurisdiction/{JUAZEIRO}")
    assert "Legal status" in html and 'class="badge legal legal-revoked"' in html
    assert html.count('class="badge legal legal-') == 6  # "no revocation known" stays quiet
    home = get_html(site, "/")
    assert 'class="badge legal legal-revoked"' in home
    document = get_json(site, f"/document/{site.documents['revoked']}.json")
    assert document["norm"]["status"] == "revoked"


def test_quality_lists_unmatched_records_disagreeing_headings_and_enrichment_problems(
        site, monkeypatch):
    quality = get_json(site, "/quality.json")
    unmatched = quality["unmatched"]
    assert (unmatched["total"], unmatched["total_exact"]) == (1, True)
    [alone] = unmatched["records"]
    assert (alone["id"], alone["norm_id"], alone["reason"], alone["number"]) == (
        site.records["sn"], site.norms["sn"], "no number (s/n)", "s/n")
    headings = quality["headings"]
    assert headings["total"] == 4
    by_record = {r["id"]: r for r in headings["records"]}
    # The decree's and Petrolina's texts print another ementa than their records' (issue 21).
    for name, printed in (("decree", "Fixa a tarifa do serviço de moto-táxi em R$ 5,00."),
                          ("petrolina", "O serviço de mototáxi será prestado por "
                                        "permissionários.")):
        [other] = by_record[site.records[name]]["disagreements"]
        assert (other["field"], other["heading"], other["ocr_misreading"]) == (
            "ementa", printed, False)
    misread = by_record[site.records["altering"]]
    assert misread["disagreements"] == [{
        "field": "number", "heading": "1165", "source": "1169", "ocr_misreading": True,
        "detail": "printed '1.165': a near match, probably misread"}]
    assert misread["ocr_misreading"] and misread["norm_id"] == site.norms["altering"]
    dated = by_record[site.records["seed_dump"]]
    assert [(d["field"], d["ocr_misreading"]) for d in dated["disagreements"]] == [
        ("date", False)]
    assert dated["norm_id"] == site.norms["seed"] and dated["source"]["base_url"] is None
    problems = {p["kind"]: p for p in quality["enrich_problems"]["problems"]}
    cycle = problems["revocation cycle"]
    assert [x["id"] for x in cycle["norms"]] == [site.norms["decree200"], site.norms["decree201"]]
    assert "revoke one another" in cycle["message"]
    heading = problems["heading"]
    assert heading["record_id"] == site.records["altering"]
    assert [x["id"] for x in heading["norms"]] == [site.norms["altering"]]
    assert "heading not read again" in heading["message"]
    html = get_html(site, "/quality")
    for shown in ("Records not matched", "no number (s/n)", f'href="/norm/{site.norms["sn"]}"',
                  "Headings that disagree with their source", "<q>1165</q>", "<q>1169</q>",
                  "looks like an OCR misreading", "Enrichment problems", "revocation cycle",
                  f'<a href="/norm/{site.norms["decree200"]}">Decreto nº 200/2015</a>'):
        assert shown in html, shown
    # Scoped like the rest of the page.
    elsewhere = get_json(site, "/quality.json?j=2611101")
    assert elsewhere["unmatched"]["records"] == []
    assert [r["id"] for r in elsewhere["headings"]["records"]] == [site.records["petrolina"]]
    assert elsewhere["enrich_problems"]["problems"] == []
    here = get_json(site, f"/quality.json?j={JUAZEIRO}")
    assert len(here["enrich_problems"]["problems"]) == 2 and here["headings"]["total"] == 3
    # Each section pages on its own token.
    from locleg.web import review

    monkeypatch.setattr(review, "REVIEW_PAGE", 1)
    for section, rows, key, expected in (
            ("headings", "records", "id",
             {site.records["altering"], site.records["seed_dump"], site.records["decree"]}),
            ("enrich_problems", "problems", "id", {cycle["id"], heading["id"]})):
        seen, path = [], f"/quality.json?j={JUAZEIRO}"
        while path:
            chunk = get_json(site, path)[section]
            seen += [r[key] for r in chunk[rows]]
            path = chunk["next"]
        assert len(seen) == len(expected) and set(seen) == expected, section


def test_labels_cover_every_status_and_citation_kind():
    from locleg.enrich.citation_model import KINDS
    from locleg.enrich.status import RANK
    from locleg.web.render import CITATION_KINDS, STATUS_LABELS

    assert set(CITATION_KINDS) == set(KINDS)
    assert set(STATUS_LABELS) == set(web_data.LEGAL_STATUSES) == set(RANK)
    assert STATUS_LABELS["none_known"] == "no revocation known"


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


# Issue 11: every value a filter cannot use is a 400 that says why, never 200 with nothing.
_TYPES_LISTED = "types are ato, constituicao, decreto"
_SEVEN_DIGITS = "IBGE codes have 7 digits for a municipality"


@pytest.mark.parametrize("path, message", [
    ("/search?q=moto&type=foo", _TYPES_LISTED),
    ("/search?type=Lei+Ordin%C3%A1ria", "did you mean lei?"),
    ("/search.csv?q=moto&type=foo", _TYPES_LISTED),
    ("/search.jsonl?q=moto&type=foo", _TYPES_LISTED),
    (f"/jurisdiction/{JUAZEIRO}?type=foo", _TYPES_LISTED),
    (f"/jurisdiction/{JUAZEIRO}?type=none", _TYPES_LISTED),
    ("/search?q=moto&j=291840", _SEVEN_DIGITS), ("/search?j=291840", "'291840' has 6"),
    ("/search?q=moto&j=9999999", "no jurisdiction with IBGE code 9999999"),
    ("/search.csv?q=moto&j=291840", _SEVEN_DIGITS),
    ("/quality?j=291840", _SEVEN_DIGITS), ("/citations?j=291840", _SEVEN_DIGITS),
    ("/search?q=moto&year=abc", "year is a year such as 2011"),
    ("/search?q=moto&year=2011&year_from=2010", "give one year"),
    (f"/jurisdiction/{JUAZEIRO}?year=abc", "year is a year such as 2011"),
    ("/search?q=moto&year_from=abc", "year from must be a year"),
    ("/search?q=moto&year_to=20111", "year to must be a year"),
    ("/search?q=moto&method=foo", "methods are ocr, mixed, text"),
    (f"/jurisdiction/{JUAZEIRO}?method=foo", "methods are ocr, mixed, text"),
    ("/search?q=moto&uf=ZZ", "unknown UF"), ("/search?q=moto&status=foo", "unknown status"),
    (f"/jurisdiction/{JUAZEIRO}?status=foo", "status is one of"),
    (f"/jurisdiction/{JUAZEIRO}?text=maybe", "text is 'yes' or 'no'"),
    ("/search?q=moto&text=maybe", "text is 'yes' or 'no'"),
    ("/search?q=moto&sort=foo", "sort is 'relevance' or 'date'"),
    ("/search?q=moto&limit=0", "1 to 100"), ("/search?q=moto&limit=abc", "1 to 100"),
    ("/search?q=moto&min_confidence=2", "between 0 and 1"),
    ("/search?q=moto&number=abc", "not a norm number"),
    ("/search?q=moto&after=zzz", "damaged"), (f"/jurisdiction/{JUAZEIRO}?after=zzz", "damaged"),
    ("/citations?kind=foo", "kind is one of"), ("/citations?resolved=maybe", "resolved is"),
    ("/citations?limit=0", "limit"), ("/citations?after=x", "damaged"),
    ("/quality?after=x", "damaged"), ("/quality?unmatched_after=x", "damaged"),
    ("/quality?headings_after=x", "damaged"), ("/quality?problems_after=x", "damaged"),
    ("/sources?after=x", "damaged"),
    ("/document/1?after=abc", "after"), ("/document/1?after=-1", "after"),
    ("/urn/urn:lex:nonsense", "URN"),
])
def test_every_invalid_parameter_is_a_400_with_a_message(site, path, message):
    html = site.client.get(path)
    assert html.status_code == 400, (path, html.text[:300])
    assert "This request cannot be answered" in html.text
    assert str(escape(message)) in html.text, (path, html.text[-2000:])
    twin = site.client.get(path, headers={"Accept": "application/json"})
    assert twin.status_code == 400 and twin.json()["error"]["status"] == 400
    assert message in twin.json()["error"]["message"], twin.json()


def test_a_known_type_and_a_state_code_are_valid_filters(site):
    # The checks above refuse what no norm can have, never what some norm may.
    state = get_json(site, "/search.json?j=26&type=lei")  # 26: Pernambuco, a state's own norms
    assert state["query"]["j"] == [26] and state["query"]["type"] == ["lei"]
    year = get_json(site, "/search.json?q=moto&year=2011")
    assert (year["query"]["year_from"], year["query"]["year_to"]) == (2011, 2011)
    assert year["total"] >= 1 and all(r["year"] == 2011 for r in year["results"])


def _route_paths(site) -> list[tuple[str, str]]:
    """Every GET route of the app, as (template, a concrete path to it)."""
    from fastapi.routing import APIRoute

    values = {"uf": "BA", "code": str(JUAZEIRO), "norm_id": str(site.norms["seed"]),
              "document_id": str(site.documents["seed"]),
              "version_id": str(site.versions["seed"]), "urn": SEED_URN,
              # no release in this corpus: GET and HEAD both answer 404
              "release": "no-release", "path:path": "README.md"}

    def walk(routes) -> Iterator[APIRoute]:
        for route in routes:
            if isinstance(route, APIRoute):
                yield route
            elif hasattr(route, "original_router"):  # FastAPI >= 0.16x: included routers
                yield from walk(route.original_router.routes)

    found = []
    for route in walk(site.live.app.app.routes):
        if "GET" in route.methods:
            path = route.path
            for name, value in values.items():
                path = path.replace("{" + name + "}", value)
            assert "{" not in path, f"no sample value for {route.path}"
            found.append((route.path, path))
    return found


def test_head_answers_on_every_get_route(site):
    """HEAD (curl -I, link checkers) on every GET route the app has: the GET's status and
    headers, no body; and on the JSON twins and static files too."""
    routes = _route_paths(site)
    # the walk covers the app, not a hand-made list
    assert {r.replace(":path}", "}") for r, _ in routes} == set(
        site.client.get("/openapi.json").json()["paths"])
    targets = [p for _, p in routes] + ["/index.json", f"/norm/{site.norms['seed']}.json",
                                        "/search.json?q=moto", "/static/style.css",
                                        "/no/such/page", "/search?q=moto&type=foo"]
    for path in targets:
        get = site.client.get(path)
        head = site.client.head(path)
        assert head.status_code == get.status_code, (path, head.status_code, get.status_code)
        assert head.content == b"", path
        assert head.headers.get("content-type") == get.headers.get("content-type"), path
        assert head.headers["x-content-type-options"] == "nosniff", path
        if "content-length" in get.headers and get.status_code == 200 \
                and path != "/openapi.json":
            assert head.headers["content-length"] == get.headers["content-length"], path
    # Still read-only: HEAD is GET without a body, other methods stay refused.
    assert site.client.post("/search").status_code == 405


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
                 "/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E+rua",
                 # a citation's sentence that carries markup, where citations are shown
                 f"/norm/{site.norms['decree200']}", f"/norm/{site.norms['bare']}",
                 f"/citations?j={JUAZEIRO}", f"/citations?to={site.norms['bare']}"):
        html = get_html(site, path)
        assert "<script>" not in html and "<img src=x" not in html, path
    for path in (f"/norm/{site.norms['decree200']}", f"/norm/{site.norms['bare']}",
                 f"/citations?j={JUAZEIRO}"):
        assert str(escape(XSS_CITATION)) in get_html(site, path), path
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
                store.upsert_records(conn, sapl, [{
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
                 "/search.json?q=moto", "/quality.json", "/sources.json", "/api.json",
                 "/exports.json",
                 f"/citations.json?from={site.norms['seed']}"):
        for key in get_json(site, path):
            assert f'"{key}"' in doc, f"{path}: {key} is not in docs/api.md"


def _vocabulary_problems(value, where: str) -> list[str]:
    """Where an answer breaks the API's one vocabulary (docs/api.md, Conventions)."""
    found = []
    if isinstance(value, list):
        for i, item in enumerate(value):
            found += _vocabulary_problems(item, f"{where}[{i}]")
    elif isinstance(value, dict):
        for old in ("jurisdiction_code", "next_page_after"):
            if old in value:
                found.append(f"{where}: {old}")
        j = value.get("jurisdiction")  # (a facet list, under "facets", is skipped below)
        if j is not None and (not isinstance(j, dict) or not {"ibge_code", "name", "uf"} <= set(j)):
            found.append(f"{where}.jurisdiction is not an object: {j!r}")
        if "next" in value and "next_after" not in value:
            found.append(f"{where}: next without next_after")
        for link in ("next", "more", "all"):
            if isinstance(value.get(link), str) and ".json" not in value[link]:
                found.append(f"{where}.{link} leads to HTML: {value[link]}")
        for key, item in value.items():
            if key == "facets":  # named by facet (jurisdiction, type, ...), not objects
                item = list(item.values())
            found += _vocabulary_problems(item, f"{where}.{key}")
    return found


def test_every_answer_speaks_one_vocabulary(site, monkeypatch):
    """Issue 11: a norm is `id` in every list, a jurisdiction always an object, every paged
    list has `next` (to the JSON twin) and `next_after`."""
    from locleg.web import citations as web_citations
    from locleg.web import review

    # Small pages, so that every `next` and `more` is there to check.
    monkeypatch.setattr(web_jurisdiction, "LIST_PAGE", 2)
    monkeypatch.setattr(web_norms, "DOCUMENT_PAGES", 2)
    monkeypatch.setattr(review, "REVIEW_PAGE", 1)
    monkeypatch.setattr(web_citations, "CITATIONS_SHOWN", 1)
    paths = ["/index.json", "/uf/BA.json", f"/jurisdiction/{JUAZEIRO}.json",
             f"/norm/{site.norms['seed']}.json", f"/document/{site.documents['seed']}.json",
             "/search.json?q=moto&limit=1", "/search.json?q=lei+2199", "/sources.json",
             f"/quality.json?j={JUAZEIRO}", "/quality.json", "/citations.json?limit=2",
             f"/citations.json?to={site.norms['seed']}", f"/norm/{site.norms['revoked']}.json"]
    problems = []
    for path in paths:
        problems += _vocabulary_problems(get_json(site, path), path)
    assert problems == []
    # ... and every list of norms names its norm `id`, as the norm page does.
    search = get_json(site, "/search.json?q=moto")["results"]
    assert search and all("id" in r and "norm_id" not in r for r in search)
    paged = get_json(site, f"/document/{site.documents['seed']}.json")
    assert paged["next"] == f"/document/{site.documents['seed']}.json?after=2"
    assert get_json(site, paged["next"])["document"]["pages"][0]["number"] == 3


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
        assert response.status_code == 200 and response.json()["total"] == 5
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=30)
    assert f"http://localhost:{port}/" in out


# -- originals whose recorded type cannot be trusted (issue 8, item 12) -------------------

@pytest.mark.parametrize("name, recorded, extension", [
    ("xss_comma", "text/html,", ".bin"), ("xss", "text/html", ".html")])
def test_untrusted_originals_come_as_sandboxed_attachments(site, name, recorded, extension):
    version_id = site.versions[name]
    page = get_json(site, f"/norm/{site.norms['xss']}.json")
    assert recorded in {v["media_type"] for d in page["documents"] for v in d["versions"]}
    response = site.client.get(f"/version/{version_id}/original")
    assert response.status_code == 200
    headers = response.headers
    assert headers["content-type"] == "application/octet-stream"
    # Named after the norm and its place; the earlier version says it is one.
    stem = "lei-2302-2013-juazeiro-ba" + ("-versao-" + str(version_id)
                                          if name == "xss_comma" else "")
    assert headers["content-disposition"] == f'attachment; filename="{stem}{extension}"'

    assert headers["content-security-policy"].startswith("sandbox")
    assert headers["x-content-type-options"] == "nosniff"
    if name == "xss_comma":
        assert response.content == XSS_HTML


def test_a_pdf_original_is_still_shown_inline(site):
    response = site.client.get(f"/document/{site.documents['seed']}/original")
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"].startswith("inline")
    assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("recorded, served", [
    ("application/pdf", ("application/pdf", True)), ("IMAGE/PNG", ("image/png", True)),
    ("text/plain; charset=ISO-8859-1", ("text/plain; charset=ISO-8859-1", True)),
    ("text/plain; charset=\"utf-8\"", ("text/plain; charset=utf-8", True)),
    ("text/plain; charset=x\r\nSet-Cookie: a=b", ("text/plain; charset=utf-8", True)),
    ("text/html", ("application/octet-stream", False)),
    ("text/html,", ("application/octet-stream", False)),
    ("text/html\r\nX-Injected: 1", ("application/octet-stream", False)),
    ("image/svg+xml", ("application/octet-stream", False)),
    ("application/xml", ("application/octet-stream", False)),
    ("application/pdf,text/html", ("application/octet-stream", False)),
    ("text/plain/x", ("application/octet-stream", False)),
    ("x" * 300 + "/pdf", ("application/octet-stream", False)),
    ("", ("application/octet-stream", False)), (None, ("application/octet-stream", False)),
])
def test_recorded_media_types_are_checked_before_serving(recorded, served):
    assert served_type(recorded)[:2] == served


# -- addresses from the data (item 17) ----------------------------------------------------

def test_only_http_addresses_become_links(site):
    norm = get_html(site, f"/norm/{site.norms['xss']}")
    document = get_html(site, f"/document/{site.documents['xss']}")
    for html in (norm, document):
        assert 'href="javascript' not in html.lower() and 'href=" javascript' not in html.lower()
    assert "javascript:alert(&#39;norm-url&#39;)" in norm  # shown, as text
    assert "JaVaScRiPt:alert(&#39;document-url&#39;)" in document
    page = get_json(site, f"/norm/{site.norms['xss']}.json")
    assert page["records"][0]["url"] == XSS_NORM_URL  # the data itself is kept as published
    assert page["documents"][0]["url"] == XSS_DOCUMENT_URL
    assert 'href="https://sapl.juazeiro.ba.leg.br/norma/1461"' in get_html(
        site, f"/norm/{site.norms['seed']}")


@pytest.mark.parametrize("path", ["//evil.example/x", "/\\evil.example/x", "///evil.example",
                                  "/%2F%2Fevil.example/x", "/./..//evil.example/x"])
def test_the_404_page_links_its_json_twin_on_this_site(site, path):
    response = site.client.get(httpx.URL(site.live.url + path))
    assert response.status_code == 404
    alternate = response.text.split('rel="alternate" type="application/json" href="')[1]
    href = alternate.split('"')[0]
    assert href.startswith("/") and not href.startswith("//") and "\\" not in href, href
    assert href.endswith(".json")
    assert f'<a href="{href}">This page as JSON</a>' in response.text
    # The other language's link stays on this site too.
    other = response.text.split('hreflang="pt-BR"')[0].rsplit('<a href="', 1)[1].split('"')[0]
    assert other.startswith("/") and not other.startswith("//") and "\\" not in other, other
    assert other.endswith("lang=pt-BR")


def test_public_answers_never_show_the_importing_machines_paths(site):
    state = get_json(site, f"/norm/{site.norms['state']}.json")
    [doc] = state["documents"]
    assert doc["url"] == "file:lei12000.html"
    assert [v["origin"] for v in doc["versions"]] == ["file:lei12000.html"]
    source = state["records"][0]["source"]
    assert source["base_url"] is None and source["platform"] == "folder"
    seed = get_json(site, f"/norm/{site.norms['seed']}.json")
    assert seed["documents"][0]["versions"][0]["origin"] == SEED_URL  # http(s) kept
    for path in (f"/norm/{site.norms['state']}", f"/document/{site.documents['state']}",
                 "/sources", "/uf/BA", "/jurisdiction/29", "/quality"):
        for answer in (site.client.get(path).text, site.client.get(path + ".json").text):
            assert IMPORT_FOLDER not in answer and "/home/" not in answer, path


# -- hostile values in every route and parameter (item 14) --------------------------------

HOSTILE = ["²", "-1", str(2 ** 64), "99999999999999999999", "1e400", "", "\x00", "%00",
           "x" * 5000, "../", "../../etc/passwd", "😀", "Ā", "٣", " 1", "1 ", "0x10",
           "d1e400_1", "r1e400_1", "d99999999999999999999_1", "1_99999999999999999999",
           "null", "<script>", "'", "nan", "inf"]


def _routes(site) -> list[tuple[str, list[str], list[str]]]:
    """(path template, path parameters, query parameters) of every route the app serves."""
    schema = site.client.get("/openapi.json").json()
    found = []
    for path, methods in schema["paths"].items():
        parameters = methods["get"].get("parameters", [])
        if path in ("/search.csv", "/search.jsonl"):  # "same parameters as /search"
            parameters = schema["paths"]["/search"]["get"]["parameters"]
        found.append((path, [p["name"] for p in parameters if p["in"] == "path"],
                      [p["name"] for p in parameters if p["in"] == "query"]))
    return found


def _valid(site, name: str) -> str:
    return {"uf": "BA", "code": str(JUAZEIRO), "norm_id": str(site.norms["seed"]),
            "urn": SEED_URN,
            "document_id": str(site.documents["seed"]),
            "version_id": str(site.versions["seed"]),
            "release": "none-yet", "path": "README.md"}[name]  # /exports/{release}/{path}


def _requests(site) -> list[str]:
    urls = []
    for path, in_path, in_query in _routes(site):
        base = path
        for name in in_path:
            base = base.replace("{" + name + "}", _valid(site, name))
        for value in HOSTILE:
            for name in in_path:
                target = path
                for other in in_path:
                    target = target.replace("{" + other + "}", quote(value, safe="")
                                            if other == name else _valid(site, other))
                urls.append(target)
            for name in in_query:
                urls.append(f"{base}?q=moto&{name}={quote(value, safe='')}")
    return urls


def test_hostile_values_in_every_route_and_parameter_get_an_answer(site):
    """No 500, ever: a value that cannot be used gets 400 (or 404 for an id) with a message
    that says why, in HTML and in JSON."""
    urls = _requests(site)
    assert len(urls) > 500
    statuses: dict[int, int] = {}
    for target in urls:
        html = site.client.get(httpx.URL(site.live.url + target))
        twin = site.client.get(httpx.URL(site.live.url + target),
                               headers={"Accept": "application/json"})
        statuses[html.status_code] = statuses.get(html.status_code, 0) + 1
        if html.status_code == 307:  # '/uf/..%2F' is '/uf/../': the slash is dropped
            assert html.headers["location"].startswith(site.live.url + "/"), target
            continue
        assert html.status_code in (200, 400, 404), (target, html.status_code, html.text[:300])
        assert twin.status_code == html.status_code, target
        if html.status_code != 200:
            error = twin.json()["error"]
            assert error["status"] == html.status_code and error["message"], target
            assert len(error["message"]) < 400, target
            assert str(escape(error["message"])) in html.text, target
    assert statuses.get(400, 0) > 50 and statuses.get(404, 0) > 20


@pytest.mark.parametrize("path, status, message", [
    ("/norm/²", 404, "no norm '²'"), ("/norm/99999999999999999999", 404, "no norm"),
    ("/search?q=moto&j=²", 400, "not an IBGE code"), ("/search?q=moto&limit=²", 400, "1 to 100"),
    ("/search?q=moto&after=99999999999999999999", 400, "damaged"),
    ("/search?q=moto&sort=date&after=d1e400_1", 400, "damaged"),
    ("/search?sort=date&after=d99999999999999999999_1", 400, "damaged"),
    ("/search.csv?q=moto&year_from=²", 400, "year"),
    (f"/jurisdiction/{JUAZEIRO}?year=99999999999999999999", 400, "year"),
    (f"/jurisdiction/{JUAZEIRO}?after=1_99999999999999999999", 400, "damaged"),
    ("/quality?after=99999999999999999999", 400, "damaged"), ("/quality?after=²", 400, "damaged"),
    ("/sources?after=²", 400, "damaged"), ("/quality?j=²", 400, "not an IBGE code"),
    ("/document/1?after=99999999999999999999", 400, "after"),
    ("/document/1?after=²", 400, "after"), ("/version/²/original", 404, "no version"),
])
def test_the_values_that_gave_500s_get_400_or_404(site, path, status, message):
    for accept in ("text/html", "application/json"):
        response = site.client.get(path, headers={"Accept": accept})
        assert response.status_code == status, (path, response.text[:300])
        if accept == "text/html":
            assert str(escape(message)) in response.text, path
        else:
            assert message in response.json()["error"]["message"], path


# -- CSV exports (item 13) ----------------------------------------------------------------

def test_csv_export_neutralises_formulas(corpus):
    build_explorer_corpus(corpus)
    add_formula_norm(corpus)
    with LiveServer(corpus) as live:
        response = httpx.get(live.url + "/search.csv?q=planilha", timeout=30)
    [row] = list(csv.DictReader(io.StringIO(response.text)))
    assert row["ementa"] == "'=HYPERLINK(\"http://evil.example\",\"planilha\")"
    assert (row["type_raw"], row["number"], row["source_url"]) == (
        "'@SUM(A1)", "'-2+3", "'+cmd|' /C calc'!A0")
    assert not any(cell.startswith(tuple("=+-@\t\r")) for cell in row.values())
    assert FORMULAS  # the unit test of every formula start is in test_search.py


# -- big texts and deadlines through HTTP (item 11) ---------------------------------------

BOUND_S = 10.0


@pytest.fixture(scope="module", params=BACKENDS)
def big_site(request, tmp_path_factory):
    corpus, url = module_corpus(request, tmp_path_factory, "bigsite")
    built = build_big_text_corpus(corpus, texts=4)
    with LiveServer(corpus) as live, httpx.Client(base_url=live.url, timeout=120,
                                                  headers=ENGLISH) as client:
        built.client, built.live = client, live
        yield built
    corpus.close()


def _timed_get(site, path: str) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = site.client.get(path)
    return response, time.monotonic() - started


def test_pages_over_big_texts_answer_in_bounded_time(big_site):
    response, seconds = _timed_get(big_site, f"/search?q={BIG_TEXT_WORD}")
    assert response.status_code == 200 and seconds < BOUND_S
    assert response.text.count("<mark>moto</mark>") >= 6 and len(response.text) < 200_000
    answer, seconds = _timed_get(big_site, f"/search.json?q={BIG_TEXT_WORD}&sort=date")
    assert seconds < BOUND_S and answer.json()["total"] == 6
    export, seconds = _timed_get(big_site, f"/search.csv?q={BIG_TEXT_WORD}")
    assert seconds < BOUND_S and len(export.text.splitlines()) == 7
    # The 21 MB page is shown cut, and said so, instead of as a 21 MB HTML page.
    giant = big_site.norms["giant"]
    page, seconds = _timed_get(big_site, f"/norm/{giant}")
    assert seconds < BOUND_S and len(page.text) < 1_000_000
    assert "longer than shown here" in page.text
    twin = big_site.client.get(f"/norm/{giant}.json").json()
    [shown] = twin["documents"][0]["pages"]
    assert shown["text_truncated"] and len(shown["text"]) == web_data.PAGE_TEXT_SHOWN
    document, seconds = _timed_get(big_site, f"/document/{big_site.documents['giant']}")
    assert seconds < BOUND_S and len(document.text) < 1_000_000


def test_a_search_past_its_deadline_gets_a_503_that_says_to_narrow_it(big_site):
    corpus = big_site.corpus
    with LiveServer(corpus, refresh_at_start=False, search_deadline=1e-9) as live, \
            httpx.Client(base_url=live.url, timeout=60) as client:
        for path in ("/search?q=moto", "/search.json?q=moto", "/search.csv?q=moto",
                     "/search.jsonl?q=moto"):
            response = client.get(path)
            assert response.status_code == 503, path
            assert response.headers["retry-after"] == "60"
            if path.startswith("/search.json?"):
                assert "narrow it" in response.json()["error"]["message"]
            else:
                assert "took longer than 1e-09 s and was stopped: narrow it" in response.text
        assert client.get("/norm/1").status_code == 200  # other pages are not searches


# -- a 100 MB text: the search's deadline and disconnect paths (issue 23) ------------------

GIANT_CHARS = 100_000_000


@pytest.fixture(scope="module", params=BACKENDS)
def giant_site(request, tmp_path_factory):
    """A corpus whose one norm holds a 100 MB text full of the word (built by code, indexed
    as any text is), and a small one."""
    corpus, url = module_corpus(request, tmp_path_factory, "giant")
    built = build_big_text_corpus(corpus, texts=1, chars=10_000, giant_chars=GIANT_CHARS)
    yield built
    corpus.close()


class _PeakRss(threading.Thread):
    """This process's highest resident memory while it runs, sampled every 5 ms (the
    served requests run in this process's threads)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak, self.halt = _rss(), threading.Event()

    def run(self) -> None:
        while not self.halt.wait(0.005):
            self.peak = max(self.peak, _rss())


def _rss() -> int:
    with open("/proc/self/status") as status:
        return int(status.read().split("VmRSS:")[1].split()[0]) * 1024


def test_a_100_mb_text_is_searched_exported_and_shown_in_bounded_time_and_memory(giant_site):
    import gc

    giant = giant_site.norms["giant"]
    gc.collect()
    with LiveServer(giant_site.corpus, refresh_at_start=False) as live, \
            httpx.Client(base_url=live.url, timeout=120, headers=ENGLISH) as client:
        client.get("/search?q=regulamenta")  # the first search's one-time costs
        sampler = _PeakRss()
        before = sampler.peak
        sampler.start()
        try:
            for path in (f"/search?q={BIG_TEXT_WORD}", f"/search.json?q={BIG_TEXT_WORD}",
                         f"/search.csv?q={BIG_TEXT_WORD}", f"/search.jsonl?q={BIG_TEXT_WORD}",
                         '/search?q="moto registrada" mototaxista', f"/norm/{giant}",
                         f"/norm/{giant}.json", f"/document/{giant_site.documents['giant']}"):
                started = time.monotonic()
                response = client.get(path)
                assert response.status_code == 200, path
                assert time.monotonic() - started < BOUND_S, path
                assert len(response.content) < 1_000_000, path
                if path.startswith("/search.json?"):
                    assert giant in [h["id"] for h in response.json()["results"]]
        finally:
            sampler.halt.set()
            sampler.join()
    # Neither the text nor a copy of it was held: the snippet reads its first 100,000
    # characters, the norm page its first page's opening.
    assert sampler.peak - before < GIANT_CHARS // 2, (before, sampler.peak)


def test_a_search_over_a_100_mb_text_too_costly_or_left_by_its_client_stops(giant_site,
                                                                          monkeypatch):
    """Past its deadline: the 503 that says to narrow it, on every search route. Its client
    gone: the real search over the giant text, asked after that, does no work
    (SearchCancelled), rather than read and rank for nobody."""
    from locleg.web.views import search as search_view

    corpus = giant_site.corpus
    with LiveServer(corpus, refresh_at_start=False, search_deadline=1e-9) as live, \
            httpx.Client(base_url=live.url, timeout=60) as client:
        for path in ("/search", "/search.json", "/search.csv", "/search.jsonl"):
            response = client.get(f"{path}?q={BIG_TEXT_WORD}")
            assert response.status_code == 503, path
            assert "took longer than 1e-09 s and was stopped: narrow it" in response.text

    entered, left = threading.Event(), threading.Event()
    outcome: list[BaseException | str] = []
    real_search = search_view.search

    def held(store, request, budget):
        entered.set()
        assert left.wait(60)
        deadline = time.monotonic() + BOUND_S
        while not budget.cancelled and time.monotonic() < deadline:
            time.sleep(0.01)  # the server notices the closed connection within 0.1 s
        try:
            result = real_search(store, request, budget=budget)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            outcome.append(e)
            raise
        outcome.append(f"{result.total} found for nobody")
        return result

    monkeypatch.setattr(search_view, "search", held)
    with LiveServer(corpus, refresh_at_start=False, search_deadline=600) as live:
        with socket.create_connection(("127.0.0.1", live.port)) as client:
            client.sendall(f"GET /search?q={BIG_TEXT_WORD} HTTP/1.1\r\n"
                           "Host: 127.0.0.1\r\n\r\n".encode())
            assert entered.wait(60)
        left.set()
        wait_for(lambda: outcome, timeout=60, what="the search to end")
        monkeypatch.undo()
        after = httpx.get(f"{live.url}/search.json?q=mototaxista", timeout=60)
    assert [type(e) for e in outcome] == [SearchCancelled], outcome
    assert after.status_code == 200  # the server goes on serving


def test_a_client_that_leaves_stops_its_search(big_site):
    """A real uvicorn sees the connection close; the statement running for that client (one
    that would run for minutes) is stopped at once, not at the deadline."""
    corpus = big_site.corpus
    started, finished = threading.Event(), threading.Event()
    outcome: list[BaseException | str] = []
    live = LiveServer(corpus, refresh_at_start=False, search_deadline=600)
    inner = live.app.app  # the FastAPI app behind the .json suffix

    def slow_statement(budget: Budget) -> str:
        try:
            with inner.state.store.engine.connect() as conn, budget.guard(conn):
                started.set()
                conn.execute(text(
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                    "WHERE x < 3000000000) SELECT count(*) FROM c"
                    if conn.dialect.name == "sqlite" else "SELECT pg_sleep(300)"))
            outcome.append("finished")
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            outcome.append(e)
            raise
        finally:
            finished.set()
        return "done"

    @inner.get("/test/slow")
    async def slow(request: Request):
        return await run_for(request, slow_statement)

    with live:
        with socket.create_connection(("127.0.0.1", live.port)) as client:
            client.sendall(b"GET /test/slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert started.wait(60)
        left = time.monotonic()
        assert finished.wait(120)
    assert [type(e) for e in outcome] == [SearchCancelled]
    assert time.monotonic() - left < BOUND_S
    assert SearchTooCostly not in {type(e) for e in outcome}
