"""The dense stage of search (search/dense.py) over real municipal norms, with the real model.

The norms are 264 of Feira de Santana (BA) and Maricá (RJ) (tests/data/search_dense/,
SOURCES.md there). Their vectors are written beside the Tantivy index, read back, refilled
when lost, replaced when a norm's text changes and kept when only its status does; fused
with BM25, they bring a law that a citizen's words miss ("bicho bravo" for the law on
"cães ferozes nas vias públicas") into the first ten results, within the filters;
off, search is BM25's alone.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from sqlalchemy import update

from locleg.config import read_settings, set_search_dense
from locleg.corpus import init_corpus
from locleg.search import SearchRequest, dense, refresh_index, search
from locleg.store.schema import norm
from tests.dense_fixtures import load_norms, printed, read_norms

DOGS = "fsa.lei.2082.1999"  # ESTABELECE NORMA PARA CIRCULAÇÃO DE CÃES FEROZES NAS VIAS …
MARICA = 3302700


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    corpus = init_corpus(tmp_path_factory.mktemp("dense") / "corpus")
    set_search_dense(corpus.folder, True)
    ids = load_norms(corpus, read_norms())
    yield corpus, ids
    corpus.close()


def _ids(corpus, q: str, use_dense: bool | None = None, **params) -> list[int]:
    request = SearchRequest.from_params({"q": [q], "limit": ["10"],
                                         **{k: [str(v)] for k, v in params.items()}})
    return [h.norm_id for h in search(corpus.store, request, use_dense=use_dense).hits]


def test_every_norm_gets_a_vector_written_beside_the_index_and_read_back(real):
    corpus, ids = real
    folder = dense.folder_of(corpus.store)
    assert folder.parent.name == "search-index"
    assert any(p.name.startswith("seg-") for p in folder.iterdir())
    again = dense.Vectors(folder)  # another handle reads the files, not this one's memory
    assert again.ids() == set(ids.values())
    dogs = ids[DOGS]
    norms = {n["id"]: n for n in read_norms()}

    expected = dense.embed([dense.passage(norms[DOGS]["ementa"], printed(norms[DOGS]))])[0]
    stored = next(s.vectors[s.ids == dogs][0] for s in again.segments()
                  if dogs in s.ids[s.alive])
    assert np.dot(stored, expected) > 0.999  # float16 on disk


def test_the_paraphrase_finds_the_law_that_bm25_alone_misses(real):
    corpus, ids = real
    # Neither word is in the law ("cães ferozes"), nor a synonym of one of its words.
    query = "bicho bravo"
    assert ids[DOGS] not in _ids(corpus, query, use_dense=False)
    assert ids[DOGS] in _ids(corpus, query, use_dense=True)
    assert ids[DOGS] in _ids(corpus, query)  # the corpus's setting: on


def test_filters_hold_for_the_dense_stage_too(real):
    corpus, ids = real
    place = {v: k for k, v in ids.items()}
    marica = _ids(corpus, "cachorro bravo solto na rua", use_dense=True, j=MARICA)
    assert marica and all(place[i].startswith("mar.") for i in marica)
    in_rj = _ids(corpus, "cachorro bravo solto na rua", use_dense=True, uf="RJ")
    assert set(in_rj) == set(marica)
    assert _ids(corpus, "cachorro bravo solto na rua", use_dense=True, uf="SP") == []
    laws = _ids(corpus, "cachorro bravo solto na rua", use_dense=True, type="decreto")
    assert ids[DOGS] not in laws
    assert all(".dec." in place[i] for i in laws)


def test_exact_syntax_and_the_off_switch_leave_bm25_alone(real):
    corpus, _ = real
    for q in ('"cachorro bravo"', "cachorro AND rua", "cães +ferozes"):
        assert _ids(corpus, q, use_dense=True) == _ids(corpus, q, use_dense=False)
    set_search_dense(corpus.folder, False)
    try:
        assert not read_settings(corpus.folder).search_dense
        query = "cachorro bravo solto na rua"
        assert _ids(corpus, query) == _ids(corpus, query, use_dense=False)
    finally:
        set_search_dense(corpus.folder, True)


def test_lost_vectors_are_filled_again_and_in_the_background(tmp_path):
    corpus = init_corpus(tmp_path / "corpus")
    set_search_dense(corpus.folder, True)
    few = [n for n in read_norms() if n["id"] == DOGS or n["jurisdiction"] == MARICA]
    ids = load_norms(corpus, few)
    folder = dense.folder_of(corpus.store)
    assert dense.vectors_of(corpus.store).ids() == set(ids.values())
    shutil.rmtree(folder)
    assert dense.vectors_of(corpus.store).ids() == set()
    # A refresh with no time for the stage leaves the norms for a later one.
    first = refresh_index(corpus.store, dense_seconds=0)
    assert first.dense.embedded == 0 and first.dense.missing == len(ids)
    second = refresh_index(corpus.store, dense_seconds=None)
    assert second.dense.embedded == len(ids)
    assert dense.vectors_of(corpus.store).ids() == set(ids.values())
    assert ids[DOGS] in _ids(corpus, "cachorro bravo solto na rua")[:3]
    # Another version of the stage's files is built again, never read.
    (folder / dense.VERSION_FILE).write_text('{"model": "another", "version": 0}')
    assert dense.vectors_of(corpus.store).ids() == set()
    assert refresh_index(corpus.store, dense_seconds=None).dense.embedded == len(ids)
    corpus.close()


def test_a_changed_norm_gets_a_new_vector_and_a_new_status_keeps_it(tmp_path):
    corpus = init_corpus(tmp_path / "corpus")
    set_search_dense(corpus.folder, True)
    few = [n for n in read_norms() if n["id"] == DOGS or n["jurisdiction"] == MARICA]
    ids = load_norms(corpus, few)
    vectors = dense.vectors_of(corpus.store)
    before = vectors.digests(list(ids.values()))
    other = next(i for name, i in ids.items() if name != DOGS)
    with corpus.store.engine.begin() as conn:
        conn.execute(update(norm).where(norm.c.id == ids[DOGS])
                     .values(ementa="Proíbe a queima de fogos de artifício no Município."))
        conn.execute(update(norm).where(norm.c.id == other).values(status="revoked"))
    report = refresh_index(corpus.store, dense_seconds=None)
    assert report.norms >= 2
    assert report.dense.embedded == 1  # the status alone does not change what is embedded
    after = vectors.digests(list(ids.values()))
    assert after[other] == before[other]
    assert after[ids[DOGS]] != before[ids[DOGS]]
    assert {i for i in after if after[i] != before[i]} == {ids[DOGS]}
    assert ids[DOGS] in _ids(corpus, "soltar rojão", use_dense=True)[:3]
    # Off, a refresh that re-indexes drops the vectors (they would go stale unseen).
    set_search_dense(corpus.folder, False)
    with corpus.store.engine.begin() as conn:
        conn.execute(update(norm).where(norm.c.id == other).values(status="altered"))
    refresh_index(corpus.store)
    assert not dense.folder_of(corpus.store).exists()
    corpus.close()


def test_segments_merge_and_the_newest_row_of_a_norm_wins(tmp_path):
    folder = tmp_path / "dense"
    vectors = np.eye(dense.DIM, dtype=np.float32)[:4]
    with dense._Writing(folder) as w:
        w.add([1, 2, 3], [MARICA] * 3, [11, 12, 13], vectors[:3])
        w.add([2], [MARICA], [22], vectors[3:4])  # norm 2 again: its new vector
        w.add([3], [0], [0], None)  # norm 3 removed
    held = dense.Vectors(folder)
    assert held.ids() == {1, 2}
    assert held.digests([1, 2, 3]) == {1: 11, 2: 22}
    assert [i for i, _ in held.nearest(vectors[3], 5)] == [2, 1]
    with dense._Writing(folder) as w:
        for i in range(dense.MAX_SEGMENTS):
            w.add([10 + i], [MARICA], [i], vectors[:1])
    assert len(dense._segments(folder)) < dense.MAX_SEGMENTS
    assert dense.Vectors(folder).ids() == {1, 2} | set(range(10, 10 + dense.MAX_SEGMENTS))
