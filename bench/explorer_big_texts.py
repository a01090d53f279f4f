"""Searching big texts full of the searched word: bounded snippets against snippet().

Builds a corpus of TEXTS norms whose texts are about CHARS characters each and full of
"moto" (one page each, as an RTF gives), plus one GIANT text, then times a search for
"moto" (20 results with snippets and facets), a phrase search and the export of every match.
The reference, timed in the same run on the same texts: what the result page computed
before issue 8, FTS5 snippet() + highlight() (SQLite, over an FTS5 table of the page's
texts built here) or ts_headline (PostgreSQL, over the same texts), the giant left out (on
SQLite it alone ran for more than 15 minutes).

    .venv/bin/python bench/explorer_big_texts.py [--texts 40] [--chars 1000000]
        [--giant 21000000] [--database-url postgresql+psycopg://...]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.explorer_fixtures import BIG_TEXT_WORD, build_big_text_corpus  # noqa: E402

from locleg.corpus import init_corpus  # noqa: E402
from locleg.search import SearchRequest, iter_matches, search  # noqa: E402
from locleg.search.normtext import norm_texts  # noqa: E402

# The result page's snippets before issue 8, one statement per backend.
SQLITE_REFERENCE = ("SELECT rowid, highlight(fts, 0, '[', ']'), "
                    "snippet(fts, 1, '[', ']', '…', 36) FROM fts WHERE fts MATCH 'moto'")
POSTGRESQL_REFERENCE = (
    "SELECT ts_headline('simple', :ementa, CAST('moto' AS tsquery), 'HighlightAll=true'), "
    "ts_headline('simple', :body, CAST('moto' AS tsquery), "
    "'MaxWords=36, MinWords=16, MaxFragments=2')")


def reference_snippets(store, ids: list[int]) -> float:
    """Seconds the snippets of these norms took before issue 8."""
    with store.engine.connect() as conn:
        texts = norm_texts(conn, ids)
        ementas = dict(conn.execute(text("SELECT id, ementa FROM norm")).all())
        if store.dialect == "sqlite":
            db = sqlite3.connect(":memory:")
            db.execute("CREATE VIRTUAL TABLE fts USING fts5(ementa, body, "
                       "tokenize = 'unicode61 remove_diacritics 2')")
            db.executemany("INSERT INTO fts (rowid, ementa, body) VALUES (?, ?, ?)",
                           [(i, ementas[i] or "", texts[i].body) for i in ids])
            return timed(lambda: db.execute(SQLITE_REFERENCE).fetchall(), 1)
        return timed(lambda: [conn.execute(text(POSTGRESQL_REFERENCE), {
            "ementa": ementas[i] or "", "body": texts[i].body}).all() for i in ids], 1)


def timed(fn, repeat: int) -> float:
    """Median seconds of `repeat` runs."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=40)
    parser.add_argument("--chars", type=int, default=1_000_000)
    parser.add_argument("--giant", type=int, default=21_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="locleg-big-") as folder:
        corpus = init_corpus(Path(folder) / "corpus", args.database_url)
        started = time.perf_counter()
        built = build_big_text_corpus(corpus, args.texts, args.chars, args.giant)
        indexed = time.perf_counter() - started
        store = corpus.store
        dialect = store.dialect
        page = search(store, SearchRequest(q=BIG_TEXT_WORD))
        shown = [h.norm_id for h in page.hits if h.norm_id != built.norms.get("giant")]
        reference = reference_snippets(store, shown)
        figures = {
            f'search "{BIG_TEXT_WORD}", 20 results + snippets + facets': timed(
                lambda: search(store, SearchRequest(q=BIG_TEXT_WORD)), args.repeat),
            "same, newest first": timed(
                lambda: search(store, SearchRequest(q=BIG_TEXT_WORD, sort="date")),
                args.repeat),
            'search "moto registrada" moto-táxi': timed(
                lambda: search(store, SearchRequest(q='"moto registrada" moto-táxi')),
                args.repeat),
            "export of every match": timed(
                lambda: list(iter_matches(store, SearchRequest(q=BIG_TEXT_WORD))), args.repeat),
        }
        corpus.close()
    giant = f" and one of {args.giant / 1e6:,.0f} MB" if args.giant else ""
    print(f"\n{args.texts} texts of {args.chars / 1e6:,.1f} MB{giant}, full of "
          f"\"{BIG_TEXT_WORD}\"; {dialect}; built and indexed in {indexed:,.1f} s\n")
    print(f"{'figure':<58}{'seconds':>9}{'× reference':>13}")
    print(f"{'reference: snippets as before, ' + str(len(shown)) + ' texts of the page':<58}"
          f"{reference:>9.2f}{1:>13.3f}")
    for name, seconds in figures.items():
        print(f"{name:<58}{seconds:>9.3f}{seconds / reference:>13.4f}")


if __name__ == "__main__":
    main()
