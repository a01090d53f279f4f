"""Running a search on either backend: bounded ranking, facets, snippets, keyset pages.

At a million norms, touching every match of a common query (ranking it, counting it by
group) is what costs, not finding the matches (reference/search.md). So a search ranks and
counts facets within the CAP most recently added matches, counts the total exactly (on a
second connection, meanwhile), and says when figures cover a bounded set; sorting by date
and the export reach every match.

Relevance on SQLite is not bm25(): FTS5 computes its IDF by reading every document of every
query term, 50-100 ms per query at a million norms whatever the LIMIT (measured by
bench/explorer_speed.py). It ranks norms whose ementa matches first, then those where the
words stand together, then the most cited by other norms (authority), then the newest, using
index range scans only. PostgreSQL's ts_rank has no global statistics and ranks by weighted
frequency (ementa weighs most), raised for norms cited by others.

A query that names a norm ("lei 2199", "LC 45/2013": search/lookup.py) puts the norms it
names first, within the filters, whatever their text; the words' matches follow.

Every search runs within a Budget (search/budget.py: a deadline and a cancel switch enforced
inside the database), and its snippets come from a bounded window of each text shown
(search/snippets.py), so that no text, however long, makes a search cost more.
"""

from __future__ import annotations

import heapq
import math
import re
import threading
import weakref
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date
from operator import itemgetter

from markupsafe import Markup, escape
from sqlalchemy import bindparam, create_engine, text
from sqlalchemy.engine import Connection, Engine

from ..enrich.numbering import canonical_number
from ..enrich.status import ALTERED, NONE_KNOWN, REVOKED, REVOKED_IN_PART, SUSPENDED
from ..params import ibge_code_problem, method_problem, type_problem
from ..store import Store
from .attributes import attributes_for
from .budget import Budget
from .lookup import Reference, named_norms, references
from .query import (
    All,
    Node,
    QueryError,
    Word,
    parse,
    quoted,
    tags_to_fts5,
    tags_to_tsquery,
    to_fts5,
    to_tsquery,
    with_joined_words,
)
from .snippets import EMENTA_SHOWN, WINDOW, Highlighter
from .text import (
    MARK_END,
    MARK_START,
    confidence_tag_for,
    decade_tag,
    number_tag,
    type_tag,
)

# Ranking and facets cover at most this many matches: the most recently added ones.
CAP = 5_000
PAGE = 20
UFS = ("AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA",
       "PB", "PE", "PI", "PR", "RJ", "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO")
SORTS = ("relevance", "date")
STATUSES = (REVOKED, REVOKED_IN_PART, SUSPENDED, ALTERED, NONE_KNOWN)
FACETS = ("uf", "jurisdiction", "type", "year", "method", "text", "status")
# The named norms' scores: below any score of the words (lower is better), in the order named.
PINNED = -1e15
# Authority: a norm cited by others ranks up by the bit length of its cited-by count, up to
# this many steps (cited once: 1, 2-3 times: 2, 4-7: 3, 8 or more: 4).
AUTHORITY_STEPS = 4
# On PostgreSQL each step raises ts_rank by this fraction.
AUTHORITY_RAISE = 0.25
_SAFE_VALUE = re.compile(r"^[a-z][a-z0-9.]{0,63}$")
# A page token: r<score>_<id> (relevance) or d<yyyymmdd>_<id> (date), as `next` writes them.
_AFTER_SCORE = re.compile(r"r(-?[0-9][0-9.e+-]{0,30})_([0-9]{1,12})")
_AFTER_DAY = re.compile(r"d([0-9]{1,8})_([0-9]{1,12})")
_DIGITS = {name: re.compile(f"[0-9]{{1,{n}}}") for name, n in
           (("j", 7), ("year", 4), ("limit", 3))}
