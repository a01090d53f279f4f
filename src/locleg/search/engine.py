"""Running a search: ranking, counts and facets over every match, snippets, keyset pages.

Every search is answered by the corpus's Tantivy index (search/textindex.py), the same on
SQLite and PostgreSQL corpora: the words are stemmed for Portuguese, the matches ranked by
BM25 over every match, weighted by field (ementa, then the heading above the body, then the
body) and multiplied by authority (a norm that others cite, amend or regulate ranks above
those that merely mention it). The total is exact; facet counts are exact over every match,
or estimated from a fixed sample of the matches when more than FACETS_EXACT_UP_TO match (the
result says so). Pages are keyset pages: by score (relevance) or by date and id (newest
first), which reaches every match.

A search is three passes over the matches on two threads at once (Tantivy releases the GIL):
one ranks the page, whose norms are then read from the database (search/hits.py); the other
counts the matches, then their facets.

A query that names a norm ("lei 2199", "LC 45/2013": search/lookup.py) puts the norms it
names first, within the filters, whatever their text; the words' matches follow.

Every search runs within a Budget (search/budget.py: a deadline and a cancel switch enforced
inside the database), and its snippets come from a bounded window of each text shown
(search/snippets.py), so that no text, however long, makes a search cost more.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache

import tantivy
from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ..enrich.numbering import canonical_number
from ..enrich.status import ALTERED, NONE_KNOWN, REVOKED, REVOKED_IN_PART, SUSPENDED
from ..params import ibge_code_problem, method_problem, type_problem
from ..store import Store
from . import dense, textindex
from .attributes import attributes_for
from .budget import Budget
from .hits import Hit, jurisdiction_names, read_hits
from .lookup import Reference, named_norms, references
from .query import Node, QueryError, parse, quoted, with_joined_words
from .snippets import Highlighter

PAGE = 20
# Facets are counted over every match up to this many matches (5-10 ms of Tantivy's
# terms aggregation on two cores); beyond, over the norms of enough sample classes to count
# about as many, scaled up: an estimate, and the result says so.
FACETS_EXACT_UP_TO = 50_000
# The count and facets of each search run here, beside the thread that ranks its page.
_FACET_THREADS = ThreadPoolExecutor(max_workers=os.cpu_count() or 2,
                                    thread_name_prefix="locleg-facets")
# A relevance page reaches at most this deep (500 pages of 20); newest-first reaches all.
MAX_DEPTH = 10_000
UFS = ("AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA",
       "PB", "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO")
SORTS = ("relevance", "date")
STATUSES = (REVOKED, REVOKED_IN_PART, SUSPENDED, ALTERED, NONE_KNOWN)
FACETS = ("uf", "jurisdiction", "type", "year", "method", "text", "status")
# The named norms' scores: below any score of the words (lower is better), in the order named.
PINNED = -1e15
# The dense stage (search/dense.py), when on: BM25's first FUSE_DEPTH matches and the
# FUSE_DEPTH norms nearest the query's embedding are fused by a mix of their scores: each
# scores (1 - MIX) x its BM25 over the best BM25 plus MIX x its cosine scaled from the
# FUSE_DEPTH-th cosine (0) to the best (1). Of the nearest, only the first DENSE_ADDS may
# enter without BM25 matching them (so a search adds at most that many to its total).
# The fused norms come first, in that order (values FUSED + position: below any score of
# the words, above the named norms); BM25's other matches follow by score. Reciprocal rank
# fusion (RRF_K, DENSE_WEIGHT) was measured too: it lost the old set's first places
# (docs/search.md).
FUSED = -1e14
FUSE_DEPTH = 100
DENSE_ADDS = 20
FUSION = "mix"
MIX = 0.2
RRF_K = 60
DENSE_WEIGHT = 0.3
# Words that ask for exact matching (quotes, +, -, AND, OR, NOT): the dense stage stays out.
_EXACT_SYNTAX = re.compile(r'"|(?:^|\s)[+-]|\b(?:AND|OR|NOT)\b')
_SAFE_VALUE = re.compile(r"^[a-z][a-z0-9.]{0,63}$")
# A page token: r<score>_<id> (relevance) or d<yyyymmdd>_<id> (date), as `next` writes them.
_AFTER_SCORE = re.compile(r"r(-?[0-9][0-9.e+-]{0,30})_([0-9]{1,12})")
_AFTER_DAY = re.compile(r"d([0-9]{1,8})_([0-9]{1,12})")
_DIGITS = {name: re.compile(f"[0-9]{{1,{n}}}") for name, n in
           (("j", 7), ("year", 4), ("limit", 3))}
MIN_YEAR, MAX_YEAR = 1500, 2200


@dataclass(frozen=True)
class SearchRequest:
    """What a user asked for: words and filters. Build it with from_params to validate."""

    q: str = ""
    ufs: tuple[str, ...] = ()
    jurisdictions: tuple[int, ...] = ()
    types: tuple[str, ...] = ()
    year_from: int | None = None
    year_to: int | None = None
    methods: tuple[str, ...] = ()
    min_confidence: float | None = None
    has_text: bool | None = None
    numbers: tuple[str, ...] = ()  # canonical norm numbers (enrich/numbering)
    statuses: tuple[str, ...] = ()  # legal statuses, see STATUSES
    sort: str = "relevance"
    after: str | None = None
    limit: int = PAGE

    @classmethod
    def from_params(cls, params: dict[str, list[str]]) -> SearchRequest:
        """From query-string style parameters (each a list); bad values raise QueryError."""

        def one(name: str) -> str | None:
            values = [v.strip() for v in params.get(name, []) if v and v.strip()]
            return values[-1] if values else None

        def many(name: str) -> list[str]:
            return [v.strip() for v in params.get(name, []) if v and v.strip()]

        ufs = []
        for uf in many("uf"):
            if uf.upper() not in UFS:
                raise QueryError(
                    f"unknown UF {quoted(uf)}: use a two-letter code such as BA or SP")
            ufs.append(uf.upper())
        jurisdictions = []
        for code in many("j"):  # a code that names no jurisdiction would match nothing
            problem = ibge_code_problem(code)
            if problem:
                raise QueryError(problem)
            jurisdictions.append(int(code))
        for name, problem_of in (("type", type_problem), ("method", method_problem)):
            for value in many(name):  # likewise a type or method that no norm can have
                if problem := problem_of(value):
                    raise QueryError(problem)
        numbers = []
        for value in many("number"):
            number = canonical_number(value) if len(value) <= 32 else None
            if number is None or not any(c.isdigit() for c in number):
                raise QueryError(f"not a norm number: {quoted(value)} (e.g. 2199, 2.199 or 12-A)")
            numbers.append(number)
        for value in many("status"):
            if value not in STATUSES:
                raise QueryError(f"unknown status {quoted(value)}: use "
                                 + ", ".join(STATUSES))
        years = []
        for name in ("year_from", "year_to"):
            value = one(name)
            if value is None:
                years.append(None)
                continue
            if not _DIGITS["year"].fullmatch(value) or not MIN_YEAR <= int(value) <= MAX_YEAR:
                raise QueryError(f"{name.replace('_', ' ')} must be a year such as 2011")
            years.append(int(value))
        if years[0] and years[1] and years[0] > years[1]:
            raise QueryError("the year range is reversed: 'from' comes after 'to'")
        confidence = one("min_confidence")
        min_confidence = None
        if confidence is not None:
            try:
                min_confidence = float(confidence)
            except ValueError:
                raise QueryError(
                    "minimum confidence is a number between 0 and 1, e.g. 0.8") from None
            if not 0 <= min_confidence <= 1:
                raise QueryError("minimum confidence is a number between 0 and 1, e.g. 0.8")
            min_confidence = min_confidence or None
        has_text = {"yes": True, "no": False, None: None}.get(one("text"), "bad")
        if has_text == "bad":
            raise QueryError("text is 'yes' or 'no'")
        sort = one("sort") or "relevance"
        if sort not in SORTS:
            raise QueryError("sort is 'relevance' or 'date'")
        limit = one("limit")
        if limit is not None and (not _DIGITS["limit"].fullmatch(limit)
                                  or not 1 <= int(limit) <= 100):
            raise QueryError("limit is a number from 1 to 100")
        request = cls(q=one("q") or "", ufs=tuple(ufs), jurisdictions=tuple(jurisdictions),
                      types=tuple(many("type")), year_from=years[0], year_to=years[1],
                      methods=tuple(many("method")), min_confidence=min_confidence,
                      has_text=has_text, numbers=tuple(dict.fromkeys(numbers)),
                      statuses=tuple(dict.fromkeys(many("status"))), sort=sort,
                      after=one("after"),
                      limit=int(limit) if limit else PAGE)
        request.after_key()  # validates the page token early
        parse(request.q)  # validates the words early
        return request

    def to_params(self, **changes) -> list[tuple[str, str]]:
        """Query-string pairs for this request (page token dropped unless changed)."""
        r = replace(self, **changes) if changes else self
        after = r.after if "after" in changes else None
        pairs: list[tuple[str, str]] = []
        if r.q:
            pairs.append(("q", r.q))
        pairs += [("uf", uf) for uf in r.ufs]
        pairs += [("j", str(c)) for c in r.jurisdictions]
        pairs += [("type", t) for t in r.types]
        if r.year_from:
            pairs.append(("year_from", str(r.year_from)))
        if r.year_to:
            pairs.append(("year_to", str(r.year_to)))
        pairs += [("method", m) for m in r.methods]
        if r.min_confidence:
            pairs.append(("min_confidence", f"{r.min_confidence:g}"))
        if r.has_text is not None:
            pairs.append(("text", "yes" if r.has_text else "no"))
        pairs += [("number", n) for n in r.numbers]
        pairs += [("status", s) for s in r.statuses]
        if r.sort != "relevance":
            pairs.append(("sort", r.sort))
        if r.limit != PAGE:
            pairs.append(("limit", str(r.limit)))
        if after:
            pairs.append(("after", after))
        return pairs

    @property
    def has_filters(self) -> bool:
        return bool(self.ufs or self.jurisdictions or self.types or self.year_from
                    or self.year_to or self.methods or self.min_confidence
                    or self.has_text is not None or self.numbers or self.statuses)

    @property
    def is_empty(self) -> bool:
        return parse(self.q) is None and not self.has_filters

    def after_key(self) -> tuple[str, float, int] | None:
        """The page token as (kind, value, norm id); QueryError when it was tampered with."""
        if not self.after:
            return None
        damaged = QueryError("this page link is damaged: start the search again")
        by_date = self.sort == "date" or textindex.compile_words(
            with_joined_words(parse(self.q))) is None
        match = (_AFTER_DAY if by_date else _AFTER_SCORE).fullmatch(self.after)
        if not match:
            raise damaged
        try:
            value = float(match[1])
        except ValueError:
            raise damaged from None
        if not math.isfinite(value):
            raise damaged
        return ("d" if by_date else "r"), value, int(match[2])

    def filters(self, norm_ids: list[int] | None = None) -> list[tantivy.Query]:
        """The filters as index clauses (OR within one, AND between them)."""
        return textindex.filter_query(
            ufs=self.ufs, jurisdictions=self.jurisdictions, types=self.types,
            year_from=self.year_from, year_to=self.year_to, methods=self.methods,
            min_confidence=self.min_confidence, has_text=self.has_text,
            numbers=self.numbers, statuses=self.statuses, norm_ids=norm_ids)


@dataclass
class SearchResult:
    request: SearchRequest
    total: int = 0
    total_exact: bool = True
    # Facet counts were estimated from a sample of this many matches (None: exact, over
    # every match); the ranking always covers every match.
    within: int | None = None
    facets: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    next_after: str | None = None
    # No norm holds every word: these results hold all but one of the `relaxed` words.
    relaxed: int | None = None
    jurisdiction_names: dict[int, str] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)  # norms the query names
    named: list[int] = field(default_factory=list)  # the norms found for them, pinned first

    @property
    def facets_exact(self) -> bool:
        return self.within is None


class StopWordsOnly(QueryError):
    """A query whose every word is too common to narrow a search ("de", "a", "o")."""


@dataclass
class _Plan:
    """A request compiled for the index: `typed` as parsed, `node` what is matched (words
    typed side by side also tried joined), `words` its index query (None: no words, or stop
    words only), `query` words and filters together; `matching_words` and `matching` the
    same matches without what only ranks them (textindex.compile_words), for the passes
    that do not rank: the count, the facets, the pages by date, membership probes."""

    typed: Node | None
    node: Node | None
    words: tantivy.Query | None
    query: tantivy.Query
    request: SearchRequest
    matching_words: tantivy.Query | None

    @property
    def matching(self) -> tantivy.Query:
        return self.restricted()

    def restricted(self, *clauses: tantivy.Query) -> tantivy.Query:
        """The matches (unranked) within the filters and these clauses."""
        return textindex.combine(self.matching_words,
                                 self.request.filters() + list(clauses))

    def among(self, searcher: tantivy.Searcher, ids: list[int], words: bool) -> set[int]:
        """Which of these norms are indexed and meet the filters, and (`words`) hold the
        words: one term-set probe, however common the words or filters."""
        if not ids:
            return set()
        query = textindex.combine(self.matching_words if words else None,
                                  self.request.filters(norm_ids=ids))
        return set(_ids(searcher, searcher.search(query, len(ids), count=False)))


def _plan(request: SearchRequest) -> _Plan:
    typed = parse(request.q)
    node = with_joined_words(typed)
    words = textindex.compile_words(node)
    if typed is not None and words is None and not request.has_filters:
        raise StopWordsOnly(
            f"{quoted(request.q)} has only words too common to search for (such as de, a, "
            "o, do): add a word that says what the norm is about, or put the words in "
            "quotes for that exact phrase")
    return _Plan(typed, node, words, textindex.combine(words, request.filters()), request,
                 textindex.compile_words(node, scoring=False))


def _ids(searcher: tantivy.Searcher, result) -> list[int]:
    return [int(i) for i in searcher.fast_field_values(
        "norm_id", [address for _, address in result.hits])]


def search(store: Store, request: SearchRequest, budget: Budget | None = None,
           facets_exact_up_to: int = FACETS_EXACT_UP_TO, use_dense: bool | None = None
           ) -> SearchResult:
    """One page of results with facets and snippets; see the module doc for the bounds.

    `use_dense`: fuse the dense stage's nearest norms with BM25's (None: as the corpus's
    settings say, search/dense.py). The search stops at the budget's deadline (DEADLINE
    seconds by default) with SearchTooCostly, or on `budget.cancel()` with SearchCancelled."""
    result = SearchResult(request)
    if request.is_empty:
        return result
    budget = budget or Budget()
    plan = _plan(request)
    searcher = textindex.for_store(store).searcher()
    if use_dense is None:
        use_dense = dense.enabled(store)
    if use_dense:
        dense.load_model()
    with store.reading() as conn, budget.guard(conn):
        _search(store, conn, searcher, plan, budget, result, facets_exact_up_to, use_dense)
    return result


def _search(store: Store, conn: Connection, searcher: tantivy.Searcher, plan: _Plan,
            budget: Budget, result: SearchResult, facets_exact_up_to: int,
            use_dense: bool = False) -> None:
    request = plan.request
    after = request.after_key()
    by_date = request.sort == "date" or plan.words is None
    if plan.node is not None:
        result.references, result.named = named(conn, searcher, plan, request)
    wanted = request.limit + 1
    fusing = use_dense and not by_date and not _EXACT_SYNTAX.search(request.q)
    fused: list[int] = []

    def first_page(plan: _Plan) -> list[tuple[str, float, int]]:
        nonlocal fused
        if by_date:
            return _date_page(searcher, plan, after, wanted)
        if fusing:
            fused = _fused(store, searcher, plan, result.named)
        return _ranked_page(searcher, plan, after, wanted, result.named, fused)

    # Another thread counts the matches, then their facets, while this one ranks the page
    # and reads its norms: Tantivy lets go of the GIL, so on two cores the passes overlap
    # instead of adding up.
    counted: Future[int] = Future()
    facets = _FACET_THREADS.submit(_count_and_facets, searcher, plan, counted,
                                   facets_exact_up_to)
    page = first_page(plan)
    result.total = counted.result()
    if result.total == 0 and not result.named:
        words, typed = textindex.relaxed_words(plan.typed)
        if words is not None:
            plan = replace(plan, words=words, matching_words=words,
                           query=textindex.combine(words, request.filters()))
            result.total = _count(searcher, plan.matching)
            result.relaxed = typed if result.total else None
            facets = _FACET_THREADS.submit(_facets, searcher, plan, result.total,
                                           facets_exact_up_to)
            page = first_page(plan)
    outside: list[int] = []
    if result.named or fused:
        # Named norms the words do not match: counted, faceted, and (by date) listed too;
        # likewise the dense stage's norms that hold none of the words.
        extra = list(dict.fromkeys(result.named + fused))
        held = plan.among(searcher, extra, words=True) if plan.words else set()
        outside = [i for i in extra if i not in held]
        result.total += len(outside)
        if by_date and outside:
            page = _with_outside(conn, page, outside, after, wanted)
    more = len(page) > request.limit
    page = page[:request.limit]
    if more and page:
        kind, value, norm_id = page[-1]
        result.next_after = f"r{value!r}_{norm_id}" if kind == "r" else f"d{value}_{norm_id}"
    budget.check()
    result.hits = read_hits(conn, [(i, value if kind == "r" else None)
                                   for kind, value, i in page], Highlighter(plan.node), budget)
    for hit in result.hits:
        hit.named = hit.norm_id in result.named
    result.facets, result.within = facets.result()
    if outside:
        _add_to_facets(result.facets, attributes_for(store.engine), conn, outside)
    codes = [int(v) for v, _ in result.facets.get("jurisdiction", [])]
    names = jurisdiction_names(conn, codes)
    result.jurisdiction_names = {code: f"{names[code][0]} ({names[code][1]})"
                                 for code in codes if code in names}


def named(conn: Connection, searcher: tantivy.Searcher, plan: _Plan, request: SearchRequest
          ) -> tuple[list[Reference], list[int]]:
    """The norms the query names ("lei 2199"), in order, that meet every filter."""
    found = references(request.q)
    if not found:
        return [], []
    candidates = named_norms(conn, found, jurisdictions=request.jurisdictions,
                             ufs=request.ufs, year_from=request.year_from,
                             year_to=request.year_to)
    kept = plan.among(searcher, candidates, words=False)
    return found, [i for i in candidates if i in kept]


def _count(searcher: tantivy.Searcher, query: tantivy.Query) -> int:
    """How many norms match `query` (a plan's `matching`): a pass that scores nothing."""
    answer = searcher.aggregate(query, {"n": {"value_count": {"field": "sample"}}})
    return int(answer["n"]["value"])


def _count_and_facets(searcher: tantivy.Searcher, plan: _Plan, counted: Future[int],
                      exact_up_to: int) -> tuple[dict[str, list[tuple[str, int]]], int | None]:
    """Count the matches (handed over at once through `counted`), then their facets, whose
    sample depends on the count."""
    try:
        total = _count(searcher, plan.matching)
    except BaseException as e:
        counted.set_exception(e)
        raise
    counted.set_result(total)
    return _facets(searcher, plan, total, exact_up_to)


def _fused(store: Store, searcher: tantivy.Searcher, plan: _Plan, pinned: list[int]
           ) -> list[int]:
    """BM25's first matches and the dense stage's nearest norms (within every filter),
    fused by reciprocal rank, best first; the named norms left out (they come first)."""
    request = plan.request
    found = searcher.search(plan.query, FUSE_DEPTH, count=False, weight_by_field="authority")
    lexical = [i for i in _ids(searcher, found) if i not in pinned]
    vectors = dense.vectors_of(store)
    near = vectors.nearest(_query_vector(request.q), FUSE_DEPTH * 2,
                           jurisdictions=request.jurisdictions, ufs=request.ufs)
    kept = plan.among(searcher, [i for i, _ in near], words=False)  # the other filters
    near = [(i, c) for i, c in near if i in kept and i not in pinned][:FUSE_DEPTH]
    scores: Counter = Counter()
    if FUSION == "rrf":
        for rank, norm_id in enumerate(lexical):
            scores[norm_id] += 1.0 / (RRF_K + rank + 1)
        for rank, (norm_id, _) in enumerate(near):
            scores[norm_id] += DENSE_WEIGHT / (RRF_K + rank + 1)
    else:
        bm25 = [float(score) for score, _ in found.hits]
        top = max(bm25, default=0.0) or 1.0
        for norm_id, score in zip(_ids(searcher, found), bm25, strict=True):
            if norm_id not in pinned:
                scores[norm_id] += (1 - MIX) * score / top
        if near:
            best, floor = near[0][1], near[-1][1]
            for rank, (norm_id, cosine) in enumerate(near):
                if rank < DENSE_ADDS or norm_id in scores:
                    scores[norm_id] += MIX * (cosine - floor) / ((best - floor) or 1.0)
    return [norm_id for norm_id, _ in sorted(scores.items(), key=lambda kv: (-kv[1], -kv[0]))]


@lru_cache(maxsize=256)
def _query_vector(q: str):
    """A query's embedding, kept: the next page and a relaxed retry ask for it again."""
    return dense.embed([q])[0]


def _ranked_page(searcher: tantivy.Searcher, plan: _Plan, after, wanted: int,
                 pinned: list[int], fused: list[int] = ()) -> list[tuple[str, float, int]]:
    """A page by relevance: the named norms first (value PINNED + their order), then the
    fused norms of the dense stage if on (FUSED + their order), then the words' matches by
    score, best first (value -score, lower is better), ties by newest id.
    BM25 times authority over every match; the page after `after` is found by asking Tantivy
    for deeper top lists until it holds the token's place."""
    rows = [("r", PINNED + i, norm_id) for i, norm_id in enumerate(pinned)]
    rows += [("r", FUSED + i, norm_id) for i, norm_id in enumerate(fused)]
    start = None if after is None else (after[1], -after[2])
    if start is not None:
        rows = [r for r in rows if (r[1], -r[2]) > start]
    skip = set(pinned) | set(fused)
    depth = max(wanted * 2, 50)
    while True:
        found = searcher.search(plan.query, depth, count=False, weight_by_field="authority")
        ids = _ids(searcher, found)
        ranked = sorted(((-float(score), norm_id) for (score, _), norm_id
                         in zip(found.hits, ids, strict=True) if norm_id not in skip),
                        key=lambda r: (r[0], -r[1]))
        if start is not None:
            ranked = [r for r in ranked if (r[0], -r[1]) > start]
        if len(rows) + len(ranked) >= wanted or len(found.hits) < depth \
                or depth >= MAX_DEPTH:
            return (rows + [("r", value, norm_id) for value, norm_id in ranked])[:wanted]
        depth = min(depth * 4, MAX_DEPTH)


def _date_page(searcher: tantivy.Searcher, plan: _Plan, after, wanted: int
               ) -> list[tuple[str, int, int]]:
    """Newest first over every match, by keyset on (day, id)."""
    page = plan.matching
    if after is not None:
        page = plan.restricted(textindex.before_day_key(
            textindex.day_key(int(after[1]), after[2])))
    found = searcher.search(page, wanted, count=False, order_by_field="dayid")
    return [("d", int(k) >> 32, int(k) & 0xFFFFFFFF) for k, _ in found.hits]


def _with_outside(conn: Connection, page: list, outside: list[int], after, wanted: int
                  ) -> list[tuple[str, int, int]]:
    """A date page with the named norms that the words do not match merged in by date."""
    days = dict(conn.execute(
        text("SELECT norm_id, day FROM search_norm WHERE norm_id IN :ids")
        .bindparams(bindparam("ids", expanding=True)), {"ids": outside}).all())
    rows = [(day, norm_id) for _, day, norm_id in page]
    rows += [(days[i], i) for i in outside if i in days
             and (after is None or (days[i], i) < (after[1], after[2]))]
    return [("d", day, norm_id) for day, norm_id in sorted(rows, reverse=True)[:wanted]]


# Facets: name -> the index field and how many values are shown.
_FACET_FIELDS = {"uf": ("uf", 27), "jurisdiction": ("jur", 20), "type": ("type", 20),
                 "year": ("year", 40), "method": ("methods", 20), "text": ("text", 2),
                 "status": ("status", 10)}
# Terms counted per index segment before merging: more than any facet has values, so the
# merged counts are exact (the jurisdiction facet may have thousands: its error is checked).
_SEGMENT_SIZE = 10_000


def _facets(searcher: tantivy.Searcher, plan: _Plan, total: int, exact_up_to: int
            ) -> tuple[dict[str, list[tuple[str, int]]], int | None]:
    """Counts per facet value over every match; beyond `exact_up_to` matches, over one
    sample class times textindex.SAMPLES (then the size of the sample is returned)."""
    if total == 0:
        return {name: [] for name in _FACET_FIELDS}, None
    request = {}
    for name, (field_, size) in _FACET_FIELDS.items():
        terms = {"field": field_, "size": size, "segment_size": _SEGMENT_SIZE}
        if name == "year":
            terms["order"] = {"_key": "desc"}
        request[name] = {"terms": terms}
    sampled = total > exact_up_to
    classes = textindex.sample_classes(total, exact_up_to) if sampled else textindex.SAMPLES
    query = plan.restricted(textindex.in_sample(classes)) if sampled else plan.matching
    answer = searcher.aggregate(query, request)
    scale = textindex.SAMPLES / classes
    within = None
    if sampled:
        # Every norm is "yes" or "no" in the text facet: its buckets count the sample.
        within = sum(int(b["doc_count"]) for b in answer.get("text", {}).get("buckets", []))
    facets: dict[str, list[tuple[str, int]]] = {}
    for name in _FACET_FIELDS:
        buckets = answer.get(name, {}).get("buckets", [])
        if answer.get(name, {}).get("doc_count_error_upper_bound"):
            within = within or total  # counts merged from segments may be a little off
        values = [(_facet_value(name, b["key"]), round(b["doc_count"] * scale))
                  for b in buckets]
        facets[name] = values
    return facets, within


def _facet_value(name: str, key) -> str:
    if name == "year":
        return str(int(key)) if int(key) else "none"
    if name == "jurisdiction":
        return str(int(key))
    return str(key)


def _add_to_facets(facets: dict[str, list[tuple[str, int]]], attributes, conn: Connection,
                   norm_ids: list[int]) -> None:
    """Count in the named norms that the words' matches leave out."""
    rows = attributes.rows(conn, [(i, 0.0) for i in norm_ids])
    if not rows:
        return
    added: dict[str, Counter] = {name: Counter() for name in _FACET_FIELDS}
    for r in rows:
        added["uf"][r[_UF]] += 1
        added["jurisdiction"][str(r[_CODE])] += 1
        added["type"][r[_TYPE]] += 1
        added["year"][str(r[_YEAR]) if r[_YEAR] else "none"] += 1
        for method in (r[_METHODS] or "").split() or ["none"]:
            added["method"][method] += 1
        added["text"]["yes" if r[_HAS_TEXT] else "no"] += 1
        added["status"][r[_STATUS]] += 1
    for name, counter in added.items():
        merged = Counter(dict(facets.get(name, []))) + counter
        if name == "year":
            ordered = sorted(merged.items(), key=lambda kv: (kv[0] != "none", kv[0]),
                             reverse=True)
        else:
            ordered = merged.most_common()
        facets[name] = ordered[:_FACET_FIELDS[name][1]]


# Columns of an attributes row (search/attributes.py).
(_ID, _SCORE, _CODE, _UF, _TYPE, _YEAR, _DAY, _METHODS, _HAS_TEXT, _CONFIDENCE, _STATUS,
 _CITED_BY) = range(12)
