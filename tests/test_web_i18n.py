"""The explorer for its readers: pt-BR by default (English on request) from Babel catalogues
kept in step with the templates; the place finder; badges; text reflowed for phones; no
operator details on public pages; a demo corpus that says so; downloads named for people."""

from __future__ import annotations

import re
from io import BytesIO
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from lxml import html as lxml_html

from locleg.config import read_settings
from locleg.corpus import init_corpus
from locleg.web.links import public_text, shown_address
from locleg.web.reflow import paragraphs
from tests.conftest import BACKENDS, module_corpus
from tests.explorer_fixtures import (
    FOLDER_JUAZEIRO,
    IMPORT_FOLDER,
    JUAZEIRO,
    PETROLINA,
    SEED_URL,
    LiveServer,
    build_explorer_corpus,
)

ROOT = Path(__file__).parent.parent
WEB = ROOT / "src" / "locleg" / "web"
PO = WEB / "locale" / "pt_BR" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")


@pytest.fixture(scope="module", params=BACKENDS)
def site(request, tmp_path_factory):
    corpus, url = module_corpus(request, tmp_path_factory, "i18n")
    built = build_explorer_corpus(corpus, legal_life=True)
    with LiveServer(corpus) as live, httpx.Client(base_url=live.url, timeout=30) as client:
        built.client = client
        built.url = live.url
        yield built
    corpus.close()


def page(site, path: str, status: int = 200, **headers: str) -> httpx.Response:
    response = site.client.get(path, headers=headers)
    site.client.cookies.clear()  # a ?lang= answer sets a cookie: each test reads afresh
    assert response.status_code == status, response.text[:300]
    assert response.headers["content-type"].startswith("text/html")
    return response


def visible(html: str) -> str:
    """The words a reader sees in the page's language: the title and the body, whitespace
    folded, without what is marked as in another language (lang="en" on /api's routes)."""
    tree = lxml_html.fromstring(html)
    for other in tree.body.xpath(".//*[@lang]"):
        other.drop_tree()
    return " ".join((tree.findtext(".//title") + " " + tree.body.text_content()).split())


def pages_of(site) -> list[str]:
    n, d = site.norms, site.documents
    return ["/", "/places", "/places?q=juazeiro", "/uf/BA", f"/jurisdiction/{JUAZEIRO}",
            f"/norm/{n['seed']}", f"/norm/{n['revoked']}", f"/norm/{n['state']}",
            f"/document/{d['seed']}", f"/document/{d['state']}", "/search",
            "/search?q=lei+2199", "/search?q=moto+t%C3%A1xi&uf=BA", "/quality",
            f"/quality?j={JUAZEIRO}", "/sources", "/citations", "/api", "/norm/99999"]


# -- the catalogue ---------------------------------------------------------------------------


def test_the_catalogue_holds_every_template_string_translated_and_compiled():
    """Every string the templates and the web code mark is in the pt-BR catalogue,
    translated, not fuzzy, and the committed .mo is the .po compiled (run `pybabel extract
    -F babel.cfg -k N_ …`, `pybabel update`, `pybabel compile -d src/locleg/web/locale`)."""
    method_map = [("src/locleg/web/templates/**.html", "jinja2"),
                  ("src/locleg/web/**.py", "python")]
    options = {"src/locleg/web/templates/**.html": {"extensions": "jinja2.ext.i18n"}}
    marked = {m[2] if isinstance(m[2], str) else m[2][0]
              for m in extract_from_dir(str(ROOT), method_map, options,
                                        keywords={"_": None, "gettext": None,
                                                  "ngettext": (1, 2), "N_": None})}
    with PO.open("rb") as f:
        catalogue = read_po(f)
    ids = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalogue if m.id}
    assert marked - set(ids) == set(), "strings missing from messages.po"
    assert set(ids) - marked == set(), "messages.po holds strings no template uses"
    for key, message in ids.items():
        assert not message.fuzzy, key
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"not translated: {key}"
    with MO.open("rb") as f:
        compiled = read_mo(f)
    def pairs(messages) -> set:
        def flat(value):
            return tuple(value) if isinstance(value, list | tuple) else value

        return {(flat(m.id), flat(m.string)) for m in messages if m.id}

    po_pairs, mo_pairs = pairs(catalogue), pairs(compiled)
    assert po_pairs == mo_pairs, "messages.mo is stale: pybabel compile -d src/locleg/web/locale"


