"""Citations of real texts that misspell their type, name an amendment bare, write a list's sphere
after it, or cite another sphere's norm with no sphere word (issue 21): each rule from a real
text it failed on (tests/data/real_citations/SOURCES.md names the sources), and its guards."""

from __future__ import annotations

from locleg.enrich.citation_model import ALTERED_BY, Citation
from locleg.enrich.citation_typos import misspelt_type
from locleg.enrich.citations import NormRef, TownNumbering, citation_key, find_citations
from tests.citation_labels import Citing
from tests.real_citations import corpus_keys, load_labelled

FEIRA = Citing("municipal", "br;bahia;feira.santana")


def _read(text: str, **kw) -> list[tuple]:
    return [(c.text, c.family, c.number, c.year, c.sphere, c.flags)
            for c in find_citations(text, **kw)]


# -- 1. misspelt type words ------------------------------------------------------------------

def test_a_misspelt_lei_complementar_is_read_and_flagged():
    # Feira de Santana, LC 45/2010 and LC 44/2010: their ementas
    assert _read("ALTERA, MODIFICA E DÁ NOVA REDAÇÃO À LEI COOMPLEMENAR Nº 019, DE 01 DE "
                 "DEZEMBRO DE 2004, E DÁ OUTRAS PROVIDÊNCIAS.") == [
        ("LEI COOMPLEMENAR Nº 019, DE 01 DE DEZEMBRO DE 2004", "lei.complementar", "19", 2004,
         "municipal", ("type_misspelt",))]
    [c] = find_citations("ALTERA DISPOSITIVO DA LEI COMPLEMTENTAR Nº 02/1995, QUE REGULAMENTA O "
                         "ARTIGO DA LEI")
    assert (c.family, c.number, c.year, c.flags) == ("lei.complementar", "2", 1995,
                                                     ("type_misspelt",))


def test_a_lei_missing_its_last_letter_is_read():
    # Feira de Santana, Lei 3.015/2009, art. 2º
    [c] = find_citations('Art. 2º O artigo 11 da Le nº 2.987, de 29 de junho de 2009, e seu '
                         'parágrafo primeiro, passam a vigorar com a seguinte redação:')
    assert (c.text, c.family, c.number, c.year) == ("Le nº 2.987, de 29 de junho de 2009", "lei",
                                                     "2987", 2009)
    assert "type_misspelt" in c.flags


def test_misspelt_first_words_and_a_sphere_after_them():
    [c] = find_citations("nos termos do Decreo Municipal nº 1.310/2004")
    assert (c.family, c.number, c.year, c.sphere, c.sphere_source) == (
        "decreto", "1310", 2004, "municipal", "written")
    [c] = find_citations("conforme a Lei Complementr nº 45/2010")
    assert (c.family, c.number) == ("lei.complementar", "45")


def test_a_number_sign_split_in_two_letters():
    # Feira de Santana, LC 118/2018, ementa
    found = find_citations("REVOGANDO-SE AS SEGUINTES LEIS: LEI N O 1.615/1992, LEI Nº "
                           "2.328/2002")
    assert [(c.text, c.number, c.year) for c in found] == [
        ("LEI N O 1.615/1992", "1615", 1992), ("LEI Nº 2.328/2002", "2328", 2002)]


def test_words_of_their_own_and_changes_in_the_first_letters_are_no_type():
    for text in ("Leia nº 5 de 2010", "o leito nº 5 de 2010", "DECRETA nº 5 de 2010",
                 "o Decote nº 5 de 2010", "a Ementa nº 5 de 2010", "a Lwi nº 5/2010",
                 "Processo nº 45/2010", "Edital nº 3/2010", "Projeto de Lei Complementr nº 4/2010",
                 "a Lei nº 5/2010"):
        assert not any("type_misspelt" in c.flags for c in find_citations(text)), text
    assert misspelt_type("leia nº 5", 5, 0) is None
    assert misspelt_type("lei complementar nº 5", 17, 0) is None  # spelt right: the grammar's


# -- 2. "Emenda nº N" near the Lei Orgânica ---------------------------------------------------

