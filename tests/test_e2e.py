"""End to end in Debian's Chromium (Playwright): home → UF → Juazeiro → seed 000's norm →
its document → back, from seed 000 through the law it revokes and back to the sentence that
revokes it, and a search for "moto taxi" that finds it highlighted; on a desktop
and a phone viewport, with JavaScript on and off. Screenshots of every page are saved under
the test's output folder ($LOCLEG_E2E_SCREENSHOTS, else pytest's temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from locleg.corpus import init_corpus
from tests.explorer_fixtures import LiveServer, build_explorer_corpus

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


def _page(browser, viewport: str, javascript: bool = True):
    context = browser.new_context(viewport=VIEWPORTS[viewport], java_script_enabled=javascript)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return context, page, problems


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
    assert page.locator(".legal-line").inner_text().startswith("alterada")
    page.click(f'#cita a[href="/norm/{revoked}"]')
    page.wait_for_url(site.url + f"/norm/{revoked}")
    assert page.locator("h1").inner_text() == "Lei nº 1996/2008"
    assert page.locator(".legal-line").inner_text().startswith("revogada")
    status = page.locator("#status").inner_text()
    assert "Revoked by" in status and "Ficam revogadas as disposições em contrário" in status
    page.screenshot(path=shots / f"{viewport}-8-revoked.png", full_page=True)
    anchor = f"#d{site.documents['seed']}-p9"
    page.click(f'#status a[href="/norm/{seed}{anchor}"]')
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
    assert page.locator(".hit").count() == 1
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
    assert page.locator(".hit").count() == 3
    context.close()
