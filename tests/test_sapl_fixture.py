"""The SAPL fixture server answers like the recorded SAPL 3.1.163 (reference/sapl-recorded/)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import httpx
import pytest

from locleg.fixtures.sapl_server import Camara, SaplServer

# The fields of a recorded normajuridica row, in order (normajuridica_page1.json).
NORM_FIELDS = ["id", "__str__", "metadata", "texto_integral", "numero", "ano",
               "esfera_federacao", "data", "data_publicacao", "veiculo_publicacao",
               "pagina_inicio_publicacao", "pagina_fim_publicacao", "ementa", "indexacao",
               "observacao", "complemento", "data_vigencia", "timestamp",
               "data_ultima_atualizacao", "ip", "ultima_edicao", "tipo", "materia", "orgao",
               "user", "assuntos", "autores"]
PAGINATION = ["links", "previous_page", "next_page", "start_index", "end_index",
              "total_entries", "total_pages", "page"]


@pytest.fixture(scope="module")
def server():
    srv = SaplServer(Camara.juazeiro()).start()
    yield srv
    srv.stop()


def test_listing_pages_and_rows_have_the_recorded_shape(server):
    page1 = httpx.get(server.url + "/api/norma/normajuridica/?page_size=10&o=id").json()
    assert list(page1) == ["pagination", "results"]
    assert list(page1["pagination"]) == PAGINATION
    assert page1["pagination"]["total_entries"] == 25
    assert page1["pagination"]["links"]["next"] == \
        f"{server.url}/api/norma/normajuridica/?o=id&page=2&page_size=10"
    row = page1["results"][0]
    assert sorted(row) == sorted(NORM_FIELDS)
    assert (row["id"], row["numero"], row["__str__"]) == (
        1461, "2199", "Lei Ordinária nº 2.199, de 27 de junho de 2011")
    page2 = httpx.get(page1["pagination"]["links"]["next"]).json()
    assert page2["pagination"]["links"]["previous"] == \
        f"{server.url}/api/norma/normajuridica/?o=id&page_size=10"  # page 1 has no page=
    past = httpx.get(server.url + "/api/norma/normajuridica/?page_size=10&o=id&page=4")
    assert past.status_code == 404 and past.text == '{"detail":"P\\u00e1gina inv\\u00e1lida."}'


def test_get_all_is_a_bare_array_streamed(server):
    response = httpx.get(server.url + "/api/norma/normajuridica/?get_all=true&o=id")
    assert response.headers["transfer-encoding"] == "chunked"
    rows = response.json()
    assert [r["id"] for r in rows] == list(range(1461, 1486))
    by_id = {r["id"]: r for r in rows}
    assert by_id[1482]["numero"] == "12-A" and by_id[1479]["data"] is None
    assert by_id[1479]["__str__"] == "Lei Complementar nº 25, de "


def test_errors_are_answered_as_sapl_does(server):
    bad_year = httpx.get(server.url + "/api/norma/normajuridica/?ano=abc")
    assert bad_year.status_code == 400 and list(bad_year.json()) == ["ano"]
    for value in ("2026-01-01T00:00:00", "2026-01-01T00:00:00-03:00"):
        r = httpx.get(server.url + "/api/norma/normajuridica/",
                      params={"data_ultima_atualizacao__gte": value, "o": "id"})
        assert r.status_code == 400
    for value in ("2026-01-01", "01/01/2026"):
        r = httpx.get(server.url + "/api/norma/normajuridica/",
                      params={"data_ultima_atualizacao__gte": value, "o": "id",
                              "page_size": 100})
        assert [x["id"] for x in r.json()["results"]] == list(range(1474, 1486))
    assert httpx.get(server.url + "/api/norma/normajuridica/?o=nonexistent").status_code == 500


def test_urls_follow_the_host_header_and_files_are_served_like_django(server):
    detail = httpx.get(server.url + "/api/norma/normajuridica/1461/",
                       headers={"Host": "sapl.juazeiro.ba.leg.br"}).json()
    assert detail["texto_integral"] == "http://sapl.juazeiro.ba.leg.br/media/sapl/public/" \
                                       "normajuridica/2011/1461/lei_2199_de_2011.pdf"
    path = "/media/sapl/public/normajuridica/2011/1461/lei_2199_de_2011.pdf"
    head = httpx.head(server.url + path)
    assert head.headers["content-type"] == "application/pdf" and "etag" not in head.headers
    assert head.headers["last-modified"].endswith("GMT") and head.content == b""
    body = httpx.get(server.url + path).content
    assert body.startswith(b"%PDF") and len(body) == int(head.headers["content-length"])
    robots = httpx.get(server.url + "/robots.txt").text
    assert "User-agent: *\nCrawl-delay: 60" in robots
    casa = httpx.get(server.url + "/api/base/casalegislativa/").json()["results"][0]
    assert casa["version"] == "3.1.163-RC20" and casa["uf"] == "BA"


def test_command_line_server_starts_in_the_background_with_faults(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pidfile = tmp_path / "sapl.pid"
    subprocess.run([sys.executable, "-m", "locleg.fixtures.sapl_server", "--port", str(port),
                    "--synthetic", "150", "--fault", "503:casalegislativa:1",
                    "--pidfile", str(pidfile)], check=True, timeout=30)
    pid = int(pidfile.read_text())
    try:
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(base + "/api/base/casalegislativa/").status_code == 503
        assert httpx.get(base + "/api/base/casalegislativa/").status_code == 200
        rows = httpx.get(base + "/api/norma/normajuridica/?get_all=true&o=id").json()
        assert len(rows) == 150 and rows[-1]["texto_integral"].endswith("/norma_150.pdf")
    finally:
        os.kill(pid, signal.SIGTERM)
