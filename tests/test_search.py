"""Search on both backends: the query language, filters, ranking bounds, keyset pages, the
index refresh as the corpus changes, and `locleg search` / `locleg index`."""

from __future__ import annotations

import json
import os
import re
from datetime import date

import pytest

from locleg.corpus import init_corpus
from locleg.search import (
    QueryError,
    SearchRequest,
    iter_matches,
    parse,
    pending_changes,
    refresh_index,
    search,
)
from locleg.search.query import to_fts5, to_tsquery
from locleg.search.text import joined_variants
from locleg.store import utcnow
from tests.conftest import BACKENDS, run_cli
from tests.explorer_fixtures import JUAZEIRO, PETROLINA, build_explorer_corpus

_databases = iter(range(10_000))


@pytest.fixture(scope="module", params=BACKENDS)
def explorer(request, tmp_path_factory):
    """The explorer corpus, built once per backend for the read-only tests of this module."""
    url = None
    if request.param == "postgresql":
        server = request.getfixturevalue("pg_server")
        url = server.create_database(f"search{os.getpid()}_{next(_databases)}")
    corpus = init_corpus(tmp_path_factory.mktemp("explorer") / "corpus", url)
    built = build_explorer_corpus(corpus)
    yield built
    corpus.close()


def ids(result) -> list[int]:
    return [h.norm_id for h in result.hits]


def find(explorer, q: str = "", **kw):
    return search(explorer.corpus.store, SearchRequest(q=q, **kw))


# -- the query language (no database) -------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ('"moto taxi', "quote is not closed"),
    ("AND", "AND, OR and NOT need words"),
    ("moto AND", "AND needs a word on each side"),
    ("AND moto", "AND needs a word on each side"),
    ("moto OR", "OR needs a word on each side"),
    ("OR moto", "OR needs a word on each side"),
    ("NOT moto", "NOT needs something to exclude from"),
    ("-moto", "NOT needs something to exclude from"),
    ("moto NOT", "NOT needs a word after it"),
    ("(moto taxi", "'(' is not closed"),
    ("moto taxi)", "')' has no matching '('"),
    ("()", "empty parentheses"), ("(a) ()", "empty parentheses"),
    ("ta*xi", "'*' goes at the end of a word"),
    ("*", "not a search operator"),
    ("moto ^ taxi", "not a search operator"),
    ("a*", "a prefix needs at least 2 letters"),
    ("x" * 501, "too long"),
])
def test_malformed_queries_say_why(text, message):
    with pytest.raises(QueryError, match=re.escape(message)):
        parse(text)


def test_query_compiles_the_same_meaning_for_both_backends():
    node = parse('moto-táxi "serviço público" tribut* -entrega (ônibus OR van)')
    assert to_fts5(node) == (
        '((("moto táxi" OR "mototáxi") AND "serviço público" AND "tribut"* AND '
        '("ônibus" OR "van")) NOT "entrega")')
    assert to_tsquery(node) == (
        "(((('moto' <-> 'taxi') | 'mototaxi') & ('servico' <-> 'publico') & 'tribut':* & "
        "('onibus' | 'van')) & !'entrega')")
    assert parse("   ") is None
    # Punctuation inside a word splits it; dotted numbers also match joined.
    assert to_tsquery(parse("2.199/2011")) == "('2' <-> '199' <-> '2011')"
    assert to_tsquery(parse("2.199")) == "(('2' <-> '199') | '2199')"


def test_index_joins_hyphenated_compounds_and_dotted_numbers():
    variants = joined_variants("SERVIÇO DE MOTO - TÁXI e moto-\nentrega; Lei nº 2.199/2011")
    assert variants == ["mototaxi", "motoentrega", "2199"]


# -- behaviour on both backends -------------------------------------------------------------

@pytest.mark.parametrize("q", ["moto taxi", "mototáxi", "moto-táxi", "MOTO-TAXI", "Moto Táxi",
                               '"moto táxi"', "mototaxi", "moto*", "2199", "2.199"])
def test_every_spelling_finds_seed_000(explorer, q):
    result = find(explorer, q)
    assert explorer.norms["seed"] in ids(result), q


def test_joined_and_hyphenated_spellings_find_each_other(explorer):
    # Petrolina writes "mototáxi"; Juazeiro's decree writes "moto-táxi".
    joined = set(ids(find(explorer, "mototáxi")))
    hyphenated = set(ids(find(explorer, "moto-táxi")))
    assert {explorer.norms["petrolina"], explorer.norms["decree"]} <= joined
    assert joined == hyphenated


