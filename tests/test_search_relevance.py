"""The labelled relevance set (tests/relevance_fixtures.py): its corpus and judgments hold
together, the graph that authority needs is built, the measures are right on hand-computed
rankings, and the engine keeps the nDCG@10 it was measured at."""

from __future__ import annotations

import math
import os
import re
import sqlite3
import statistics
from collections import Counter

import pytest
from sqlalchemy import select

from locleg.corpus import init_corpus
from locleg.jurisdictions import fold
from locleg.search import SearchRequest, search, textindex
from locleg.search.query import parse, with_joined_words
from locleg.store.schema import citation, norm
from tests.conftest import BACKENDS
from tests.real_fixtures import (
    GROUPS,
    build_real_corpus,
    real_norms,
    real_queries,
    reciprocal_rank,
)
from tests.relevance_fixtures import (
    KINDS,
    PLACES,
    QUERIES,
    build_norms,
    build_relevance_corpus,
    dcg,
    engine_ranking,
    judgments,
    ndcg_at,
    success_at_1,
)

# Mean nDCG@10 of locleg.search.search over QUERIES, as bench/search_relevance.py measured
# it on 2026-12-04 (issue 22: words side by side optional with a coordination reward,
# synonyms; before it, issue 10's Tantivy index measured 0.949, and the engine before that,
# commit 8cd1b48, 0.808 on SQLite and 0.828 on PostgreSQL). The same index serves both
# backends. Raise these when a better ranking lands, so that it cannot silently fall back;
# MARGIN absorbs ties broken differently, not a regression.
NDCG_FLOOR = {"sqlite": 0.967, "postgresql": 0.967}
MARGIN = 0.02

NORMS = build_norms()
BY_NAME = {n.name: n for n in NORMS}


@pytest.fixture(scope="module", params=BACKENDS)
def relevance(request, tmp_path_factory):
    """The relevance corpus, built once per backend for this module."""
    url = None
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_server").create_database(
            f"relevance_{os.getpid()}")
    corpus = init_corpus(tmp_path_factory.mktemp("relevance") / "corpus", url)
    built = build_relevance_corpus(corpus)
    yield request.param, corpus, built
    corpus.close()


# -- the set itself, without a database --------------------------------------------------


def test_the_corpus_has_the_shape_of_real_municipal_corpora():
    assert NORMS == build_norms(), "generated deterministically"
    assert 500 <= len(NORMS) <= 2000
    places = Counter(n.place.slug for n in NORMS)
    assert set(places) == {p.slug for p in PLACES}
    assert len({p.uf for p in PLACES}) == 3
    jua = [n for n in NORMS if n.place.slug == "jua"]
    amendments = [n for n in jua if "ctm.amendment" in n.topics]
    # The trap of known-item search: amendments that name the code in their ementas.
    assert len(amendments) == 20
    assert sum("Código Tributário" in n.ementa for n in amendments) >= 10
    # The spellings of one service, and inflected forms that only stemming reconciles.
    ementas = " ".join(n.ementa for n in NORMS)
    for form in ("moto-táxi", "mototáxi", "MOTO TÁXI", "Servidores", "servidor ",
                 "débitos tributários", "R$ "):
        assert form in ementas, form
    assert all(n.text.startswith(("LEI", "DECRETO", "PORTARIA", "RESOLUÇÃO", "EMENDA"))
               for n in NORMS if n.text)


def test_the_queries_cover_every_class_with_and_without_filters():
    assert len(QUERIES) >= 50
    kinds = Counter(q.kind for q in QUERIES)
    assert set(kinds) == set(KINDS) and min(kinds.values()) >= 5
    assert 10 <= sum(q.filtered for q in QUERIES) <= len(QUERIES) - 10
    assert any(q.uf for q in QUERIES) and any(q.place for q in QUERIES)
    assert len({(q.q, q.uf, q.place) for q in QUERIES}) == len(QUERIES), "no query twice"
    for q in ("código tributário", "estatuto dos servidores", "estatuto do servidor",
              "plano diretor", "lei orgânica", "código de posturas", "iluminação pública",
              "transporte por moto-táxi", "crédito suplementar saúde", '"utilidade pública"',
              "codigo tributario"):
        assert q in {query.q for query in QUERIES}, q


