"""Office formats, XML, ZIP archives, and the bad input every extractor must survive."""

from __future__ import annotations

import io
import random
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from locleg.extract import Limits, extract, sniff_media_type
from locleg.fixtures.documents import (
    born_digital_pdf,
    docx_document,
    huge_png,
    image_file,
    many_pages_pdf,
    odt_document,
    rtf_document,
    scanned_page,
    zip_archive,
    zip_bomb,
    zip_with_entries,
)

DATA = Path(__file__).parent / "data"
LAW = [
    "Art. 1º Fica instituído o serviço de moto-táxi no Município de Juazeiro.",
    "Art. 2º O Decreto-Lei nº 3.688, de 3 de outubro de 1941, aplica-se subsidiariamente.",
]
ANNEX = ["ANEXO ÚNICO", "Tabela de tarifas: corrida urbana R$ 3,00 (três reais)."]
TABLE = [["Meta 1", "Ciclovias"], ["Meta 2", "Calçadas"]]
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _zip(members: dict[str, bytes | str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _docx_xml(body: str) -> bytes:
    return _zip({"[Content_Types].xml": "<Types/>",
                 "word/document.xml": f"<w:document {W}><w:body>{body}</w:body></w:document>"})


# --- DOCX -------------------------------------------------------------------------------------


def test_docx_pages_paragraphs_and_tables() -> None:
    result = extract(docx_document([LAW, ANNEX], table=TABLE))
    assert (result.status, result.method, result.backend) == ("extracted", "docx", "lxml")
    assert [p.text.splitlines() for p in result.pages] == [LAW, ANNEX + ["Meta 1 Ciclovias",
                                                                         "Meta 2 Calçadas"]]
    assert [p.method for p in result.pages] == ["docx", "docx"]
    assert result.confidence > 0.9


def test_docx_runs_hyphens_revisions_and_fields() -> None:
    body = (
        "<w:p><w:r><w:t>Art. 1º O serviço de moto</w:t></w:r><w:r><w:noBreakHyphen/>"
        "<w:t>táxi e a pala</w:t><w:softHyphen/><w:t>vra</w:t></w:r>"
        "<w:del><w:r><w:delText>texto revogado</w:delText></w:r></w:del>"
        "<w:r><w:fldChar/><w:instrText> PAGE </w:instrText><w:tab/><w:t>final.</w:t></w:r></w:p>"
        "<w:p><w:r><w:t>Art. 2º Vigor.</w:t><w:lastRenderedPageBreak/><w:t>Continua.</w:t>"
        "</w:r></w:p>"
    )
    result = extract(_docx_xml(body))
    assert [p.text for p in result.pages] == [
        "Art. 1º O serviço de moto-táxi e a palavra final.\nArt. 2º Vigor.", "Continua."]


def test_docx_that_is_a_zip_of_junk() -> None:
    junk = _zip({"word/document.xml": random.Random(3).randbytes(500)})
    result = extract(junk)
    assert result.status == "failed"
    assert result.error.startswith("cannot read DOCX: word/document.xml is not well-formed XML")
    # No word/document.xml at all: just an archive of junk, each member tried and reported.
    archive = _zip({"word/a.bin": random.Random(4).randbytes(300),
                    "b.bin": random.Random(5).randbytes(300)})
    result = extract(archive, "application/vnd.openxmlformats-officedocument."
                              "wordprocessingml.document")
    assert result.status == "failed"
    assert result.error == ("no member could be read: word/a.bin: unknown format "
                            "(application/octet-stream); b.bin: unknown format "
                            "(application/octet-stream)")


# --- ODT, RTF, DOC, XML -----------------------------------------------------------------------


def test_odt_pages_spaces_and_tables() -> None:
    result = extract(odt_document([LAW, ANNEX], table=TABLE[:1]))
    assert (result.status, result.method, result.backend) == ("extracted", "odt", "lxml")
    assert [p.text.splitlines() for p in result.pages] == [LAW, ANNEX + ["Meta 1 Ciclovias"]]


def test_rtf_code_page_unicode_and_page_breaks() -> None:
    result = extract(rtf_document([LAW, ["Tabela “única” — ção ☎"]]))
    assert (result.status, result.method, result.backend) == ("extracted", "rtf", "striprtf")
    assert [p.text for p in result.pages] == ["\n".join(LAW), "Tabela “única” — ção ☎"]


def test_legacy_word_document_through_antiword() -> None:
    # Made once with `soffice --convert-to doc` from documents.docx_document (LibreOffice is not
    # needed to read it, only to make it).
    result = extract((DATA / "lei-2312-2013.doc").read_bytes())
    assert (result.status, result.method, result.backend) == ("extracted", "doc", "antiword")
    lines = result.text.splitlines()
    assert lines[0] == "LEI Nº 2.312, DE 15 DE ABRIL DE 2013"
    assert "Art. 2º O serviço de moto-táxi e o Decreto-Lei nº 3.688 não se aplicam." in lines
    assert "Umbuzeiro Médio" in lines  # a table row, cells apart by a space


def test_xml_document() -> None:
    xml = ('<?xml version="1.0" encoding="ISO-8859-1"?><LexML><Artigo><Rotulo>Art. 1º</Rotulo>'
           "<Caput>Fica instituído o serviço.</Caput></Artigo></LexML>").encode("latin-1")
    result = extract(xml)
    assert (result.status, result.method, result.text) == (
        "extracted", "xml", "Art. 1º\nFica instituído o serviço.")


# --- ZIP --------------------------------------------------------------------------------------


def test_zip_members_become_pages_of_one_document() -> None:
    scan = image_file([scanned_page(ANNEX, dpi=120)], "PNG", dpi=120)
    data = zip_archive([("lei.pdf", born_digital_pdf("LEI Nº 1", LAW)),
                        ("__MACOSX/._lei.pdf", b"\x00\x05\x16\x07"),
                        ("anexos/anexo.png", scan), ("leia-me.bin", b"\x00\xff" * 50)])
    result = extract(data)
    assert (result.status, result.method, result.backend) == ("extracted", "zip", "zipfile")
    assert [(p.number, p.method) for p in result.pages] == [(1, "text"), (2, "ocr")]
    assert result.pages[0].detail == "lei.pdf, page 1"
    assert result.pages[1].detail == "anexos/anexo.png, page 1: scan of 120 dpi read at 300"
    assert "moto-táxi" in result.pages[0].text and "ANEXO ÚNICO" in result.pages[1].text
    assert result.detail == ("3 members: lei.pdf: text, 1 page; anexos/anexo.png: ocr, 1 page; "
                             "leia-me.bin: failed: unknown format (application/octet-stream)")


def test_nested_archives_stop_at_the_depth_limit() -> None:
    inner = zip_archive([("lei.txt", "Art. 1º Fica criado o fundo.".encode())])
    once = extract(zip_archive([("inner.zip", inner)]))
    assert once.text == "Art. 1º Fica criado o fundo."
    twice = extract(zip_archive([("outer.zip", zip_archive([("inner.zip", inner)]))]))
    assert twice.status == "failed"
    assert twice.error.endswith("archives nested more than 2 deep")


def test_zip_of_300000_entries_is_sniffed_and_refused_in_bounded_memory() -> None:
    # Sniffing runs in the importer or harvester, outside a worker's memory limit: zipfile
    # used ~1.1 GB on a directory of 2 million entries.
    data = zip_with_entries(300_000)
    tracemalloc.start()
    try:
        found = sniff_media_type(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found == "application/zip"
    assert peak < 2 << 20  # bytes: the directory was never parsed
    tracemalloc.start()
    try:
        result = extract(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.status, result.error) == (
        "failed", "too many archive members (300,000 in a directory of 15 MB; limit 4,000)")
    assert peak < 2 << 20


def test_zip_directories_within_the_caps_are_read() -> None:
    assert sniff_media_type(zip_with_entries(5000)) == "application/zip"
    result = extract(zip_with_entries(3))  # the same member three times
    assert (result.status, result.text) == ("extracted", "Lei\fLei\fLei")


def test_empty_zip_is_empty() -> None:
    assert extract(_zip({})).status == "empty"


# --- bad input: recorded, never raised --------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "status", "message"),
    [
        (lambda: b"", "failed", "empty file"),
        (lambda: random.Random(9).randbytes(10_000), "failed",
         "unknown format (application/octet-stream)"),
        (lambda: born_digital_pdf("LEI", LAW)[:1500], "failed",
         "corrupted PDF: data format error; truncated (no %%EOF at the end)"),
        (lambda: b"%PDF-1.4\n1 0 obj <<>> endobj\n" + bytes(300) + b"\n%%EOF", "failed",
         "corrupted PDF: data format error"),
        (lambda: zip_bomb(64), "failed", "zip bomb? lei.txt expands 1,029× (limit 200×)"),
        (lambda: huge_png(30_000, 30_000), "failed",
         "image too large (900,000,000 pixels; limit 100 Mpx)"),
        (lambda: huge_png(12_000, 10_000), "failed",
         "image too large (12,000×10,000 pixels; limit 100 Mpx)"),
        (lambda: image_file([scanned_page(LAW, dpi=100)], "PNG")[:3000], "failed",
         "cannot read image/png: OSError: image file is truncated"),
    ],
    ids=["empty", "random", "truncated-pdf", "corrupted-pdf", "zip-bomb", "image-30000",
         "image-120mpx", "truncated-png"],
)
def test_bad_input_is_recorded(build, status: str, message: str) -> None:
    result = extract(build())
    assert (result.status, result.error if status == "failed" else result.detail) == (
        status, message)
    assert result.pages == [] or status != "failed"


def test_zip_bomb_with_a_lying_directory_is_not_expanded() -> None:
    data = bytearray(_zip({"lei.txt": bytes(16 << 20)}))
    # Declare 1,000 bytes where there are 16 MB, in the local header and in the directory.
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    data[local + 22:local + 26] = (1000).to_bytes(4, "little")
    data[central + 24:central + 28] = (1000).to_bytes(4, "little")
    result = extract(bytes(data))
    assert result.status == "failed"
    # Reading stops at the declared size, where the checksum no longer matches.
    assert result.error == "damaged archive member lei.txt: Bad CRC-32 for file 'lei.txt'"


def test_pdf_of_2000_pages_is_read_page_by_page() -> None:
    data = many_pages_pdf(2000)
    result = extract(data)
    assert (result.status, result.method, len(result.pages)) == ("extracted", "text", 2000)
    assert result.pages[1999].text.startswith("Art. 2000º Fica aprovado o quadro 2000")
    refused = extract(data, limits=Limits(pages=1000))
    assert (refused.status, refused.error) == ("failed", "too many pages (2,000; limit 1,000)")


def test_file_larger_than_the_limit_is_not_read() -> None:
    result = extract(b"Art. 1\n" * 1000, limits=Limits(file_bytes=1000))
    assert (result.status, result.error) == ("failed", "file too large (6.8 KB; limit 1000 bytes)")


# --- page size --------------------------------------------------------------------------------


def _long_law(articles: int) -> list[str]:
    return [f"Art. {n}º Fica aprovado o item {n} do quadro de pessoal da Câmara Municipal, com "
            f"lotação na Secretaria de Administração e vencimento do nível {n}." for n in
            range(1, articles + 1)]


@pytest.mark.parametrize("fmt", ["txt", "rtf"])
def test_a_huge_single_page_is_split_into_pages_without_losing_text(fmt: str) -> None:
    # One RTF held an 84-million-character page, stored and served whole.
    lines = _long_law(5000)  # ~750,000 characters on one page
    data = ("\n".join(lines).encode() if fmt == "txt" else rtf_document([lines]))
    result = extract(data)
    assert result.status == "extracted"
    count = len(result.pages)
    assert count == 4 and sum(p.chars for p in result.pages) > 3 * 200_000
    assert all(len(p.text) <= 200_000 and p.chars == len(p.text) for p in result.pages)
    assert [p.number for p in result.pages] == [1, 2, 3, 4]
    assert [p.detail for p in result.pages] == [f"part {n} of 4 of page 1" for n in range(1, 5)]
    assert result.detail.endswith("1 page of more than 200,000 characters split (page 1), "
                                  "now 4 pages")
    # Pages are cut between lines: every line is on one page, whole.
    assert [line for p in result.pages for line in p.text.split("\n")] == lines
    assert all(p.confidence == 1.0 for p in result.pages)


def test_page_size_limit_splits_pdf_pages_too() -> None:
    data = born_digital_pdf("LEI", LAW * 3)
    result = extract(data, limits=Limits(page_chars=100))
    assert len(result.pages) > 2 and all(len(p.text) <= 100 for p in result.pages)
    whole = extract(data).text
    assert "".join(p.text for p in result.pages).replace(" ", "").replace("\n", "") == (
        whole.replace(" ", "").replace("\n", ""))


@pytest.mark.parametrize("depth", [300, 500_000])
def test_html_nested_past_the_parsers_depth_keeps_its_text(depth: int) -> None:
    """libxml2 builds no tree deeper than 256 elements and drops what lies below: the page
    is read from the parser's events instead, its text whole, its script still left out."""
    page = ("<html><head><script>alert('x')</script></head><body>" + "<div>" * depth
            + f"<h1>LEI Nº 7</h1><p>{LAW[0]}</p><table><tr><td>Meta 1</td><td>Ciclovias</td>"
            "</tr></table><pre>  Art. 2º\n   recuado</pre>" + "</div>" * depth
            + f"<p>{LAW[1]}</p></body></html>").encode()
    result = extract(page, "text/html")
    assert result.status == "extracted", result.detail
    assert result.pages[0].text == (f"LEI Nº 7\n{LAW[0]}\nMeta 1 Ciclovias\nArt. 2º\n"
                                    f"recuado\n{LAW[1]}")
    assert result.detail.endswith("elements nested deeper than 256: read flat, the page's "
                                  "chrome kept")