def test_boolean_operators_and_phrases(explorer):
    n = explorer.norms
    assert set(ids(find(explorer, "motocicletas OR tarifas"))) == {n["revoked"], n["decree"],
                                                                     n["seed"]}
    without = set(ids(find(explorer, "moto-táxi NOT bairro")))
    assert n["decree"] not in without and n["seed"] in without
    assert set(ids(find(explorer, "moto-táxi -bairro"))) == without
    assert ids(find(explorer, '"transporte rodoviário intermunicipal"')) == [n["state"]]
    assert ids(find(explorer, '"intermunicipal rodoviário"')) == []
    assert set(ids(find(explorer, "(bairro OR cultura) (tabela OR conselho)"))) == {
        n["decree"], n["bare"]}


def test_ranking_prefers_the_ementa(explorer):
    result = find(explorer, "moto táxi")
    assert ids(result)[0] == explorer.norms["seed"]
    assert result.total_exact and result.within is None


def test_filters_narrow_the_results(explorer):
    n = explorer.norms
    assert set(ids(find(explorer, "moto-táxi", ufs=("BA",)))) == {
        n["seed"], n["decree"], n["state"], n["revoked"]}
    assert ids(find(explorer, "mototáxi", ufs=("PE",))) == [n["petrolina"]]
    assert set(ids(find(explorer, "moto-táxi", ufs=("BA", "PE")))) == set(
        ids(find(explorer, "moto-táxi")))
    assert ids(find(explorer, "moto-táxi", jurisdictions=(PETROLINA,))) == [n["petrolina"]]
    assert ids(find(explorer, "moto-táxi", types=("decreto",))) == [n["decree"]]
    assert set(ids(find(explorer, "moto-táxi", year_from=2011, year_to=2012))) == {
        n["seed"], n["decree"]}
    assert ids(find(explorer, "moto-táxi", year_from=2013)) == [n["petrolina"]]
    assert set(ids(find(explorer, "moto-táxi", methods=("ocr",)))) == {n["seed"], n["revoked"]}
    assert ids(find(explorer, "moto-táxi", min_confidence=0.9, methods=("ocr",))) == [n["seed"]]
    assert ids(find(explorer, "moto-táxi", min_confidence=0.93, methods=("ocr",))) == [n["seed"]]
    assert ids(find(explorer, "moto-táxi", min_confidence=0.95, methods=("ocr",))) == []
    no_text = find(explorer, "", jurisdictions=(JUAZEIRO,), has_text=False)
    assert set(ids(no_text)) == {n["failed"], n["bare"]}


def test_filters_alone_list_norms_newest_first(explorer):
    result = find(explorer, "", jurisdictions=(JUAZEIRO,))
    dates = [h.date for h in result.hits]
    assert len(dates) == 6 and dates == sorted(dates, reverse=True)
    assert result.facets["type"] == [("lei", 5), ("decreto", 1)]
    assert dict(result.facets["text"]) == {"yes": 4, "no": 2}


def test_facets_count_the_matches(explorer):
    result = find(explorer, "moto-táxi")
    assert dict(result.facets["uf"]) == {"BA": 4, "PE": 1}
    assert dict(result.facets["jurisdiction"]) == {str(JUAZEIRO): 3, str(PETROLINA): 1,
                                                   "29": 1}
    assert dict(result.facets["method"]) == {"ocr": 2, "text": 2, "html": 1}
    assert result.jurisdiction_names[JUAZEIRO] == "Juazeiro (BA)"


def test_snippets_highlight_and_escape(explorer):
    hit = find(explorer, "moto taxi").hits[0]
    assert "<mark>MOTO</mark>" in hit.ementa_html and "<mark>TÁXI</mark>" in hit.ementa_html
    assert "<mark>moto</mark>-<mark>táxi</mark>" in hit.snippet_html
    xss = find(explorer, "alert").hits[0]
    assert "<script>" not in xss.ementa_html and "&lt;script&gt;" in xss.ementa_html
    assert "<img" not in xss.snippet_html and "<b>" not in xss.snippet_html
    assert "<mark>alert</mark>(&#39;texto&#39;)&gt;" in xss.snippet_html


