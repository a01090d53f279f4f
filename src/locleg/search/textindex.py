"""The search index: a Tantivy index in the corpus folder, the same for SQLite and PostgreSQL.

One document per norm: its ementa, the heading above its body and its body, each stemmed for
ranked words and folded for exact phrases (search/analysis.py), and its filter attributes as
fast fields (UF, jurisdiction, type, year, date, extraction methods, confidence, number,
legal status, authority), and a cited norm's words once more in the fields of its authority
step (for the coordination rewards' correction, _rewards). Tantivy ranks every match by BM25
times authority (the collector scores each match: no block-max pruning), counts every match
and computes facets over every match in Rust; the database only answers for the twenty norms
shown.

The index is written by search/index.py, which takes norms from the database's queue and
removes them from it only after Tantivy committed them: a crash between the two re-indexes
a batch, never loses one. It lives in `<corpus>/search-index/`; a missing or outdated index
(another schema version) is rebuilt from the database on the next refresh.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy
from tantivy import Occur, Query

from ..errors import UserError
from . import analysis, synonyms
from .folderlock import deciding
from .query import All, Any_, Except, Joined, Node, Phrase, Some, Word

# Bump when the schema or the analyzers change: an index of another version is rebuilt.
SCHEMA_VERSION = 3
VERSION_FILE = "locleg-index.json"
# A word matches a norm when its stem is anywhere in `all` (ementa, body and the joined
# compounds): one posting list to walk. Its BM25 there is the base of the score; where it
# also stands in the ementa (what the norm is about), the ementa's BM25 adds to it once more.
# The heading above the articles (epígrafe, ementa and title as printed) counts only for the
# coordination reward (TITLE_FIELDS). The ementa weighed 3, then 2, and the heading 1.5 on top:
# the ementa counted four times over with the reward, and a short ementa holding one word of a
# colloquial query ("recolhimento", "livre") outranked the law holding most of its words in
# its text (the zoonoses law for "cachorro solto na rua recolhimento"). Chosen on 211 labelled
# queries of four groups (docs/search.md, issue 22): their MRR 0.608 -> 0.707.
MATCH_FIELD = "all"
BOOST_FIELDS = (("ementa", 1.0),)
TITLE_FIELDS = ("ementa", "heading")
EXACT_FIELDS = (("ementa_exact", 3.0), ("body_exact", 1.0))
EXACT_WORD_FIELDS = (*EXACT_FIELDS, ("extra_exact", 1.0))
# Authority: BM25 times (1 + AUTHORITY_RAISE x steps), a step per doubling of the number of
# norms that cite, amend or regulate it (cited once: 1 step; 2-3: 2; 4-7: 3; 8 or more: 4).
AUTHORITY_STEPS = 4
AUTHORITY_RAISE = 0.25
# A cited norm's words again in the field of its authority step (its ementa, body and joined
# compounds; its ementa and heading), unscored: the coordination rewards' correction (see
# _rewards) reads only the postings of cited norms there, not every match of every word.
CITED_FIELDS = tuple(f"all_cited{steps}" for steps in range(1, AUTHORITY_STEPS + 1))
CITED_TITLE_FIELDS = tuple(f"title_cited{steps}" for steps in range(1, AUTHORITY_STEPS + 1))
# Facet sampling: a norm belongs to sample class norm_id % SAMPLES; an estimate counts the
# norms of the first few classes.
SAMPLES = 64
# How long a writer waits for another process's writer to finish.
WRITER_WAIT = 600.0
HEAP = 200_000_000


def authority_steps(cited_by: int) -> int:
    """Steps of authority of a norm cited by this many others: 0 when none cites it."""
    return min(cited_by.bit_length(), AUTHORITY_STEPS) if cited_by > 0 else 0


def _factor(steps: int) -> float:
    return 1.0 + AUTHORITY_RAISE * steps


def authority_factor(cited_by: int) -> float:
    return _factor(authority_steps(cited_by))


def _weight(steps: int) -> float:
    # Tantivy's weight_by_field multiplies a score by log2(2 + value): store the value that
    # gives our factor (tests/test_search.py checks the formula still holds).
    return 2.0 ** _factor(steps) - 2.0


def _authority_weight(cited_by: int) -> float:
    return _weight(authority_steps(cited_by))


def day_key(day: int, norm_id: int) -> int:
    """One integer ordering norms by date, then id: keyset pages over every match."""
    return (day << 32) | norm_id


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_integer_field("norm_id", indexed=True, fast=True)
    for name in (MATCH_FIELD, *TITLE_FIELDS):
        b.add_text_field(name, tokenizer_name=analysis.STEMMED, index_option="freq")
    b.add_text_field("ementa_exact", tokenizer_name=analysis.FOLDED)
    b.add_text_field("body_exact", tokenizer_name=analysis.FOLDED)
    b.add_text_field("extra_exact", tokenizer_name=analysis.FOLDED, index_option="freq")
    for name in ("uf", "type", "methods", "text", "number", "status"):
        b.add_text_field(name, tokenizer_name="raw", fast=True, index_option="basic")
    for name in ("jur", "year", "dayid", "sample"):
        b.add_integer_field(name, indexed=True, fast=True)
    b.add_float_field("confidence", indexed=True, fast=True)
    b.add_float_field("authority", fast=True)
    for name in (*CITED_FIELDS, *CITED_TITLE_FIELDS):
        b.add_text_field(name, tokenizer_name=analysis.STEMMED, index_option="basic")
    return b.build()


SCHEMA = _schema()
# The norms of each authority step above none (by the value stored for it) and its factor.
_AUTHORITY_STEPS = tuple(
    (Query.range_query(SCHEMA, "authority", tantivy.FieldType.Float, _weight(steps) - 1e-4,
                       _weight(steps) + 1e-4), _factor(steps))
    for steps in range(1, AUTHORITY_STEPS + 1))


@dataclass(frozen=True)
class Entry:
    """What the index holds of one norm."""

    norm_id: int
    jurisdiction_code: int
    uf: str
    type: str
    year: int | None
    day: int
    methods: Sequence[str]
    has_text: bool
    confidence: float | None
    number_key: str | None
    status: str
    cited_by: int
    ementa: str
    heading: str
    body: str
    extra: Sequence[str]

    def document(self) -> tantivy.Document:
        doc = tantivy.Document()
        doc.add_integer("norm_id", self.norm_id)
        joined = " ".join(self.extra)
        doc.add_text(MATCH_FIELD, self.ementa)
        doc.add_text(MATCH_FIELD, self.body)
        doc.add_text(MATCH_FIELD, joined)
        doc.add_text("ementa", self.ementa)
        doc.add_text("heading", self.heading)
        doc.add_text("ementa_exact", self.ementa)
        doc.add_text("body_exact", self.body)
        doc.add_text("extra_exact", joined)
        doc.add_text("uf", self.uf)
        doc.add_text("type", self.type)
        for method in self.methods or ("none",):
            doc.add_text("methods", method)
        doc.add_text("text", "yes" if self.has_text else "no")
        if self.number_key:
            doc.add_text("number", self.number_key)
        doc.add_text("status", self.status)
        doc.add_integer("jur", self.jurisdiction_code)
        doc.add_integer("year", self.year or 0)
        doc.add_integer("dayid", day_key(self.day, self.norm_id))
        doc.add_integer("sample", self.norm_id % SAMPLES)
        doc.add_float("confidence", -1.0 if self.confidence is None else self.confidence)
        doc.add_float("authority", _authority_weight(self.cited_by))
        steps = authority_steps(self.cited_by)
        if steps:
            for text in (self.ementa, self.body, joined):
                doc.add_text(CITED_FIELDS[steps - 1], text)
            for text in (self.ementa, self.heading):
                doc.add_text(CITED_TITLE_FIELDS[steps - 1], text)
        return doc


# -- the index on disk --------------------------------------------------------------------


class TextIndex:
    """The Tantivy index of one corpus, opened once per process (see for_folder).

    Readers (the explorer, `locleg search`) never write to the folder: a missing or outdated
    index reads as an empty one until a refresh (writable) builds it."""

    def __init__(self, folder: Path, writable: bool) -> None:
        self.folder = folder
        self.writable = writable
        self.in_memory = False
        if writable:
            self.index = self._open_for_writing()
        elif is_current(folder):
            self.index = tantivy.Index.open(str(folder))
            analysis.register(self.index)
        else:
            self.index = tantivy.Index(SCHEMA)  # empty, in memory
            analysis.register(self.index)
            self.in_memory = True

    def _open_for_writing(self) -> tantivy.Index:
        with deciding(self.folder):
            if self.folder.exists() and not is_current(self.folder):
                shutil.rmtree(self.folder)
            self.folder.mkdir(parents=True, exist_ok=True)
            index = tantivy.Index(SCHEMA, path=str(self.folder), reuse=True)
            analysis.register(index)
            version = self.folder / VERSION_FILE
            if not version.exists():
                # Written after the index files: a folder without it is rebuilt whole.
                version.write_text(json.dumps({"schema": SCHEMA_VERSION}))
        return index

    @property
    def fresh(self) -> bool:
        """True when the index holds no norm at all (new, or just rebuilt empty)."""
        return self.searcher().num_docs == 0

    def searcher(self) -> tantivy.Searcher:
        self.index.reload()
        return self.index.searcher()

    def writer(self, heap: int = HEAP, threads: int = 1) -> tantivy.IndexWriter:
        """The index's single writer; waits while another process holds it."""
        deadline = time.monotonic() + WRITER_WAIT
        while True:
            try:
                return self.index.writer(heap, threads)
            except ValueError as e:
                if "lock" not in str(e).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def size(self) -> int:
        """Bytes the index takes on disk."""
        return sum(p.stat().st_size for p in self.folder.iterdir() if p.is_file())


