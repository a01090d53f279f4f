"""Portals described by a TOML file: the three worked examples end to end, and bad input."""

from __future__ import annotations

import asyncio
import re
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from locleg.corpus import init_corpus, open_corpus
from locleg.fixtures.harvesting import run
from locleg.fixtures.portal_servers import EsPortal, GoApi, SpBulk, synthetic_laws
from locleg.harvest.discover import register
from locleg.harvest.portal import PLATFORM
from locleg.harvest.portal_config import ConfigError, key_lines, load
from locleg.store.schema import document, problem, record, version
from tests.conftest import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "locleg" / "harvest" / "portals"
ES, GO, SP = 32, 52, 35


def example(name: str, server_url: str, folder: Path, **replace: str) -> Path:
    """A worked example pointed at its stand-in (only the listing URL's origin changes)."""
    text = (EXAMPLES / f"{name}.toml").read_text("utf-8")
    text = re.sub(r'^url = "https://[^/"]+', f'url = "{server_url}', text, count=1,
                  flags=re.MULTILINE)
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    path = folder / f"{name}.toml"
    path.write_text(text, "utf-8")
    return path


def add(corpus_dir: Path, config: Path, code: int) -> str:
    result = run_cli("sources", "add", "portal", str(config), "-j", str(code), "--delay", "0",
                     corpus=corpus_dir, check=True)
    return result.stdout


def harvest(corpus_dir: Path, *args: str) -> str:
    return run_cli("harvest", *args, corpus=corpus_dir, check=True).stdout


def records(corpus_dir: Path) -> dict[str, dict]:
    corpus = open_corpus(corpus_dir)
    try:
        with corpus.store.engine.connect() as conn:
            return {r["native_id"]: dict(r) for r in conn.execute(select(record)).mappings()}
    finally:
        corpus.close()


def documents(corpus_dir: Path) -> dict[str, list[dict]]:
    """Per native id: its documents with their current version (and the bytes)."""
    corpus = open_corpus(corpus_dir)
    try:
        with corpus.store.engine.connect() as conn:
            found: dict[str, list[dict]] = {}
            for r in conn.execute(
                select(document.c.url, document.c.role, document.c.removed_at,
                       record.c.native_id, version.c.sha256, version.c.media_type)
                .join(record, record.c.id == document.c.record_id)
                .outerjoin(version, version.c.id == document.c.current_version_id)
            ).mappings():
                row = dict(r)
                row["data"] = corpus.blobs.read(r["sha256"]) if r["sha256"] else None
                found.setdefault(r["native_id"], []).append(row)
            return found
    finally:
        corpus.close()


def versions_of(corpus_dir: Path, native_id: str) -> int:
    corpus = open_corpus(corpus_dir)
    try:
        with corpus.store.engine.connect() as conn:
            return len(conn.execute(
                select(version.c.id).join(document, document.c.id == version.c.document_id)
                .join(record, record.c.id == document.c.record_id)
                .where(record.c.native_id == native_id)).all())
    finally:
        corpus.close()


def problems(corpus_dir: Path) -> list[str]:
    corpus = open_corpus(corpus_dir)
    try:
        with corpus.store.engine.connect() as conn:
            return list(conn.scalars(select(problem.c.message).order_by(problem.c.id)))
    finally:
        corpus.close()


@pytest.fixture
def corpus_dir(tmp_path) -> Path:
    init_corpus(tmp_path / "corpus").close()
    return tmp_path / "corpus"


# -- the worked examples, end to end --------------------------------------------------------------