def test_the_package_ships_the_catalogue():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"babel>=' in pyproject
    assert "web/locale/*/LC_MESSAGES/messages.mo" in pyproject
    assert (ROOT / "babel.cfg").is_file()


# -- languages -------------------------------------------------------------------------------


def test_pages_speak_portuguese_by_default(site):
    response = page(site, "/")
    assert '<html lang="pt-BR">' in response.text
    assert response.headers["content-language"] == "pt-BR"
    assert "Accept-Language" in response.headers["vary"]
    text = visible(response.text)
    assert text.startswith("Início · explorador br-locleg")
    for shown in ("Pesquisar", "Lugares no acervo", "Normas mais recentes",
                  "Cobertura por UF", "Esta página em JSON"):
        assert shown in text, shown


# Strings a pt-BR page must never show (the list and the catalogue's longer ones).
ENGLISH_WORDS = re.compile(r"\b(Search|Documents|Date|Seen|norms? match(es)?|native_id|Home|"
                           r"Sources|Quality|Records|Legal status|Download|newest first|"
                           r"Next page|No text|first seen|last seen|Filter|Page \d)\b")


def test_no_english_is_left_on_portuguese_pages(site):
    with PO.open("rb") as f:
        sources = {m.id for m in read_po(f) if isinstance(m.id, str) and len(m.id) > 14
                   and "%(" not in m.id and "<" not in m.id and m.string != m.id}
    for path in pages_of(site):
        response = site.client.get(path)
        site.client.cookies.clear()
        assert response.status_code in (200, 404), path
        text = visible(response.text)
        found = ENGLISH_WORDS.search(text)
        context = found and text[max(0, found.start() - 80):found.end() + 80]
        assert found is None, f"{path}: {found.group()!r} in {context!r}"
        assert [s for s in sources if s in text] == [], path


def test_english_by_query_kept_by_cookie_and_by_accept_language(site):
    with httpx.Client(base_url=site.url, timeout=30) as reader:
        response = reader.get("/?lang=en")
        assert '<html lang="en">' in response.text
        assert visible(response.text).startswith("Home · br-locleg explorer")
        assert "locleg_lang=en" in response.headers["set-cookie"]
        # The choice is kept on the next pages, links need no parameter.
        following = reader.get(f"/jurisdiction/{JUAZEIRO}")
        assert '<html lang="en">' in following.text and "Norms, newest first" in following.text
        assert 'href="/?lang=pt-BR"' in reader.get("/").text  # the way back
        back = reader.get("/?lang=pt-BR")
        assert '<html lang="pt-BR">' in back.text
        assert '<html lang="pt-BR">' in reader.get("/sources").text
    for header, lang in (("en", "en"), ("en-US,en;q=0.9", "en"), ("fr-FR, en;q=0.5", "en"),
                         ("pt-BR,pt;q=0.9,en;q=0.8", "pt-BR"), ("de", "pt-BR"),
                         ("en;q=0, pt", "pt-BR"), ("garbage;;q=x", "pt-BR")):
        response = page(site, "/search?q=moto", **{"Accept-Language": header})
        assert f'<html lang="{lang}">' in response.text, header
    english = page(site, "/search?q=moto", **{"Accept-Language": "en"}).text
    assert "norms match" in english and "Pesquisar" not in english