_FTS_COLUMNS = "{ementa body extra}"
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
        r = replace(self, after=None) if "after" not in changes else self
        r = replace(r, **changes)
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
        if r.after:
            pairs.append(("after", r.after))
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
        by_date = self.sort == "date" or parse(self.q) is None
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

    def tag_groups(self) -> list[list[str]]:
        groups: list[list[str]] = []
        if self.ufs:
            groups.append([f"uf_{uf.lower()}" for uf in self.ufs])
        if self.jurisdictions:
            groups.append([f"jur_{c}" for c in self.jurisdictions])
        if self.types:
            groups.append([f"type_{type_tag(t)}" for t in self.types])
        if self.year_from or self.year_to:
            groups.append(year_tags(self.year_from or MIN_YEAR,
                                    self.year_to or date.today().year + 1))
        if self.methods:
            groups.append([f"method_{m}" for m in self.methods])
        if self.has_text is not None:
            groups.append(["text_yes" if self.has_text else "text_no"])
        if self.numbers:
            groups.append([number_tag(n) for n in self.numbers])
        if self.statuses:
            groups.append([f"status_{s}" for s in self.statuses])
        if self.min_confidence:
            tag = confidence_tag_for(self.min_confidence)
            if tag:
                groups.append([tag])
        return groups


def year_tags(first: int, last: int) -> list[str]:
    """A year range as few tags as possible: whole decades, then the years at either end."""
    tags, year = [], max(first, MIN_YEAR)
    last = min(last, MAX_YEAR)
    while year <= last:
        if year % 10 == 0 and year + 9 <= last:
            tags.append(decade_tag(year))
            year += 10
        else:
            tags.append(f"year_{year}")
            year += 1
    return tags


@dataclass
class Hit:
    norm_id: int
    score: float | None
    jurisdiction_code: int
    jurisdiction: str
    uf: str
    type_raw: str | None
    type: str | None
    number: str | None
    year: int | None
    date: date | None
    ementa: str | None
    ementa_html: Markup
    snippet_html: Markup
    status: str = NONE_KNOWN
    urn: str | None = None
    cited_by: int = 0
    named: bool = False  # named by the query ("lei 2199"), so pinned first


@dataclass
class SearchResult:
    request: SearchRequest
    total: int = 0
    total_exact: bool = True
    within: int | None = None  # ranking and facets cover only this many matches
    facets: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    next_after: str | None = None
    jurisdiction_names: dict[int, str] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)  # norms the query names
    named: list[int] = field(default_factory=list)  # the norms found for them, pinned first

    @property
    def facets_exact(self) -> bool:
        return self.within is None


def marked(fragment: str | None) -> Markup:
    """Escape text, then turn the highlight markers into <mark> elements."""
    escaped = str(escape(fragment or ""))
    return Markup(escaped.replace(MARK_START, "<mark>").replace(MARK_END, "</mark>"))


class _Backend:
    """The SQL of one backend: candidates, exact count, a date-ordered page, snippets.

    `typed` is the query as parsed; `node` what is matched: the same, with words typed
    side by side also tried joined."""

    def __init__(self, typed: Node | None, groups: list[list[str]]) -> None:
        self.typed = typed
        self.node = with_joined_words(typed)
        self.groups = groups

    id_column = "rowid"
    matches = ""

    def among(self, conn: Connection, ids: list[int], words: bool) -> set[int]:
        """Which of these norms are indexed and meet the filters, and (`words`) hold the
        words: one index probe per norm, however common the words or filters."""
        if not ids:
            return set()
        if words or self.groups:
            sql = self.matches if words else self.filtered
            params = self.params() if words else self.filter_params()
            sql += f" AND {self.id_column} IN :ids"
        else:
            sql, params = "SELECT norm_id FROM search_norm WHERE norm_id IN :ids", {}
        statement = text(sql).bindparams(bindparam("ids", expanding=True))
        return set(conn.scalars(statement, {**params, "ids": ids}))