def test_es_postback_listing_and_html_laws_end_to_end(tmp_path, corpus_dir):
    with EsPortal(count=45) as es:
        config = example("es", es.url, tmp_path)
        out = add(corpus_dir, config, ES)
        assert "portal" in out and "20 norms on the listing's first page" in out
        # The portal limits us once, mid-listing: the page is asked for again, later.
        es.add_fault("429", r"consulta-legislacao", value=1, times=1, after=1)
        out = harvest(corpus_dir)
        found = records(corpus_dir)
        assert len(found) == 45
        lei = found["LO2482"]  # seed 001
        assert (lei["type_raw"], lei["type_normalized"], lei["number"], lei["year"],
                lei["date"]) == ("Lei Ordinária", "lei", "2.482", 1969, date(1969, 12, 24))
        assert lei["ementa"].startswith("Dispõe sobre o Sistema Nacional de Trânsito")
        assert lei["url"] == f"{es.url}/Arquivo/Documents/legislacao/html/LO2482.html"
        assert found["LC1"]["type_normalized"] == "lei.complementar"
        docs = documents(corpus_dir)
        (texto,) = docs["LO2482"]
        assert texto["role"] == "texto_integral" and texto["media_type"] == "text/html"
        assert "Art. 1º O Sistema Nacional de Trânsito" in texto["data"].decode()
        assert all(d["data"] for ds in docs.values() for d in ds)
        # Pages 2 and 3 were posted back, with the page's __VIEWSTATE; one was limited first.
        listing = es.requests(path="consulta-legislacao")
        assert [r.method for r in listing if r.status == 200] == ["GET", "GET", "POST",
                                                                  "POST"]  # probe, 1, 2, 3
        assert [r.status for r in listing].count(429) == 1

        # A second cycle: a law deleted, another's page rewritten under the same URL.
        es.delete(7)
        es.replace_text(2482, ["LEI Nº 2.482/1969 (texto consolidado)",
                               "Art. 1º O Sistema Estadual de Trânsito compreende: ..."])
        harvest(corpus_dir, "--full")
        found = records(corpus_dir)
        assert found["RES7"]["removed_at"] is not None
        assert sum(r["removed_at"] is None for r in found.values()) == 44
        (texto,) = documents(corpus_dir)["LO2482"]
        assert "texto consolidado" in texto["data"].decode()
        assert versions_of(corpus_dir, "LO2482") == 2


def test_go_json_api_and_pdf_files_end_to_end(tmp_path, corpus_dir):
    with GoApi(count=230) as go:
        config = example("go", go.url, tmp_path)
        add(corpus_dir, config, GO)
        go.add_fault("429", r"/7/pdf", value=1, times=1)
        harvest(corpus_dir)
        found = records(corpus_dir)
        assert len(found) == 230
        lei = found["2482"]
        assert (lei["type_raw"], lei["number"], lei["year"], lei["date"]) == (
            "Lei Ordinária", "2482", 1969, date(1969, 12, 24))
        assert lei["url"] == f"{go.url}/pesquisa_legislacao/2482"
        docs = documents(corpus_dir)
        (pdf,) = docs["7"]
        assert pdf["url"] == f"{go.url}/api/v2/pesquisa/legislacoes/7/pdf"
        assert pdf["media_type"] == "application/pdf" and pdf["data"].startswith(b"%PDF")
        pages = [r.target for r in go.requests(path=r"legislacoes\?") if r.status == 200]
        assert any("page=3&qtd_por_pagina=100" in t for t in pages)
        assert not any("page=4" in t for t in pages)  # 230 of 230 read: no page past the end

        go.delete(12)
        go.replace_pdf(7, ["LEI Nº 7 (republicada)", "Art. 1º Texto novo."])
        harvest(corpus_dir, "--full")
        found = records(corpus_dir)
        assert found["12"]["removed_at"] is not None
        assert sum(r["removed_at"] is None for r in found.values()) == 229
        assert versions_of(corpus_dir, "7") == 2


def test_sp_bulk_zip_of_xml_end_to_end(tmp_path, corpus_dir):
    with SpBulk(count=30) as sp:
        config = example("sp", sp.url, tmp_path)
        add(corpus_dir, config, SP)
        sp.add_fault("503", r"legislacao_normas\.zip", value=1, times=1)
        harvest(corpus_dir)
        found = records(corpus_dir)
        assert len(found) == 30
        norm = found["7"]
        assert (norm["type_raw"], norm["type_normalized"], norm["number"]) == (
            "Resolução", "resolucao", "7")  # IdTipo 4, through [types]
        assert norm["date"] is not None and norm["year"] == norm["date"].year
        assert norm["url"] == f"{sp.url}/norma/7"
        docs = documents(corpus_dir)
        assert sorted(d["role"] for d in docs["10"]) == ["anexo", "texto_integral"]
        assert all(d["data"].startswith(b"%PDF") for ds in docs.values() for d in ds)
        assert len(sp.requests(path=r"legislacao_normas\.zip")) == 2  # the 503, then the file

        sp.delete(3)
        law = sp.laws[5]
        sp.replace_pdf(5, ["Texto republicado."])
        harvest(corpus_dir, "--full")
        found = records(corpus_dir)
        assert found["3"]["removed_at"] is not None
        assert sum(r["removed_at"] is None for r in found.values()) == 29
        assert versions_of(corpus_dir, "5") == 2 and law.paragraphs == ["Texto republicado."]


