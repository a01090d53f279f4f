"""Querido Diário as a source, end to end: gazettes listed in date windows, their texts
archived and cut into acts, the normative acts stored as records of norms (one norm with the
câmara's SAPL record of the same law), the rest as gazette acts only; bad input recorded."""

from __future__ import annotations

import json
from datetime import date, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select

from locleg.corpus import open_corpus
from locleg.fixtures.documents import scanned_pdf
from locleg.fixtures.harvesting import JUAZEIRO, add_source, problems, run
from locleg.fixtures.querido_diario_server import Gazette, QueridoDiarioServer
from locleg.fixtures.sapl_server import Camara, SaplServer
from locleg.harvest import querido_diario
from locleg.store.gazette_schema import gazette, gazette_act
from locleg.store.schema import document, extraction, norm, page, record, source, version
from tests import gazette_fixtures
from tests.conftest import run_cli

TERRITORY = str(JUAZEIRO)

LAW_GAZETTE = """DIÁRIO OFICIAL DO MUNICÍPIO DE JUAZEIRO
Ano XXV - Edição nº 100 - Juazeiro, 29 de junho de 2011

PREFEITURA MUNICIPAL DE JUAZEIRO
GABINETE DO PREFEITO

LEI Nº 2.199, DE 27 DE JUNHO DE 2011
Dispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do Município de Juazeiro, e dá
outras providências.
O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições, faço saber que
a Câmara Municipal aprovou e eu sanciono a seguinte Lei:
Art. 1º O serviço de moto-táxi e moto-entrega no Município de Juazeiro obedece ao disposto
nesta Lei e no seu regulamento, na forma que segue e com as exigências dos órgãos de trânsito.
Art. 2º Fica revogada a
Lei nº 1.996, de 10 de março de 2008, que dispunha sobre o mesmo serviço no Município.
Art. 3º Esta Lei entra em vigor na data de sua publicação.
Juazeiro, 27 de junho de 2011.
ISAAC CAVALCANTE DE CARVALHO
Prefeito Municipal

EXTRATO DO CONTRATO Nº 45/2011
Contratante: Prefeitura Municipal de Juazeiro. Contratada: Moto Peças do Vale Ltda. Objeto:
aquisição de capacetes para o programa de moto-táxi, pelo valor de R$ 12.000,00. Vigência de
doze meses a contar da data da assinatura.
Juazeiro, 28 de junho de 2011.
Secretário de Administração

DECRETO Nº 10, DE 28 DE JUNHO DE 2011
Regulamenta a Lei nº 2.199, de 27 de junho de 2011, que dispõe sobre o moto-táxi.
O PREFEITO MUNICIPAL DE JUAZEIRO, no uso de suas atribuições legais, DECRETA:
Art. 1º O cadastro dos mototaxistas será feito na Secretaria de Trânsito, que emitirá a
licença de cada condutor depois de conferidos os documentos e a vistoria da motocicleta.
Art. 2º Este Decreto entra em vigor na data de sua publicação.
Juazeiro, 28 de junho de 2011.
ISAAC CAVALCANTE DE CARVALHO
Prefeito Municipal
"""


def republication() -> str:
    """Decreto 10/2011 printed again a week later, corrected."""
    start = LAW_GAZETTE.index("DECRETO Nº 10")
    text = LAW_GAZETTE[start:].replace("depois de conferidos", "após conferidos")
    return ("DIÁRIO OFICIAL DO MUNICÍPIO DE JUAZEIRO\nAno XXV - Edição nº 104 - Juazeiro, 5 de "
            "julho de 2011\n\n*Republicado por incorreção\n" + text)


SCANNED_LAW = ["LEI Nº 2.300, DE 3 DE JANEIRO DE 2023",
               "Dispõe sobre a feira livre do bairro Centro.",
               "O PREFEITO MUNICIPAL DE JUAZEIRO, no uso de suas atribuições,",
               "faço saber que a Câmara aprovou e eu sanciono a seguinte Lei:",
               "Art. 1º A feira livre do bairro Centro funcionará aos sábados.",
               "Art. 2º Esta Lei entra em vigor na data de sua publicação.",
               "Juazeiro, 3 de janeiro de 2023.", "Prefeito Municipal"]


def labelled(name: str) -> gazette_fixtures.LabelledGazette:
    return next(g for g in gazette_fixtures.gazettes() if g.name == name)