def is_current(folder: Path) -> bool:
    """Whether the folder holds an index of this schema version."""
    try:
        return json.loads((folder / VERSION_FILE).read_text()).get("schema") == SCHEMA_VERSION
    except (OSError, ValueError, AttributeError):
        return False


_OPEN: dict[Path, TextIndex] = {}
_OPENING = threading.Lock()


def for_folder(folder: Path, writable: bool = False) -> TextIndex:
    """This process's handle on the index in `folder`; `writable` to index into it."""
    folder = folder.resolve()
    with _OPENING:
        found = _OPEN.get(folder)
        stale = found is None or (writable and not found.writable) \
            or (found.in_memory and is_current(folder)) \
            or (not found.in_memory and not is_current(folder))
        if stale:
            found = _OPEN[folder] = TextIndex(folder, writable)
        return found


def forget(folder: Path) -> None:
    """Drop this process's handle on a folder's index (before removing it)."""
    with _OPENING:
        _OPEN.pop(folder.resolve(), None)


def write(writer: tantivy.IndexWriter, removed: Iterable[int],
          entries: Iterable[Entry]) -> None:
    """Replace these norms' documents (commit is the caller's)."""
    for norm_id in removed:
        writer.delete_documents_by_term("norm_id", norm_id)
    for entry in entries:
        writer.add_document(entry.document())