@pytest.mark.parametrize("sort", ["relevance", "date"])
def test_keyset_pages_reach_every_result_once(explorer, sort):
    everything = ids(find(explorer, "moto-táxi", sort=sort))
    seen, after = [], None
    while True:
        page = find(explorer, "moto-táxi", sort=sort, limit=2, after=after)
        seen += ids(page)
        if page.next_after is None:
            break
        after = page.next_after
    assert seen == everything and len(seen) == 5


@pytest.mark.parametrize("sort", ["relevance", "date"])
def test_a_bounded_search_says_so_and_date_order_still_reaches_all(explorer, sort):
    store = explorer.corpus.store
    everything = set(ids(find(explorer, "moto-táxi")))
    result = search(store, SearchRequest(q="moto-táxi", sort=sort, limit=2), cap=2)
    assert result.within == 2 and result.total == 5 and result.total_exact
    assert sum(c for _, c in result.facets["uf"]) == 2  # facets over the bounded set only
    if sort == "date":
        seen, after = [], None
        while True:
            page = search(store, SearchRequest(q="moto-táxi", sort="date", limit=2,
                                               after=after), cap=2)
            seen += ids(page)
            after = page.next_after
            if after is None:
                break
        assert set(seen) == everything and len(seen) == 5
        days = [h.date for h in find(explorer, "moto-táxi", sort="date").hits]
        assert days == sorted(days, reverse=True)


def test_export_streams_every_match(explorer):
    rows = list(iter_matches(explorer.corpus.store, SearchRequest(q="moto-táxi")))
    assert {r["norm_id"] for r in rows} == set(ids(find(explorer, "moto-táxi")))
    seed = next(r for r in rows if r["norm_id"] == explorer.norms["seed"])
    assert seed["jurisdiction"] == "Juazeiro" and seed["number"] == "2199"
    assert seed["date"] == date(2011, 6, 27)


@pytest.mark.parametrize("params, message", [
    ({"uf": ["XX"]}, "unknown UF"), ({"j": ["abc"]}, "not an IBGE code"),
    ({"year_from": ["20x"]}, "year"), ({"year_from": ["2012"], "year_to": ["2010"]}, "reversed"),
    ({"min_confidence": ["2"]}, "between 0 and 1"), ({"text": ["maybe"]}, "'yes' or 'no'"),
    ({"sort": ["best"]}, "'relevance' or 'date'"), ({"after": ["r1_x"]}, "damaged"),
    ({"type": ["lei;drop"]}, "not a valid type"), ({"limit": ["1000"]}, "1 to 100"),
])
def test_bad_parameters_are_refused_with_a_reason(params, message):
    with pytest.raises(QueryError, match=re.escape(message)):
        SearchRequest.from_params({"q": ["moto"], **params})


# -- keeping the index current ------------------------------------------------------------

def test_the_index_follows_the_corpus(corpus):
    built = build_explorer_corpus(corpus)
    store = corpus.store
    assert pending_changes(store) == 0
    assert refresh_index(store).norms == 0  # nothing changed: nothing to do
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    with store.transaction() as conn:  # a harvest changes an ementa and adds a norm
        store.upsert_norms(conn, sapl, [
            {"native_id": "1502", "jurisdiction_code": JUAZEIRO, "type_raw": "Lei Ordinária",
             "type_normalized": "lei", "number": "2301", "year": 2012,
             "date": date(2012, 6, 2), "ementa": "Cria o conselho municipal de zoologia.",
             "url": None},
            {"native_id": "1600", "jurisdiction_code": JUAZEIRO, "type_raw": "Decreto",
             "type_normalized": "decreto", "number": "300", "year": 2020,
             "date": date(2020, 1, 2), "ementa": "Regulamenta a feira de paleontologia.",
             "url": None},
        ], utcnow())
    assert pending_changes(store) >= 2
    assert ids(find(built, "zoologia")) == []  # not yet indexed
    report = refresh_index(store)
    assert report.norms == 2 and report.jurisdictions == {JUAZEIRO}
    assert ids(find(built, "zoologia")) == [built.norms["bare"]]
    assert ids(find(built, "cultura")) == []
    assert len(ids(find(built, "paleontologia"))) == 1
    # An extraction lands: its text becomes searchable, the counts follow.
    store.save_extraction(built.versions["failed"], {
        "status": "extracted", "method": "ocr", "backend": "tesseract", "confidence": 0.7,
        "pages": 1, "chars": 30, "error": None, "extracted_at": utcnow()},
        [{"number": 1, "method": "ocr", "confidence": 0.7, "text": "coleta de recicláveis"}])
    refresh_index(store)
    assert ids(find(built, "reciclaveis")) == [built.norms["failed"]]
    facets = dict(find(built, "", jurisdictions=(JUAZEIRO,)).facets["text"])
    assert facets == {"yes": 5, "no": 2}
    with store.engine.connect() as conn:
        place = conn.exec_driver_sql(
            "SELECT norms, failed, extracted FROM search_place WHERE jurisdiction_code = "
            f"{JUAZEIRO}").one()
    assert tuple(place) == (7, 0, 6)