class _SQLite(_Backend):
    def expression(self) -> str:
        parts = []
        if self.node is not None:
            parts.append(f"{_FTS_COLUMNS} : ({to_fts5(self.node)})")
        if self.groups:
            parts.append(tags_to_fts5(self.groups))
        return " AND ".join(parts)

    def params(self) -> dict:
        return {"m": self.expression()}

    def filter_params(self) -> dict:
        return {"t": tags_to_fts5(self.groups)}

    def signals(self) -> list[tuple[int, str]]:
        """Relevance signals as (weight, MATCH expression): the words in the ementa, and the
        words next to each other. FTS5's bm25() would scan every document of every word to
        weigh it (~50-100 ms per query at a million norms, whatever the LIMIT); these only
        walk the candidates' range."""
        if self.node is None:
            return []
        tags = (" AND " + tags_to_fts5(self.groups)) if self.groups else ""
        found = [(2, f"{{ementa}} : ({to_fts5(self.node)}){tags}")]
        words = self.typed.items if isinstance(self.typed, All) else ()
        if 1 < len(words) <= 6 and all(isinstance(w, Word) and not w.prefix for w in words):
            phrase = '"' + " ".join(w.raw for w in words) + '"'
            found.append((1, f"{_FTS_COLUMNS} : ({phrase}){tags}"))
        return found

    def rank(self, conn: Connection, rows: list[tuple]) -> list[tuple]:
        """Score = signals first, then authority, then the newest date: lower is better, as
        with bm25 (a date yyyymmdd stays below 10^8, authority below 10^9)."""
        if not rows or self.node is None:
            return rows
        lowest = min(r[_ID] for r in rows)
        weight: dict[int, int] = {}
        for w, expression in self.signals():
            for (norm_id,) in _raw_rows(conn, "SELECT rowid FROM search_fts WHERE search_fts "
                                              "MATCH :s AND rowid >= :lo",
                                        {"s": expression, "lo": lowest}):
                weight[norm_id] = weight.get(norm_id, 0) + w
        return [(r[_ID], -float(weight.get(r[_ID], 0) * 1_000_000_000
                                + authority(r[_CITED_BY]) * 100_000_000 + r[_DAY]), *r[2:])
                for r in rows]

    matches = "SELECT rowid FROM search_fts WHERE search_fts MATCH :m"
    filtered = "SELECT rowid FROM search_fts WHERE search_fts MATCH :t"
    candidates = ("SELECT rowid, 0.0 FROM search_fts WHERE search_fts MATCH :m "
                  "ORDER BY rowid DESC LIMIT :cap")
    count = "SELECT count(*) FROM search_fts WHERE search_fts MATCH :m"
    # The opening of each text shown, never the whole of a text that may be megabytes long.
    windows = ("SELECT rowid, substr(ementa, 1, :ementa_chars), substr(body, 1, :chars) "
               "FROM search_fts WHERE rowid IN :ids")
    export = ("SELECT f.rowid FROM search_fts f WHERE search_fts MATCH :m "
              "ORDER BY f.rowid DESC")


class _PostgreSQL(_Backend):
    def expression(self) -> str:
        parts = []
        if self.node is not None:
            parts.append(to_tsquery(self.node))
        if self.groups:
            parts.append(tags_to_tsquery(self.groups))
        return " & ".join(f"({p})" for p in parts)

    def params(self) -> dict:
        return {"m": self.expression()}

    def filter_params(self) -> dict:
        return {"t": tags_to_tsquery(self.groups)}

    def rank(self, conn: Connection, rows: list[tuple]) -> list[tuple]:
        """ts_rank (computed per row with the candidates: no global statistics), raised by
        AUTHORITY_RAISE per step of authority."""
        return [(r[_ID], r[_SCORE] * (1 + AUTHORITY_RAISE * authority(r[_CITED_BY])), *r[2:])
                if r[_CITED_BY] else r for r in rows]

    id_column = "norm_id"
    matches = "SELECT norm_id FROM search_fts WHERE tsv @@ CAST(:m AS tsquery)"
    filtered = "SELECT norm_id FROM search_fts WHERE tsv @@ CAST(:t AS tsquery)"
    # Weights D (filter tags), C (joined compounds), B (text), A (ementa); negated so that
    # lower is better, as with bm25.
    candidates = (
        "SELECT norm_id, -ts_rank('{0.0, 0.3, 0.4, 1.0}', tsv, CAST(:m AS tsquery)) "
        "FROM search_fts WHERE tsv @@ CAST(:m AS tsquery) ORDER BY norm_id DESC LIMIT :cap")
    count = "SELECT count(*) FROM search_fts WHERE tsv @@ CAST(:m AS tsquery)"
    windows = ("SELECT norm_id, left(ementa, :ementa_chars), left(body, :chars) "
               "FROM search_fts WHERE norm_id IN :ids")
    export = ("SELECT norm_id FROM search_fts WHERE tsv @@ CAST(:m AS tsquery) "
              "ORDER BY norm_id DESC")