# -- queries ------------------------------------------------------------------------------


def _term(field: str, value: object) -> Query:
    return Query.term_query(SCHEMA, field, value)


def _joined(queries: Iterable[Query | None], occur: Occur) -> Query | None:
    """The queries given (None left out) joined by `occur`; one alone as it is."""
    kept = [q for q in queries if q is not None]
    if not kept:
        return None
    if len(kept) == 1:
        return kept[0]
    return Query.boolean_query([(occur, q) for q in kept])


def _should(queries: Iterable[Query | None]) -> Query | None:
    return _joined(queries, Occur.Should)


def _boost(query: Query, boost: float) -> Query:
    return query if boost == 1.0 else Query.boost_query(query, boost)


def _word(word: Word, scoring: bool = True) -> Query | None:
    if word.prefix or word.exact:
        # A prefix (tribut*) is of the word as written; a quoted word is that word.
        tokens = analysis.folded(word.raw)
        return _phrase_of(tokens, prefix=word.prefix) if tokens else None
    stems = analysis.stems_of(word.raw)
    if not stems:
        return None  # a stop word: it narrows nothing

    def in_field(field: str) -> Query:
        terms = [_boost(_term(field, s), w) for s, w in stems]
        return terms[0] if len(terms) == 1 else Query.disjunction_max_query(terms)

    if not scoring:
        return _as_typed(word, in_field(MATCH_FIELD))
    return _as_typed(word, Query.boolean_query(
        [(Occur.Must, in_field(MATCH_FIELD))]
        + [(Occur.Should, _boost(in_field(f), b)) for f, b in BOOST_FIELDS]))