def test_a_bare_emenda_near_the_lei_organica_amends_it():
    # Feira de Santana, Emenda à Lei Orgânica 48/2015, arts. 1º and 2º
    text = ("A CÂMARA MUNICIPAL DE FEIRA DE SANTANA, Estado da Bahia, na conformidade do artigo "
            "72, § 4º da Lei Orgânica do Município de 05 de Abril de 1990, e Proposta de Emenda nº "
            "101/2015, de autoria de diversos Edis, promulga a seguinte Emenda:\n\nArt. 1º "
            "Suprima-se o art. 4º, da Emenda 43, de 08 de Dezembro de 2014, que deu nova redação "
            "ao art. 42 da Lei Orgânica do Município.\n\nArt. 2º Dê-se ao art. 24, da Emenda 43, "
            "de 08 de Dezembro de 2014, a seguinte redação:")
    amendments = [c for c in find_citations(text) if c.family == "emenda.lei.organica"]
    assert [(c.text, c.number, c.year, c.sphere) for c in amendments] == [
        ("Emenda 43, de 08 de Dezembro de 2014", "43", 2014, "municipal")] * 2
    key = citation_key(amendments[0], FEIRA)
    assert key == ("br;bahia;feira.santana", "emenda.lei.organica", "43", 2014)


def test_a_note_opened_by_a_bare_emenda_says_it_altered_the_text():
    # Maracaju/MS, Lei Orgânica, art. 103 (labelled excerpt 12)
    text = next(lt.text for lt in load_labelled() if lt.name.startswith("12-maracaju"))
    [c] = [c for c in find_citations(text) if c.family == "emenda.lei.organica"]
    assert (c.text, c.number, c.year, c.kind) == (
        "Emenda Nº 008/2002, de 28.01.2002", "8", 2002, ALTERED_BY)


def test_a_bare_emenda_to_a_bill_or_far_from_the_lei_organica_is_not_read():
    for text in ("nos termos da Lei Orgânica, a Emenda nº 2 ao Projeto de Lei nº 45/2010",
                 "da Lei Orgânica e da Proposta de Emenda nº 101/2015",
                 "a Emenda nº 3/2010 foi rejeitada",  # no Lei Orgânica near
                 "a Emenda nº 1 à Constituição Federal e a Lei Orgânica"):
        assert not [c for c in find_citations(text) if c.family == "emenda.lei.organica"], text
    assert not find_citations("da Lei Orgânica Estadual e da Emenda nº 5/2010",
                              level="estadual")[1:]


# -- 3. a sphere written after a list --------------------------------------------------------

def test_a_sphere_after_two_norms_is_the_sphere_of_both():
    # the ALERJ's list of actions against state laws (a real text of the state's assembly),
    # read as a town's text would cite them: "ambos do Estado" after the second
    text = ('Promovda em face do Arts. 002°, 004°, "caput" e 00I e 005° da Lei n° 7428, de 25 de '
            'agosto de 2016, e por arrastamento o Decreto n° 45810, de 2016, ambos do Estado do '
            'Rio de Janeiro.')
    assert [(c.family, c.number, c.sphere) for c in find_citations(text)] == [
        ("lei", "7428", "estadual"), ("decreto", "45810", "estadual")]
    text = ("Lei nº 7.718, de 09 de outubro de 2017, e do artigo 2º da Lei 7.717, de 09 de outubro "
            "de 2017, ambas do Estado do Rio de Janeiro - Dispõe sobre a inadimplência")
    assert [(c.number, c.sphere) for c in find_citations(text)] == [
        ("7718", "estadual"), ("7717", "estadual")]
    assert all(citation_key(c, FEIRA).scope == "br;bahia" for c in find_citations(text))


def test_a_plural_sphere_after_a_list_is_every_item_s():
    found = find_citations("nos termos das Leis nº 7.014/96 e 9.281/04, estaduais, e da Lei nº "
                           "2.199/2011")
    assert [(c.number, c.sphere) for c in found] == [
        ("7014", "estadual"), ("9281", "estadual"), ("2199", "municipal")]
    found = find_citations("as Leis nº 1.234/2001 e nº 2.345/2004, ambas federais")
    assert [c.sphere for c in found] == ["federal", "federal"]


def test_a_singular_sphere_after_a_list_or_ambas_far_away_changes_nothing_before():
    found = find_citations("a Lei nº 1.234/2001. Depois, a Lei nº 2.345/2004, ambas estaduais")
    assert [c.sphere for c in found] == ["municipal", "estadual"]
    found = find_citations("a Lei nº 1.234/2001 e a Lei nº 2.345/2004, federal")
    assert [c.sphere for c in found] == ["municipal", "federal"]


