"""Sample documents: deterministic bytes, and a demo set whose files extract as their role says."""

from __future__ import annotations

import csv
from pathlib import Path

from locleg.extract import extract, sniff_media_type
from locleg.fixtures.documents import born_digital_pdf, html_law_page, scanned_pdf
from locleg.fixtures.samples import MANIFEST_COLUMNS, main, write_demo_documents


def test_builders_are_deterministic() -> None:
    law = ["Art. 1º Teste."]
    assert born_digital_pdf("LEI", law) == born_digital_pdf("LEI", law)
    assert scanned_pdf([["Art. 1º"]], dpi=72) == scanned_pdf([["Art. 1º"]], dpi=72)
    assert html_law_page("Lei", ["Art. 1º"]) == html_law_page("Lei", ["Art. 1º"])


def test_page_without_navigation_is_just_the_law() -> None:
    page = html_law_page("Lei nº 1/2020", ["Art. 1º Fica criado."], with_navigation=False)
    assert b"<nav" not in page
    assert extract(page).text == "Lei nº 1/2020\nArt. 1º Fica criado."


def test_demo_set_and_manifest(tmp_path: Path) -> None:
    manifest = write_demo_documents(tmp_path / "demo")
    with manifest.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == MANIFEST_COLUMNS
        rows = list(reader)
    by_file = {row["file"]: row for row in rows}
    assert all((manifest.parent / name).is_file() for name in by_file)

    seed = by_file["juazeiro-lei-2199-2011.pdf"]
    assert (seed["native_id"], seed["date"], seed["number"], seed["year"]) == (
        "1461", "2011-06-27", "2199", "2011")
    assert seed["ementa"].startswith("DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI")
    assert {row["jurisdiction"] for row in rows} == {"2918407", "32"}
    anexos = [row for row in rows if row["role"] == "anexo"]
    assert anexos and all(row["title"] for row in anexos)

    # OCR is tested in test_ocr.py: here the scanned pages are only recognised as such.
    results = {name: extract((manifest.parent / name).read_bytes(), ocr="never")
               for name in by_file}
    statuses = {name: (r.status, r.method) for name, r in results.items()}
    assert statuses["juazeiro-lei-2199-2011.pdf"] == ("pending", None)  # scanned
    assert statuses["juazeiro-lei-2480-2016.pdf"] == ("pending", "mixed")
    assert statuses["juazeiro-decreto-052-2012.txt"] == ("extracted", "plain")
    assert statuses["es-lei-2482-1969.html"] == ("extracted", "html")
    assert statuses["juazeiro-portaria-033-2015.docx"] == ("extracted", "docx")
    assert statuses["juazeiro-resolucao-012-2017.rtf"] == ("extracted", "rtf")
    assert statuses["juazeiro-decreto-301-2019.jpg"] == ("pending", None)  # an image: OCR
    assert statuses["juazeiro-lei-2480-2016-anexos.zip"] == ("extracted", "zip")
    born_digital = [n for n in by_file if n.endswith(".pdf") and n not in (
        "juazeiro-lei-2199-2011.pdf", "juazeiro-lei-2480-2016.pdf")]
    assert len(born_digital) >= 3
    assert all(statuses[n] == ("extracted", "text") for n in born_digital)
    assert len(results["juazeiro-decreto-187-2011.pdf"].pages) >= 2
    assert "véspera do “Dia de São João”" in results["juazeiro-decreto-052-2012.txt"].text
    assert "Art. 50 Esta lei entra em vigor" in results["es-lei-2482-1969.html"].text
    assert sniff_media_type((manifest.parent / "juazeiro-decreto-052-2012.txt").read_bytes()) == (
        "text/plain")


def test_module_entry_point(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "manifest.csv")
    assert main([]) == 2
