"""Citations between norms: what a text cites, revokes, alters and regulates (issue 9)."""

from __future__ import annotations

from datetime import date

import pytest

from locleg.enrich.citations import (
    ALTERED_BY,
    ALTERS,
    CITES,
    KINDS,
    REGULATES,
    REVOKED_IN_PART_BY,
    REVOKES,
    REVOKES_IN_PART,
    NormRef,
    citation_key,
    citation_urn,
    find_citations,
    revocation_cycles,
)
from locleg.fixtures.laws import sample_text
from locleg.jurisdictions import load_ibge
from tests.citation_labels import Citing, load
from tests.seed000_text import PAGES

JUAZEIRO = next(j for j in load_ibge() if j.name == "Juazeiro" and j.uf == "BA")
ESPIRITO_SANTO = next(j for j in load_ibge() if j.uf == "ES" and j.level == "estadual")


def cites(text: str, **kw) -> list[tuple]:
    return [(c.text, c.family, c.number, c.year) for c in find_citations(text, **kw)]


def one(text: str, **kw):
    found = find_citations(text, **kw)
    assert len(found) == 1, [c.text for c in found]
    return found[0]


# --- the seed laws -----------------------------------------------------------------------

def test_juazeiro_2199_revokes_1996_and_cites_federal_law_and_organic_law():
    text = "\n".join(PAGES)
    found = find_citations(text, NormRef("lei", "2.199", 2011))
    by_number = {c.number: c for c in found}

    # "revogadas as disposições em contrário, especialmente as contidas na Lei Municipal nº
    # 1.996": only what of Lei 1.996 is contrary, which the text does not say (issue 21); the
    # whole revocation is SAPL's vínculo, not this sentence's
    revoked = by_number["1996"]
    assert (revoked.family, revoked.year, revoked.date) == ("lei", 2008, date(2008, 11, 6))
    assert revoked.kind == CITES and revoked.sphere == "municipal"
    assert "contrary_provisions" in revoked.flags
    assert revoked.sentence.startswith("Ficam revogadas as disposições em contrário")
    assert "Lei Municipal nº 1.996, de 06 de novembro de 2008" in revoked.sentence

    federal = [c for c in found if c.number == "12009"]
    assert [c.fragment for c in federal] == ["art39-B", None]
    assert all(c.kind == CITES and c.sphere == "federal" for c in federal)
    assert citation_urn(federal[0], JUAZEIRO) == "urn:lex:br:federal:lei:2009-07-29;12009!art39-B"
    assert citation_urn(federal[1], JUAZEIRO) == "urn:lex:br:federal:lei:2009-07-29;12009"

    organic = next(c for c in found if c.family == "lei.organica")
    assert (organic.text, organic.fragment, organic.kind) == (
        "Lei Orgânica do Município", "art61_inc4", CITES)
    assert citation_key(organic, JUAZEIRO) == ("br;bahia;juazeiro", "lei.organica", None, None)

    lrf = next(c for c in found if c.text == "Lei de Responsabilidade Fiscal")
    assert (lrf.family, lrf.number, lrf.year, lrf.fragment) == ("lei.complementar", "101", 2000,
                                                               "art16")
    # the heading "LEI Nº 2.199/2011" is the law itself
    assert "2199" not in by_number


def test_juazeiro_sample_text_first_pages():
    found = find_citations(sample_text("juazeiro_lei_2199_2011.txt"))
    assert [(c.text, c.fragment) for c in found] == [
        ("Lei Orgânica do Município", "art61_inc4"),
        ("Lei Federal nº 12.009, de 29 de julho de 2009", "art39-B"),
    ]