def test_every_judgment_names_a_norm_of_the_corpus_within_the_filter():
    topics = set().union(*(n.topics for n in NORMS))
    for query in QUERIES:
        assert query.intent.strip(), query.q
        judged = judgments(query, NORMS)
        assert judged, f"{query.q!r} judges no norm"
        assert max(judged.values()) >= 2, query.q
        assert set(judged.values()) <= {1, 2, 3}
        for name in judged:
            assert name in BY_NAME
            assert query.in_scope(BY_NAME[name].place), (query.q, name)
        for topic, grade in query.rules:
            # A rule whose topic no norm has is a typo that would silently judge nothing.
            assert topic.rpartition(":")[2] in topics, (query.q, topic)
            assert grade in (1, 2, 3)


def test_a_known_item_query_grades_the_norm_meant_above_its_amendments():
    judged = judgments(next(q for q in QUERIES if q.q == "código tributário" and
                            q.place == "jua"), NORMS)
    assert judged["jua.ctm"] == 3 and judged["jua.ctm.old"] == 2
    assert {judged[f"jua.ctm.alt{i:02d}"] for i in range(1, 21)} == {1}
    assert not any(name.startswith("fsa.") for name in judged)
    # Caruaru's statute under its old name is still the statute meant.
    judged = judgments(next(q for q in QUERIES if q.q == "estatuto do servidor" and
                            not q.filtered), NORMS)
    assert judged["car.estatuto"] == 3 and judged["ba.estatuto"] == 3
    assert "jua.reajuste01" not in judged


# -- the measures ---------------------------------------------------------------------------


def test_dcg_by_hand():
    assert dcg([]) == 0
    assert dcg([3]) == 7
    # 7/log2(2) + 3/log2(3) + 0 + 1/log2(5)
    assert dcg([3, 2, 0, 1]) == pytest.approx(7 + 3 / math.log2(3) + 1 / math.log2(5))


def test_ndcg_by_hand():
    judged = {"a": 3, "b": 2, "c": 1}
    assert ndcg_at(["a", "b", "c"], judged) == pytest.approx(1.0)
    assert ndcg_at([], judged) == 0.0
    assert ndcg_at(["x", "y"], judged) == 0.0
    ideal = 7 + 3 / math.log2(3) + 1 / 2
    # Reversed: 1/1 + 3/log2(3) + 7/2.
    assert ndcg_at(["c", "b", "a"], judged) == pytest.approx((1 + 3 / math.log2(3) + 3.5)
                                                            / ideal)
    # A judged norm never retrieved still counts in the ideal.
    assert ndcg_at(["a"], judged) == pytest.approx(7 / ideal)
    # Only the first k count, in the ranking and in the ideal.
    assert ndcg_at(["x", "a"], judged, k=1) == 0.0
    assert ndcg_at(["b", "a"], judged, k=1) == pytest.approx(3 / 7)
    assert ndcg_at(["a"], {}) == 0.0


def test_success_at_1_by_hand():
    judged = {"a": 3, "b": 2}
    assert success_at_1(["a", "b"], judged) == 1.0
    assert success_at_1(["b", "a"], judged) == 0.0
    assert success_at_1(["x", "a"], judged) == 0.0
    assert success_at_1([], judged) == 0.0
    # When nothing is graded 3, the first of the highest grade is a success.
    assert success_at_1(["b"], {"b": 2, "c": 2, "d": 1}) == 1.0
    assert success_at_1(["d"], {"b": 2, "c": 2, "d": 1}) == 0.0


# -- in a store: every judged norm exists, the graph exists, the floor holds -----------------


def test_every_norm_is_stored_as_a_norm_of_its_own(relevance):
    _, corpus, built = relevance
    assert set(built.norms) == set(BY_NAME)
    assert len(set(built.norms.values())) == len(NORMS), "no two fixture norms merged"
    with corpus.store.engine.connect() as conn:
        live = set(conn.scalars(select(norm.c.id).where(norm.c.merged_into.is_(None))))
    assert set(built.norms.values()) <= live