def the_gazettes() -> list[Gazette]:
    first, rest = labelled("continued-900-1"), labelled("continued-900-2")
    return [
        Gazette(TERRITORY, date(2011, 6, 29), LAW_GAZETTE, edition="100", host="cdn"),
        Gazette(TERRITORY, date(2011, 7, 5), republication(), edition="104"),
        Gazette(TERRITORY, date(2019, 3, 4), labelled("one-per-page-100").text,
                edition="2001", listed_twice=True),
        Gazette(TERRITORY, date(2021, 3, 1), first.text, edition="301"),
        Gazette(TERRITORY, date(2021, 3, 2), rest.text, edition="302"),
        Gazette(TERRITORY, date(2022, 5, 1), labelled("truncated-1000").text, edition="400"),
        Gazette(TERRITORY, date(2023, 1, 2), "\f\n\n  \f", edition="500",
                pdf=scanned_pdf([SCANNED_LAW])),
    ]


def add_gazette_source(corpus, url: str, **settings) -> int:
    source_id = corpus.store.ensure_source(JUAZEIRO, "querido-diario", url,
                                           {"delay": 0, **settings})
    return source_id


def rows_of(corpus, table) -> list[dict]:
    with corpus.store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(table).order_by(table.c.id)).mappings()]


def records_of(corpus, source_id: int) -> dict[str, dict]:
    with corpus.store.engine.connect() as conn:
        return {r["native_id"]: dict(r) for r in conn.execute(
            select(record).where(record.c.source_id == source_id)).mappings()}


def current_text(corpus, record_id: int) -> list[tuple[str, str]]:
    with corpus.store.engine.connect() as conn:
        found = conn.execute(select(document.c.url, version.c.sha256)
                             .join(version, version.c.id == document.c.current_version_id)
                             .where(document.c.record_id == record_id)
                             .order_by(document.c.id)).all()
    return [(url, corpus.blobs.read(sha).decode()) for url, sha in found]


@pytest.fixture
def server():
    with QueridoDiarioServer(the_gazettes()) as srv:
        yield srv


def test_gazettes_become_acts_and_normative_acts_norms(corpus, server):
    source_id = add_gazette_source(corpus, server.url)
    report = run(corpus)
    assert report.cycles_started == report.cycles_finished == 1
    gazettes = rows_of(corpus, gazette)
    # The gazette listed twice (once as an extra edition) is one gazette, flagged extra.
    assert len(gazettes) == 7
    twice = [g for g in gazettes if g["edition"] == "2001"]
    assert len(twice) == 1 and twice[0]["is_extra"] is True
    assert all(g["segmented_at"] is not None for g in gazettes)
    # Both storage hosts are read: the cdn one's text archived as an original.
    first = next(g for g in gazettes if g["edition"] == "100")
    assert "/cdn/" in first["txt_url"]
    assert corpus.blobs.read(first["text_sha256"]).decode() == LAW_GAZETTE

    records = records_of(corpus, source_id)
    law = records["lei/2199/2011"]
    assert (law["type_normalized"], law["number"], law["year"], law["date"]) == (
        "lei", "2199", 2011, date(2011, 6, 27))
    assert law["ementa"].startswith("Dispõe sobre o serviço de moto-táxi")
    assert law["type_raw"] == "LEI"
    # The act's span, its own original, named by an RFC 5147 fragment of the gazette's text.
    [(url, text)] = current_text(corpus, law["id"])
    start, end = (int(x) for x in url.rsplit("#char=", 1)[1].split(","))
    assert url.startswith(first["txt_url"]) and LAW_GAZETTE[start:end] == text
    assert text.startswith("LEI Nº 2.199") and "EXTRATO" not in text

    acts = rows_of(corpus, gazette_act)
    of_first = [a for a in acts if a["gazette_id"] == first["id"]]
    assert [(a["kind"], a["number"], a["record_id"] is not None) for a in of_first] == [
        ("lei", "2199", True), ("contrato", "45", False), ("decreto", "10", True)]
    # The law cited at the start of a line in the law's body is no act.
    assert not [a for a in acts if a["number"] == "1996"]
    # Non-normative matter stays a gazette act: no record, no norm.
    assert not [r for r in records.values() if r["type_normalized"] == "contrato"]

    # The republished decree: one record, two publications.
    decree = [a for a in acts if a["kind"] == "decreto" and a["number"] == "10"]
    assert len(decree) == 2 and len({a["record_id"] for a in decree}) == 1
    assert "republished" in (decree[1]["flags"] or "")
    assert len([r for r in records if r.startswith("decreto/10/")]) == 1
    # Each publication is a span of its own gazette; the engine never fetched a gazette's
    # whole text as the act's (the URL's fragment names a part of a file).
    spans = current_text(corpus, decree[0]["record_id"])
    assert [t.startswith("DECRETO Nº 10") for _, t in spans] == [True, True]
    assert "após conferidos" in spans[1][1] and "depois de conferidos" in spans[0][1]

    # The act continued in the next edition: its record's text is both parts joined.
    cont = [a for a in acts if a["flags"] and "continu" in a["flags"]]
    assert len(cont) == 2 and len({a["record_id"] for a in cont}) == 1
    texts = current_text(corpus, cont[0]["record_id"])
    assert len(texts) == 1 and "(Continua na próxima edição)" in texts[0][1]
    assert texts[0][1].count("(Continuação)") == 1

    # Bad input: the empty text is recorded, its PDF archived and OCRed by us, and the
    # OCR text segmented: the scanned law is a norm, its span of the OCR text its original.
    empty = next(g for g in gazettes if g["edition"] == "500")
    messages = [p["message"] for p in problems(corpus)]
    assert any("gazette of 02/01/2023: no text" in m and "PDF is archived" in m
               and "for OCR" in m for m in messages)
    assert empty["quality"] is None, empty["quality"]
    assert "feira livre" in corpus.blobs.read(empty["ocr_sha256"]).decode()
    assert corpus.blobs.read(empty["text_sha256"]) == b"\f\n\n  \f"  # theirs, kept
    scanned = records["lei/2300/2023"]
    assert (scanned["date"], scanned["number"]) == (date(2023, 1, 3), "2300")
    [(url, text)] = current_text(corpus, scanned["id"])
    assert url.startswith(empty["url"] + "#ocr#char=") and "sábados" in text
    assert empty["pdf_sha256"] and corpus.blobs.read(empty["pdf_sha256"]).startswith(b"%PDF")
    assert [g["edition"] for g in gazettes if g["pdf_sha256"]] == ["500"]  # no --with-pdf
    assert any("truncated" in m for m in messages)
    assert any(a["flags"] and "truncated" in a["flags"] for a in acts)


