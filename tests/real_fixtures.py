"""The real relevance set (tests/data/search_real/): real norms and the queries people type.

6,563 norms of Feira de Santana (BA) and Maricá (RJ) from public snapshots (SOURCES.md
there; bench/search_real_corpus.py rebuilds them), and graded queries: `colloquial` ones
written as a citizen or a journalist types them ("lei que proíbe soltar fogos", "meia
passagem de ônibus para estudante"), without the ementas' wording, and `known` ones that name
a norm ("lei 3404", "LC 11/2002"); `held_out` ones, colloquial too, written after the
synonym list by someone who had seen neither it nor the colloquial queries (an honest measure
of the list, never tuned on); `fresh` ones, colloquial too, written later still, from topics the
other groups leave out, by someone who had seen none of the queries, the list or the query
code, all committed before the corpus was read (issue 22's judge of whether search
generalises; never tuned on either); `unseen`, `unseen2`, `unseen5` and `unseen6` written
the same way later, the judges since; `dev` and `dev2` written the same way to tune the
ranking on, and `unseen3` and `unseen4` tuned on after one blind measure (SOURCES.md).
Grades: 2 the norm meant, 1 related.

build_real_corpus() stores the norms as a SAPL harvest and an extraction would (records,
then the text of each as the page of a PDF, printed title and ementa first as real texts
begin), enriches them (citations, so authority holds) and indexes them.
bench/search_relevance.py and tests/test_search_relevance.py measure over them.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path

from locleg.corpus import Corpus
from locleg.enrich.run import enrich
from locleg.enrich.types import normalize_type
from locleg.search.index import rebuild_index
from locleg.store import utcnow
from tests.explorer_fixtures import ExplorerCorpus, add_extracted_texts, norms_of

DATA = Path(__file__).parent / "data" / "search_real"
# held_out: colloquial queries written after the synonym list by someone who had not seen it
# (nor the colloquial queries): a measurement of the list on queries it was not written for.
# fresh: written after both, on other topics, by someone who had seen no query, the list nor
# the query code: whether search generalises, not whether it fits the queries it was tuned on.
GROUPS = ("colloquial", "held_out", "fresh", "unseen", "unseen2", "dev", "dev2", "unseen3",
          "unseen4", "unseen5", "unseen6", "known")
# The groups no choice of the search was made on (their figures are the honest ones).
NEVER_TUNED = ("unseen", "unseen2", "unseen5", "unseen6")
# The type as a record would print it, for the store's normalisation.
_TYPE_RAW = {"lei": "Lei", "lei.complementar": "Lei Complementar", "decreto": "Decreto",
             "decreto.legislativo": "Decreto Legislativo", "resolucao": "Resolução",
             "emenda.lei.organica": "Emenda à Lei Orgânica", "lei.organica": "Lei Orgânica",
             "regimento.interno": "Regimento Interno"}


@dataclass(frozen=True)
class RealNorm:
    id: str
    jurisdiction: int
    uf: str
    place: str
    type: str
    number: str
    year: int
    title: str
    ementa: str
    text: str
    source: str

    @property
    def printed(self) -> str:
        """The text as an extraction of the published norm gives it: title, ementa, body."""
        return f"{self.title}\n\n{self.ementa}\n\n{self.text}".strip()


@dataclass(frozen=True)
class RealQuery:
    q: str
    group: str
    note: str
    judged: dict[str, int]

    @property
    def meant(self) -> set[str]:
        return {name for name, grade in self.judged.items() if grade >= 2}


@lru_cache(maxsize=1)
def real_norms() -> tuple[RealNorm, ...]:
    with gzip.open(DATA / "norms.jsonl.gz", "rt", encoding="utf-8") as lines:
        return tuple(RealNorm(**json.loads(line)) for line in lines)


@lru_cache(maxsize=1)
def real_queries() -> tuple[RealQuery, ...]:
    with open(DATA / "queries.jsonl", encoding="utf-8") as lines:
        return tuple(RealQuery(**json.loads(line)) for line in lines if line.strip())


def build_real_corpus(corpus: Corpus) -> ExplorerCorpus:
    """The real norms in `corpus`, enriched and indexed; `.norms` maps each id to its norm."""
    ec = ExplorerCorpus(corpus)
    store = corpus.store
    norms = real_norms()
    seen = utcnow() - timedelta(hours=1)
    for code in sorted({n.jurisdiction for n in norms}):
        source = store.ensure_source(code, "sapl", f"https://sapl.{code}.example")
        mine = [n for n in norms if n.jurisdiction == code]
        with store.transaction() as conn:
            ec.records.update(store.upsert_records(conn, source, [{
                "native_id": n.id, "jurisdiction_code": code, "type_raw": _TYPE_RAW[n.type],
                "type_normalized": normalize_type(_TYPE_RAW[n.type]), "number": n.number,
                "year": n.year, "date": date(n.year, 1, 1), "ementa": n.ementa,
                "url": f"https://sapl.{code}.example/norma/{n.id}"} for n in mine], seen))
        add_extracted_texts(ec, {n.id: (f"https://sapl.example/media/{n.id}.pdf", n.printed)
                                 for n in mine})
    enrich(corpus, reread=False)
    rebuild_index(store)  # a bulk load: few, large segments
    ec.norms.update(norms_of(corpus, ec.records))
    return ec


def reciprocal_rank(ranked: list[str], meant: set[str]) -> float:
    """1 / the rank of the first norm meant among `ranked`; 0 when none is there."""
    for rank, name in enumerate(ranked, 1):
        if name in meant:
            return 1.0 / rank
    return 0.0