def test_dates_numbers_and_plurals_as_each_language_writes_them(site):
    seed = f"/norm/{site.norms['seed']}"
    pt, en = page(site, seed).text, page(site, seed + "?lang=en").text
    assert "<dt>Data</dt><dd>27/06/2011" in pt and "<dt>Date</dt><dd>Jun 27, 2011" in en
    pt, en = visible(pt), visible(en)
    assert "2011-06-27 " not in pt.replace("municipal:lei:2011-06-27;", "")
    assert "confiança: 0,94" in pt and "confidence: 0.94" in en
    home_pt, home_en = visible(page(site, "/").text), visible(page(site, "/?lang=en").text)
    assert "lugares cobertos, de 5.597" in home_pt and "places covered, of 5,597" in home_en
    # Juazeiro has 10 norms, Petrolina and the state of Bahia one each.
    assert "Juazeiro (BA) 10 normas" in home_pt and "Petrolina (PE) 1 norma " in home_pt
    assert "Juazeiro (BA) 10 norms" in home_en and "Petrolina (PE) 1 norm " in home_en
    jurisdiction = visible(page(site, f"/jurisdiction/{JUAZEIRO}").text)
    assert "1 documento, 1 página" in jurisdiction and "0 documentos" in jurisdiction
    search = visible(page(site, "/search?q=mototaxi+OR+moto").text)
    assert re.search(r"\b\d+ normas encontradas\b", search)
    one = visible(page(site, f"/search?q=mototaxi&j={PETROLINA}").text)
    assert "1 norma encontrada" in one
    assert "1 norm matches" in visible(page(site, f"/search?q=mototaxi&j={PETROLINA}&lang=en").text)
    # JSON keeps one language and ISO dates whatever the reader speaks.
    data = site.client.get(seed + ".json", headers={"Accept-Language": "pt-BR"}).json()
    assert data["norm"]["date"] == "2011-06-27"


# -- the place finder, the UF page, the home page -------------------------------------------


def test_the_place_finder_is_accent_insensitive_and_lists_covered_places_first(site):
    found = site.client.get("/places.json?q=juazeiro").json()
    names = [(p["name"], p["uf"], p["norms"]) for p in found["places"]]
    assert names[0] == ("Juazeiro", "BA", 10)
    assert {("Juazeiro do Norte", "CE", 0), ("Juazeiro do Piauí", "PI", 0)} <= set(names)
    assert found["covered"] == 1 and found["places"][0]["url"] == f"/jurisdiction/{JUAZEIRO}"
    # Accents and case aside, both ways.
    for q in ("JUAZEIRO DO PIAUI", "juazeiro do piauí", "Juazeiro  do-Piauí"):
        assert [p["name"] for p in site.client.get("/places.json", params={"q": q})
                .json()["places"]] == ["Juazeiro do Piauí"], q
    sao = site.client.get("/places.json?q=sao+jose+dos+campos").json()["places"]
    assert ("São José dos Campos", "SP") in {(p["name"], p["uf"]) for p in sao}
    # A trailing UF narrows, and an IBGE code finds its place.
    assert [p["uf"] for p in site.client.get("/places.json?q=juazeiro+ce").json()["places"]] \
        == ["CE"]
    assert site.client.get(f"/places.json?q={PETROLINA}").json()["places"][0]["name"] == \
        "Petrolina"
    # Without words: what the corpus covers, most norms first.
    covered = site.client.get("/places.json").json()["places"]
    assert [(p["name"], p["norms"]) for p in covered] == [("Juazeiro", 10), ("Bahia", 1),
                                                          ("Petrolina", 1)]
    assert site.client.get("/places.json?uf=XX").status_code == 400
    too_long = site.client.get("/places.json?q=99999999999999999999")
    assert too_long.status_code == 400 and "7 digits" in too_long.json()["error"]["message"]
    assert site.client.get("/places.json", params={"q": "x" * 101}).status_code == 400
    # The HTML page works without JavaScript: a GET form and plain links.
    html = page(site, "/places?q=juazeiro").text
    assert '<form class="place-finder" action="/places" method="get"' in html
    assert 'value="juazeiro"' in html
    text = visible(html)
    assert "3 lugares encontrados" in text
    assert text.index("Juazeiro (BA) 10 normas") < text.index("Juazeiro do Norte (CE)")
    nothing = visible(page(site, "/places?q=%3Cscript%3Exyz").text)
    assert "Nenhum município ou estado tem nome como “<script>xyz”." in nothing


def test_the_uf_page_lists_covered_municipalities_and_folds_the_rest(site):
    html = page(site, "/uf/BA").text
    table = html[html.index("<table"):html.index("</table>")]
    assert table.count("<tr>") == 2  # the head and Juazeiro: no row of zeros
    assert f'href="/jurisdiction/{JUAZEIRO}"' in table
    folded = html[html.index('<details class="uncovered-list">'):]
    assert "416 municípios sem nenhuma norma ainda" in folded
    assert 'href="/jurisdiction/2900108"' in folded  # Abaíra, one link among the 416