def test_espirito_santo_2482_cites_federal_norms_and_its_consolidation_notes():
    text = sample_text("es_lei_2482_1969.txt")
    found = find_citations(text, NormRef("lei", "2482", 1969), level="estadual")
    rows = [(c.text, c.family, c.number, c.year, c.sphere, c.kind) for c in found]
    assert ("Lei nº 5.108 , de 21 de setembro de 1966", "lei", "5108", 1966, "federal",
            CITES) in rows
    assert ("Decreto-Lei nº 237 , de 28 de fevereiro de 1967", "decreto.lei", "237", 1967,
            "federal", CITES) in rows
    assert ("Decreto Federal nº 62.127 , de 16 de janeiro de 1968", "decreto", "62127", 1968,
            "federal", CITES) in rows
    assert ("Lei nº 2758 /1973", "lei", "2758", 1973, "estadual", ALTERED_BY) in rows
    assert ("Lei nº 2634 /1971", "lei", "2634", 1971, "estadual", REVOKED_IN_PART_BY) in rows
    assert ("Lei nº 2.296 , de 17 de julho de 1967", "lei", "2296", 1967, "estadual",
            CITES) in rows
    assert not any(c.number == "2482" for c in found)

    decree_law = next(c for c in found if c.family == "decreto.lei")
    assert citation_urn(decree_law, ESPIRITO_SANTO) == \
        "urn:lex:br:federal:decreto.lei:1967-02-28;237"
    state_law = next(c for c in found if c.number == "2296")
    assert citation_urn(state_law, ESPIRITO_SANTO) == \
        "urn:lex:br;espirito.santo:estadual:lei:1967-07-17;2296"
    note = next(c for c in found if c.kind == ALTERED_BY)
    assert note.article == "Art. 17" and "Redação dada pela Lei nº 2758" in note.sentence


# --- the forms a citation takes ----------------------------------------------------------

@pytest.mark.parametrize("snippet, expected", [
    ("conforme a Lei nº 1.996/2008.", ("Lei nº 1.996/2008", "lei", "1996", 2008)),
    ("a Lei Municipal nº 1.996, de 06 de novembro de 2008, e",
     ("Lei Municipal nº 1.996, de 06 de novembro de 2008", "lei", "1996", 2008)),
    ("nos termos da Lei Federal nº 12.009, de 29 de julho de 2009.",
     ("Lei Federal nº 12.009, de 29 de julho de 2009", "lei", "12009", 2009)),
    ("o art. 39-B da Lei Federal nº 12.009", ("Lei Federal nº 12.009", "lei", "12009", None)),
    ("pela LC 45/2013,", ("LC 45/2013", "lei.complementar", "45", 2013)),
    ("na Lei Complementar nº 45.", ("Lei Complementar nº 45", "lei.complementar", "45", None)),
    ("o Decreto Municipal 187/2011", ("Decreto Municipal 187/2011", "decreto", "187", 2011)),
    ("do Decreto-Lei nº 237, de 28 de fevereiro de 1967",
     ("Decreto-Lei nº 237, de 28 de fevereiro de 1967", "decreto.lei", "237", 1967)),
    ("o Decreto Federal nº 62.127 integra", ("Decreto Federal nº 62.127", "decreto", "62127",
                                             None)),
    ("da Lei Orgânica do Município,", ("Lei Orgânica do Município", "lei.organica", None, None)),
    ("da Constituição Federal,", ("Constituição Federal", "constituicao", None, 1988)),
    ("da Constituição Estadual,", ("Constituição Estadual", "constituicao", None, None)),
    ("do art. 30 da CF/88,", ("CF/88", "constituicao", None, 1988)),
    ("a Resolução nº 3/2015 da Câmara", ("Resolução nº 3/2015", "resolucao", "3", 2015)),
    ("a Emenda à Lei Orgânica nº 7, de", ("Emenda à Lei Orgânica nº 7", "emenda.lei.organica",
                                          "7", None)),
    ("o CTN, Lei nº 5.172/66, dispõe", ("Lei nº 5.172/66", "lei", "5172", 1966)),
    ("a Lei nº 1.996/08 fixa", ("Lei nº 1.996/08", "lei", "1996", 2008)),
    ("a Lei n° 1.996 fixa", ("Lei n° 1.996", "lei", "1996", None)),
    ("a Lei n 1996 fixa", ("Lei n 1996", "lei", "1996", None)),
    ("a Lein° 1.996 fixa", ("Lein° 1.996", "lei", "1996", None)),
    ("a LEI N.º 1.996/2008 fixa", ("LEI N.º 1.996/2008", "lei", "1996", 2008)),
    ("a Lei nº 12-A/2010 fixa", ("Lei nº 12-A/2010", "lei", "12-A", 2010)),
    ("a Lei\nMunicipal nº 1.996 , de\n06 de novembro de 2008.",
     ("Lei\nMunicipal nº 1.996 , de\n06 de novembro de 2008", "lei", "1996", 2008)),
    ("a Medida Provisória nº 2.166-67, de 2001,",
     ("Medida Provisória nº 2.166-67, de 2001", "medida.provisoria", "2166-67", 2001)),
    ("a Resolução CONAMA nº 237/1997", ("Resolução CONAMA nº 237/1997", "resolucao", "237",
                                        1997)),
    ("pela Emenda Constitucional nº 86, de 17 de março de 2015.",
     ("Emenda Constitucional nº 86, de 17 de março de 2015", "emenda.constitucional", "86",
      2015)),
    ("a Instrução Normativa nº 2, de 20 de dezembro de 2016,",
     ("Instrução Normativa nº 2, de 20 de dezembro de 2016", "instrucao.normativa", "2", 2016)),
])
def test_forms_of_a_citation(snippet, expected):
    assert cites(snippet) == [expected]