def test_detail_pages_are_read_for_new_and_changed_norms_only(tmp_path, corpus_dir):
    with GoApi(count=30) as go:
        config = example("go", go.url, tmp_path)
        config.write_text(config.read_text("utf-8") + """
[detail]
url = "/api/v2/pesquisa/legislacoes/{native_id}"
format = "json"

[detail.fields]
ementa = "ementa_completa"

[detail.documents]
anexos = "anexos[].url"
""", "utf-8")
        add(corpus_dir, config, GO)
        harvest(corpus_dir)
        details = r"/legislacoes/\d+$"
        assert len(go.requests(path=details)) == 30
        found = records(corpus_dir)
        assert found["5"]["ementa"].endswith(f"(D.O.E. de {go.laws[5].data:%d/%m/%Y})")
        # The listing's fields stay where the detail page says nothing.
        assert (found["5"]["number"], found["5"]["type_raw"]) == ("5", "Lei Complementar")
        docs = documents(corpus_dir)
        assert sorted(d["role"] for d in docs["5"]) == ["anexo", "texto_integral"]
        assert all(d["data"].startswith(b"%PDF") for d in docs["5"])

        go.laws[6].ementa = "Dispõe sobre outra coisa."
        harvest(corpus_dir, "--refresh", "--no-files")
        assert len(go.requests(path=details)) == 31  # only the changed norm's detail page
        found = records(corpus_dir)
        assert found["6"]["ementa"].startswith("Dispõe sobre outra coisa. (D.O.E. de")
        assert found["5"]["ementa"].endswith(f"(D.O.E. de {go.laws[5].data:%d/%m/%Y})")


@pytest.mark.parametrize("paging", [
    'paging = "page"\n[paging]\nparam = "pagina"',
    'paging = "next"\n[paging]\nlink = { css = "a.proxima", attr = "href" }',
])
def test_page_numbers_and_next_links(tmp_path, corpus_dir, paging):
    with EsPortal(count=45) as es:
        config = example("es", es.url, tmp_path, **{
            'paging = "postback"': paging.split("\n")[0],
            '[paging]\ntarget = "ctl00$ContentPlaceHolder1$gvLegislacao"\n'
            'argument = "Page${page}"': "\n".join(paging.split("\n")[1:])})
        add(corpus_dir, config, ES)
        harvest(corpus_dir, "--no-files")
        assert len(records(corpus_dir)) == 45 and problems(corpus_dir) == []
        targets = [r.target for r in es.requests(path="consulta") if r.method == "GET"]
        assert not [r for r in es.requests(path="consulta") if r.method == "POST"]
        if "pagina" in paging:  # the pages, then one past the end that holds nothing
            assert targets[-4:] == [f"/legislacao/consulta-legislacao.aspx?pagina={n}"
                                    for n in (1, 2, 3, 4)]
        else:  # the first page, then where each page's link leads
            assert targets[-3:] == ["/legislacao/consulta-legislacao.aspx",
                                    "/legislacao/consulta-legislacao.aspx?pagina=2",
                                    "/legislacao/consulta-legislacao.aspx?pagina=3"]


def test_a_portal_on_either_database(tmp_path, corpus):
    """In process, on SQLite and PostgreSQL: the postback listing, removals, new versions."""
    with EsPortal(count=30) as es:
        found = asyncio.run(PLATFORM.probe(str(example("es", es.url, tmp_path))))
        source_id, _ = register(corpus.store, ES, found, {**found.settings, "delay": 0})
        report = run(corpus, [source_id])
        assert report.cycles_finished == 1 and report.errors == 0 and report.files == 30
        es.delete(5)
        es.replace_text(2482, ["LEI Nº 2.482/1969", "Art. 1º Texto consolidado."])
        report = run(corpus, [source_id], full=True, refresh=True)
        assert report.removed == 1 and report.new_versions == 1
        with corpus.store.engine.connect() as conn:
            live = conn.scalars(select(record.c.native_id).where(
                record.c.source_id == source_id, record.c.removed_at.is_(None))).all()
        assert len(live) == 29 and "LC5" not in live and "LO2482" in live