def _as_typed(word: Word, stemmed: Query) -> Query:
    """`stemmed` (the word's stems somewhere), and, when the stem is short and cut from the
    word, the word as typed or in a regular inflection anywhere in the norm. Unrelated words
    share a short stem (táxi and taxa are "tax", cria and criar "cri", pode, poder and poda
    "pod"); the stem still ranks. A word that is its own stem (lei, rua) is left alone:
    nothing was cut that another word could share, and such common words would make the
    check walk most of the index."""
    stem = analysis.stem(word.raw)
    if stem is None or len(stem) > synonyms.SHORT_STEM or [stem] == analysis.folded(word.raw):
        return stemmed
    forms: set[str] = set()
    for token in analysis.folded(word.raw):
        forms |= {token, *analysis.inflections(token)}
    typed = _should(_term(f, form) for f, _ in EXACT_WORD_FIELDS for form in sorted(forms))
    return Query.boolean_query([(Occur.Must, stemmed),
                                (Occur.Must, Query.const_score_query(typed, 0.0))])


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if not c.isalnum() else c for c in text)


def _phrase_of(tokens: list[str], prefix: bool) -> Query:
    """Folded tokens in the exact fields: one word (or its prefix), or a phrase."""
    if len(tokens) == 1:
        if prefix:
            pattern = _regex_escape(tokens[0]) + ".*"
            return _should(_boost(Query.regex_query(SCHEMA, f, pattern), b)
                           for f, b in EXACT_WORD_FIELDS)
        return _should(_boost(_term(f, tokens[0]), b) for f, b in EXACT_WORD_FIELDS)
    make = Query.phrase_prefix_query if prefix else Query.phrase_query
    return _should(_boost(make(SCHEMA, f, tokens), b) for f, b in EXACT_FIELDS)


def _phrase(phrase: Phrase) -> Query | None:
    tokens = [t for w in phrase.words for t in analysis.folded(w.raw)]
    if not tokens:
        return None
    return _phrase_of(tokens, prefix=phrase.words[-1].prefix)


def compile_words(node: Node | None, scoring: bool = True) -> Query | None:
    """The query's words as a Tantivy query; None when nothing in it narrows the search
    (no words, or stop words only). Not `scoring`: the same matches without the clauses that
    only rank them (the ementa's BM25, the coordination rewards), for counting, faceting and
    listing by date: over the hundreds of thousands of norms a colloquial query's common
    words match at 1M norms, those clauses made each of these passes 1.5-3 times slower."""
    if node is None:
        return None
    if isinstance(node, Word):
        return _word(node, scoring)
    if isinstance(node, Phrase):
        return _phrase(node)
    if isinstance(node, Except):
        include = compile_words(node.include, scoring)
        exclude = compile_words(node.exclude, scoring)
        if include is None or exclude is None:
            return include
        return Query.boolean_query([(Occur.Must, include), (Occur.MustNot, exclude)])
    if isinstance(node, Some):
        return _some(node, scoring)
    if isinstance(node, Joined):
        return compile_words(node.node, scoring)
    parts = [compile_words(item, scoring) for item in node.items]
    if isinstance(node, Any_):
        if any(p is None for p in parts):
            # "a OR b" where a is a stop word: as broad as a stop word, i.e. no narrowing.
            return None
        return _should(parts)
    assert isinstance(node, All)
    return _joined(parts, Occur.Must)