def test_offsets_hold_when_a_letter_lowercases_to_two_characters():
    text = "İSTANBUL. Conforme a Lei nº 1.996/2008."
    c = one(text)
    assert text[c.start:c.end] == c.text == "Lei nº 1.996/2008"


def test_the_citing_year_does_not_bend_two_digit_years():
    assert cites("a Lei nº 4.320/64 e a Lei nº 10.520/02") == [
        ("Lei nº 4.320/64", "lei", "4320", 1964), ("Lei nº 10.520/02", "lei", "10520", 2002)]


def test_a_list_shares_its_type_and_its_trailing_year():
    found = find_citations("Ficam revogadas as Leis nºs 1.200, 1.300 e 1.450, de 2010.")
    assert [(c.text, c.number, c.year, c.kind) for c in found] == [
        ("Leis nºs 1.200", "1200", 2010, REVOKES), ("1.300", "1300", 2010, REVOKES),
        ("1.450, de 2010", "1450", 2010, REVOKES)]
    assert "list_year" in found[0].flags and "list_year" not in found[2].flags


def test_two_decrees_with_their_own_numbers():
    assert cites("aprovado pelos Decretos nº 1310 /2004 e nº 3063 /2012)") == [
        ("Decretos nº 1310 /2004", "decreto", "1310", 2004),
        ("nº 3063 /2012", "decreto", "3063", 2012)]


def test_a_singular_type_does_not_swallow_the_numbers_after_it():
    assert cites("conforme a Lei nº 100/2010, 200 servidores serão nomeados") == [
        ("Lei nº 100/2010", "lei", "100", 2010)]


def test_the_referred_law_is_the_latest_law_named():
    found = find_citations("Observada a Lei nº 11.977, de 7 de julho de 2009, aplicam-se os "
                           "arts. 46 a 71-A da referida Lei e o art. 5º da mesma Lei.")
    assert [(c.text, c.number, c.year, c.fragment) for c in found] == [
        ("Lei nº 11.977, de 7 de julho de 2009", "11977", 2009, None),
        ("referida Lei", "11977", 2009, None), ("mesma Lei", "11977", 2009, "art5")]
    assert "anaphora" in found[1].flags


def test_a_referred_law_with_nothing_before_it_is_not_guessed():
    assert cites("Os recursos da referida Lei serão aplicados.") == []


def test_a_law_named_twice_side_by_side_is_one_citation():
    assert cites("o Código Tributário Nacional (Lei nº 5.172, de 25 de outubro de 1966)") == [
        ("Lei nº 5.172, de 25 de outubro de 1966", "lei", "5172", 1966)]
    assert cites("a Lei nº 5.172/66 (CTN)") == [("Lei nº 5.172/66", "lei", "5172", 1966)]


def test_well_known_federal_laws_by_name_and_by_number():
    found = find_citations("observado o art. 16 da Lei de Responsabilidade Fiscal, a Lei nº "
                           "8.666/93 e o Estatuto da Cidade")
    assert [(c.family, c.number, c.year, c.sphere, c.sphere_source) for c in found] == [
        ("lei.complementar", "101", 2000, "federal", "known"),
        ("lei", "8666", 1993, "federal", "known"),
        ("lei", "10257", 2001, "federal", "known")]
    assert citation_urn(found[1], JUAZEIRO) == "urn:lex:br:federal:lei:1993-06-21;8666"


