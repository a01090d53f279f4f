"""End to end in Debian's Chromium (Playwright): the reader's walk — home → the place finder
("juazeiro") → Juazeiro → Lei 2199/2011 → its document → a search for "lei 2199" → a search
for "moto táxi" in one UF → /quality — in pt-BR and in English, on a desktop and a 390 px
phone, no page wider than its screen; home → UF → Juazeiro → seed 000's norm → its document
→ back, from seed 000 through the law it revokes and back to the sentence that revokes it,
and a search for "moto taxi" that finds it highlighted; with JavaScript on and off.
Screenshots of every page are saved under the test's output folder
($LOCLEG_E2E_SCREENSHOTS, else pytest's temporary folder)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from locleg.corpus import init_corpus
from tests.explorer_fixtures import JUAZEIRO, LiveServer, build_explorer_corpus

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    corpus = init_corpus(tmp_path_factory.mktemp("e2e") / "corpus")
    built = build_explorer_corpus(corpus, legal_life=True)
    with LiveServer(corpus) as live:
        built.url = live.url
        yield built
    corpus.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    chosen = os.environ.get("LOCLEG_E2E_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots in {folder}")
    return folder


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make install` installs Debian's chromium")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def _page(browser, viewport: str, javascript: bool = True, locale: str = "en-US"):
    context = browser.new_context(viewport=VIEWPORTS[viewport], java_script_enabled=javascript,
                                  locale=locale)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return context, page, problems


# What the walk reads in each language.
SAYS = {
    "pt-BR": {"home": "Início · explorador br-locleg", "places": "Lugares no acervo",
              "juazeiro": "10 normas", "date": "27/06/2011", "altered": "alterada",
              "documents": "Documentos (2)", "original_lines": "Mostrar as linhas originais",
              "reflowed": "Parágrafos reunidos para leitura.", "named": "nomeada",
              "match": re.compile(r"^\d+ normas? encontradas?$"), "quality": "Qualidade"},
    "en": {"home": "Home · br-locleg explorer", "places": "Places in the corpus",
           "juazeiro": "10 norms", "date": "Jun 27, 2011", "altered": "altered",
           "documents": "Documents (2)", "original_lines": "Show the original lines",
           "reflowed": "Paragraphs rejoined for reading.", "named": "named",
           "match": re.compile(r"^\d+ norms? match(es)?$"), "quality": "Quality"},
}


def _fits(page, viewport: str) -> None:
    """No page is wider than its screen (a phone's 390 px above all)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= VIEWPORTS[viewport]["width"], f"{page.url} is {width} px wide"


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("language", ["pt-BR", "en"])
def test_a_reader_finds_a_place_a_law_reads_it_and_searches(browser, site, shots, viewport,
                                                            language):
    says = SAYS[language]
    # The browser asks for Portuguese; English is chosen once with ?lang=en and kept.
    context, page, problems = _page(browser, viewport, locale="pt-BR")
    base = site.url
    shot = iter(range(1, 100))

    def snap(name: str, full: bool = True) -> None:
        _fits(page, viewport)
        page.screenshot(path=shots / f"walk-{viewport}-{language}-{next(shot)}-{name}.png",
                        full_page=full)

    page.goto(base + ("/?lang=en" if language == "en" else "/"))
    assert page.title() == says["home"]
    assert page.locator("html").get_attribute("lang") == language
    assert says["places"] in page.locator("#places h2").inner_text()
    snap("home")

    page.fill('#places .place-finder input[name="q"]', "juazeiro")
    page.click("#places .place-finder button")
    page.wait_for_url(base + "/places?q=juazeiro")
    first = page.locator(".place-list li").first
    assert first.locator("a").inner_text() == "Juazeiro (BA)"
    assert first.locator(".count").inner_text() == says["juazeiro"]
    snap("places")

    first.locator("a").click()
    page.wait_for_url(base + f"/jurisdiction/{JUAZEIRO}")
    assert page.locator("h1").inner_text().startswith("Juazeiro")
    snap("jurisdiction")

    seed = site.norms["seed"]
    page.click(f'.norm-list a[href="/norm/{seed}"]')
    page.wait_for_url(base + f"/norm/{seed}")
    assert page.locator("h1").inner_text() == "Lei nº 2199/2011"
    assert page.locator(".legal-line .legal-altered").inner_text() == says["altered"]
    body = page.locator("main").inner_text()
    for shown in (says["date"], says["documents"], "DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI",
                  "Art. 33. Esta Lei entra em vigor"):
        assert shown in body, shown
    snap("norm")

    doc = site.documents["seed"]
    page.click(f'a[href="/document/{doc}"]')
    page.wait_for_url(base + f"/document/{doc}")
    assert page.locator(f"#d{doc}-p9").is_visible()
    assert says["reflowed"] in page.locator(".text-view").inner_text()
    assert page.locator(".reflowed").count() == 9
    snap("document", full=False)
    page.click(f'.text-view a:has-text("{says["original_lines"]}")')
    page.wait_for_url(f"**/document/{doc}?lines=original*")
    assert page.locator("pre.text").count() == 9
    snap("document-original-lines", full=False)

    page.fill('.top-search input[name="q"]', "lei 2199")
    page.click(".top-search button")
    page.wait_for_url("**/search?q=lei+2199")
    hit = page.locator(".hit").first
    assert hit.locator(".norm-title").inner_text() == "Lei nº 2199/2011"
    assert hit.locator(".named").inner_text() == says["named"]
    assert hit.locator(".legal-altered").inner_text() == says["altered"]
    snap("search-lei-2199")

    page.fill('.search-form input[name="q"]', "moto táxi")
    page.click(".filters summary")
    page.select_option('.filters select[name="uf"]', "BA")
    page.click(".search-row button")
    page.wait_for_url("**/search?q=moto+t%C3%A1xi*uf=BA*")
    assert says["match"].match(page.locator(".match-count").inner_text())
    places = page.locator(".hit .place").all_inner_texts()
    assert places and all(p.endswith("(BA)") for p in places), places
    assert page.locator(".hit .norm-title").first.inner_text() == "Lei nº 2199/2011"
    snap("search-moto-taxi-ba")

    page.click('.top-nav a[href="/quality"]')
    page.wait_for_url(base + "/quality")
    assert page.locator("h1").inner_text() == says["quality"]
    snap("quality")
    for path in ("/uf/BA", "/sources", "/citations", "/api", f"/norm/{site.norms['revoked']}"):
        page.goto(base + path)
        _fits(page, viewport)
    assert page.locator("html").get_attribute("lang") == language
    assert problems == []
    context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_walk_from_home_to_seed_000_and_back(browser, site, shots, viewport):
    context, page, problems = _page(browser, viewport)
    base = site.url
    page.goto(base + "/")
    assert page.title() == "Home · br-locleg explorer"
    page.screenshot(path=shots / f"{viewport}-1-home.png", full_page=True)

    page.click('a[href="/uf/BA"]')
    page.wait_for_url(base + "/uf/BA")
    assert page.locator("h1").inner_text().startswith("Bahia")
    page.screenshot(path=shots / f"{viewport}-2-uf.png")

    page.click('a[href="/jurisdiction/2918407"] >> nth=0')
    page.wait_for_url(base + "/jurisdiction/2918407")
    assert page.locator("h1").inner_text().startswith("Juazeiro")
    page.screenshot(path=shots / f"{viewport}-3-jurisdiction.png", full_page=True)

    page.click(f'a[href="/norm/{site.norms["seed"]}"]')
    page.wait_for_url(base + f"/norm/{site.norms['seed']}")
    assert page.locator("h1").inner_text() == "Lei nº 2199/2011"
    body = page.locator("main").inner_text()
    for shown in ("← Juazeiro (BA)", "Legislação Municipal", "2199 / 2011", "2011-06-27",
                  "DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI", "1461", "Documents (2)",
                  "texto integral", "extracted", "tesseract", "0.94", "open original →",
                  "Revoga integralmente", "Art. 33. Esta Lei entra em vigor"):
        assert shown in body, shown
    page.screenshot(path=shots / f"{viewport}-4-norm.png", full_page=True)

    doc = site.documents["seed"]
    page.click(f'a[href="/document/{doc}"]')
    page.wait_for_url(base + f"/document/{doc}")
    assert page.locator(f"#d{doc}-p9").is_visible()
    page.screenshot(path=shots / f"{viewport}-5-document.png")

    page.go_back()
    page.wait_for_url(base + f"/norm/{site.norms['seed']}")
    page.click("text=← Juazeiro (BA)")
    page.wait_for_url(base + "/jurisdiction/2918407")
    assert problems == []
    context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_citation_leads_to_the_revoked_law_and_back_to_its_sentence(browser, site, shots,
                                                                      viewport):
    context, page, problems = _page(browser, viewport, javascript=False)
    seed, revoked = site.norms["seed"], site.norms["revoked"]
    page.goto(site.url + f"/norm/{seed}")
    assert page.locator(".legal-line").inner_text().startswith("altered")
    page.click(f'#cita a[href="/norm/{revoked}"]')
    page.wait_for_url(site.url + f"/norm/{revoked}")
    assert page.locator("h1").inner_text() == "Lei nº 1996/2008"
    assert page.locator(".legal-line").inner_text().startswith("revoked")
    status = page.locator("#status").inner_text()
    # the whole revocation is SAPL's vínculo; seed's Art. 31 revokes only the contrary
    # provisions (issue 21), a citation whose sentence is one click away
    assert "Revoked by" in status and "Revogado(a) integralmente" in status
    page.screenshot(path=shots / f"{viewport}-8-revoked.png", full_page=True)
    anchor = f"#d{site.documents['seed']}-p9"
    page.goto(site.url + f"/norm/{seed}")
    page.click(f'#cita a[href="/norm/{seed}{anchor}"]')
    page.wait_for_url(site.url + f"/norm/{seed}{anchor}")
    assert page.locator(anchor).is_visible()
    assert "Art. 31. Ficam revogadas" in page.locator(anchor).inner_text()
    page.screenshot(path=shots / f"{viewport}-9-revoking-sentence.png")
    assert problems == []
    context.close()


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_search_moto_taxi_finds_seed_000_highlighted(browser, site, shots, viewport, javascript):
    context, page, problems = _page(browser, viewport, javascript)
    page.goto(site.url + "/")
    page.fill('.big-search input[name="q"]', "moto taxi")
    page.click(".big-search button")
    page.wait_for_url("**/search?q=moto+taxi*")
    first = page.locator(".hit").first
    assert first.locator(".norm-title").inner_text() == "Lei nº 2199/2011"
    marks = [m.lower() for m in first.locator("mark").all_inner_texts()]
    assert "moto" in marks and "táxi" in marks
    assert page.locator(".match-count").inner_text().startswith("5 norms match")
    page.screenshot(path=shots / f"{viewport}-{'js' if javascript else 'nojs'}-6-search.png",
                    full_page=True)
    # A facet narrows, and the page still works without JavaScript.
    page.click('.facet a:has-text("Decreto")')
    page.wait_for_url("**type=decreto*")
    expect(page.locator(".hit")).to_have_count(1)  # retried until the new page is there
    first = page.locator(".hit .norm-title").first
    first.click()
    page.wait_for_url(f"**/norm/{site.norms['decree']}")
    assert problems == []
    context.close()


def test_a_malformed_query_shows_a_readable_400(browser, site, shots):
    context, page, problems = _page(browser, "desktop")
    response = page.goto(site.url + '/search?q="moto')
    assert response.status == 400
    assert "a quote is not closed" in page.locator("main").inner_text()
    page.screenshot(path=shots / "desktop-7-bad-query.png")
    page.fill('.error-card input[name="q"]', '"moto táxi"')
    page.click(".error-card button")
    expect(page.locator(".hit")).to_have_count(3)
    context.close()
