"""OCR with the real tesseract: scanned and mixed PDFs, bad text layers, images, confidence.

Pages are small (a few lines, 100-150 dpi) so that each OCR costs a fraction of a second.
"""

from __future__ import annotations

import pytest
from PIL import Image

from locleg.extract import Limits, extract
from locleg.extract.ocr import (
    at_ocr_resolution,
    backend_version,
    fix_section_signs,
    version,
    word_confidence,
)
from locleg.extract.pdf import Drawing, render_dpi
from locleg.fixtures.documents import (
    MUNICIPAL_HEADING,
    born_digital_pdf,
    image_file,
    jpeg_pdf,
    mixed_pdf,
    municipal_scan,
    pdf_without_character_map,
    scanned_page,
    scanned_pdf,
    scanned_pdf_with_layer,
)
from locleg.fixtures.pdf_cases import needs_ocr_cases

LINES = [
    "MUNICÍPIO DE JUAZEIRO",
    "LEI Nº 2.199/2011",
    "Art. 1º Fica instituído no Município de Juazeiro o serviço de moto-táxi.",
    "§ 1º A permissão será concedida pela Secretaria Municipal de Trânsito.",
]
LAW = [
    "Art. 1º Fica aprovado o Plano Municipal de Mobilidade Urbana de Juazeiro.",
    "Art. 2º O Plano tem por diretrizes a prioridade dos modos não motorizados.",
    "Art. 3º Esta Lei entra em vigor na data de sua publicação.",
]


def _words(text: str) -> set[str]:
    return set(text.split())


def test_scanned_pdf_is_rendered_at_its_own_resolution_and_read_at_300_dpi() -> None:
    result = extract(scanned_pdf([LINES], dpi=150))
    assert (result.status, result.method, result.backend) == ("extracted", "ocr", "tesseract")
    assert result.backend_version == backend_version()
    assert result.backend_version.startswith(version() + " (tesserocr ")
    page = result.pages[0]
    assert (page.method, page.backend, page.dpi) == ("ocr", "tesseract", 300)
    assert page.detail == ("no text layer; images cover 100% of the page; scan of 150 dpi read "
                           "at 300")
    text = result.text
    for expected in ("MUNICÍPIO DE JUAZEIRO", "LEI Nº 2.199/2011", "moto-táxi",
                     "§ 1º A permissão será concedida"):
        assert expected in text
    assert 0.85 < result.confidence <= 1.0
    assert result.detail == "OCR of 1 page at 300 dpi"


def test_ocr_resolution_rule() -> None:
    assert render_dpi(Drawing(1.0, 0, 600.0)) == 300  # capped: tesseract gains nothing more
    assert render_dpi(Drawing(1.0, 0, 149.6)) == 150  # its own pixels, then resampled
    assert render_dpi(Drawing(0.0, 900, None)) == 300  # outlines render sharp at any dpi
    assert render_dpi(Drawing(1.0, 0, 20.0)) == 72  # a thumbnail stretched over the page
    page = Image.new("L", (1654, 2339), 255)  # A4 at 200 dpi
    resampled, dpi = at_ocr_resolution(page, 200, 100_000_000)
    assert (resampled.size, dpi) == ((2481, 3508), 300)
    assert at_ocr_resolution(page, 200, 5_000_000) == (page, 200)  # past the pixel limit
    assert at_ocr_resolution(page, None, 100_000_000) == (page, None)  # tesseract estimates
    assert at_ocr_resolution(page, 600, 100_000_000)[0].size == (827, 1170)


def test_200_dpi_jpeg_scan_is_read_at_300_dpi_heading_included() -> None:
    # As a municipal scanner delivers a law: 200 dpi JPEG, faded dotted print, a table, a
    # stamp. At its own 200 dpi tesseract read this heading "Nº 1.157"; on real scans the
    # CLI at 300 dpi read such a heading right where 200 dpi misread it.
    scan = municipal_scan(seed=1, ink=120, dropout=0.4, blur=1.2)
    result = extract(jpeg_pdf([scan.image], quality=60))
    page = result.pages[0]
    assert page.dpi == 300 and "scan of 200 dpi read at 300" in page.detail
    assert result.text.splitlines()[0] == MUNICIPAL_HEADING
    assert "Agente Comunitário de Saúde" in result.text and "Odontólogo 4 20 h 3.200,00" in (
        result.text)