def test_a_state_council_s_resolution_is_the_state_s():
    # Feira de Santana, LC 41/2009 (its environmental code), art. 21
    [c] = find_citations("§ 1º As atividades previstas no Anexo Único da Resolução CEPRAM nº "
                         "3.925, de 30 de janeiro de 2009, que não estejam elencadas neste artigo")
    assert (c.number, c.year, c.sphere, c.sphere_source) == ("3925", 2009, "estadual", "issuer")
    assert citation_key(c, FEIRA).scope == "br;bahia"


# -- 4. a number beyond the town's numbering -------------------------------------------------

def _feira() -> TownNumbering:
    return TownNumbering(corpus_keys()["br;bahia;feira.santana"])


def test_bahia_s_law_cited_without_sphere_is_not_keyed_as_feira_s():
    # Feira de Santana, Resolução 194/1986 (labelled excerpt 03): Bahia's Lei 3.531/1976
    text = next(lt.text for lt in load_labelled() if lt.name.startswith("03-feira"))
    found = find_citations(text, NormRef("resolucao", "194", 1986), numbering=_feira())
    [c] = [c for c in found if c.number == "3531"]
    assert "beyond_town_numbering" in c.flags and (c.sphere, c.sphere_source) == (None, "unknown")
    assert citation_key(c, FEIRA) is None
    # without the town's numbering, it was the town's
    [before] = [c for c in find_citations(text, NormRef("resolucao", "194", 1986))
                if c.number == "3531"]
    assert citation_key(before, FEIRA).scope == "br;bahia;feira.santana"


def test_the_town_s_own_norms_and_written_spheres_are_never_flagged():
    numbering = _feira()
    # Feira de Santana, Decreto 8.966/2013: the state's decree 14.467/2013
    text = ("conforme convocação da estadual através do Decreto 14.467 de 06 de Maio de 2013, e a "
            "Lei nº 3.449, de 2014, e a Lei Municipal nº 9.999/2013, e a Lei nº 63/1951")
    flags = [(c.number, "beyond_town_numbering" in c.flags)
             for c in find_citations(text, numbering=numbering)]
    assert flags == [("14467", True), ("3449", False), ("9999", False), ("63", False)]


def test_town_numbering_needs_a_year_enough_norms_and_a_margin():
    numbering = TownNumbering([("lei", str(n), 2010) for n in range(100, 110)]
                              + [("lei.complementar", "2", 2010)] * 5
                              + [("portaria", "5", 2010)] * 5)
    assert numbering.beyond("lei", "400", 2008) and numbering.beyond("lei", "400", 2010)
    assert not numbering.beyond("lei", "150", 2010)  # within 1.5 times
    assert not numbering.beyond("lei", "400", 2011)  # only earlier years held: no bound
    assert not numbering.beyond("lei", "400", 2007)  # no norm held within two years after
    assert not numbering.beyond("lei", "400", None)
    assert not numbering.beyond("lei.complementar", "4", 2010)  # a young series
    assert numbering.beyond("lei.complementar", "40", 2010)
    assert not numbering.beyond("portaria", "900", 2010)  # several bodies number them
    assert not TownNumbering([("lei", "1", 2010)] * 4).beyond("lei", "900", 2010)
    assert not TownNumbering([])


def test_a_series_that_grew_after_the_years_held_is_not_judged_by_them():
    # Maricá/RJ, LC of 1990 (the statute of its servants): "regidos pela Lei 72 de 17/11/1978",
    # Maricá's own law; its corpus holds laws 4 to 17 of 1977 and none of 1978-80
    numbering = TownNumbering(corpus_keys()["br;rio.janeiro;marica"])
    [c] = find_citations("Os funcionários estatutários regidos pela Lei 72 de 17/11/78, passam "
                         "automaticamente para o novo Regime desta Lei.", numbering=numbering)
    assert (c.number, c.year, c.sphere, c.flags) == ("72", 1978, "municipal", ())


def test_a_citation_flagged_beyond_is_of_no_sphere():
    c = find_citations("a Lei nº 5.000/2010", numbering=TownNumbering(
        [("lei", str(n), 2010) for n in range(1, 9)]))[0]
    assert isinstance(c, Citation) and c.sphere is None and c.flags == ("beyond_town_numbering",)