def test_the_citation_graph_is_built(relevance):
    _, corpus, built = relevance
    ids = built.norms
    with corpus.store.engine.connect() as conn:
        edges = conn.execute(select(citation.c.norm_id, citation.c.target_norm_id,
                                    citation.c.kind)
                             .where(citation.c.target_norm_id.is_not(None))).all()
        cited_by = dict(conn.execute(select(norm.c.id, norm.c.cited_by)).all())
        flags = set(conn.scalars(select(citation.c.flags).where(citation.c.flags.is_not(None))))
        status = dict(conn.execute(select(norm.c.id, norm.c.status)).all())
    citing = {}
    for source, target, _ in edges:
        citing.setdefault(target, set()).add(source)
    # The Código Tributário is cited by every one of its 20 amendments.
    amendments = {ids[f"jua.ctm.alt{i:02d}"] for i in range(1, 21)}
    assert amendments <= citing[ids["jua.ctm"]]
    assert cited_by[ids["jua.ctm"]] >= 20 + 2  # and by its regulating decrees
    assert status[ids["jua.ctm"]] == "altered"
    # It revoked the code before it; a decree regulates the moto-táxi law; budget decrees
    # cite their budget law.
    assert status[ids["jua.ctm.old"]] == "revoked"
    assert (ids["jua.moto.reg"], ids["jua.moto"], "regulates") in set(edges)
    assert cited_by[ids["jua.loa2020"]] >= 1
    for place in ("fsa", "pet", "car", "moc", "sob"):
        assert ids[f"{place}.estatuto"] in {t for _, t, _ in edges}
    # No norm cites one signed after it, none is doubted: the graph is as real ones are.
    assert flags <= {"", "known_law"}


def test_the_engine_keeps_its_measured_ndcg(relevance):
    backend, corpus, built = relevance
    names = {norm_id: name for name, norm_id in built.norms.items()}
    figures = [ndcg_at([names[i] for i in engine_ranking(corpus.store, q)],
                       judgments(q, NORMS)) for q in QUERIES]
    mean = statistics.mean(figures)
    assert mean >= NDCG_FLOOR[backend] - MARGIN, \
        f"mean nDCG@10 on {backend} fell to {mean:.3f} (floor {NDCG_FLOOR[backend]})"


# -- the real set: colloquial queries over real norms (issue 22) ------------------------------

# Targets of issue 22 on the real set, against a plain SQLite FTS5 bm25 over the same texts
# with the query's words OR-joined (bench/search_relevance.py measures both in one run).
COLLOQUIAL_MRR_OVER_BASELINE = 1.3
COLLOQUIAL_FOUND_IN_TOP_10 = 0.85


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """The real norms stored, enriched and indexed once for this module (SQLite: the index
    and its ranking are the same on both backends)."""
    corpus = init_corpus(tmp_path_factory.mktemp("real") / "corpus")
    built = build_real_corpus(corpus)
    yield corpus, built
    corpus.close()


def test_the_real_set_is_real_labelled_and_holds_together():
    norms = {n.id: n for n in real_norms()}
    assert len(norms) == len(real_norms()) >= 6000
    assert Counter(n.place for n in norms.values())["Feira de Santana"] >= 6000
    queries = real_queries()
    groups = Counter(q.group for q in queries)
    assert groups["colloquial"] >= 60 and groups["known"] >= 10
    assert len({q.q for q in queries}) == len(queries), "no query twice"
    for query in queries:
        assert query.meant, query.q
        assert set(query.judged) <= set(norms), query.q
        assert set(query.judged.values()) <= {1, 2}
    # Written without the ementas' wording: most colloquial queries share at most half of
    # their words with the ementa of any norm they mean.
    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"\w+", fold(text)) if len(w) > 3}
    copied = [q.q for q in queries if q.group == "colloquial" and any(
        len(words(q.q) & words(norms[i].ementa)) > len(words(q.q)) / 2 for i in q.meant)]
    assert len(copied) <= len(queries) // 5, copied