def test_the_same_law_from_sapl_and_the_gazette_is_one_norm(corpus, server):
    with SaplServer(Camara.juazeiro(crawl_delay=None)) as sapl:
        sapl_id = add_source(corpus, sapl.url)
        gazette_id = add_gazette_source(corpus, server.url)
        run(corpus)
    with corpus.store.engine.connect() as conn:
        found = conn.execute(select(record.c.source_id, record.c.norm_id).where(
            record.c.number == "2199", record.c.year == 2011)).all()
        the_norm = conn.execute(select(norm).where(norm.c.id == found[0].norm_id)).one()
    assert sorted(s for s, _ in found) == [sapl_id, gazette_id]
    assert len({n for _, n in found}) == 1 and the_norm.records == 2


def test_windows_split_under_the_result_window_and_cycles_are_incremental(corpus):
    gazettes = the_gazettes()
    with QueridoDiarioServer(gazettes, result_window=3) as srv:
        add_gazette_source(corpus, srv.url, result_window=3)
        report = run(corpus)
        assert report.cycles_finished == 1
        assert len(rows_of(corpus, gazette)) == 7
        asked = [parse_qs(urlsplit(r.target).query) for r in srv.requests(path="^/gazettes")]
        assert all(q["sort_by"] == ["ascending_date"] and q["territory_ids"] == [TERRITORY]
                   for q in asked)
        assert all(r.status == 200 for r in srv.requests(path="^/gazettes"))
        assert len(asked) > 3  # the whole range held 8 listings: it was cut
        assert "scraped_since" not in asked[0]
        texts_before = len(srv.requests(path=r"\.txt$"))

        # A new gazette scraped after the first cycle: the next one asks only for what was
        # scraped since (less a margin) and reads only the new text.
        new = Gazette(TERRITORY, date(2024, 2, 1), LAW_GAZETTE.replace("Nº 10,", "Nº 11,"),
                      edition="600", scraped_at=datetime(2099, 1, 1))
        srv.add(new)
        for g in gazettes:
            g.scraped_at = datetime(2000, 1, 1)
        # The first gazette, moved from the old CDN to the data host and scraped again: the
        # same file (its sha1), one gazette, its text not read again.
        gazettes[0].host, gazettes[0].scraped_at = "data", datetime(2099, 1, 1)
        before = len(srv.requests(path="^/gazettes"))
        report = run(corpus, refresh=True)
        assert report.cycles_finished == 1
        again = [parse_qs(urlsplit(r.target).query)
                 for r in srv.requests(path="^/gazettes")[before:]]
        assert again and all("scraped_since" in q for q in again)
        assert len(srv.requests(path=r"\.txt$")) == texts_before + 1
    after = rows_of(corpus, gazette)
    assert len(after) == 8
    assert "/data/" in next(g for g in after if g["edition"] == "100")["txt_url"]


