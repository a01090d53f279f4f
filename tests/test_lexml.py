"""LexML SRU: the answer read field by field, paging, diagnostics, politeness, and the
cross-check of a place's norms with LexML's records, through the command line."""

from __future__ import annotations

import asyncio
import json
import time
import unicodedata
from datetime import date

import pytest

from locleg.errors import UserError
from locleg.fixtures.sru_server import SRU_PATH, SruRecord, SruServer, juazeiro_records
from locleg.harvest.lexml import SruError, base_urn, check, parse_sru, search
from locleg.harvest.net import Resolver
from locleg.store import utcnow
from tests.conftest import run_cli

JUAZEIRO = 2918407


@pytest.fixture
def sru():
    server = SruServer(juazeiro_records()).start()
    yield server
    server.stop()


def _search(server: SruServer, query: str, **kw):
    return asyncio.run(search(query, sru_url=server.sru_url, resolver=Resolver({}), pause=0,
                              **kw))


def test_an_answer_is_read_field_by_field_with_accents_composed(sru):
    total, records = _search(sru, 'urn="urn:lex:br;bahia;juazeiro:municipal:lei:2011*"')
    assert total == 1 and len(records) == 1
    r = records[0]
    assert r.urn == "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199"
    assert (r.tipo, r.localidade, r.autoridade, r.date) == (
        "Lei", "Juazeiro - BA", "Municipal", "2011-06-27")
    assert r.title == "Lei nº 2.199, de 27 de Junho de 2011"
    assert r.description.startswith("Dispõe sobre o serviço de moto-táxi")
    # LexML sends "Dispõe" decomposed (o + combining tilde): read as one character.
    assert unicodedata.is_normalized("NFC", r.description) and "õ" in r.description
    raw = sru.requests(path=SRU_PATH)
    assert raw and "version=1.1" in raw[-1].target and "startRecord=1" in raw[-1].target


def test_paging_by_start_record_until_max(sru):
    sru.records = [SruRecord(f"urn:lex:br;bahia;juazeiro:municipal:lei:2020-01-01;{n}", "Lei",
                             "Juazeiro - BA", "Municipal", "2020-01-01", f"Lei nº {n}", "x")
                   for n in range(1, 26)]
    total, records = _search(sru, 'localidade="Juazeiro - BA"', max_records=100, page=10)
    assert total == 25 and [r.urn.rsplit(";", 1)[1] for r in records] == [
        str(n) for n in range(1, 26)]
    starts = [r.target.split("startRecord=")[1].split("&")[0]
              for r in sru.requests(path=SRU_PATH)]
    assert starts == ["1", "11", "21"]
    total, records = _search(sru, 'localidade="Juazeiro - BA"', max_records=12, page=10)
    assert total == 25 and len(records) == 12
    assert "maximumRecords=2" in sru.requests(path=SRU_PATH)[-1].target


def test_a_busy_answer_is_waited_for(sru):
    sru.add_fault("429", SRU_PATH, times=1, value=1)
    waits = []
    total, _ = _search(sru, "moto", on_wait=lambda s, why: waits.append((s, why)))
    assert total == 1 and waits == [(1.0, "HTTP 429 Retry-After")]
    assert [r.status for r in sru.requests(path=SRU_PATH)] == [429, 200]


def test_an_answer_that_trickles_ends_at_the_request_deadline(sru, monkeypatch):
    """A byte a second passes every per-read timeout; LOCLEG_REQUEST_DEADLINE ends it."""
    monkeypatch.setenv("LOCLEG_REQUEST_DEADLINE", "2")
    sru.trickle(SRU_PATH, interval=1)
    started = time.monotonic()
    with pytest.raises(SruError, match="answered too slowly: no whole answer within 2 s"):
        _search(sru, "moto")
    assert time.monotonic() - started < 30


def test_robots_txt_is_obeyed(sru):
    class Refusing(SruServer):
        def answer(self, request):
            if request.path == "/robots.txt":
                from locleg.fixtures.server import Response
                return Response.text(200, "User-agent: *\nDisallow: /busca/\n")
            return super().answer(request)

    with Refusing(juazeiro_records()) as refusing:
        with pytest.raises(SruError, match="robots.txt does not let br-locleg read /busca/SRU"):
            _search(refusing, "moto")
        assert refusing.requests(path=SRU_PATH) == []


def test_diagnostics_and_hostile_xml_are_one_line_errors(sru):
    with pytest.raises(SruError) as e:
        _search(sru, 'localidade="Juazeiro')
    assert str(e.value) == ("LexML refused the query: Query syntax error: unbalanced quotes; "
                            'localidade="Juazeiro')
    laughs = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
              b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
              b'<searchRetrieveResponse><numberOfRecords>&b;</numberOfRecords>'
              b"</searchRetrieveResponse>")
    with pytest.raises(SruError, match="DOCTYPE"):
        parse_sru(laughs)
    with pytest.raises(SruError, match="not an SRU answer"):
        parse_sru("<html><body>Manutenção</body></html>".encode())
    with pytest.raises(UserError, match="not an SRU base URL"):
        asyncio.run(search("x", sru_url="ftp://lexml.gov.br/busca"))