def test_without_a_sphere_the_citing_jurisdiction_is_meant():
    municipal = one("conforme a Lei nº 2.296, de 17 de julho de 1967.")
    assert (municipal.sphere, municipal.sphere_source) == ("municipal", "implied")
    state = one("conforme a Lei nº 2.296, de 17 de julho de 1967.", level="estadual")
    assert state.sphere == "estadual"
    # the key follows the citing jurisdiction, whatever level the text was read with
    assert citation_key(municipal, ESPIRITO_SANTO) == ("br;espirito.santo", "lei", "2296", 1967)
    again = find_citations("a Lei Federal nº 13.979, de 6 de fevereiro de 2020, e o art. 4º da "
                           "Lei nº 13.979/2020")
    assert [(c.sphere, c.sphere_source) for c in again] == [("federal", "written"),
                                                            ("federal", "text")]


@pytest.mark.parametrize("text", [
    "Rua Góes Calmon, nº 1.996, Centro, CEP 48.903-000, telefone (74) 3611-2199.",
    "a empresa Alfa Ltda., CNPJ nº 12.345.678/0001-90, pelo valor de R$ 1.996.000,00.",
    "a multa será de 0,3% sobre o valor do art. 1.996 do contrato",
    "O Projeto de Lei nº 45/2020 e o Projeto de Lei Complementar nº 7/2020 tramitam.",
    "conforme o Processo Administrativo nº 2019.015.432 e o Ofício nº 123/2020-SEMAD",
    "o prazo previsto em lei 30 dias após a publicação desta Lei",
    "nos termos da lei, no âmbito desta Lei e da legislação federal",
    "O Decreto do Chefe do Poder Executivo fixará a tarifa. DECRETA:",
])
def test_numbers_that_are_not_norms(text):
    assert cites(text) == []


# --- what the text does to the norm it cites ----------------------------------------------

@pytest.mark.parametrize("sentence, kind, fragment", [
    ("Fica revogada a Lei nº 1.996/2008.", REVOKES, None),
    ("Revoga-se a Lei nº 1.996/2008.", REVOKES, None),
    ("Ficam revogadas as disposições em contrário, especialmente a Lei Municipal nº 1.996, de "
     "06 de novembro de 2008.", REVOKES, None),
    ("Revoga-se o art. 5º da Lei nº 1.996/2008.", REVOKES_IN_PART, "art5"),
    ("Ficam revogados os incisos II e III do art. 4º da Lei nº 1.996/2008.", REVOKES_IN_PART,
     None),
    ("O art. 5º da Lei nº 1.996/2008 fica revogado.", REVOKES_IN_PART, "art5"),
    ("O art. 3º da Lei nº 1.996/2008 passa a vigorar com a seguinte redação:", ALTERS, "art3"),
    ("Fica alterado o Anexo I da Lei nº 1.996/2008.", ALTERS, None),
    ("Fica acrescido o art. 39-A à Lei nº 1.996/2008, com a seguinte redação:", ALTERS,
     "art39-A"),
    ("Altera a Lei nº 1.996/2008, que dispõe sobre o moto-táxi.", ALTERS, None),
    ("Regulamenta a Lei nº 1.996/2008 e dá outras providências.", REGULATES, None),
    ("Fica regulamentado o benefício de que trata o art. 7º da Lei nº 1.996/2008.", REGULATES,
     "art7"),
    ("Os veículos atenderão ao art. 5º da Lei nº 1.996/2008.", CITES, "art5"),
    ("com as alterações do Decreto-Lei nº 237, de 28 de fevereiro de 1967.", CITES, None),
])
def test_kind_of_act(sentence, kind, fragment):
    c = one(sentence)
    assert (c.kind, c.fragment) == (kind, fragment)


def test_an_act_on_one_norm_is_not_an_act_on_the_norms_it_mentions():
    found = find_citations("Fica revogado o Decreto nº 98/2009, que regulamentava a Lei nº "
                           "1.996/2008, alterada pela Lei nº 2.001/2009.")
    assert [(c.number, c.kind) for c in found] == [("98", REVOKES), ("1996", CITES),
                                                   ("2001", CITES)]
    found = find_citations("Altera a Lei Complementar nº 19/2009, adequando-a à Lei "
                           "Complementar Federal nº 157/2016.")
    assert [c.kind for c in found] == [ALTERS, CITES]