def test_a_change_made_during_a_refresh_is_not_lost(corpus):
    built = build_explorer_corpus(corpus)
    store = corpus.store
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    with store.transaction() as conn:
        store.upsert_norms(conn, sapl, [
            {"native_id": f"x{i}", "jurisdiction_code": JUAZEIRO, "type_raw": "Lei",
             "type_normalized": "lei", "number": str(i), "year": 2021, "date": None,
             "ementa": f"Lei avulsa {i}", "url": None} for i in range(5)], utcnow())
    written = []

    def write_meanwhile(done: int, total: int) -> None:
        if not written:  # after the first batch, a writer changes a norm already indexed
            with store.transaction() as conn:
                store.upsert_norms(conn, sapl, [
                    {"native_id": "x0", "jurisdiction_code": JUAZEIRO, "type_raw": "Lei",
                     "type_normalized": "lei", "number": "0", "year": 2021, "date": None,
                     "ementa": "Lei avulsa sobre hipopótamos", "url": None}], utcnow())
            written.append(True)

    refresh_index(store, batch=2, on_progress=write_meanwhile)
    refresh_index(store)
    assert pending_changes(store) == 0
    assert len(ids(find(built, "hipopotamos"))) == 1


def test_search_command_matches_the_api(corpus, backend):
    build_explorer_corpus(corpus, refresh=False)  # the command brings the index up to date
    result = run_cli("search", "moto-táxi", "--uf", "BA", corpus=corpus.folder)
    assert result.returncode == 0, result.stderr
    assert "2199" in result.stdout and "Juazeiro (BA)" in result.stdout
    assert "Petrolina" not in result.stdout
    assert "4 norms match" in result.stdout
    as_json = run_cli("search", "moto-táxi", "--uf", "BA", "--json", corpus=corpus.folder,
                      check=True)
    data = json.loads(as_json.stdout)
    assert data["total"] == 4 and data["results"][0]["number"] == "2199"
    assert "<mark>" in data["results"][0]["ementa_html"]
    lines = run_cli("search", "mototáxi", "--jsonl", corpus=corpus.folder, check=True)
    assert len(lines.stdout.splitlines()) == 5
    table = run_cli("search", "mototáxi", "--csv", "--uf", "PE", corpus=corpus.folder,
                    check=True)
    assert table.stdout.splitlines()[0].startswith("norm_id,jurisdiction_code,uf")
    assert len(table.stdout.splitlines()) == 2
    bad = run_cli("search", '"moto', corpus=corpus.folder)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        'error: a quote is not closed: put phrases between two " marks']
    assert "up to date" in run_cli("index", corpus=corpus.folder, check=True).stdout
    rebuilt = run_cli("index", "--rebuild", corpus=corpus.folder, check=True)
    assert "Indexed 8 norms" in rebuilt.stdout


WEIRD = ['ˆ', '"ˆ"', '""', '" "', '"*"', 'NEAR(moto taxi)', 'moto:taxi', '{ementa}: moto',
         '^moto', 'moto + taxi', 'a-', '-', '--moto', "o'brien", 'a\\b', "'", 'moto\x00taxi',
         '🙂', '日本', 'x' * 60, 'ª', '1º', 'AND OR NOT', 'moto AND AND taxi', 'NOT NOT moto',
         ')(', '((moto))', '"moto"*', 'tax**', 'ta-*', 'São-Paulo', '-moto-taxi',
         'moto -(taxi OR entrega)', '%', '_', 'uf_ba', 'jur_2918407', 'e', 'ou']


def test_odd_queries_answer_or_explain_never_fail(explorer):
    for q in WEIRD:
        try:
            result = find(explorer, q)
        except QueryError as e:
            assert str(e), q
        else:
            assert result.total >= 0, q
    # Filter tags are never reachable from typed words.
    assert find(explorer, "uf_ba").total == 0 and find(explorer, "jur_2918407").total == 0