def _backend(conn: Connection, request: SearchRequest) -> _Backend:
    node = parse(request.q)
    cls = _SQLite if conn.dialect.name == "sqlite" else _PostgreSQL
    return cls(node, request.tag_groups())


# Columns of a candidate row, as the candidates queries select them.
(_ID, _SCORE, _CODE, _UF, _TYPE, _YEAR, _DAY, _METHODS, _HAS_TEXT, _CONFIDENCE, _STATUS,
 _CITED_BY) = range(12)


def authority(cited_by: int) -> int:
    """Steps of authority of a norm cited by this many others: 0 when none cites it."""
    return min(cited_by.bit_length(), AUTHORITY_STEPS) if cited_by > 0 else 0


def _raw_rows(conn: Connection, sql: str, params: dict) -> list[tuple]:
    """Plain tuples from the driver: up to CAP rows per search, so no per-row objects."""
    cursor = conn.connection.driver_connection.cursor()
    try:
        if conn.dialect.name != "sqlite":
            sql = re.sub(r":(\w+)", r"%(\1)s", sql)
        cursor.execute(sql, params)
        return cursor.fetchall()
    finally:
        cursor.close()


def search(store: Store, request: SearchRequest, cap: int = CAP,
           budget: Budget | None = None) -> SearchResult:
    """One page of results with facets and snippets; see the module doc for the bounds.

    The search stops at the budget's deadline (DEADLINE seconds by default) with
    SearchTooCostly, or on `budget.cancel()` with SearchCancelled."""
    result = SearchResult(request)
    if request.is_empty:
        return result
    budget = budget or Budget()
    counting = None
    try:
        with store.engine.connect() as conn, budget.guard(conn):
            counting = _search(store, conn, request, cap, budget, result)
        if counting is not None:
            result.total += counting.result()
    except BaseException:
        budget.cancel()  # a count still running on its own connection stops too
        raise
    return result


def _search(store: Store, conn: Connection, request: SearchRequest, cap: int, budget: Budget,
            result: SearchResult) -> Future | None:
    after = request.after_key()
    backend = _backend(conn, request)
    params = backend.params()
    attributes = attributes_for(store.engine)
    attributes.update(conn)
    found = _raw_rows(conn, backend.candidates, {**params, "cap": cap + 1})
    bounded = len(found) > cap
    rows = attributes.rows(conn, found[:cap])
    # Counting every match walks whole posting lists: on another connection, meanwhile.
    counting = _COUNTER.submit(_count, store, backend.count, params, budget) \
        if bounded else None
    minimum = request.min_confidence
    if minimum:
        rows = [r for r in rows if _confident(r, minimum)]
    by_date = request.sort == "date" or backend.node is None
    if not by_date:
        rows = backend.rank(conn, rows)
    extra: list[tuple] = []
    if backend.node is not None:
        result.references, result.named = named(conn, backend, request)
    if result.named:
        rows, extra, outside = _with_named(conn, attributes, backend, rows, result.named,
                                           bounded, minimum, pin=not by_date)
        shown = {r[_ID] for r in rows}  # a named norm below the minimum confidence is not
        result.named = [i for i in result.named if i in shown]
        result.total = outside  # the count of the words' matches is added to it
    budget.check()
    if bounded:
        result.within = cap
        # The tag filter rounds a minimum confidence down to 5 %: the count may be a
        # little high unless the minimum sits on a step.
        result.total_exact = not minimum or round(minimum * 100, 6) % 5 == 0
    else:
        result.total = len(rows)
    result.facets = _facets(rows)
    wanted = request.limit + 1
    if by_date and bounded:
        page = _date_page(conn, backend, params, after, wanted, minimum, extra)
    else:
        # Only the page is sorted out of the candidates: a heap, not a full sort, on the
        # keyset order (value, -id) so that ties never depend on the database's order.
        if by_date:
            def key(r: tuple) -> tuple:
                return (-r[_DAY], -r[_ID])
            start = None if after is None else (-after[1], -after[2])
        else:
            def key(r: tuple) -> tuple:
                return (r[_SCORE], -r[_ID])
            start = None if after is None else (after[1], -after[2])
        if start is not None:
            rows = [r for r in rows if key(r) > start]
        page = [(("d", r[_DAY], r[_ID]), None) if by_date else
                (("r", r[_SCORE], r[_ID]), r[_SCORE])
                for r in heapq.nsmallest(wanted, rows, key=key)]
    more = len(page) > request.limit
    page = page[:request.limit]
    if more and page:
        kind, value, norm_id = page[-1][0]
        result.next_after = f"{kind}{value!r}_{norm_id}" if kind == "r" else \
            f"{kind}{int(value)}_{norm_id}"
    budget.check()
    result.hits = _hits(conn, backend, [(k[2], score) for k, score in page], budget)
    for hit in result.hits:
        hit.named = hit.norm_id in result.named
    codes = [int(v) for v, _ in result.facets.get("jurisdiction", [])]
    result.jurisdiction_names = _names(conn, codes)
    return counting


