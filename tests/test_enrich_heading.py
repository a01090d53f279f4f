"""A norm's heading read from its first page: the forms of real headings, citations that are
not the heading, OCR noise (simulated and real tesseract output), absurd dates, the comparison
with the metadata, and the second reading at a higher resolution."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from locleg.enrich.heading import Heading, compare, looks_like_ocr, month_number, read_heading
from locleg.enrich.reread import (
    REREAD_DPI,
    TOP_SHARE,
    RereadError,
    better_reading,
    heading_share,
    reread_heading,
    settle,
)
from locleg.extract import Limits, extract
from locleg.fixtures.documents import image_file, image_pdf, text_pdf
from tests.heading_cases import TODAY, Print, heading_cases, scanned_first_page
from tests.seed000_text import PAGES as SEED_000_OCR


def _read(text: str) -> tuple | None:
    heading = read_heading(text, TODAY)
    if heading is None:
        return None
    return heading.type, heading.number, heading.date, heading.year


# --- The forms headings take ---

FORMS = [
    ("LEI Nº 2.199/2011", ("lei", "2199", None, 2011)),
    ("LEI MUNICIPAL Nº 1.167, DE 02 DE ABRIL DE 2014", ("lei", "1167", date(2014, 4, 2), 2014)),
    ("LEI COMPLEMENTAR Nº 45, DE 4 DE MARÇO DE 2013",
     ("lei.complementar", "45", date(2013, 3, 4), 2013)),
    ("DECRETO Nº 187, DE 12 DE MAIO DE 2011", ("decreto", "187", date(2011, 5, 12), 2011)),
    ("DECRETO N.º 12/2020", ("decreto", "12", None, 2020)),
    ("RESOLUÇÃO Nº 3/2015", ("resolucao", "3", None, 2015)),
    ("EMENDA À LEI ORGÂNICA Nº 7, DE 1º DE SETEMBRO DE 2016",
     ("emenda.lei.organica", "7", date(2016, 9, 1), 2016)),
    ("EMENDA Nº 7 À LEI ORGÂNICA DO MUNICÍPIO DE JUAZEIRO, DE 1º DE SETEMBRO DE 2016",
     ("emenda.lei.organica", "7", date(2016, 9, 1), 2016)),
    ("LEI ORGÂNICA DO MUNICÍPIO DE JUAZEIRO", ("lei.organica", None, None, None)),
    ("Lei Ordinária nº 2.482/1969", ("lei", "2482", None, 1969)),
    ("LEI No 1.234 DE 10/03/2020", ("lei", "1234", date(2020, 3, 10), 2020)),
    ("DECRETO LEGISLATIVO Nº 9, DE 22 DE NOVEMBRO DE 2018",
     ("decreto.legislativo", "9", date(2018, 11, 22), 2018)),
    ("PORTARIA Nº 033, DE 2 DE MARÇO DE 2015", ("portaria", "33", date(2015, 3, 2), 2015)),
    ("LEI Nº 12-A, DE 21 DE AGOSTO DE 2009", ("lei", "12-A", date(2009, 8, 21), 2009)),
    ("LEI Nº 876/98", ("lei", "876", None, 1998)),
    ("Decreto nº 52, de 1º de janeiro de 2012", ("decreto", "52", date(2012, 1, 1), 2012)),
    # Split over two lines.
    ("LEI COMPLEMENTAR Nº 45,\nDE 4 DE MARÇO DE 2013",
     ("lei.complementar", "45", date(2013, 3, 4), 2013)),
    ("EMENDA À LEI ORGÂNICA\nNº 7, DE 1º DE SETEMBRO DE 2016",
     ("emenda.lei.organica", "7", date(2016, 9, 1), 2016)),
    ("LEI Nº 1.167\nDe 2 de abril de 2014", ("lei", "1167", date(2014, 4, 2), 2014)),
    # "Nº" as OCR prints it, digits and months damaged.
    ("LEI N° 1.167, DE 02 DE ABRlL DE 2014", ("lei", "1167", date(2014, 4, 2), 2014)),
    ("LEI No 1.167, DE 02 DE ABRIL DE 2014", ("lei", "1167", date(2014, 4, 2), 2014)),
    ("LEI N9 1.167, DE 1º DE MARCO DE 2014", ("lei", "1167", date(2014, 3, 1), 2014)),
    ("LEI N 1.167/2014", ("lei", "1167", None, 2014)),
    ("LEI N. 1.167/2014", ("lei", "1167", None, 2014)),
    ("LEI NO 1.167/2014", ("lei", "1167", None, 2014)),
    ("LEI Nr. 1.167/2014", ("lei", "1167", None, 2014)),
    ("LEl Nº 4,467, DE 02 DE ABRIL DE 2014", ("lei", "4467", date(2014, 4, 2), 2014)),
    ("DECRET0 Nº 1.l65, DE 02 DE DEZERNBRO DE 2014", ("decreto", "1165", date(2014, 12, 2), 2014)),
    ("| LEINº 2.405, DE 28 DE NOVEMBRO DE 2014", ("lei", "2405", date(2014, 11, 28), 2014)),
    ("LEI NS? 4.490, DE 02 DE ABRIL DE 2014", ("lei", "4490", date(2014, 4, 2), 2014)),
    ("Lei Municipal] nº '7, de 2 de abril de 2014", ("lei", "7", date(2014, 4, 2), 2014)),
    ("DECRETO Nº 2.199l2011", ("decreto", "2199", None, 2011)),
]


@pytest.mark.parametrize("text, expected", FORMS, ids=[f[0][:40] for f in FORMS])
def test_heading_forms(text: str, expected: tuple) -> None:
    assert _read(text + "\nDispõe sobre o serviço de moto-táxi.") == expected


def test_heading_after_the_letterhead_says_where_it_is() -> None:
    text = ("MUNICÍPIO DE JUAZEIRO\nESTADO DA BAHIA\nGABINETE DO PREFEITO\n\n"
            "LEI MUNICIPAL Nº 1.167,\nDE 02 DE ABRIL DE 2014\nDispõe sobre feiras livres.\n"
            "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, sanciona a seguinte Lei:\n"
            "Art. 1º Ficam instituídas as feiras livres.")
    heading = read_heading(text, TODAY)
    assert heading is not None
    assert heading.lines == ("LEI MUNICIPAL Nº 1.167,", "DE 02 DE ABRIL DE 2014")
    assert heading.line == 4  # the blank line counts: an index into the text's lines
    assert heading.page_lines == 9
    assert heading.position == pytest.approx(4 / 9)
    assert heading.type_label == "LEI MUNICIPAL"
    assert heading.number_printed == "1.167"
    assert heading.confidence == 1.0 and heading.notes == ()


def test_ocr_repairs_lower_the_confidence_and_say_what_was_done() -> None:
    heading = read_heading("DECRET0 N. 1.l65 DE 2014\nDispõe sobre feiras.", TODAY)
    assert heading is not None and heading.number == "1165"
    assert heading.number_printed == "1.l65"
    assert "number read through OCR letters: '1.l65' -> '1.165'" in heading.notes
    assert "type read through OCR damage: 'DECRET0'" in heading.notes
    assert heading.confidence < 0.8


def test_a_misread_suffix_leaves_the_number_unread_rather_than_another_norms() -> None:
    # "12-A" printed, "12-4" read: 12 would be another norm.
    heading = read_heading("Lei nº 12-4, de 21 de agosto de 2009\nDispõe sobre feiras.", TODAY)
    assert heading is not None
    assert (heading.type, heading.number, heading.date) == ("lei", None, date(2009, 8, 21))
    assert heading.notes == ("number unreadable: '12-4'",)
    # Other specks before the date are skipped, and said so.
    heading = read_heading("LEI Nº 12 ·| DE 21 DE AGOSTO DE 2009", TODAY)
    assert (heading.number, heading.date) == ("12", date(2009, 8, 21))
    assert heading.notes == ("skipped '·|' before the date",)


def test_month_names_as_ocr_prints_them() -> None:
    assert [month_number(m) for m in ("abril", "abrll", "marco", "dezernbro", "setembr0",
                                      "0utubro", "juiho", "04", "13")] == [
        4, 4, 3, 12, 9, 10, 7, 4, None]
    assert month_number("ju") is None and month_number("xyzzy") is None


# --- What is not the heading ---

def test_seed_000_real_ocr_reads_its_own_heading_not_the_cited_federal_law() -> None:
    heading = read_heading(SEED_000_OCR[0], TODAY)
    assert heading is not None
    assert (heading.type, heading.number, heading.year) == ("lei", "2199", 2011)
    assert heading.lines == ("LEI Nº 2.199/2011",)
    assert heading.line == 3  # below "Página 1 de9" and the letterhead


def test_seed_000_later_pages_have_no_heading_though_they_cite_laws() -> None:
    # Page 3 cites "Lei Federal nº 12.009, de 29 de julho de 2009", page 9 revokes
    # "Lei\nMunicipal nº 1.996": citations, never a heading.
    assert [read_heading(page, TODAY) for page in SEED_000_OCR[1:]] == [None] * 8


@pytest.mark.parametrize("text", [
    # The preamble cites a law at the start of a wrapped line.
    "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, com fulcro no art. 61 da Lei Orgânica, "
    "combinado com o art. 39-B da\nLei Federal nº 12.009, de 29 de julho de 2009, faço saber que "
    "a Câmara Municipal aprovou e eu sanciono a seguinte Lei:",
    "Art. 31. Ficam revogadas as disposições em contrário, especialmente a\nLei nº 1.996, de 06 "
    "de novembro de 2008.",
    "ALTERA A REDAÇÃO DO ART. 5º DA\nLEI Nº 1.100, DE 3 DE MARÇO DE 2010.",
    "PROJETO DE LEI Nº 12/2013\nDispõe sobre a denominação de logradouro.",
    "PROJETO DE\nLEI Nº 12/2013\nDispõe sobre a denominação de logradouro.",
    "MENSAGEM Nº 5/2013\nSenhor Presidente,",
    "Processo nº 123/2013\nPágina 1 de 9\nInteressado: Secretaria de Administração",
    "EMENDA Nº 3 AO PROJETO DE LEI Nº 12/2013\nDê-se ao art. 2º a seguinte redação:",
    "(Vide Lei nº 3576/1983)\nTabela de preços",
    "ANEXO ÚNICO DO DECRETO Nº 187/2011\nTabela de tarifas do serviço de moto-táxi",
    "LEI Nº ____, DE ___ DE __________ DE 2013\nDispõe sobre a denominação de logradouro.",
    "Lei nº 1.996, de 06 de novembro de 2008, e dá outras providências.",
    "",
], ids=["preamble", "revocation", "ementa-in-capitals", "projeto", "projeto-split", "mensagem",
        "processo", "emenda-to-bill", "annotation", "anexo", "draft", "citation-line", "empty"])
def test_citations_bills_and_page_furniture_are_not_the_heading(text: str) -> None:
    assert read_heading(text, TODAY) is None


def test_the_heading_wins_over_a_bill_and_citations_above_it() -> None:
    text = ("PREFEITURA MUNICIPAL DE JUAZEIRO\nMunicípio criado pela Lei Estadual nº 628, de 30 "
            "de julho de 1953\nPROJETO DE LEI Nº 45/2013\n(Regulamentada pelo Decreto nº "
            "187/2011)\nTexto compilado com as alterações introduzidas pela\nLei nº 2.300, de 12 "
            "de maio de 2013\nLEI Nº 2.312, DE 15 DE ABRIL DE 2013\nInstitui o Programa.")
    assert _read(text) == ("lei", "2312", date(2013, 4, 15), 2013)


def test_letterhead_specks_do_not_make_the_heading_a_citation() -> None:
    # Tesseract left "É" and "," after the letterhead: a speck, not "... E\nLEI Nº".
    assert _read("GABINETE DO PREFEITO É\nLEI Nº 6.693, DE 02 DE ABRIL DE 2014") == (
        "lei", "6693", date(2014, 4, 2), 2014)
    assert _read("GABINETE DO PREFEITO ,\nLEI Nº 4.590/2014") == ("lei", "4590", None, 2014)


# --- Absurd dates ---

@pytest.mark.parametrize("text, year, note", [
    ("LEI Nº 1.500, DE 3 DE MAIO DE 2099", None, "year 2099 is not plausible"),
    ("DECRETO Nº 22, DE 22 DE ABRIL DE 1500", None, "year 1500 is not plausible"),
    ("LEI Nº 2.001, DE 31 DE FEVEREIRO DE 2013", 2013, "31/2/2013 is not a date"),
    ("DECRETO Nº 90 DE 30/02/2015", 2015, "30/2/2015 is not a date"),
    ("PORTARIA Nº 14 DE 10/13/2014", 2014, "no month in 'de 10/13/2014'"),
    ("LEI Nº 3.900, DE 15 DE DEZEMBRO DE 2026", 2026, "2026-12-15 is after today"),
    ("LEI Nº 3.901/2099", None, "year 2099 after the number is not plausible"),
])
def test_absurd_dates_are_refused_with_a_reason(text: str, year: int | None, note: str) -> None:
    heading = read_heading(text, TODAY)
    assert heading is not None and heading.number is not None
    assert heading.date is None and heading.year == year
    assert note in heading.notes
    assert heading.confidence < 1


# --- The labelled set (the bench measures on the same pages) ---

CASES = heading_cases()


def test_labelled_set_covers_the_shapes() -> None:
    kinds = {case.kind for case in CASES}
    assert len(CASES) >= 150
    assert kinds >= {"born-digital", "ocr", "letterhead", "cited-before", "split", "mixed-case",
                     "no-heading", "absurd-date"}
    assert sum(case.expected is None for case in CASES) >= 15
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_labelled_page(case) -> None:
    expected = case.expected
    want = None if expected is None else (expected.type, expected.number, expected.date,
                                          expected.year)
    assert _read(case.text) == want


# --- The heading against the metadata ---

def _heading(number_printed: str, **fields) -> Heading:
    heading = read_heading(f"LEI Nº {number_printed}, DE 02 DE ABRIL DE 2014", TODAY)
    assert heading is not None
    return replace(heading, **fields)


def test_agreeing_metadata_has_no_disagreement_and_missing_values_are_filled_not_flagged() -> None:
    heading = _heading("1.167")
    assert compare(heading, "lei", "1167", 2014, date(2014, 4, 2)) == []
    assert compare(heading, "lei", "01.167", "2014", date(2014, 4, 2)) == []
    assert compare(heading, "outro", None, None, None) == []  # "Legislação Municipal"
    assert compare(heading, None, "1167", None, None) == []


def test_near_number_is_flagged_as_an_ocr_misreading() -> None:
    [disagreement] = compare(_heading("1.165"), "lei", "1169", 2014, date(2014, 4, 2))
    assert (disagreement.field, disagreement.heading, disagreement.source) == (
        "number", "1165", "1169")
    assert disagreement.ocr_misreading
    assert disagreement.detail == "printed '1.165': a near match, probably misread"
    [disagreement] = compare(_heading("4,467"), "lei", "1.167", 2014, None)
    assert disagreement.ocr_misreading


def test_another_number_type_or_date_is_a_real_difference() -> None:
    heading = _heading("2.199")
    found = compare(heading, "lei.complementar", "2312", 2013, date(2013, 4, 15))
    assert [(d.field, d.heading, d.source, d.ocr_misreading) for d in found] == [
        ("type", "lei", "lei.complementar", False),
        ("number", "2199", "2312", False),
        ("year", "2014", "2013", False),
        ("date", "2014-04-02", "2013-04-15", False),
    ]
    assert found[3].detail.startswith("another date")


def test_12_a_is_not_12() -> None:
    heading = read_heading("LEI Nº 12-A/2009", TODAY)
    [disagreement] = compare(heading, "lei", "12", 2009, None)
    assert disagreement.heading == "12-A" and not disagreement.ocr_misreading


def test_near_year_and_a_first_of_the_month_read_as_ten() -> None:
    heading = _heading("1.167", year=2017, date=date(2017, 4, 2))
    [year, when] = compare(heading, "lei", "1167", 2011, date(2011, 4, 2))
    assert year.ocr_misreading and when.ocr_misreading  # 2017 for 2011: 7 and 1
    tenth = _heading("1.167", date=date(2014, 4, 10))
    [when] = compare(tenth, "lei", "1167", 2014, date(2014, 4, 1))
    assert when.ocr_misreading  # "1º" read as "10"


@pytest.mark.parametrize("read, printed, near", [
    ("1.165", "1169", True), ("4,467", "1.167", True), ("2.167", "1167", True),
    ("6998", "699", True), ("2.199", "2199", False), ("2199", "2312", False),
    ("12-a", "12", False), ("12", "2", False), ("1.165", "1.111", False),
])
def test_looks_like_ocr(read: str, printed: str, near: bool) -> None:
    assert looks_like_ocr(read, printed) is near


# --- Real OCR: pages rendered, OCRed by the project's tesseract adapter, then read ---

REAL_PAGE = ("MUNICÍPIO DE JUAZEIRO\nESTADO DA BAHIA\nGABINETE DO PREFEITO\n"
             "LEI MUNICIPAL Nº 1.167,\nDE 02 DE ABRIL DE 2014\n"
             "Dispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do Município.\n"
             "O PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, com fulcro no art. 39-B da\n"
             "Lei Federal nº 12.009, de 29 de julho de 2009, faço saber que a Câmara Municipal\n"
             "aprovou e eu sanciono a seguinte Lei:\n"
             "Art. 1º Fica instituído o serviço de moto-táxi.")


@pytest.mark.parametrize("quality", ["clean", "faded"])
def test_real_ocr_of_a_scanned_first_page(quality: str) -> None:
    pdf = image_pdf([scanned_first_page(REAL_PAGE, 200, quality, seed=3)])
    result = extract(pdf)
    assert result.method == "ocr"
    heading = read_heading(result.pages[0].text, TODAY)
    assert heading is not None
    assert (heading.type, heading.number, heading.date) == ("lei", "1167", date(2014, 4, 2))
    assert heading.lines[0].startswith("LEI MUNICIPAL")


def test_real_ocr_of_a_rendered_born_digital_page_in_mixed_case() -> None:
    # A PDF with a text layer, OCRed anyway (as the mixed-corpus reference does).
    pdf = text_pdf([["Prefeitura Municipal de Casa Nova", "Estado da Bahia",
                     "Resolução nº 3, de 10 de fevereiro de 2015",
                     "Dispõe sobre o Regimento Interno da Câmara.",
                     "Art. 1º Fica aprovado o Regimento Interno."]])
    result = extract(pdf, ocr="always")
    assert result.pages[0].method == "ocr"
    assert _read(result.pages[0].text) == ("resolucao", "3", date(2015, 2, 10), 2015)


def test_real_ocr_of_a_jpeg_scan_with_a_cited_law_before_the_heading() -> None:
    text = ("PREFEITURA MUNICIPAL DE SOBRADINHO\nAlterada pela Lei Complementar nº 60, de 2 de "
            "março de 2018.\nDECRETO Nº 12/2020\nDeclara situação de emergência.\nDECRETA:")
    data = image_file([scanned_first_page(text, 200, "clean", seed=5)], "JPEG", dpi=200)
    result = extract(data)
    assert _read(result.pages[0].text) == ("decreto", "12", None, 2020)


# --- Reading again at a higher resolution ---

def test_heading_region_is_the_top_third_or_down_past_the_heading() -> None:
    assert heading_share(None) == TOP_SHARE
    high = _heading("1.167", line=2, page_lines=40)
    assert heading_share(high) == TOP_SHARE
    low = _heading("1.167", line=20, page_lines=40)
    assert heading_share(low) == pytest.approx((20 + 1 + 4) / 40 * 1.15)


def test_better_reading_prefers_the_one_that_agrees_with_the_metadata() -> None:
    first = _heading("1.165")
    again = _heading("1.169", confidence=0.8)
    assert better_reading(first, again, "lei", "1169", 2014, None) is again
    assert better_reading(again, first, "lei", "1169", 2014, None) is again
    # Neither agrees: the surer one; another type: another line, ignored.
    third = _heading("1.163", confidence=0.9)
    assert better_reading(first, third, "lei", "1169", 2014, None) is first
    other = replace(again, type="decreto")
    assert better_reading(first, other, "lei", "1169", 2014, None) is first
    assert better_reading(first, None, "lei", "1169", 2014, None) is first


def test_reread_errors_are_one_line() -> None:
    with pytest.raises(RereadError, match="not a PDF or image"):
        reread_heading(b"just some text, not a scan")
    pdf = image_pdf([scanned_first_page("LEI Nº 1/2014", 100, "clean")])
    with pytest.raises(RereadError, match="no page 3: the PDF has 1"):
        reread_heading(pdf, 3)
    with pytest.raises(RereadError, match="cannot open the PDF"):
        reread_heading(pdf[: len(pdf) // 2])


# Two pages drawn as bench/enrich_headings.py --reread --seed 21 draws them (cases 182 and
# 221): small type on a damaged 200-dpi scan, whose number the pipeline's reading (the whole
# page at 300 dpi) misreads by one digit.
SMALL_HEADING_PAGE = (
    "MUNICÍPIO DE JUAZEIRO\nESTADO DA BAHIA\nGABINETE DO PREFEITO\nLEI Nº {number}, DE 02 DE "
    "ABRIL DE 2014\nDispõe sobre o serviço de moto-táxi e moto-entrega no âmbito do Município."
    "\nO PREFEITO MUNICIPAL DE JUAZEIRO, Estado da Bahia, no uso de suas atribuições legais,\n"
    "faço saber que a Câmara Municipal aprovou e eu sanciono a seguinte Lei:\nArt. 1º Fica "
    "instituído o serviço de moto-táxi.")
MISREAD_SCANS = {
    # toner flaking off, soft focus, strong JPEG artefacts, a crooked feed; 7 pt
    "faded": ("5.064", "5054", 7, 182, Print(ink=86, dropout=0.3, blur=1.19, jpeg=10,
                                            rotate=0.9)),
    # light flaking, sharp, a crooked feed; 8 pt
    "worn": ("1.140", "1149", 8, 221, Print(ink=65, dropout=0.15, blur=0.47, rotate=0.9)),
}


@pytest.mark.parametrize("kind", MISREAD_SCANS)
def test_a_misread_heading_number_is_read_again_at_a_higher_resolution(kind: str) -> None:
    printed, misread, size, seed, damage = MISREAD_SCANS[kind]
    page = scanned_first_page(SMALL_HEADING_PAGE.format(number=printed), 200, damage, seed=seed,
                              size_pt=size)
    pdf = image_pdf([page])
    result = extract(pdf)
    assert result.pages[0].dpi == 300
    first = read_heading(result.pages[0].text, TODAY)
    assert first is not None
    # The premise: the page's reading misreads one digit of the number.
    assert first.number == misread, f"tesseract now reads {first.number}: pick another scan"
    [disagreement] = compare(first, "lei", printed, 2014, date(2014, 4, 2))
    assert disagreement.field == "number" and disagreement.ocr_misreading
    again = reread_heading(pdf, 1, first, today=TODAY)
    assert (again.dpi, again.share) == (REREAD_DPI, round(TOP_SHARE, 3))
    assert again.heading is not None and again.heading.number == printed.replace(".", "")
    kept, left = settle(first, pdf, 1, "lei", printed, 2014, date(2014, 4, 2), today=TODAY)
    assert kept.number == printed.replace(".", "") and left == []
    assert kept.notes[-1] == f"read again at {REREAD_DPI} dpi"


def test_a_heading_that_prints_another_number_stays_in_disagreement() -> None:
    # The source says 1169; the page prints 1.165 clearly: read again, it still says 1.165.
    pdf = image_pdf([scanned_first_page(SMALL_HEADING_PAGE.format(number="1.165"), 200)])
    first = read_heading(extract(pdf).pages[0].text, TODAY)
    assert first is not None and first.number == "1165"
    kept, left = settle(first, pdf, 1, "lei", "1169", 2014, date(2014, 4, 2), today=TODAY)
    assert kept.number == "1165"
    assert [(d.field, d.heading, d.source, d.ocr_misreading) for d in left] == [
        ("number", "1165", "1169", True)]
    # Another number altogether is no misreading: nothing is read again.
    kept, left = settle(first, b"not even read", 1, "lei", "2312", 2014, None, today=TODAY)
    assert kept is first and [d.ocr_misreading for d in left] == [False]


def test_reread_of_an_image_scales_it_from_its_own_resolution() -> None:
    page = scanned_first_page(SMALL_HEADING_PAGE.format(number="2.199"), 150)
    png = image_file([page], "PNG", dpi=150)
    again = reread_heading(png, 1, None, today=TODAY)
    assert again.dpi == REREAD_DPI and again.heading is not None
    assert again.heading.number == "2199" and again.heading.date == date(2014, 4, 2)
    # Without a resolution in its header the page is taken for an A4 sheet.
    bare = image_file([page], "PNG", dpi=None)
    assert reread_heading(bare, 1, None, today=TODAY).heading.number == "2199"
    with pytest.raises(RereadError, match="no page 2: the image has 1"):
        reread_heading(png, 2)


def test_reread_stays_within_the_pixel_limit() -> None:
    pdf = image_pdf([scanned_first_page(SMALL_HEADING_PAGE.format(number="2.199"), 200)])
    again = reread_heading(pdf, 1, None, today=TODAY, limits=Limits(pixels=2_000_000))
    # The top third of an A4 page at 400 dpi is 5.2 Mpx: rendered coarser instead.
    assert again.dpi < REREAD_DPI
    assert again.dpi ** 2 * 8.27 * 11.69 / 3 <= 2_000_000 * 1.01