# -- bad input ------------------------------------------------------------------------------------


def test_a_page_that_repeats_the_one_before_stops_the_listing_without_removals(tmp_path,
                                                                              corpus_dir):
    with EsPortal(count=45) as es:
        add(corpus_dir, example("es", es.url, tmp_path), ES)
        harvest(corpus_dir)
        assert len(records(corpus_dir)) == 45
        # The pager now always offers one more page; past the end ASP.NET answers the last
        # page again. And a law left the portal meanwhile.
        es.broken_pager = True
        es.delete(3)
        out = harvest(corpus_dir, "--refresh")
        found = records(corpus_dir)
        assert all(r["removed_at"] is None for r in found.values()), out
        (repeat,) = [m for m in problems(corpus_dir) if "repeats" in m]
        assert repeat.startswith("page 4 repeats page 3 (the same 4 items)")
        assert "no norm is marked removed" in repeat
        assert len([r for r in es.requests(path="consulta") if r.method == "POST"]) == 2 + 3


def test_html_that_changed_shape_is_reported_not_taken_for_removals(tmp_path, corpus_dir):
    with EsPortal(count=120) as es:
        add(corpus_dir, example("es", es.url, tmp_path), ES)
        harvest(corpus_dir, "--no-files")
        assert len(records(corpus_dir)) == 120
        es.grid_id = "gvResultadoPesquisa"  # a new version of the portal
        harvest(corpus_dir, "--refresh", "--no-files")
        assert all(r["removed_at"] is None for r in records(corpus_dir).values())
        assert any(m.startswith("0 items where 120 were expected") for m in problems(corpus_dir))
        listed = run_cli("sources", "list", "--json", corpus=corpus_dir, check=True).stdout
        assert "the last listing was incomplete" in listed


def test_a_total_not_reached_makes_a_listing_incomplete(tmp_path, corpus_dir):
    with GoApi(count=230) as go:
        add(corpus_dir, example("go", go.url, tmp_path), GO)
        harvest(corpus_dir, "--no-files")
        go.delete(3)
        go.total_offset = 10  # the API counts norms its pages do not give
        harvest(corpus_dir, "--refresh", "--no-files")
        assert records(corpus_dir)["3"]["removed_at"] is None
        assert "the API says 239 norms, the listing gave 229: incomplete, no norm is marked " \
               "removed" in problems(corpus_dir)


def test_a_short_page_before_the_last_makes_a_listing_incomplete(tmp_path, corpus_dir):
    with EsPortal(count=45) as es:
        config = example("es", es.url, tmp_path, **{"min_items = 20": "min_items = 25"})
        add(corpus_dir, config, ES)
        harvest(corpus_dir, "--no-files")
        assert any(m.startswith("page 1: 20 items where at least 25 were expected")
                   for m in problems(corpus_dir))
        es.delete(3)
        harvest(corpus_dir, "--refresh", "--no-files")
        assert records(corpus_dir)["RES3"]["removed_at"] is None


@pytest.mark.parametrize("xml, refusal", [
    (SpBulk.BILLION_LAUGHS, "refused XML that declares entities"),
    (SpBulk.EXTERNAL_ENTITY, "refused XML that declares entities"),
    (b'<?xml version="1.0"?><Normas><LegislacaoNorma><IdNorma>1</Id', "malformed XML"),
])
def test_malformed_or_hostile_xml_is_refused_and_nothing_is_lost(tmp_path, corpus_dir, xml,
                                                                 refusal):
    with SpBulk(count=12) as sp:
        add(corpus_dir, example("sp", sp.url, tmp_path), SP)
        harvest(corpus_dir, "--no-files")
        sp.xml_override = xml
        harvest(corpus_dir, "--refresh", "--no-files")
        found = records(corpus_dir)
        assert len(found) == 12 and all(r["removed_at"] is None for r in found.values())
        assert "/etc/passwd" not in str(found) and "lollol" not in str(found)
        assert any(refusal in m for m in problems(corpus_dir))