# Words typed side by side are each optional (query.Some); a norm gains this much for each of
# them it holds (or holds a synonym of), beside their BM25: the norm holding more of the
# words ranks first ("coordination"), without a word the law does not use emptying the list.
# It was 2 (and 6 for the title): one word of the query in a short ementa then outweighed
# two more in the text of the law meant; at 6 and 3 the number of words held led, and at 9
# and 2 (chosen over 299 real queries, two groups of new topics among them) a common word in
# a short ementa outweighs less often the other words in the text of the law meant ("torre de
# celular": the radio-base-station law, not the Câmara's mobile phones); beyond 9 the long
# codes that hold every word come first again (docs/search.md).
COORDINATION = 9.0
# And this much more when it stands in what the norm says it is about (its ementa or the
# heading above its articles): a long code that holds every word somewhere in its body does
# not gain what the norm about them gains.
COORDINATION_TITLE = 2.0


# Where the coordination rewards are counted: every norm with its points, then the norms of
# each authority step above none with what takes the authority back out of those points.
_REWARD_VIEWS = ((MATCH_FIELD, TITLE_FIELDS, 1.0, None), *(
    (field, (title,), 1.0 / factor - 1.0, step) for field, title, (step, factor)
    in zip(CITED_FIELDS, CITED_TITLE_FIELDS, _AUTHORITY_STEPS, strict=True)))


def _matched(word: Word, field: str) -> Query | None:
    """The norms holding a plain word (its stems, as typed when short) in a stemmed field,
    for a constant score."""
    stems = analysis.stems_of(word.raw)
    if not stems:
        return None
    return _as_typed(word, _should(_term(field, s) for s, _ in stems))


def _in_title(word: Word, fields: Sequence[str] = TITLE_FIELDS) -> Query | None:
    """A plain word (its stems) in the ementa or the heading, for the coordination reward."""
    if word.prefix or word.exact:
        return None
    terms = [_term(f, s) for f in fields for s, _ in analysis.stems_of(word.raw)]
    return _as_typed(word, _should(terms)) if terms else None


def _rewards(item: Node, alternatives: list[tuple[str, ...]], scoring: bool
             ) -> tuple[list[Query], Query | None]:
    """The coordination rewards of a word typed (or of a quoted phrase, ...): COORDINATION for
    the norms holding it or an expression of its synonyms (`alternatives`), and
    COORDINATION_TITLE when that stands in the ementa or heading; and the title's matches
    alone (for the unscored query, which asks for nothing else).

    Tantivy multiplies a norm's whole score by its authority (weight_by_field), rewards
    included, so a cited norm of factor f is also given its rewards times (1/f - 1), which
    the multiplication turns into f x rewards x (1/f - 1): the rewards come out as their
    points. Authority multiplies what the words' BM25 says, not the reward for holding them
    (else a code many norms cite doubled its reward for every word its ementa lists, and
    outranked the law about them). The correction reads the word in the field of each
    step, which holds only the norms of that step: intersecting every match with each step
    instead walked every posting list four times more (two thirds of a search at 1M norms)."""
    plain = isinstance(item, Word) and not (item.prefix or item.exact)
    anywhere = None if plain else compile_words(item, scoring=False)
    rewards: list[Query] = []
    titles = None
    for field, title_fields, factor, step in _REWARD_VIEWS if scoring else _REWARD_VIEWS[:1]:
        if plain:
            own = _matched(item, field)
        elif step is None or anywhere is None:
            own = anywhere
        else:
            # A phrase or prefix is read in the exact fields, which hold every norm.
            own = Query.boolean_query([(Occur.Must, anywhere),
                                       (Occur.Must, Query.const_score_query(step, 0.0))])
        matched = _should([own, *(_joined([_matched(Word(w, w), field) for w in words],
                                          Occur.Must) for words in alternatives)])
        if matched is not None:
            rewards.append(Query.const_score_query(matched, COORDINATION * factor))
        titled = _should([_in_title(item, title_fields) if plain else None,
                          *(_joined([_in_title(Word(w, w), title_fields) for w in words
                                     if analysis.stem(w)], Occur.Must)
                            for words in alternatives)])
        if titled is not None:
            rewards.append(Query.const_score_query(titled, COORDINATION_TITLE * factor))
            if step is None:
                titles = titled
    return rewards, titles