def test_faults_are_retried_and_recorded(corpus, server):
    server.add_fault("429", "^/gazettes", times=1, value=1)
    server.add_fault("html", "^/gazettes", times=1)
    server.add_fault("500", r"\.txt$", times=1)
    add_gazette_source(corpus, server.url)
    report = run(corpus)
    assert report.cycles_finished == 1
    assert len(rows_of(corpus, gazette)) == 7
    assert all(g["segmented_at"] is not None for g in rows_of(corpus, gazette))
    messages = [p["message"] for p in problems(corpus)]
    assert report.pauses == 1  # the 429's Retry-After: a pause asked for, no problem
    assert not any("HTTP 429" in m for m in messages)
    assert any("HTML page instead of JSON" in m for m in messages)
    assert any("HTTP 500" in m for m in messages)


def test_sources_add_and_harvest_from_the_command_line(tmp_path, server):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    added = run_cli("sources", "add", "querido-diario", server.url, "-j", TERRITORY,
                    "--delay", "0", "--with-pdf", corpus=folder, check=True)
    assert "Found querido-diario at" in added.stdout and "Juazeiro (BA)" in added.stdout
    listing = json.loads(run_cli("sources", "list", "--json", corpus=folder,
                                 check=True).stdout)
    assert [s["platform"] for s in listing] == ["querido-diario"]
    # Without --delay, the platform's pace: 1 s, at most 60 requests a minute.
    other = run_cli("sources", "add", "querido-diario", server.url, "-j", "2611101",
                    corpus=folder, check=True)
    assert "1 s between requests" in other.stdout
    run_cli("harvest", corpus=folder, check=True)
    run_cli("extract", corpus=folder, check=True)
    # The gazettes' own files (texts, PDFs) are originals the corpus names.
    checked = run_cli("check", corpus=folder, check=True)
    assert "not yet named" not in checked.stdout + checked.stderr
    # With --with-pdf, the empty gazette's PDF is archived for OCR.
    corpus = open_corpus(folder)
    try:
        gazettes = rows_of(corpus, gazette)
        assert all(g["pdf_sha256"] for g in gazettes)
        # `locleg extract` read each act's own text: the law's page is the law alone.
        with corpus.store.engine.connect() as conn:
            law = conn.execute(select(record.c.id).where(
                record.c.native_id == "lei/2199/2011")).scalar_one()
            pages = conn.execute(
                select(page.c.text, extraction.c.status)
                .join(extraction, extraction.c.version_id == page.c.version_id)
                .join(document, document.c.current_version_id == page.c.version_id)
                .where(document.c.record_id == law)).all()
    finally:
        corpus.close()
    assert pages and pages[0].status == "extracted"
    assert pages[0].text.startswith("LEI Nº 2.199") and "EXTRATO" not in pages[0].text
    missing = run_cli("sources", "add", "querido-diario", server.url, "-j", "2927408",
                      corpus=folder)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert "has no city 2927408" in missing.stderr and "Traceback" not in missing.stderr


def test_native_ids_are_stable():
    from locleg.gazette.segment import segment

    acts = segment(LAW_GAZETTE)
    row = {"date": date(2011, 6, 29), "edition": "100"}
    assert [querido_diario._native_id(row, a) for a in acts] == [
        "lei/2199/2011", "contrato/45/2011", "decreto/10/2011"]