def test_the_head_of_a_list_of_incisos_acts_on_each_of_them():
    text = ("Art. 4º Ficam revogados:\nI - o art. 9º da Lei nº 2.199, de 2011;\nII - a Lei nº "
            "2.201, de 30 de junho de 2011;\nIII - o Decreto nº 187/2011.\nArt. 5º Esta Lei "
            "entra em vigor na data de sua publicação.")
    found = find_citations(text)
    assert [(c.number, c.kind, c.article) for c in found] == [
        ("2199", REVOKES_IN_PART, "Art. 4"), ("2201", REVOKES, "Art. 4"),
        ("187", REVOKES, "Art. 4")]


def test_acts_carry_their_evidence_and_mentions_do_not_need_it():
    text = ("Art. 1º Os veículos observarão a Lei nº 100/2010.\n"
            "Art. 2º Fica revogada a Lei nº 200/2011, e revogado o art. 3º da Lei nº 300/2012.")
    found = find_citations(text)
    assert [(c.kind, c.article) for c in found] == [
        (CITES, None), (REVOKES, "Art. 2"), (REVOKES_IN_PART, "Art. 2")]
    assert found[1].sentence == ("Fica revogada a Lei nº 200/2011, e revogado o art. 3º da Lei "
                                 "nº 300/2012.")


def test_new_wording_in_quotes_is_not_the_act_of_the_amending_law():
    text = ('Art. 2º O inciso XIX do art. 6º da Lei nº 2.199/11 passa a vigorar com a seguinte '
            'redação:\n"XIX - possuir certidões, nos termos da Lei Federal nº 12.009/2009;"\n'
            'Art. 3º O § 3º do art. 7º da referida Lei fica revogado.')
    found = find_citations(text)
    assert [(c.number, c.kind, c.fragment) for c in found] == [
        ("2199", ALTERS, "art6_inc19"), ("12009", CITES, None),
        ("2199", REVOKES_IN_PART, "art7_par3")]


# --- the citing norm, and input that lies -------------------------------------------------

def test_self_citations_are_dropped_and_a_self_revocation_is_flagged():
    text = "Os recursos da Lei nº 2.199/2011 e da Lei nº 100/2010.\nFica revogada a Lei nº 2.199."
    found = find_citations(text, NormRef("lei", "2.199", 2011))
    assert [(c.number, c.kind, c.flags) for c in found] == [
        ("100", CITES, ()), ("2199", REVOKES, ("targets_itself",))]


def test_without_own_the_heading_names_the_norm():
    text = ("LEI MUNICIPAL Nº 1.167, DE 02 DE ABRIL DE 2014\nALTERA A LEI Nº 1.045/2011.\n"
            "Art. 1º Os recursos de que trata a Lei nº 1.167/2014 serão aplicados.")
    assert cites(text) == [("LEI Nº 1.045/2011", "lei", "1045", 2011)]


def test_absurd_dates_are_reported_as_written_with_a_reason():
    found = find_citations("a Lei nº 1.105/2099, o Decreto nº 15, de 3 de maio de 1500, e a Lei "
                           "nº 2.488, de 31 de fevereiro de 2010")
    assert [(c.year, c.date, c.flags) for c in found] == [
        (2099, None, ("implausible_year",)),
        (1500, date(1500, 5, 3), ("implausible_year",)),
        (2010, None, ("invalid_date",))]
    assert [citation_urn(c, JUAZEIRO) for c in found] == [None, None, None]
    assert citation_key(found[0], JUAZEIRO) == ("br;bahia;juazeiro", "lei", "1105", 2099)


def test_a_date_that_contradicts_the_year_is_flagged():
    c = one("a Lei nº 1.996/2008, de 06 de novembro de 2007,")
    assert (c.year, c.date, c.flags) == (2008, date(2007, 11, 6), ("year_mismatch",))


def test_a_citation_later_than_the_citing_norm_is_flagged():
    c = one("conforme a Lei nº 500/2015.", own=NormRef("lei", "100", 2010))
    assert c.flags == ("later_than_citing",)


