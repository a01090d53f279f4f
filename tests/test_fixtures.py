"""The stand-ins' package: apart from the product, one set of builders, a server they share."""

from __future__ import annotations

import ast
import io
import os
import re
import signal
import subprocess
import sys
import time
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx
import pypdfium2 as pdfium
import pytest
from PIL import Image

from locleg.extract import extract
from locleg.fixtures import camara
from locleg.fixtures.documents import (
    born_digital_pdf,
    docx_document,
    image_file,
    jpeg_pdf,
    municipal_scan,
    scanned_pdf,
    txt_document,
)
from locleg.fixtures.laws import juazeiro_2199_pages
from locleg.fixtures.server import Files, Request, Response, Server

SRC = Path(__file__).resolve().parents[1] / "src" / "locleg"


def _imports_fixtures(module: Path) -> list[str]:
    """The lines of a module that import locleg.fixtures, absolutely or relatively."""
    package = module.relative_to(SRC.parent).with_suffix("").parts[:-1]  # ("locleg", ...)
    found = []
    for node in ast.walk(ast.parse(module.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names = [target] + [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        if any(n == "locleg.fixtures" or n.startswith("locleg.fixtures.") for n in names):
            found.append(f"{module.relative_to(SRC.parent)}:{node.lineno}")
    return found


def test_the_product_never_imports_the_stand_ins():
    modules = [p for p in SRC.rglob("*.py") if "fixtures" not in p.relative_to(SRC).parts]
    assert len(modules) > 50
    offending = [line for m in modules for line in _imports_fixtures(m)]
    assert offending == []


def test_the_import_check_sees_absolute_and_relative_imports(tmp_path, monkeypatch):
    package = tmp_path / "locleg" / "harvest"
    package.mkdir(parents=True)
    module = package / "x.py"
    module.write_text("from ..fixtures import camara\nimport locleg.fixtures.server\n"
                      "from locleg import fixtures\nfrom . import sapl\n"
                      "from ..extract import pdf\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path / "locleg")
    assert _imports_fixtures(module) == ["locleg/harvest/x.py:1", "locleg/harvest/x.py:2",
                                         "locleg/harvest/x.py:3"]


# -- the builders ---------------------------------------------------------------------------


def test_a_born_digital_pdf_has_a_text_layer_pypdfium2_reads():
    data = born_digital_pdf("LEI Nº 2.312, DE 15 DE ABRIL DE 2013",
                            ["Art. 1º Fica instituído o Programa Municipal de Arborização."])
    pdf = pdfium.PdfDocument(data)
    text = pdf[0].get_textpage().get_text_range()
    assert "LEI Nº 2.312" in text and "Arborização" in text
    assert born_digital_pdf("A", ["b"]) == born_digital_pdf("A", ["b"])  # deterministic


def test_a_scan_is_a_jpeg_at_200_dpi_with_faded_print_and_no_text_layer():
    scan = municipal_scan(dpi=200)
    jpeg = Image.open(io.BytesIO(image_file([scan.image], "JPEG", dpi=200)))
    assert jpeg.format == "JPEG" and jpeg.info["dpi"] == (200, 200)
    assert jpeg.size == (round(8.27 * 200), round(11.69 * 200))  # A4
    darkest = jpeg.convert("L").getextrema()[0]
    assert 30 < darkest < 160  # faded print: never black
    pdf = jpeg_pdf([scan.image])
    assert b"/DCTDecode" in pdf  # the page is stored as the JPEG the scanner wrote
    assert pdfium.PdfDocument(pdf)[0].get_textpage().get_text_range().strip() == ""
    assert pdfium.PdfDocument(scanned_pdf([["LEI Nº 2.199/2011"]]))[0] \
        .get_textpage().get_text_range().strip() == ""


def test_a_docx_the_extractor_reads():
    result = extract(docx_document([["PORTARIA Nº 033, DE 2 DE MARÇO DE 2015",
                                     "Art. 1º Designar os servidores."]]))
    assert (result.status, result.method) == ("extracted", "docx")
    assert result.text.splitlines() == ["PORTARIA Nº 033, DE 2 DE MARÇO DE 2015",
                                        "Art. 1º Designar os servidores."]


def test_a_txt_is_cp1252_with_crlf():
    assert txt_document("Art. 1º Decreto.\nJuazeiro") == "Art. 1º Decreto.\r\nJuazeiro".encode(
        "cp1252")


def test_the_sample_camara_files_come_from_the_shared_builders():
    files = camara.files()
    scan = next(data for path, data in files.items() if "lei_2199_de_2011" in path)
    assert scan == scanned_pdf(juazeiro_2199_pages())
    anexo = next(data for path, data in files.items() if "anexo_i_" in path)
    assert "Lei nº 2.199" in pdfium.PdfDocument(anexo)[0].get_textpage().get_text_range()
    docx = next(data for path, data in files.items() if path.endswith(".docx"))
    assert "Semana Municipal de Prevenção" in extract(docx).text


# -- the server every stand-in shares -------------------------------------------------------


class Portal(Server):
    """The example of server.py's docstring: a listing page and files."""

    def answer(self, request: Request) -> Response:
        if request.path == "/leis":
            return Response.html(200, '<a href="/lei/1">Lei 1</a>')
        return super().answer(request)


@pytest.fixture
def portal():
    with Portal(crawl_delay=1.5) as srv:
        yield srv


def test_robots_txt_carries_the_crawl_delay(portal):
    answer = httpx.get(portal.url + "/robots.txt")
    assert answer.text == "User-agent: *\nCrawl-delay: 1.5\n"
    assert Portal(crawl_delay=None).answer(Request("GET", "/robots.txt", "h", "h", {})).body \
        == b"User-agent: *\n"


def test_faults_follow_their_schedule_and_the_log_records_every_request(portal):
    portal.add_fault("429", r"^/leis", after=1, times=2, value=7)
    statuses = [httpx.get(portal.url + "/leis") for _ in range(4)]
    assert [a.status_code for a in statuses] == [200, 429, 429, 200]
    assert statuses[1].headers["retry-after"] == "7"
    assert [(r.method, r.target, r.status) for r in portal.requests(path="^/leis")] == [
        ("GET", "/leis", s) for s in (200, 429, 429, 200)]
    assert portal.log[0].host == "127.0.0.1" and portal.log[0].time <= portal.log[-1].time

    portal.clear_faults()
    portal.add_fault("503", "", times=1)
    assert httpx.get(portal.url + "/anything").status_code == 503
    assert httpx.get(portal.url + "/anything").status_code == 404
    with pytest.raises(ValueError, match="unknown fault 'invalid_json'"):
        portal.add_fault("invalid_json")  # a SAPL stand-in's own kind, not every server's


def test_a_host_shedding_load_refuses_each_urls_first_request_once(portal):
    portal.files.put("/lei/1.pdf", b"%PDF-1.4 one")
    portal.files.put("/lei/2.pdf", b"%PDF-1.4 two")
    portal.shed_load("^/lei/", status=429, retry_after=2)
    got = [(path, httpx.get(portal.url + path)) for path in
           ("/lei/1.pdf", "/lei/1.pdf", "/lei/2.pdf", "/lei/2.pdf", "/lei/1.pdf", "/leis")]
    assert [(path, a.status_code) for path, a in got] == [
        ("/lei/1.pdf", 429), ("/lei/1.pdf", 200), ("/lei/2.pdf", 429), ("/lei/2.pdf", 200),
        ("/lei/1.pdf", 200), ("/leis", 200)]
    assert got[0][1].headers["retry-after"] == "2" and got[1][1].content == b"%PDF-1.4 one"
    with pytest.raises(ValueError, match="429 or 503"):
        portal.shed_load(status=500)


def test_a_trickle_sends_a_byte_at_a_time(portal):
    portal.trickle("^/leis", interval=0.2, times=1)
    started = time.monotonic()
    with httpx.stream("GET", portal.url + "/leis", timeout=5) as answer:
        chunks = answer.iter_bytes()
        first, second = next(chunks), next(chunks)
    assert answer.status_code == 200 and (first, second) == (b"[", b" ")
    assert time.monotonic() - started >= 0.2
    assert httpx.get(portal.url + "/leis").status_code == 200  # once only


def test_a_slow_answer_comes_late_and_right(portal):
    portal.add_fault("slow", "^/leis", value=0.5, times=1)
    started = time.monotonic()
    answer = httpx.get(portal.url + "/leis", timeout=30)
    assert time.monotonic() - started >= 0.5
    assert answer.status_code == 200 and "Lei 1" in answer.text


def test_files_are_replaced_in_place_and_deleted(portal):
    portal.files.put("/lei/1.pdf", b"%PDF-1.4 first")
    portal.files.put("/lei/2", b"<p>Lei 2</p>", content_type="text/html; charset=utf-8")
    first = httpx.get(portal.url + "/lei/1.pdf")
    assert first.content == b"%PDF-1.4 first"
    assert first.headers["content-type"] == "application/pdf"  # from the suffix
    assert httpx.get(portal.url + "/lei/2").headers["content-type"] == "text/html; charset=utf-8"
    validator = {"If-Modified-Since": first.headers["last-modified"]}
    assert httpx.get(portal.url + "/lei/1.pdf", headers=validator).status_code == 304

    portal.files.put("/lei/1.pdf", b"%PDF-1.4 second")  # same URL, new bytes, a later date
    second = httpx.get(portal.url + "/lei/1.pdf", headers=validator)
    assert second.status_code == 200 and second.content == b"%PDF-1.4 second"
    assert parsedate_to_datetime(second.headers["last-modified"]) > \
        parsedate_to_datetime(first.headers["last-modified"])

    portal.files.delete("/lei/1.pdf")
    assert httpx.get(portal.url + "/lei/1.pdf").status_code == 404


def test_nginx_files_send_an_etag_that_changes_with_the_file():
    files = Files({"/a.pdf": b"one"}, etags=True)
    first = files.answer("/a.pdf", {}, "application/pdf")
    assert files.answer("/a.pdf", {"if-none-match": first.headers["ETag"]}, "x").status == 304
    files.put("/a.pdf", b"three")
    assert files.answer("/a.pdf", {"if-none-match": first.headers["ETag"]}, "x").status == 200
    assert files.answer("/gone.pdf", {}, "x") is None


def test_a_stand_in_starts_detached_on_a_free_port_with_a_pidfile(tmp_path):
    pidfile = tmp_path / "sapl.pid"
    started = subprocess.run(
        [sys.executable, "-m", "locleg.fixtures.sapl_server", "--port", "0", "--crawl-delay",
         "2", "--pidfile", str(pidfile)], check=True, timeout=60, capture_output=True, text=True)
    pid = int(pidfile.read_text())
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+", started.stdout)[0]
        assert "Crawl-delay: 2\n" in httpx.get(url + "/robots.txt").text
    finally:
        os.kill(pid, signal.SIGTERM)