def test_the_norm_page_says_where_the_gazette_published_it(corpus, server):
    import httpx

    from tests.explorer_fixtures import LiveServer

    source_id = add_gazette_source(corpus, server.url)
    run(corpus)
    decree = records_of(corpus, source_id)["decreto/10/2011"]
    with LiveServer(corpus) as live, httpx.Client(base_url=live.url, timeout=30) as client:
        pt = client.get(f"/norm/{decree['norm_id']}").text
        en = client.get(f"/norm/{decree['norm_id']}", headers={"Accept-Language": "en"}).text
        data = client.get(f"/norm/{decree['norm_id']}.json").json()
    assert "publicada no Diário Oficial de 29/06/2011, edição 100" in pt
    assert "publicada no Diário Oficial de 05/07/2011, edição 104" in pt
    assert "o ato no texto do diário" in pt and "republicada" in pt
    assert "published in the Official Gazette of" in en and ", edition 100" in en
    [rec] = data["records"]
    first, again = rec["publications"]
    assert (first["date"], first["edition"], first["is_extra"]) == ("2011-06-29", "100", False)
    assert first["gazette_url"].endswith(".pdf") and "/cdn/" in first["text_url"]
    assert first["act_url"].startswith(first["text_url"] + "#char=")
    assert f'href="{first["act_url"]}"' in pt
    assert again["flags"] == ["republished"]


def test_a_first_cycle_seeds_from_the_yearly_zips_then_lists_what_is_newer(corpus):
    gazettes = the_gazettes()
    late = Gazette(TERRITORY, date(2024, 2, 1), LAW_GAZETTE.replace("Nº 10,", "Nº 11,"),
                   edition="600", scraped_at=datetime(2026, 11, 20))
    with QueridoDiarioServer(gazettes + [late], aggregates=True) as srv:
        source_id = add_gazette_source(corpus, srv.url)
        with corpus.store.transaction() as conn:
            conn.execute(source.update().where(source.c.id == source_id).values(
                state=json.dumps({"territory_id": TERRITORY, "uf": "BA"})))
        report = run(corpus)
        assert report.cycles_finished == 1
        years = {g.date.year for g in gazettes}
        assert len(srv.requests(path="^/aggregates/BA")) == 1
        assert len(srv.requests(path=r"^/data/aggregates/.*\.zip$")) == len(years)
        assert not srv.requests(path="state.zip")
        # Then the API, only for what was scraped since the ZIPs were built (less 2 days).
        listed = [parse_qs(urlsplit(r.target).query) for r in srv.requests(path="^/gazettes")]
        assert listed and all(q["scraped_since"] == ["2026-11-13T02:00:00"] for q in listed)
        # Only the late gazette's text was fetched, and the text file and PDF of the one
        # whose ZIP text was empty (for OCR): the others came in the ZIPs.
        empty = next(g for g in gazettes if g.edition == "500")
        fetched = [r.target for r in srv.requests(path=r"^/(data|cdn)/\d")]
        assert sorted(fetched) == sorted([late.path("txt"), empty.path("txt"),
                                          empty.path("pdf")])
    gazette_rows = rows_of(corpus, gazette)
    assert len(gazette_rows) == 8
    records = records_of(corpus, source_id)
    assert {"lei/2199/2011", "decreto/10/2011", "decreto/11/2011", "lei/2300/2023"} \
        <= set(records)
    law = records["lei/2199/2011"]
    # Printed again in the late gazette: two publications, each its own span.
    (url, text), (_, again) = current_text(corpus, law["id"])
    assert again == text
    assert "/cdn/" in url and ".txt#char=" in url and text.startswith("LEI Nº 2.199")
    extra = next(g for g in gazette_rows if g["edition"] == "2001")
    assert extra["text_sha256"] and extra["segmented_at"]


def test_an_association_gazette_gives_each_city_only_its_own_acts(corpus):
    association = labelled("association-ama-600")
    own = [a for a in association.acts if a.municipality == "ARAPIRACA"]
    assert own and len(own) < len(association.acts)
    with QueridoDiarioServer([Gazette("2700000", date(2022, 8, 1), association.text,
                                      edition="77")]) as srv:
        source_id = corpus.store.ensure_source(2700300, "querido-diario", srv.url,
                                               {"delay": 0, "association": "2700000"})
        run(corpus)
        asked = parse_qs(urlsplit(srv.requests(path="^/gazettes")[0].target).query)
    assert asked["territory_ids"] == ["2700300", "2700000"]
    acts = rows_of(corpus, gazette_act)
    assert {a["municipality"] for a in acts} == {"ARAPIRACA"}
    assert sorted((a["kind"], a["number"]) for a in acts) == sorted(
        (a.kind, a.number) for a in own)
    normative = [a for a in own if a.kind in gazette_fixtures.NORMATIVE_KINDS
                 and a.kind != "portaria"]
    assert len(records_of(corpus, source_id)) == len({(a.kind, a.number, a.year)
                                                      for a in normative})