def test_confidence_falls_when_printed_text_was_not_read() -> None:
    # A page that lost two table rows and a whole article to OCR scored 0.85: word
    # confidences only speak of the words found. The ink that yielded no word counts now.
    clean = extract(jpeg_pdf([municipal_scan(seed=2).image]))
    damaged_scan = municipal_scan(seed=2, damage=True)
    damaged = extract(jpeg_pdf([damaged_scan.image]))
    assert "Enfermeiro 8 30 h" not in damaged.text  # what the damage took
    assert "dependerá de aprovação" not in damaged.text
    assert clean.confidence > 0.9
    assert damaged.confidence < clean.confidence - 0.2
    assert damaged.pages[0].detail.endswith("% of the ink read")
    assert "ink read" not in clean.pages[0].detail


def test_mixed_pdf_ocrs_only_the_scanned_annex() -> None:
    result = extract(mixed_pdf("LEI Nº 2.480/2016", LAW, [["ANEXO I", "Meta 1 - Ciclovias"]],
                               dpi=120))
    assert (result.status, result.method) == ("extracted", "mixed")
    assert result.backend == "pypdfium2+tesseract"
    assert result.backend_version.startswith("pypdfium2 ") and "tesseract" in result.backend_version
    assert [(p.method, p.backend) for p in result.pages] == [("text", "pypdfium2"),
                                                             ("ocr", "tesseract")]
    assert result.detail == "OCR on 1 of 2 pages (page 2)"
    assert "Plano Municipal de Mobilidade Urbana" in result.pages[0].text
    assert "ANEXO I" in result.pages[1].text and "Ciclovias" in result.pages[1].text
    assert result.pages[0].confidence == 1.0 and result.pages[1].confidence < 1.0


def test_garbage_ocr_layer_is_replaced_by_ocr_and_a_good_one_is_kept() -> None:
    garbage = ["xq zvbt plmk ertyu wqazx sdfgh jkl", "mnbv cxzl kjhg fdsa poiuy trewq"] * 4
    redone = extract(scanned_pdf_with_layer(LINES, garbage, dpi=120))
    page = redone.pages[0]
    assert (page.method, page.dpi) == ("ocr", 300)
    assert page.detail.startswith("text layer unusable: ")
    assert "moto-táxi" in page.text and "zvbt" not in page.text

    kept = extract(scanned_pdf_with_layer(LINES, LINES * 2, dpi=120))
    assert (kept.method, kept.pages[0].method) == ("text", "text")
    assert kept.pages[0].text.startswith("MUNICÍPIO DE JUAZEIRO")


def test_font_without_character_map_is_ocred() -> None:
    lines = [line for line in LAW * 2]
    result = extract(pdf_without_character_map([lines]))
    page = result.pages[0]
    assert page.method == "ocr" and page.dpi == 300  # no scan: rendered sharp
    assert "garbage characters" in page.detail
    assert "Plano Municipal de Mobilidade Urbana" in page.text
    assert "não motorizados" in page.text  # the accents the text layer lost


def test_ocr_always_reads_even_good_text_layers() -> None:
    result = extract(born_digital_pdf("LEI", LAW[:1]), ocr="always")
    assert (result.method, result.pages[0].method) == ("ocr", "ocr")
    assert result.pages[0].detail == "OCR of every page requested"
    assert "Plano Municipal" in result.text


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_single_images(fmt: str) -> None:
    result = extract(image_file([scanned_page(LINES[:3], dpi=150)], fmt, dpi=150))
    assert (result.status, result.method, result.backend) == ("extracted", "ocr", "tesseract")
    assert (result.pages[0].dpi, result.pages[0].detail) == (300, "scan of 150 dpi read at 300")
    assert "Art. 1º Fica instituído no Município de Juazeiro" in result.text