def test_base_urn_drops_version_and_fragment():
    assert base_urn("urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199@inicio.vigencia;"
                    "publicacao;2011-06-29!art1") == \
        "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199"
    assert base_urn("http://x") is None and base_urn(None) is None


def _fill(corpus) -> None:
    """Juazeiro's corpus: Lei 2199, LC 45 and Resolução 45 (LexML has them), Lei 2240 (LexML
    has not), a norm whose type is unknown (no URN), and a removed norm (not compared)."""
    source_id = corpus.store.ensure_source(JUAZEIRO, "sapl", "http://sapl.example", {})
    rows = [("1", "Lei Ordinária", "lei", "2199", date(2011, 6, 27)),
            ("2", "Lei Complementar", "lei.complementar", "45", date(2013, 3, 4)),
            ("3", "Lei Ordinária", "lei", "2.240", date(2012, 3, 28)),
            ("4", "Legislação Municipal", "outro", "7", date(2012, 1, 2)),
            ("5", "Lei Ordinária", "lei", "1100", date(1990, 4, 5)),
            ("6", "Resolução", "resolucao", "45", date(2012, 11, 7))]
    with corpus.store.transaction() as conn:
        corpus.store.upsert_records(conn, source_id, [
            {"native_id": n, "jurisdiction_code": JUAZEIRO, "type_raw": raw,
             "type_normalized": t, "number": num, "year": d.year, "date": d,
             "ementa": f"ementa {n}", "url": f"http://sapl.example/norma/{n}"}
            for n, raw, t, num, d in rows], utcnow())
    from sqlalchemy import select

    from locleg.store.schema import record
    with corpus.store.transaction() as conn:
        gone = conn.scalar(select(record.c.id).where(record.c.native_id == "5"))
        corpus.store.remove_records(conn, [gone], utcnow())


def test_check_compares_a_place_by_urn(corpus, sru):
    _fill(corpus)
    result = asyncio.run(check(corpus, JUAZEIRO, sru_url=sru.sru_url, resolver=Resolver({}),
                               pause=0, query='localidade any "Juazeiro"'))
    assert (result.corpus_norms, result.corpus_without_urn) == (5, 1)
    assert (result.lexml_total, result.lexml_records, result.lexml_elsewhere) == (5, 4, 1)
    # Resolução 45 is in both: LexML's URN says camara.municipal, the corpus's municipal.
    assert result.both == 3 and not result.truncated
    assert [r["urn"] for r in result.only_corpus] == [
        "urn:lex:br;bahia;juazeiro:municipal:lei:2012-03-28;2240"]
    assert [r["urn"] for r in result.only_lexml] == [
        "urn:lex:br;bahia;juazeiro:municipal:lei:1990-04-05;1100"]
    assert result.only_lexml[0]["title"] == "Lei nº 1.100, de 05 de Abril de 1990"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_lexml_commands(corpus, sru):
    _fill(corpus)
    folder = str(corpus.folder)
    found = run_cli("lexml", "search", "moto", "--sru-url", sru.sru_url, "--json",
                    corpus=corpus.folder, check=True)
    data = json.loads(found.stdout)
    assert data["total"] == 1 and data["records"][0]["urn"].endswith(";2199")
    shown = run_cli("lexml", "search", 'localidade="Juazeiro - BA"', "--max", "2",
                    "--sru-url", sru.sru_url, check=True)
    assert "2 shown of 4 records in LexML" in shown.stdout
    assert "Lei nº 2.199, de 27 de Junho de 2011" in shown.stdout
    checked = run_cli("lexml", "check", "-j", str(JUAZEIRO), "--sru-url", sru.sru_url,
                      "--corpus", folder, check=True)
    out = " ".join(checked.stdout.split())
    assert 'localidade="Juazeiro - BA"' in out
    assert "in both 3" in out and "only in the corpus 1" in out and "only in LexML 1" in out
    assert "urn:lex:br;bahia;juazeiro:municipal:lei:2012-03-28;2240" in out
    as_json = json.loads(run_cli("lexml", "check", "-j", str(JUAZEIRO), "--json", "--sru-url",
                                 sru.sru_url, "--corpus", folder, check=True).stdout)
    assert as_json["both"] == 3 and as_json["lexml_elsewhere"] == 0
    bad = run_cli("lexml", "search", 'urn="x', "--sru-url", sru.sru_url)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines() == [
        'error: LexML refused the query: Query syntax error: unbalanced quotes; urn="x']
    limited = run_cli("lexml", "check", "-j", str(JUAZEIRO), "--max", "1", "--sru-url",
                      sru.sru_url, "--corpus", folder, check=True)
    assert "LexML holds 4 records for the query, 1 were read" in " ".join(
        limited.stderr.split())