def test_the_stand_in_pages_like_the_real_api():
    """Deep offsets fail as the search engine's result window does; no filter, no result;
    a city it does not know is a 404 with the real detail."""
    import httpx

    with QueridoDiarioServer(the_gazettes(), result_window=4) as srv, \
            httpx.Client(trust_env=False) as client:
        base = f"{srv.url}/gazettes?territory_ids={TERRITORY}&sort_by=ascending_date"
        assert client.get(f"{base}&size=2&offset=2").json()["total_gazettes"] == 8
        assert client.get(f"{base}&size=2&offset=3").status_code == 500
        assert client.get(f"{srv.url}/gazettes").json() == {"total_gazettes": 0,
                                                           "gazettes": []}
        dates = [g["date"] for g in client.get(f"{base}&size=4").json()["gazettes"]]
        assert dates == sorted(dates)
        missing = client.get(f"{srv.url}/cities/2927408")
        assert missing.status_code == 404 and missing.json() == {"detail": "City not found."}


# -- hostile answers (issue 23) ------------------------------------------------------------------


@pytest.mark.parametrize("bogus, reason", [
    ("2611101", "territory_id 2611101 was not asked for (only 2918407)"),  # Petrolina's
    ("../../etc", "territory_id '../../etc' is not an IBGE code"),
    (2918407.5, "territory_id 2918407.5 is not an IBGE code"),
    ({"id": 1}, "territory_id {'id': 1} is not an IBGE code"),
])
def test_a_gazette_of_a_bogus_territory_is_skipped_and_recorded(corpus, server, bogus, reason):
    """The API answers for the territory asked; a row naming another is not the city's."""
    hostile = server.gazettes[0]  # the law gazette of 2011

    def mangle(g, item):
        return {**item, "territory_id": bogus} if g is hostile else item

    server.mangle_item = mangle
    add_gazette_source(corpus, server.url)
    report = run(corpus)
    assert report.cycles_finished == 1
    stored = rows_of(corpus, gazette)
    assert len(stored) == 6 and {g["territory_id"] for g in stored} == {TERRITORY}
    assert date(2011, 6, 29) not in {g["date"] for g in stored}
    messages = [p["message"] for p in problems(corpus)]
    assert f"gazette row 1 skipped: {reason}" in messages


def test_a_gazette_past_the_size_cap_is_archived_not_segmented(corpus, server, monkeypatch):
    monkeypatch.setattr(querido_diario, "MAX_GAZETTE_CHARS", 5_000)
    huge = Gazette(TERRITORY, date(2024, 2, 1), LAW_GAZETTE * 20, edition="900")
    server.add(huge)
    add_gazette_source(corpus, server.url)
    report = run(corpus)
    assert report.cycles_finished == 1
    stored = {g["edition"]: g for g in rows_of(corpus, gazette)}
    assert len(stored) == 8 and all(g["segmented_at"] is not None for g in stored.values())
    acts = rows_of(corpus, gazette_act)
    assert not [a for a in acts if a["gazette_id"] == stored["900"]["id"]]
    assert [a for a in acts if a["gazette_id"] == stored["100"]["id"]]  # the others are cut
    size = len(huge.text)
    assert f"gazette of 01/02/2024: a text of {size:,} characters (more than 5,000): " \
           "archived, not cut into acts" in [p["message"] for p in problems(corpus)]
    assert corpus.blobs.read(stored["900"]["text_sha256"]).decode() == huge.text  # archived


def test_a_long_line_of_blanks_does_not_make_the_segmenter_quadratic():
    """A line of 300,000 blanks (a PDF-to-text column of padding) before its word, after an
    act: page headers
    were sought in it with a pattern whose blanks and `.*` backtrack over each other (minutes
    for 50,000; hours for this). Timed generously: it takes well under a second now."""
    from time import monotonic

    from locleg.gazette.segment import read_gazette

    text = LAW_GAZETTE + " " * 300_000 + "fim\n"
    started = monotonic()
    read = read_gazette(text, territory_id=TERRITORY)
    assert monotonic() - started < 30
    assert [a.heading[:20] for a in read.acts][:1] == ["LEI Nº 2.199, DE 27 "]