def _confident(row: tuple, minimum: float) -> bool:
    return row[_CONFIDENCE] is not None and row[_CONFIDENCE] >= minimum


def named(conn: Connection, backend: _Backend, request: SearchRequest
          ) -> tuple[list[Reference], list[int]]:
    """The norms the query names ("lei 2199"), in order, that meet every filter of the search
    (a minimum confidence aside, which the caller checks exactly)."""
    found = references(request.q)
    if not found:
        return [], []
    candidates = named_norms(conn, found, jurisdictions=request.jurisdictions,
                             ufs=request.ufs, year_from=request.year_from,
                             year_to=request.year_to)
    kept = backend.among(conn, candidates, words=False)
    return found, [i for i in candidates if i in kept]


def _with_named(conn: Connection, attributes, backend: _Backend, rows: list[tuple],
                named_ids: list[int], bounded: bool, minimum: float | None, pin: bool
                ) -> tuple[list[tuple], list[tuple], int]:
    """The candidates with the named norms added when the words did not bring them (`pin`:
    scored first, in the order named); those added; and how many named norms lie outside
    the words' matches (the count of the words misses those)."""
    present = {r[_ID] for r in rows}
    extra = attributes.rows(conn, [(i, 0.0) for i in named_ids if i not in present])
    if minimum:
        extra = [r for r in extra if _confident(r, minimum)]
    # Beyond the bounded candidates a named norm may still hold the words (then counted).
    held = backend.among(conn, [r[_ID] for r in extra], words=True) if bounded else set()
    outside = sum(1 for r in extra if r[_ID] not in held)
    if pin:
        order = {norm_id: PINNED + i for i, norm_id in enumerate(named_ids)}
        rows = [(r[_ID], order[r[_ID]], *r[2:]) if r[_ID] in order else r for r in rows]
        extra = [(r[_ID], order[r[_ID]], *r[2:]) for r in extra]
    return rows + extra, [r for r in extra if r[_ID] not in held], outside


# Counts run on an engine of their own, with one connection per worker: a count never waits
# for a connection held by the request that waits for it.
_COUNT_WORKERS = 2
_COUNTER = ThreadPoolExecutor(max_workers=_COUNT_WORKERS, thread_name_prefix="locleg-count")
_COUNT_ENGINES: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()
_COUNT_ENGINES_LOCK = threading.Lock()


def _count_engine(engine: Engine) -> Engine:
    with _COUNT_ENGINES_LOCK:
        found = _COUNT_ENGINES.get(engine)
        if found is None:
            options = {"connect_args": {"timeout": 30}} if engine.dialect.name == "sqlite" \
                else {"pool_pre_ping": True}
            found = create_engine(engine.url, pool_size=_COUNT_WORKERS, max_overflow=0,
                                  **options)
            _COUNT_ENGINES[engine] = found
        return found


def _count(store: Store, sql: str, params: dict, budget: Budget) -> int:
    with _count_engine(store.engine).connect() as conn, budget.guard(conn):
        return conn.scalar(text(sql), params) or 0