def test_a_field_selector_matching_nothing_is_recorded(tmp_path, corpus_dir):
    with EsPortal(count=25) as es:
        config = example("es", es.url, tmp_path,
                         **{'number = "td:nth-child(2)"': 'number = "td.numero"'})
        add(corpus_dir, config, ES)
        harvest(corpus_dir, "--no-files")
        found = records(corpus_dir)
        assert len(found) == 25 and all(r["number"] is None for r in found.values())
        messages = problems(corpus_dir)
        assert "page 1: field number (css 'td.numero') matched nothing in any of its 20 " \
               "items" in messages
        assert "page 2: field number (css 'td.numero') matched nothing in any of its 5 " \
               "items" in messages


def test_a_portal_the_description_does_not_fit_is_an_error_not_a_crash(tmp_path, corpus_dir):
    with GoApi(count=5) as go:
        config = example("go", go.url, tmp_path, **{'items = "resultados"': 'items = "dados"'})
        result = run_cli("sources", "add", "portal", str(config), "-j", str(GO),
                         corpus=corpus_dir)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "the description does not fit this portal" in result.stderr
    result = run_cli("sources", "add", "portal", str(tmp_path / "missing.toml"), "-j", "32",
                     corpus=corpus_dir)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "missing.toml" in result.stderr


# -- the description's checks, each naming its line ----------------------------------------------

_GOOD = (EXAMPLES / "es.toml").read_text("utf-8")


@pytest.mark.parametrize("old, new, message", [
    ("min_items = 20", "min_items = 20\ncolour = \"azul\"", "unknown key 'listing.colour'"),
    ('paging = "postback"\n', "", "missing key 'listing.paging'"),
    ("min_items = 20", 'min_items = "vinte"', "listing.min_items must be an integer"),
    ('type = "td:nth-child(1)"', 'type = "td:nth-child("', "fields.type: bad CSS selector"),
    ("[@id='ContentPlaceHolder1_gvLegislacao']", "[@id=", "listing.items: bad XPath"),
    ("regex = '([^/]+)\\.html?$'", "regex = '([^/]+'", "fields.native_id: bad regex"),
    ('format = "dd/mm/aaaa"', 'format = "mm-dd"',
     "fields.date.format = 'mm-dd': one of iso, dd/mm/aaaa, extenso"),
    ('format = "html"', 'format = "pdf"', "listing.format = 'pdf': one of html, json, xml"),
    ('target = "ctl00$ContentPlaceHolder1$gvLegislacao"', 'target = 3',
     "paging.target must be a string, not an integer"),
])
def test_each_configuration_error_names_its_line(old, new, message):
    assert old in _GOOD
    text = _GOOD.replace(old, new, 1)
    with pytest.raises(ConfigError) as caught:
        load(text, "es.toml")
    (line,) = [m for m in str(caught.value).splitlines() if message in m]
    where = (new or "[listing]").splitlines()[-1]
    if not new:  # a missing key: the line of its table
        where = "[listing]"
    expected = 1 + text.splitlines().index(next(x for x in text.splitlines() if where in x))
    assert line.startswith(f"es.toml:{expected}: "), (line, expected)


def test_a_json_path_error_and_a_template_naming_an_unknown_field():
    text = (EXAMPLES / "go.toml").read_text("utf-8")
    text = text.replace('items = "resultados"', 'items = "resultados[?"')
    text = text.replace("{native_id}/pdf", "{codigo}/pdf")
    with pytest.raises(ConfigError) as caught:
        load(text, "go.toml")
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("go.toml:8: listing.items: bad JMESPath 'resultados[?'")
    assert lines[1].startswith("go.toml:28: documents.texto_integral: the template names "
                               "codigo")


def test_the_cli_prints_every_error_with_its_line_and_no_traceback(tmp_path, corpus_dir):
    bad = tmp_path / "bad.toml"
    bad.write_text(_GOOD.replace("min_items = 20", "min_items = 20\npaginas = 3")
                   .replace('ementa = "td:nth-child(4)"', 'ementa = { css = "td:::" }'))
    result = run_cli("sources", "add", "portal", str(bad), "-j", "32", corpus=corpus_dir)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{bad}:13: unknown key 'listing.paginas'" in result.stderr
    assert f"{bad}:24: fields.ementa: bad CSS selector" in result.stderr


def test_key_lines_skip_multiline_strings_and_arrays():
    text = '''name = "x"
note = """
fake = 1
"""
list = [
  "a = b",
]
[fields]
native_id = "id"  # comment
"quoted key" = 1
[paging.inner]
a.b = 2
'''
    lines = key_lines(text)
    assert lines[("note",)] == 2 and ("fake",) not in lines
    assert lines[("list",)] == 5 and ("a",) not in lines
    assert lines[("fields", "native_id")] == 9
    assert lines[("fields", "quoted key")] == 10
    assert lines[("paging", "inner", "a", "b")] == 12