def test_the_held_out_queries_are_a_set_of_their_own_and_judge_real_norms():
    """The held-out group measures the synonym list on queries it was not written for: it is
    reported beside the colloquial set (bench/search_relevance.py), never a tuning target, so
    only its shape is asserted here."""
    norms = {n.id for n in real_norms()}
    held_out = [q for q in real_queries() if q.group == "held_out"]
    assert "held_out" in GROUPS, "the bench reports every group of GROUPS"
    assert len(held_out) >= 30
    others = {q.q for q in real_queries() if q.group != "held_out"}
    for query in held_out:
        assert query.note.strip(), query.q
        assert query.q not in others, query.q
        assert query.meant, f"{query.q!r} means no norm"
        assert set(query.judged) <= norms, set(query.judged) - norms
        assert set(query.judged.values()) <= {1, 2}, query.q
    # Written from the topic before the corpus was searched: few share most of their words
    # with the ementa of a norm they mean (4 of 36 when written: "merenda escolar", ...).
    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"\w+", fold(text)) if len(w) > 3}
    ementas = {n.id: words(n.ementa) for n in real_norms()}
    copied = [q.q for q in held_out if any(
        len(words(q.q) & ementas[i]) > len(words(q.q)) / 2 for i in q.meant)]
    assert len(copied) <= len(held_out) // 5, copied


@pytest.mark.parametrize("group", ["fresh", "unseen", "unseen2", "dev", "dev2", "unseen3",
                                   "unseen4", "unseen5", "unseen6"])
def test_the_blind_groups_are_short_colloquial_and_judge_real_norms(group):
    """The fresh and unseen groups are issue 22's judges of whether search generalises:
    written on other topics, before the corpus was read, by someone who had seen no query of
    another group, the synonym list nor the query code (SOURCES.md; the unseen ones were
    written after the list's 2026-12-06 part, whose author had seen no query either).
    Reported by the bench, never a tuning target: only their shape is asserted. `dev` and
    `dev2` were written the same way (2026-12-06, SOURCES.md) to be tuned on; `unseen3` and
    `unseen4` were measured blind once, then looked into (SOURCES.md)."""
    norms = {n.id for n in real_norms()}
    blind = [q for q in real_queries() if q.group == group]
    assert group in GROUPS, "the bench reports every group of GROUPS"
    assert len(blind) >= 30
    others = {fold(q.q) for q in real_queries() if q.group != group}
    for query in blind:
        assert query.note.strip(), query.q
        assert fold(query.q) not in others, query.q
        assert 1 <= len(query.q.split()) <= 7, f"{query.q!r}: typed, not an ementa"
        assert query.meant, f"{query.q!r} means no norm"
        assert set(query.judged) <= norms, set(query.judged) - norms
        assert set(query.judged.values()) <= {1, 2}, query.q
    # Many municipal topics are named by the ementa's own words ("conselho do idoso",
    # "trabalho infantil"): 21 of the 67 fresh queries share most of their words with a norm
    # they mean, 30 of the 75 unseen ones, 13 of the 38 of unseen2; most need the bridge
    # between how people speak and how laws are written.
    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"\w+", fold(text)) if len(w) > 3}
    ementas = {n.id: words(n.ementa) for n in real_norms()}
    copied = [q.q for q in blind if any(
        len(words(q.q) & ementas[i]) > len(words(q.q)) / 2 for i in q.meant)]
    assert len(copied) < len(blind) / 2, copied


def _real_figures(corpus, built, group: str) -> tuple[float, float, float]:
    """(engine MRR, share of queries with a meant norm in the top 10, baseline MRR)."""
    names = {norm_id: name for name, norm_id in built.norms.items()}
    baseline = sqlite3.connect(":memory:")
    baseline.execute("CREATE VIRTUAL TABLE fts USING fts5(ementa, body, "
                     "tokenize = 'unicode61 remove_diacritics 2')")
    baseline.executemany("INSERT INTO fts (rowid, ementa, body) VALUES (?, ?, ?)",
                         [(built.norms[n.id], n.ementa, n.printed) for n in real_norms()])
    mine, found, theirs = [], [], []
    for query in (q for q in real_queries() if q.group == group):
        request = SearchRequest.from_params({"q": [query.q], "limit": ["10"]})
        ranked = [names[h.norm_id] for h in search(corpus.store, request).hits]
        mine.append(reciprocal_rank(ranked, query.meant))
        found.append(bool(query.meant & set(ranked)))
        match = " OR ".join(f'"{w}"' for w in re.findall(r"\w+", query.q))
        plain = [names[r[0]] for r in baseline.execute(
            "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 10", (match,))]
        theirs.append(reciprocal_rank(plain, query.meant))
    return statistics.mean(mine), statistics.mean(found), statistics.mean(theirs)