def _date_page(conn: Connection, backend: _Backend, params: dict, after, limit: int,
               minimum: float | None, named_rows: list[tuple]) -> list:
    """Newest first over every match (not only the bounded set), by keyset on (day, id);
    `named_rows`: norms the query names that the words do not match, merged in."""
    sql = (f"SELECT s.norm_id, s.day FROM search_norm s WHERE s.norm_id IN ({backend.matches})")
    args = dict(params)
    if after is not None:
        sql += " AND (s.day < :day OR (s.day = :day AND s.norm_id < :id))"
        args.update(day=int(after[1]), id=after[2])
    if minimum:
        sql += " AND s.confidence >= :minimum"
        args["minimum"] = minimum
    sql += " ORDER BY s.day DESC, s.norm_id DESC LIMIT :limit"
    args["limit"] = limit
    found = [(day, norm_id) for norm_id, day in conn.execute(text(sql), args)]
    found += [(r[_DAY], r[_ID]) for r in named_rows
              if after is None or (r[_DAY], r[_ID]) < (after[1], after[2])]
    return [(("d", day, norm_id), None) for day, norm_id in sorted(found, reverse=True)[:limit]]


def _facets(rows: list[tuple]) -> dict[str, list[tuple[str, int]]]:
    """Counts per facet value, with the counting done by Counter in C over whole columns."""
    if not rows:
        return {name: [] for name in FACETS}
    def column(index: int) -> Counter:
        return Counter(map(itemgetter(index), rows))

    methods: Counter = Counter()
    for value, count in column(_METHODS).items():
        for method in (value or "").split() or ["none"]:
            methods[method] += count
    text_counts = column(_HAS_TEXT)
    years = column(_YEAR)
    facets = {
        "uf": column(_UF).most_common(20),
        "jurisdiction": [(str(c), n) for c, n in column(_CODE).most_common(20)],
        "type": column(_TYPE).most_common(20),
        "year": sorted(((str(y) if y else "none", n) for y, n in years.items()),
                       reverse=True)[:40],
        "method": methods.most_common(20),
        "text": [(("yes" if bool(v) else "no"), n) for v, n in text_counts.most_common()],
        "status": column(_STATUS).most_common(),
    }
    return facets


def _names(conn: Connection, codes: list[int]) -> dict[int, str]:
    if not codes:
        return {}
    rows = conn.execute(
        text("SELECT ibge_code, name, uf FROM jurisdiction WHERE ibge_code IN :codes")
        .bindparams(bindparam("codes", expanding=True)), {"codes": codes})
    return {code: f"{name} ({uf})" for code, name, uf in rows}


_HIT_COLUMNS = (
    "SELECT n.id, n.jurisdiction_code, j.name, j.uf, n.type_raw, n.type_normalized, n.number, "
    "n.year, n.date, n.ementa, n.status, n.urn, n.cited_by FROM norm n "
    "JOIN jurisdiction j ON j.ibge_code = n.jurisdiction_code WHERE n.id IN :ids")


def _hits(conn: Connection, backend: _Backend, page: list[tuple[int, float | None]],
          budget: Budget) -> list[Hit]:
    if not page:
        return []
    ids = [norm_id for norm_id, _ in page]
    meta = {r[0]: r for r in conn.execute(
        text(_HIT_COLUMNS).bindparams(bindparam("ids", expanding=True)), {"ids": ids})}
    windows = {r[0]: (r[1], r[2]) for r in conn.execute(
        text(backend.windows).bindparams(bindparam("ids", expanding=True)),
        {"ids": ids, "ementa_chars": EMENTA_SHOWN + 1, "chars": WINDOW + 1})}
    highlighter = Highlighter(backend.node)
    hits = []
    for norm_id, score in page:
        m = meta.get(norm_id)
        if m is None:  # the norm vanished between two statements
            continue
        budget.check()
        ementa, body = windows.get(norm_id, (None, None))
        ementa = m.ementa if ementa is None else ementa
        body = body or ""
        hits.append(Hit(
            norm_id=norm_id, score=score, jurisdiction_code=m.jurisdiction_code,
            jurisdiction=m.name, uf=m.uf, type_raw=m.type_raw, type=m.type_normalized,
            number=m.number, year=m.year, date=_as_date(m.date), ementa=m.ementa,
            ementa_html=marked(highlighter.mark(ementa or "")),
            snippet_html=marked(highlighter.fragment(body[:WINDOW], more=len(body) > WINDOW)
                                if body.strip() else ""),
            status=m.status or NONE_KNOWN, urn=m.urn, cited_by=m.cited_by or 0,
        ))
    return hits


def _as_date(value) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value))