def test_multipage_tiff_is_one_page_per_frame() -> None:
    frames = [scanned_page(LINES[:2], dpi=120, seed=1), scanned_page(LAW[:1], dpi=120, seed=2)]
    result = extract(image_file(frames, "TIFF", dpi=120))
    assert [p.number for p in result.pages] == [1, 2]
    assert "JUAZEIRO" in result.pages[0].text
    assert "Mobilidade Urbana" in result.pages[1].text
    assert result.detail == "OCR of image/tiff, 2 pages at 300 dpi"


def test_transparent_png_without_resolution() -> None:
    page = scanned_page(LINES[:2], dpi=150).convert("RGBA")
    page.putalpha(255)
    result = extract(image_file([page], "PNG", dpi=None))
    assert result.pages[0].dpi is None  # tesseract estimates it
    assert "LEI Nº 2.199/2011" in result.text


def test_image_without_text_is_empty() -> None:
    result = extract(image_file([Image.new("L", (400, 300), 255)], "PNG"))
    assert (result.status, result.detail) == ("empty", "no text on 1 page (OCR of image/png)")


def test_confidence_tracks_scan_quality() -> None:
    lines = LINES + LAW
    clean = extract(scanned_pdf([lines], dpi=150))
    poor = extract(image_file([scanned_page(lines, dpi=60, blur=1.2)], "PNG", dpi=60))
    assert clean.confidence > 0.9
    assert poor.confidence < clean.confidence - 0.05
    # The confidence orders the pages as their real word accuracy does.
    truth = _words(" ".join(lines))
    assert len(truth & _words(clean.text)) > len(truth & _words(poor.text))


def test_word_confidence_weights_by_length() -> None:
    assert word_confidence([]) is None
    assert word_confidence([("moto-táxi", 90.0), ("|", 10.0)]) == pytest.approx(0.82)
    assert word_confidence([("a", -1.0), ("lei", 96.0)]) == 0.96


def test_huge_page_is_rendered_within_the_pixel_limit() -> None:
    result = extract(scanned_pdf([LINES[:2]], dpi=150), limits=Limits(pixels=1_000_000))
    page = result.pages[0]
    assert page.dpi == 101  # 72 × √(1,000,000 px / A4 in points²)
    assert "JUAZEIRO" in page.text
    tiny = extract(scanned_pdf([LINES[:1]], dpi=100), limits=Limits(pixels=200_000))
    assert tiny.status == "empty"
    assert tiny.pages[0].detail.endswith("page too large to OCR (8×12 in)")


@pytest.fixture(scope="module")
def labelled():
    return needs_ocr_cases()


def test_needs_ocr_decision_is_right_on_every_labelled_page(labelled) -> None:
    kinds = {case.kind for case in labelled}
    assert kinds == {"clean", "figures", "names", "scanned", "ocr-layer", "garbage-layer",
                     "no-cmap", "mixed", "near-empty", "outlines"}
    wrong = []
    for case in labelled:
        result = extract(case.data, ocr="never")
        decided = tuple(p.method == "none" for p in result.pages)
        if decided != case.needs_ocr:
            wrong.append((case.name, decided, case.needs_ocr))
    assert wrong == []
    assert sum(len(case.needs_ocr) for case in labelled) >= 42


@pytest.mark.parametrize(
    ("ocr_text", "fixed"),
    [("$ 1º. O permissionário", "§ 1º. O permissionário"), ("8 1º. Não estão", "§ 1º. Não estão"),
     ("82º. Cada", "§ 2º. Cada"), ("$3º. No período", "§ 3º. No período"),
     ("8 de maio de 2011", "8 de maio de 2011"), ("8º andar", "8º andar"),
     ("Art. 8 1º", "Art. 8 1º")],
)
def test_section_signs_misread_at_line_start_are_restored(ocr_text: str, fixed: str) -> None:
    assert fix_section_signs(ocr_text) == fixed