def _some(node: Some, scoring: bool = True) -> Query | None:
    """Optional words (each scored, each rewarded once when matched, with the synonyms of
    the expressions they form), required ones (quoted, +word, AND) all a must."""
    required = [compile_words(item, scoring) for item in node.required]
    clauses = [(Occur.Must, q) for q in required if q is not None]
    typed = [item for item in node.items if not isinstance(item, Joined)]
    compiled = [compile_words(item, scoring) for item in typed]
    # Synonyms of the expressions formed by plain words standing side by side.
    plain: list[tuple[int, str]] = []  # (index in typed, stem) of each plain word
    for i, item in enumerate(typed):
        if isinstance(item, Word) and not (item.prefix or item.exact):
            own = analysis.stem(item.raw)
            if own:
                plain.append((i, own))
    covering: dict[int, list[tuple[str, ...]]] = {}  # the synonyms' expressions of a word
    folded = [" ".join(analysis.folded(typed[i].raw)) for i, _ in plain]
    for found in synonyms.expansions([stem for _, stem in plain], folded):
        asked: set[tuple] = set()
        for words in found.alternatives:
            # "transporte coletivo" and "transportes coletivos" ask for the same stems: once.
            stems = tuple(analysis.stems_of(w) for w in words)
            if stems in asked:
                continue
            asked.add(stems)
            parts = [_word(Word(w, w), scoring) for w in words]
            alternative = _joined(parts, Occur.Must)
            if alternative is None:
                continue
            # An expression stands for the words typed: its BM25 is their share, not the
            # sum over its own words ("idoso" asking for "maiores de sessenta e cinco
            # anos" must not weigh four rare words against the one typed).
            share = min(1.0, (found.end - found.start) / sum(p is not None for p in parts))
            clauses.append((Occur.Should, _boost(alternative,
                                                 synonyms.SYNONYM_WEIGHT * share)))
            for i, _ in plain[found.start:found.end]:
                covering.setdefault(i, []).append(words)
    rewards: list[Query] = []
    titles: list[Query] = []
    for i, query in enumerate(compiled):
        if query is None:
            continue
        clauses.append((Occur.Should, query))
        rewarded, titled = _rewards(typed[i], covering.get(i, []), scoring)
        rewards += rewarded
        if titled is not None:
            titles.append(titled)
    if scoring:
        clauses += [(Occur.Should, r) for r in rewards]
    else:
        # A reward matches only norms its word's clauses match, but for the title's: a word
        # may stand whole in the heading and cut in the body it was taken from. Those stay,
        # unscored: their postings are short.
        clauses += [(Occur.Should, t) for t in titles]
    clauses += [(Occur.Should, q) for q in (compile_words(item, scoring) for item in node.items
                                            if isinstance(item, Joined)) if q is not None]
    if not any(q is not None for q in compiled) and not any(
            occur == Occur.Must for occur, _ in clauses):
        return None  # stop words only ("do da dos"): their joinings ("dados") are no words
    if not any(occur == Occur.Should for occur, _ in clauses):
        return _joined([q for _, q in clauses], Occur.Must)
    if len(clauses) == 1:
        return clauses[0][1]
    return Query.boolean_query(clauses)