def test_revocation_cycles():
    assert revocation_cycles([("A", "B"), ("B", "A"), ("C", "D")]) == [("A", "B")]
    assert revocation_cycles([("A", "A")]) == [("A",)]
    assert revocation_cycles([("A", "B"), ("B", "C"), ("C", "A"), ("C", "D")]) == [
        ("A", "B", "C")]
    assert revocation_cycles([("A", "B"), ("B", "C")]) == []


# --- naming the cited norm ------------------------------------------------------------------

def test_urns_and_keys():
    municipal = one("a Lei nº 1.996, de 06 de novembro de 2008")
    assert citation_urn(municipal, JUAZEIRO) == \
        "urn:lex:br;bahia;juazeiro:municipal:lei:2008-11-06;1996"
    assert citation_key(municipal, JUAZEIRO) == ("br;bahia;juazeiro", "lei", "1996", 2008)
    undated = one("a Lei nº 1.996/2008")
    assert citation_urn(undated, JUAZEIRO) is None  # no signature date: no complete URN
    assert citation_key(undated, JUAZEIRO) == ("br;bahia;juazeiro", "lei", "1996", 2008)
    state = one("a Lei Estadual nº 10.431, de 20 de dezembro de 2006")
    assert citation_urn(state, JUAZEIRO) == "urn:lex:br;bahia:estadual:lei:2006-12-20;10431"
    resolution = one("a Resolução nº 166, de 28 de outubro de 2015")
    assert citation_urn(resolution, JUAZEIRO) == \
        "urn:lex:br;bahia;juazeiro:camara.municipal:resolucao:2015-10-28;166"
    contran = one("a Resolução CONTRAN nº 410, de 2 de agosto de 2012")
    assert citation_urn(contran, JUAZEIRO) == \
        "urn:lex:br:conselho.nacional.transito:resolucao:2012-08-02;410"
    constitution = one("o art. 30, inciso I, da Constituição Federal")
    assert citation_urn(constitution, JUAZEIRO) == \
        "urn:lex:br:federal:constituicao:1988-10-05;1988!art30_inc1"
    suffixed = one("a Lei nº 12-A, de 1º de março de 2010")
    assert citation_urn(suffixed, JUAZEIRO) == \
        "urn:lex:br;bahia;juazeiro:municipal:lei:2010-03-01;12-a"


def test_a_municipal_law_cited_by_a_state_has_no_known_jurisdiction():
    c = one("a Lei Municipal nº 100, de 3 de maio de 2010", level="estadual")
    assert citation_key(c, ESPIRITO_SANTO) is None
    assert citation_urn(c, ESPIRITO_SANTO) is None


def test_a_federal_decree_law_in_the_distrito_federal():
    df = Citing("distrital", "br;distrito.federal")
    c = one("a Lei nº 3.152, de 6 de maio de 2003", level="distrital")
    assert citation_urn(c, df) == "urn:lex:br;distrito.federal:distrital:lei:2003-05-06;3152"


# --- the labelled set -------------------------------------------------------------------------

def test_the_labelled_set_is_large_and_well_formed():
    texts = load()
    labels = [x for lt in texts for x in lt.labels]
    assert len(labels) >= 300
    assert {x.kind for x in labels} <= set(KINDS)
    assert {x.sphere for x in labels} <= {"municipal", "estadual", "federal", "distrital"}
    assert len({x.kind for x in labels}) >= 7


def test_precision_and_recall_on_the_labelled_set():
    tp = fp = fn = kind = 0
    for lt in load():
        got = {(c.start, c.end, c.family, c.number, c.year): c.kind
               for c in find_citations(lt.text, lt.own, level=lt.citing.level)}
        want = {(x.start, x.end, x.family, x.number, x.year): x.kind for x in lt.labels}
        tp += len(got.keys() & want.keys())
        fp += len(got.keys() - want.keys())
        fn += len(want.keys() - got.keys())
        kind += sum(got[k] == want[k] for k in got.keys() & want.keys())
    assert tp / (tp + fp) >= 0.95
    assert tp / (tp + fn) >= 0.90
    assert kind / tp >= 0.95
