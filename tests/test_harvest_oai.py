"""OAI-PMH (oai_lexml): the recorded SAPL answers read field by field, and harvests of the
stand-in end to end: norms, URNs, files, deleted records, windows that keep offset paging
exact, 429, hostile XML, looping tokens, and no removals after an incomplete listing."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from locleg.fixtures.documents import born_digital_pdf
from locleg.fixtures.harvesting import JUAZEIRO, problems, run
from locleg.fixtures.oai_server import OAI_PATH, OaiServer
from locleg.harvest.oai import split_window
from locleg.harvest.oaixml import UnsafeXML, parse_identify, parse_list_records
from locleg.store.schema import document, norm, record, source, version
from tests.conftest import run_cli

DATA = Path(__file__).parent / "data"
ENDPOINT = "https://sapl.juazeiro.ba.leg.br/sistema/lexml/oai"


# -- the recorded pair ---------------------------------------------------------------------------


def test_the_recorded_identify_parses():
    ident = parse_identify((DATA / "oai_identify.xml").read_bytes())
    assert ident.repository_name == "Câmara Municipal de Juazeiro"
    assert ident.base_url == "http://127.0.0.1:8765/sistema/lexml"  # without /oai, as SAPL says
    assert (ident.protocol_version, ident.granularity) == ("2.0", "YYYY-MM-DDThh:mm:ssZ")
    assert ident.seconds and ident.error is None
    assert (ident.earliest, ident.deleted_record) == ("2001-01-01T10:00:00Z", "transient")
    assert ident.admin_email == "contato@juazeiro.ba.leg.br"
    assert ident.response_date == "2026-11-29T15:33:01Z"


def test_the_recorded_listrecords_parses_field_by_field():
    page = parse_list_records((DATA / "oai_listrecords.xml").read_bytes(), ENDPOINT)
    assert page.error is None and page.deleted == [] and page.notes == []
    assert len(page.records) == 10
    assert page.token == "metadataPrefix%3Doai_lexml%26cursor%3D10%26batch_size%3D11"
    assert page.complete_size is None  # SAPL does not say
    by_id = {r.native_id: r for r in page.records}
    lei = by_id["oai:cmj.juazeiro.ba.leg.br:sapl/lei;2011;2199"]
    assert lei.marker == "2024-08-11T12:15:10Z"
    assert lei.fields == {
        "urn": "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199",  # no @vigência
        "type_raw": "Lei Ordinária", "type_normalized": "lei", "number": "2199",
        "date": date(2011, 6, 27), "year": 2011,
        "ementa": "DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI E MOTO - ENTREGA NO ÂMBITO DO "
                  "MUNICÍPIO DE JUAZEIRO , E DÁ OUTRAS PROVIDÊNCIAS.",
        # SAPL wrote its links for the Host it was called with: put back on the source's.
        "url": "https://sapl.juazeiro.ba.leg.br/norma/1"}
    assert lei.files == [("https://sapl.juazeiro.ba.leg.br/media/sapl/public/normajuridica/"
                          "2011/1/lei_2199_de_2011.pdf", "texto_integral")]
    lc = by_id["oai:cmj.juazeiro.ba.leg.br:sapl/lei.complementar;2013;45"]
    assert (lc.fields["type_raw"], lc.fields["type_normalized"], lc.fields["number"],
            lc.fields["date"]) == ("Lei Complementar", "lei.complementar", "45",
                                   date(2013, 3, 4))
    assert lc.files == []  # its "conteudo" is the norm's page: SAPL's way of saying no file
    assert lc.fields["url"] == "https://sapl.juazeiro.ba.leg.br/norma/2"
    res = by_id["oai:cmj.juazeiro.ba.leg.br:sapl/resolucao;2012;45"]
    assert res.fields["urn"] == \
        "urn:lex:br;bahia;juazeiro:camara.municipal:resolucao:2012-11-07;45"
    assert (res.fields["type_raw"], res.fields["type_normalized"]) == ("Resolução", "resolucao")
    assert res.files[0][0].endswith("/2012/23/resolucao_45-2012.odt")
    elo = by_id["oai:cmj.juazeiro.ba.leg.br:sapl/emenda.lei.organica;2012;9"]
    assert (elo.fields["type_raw"], elo.fields["type_normalized"], elo.fields["date"]) == (
        "Emenda à Lei Orgânica", "emenda.lei.organica", date(2012, 9, 26))
    dl = by_id["oai:cmj.juazeiro.ba.leg.br:sapl/decreto.legislativo;2012;11"]
    assert dl.fields["type_normalized"] == "decreto.legislativo"
    # Ordered by the norm's date, not by datestamp: windows cannot lean on the order.
    assert page.datestamps[:3] == ["2024-04-30T20:00:00Z", "2024-05-15T12:15:14Z",
                                   "2024-05-22T12:15:21Z"]


@pytest.mark.parametrize("body", [
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;'
    b'&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
    b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><Identify><repositoryName>&c;'
    b"</repositoryName></Identify></OAI-PMH>",
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><Identify><repositoryName>&x;'
    b"</repositoryName></Identify></OAI-PMH>",
    b'<?xml version="1.0"?><!DOCTYPE r SYSTEM "http://127.0.0.1:9/evil.dtd">'
    b'<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"/>',
], ids=["billion-laughs", "external-entity", "external-dtd"])
def test_entities_and_doctypes_are_refused(body):
    with pytest.raises(UnsafeXML, match="DOCTYPE"):
        parse_identify(body)


def test_windows_split_in_equal_time_without_gaps_or_overlaps():
    window = ["2024-01-01T00:00:00Z", "2024-01-01T00:00:59Z"]
    parts = split_window(window, 4, True)
    assert parts == [["2024-01-01T00:00:00Z", "2024-01-01T00:00:14Z"],
                     ["2024-01-01T00:00:15Z", "2024-01-01T00:00:29Z"],
                     ["2024-01-01T00:00:30Z", "2024-01-01T00:00:44Z"],
                     ["2024-01-01T00:00:45Z", "2024-01-01T00:00:59Z"]]
    # A window of one second cannot be split; two seconds make two windows at most.
    assert split_window(["2024-01-01T00:00:00Z"] * 2, 4, True) == [
        ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"]]
    assert split_window(["2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z"], 8, True) == [
        ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"],
        ["2024-01-01T00:00:01Z", "2024-01-01T00:00:01Z"]]
    assert split_window(["2024-01-01", "2024-01-04"], 2, False) == [
        ["2024-01-01", "2024-01-02"], ["2024-01-03", "2024-01-04"]]


# -- harvests of the stand-in --------------------------------------------------------------------


def _add(corpus, server: OaiServer, **settings) -> int:
    return corpus.store.ensure_source(JUAZEIRO, "oai", server.url + OAI_PATH,
                                      {"delay": 0, **settings})


def _records(corpus) -> dict[str, dict]:
    with corpus.store.engine.connect() as conn:
        return {r["native_id"]: dict(r) for r in conn.execute(select(record)).mappings()}


def _live(corpus) -> set[str]:
    return {k for k, r in _records(corpus).items() if r["removed_at"] is None}


def _ids(server: OaiServer) -> set[str]:
    return {server.identifier(n) for n in server.norms.values() if not n.deleted}


def _listing_targets(server: OaiServer) -> list[str]:
    return [r.target for r in server.requests(path="verb=ListRecords")]


@pytest.fixture
def oai():
    server = OaiServer(25, files_every=3).start()
    yield server
    server.stop()


def test_sources_add_and_harvest_end_to_end(tmp_path, oai):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    added = run_cli("sources", "add", "oai", oai.url, "-j", str(JUAZEIRO), "--delay", "0",
                    corpus=folder, check=True)
    out = " ".join(added.stdout.split())
    assert f"{oai.url}/sistema/lexml/oai" in out and "Câmara Municipal de CMJ" in out
    detected = run_cli("sources", "add", oai.url, "-j", str(JUAZEIRO), corpus=folder,
                       check=True)  # no platform named: SAPL 3.1 is tried first, then OAI
    assert "(detected)" in detected.stdout and "Already known: source 1" in detected.stdout
    run_cli("harvest", "--source", "1", corpus=folder, check=True)

    from locleg.corpus import open_corpus
    corpus = open_corpus(folder)
    try:
        records = _records(corpus)
        assert set(records) == _ids(oai) and len(records) == 25
        lei = records["oai:cmj.juazeiro.ba.leg.br:sapl/lei;2001;1014"]
        n14 = oai.norms[14]
        assert (lei["type_raw"], lei["type_normalized"], lei["number"], lei["date"]) == (
            "Lei Ordinária", "lei", "1014", n14.data)
        assert lei["url"] == f"{oai.url}/norma/14" and lei["ementa"] == n14.ementa
        with corpus.store.engine.connect() as conn:
            urns = dict(conn.execute(select(record.c.native_id, norm.c.urn)
                                     .join(norm, norm.c.id == record.c.norm_id)).all())
            docs = conn.execute(select(document.c.url, document.c.role, version.c.sha256)
                                .join(version, version.c.id == document.c.current_version_id)
                                ).all()
        assert urns[lei["native_id"]] == oai.urn(n14)
        for n in oai.norms.values():
            # The corpus writes its own URN (enrich/urn.py): "municipal" where SAPL says a
            # resolução is the câmara's ("camara.municipal").
            assert urns[oai.identifier(n)] == oai.urn(n).replace("camara.municipal", "municipal")
        with_files = [n for n in oai.norms.values() if n.has_file]
        assert len(docs) == len(with_files) == 8
        for url, role, sha in docs:
            assert role == "texto_integral"
            pk = int(url.split("/")[-2])
            assert corpus.blobs.read(sha) == oai.file_bytes(oai.norms[pk])
    finally:
        corpus.close()

    # Between runs: one norm deleted, one file replaced in place.
    oai.delete_norm(3)
    new_pdf = born_digital_pdf("Lei nº 1006/2001", ["Texto novo, republicado."])
    path = oai.replace_file(6, new_pdf)
    second = run_cli("harvest", "--source", "1", "--refresh", corpus=folder, check=True)
    assert "Traceback" not in second.stderr
    corpus = open_corpus(folder)
    try:
        records = _records(corpus)
        assert records[oai.identifier(oai.norms[3])]["removed_at"] is not None
        assert _live(corpus) == _ids(oai)
        with corpus.store.engine.connect() as conn:
            sha = conn.scalar(select(version.c.sha256)
                              .join(document, document.c.current_version_id == version.c.id)
                              .where(document.c.url == oai.url + path))
        assert corpus.blobs.read(sha) == new_pdf
        # An incremental cycle: from the last `until` minus a margin, not the whole list.
        assert "from=" in _listing_targets(oai)[-1] or "resumptionToken" in \
            _listing_targets(oai)[-1]
    finally:
        corpus.close()


class Busy(OaiServer):
    """While the harvester pages through a window (at its first token), `during` happens."""

    during = None

    def answer(self, request):
        response = super().answer(request)
        if "resumptionToken" in request.target and self.during is not None:
            during, self.during = self.during, None
            during(self)
        return response


def test_windows_keep_offset_paging_exact_while_norms_are_added(corpus):
    with Busy(60, files_every=0) as server:
        # The newest norms, page 1 of the -data order: offsets shift by three.
        server.during = lambda s: [s.add_norm(data=date(2026, 11, 30)) for _ in range(3)]
        source_id = _add(corpus, server, oai_max_pages=100)
        report = run(corpus, [source_id])
        assert report.errors == 0 and report.removed == 0
        assert _live(corpus) == _ids(server) and len(_ids(server)) == 63
        assert [p["subject"] for p in problems(corpus)] == []
        targets = _listing_targets(server)
        assert "until=" in targets[0] and "from=" in targets[0]
        # Each of the 60 came once from the window, the 3 new ones from the catch-up.
        windowed = [t for t in targets if "until=" in t or "resumptionToken" in t]
        assert len(windowed) == 6


def test_a_norm_changed_mid_paging_never_hides_another_from_a_full_cycle(corpus):
    with Busy(60, files_every=0) as server:
        source_id = _add(corpus, server, oai_max_pages=100)
        run(corpus, [source_id])
        assert _live(corpus) == _ids(server)
        # A norm of page 1 leaves the window being paged (its datestamp moves past `until`):
        # every later record moves up a place, and the first of page 3 is never read.
        changed = server.ordered()[5]
        server.during = lambda s: s.update_norm(changed.pk, ementa="Alterada ao paginar.")
        report = run(corpus, [source_id], full=True)
        assert report.errors == 0 and report.removed == 0
        assert _live(corpus) == _ids(server)
        assert _records(corpus)[server.identifier(changed)]["ementa"] == "Alterada ao paginar."
        # The unseen norm was asked for by its own datestamp before anything was removed.
        alone = [t for t in _listing_targets(server) if "&until=" in t
                 and t.split("&from=")[1].split("&until=")[0] == t.split("&until=")[1]]
        assert len(alone) == 1


def test_a_window_of_too_many_pages_is_split(corpus):
    with OaiServer(120, files_every=0) as server:
        source_id = _add(corpus, server, oai_max_pages=3)
        report = run(corpus, [source_id])
        assert report.errors == 0 and _live(corpus) == _ids(server)
        windows = {tuple(t.split("&from=")[1].split("&until=")) for t in
                   _listing_targets(server) if "from=" in t and "until=" in t}
        assert len(windows) > 4  # the first window, then its parts (and theirs)
        with corpus.store.engine.connect() as conn:
            state = json.loads(conn.scalar(select(source.c.state)
                                           .where(source.c.id == source_id)))
        assert state["identify"]["granularity"] == "YYYY-MM-DDThh:mm:ssZ"
        assert state["oai_until"].endswith("Z")  # where the next incremental cycle starts


def test_429_with_retry_after_is_obeyed(corpus, oai):
    oai.add_fault("429", "verb=ListRecords", times=1, value=1)
    source_id = _add(corpus, oai)
    report = run(corpus, [source_id])
    assert _live(corpus) == _ids(oai) and report.cycles_finished == 1
    listing = oai.requests(path="verb=ListRecords")
    assert [r.status for r in listing[:2]] == [429, 200] and listing[0].target == \
        listing[1].target
    assert listing[1].time - listing[0].time >= 0.9


@pytest.mark.parametrize("fault", ["billion_laughs", "external_entity", "malformed_xml"])
def test_hostile_or_broken_xml_is_refused_and_removes_nothing(corpus, oai, fault):
    source_id = _add(corpus, oai)
    run(corpus, [source_id])
    assert len(_live(corpus)) == 25
    gone = oai.identifier(oai.norms[7])
    oai.drop_norm(7)  # gone without a trace (deletedRecord transient)
    oai.add_fault(fault, "resumptionToken", times=1)
    report = run(corpus, [source_id], full=True)
    assert report.removed == 0 and gone in _live(corpus)  # the listing was not complete
    said = " ".join(p["message"] for p in problems(corpus))
    expected = "malformed XML" if fault == "malformed_xml" else "DOCTYPE"
    assert expected in said and "no removals this cycle" in said
    with corpus.store.engine.connect() as conn:
        assert "incomplete" in conn.scalar(select(source.c.last_error)
                                           .where(source.c.id == source_id))
    report = run(corpus, [source_id], full=True)  # complete again: now it is removed
    assert report.removed == 1 and gone not in _live(corpus)


def test_a_looping_token_is_stopped_and_recorded(corpus, oai):
    oai.add_fault("looping_token", "resumptionToken")
    source_id = _add(corpus, oai)
    report = run(corpus, [source_id])
    tokens = [r.target for r in oai.requests(path="resumptionToken")]
    assert len(tokens) == 1  # it came back as the answer to itself: not followed again
    said = [p["message"] for p in problems(corpus)]
    assert any("the resumption token loops" in m for m in said)
    assert report.removed == 0 and len(_live(corpus)) == 10  # the first page only


def test_a_publisher_error_is_a_recorded_problem(corpus, oai):
    class NoLexml(OaiServer):
        def answer(self, request):
            if "metadataPrefix=oai_lexml" in request.target:
                return self._error(request, "cannotDisseminateFormat",
                                   "oai_lexml is not supported by the item or by the repository.")
            return super().answer(request)

    with NoLexml(5) as server:
        source_id = _add(corpus, server)
        run(corpus, [source_id])
        said = " ".join(p["message"] for p in problems(corpus))
        assert "OAI-PMH error cannotDisseminateFormat: oai_lexml is not supported" in said
        assert _records(corpus) == {}
        assert len(_listing_targets(server)) == 1  # every window would fail alike


# -- hostile publishers (issue 23) ------------------------------------------------------------


@pytest.mark.parametrize("clock", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
                                   "2013-02-30T00:00:00Z", "amanhã"])
def test_an_absurd_publisher_clock_is_recorded_and_the_listing_goes_on(corpus, oai, clock):
    oai.response_date = clock
    source_id = _add(corpus, oai)
    report = run(corpus, [source_id])
    assert report.cycles_finished == 1 and _live(corpus) == _ids(oai)
    said = [p["message"] for p in problems(corpus)]
    assert [m for m in said if m.startswith("the publisher's clock (responseDate) "
                                            f"{clock!r} is not a plausible datestamp")]


def test_a_huge_resumption_token_is_refused_with_its_cause_first(corpus, oai):
    oai.add_fault("huge_token", "verb=ListRecords", times=1)
    source_id = _add(corpus, oai)
    report = run(corpus, [source_id])
    assert report.cycles_finished == 1 and report.removed == 0
    assert len(_live(corpus)) == 10  # the page that carried it is kept
    assert max(len(r.target) for r in oai.requests()) < 4096  # never sent back
    said = [p["message"] for p in problems(corpus)]
    refused = [m for m in said if m.startswith("a resumption token of 5,000,000 characters "
                                               "(at most 2,000 are followed) refused")]
    assert refused and len(refused[0]) < 1000 and "no removals this cycle" in refused[0]
    with corpus.store.engine.connect() as conn:
        assert len(conn.scalar(select(source.c.last_error))) < 1000


@pytest.mark.parametrize("complete_list_size", [False, True])
def test_a_listing_that_never_ends_is_stopped_and_recorded(corpus, complete_list_size):
    with OaiServer(25, files_every=0, complete_list_size=complete_list_size) as server:
        server.add_fault("endless_token", "verb=ListRecords")
        source_id = _add(corpus, server)
        report = run(corpus, [source_id], max_time=300)
        listing = _listing_targets(server)
    assert report.cycles_finished == 1 and report.removed == 0
    assert _live(corpus) == _ids(server)
    # Three rounds of nothing new at most per window: never stopped by the clock.
    assert len(listing) < 40
    said = [p["message"] for p in problems(corpus)]
    assert [m for m in said if m.startswith("the listing runs away: ")]
