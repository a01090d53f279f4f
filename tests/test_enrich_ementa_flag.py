"""The source's ementa against the one its text prints (issue 21): kept, and flagged when the
text prints another one.

From the real labelled first pages of tests/data/real_headings/ (Feira de Santana, Maricá, Rio
Branco, Tucano): the labelled ementa, the same cut at half, written in other case or without
accents, is never flagged; another norm's is. Then through enrichment to the explorer: the
flag is stored beside the heading's, shown on the norm page, in its JSON and on the quality
page, and the norm keeps the source's ementa.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache

import httpx
import pytest
from sqlalchemy import select

from locleg.corpus import init_corpus
from locleg.enrich.ementa import disagreement
from locleg.enrich.run import enrich
from locleg.store.schema import record
from tests.conftest import run_cli
from tests.explorer_fixtures import LiveServer
from tests.real_headings import (
    another_norms_ementa,
    measure_ementa_flags,
    ocr_damaged,
    read_ementas,
)
from tests.test_enrich import Corpus
from tests.test_enrich_real import text_of

FEIRA = 2910800


@cache
def ementas() -> list[tuple[dict, str]]:
    """(label, the ementa read from its text), for every labelled text whose ementa is read."""
    return read_ementas()


def ementa_of(prefix: str) -> tuple[dict, str]:
    [found] = [(label, read) for label, read in ementas() if label["file"].startswith(prefix)]
    return found


def _flagged(sources: list[str]) -> list[str]:
    """The files whose text's ementa is flagged against the source's ementa given for it."""
    return [label["file"] for (label, read), source in zip(ementas(), sources, strict=True)
            if disagreement(source, read) is not None]


def _without_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text)
                   if unicodedata.category(c) != "Mn")


# -- no flag where the two are one ementa ------------------------------------------------------


def test_the_real_set_is_the_one_measured():
    assert len(ementas()) >= 380
    assert {label["city"] for label, _ in ementas()} == {
        "feira-de-santana-ba", "marica-rj", "rio-branco-ac", "tucano-ba"}


def test_no_flag_when_the_source_gives_the_labelled_ementa():
    assert _flagged([label["ementa"] for label, _ in ementas()]) == []


def test_no_flag_when_the_source_cut_it_at_half():
    assert _flagged([label["ementa"][:len(label["ementa"]) // 2] for label, _ in ementas()]) == []
    # cut at a word, and the text's cut instead (a reading that stopped at its paragraph's end)
    at_word = [label["ementa"].rsplit(" ", len(label["ementa"].split()) // 2)[0]
               for label, _ in ementas()]
    assert _flagged(at_word) == []
    cut_text = [label["file"] for label, read in ementas()
                if disagreement(label["ementa"], read[:len(read) // 2]) is not None]
    assert cut_text == []


def test_no_flag_when_case_accents_or_punctuation_differ():
    assert _flagged([label["ementa"].swapcase() for label, _ in ementas()]) == []
    assert _flagged([_without_accents(label["ementa"]).lower() for label, _ in ementas()]) == []
    assert _flagged([label["ementa"].replace(",", "").replace(".", "").replace("  ", " ")
                     for label, _ in ementas()]) == []


def test_no_flag_for_words_ocr_misread():
    # one letter of about one word in 5 printed as tesseract misreads it ("C0NSELHO", "Dc")
    damaged = [ocr_damaged(read, 5) for _, read in ementas()]
    assert sum(a != b for a, b in zip(damaged, (r for _, r in ementas()), strict=True)) >= 250
    flagged = [label["file"] for (label, _), text in zip(ementas(), damaged, strict=True)
               if disagreement(label["ementa"], text) is not None]
    assert flagged == []


def test_no_flag_for_the_boilerplate_one_side_drops():
    label, read = ementa_of("112-")  # "DISPÕE SOBRE A CONCESSÃO DO TÍTULO DE CIDADÃO ..."
    assert read.startswith("DISPÕE SOBRE A CONCESSÃO")
    assert disagreement(None, read) is None and disagreement(read, None) is None
    assert disagreement("Concessão do título de cidadã feirense.", read) is None
    assert disagreement(read.replace(" E DÁ OUTRAS PROVIDÊNCIAS", ""), read) is None
    assert disagreement("Dispõe sobre a concessão do título de cidadã feirense, e adota outras "
                        "providências.", read) is None


def test_no_flag_for_a_word_hyphenated_at_a_line_end():
    label, read = ementa_of("177-")  # "Aumentam os cargos de provimento efetivo de merendeira"
    broken = read.replace("provimento", "provi-\nmento").replace("Permanente", "Perma- nente")
    assert broken != read and disagreement(label["ementa"], broken) is None
    assert disagreement(broken, read) is None


def test_no_flag_for_a_markdown_link_in_the_sources_ementa():
    # Maricá's Lei 2.031/2002 as tests/data/search_real holds its ementa: the link kept.
    label, read = ementa_of("183-")
    source = label["ementa"].replace(
        "LEI Nº 1517/96 DE 23 DE ABRIL DE 1996",
        "[LEI Nº 1517/96 DE 23 DE ABRIL DE 1996](/1993-1996/1996/lei-ordinaria/LEI-01517-1996.md)")
    assert source != label["ementa"] and disagreement(source, read) is None


# -- a flag where they are two ------------------------------------------------------------------


def test_another_norms_ementa_is_flagged():
    others = another_norms_ementa(ementas())
    flagged = set(_flagged(others))
    distinct = [label["file"] for (label, _), other in zip(ementas(), others, strict=True)
                if _without_accents(other).lower().strip(". ") !=
                _without_accents(label["ementa"]).lower().strip(". ")]
    missed = [f for f in distinct if f not in flagged]
    assert len(distinct) >= 360 and len(missed) <= 0.02 * len(distinct), missed


def test_a_phrase_said_otherwise_is_another_ementa():
    # Maricá's LC 87 and 89/2001: the same sentence, other posts.
    label, read = ementa_of("177-")
    other, _ = ementa_of("178-")
    found = disagreement(other["ementa"], read)
    assert found is not None and found.field == "ementa" and not found.ocr_misreading
    assert (found.heading, found.source) == (read, other["ementa"])
    assert "Professor" in found.source and "merendeira e servente" in found.heading


def test_a_number_that_differs_is_another_ementa():
    label, read = ementa_of("206-")  # "REVOGA O INCISO XXVI, DO ART. 75, DA LEI ORGÂNICA ..."
    assert "ART. 75" in read
    far = disagreement(read.replace("ART. 75", "ART. 12"), read)
    assert far is not None and not far.ocr_misreading and "a number differs" in far.detail
    near = disagreement(read.replace("ART. 75", "ART. 76"), read)  # 5 and 6: OCR's look-alikes
    assert near is not None and near.ocr_misreading


def test_a_note_where_the_source_has_its_ementa_is_flagged():
    # Maricá's Decreto 1/2025 as tests/data/search_real holds it: its "ementa" is the note of
    # its revocation.
    label, read = ementa_of("231-")
    found = disagreement("[(Revogado pelo Decreto nº 3, de 2025)](/legislatura/2025-2028/2025/"
                         "decreto/DEC-00003-2025.md)", read)
    assert found is not None and found.heading == read == label["ementa"]


def test_the_measures_the_bench_prints():
    flagged: list[str] = []
    figures = measure_ementa_flags(flagged=flagged)
    assert figures["labelled"][0] == 0 and figures["labelled"][1] >= 380
    assert figures["half"][0] == 0 and figures["ocr_10"][0] == 0 and figures["ocr_5"][0] == 0
    right, of = figures["other_distinct"]
    assert of >= 360 and right >= 0.98 * of, flagged
    assert figures["marica"][1] >= 80 and figures["marica"][0] <= 2, flagged


# -- through enrichment to the explorer -----------------------------------------------------------


@pytest.fixture
def corpus(tmp_path):
    c = init_corpus(tmp_path / "corpus")  # SQLite in its folder
    yield c
    c.close()


WRONG = "Regula o pagamento a credores do Município."  # another norm's ementa, say


def _three_records(corpus) -> tuple[Corpus, dict, dict]:
    """Three decrees of Feira de Santana with their real texts: "mixed" has another norm's
    ementa, "cut" its own cut at half and in lowercase, "bare" none."""
    built = Corpus(corpus)
    built.source("sapl", "sapl", code=FEIRA)
    texts = {name: text_of(prefix)
             for name, prefix in (("mixed", "013-"), ("cut", "053-"), ("bare", "005-"))}
    mixed_label, cut_label = texts["mixed"][1], texts["cut"][1]
    built.record("mixed", "sapl", "d8853", "Decreto", mixed_label["number"], 2013, code=FEIRA,
                 ementa=WRONG)
    built.record("cut", "sapl", "d8845", "Decreto", cut_label["number"], 2013, code=FEIRA,
                 ementa=cut_label["ementa"][:len(cut_label["ementa"]) // 2].lower())
    built.record("bare", "sapl", "bare", "Decreto", texts["bare"][1]["number"], 2013,
                 code=FEIRA)
    for name, (text, _) in texts.items():
        built.text(name, [text])
    return built, mixed_label, cut_label


def test_the_enrich_command_counts_the_ementa_disagreements(corpus):
    _three_records(corpus)
    corpus.close()
    shown = run_cli("enrich", "--no-reread", corpus=corpus.settings.folder, check=True).stdout
    assert "3 headings read (1 ementas read from the text" in " ".join(shown.split())
    assert "1 disagreeing with their source, 1 of them on the ementa" in " ".join(shown.split())


def test_the_flag_is_stored_shown_and_the_sources_ementa_kept(corpus):
    built, mixed_label, cut_label = _three_records(corpus)
    wrong = WRONG
    report = enrich(corpus, reread=False)
    assert (report.headings, report.disagreements, report.ementa_disagreements) == (3, 1, 1)
    assert report.ementas == 1  # the bare record's, read from its text
    with corpus.store.engine.connect() as conn:
        stored = dict(conn.execute(select(record.c.id, record.c.heading_disagreement)).all())
    assert stored[built.records["cut"]] is None and stored[built.records["bare"]] is None
    [flag] = json.loads(stored[built.records["mixed"]])
    assert flag == {"field": "ementa", "heading": mixed_label["ementa"], "source": wrong,
                    "ocr_misreading": False, "detail": flag["detail"]}
    assert flag["detail"].startswith("another ementa")
    mixed = built.norm_of("mixed")
    assert mixed["ementa"] == wrong  # the source's is kept
    assert json.loads(mixed["provenance"])["ementa"] == {"record": built.records["mixed"]}
    assert built.norm_of("cut")["ementa"] == cut_label["ementa"][:len(cut_label["ementa"]) // 2
                                                                 ].lower()
    with LiveServer(corpus) as live:
        with httpx.Client(base_url=live.url, timeout=30,
                          headers={"Accept-Language": "en"}) as client:
            page = client.get(f"/norm/{mixed['id']}.json").json()
            assert page["norm"]["ementa"] == wrong
            [rec] = page["records"]
            assert rec["heading_disagreement"] == [flag]
            html = client.get(f"/norm/{mixed['id']}").text
            assert (f"its text prints another ementa, <q>{mixed_label['ementa']}</q>; the "
                    f"source's, <q>{wrong}</q>, is kept") in html
            quality = client.get("/quality.json").json()
            assert [(r["id"], r["disagreements"]) for r in quality["headings"]["records"]] == [
                (built.records["mixed"], [flag])]
            html = client.get("/quality").text
            assert f"its text prints another ementa, <q>{mixed_label['ementa']}</q>" in html
            assert "The ementa the text prints is compared with the source" in html
        with httpx.Client(base_url=live.url, timeout=30,
                          headers={"Accept-Language": "pt-BR"}) as client:
            html = client.get(f"/norm/{mixed['id']}").text
            assert (f"seu texto imprime outra ementa, <q>{mixed_label['ementa']}</q>; a da "
                    f"fonte, <q>{wrong}</q>, é mantida") in html
            assert "seu texto imprime outra ementa" in client.get("/quality").text
    # Read again, the flag stays one (nothing changed, nothing is read again).
    assert enrich(corpus, reread=False).disagreements == 0
    with corpus.store.engine.connect() as conn:
        assert json.loads(conn.scalar(select(record.c.heading_disagreement).where(
            record.c.id == built.records["mixed"]))) == [flag]