def test_the_home_page_starts_with_what_the_corpus_holds(site):
    html = page(site, "/").text
    text = visible(html)
    assert text.index("Lugares no acervo") < text.index("Cobertura por UF")
    assert '<form class="place-finder" action="/places"' in html
    coverage = html[html.index('<ul class="uf-bars">'):]
    bars = re.findall(r'<a href="/uf/([A-Z]{2})"', coverage[:coverage.index("</ul>")])
    assert bars == ["BA", "PE"]  # UFs with norms, most first; not Acre at 0
    assert "25 UFs sem nenhuma norma ainda" in text
    assert "Normas mais recentes · pela data da norma Lei nº 3010/2018 · 09/04/2018" in text


# -- legal status badges ---------------------------------------------------------------------


def test_revoked_and_altered_norms_carry_a_badge_everywhere(site):
    n, d = site.norms, site.documents
    badge = re.compile(r'<span class="badge legal legal-(\w+)"[^>]*>([^<]+)</span>')
    listing = page(site, f"/jurisdiction/{JUAZEIRO}").text
    assert ("revoked", "revogada") in badge.findall(listing)
    assert ("altered", "alterada") in badge.findall(listing)
    results = page(site, "/search?q=lei+2199").text
    hits = results[results.index('<ol class="hits">'):]
    first = hits[:hits.index("</li>")]
    assert "Lei nº 2199/2011" in first and ("altered", "alterada") in badge.findall(first)
    assert ("revoked_in_part", "revogada em parte") in badge.findall(hits)
    assert ("revoked", "revogada") in badge.findall(page(site, f"/norm/{n['revoked']}").text)
    assert ("altered", "alterada") in badge.findall(page(site, f"/document/{d['seed']}").text)
    english = page(site, f"/norm/{n['revoked']}?lang=en").text
    assert ("revoked", "revoked") in badge.findall(english)
    assert ("revoked", "revoked") in badge.findall(page(site, "/search?q=mototaxi&lang=en").text)
    # The legal status facet speaks the page's language too.
    assert '<span class="facet-label">revogada</span>' in listing
    english_listing = page(site, f"/jurisdiction/{JUAZEIRO}?lang=en").text
    assert '<span class="facet-label">revoked</span>' in english_listing
    assert "revogada" not in english_listing


# -- reading on a phone ----------------------------------------------------------------------


def test_paragraphs_rejoin_the_printed_lines():
    text = ("MUNICÍPIO DE JUAZEIRO\nLEI Nº 2.199/2011\nDispõe sobre o serviço de moto-táxi e\n"
            "moto-entrega no âmbito do Município de Juazeiro, e dá\noutras providências.\n\n"
            "Art. 1º O serviço de transporte individual de passageiros em\nmotocicletas "
            "fica regulamentado por esta Lei, nos termos do\nart. 30 da Constituição.\n"
            "Parágrafo único. O serviço depende de permissão.\n"
            "I - possuir habilitação na categoria A;\nII - ter idade mínima de 21 anos.\n"
            "Tabela de castanha-do-\nPará.")
    assert paragraphs(text) == [
        "MUNICÍPIO DE JUAZEIRO", "LEI Nº 2.199/2011",
        "Dispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do Município de "
        "Juazeiro, e dá outras providências.",
        "Art. 1º O serviço de transporte individual de passageiros em motocicletas fica "
        "regulamentado por esta Lei, nos termos do art. 30 da Constituição.",
        "Parágrafo único. O serviço depende de permissão.",
        "I - possuir habilitação na categoria A;", "II - ter idade mínima de 21 anos.",
        "Tabela de castanha-do-Pará."]
    assert paragraphs("") == [] and paragraphs("\n \n") == []
    # Nothing of the text is lost: the same words in the same order.
    assert " ".join(paragraphs(text)).replace("-Pará", "- Pará").split() == \
        text.replace("\n", " ").split()


def test_document_text_is_reflowed_with_the_original_lines_one_click_away(site):
    doc = site.documents["seed"]
    html = page(site, f"/document/{doc}").text
    assert html.count('<div class="text reflowed">') == 9 and '<pre class="text">' not in html
    for n in range(1, 10):
        assert f'id="d{doc}-p{n}"' in html  # every page break kept, with its anchor
    assert "<p>Art. 33. Esta Lei entra em vigor" in html
    assert f'href="/document/{doc}?lines=original#doc-{doc}"' in html
    original = page(site, f"/document/{doc}?lines=original").text
    assert original.count('<pre class="text">') == 9
    assert "Mostrar as linhas originais" not in original and "Reunir parágrafos" in original
    norm = page(site, f"/norm/{site.norms['seed']}").text
    assert '<div class="text reflowed">' in norm and "Mostrar as linhas originais" in norm