# The groups the ranking's weights were chosen on that meet the targets, each held
# there (unseen3 and unseen4, tuned on too, do not: 1.28 x and 0.99 x, docs/search.md). The
# blind groups are reported by the bench, not asserted: never a target.
@pytest.mark.parametrize("group", ["colloquial", "held_out", "dev", "dev2"])
def test_colloquial_queries_find_the_law_meant_better_than_plain_or_joined_bm25(real, group):
    corpus, built = real
    mrr, found, baseline = _real_figures(corpus, built, group)
    assert found >= COLLOQUIAL_FOUND_IN_TOP_10, f"meant law in the top 10 for {found:.0%}"
    assert mrr >= COLLOQUIAL_MRR_OVER_BASELINE * baseline, \
        f"MRR {mrr:.3f} against {baseline:.3f} for OR-joined FTS5 bm25"


def test_counting_and_faceting_match_the_norms_the_ranking_matches(real):
    """The count, the facets and the pages by date ask for the words without what only
    ranks them (textindex.compile_words, not scoring): over every query of the real set,
    with its synonyms, joined words and short stems, the same norms match."""
    corpus, _ = real
    searcher = textindex.for_store(corpus.store).searcher()
    everything = searcher.num_docs
    compared = 0
    for query in real_queries():
        node = with_joined_words(parse(query.q))
        ranked = textindex.compile_words(node)
        if ranked is None:
            continue
        unranked = textindex.compile_words(node, scoring=False)
        held = [set(searcher.fast_field_values("norm_id", [a for _, a in searcher.search(
            q, everything, count=False).hits])) for q in (ranked, unranked)]
        assert held[0] == held[1], query.q
        compared += 1
    assert compared > 500


def test_a_short_ementa_holding_one_common_word_does_not_outrank_the_law_holding_more(real):
    """With the ementa weighed 3 the sindicato of street vendors, declared of public utility,
    came first for "camelô vendendo na rua", and a committee of school elections above the
    law on school uniforms: the ementa's BM25 of one word beat the norm holding more of the
    words (search/textindex.py, BOOST_FIELDS)."""
    corpus, built = real
    names = {norm_id: name for name, norm_id in built.norms.items()}

    def ranked(q: str) -> list[str]:
        request = SearchRequest.from_params({"q": [q], "limit": ["10"]})
        return [names[h.norm_id] for h in search(corpus.store, request).hits]

    camelos = ranked("camelô vendendo na rua")
    assert camelos[0] == "fsa.lp.41.1992", camelos[:3]  # apreensão de mercadorias de camelôs
    assert camelos.index("fsa.lei.1488.1991") > 0  # the sindicato: utilidade pública
    uniforms = ranked("uniforme da escola municipal")
    assert "fsa.lei.1690.1993" in uniforms[:2], uniforms[:3]  # fardamento das escolas
    if "fsa.dec.8959.2013" in uniforms:  # the commission for electing school directors
        assert uniforms.index("fsa.dec.8959.2013") > uniforms.index("fsa.lei.1690.1993")


def test_a_law_holding_most_of_the_words_in_its_text_outranks_one_word_in_a_short_ementa(
        real):
    """"cachorro solto na rua recolhimento": with the ementa counted four times over (its
    BM25 in the text, x 2 in the ementa, x 1.5 in the heading, 6 points of reward), the
    recolhimento of an entity declared of public utility and of used tyres came first and
    the zoonoses laws, whose texts hold cães, soltos, rua and recolhimento between them, were
    not in the first 30 (search/textindex.py, COORDINATION)."""
    corpus, built = real
    names = {norm_id: name for name, norm_id in built.norms.items()}
    request = SearchRequest.from_params({"q": ["cachorro solto na rua recolhimento"],
                                         "limit": ["10"]})
    ranked = [names[h.norm_id] for h in search(corpus.store, request).hits]
    assert "fsa.lp.190.2006" in ranked[:3], ranked[:3]  # control of zoonoses
    if "fsa.lei.2086.1999" in ranked:  # recolhimento de entidade: after it
        assert ranked.index("fsa.lei.2086.1999") > ranked.index("fsa.lp.190.2006")


def test_known_item_and_number_queries_put_the_norm_first(real):
    corpus, built = real
    mrr, _, _ = _real_figures(corpus, built, "known")
    assert mrr == 1.0, f"known-item MRR {mrr:.3f}"