def test_the_worked_examples_load():
    for name in ("es", "go", "sp"):
        config = load((EXAMPLES / f"{name}.toml").read_text("utf-8"), f"{name}.toml")
        assert config.fields["native_id"] and config.documents["texto_integral"]


# -- hostile portals (issue 23) --------------------------------------------------------------------


def test_a_regex_that_backtracks_catastrophically_is_refused_at_load():
    text = _GOOD.replace('ementa = "td:nth-child(4)"',
                         "ementa = { css = \"td:nth-child(4)\", regex = '(a|aa)+;' }")
    with pytest.raises(ConfigError) as caught:
        load(text, "es.toml")
    (line,) = str(caught.value).splitlines()
    assert line.startswith("es.toml:23: fields.ementa: bad regex '(a|aa)+;': it backtracks "
                           "catastrophically"), line


def test_a_regex_slow_on_the_portals_own_text_is_bounded_and_recorded(tmp_path, corpus_dir):
    """A pattern no probe text trips (it repeats 'ç') meets an ementa made of 'ç': each
    search stops at REGEX_SECONDS, the value is left out and said, the rest harvested."""
    laws = synthetic_laws(25)
    for law in laws[:5]:
        law.ementa = "ç" * 60 + "?"
    with EsPortal(laws) as es:
        config = example("es", es.url, tmp_path, **{
            'ementa = "td:nth-child(4)"': "ementa = { css = \"td:nth-child(4)\", "
                                          "regex = '(?:ç|çç)+!|(.+)' }"})
        add(corpus_dir, config, ES)
        harvest(corpus_dir, "--no-files")
    found = records(corpus_dir)
    assert len(found) == 25
    slow = [r for r in found.values() if r["ementa"] is None]
    assert len(slow) == 5
    assert {r["ementa"] for r in found.values() if r not in slow} == \
        {law.ementa for law in laws[5:]}
    said = [m for m in problems(corpus_dir) if "took more than 0.2 s" in m]
    assert len(said) == 5 and "a value of 61 characters: the value left out" in said[0]


def test_a_postback_pager_that_starts_over_is_stopped_without_removals(tmp_path, corpus_dir):
    with EsPortal(count=45) as es:
        add(corpus_dir, example("es", es.url, tmp_path), ES)
        harvest(corpus_dir, "--no-files")
        es.looping_pager = True  # past page 3 the postback answers page 1, 2, 3, 1, ...
        es.delete(3)
        harvest(corpus_dir, "--refresh", "--no-files")
        posts = [r for r in es.requests(path="consulta") if r.method == "POST"]
    assert all(r["removed_at"] is None for r in records(corpus_dir).values())
    (loop,) = [m for m in problems(corpus_dir) if "loops" in m]
    assert loop.startswith("page 4 repeats an earlier page (the same 20 items): the paging "
                           "loops") and "no norm is marked removed" in loop
    assert len(posts) == 2 + 3  # never past the first page seen twice


@pytest.mark.parametrize("location", ["http://10.0.0.7/media/x.pdf", "file:///etc/passwd",
                                      "http://127.0.0.1:9/x.pdf"])
def test_a_portal_redirecting_to_a_private_address_or_a_file_is_refused(tmp_path, corpus_dir,
                                                                        location):
    with GoApi(count=12) as go:
        go.add_fault("redirect_private", r"/legislacoes/7/pdf", value=location)
        add(corpus_dir, example("go", go.url, tmp_path), GO)
        harvest(corpus_dir)
        docs = documents(corpus_dir)
    assert docs["7"][0]["data"] is None  # nothing fetched from there
    assert all(d["data"] and d["data"].startswith(b"%PDF") for k, ds in docs.items()
               for d in ds if k != "7")
    (refused,) = [m for m in problems(corpus_dir) if "/legislacoes/7/pdf" in m or
                  location in m]
    assert refused.startswith("refused ") and refused.endswith(
        "(not retried before the next cycle)")
    assert ("is a loopback, private or link-local address" in refused
            or "only http(s) URLs are followed" in refused), refused