# -- public pages ------------------------------------------------------------------------------


def test_public_pages_show_no_path_of_the_importing_machine_nor_operator_commands(site):
    for path in pages_of(site):
        html = site.client.get(path).text
        for secret in ("file://", IMPORT_FOLDER, FOLDER_JUAZEIRO, "/home/"):
            assert secret not in html, (path, secret)
    quality = page(site, "/quality").text
    assert "locleg extract" not in quality and "locleg index" not in quality
    assert shown_address(f"file://{IMPORT_FOLDER}/lei 12000.html") == \
        "local file imported: lei 12000.html"
    assert shown_address("file:leis/lei_2199_2011.html") == "leis/lei_2199_2011.html"
    assert public_text(f"cannot read {IMPORT_FOLDER}/lei.pdf: truncated; see "
                       "https://sapl.juazeiro.ba.leg.br/a/b") == \
        "cannot read local file imported: lei.pdf: truncated; see " \
        "https://sapl.juazeiro.ba.leg.br/a/b"


def test_a_demo_corpus_says_so_on_every_page_and_links_no_made_up_portal(tmp_path):
    from locleg.fixtures.samples import main as samples_main

    corpus = init_corpus(tmp_path / "corpus")
    built = build_explorer_corpus(corpus)
    assert samples_main([str(tmp_path / "samples"), "--corpus", str(tmp_path / "corpus")]) == 0
    assert samples_main([str(tmp_path / "samples2"), "--corpus", str(tmp_path / "corpus")]) == 0
    settings = read_settings(tmp_path / "corpus")
    assert settings.demo is True
    assert (tmp_path / "corpus" / "locleg.toml").read_text().count("demo = true") == 1
    with LiveServer(SimpleNamespace(settings=settings)) as live, \
            httpx.Client(base_url=live.url, timeout=30) as client:
        for path in ("/", "/uf/BA", f"/jurisdiction/{JUAZEIRO}", f"/norm/{built.norms['seed']}",
                     f"/document/{built.documents['seed']}", "/search?q=moto", "/sources",
                     "/quality", "/norm/99999"):
            html = client.get(path).text
            assert '<p class="demo-banner" role="note"><b>Acervo de demonstração</b>' in html
            assert 'href="https://sapl.' not in html, path  # shown, never linked
        norm = client.get(f"/norm/{built.norms['seed']}").text
        assert SEED_URL in norm and "endereço fictício" in norm
    corpus.close()


def test_an_ordinary_corpus_has_no_demo_banner(site):
    html = page(site, f"/norm/{site.norms['seed']}").text
    assert "demo-banner" not in html and f'href="{SEED_URL}"' in html


def test_originals_download_under_the_norm_and_place_name(site):
    d = site.documents
    response = site.client.get(f"/document/{d['seed']}/original")
    assert response.headers["content-disposition"] == \
        'inline; filename="lei-2199-2011-juazeiro-ba.pdf"'
    anexo = site.client.get(f"/document/{d['decree_anexo']}/original")
    assert anexo.headers["content-disposition"] == \
        f'inline; filename="decreto-100-2012-juazeiro-ba-anexo-{d["decree_anexo"]}.pdf"'
    state = site.client.get(f"/document/{d['state']}/original")
    assert state.headers["content-disposition"] == \
        'attachment; filename="lei-12000-2010-bahia-ba.html"'
    assert BytesIO(response.content).read(5) == b"%PDF-"


def test_error_pages_speak_the_readers_language_and_json_stays_english(site):
    text = visible(page(site, "/norm/99999", 404).text)
    assert "Erro 404 Não encontrado nenhuma norma 99999" in text
    assert "Error 404 Not found no norm 99999" in visible(page(site, "/norm/99999?lang=en",
                                                              404).text)
    assert visible(page(site, "/uf/XX", 404).text).count(
        "nenhuma unidade federativa 'XX': use uma sigla como BA ou SP") == 1
    error = site.client.get("/norm/99999.json").json()["error"]
    assert (error["title"], error["message"]) == ("Not found", "no norm 99999")