def filter_query(*, ufs: Sequence[str] = (), jurisdictions: Sequence[int] = (),
                 types: Sequence[str] = (), year_from: int | None = None,
                 year_to: int | None = None, methods: Sequence[str] = (),
                 min_confidence: float | None = None, has_text: bool | None = None,
                 numbers: Sequence[str] = (), statuses: Sequence[str] = (),
                 norm_ids: Sequence[int] | None = None) -> list[Query]:
    """Filter clauses (each must hold; OR within one)."""
    clauses: list[Query] = []

    def any_of(field: str, values: Sequence) -> None:
        if values:
            clauses.append(Query.term_set_query(SCHEMA, field, list(values)))

    any_of("uf", list(ufs))
    any_of("jur", list(jurisdictions))
    any_of("type", list(types))
    any_of("methods", list(methods))
    any_of("number", list(numbers))
    any_of("status", list(statuses))
    if norm_ids is not None:
        clauses.append(Query.term_set_query(SCHEMA, "norm_id", list(norm_ids))
                       if norm_ids else Query.empty_query())
    if has_text is not None:
        clauses.append(_term("text", "yes" if has_text else "no"))
    if year_from or year_to:
        clauses.append(Query.range_query(SCHEMA, "year", tantivy.FieldType.Integer,
                                         year_from or 1, year_to or 9999))
    if min_confidence:
        clauses.append(Query.range_query(SCHEMA, "confidence", tantivy.FieldType.Float,
                                         float(min_confidence), 2.0))
    return clauses


def combine(words: Query | None, filters: list[Query]) -> Query:
    """Words (scored) and filters (scoring nothing), all required; every norm without."""
    clauses = [(Occur.Must, words)] if words is not None else []
    clauses += [(Occur.Must, Query.const_score_query(f, 0.0)) for f in filters]
    if not clauses:
        return Query.all_query()
    return Query.boolean_query(clauses)


def before_day_key(key: int) -> Query:
    return Query.range_query(SCHEMA, "dayid", tantivy.FieldType.Integer, -1, key,
                             include_upper=False)


def before_norm(norm_id: int) -> Query:
    return Query.range_query(SCHEMA, "norm_id", tantivy.FieldType.Integer, -1, norm_id,
                             include_upper=False)


def sample_classes(matches: int, exact_up_to: int) -> int:
    """How many of the SAMPLES classes a facet estimate counts, so that about `exact_up_to`
    of `matches` norms are counted (at least one class)."""
    return max(1, min(SAMPLES, exact_up_to * SAMPLES // max(matches, 1)))


def in_sample(classes: int) -> Query:
    """The norms of the first `classes` sample classes."""
    return Query.range_query(SCHEMA, "sample", tantivy.FieldType.Integer, 0, classes - 1)


INDEX_FOLDER = "search-index"


def for_store(store, writable: bool = False) -> TextIndex:
    """The index of the corpus this store belongs to (`<corpus folder>/search-index`)."""
    if store.folder is None:
        raise UserError("this database was opened without its corpus folder, where the "
                        "search index lives: open it with open_corpus(folder)")
    return for_folder(Path(store.folder) / INDEX_FOLDER, writable)


# A query of at least this many words that no norm holds all of is asked again, for norms
# that hold all of its words but one.
RELAX_FROM = 3


def relaxed_words(typed: Node | None) -> tuple[Query | None, int]:
    """For "nomeação do secretário de saúde", which no norm may hold whole (it says
    'Nomeia … Secretário Municipal de Saúde'): the norms holding all of its words but one,
    and how many words that is; (None, 0) for queries this does not apply to."""
    if not isinstance(typed, All):
        return None, 0
    parts = [compile_words(item) for item in typed.items]
    kept = [p for p in parts if p is not None]
    if len(kept) < RELAX_FROM:
        return None, 0
    return (Query.boolean_query([(Occur.Should, p) for p in kept],
                                minimum_number_should_match=len(kept) - 1), len(kept))
