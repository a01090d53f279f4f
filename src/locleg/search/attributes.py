"""The filter attributes of every indexed norm, in compact arrays in the searching process.

The index's facets count the words' matches; the norms a query names beyond them ("lei
2199" when the law does not hold the words) are counted in from these arrays: their UF,
jurisdiction, type, year, date, methods, confidence, legal status and cited-by count (about
25 bytes a norm), read from search_norm without a query per search.
The arrays follow the index: each use first asks for rows indexed since the last look.
"""

from __future__ import annotations

import threading
import weakref
from array import array
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine

from ..store.search_schema import search_norm

# Refreshes commit batches whose timestamps may interleave: look back this far each time.
_OVERLAP = timedelta(minutes=2)
_COLUMNS = (search_norm.c.norm_id, search_norm.c.jurisdiction_code, search_norm.c.uf,
            search_norm.c.type, search_norm.c.year, search_norm.c.day, search_norm.c.methods,
            search_norm.c.has_text, search_norm.c.confidence, search_norm.c.status,
            search_norm.c.cited_by, search_norm.c.indexed_at)


class Attributes:
    """Per-norm attributes by norm id; `rows()` answers in the candidates' tuple layout."""

    def __init__(self) -> None:
        self.code = array("i")
        self.uf = array("b")
        self.type = array("h")
        self.year = array("h")
        self.day = array("i")
        self.methods = array("h")
        self.has_text = array("b")
        self.confidence = array("f")
        self.status = array("b")
        self.cited_by = array("i")
        self.values: dict[str, list[str]] = {"uf": [""], "type": [""], "methods": [""],
                                             "status": [""]}
        self.codes: dict[str, dict[str, int]] = {k: {"": 0} for k in self.values}
        self.seen_up_to = None  # the newest indexed_at read
        self.lock = threading.Lock()

    def _value(self, kind: str, text: str) -> int:
        code = self.codes[kind].get(text)
        if code is None:
            code = len(self.values[kind])
            self.values[kind].append(text)
            self.codes[kind][text] = code
        return code

    def _grow(self, size: int) -> None:
        missing = size - len(self.code)
        if missing > 0:
            for column in (self.code, self.uf, self.type, self.year, self.day, self.methods,
                           self.has_text, self.status, self.cited_by):
                column.extend([0] * missing)
            self.confidence.extend([-1.0] * missing)

    def update(self, conn: Connection) -> None:
        """Read what was indexed since the last look (everything, the first time)."""
        newest = conn.scalar(select(func.max(search_norm.c.indexed_at)))
        if newest is None or newest == self.seen_up_to:
            return
        with self.lock:
            if newest == self.seen_up_to:  # another thread just did it
                return
            if self.seen_up_to is None:
                self._load_all(conn)
            else:
                self._load(conn, select(*_COLUMNS).where(
                    search_norm.c.indexed_at > self.seen_up_to - _OVERLAP))
            self.seen_up_to = newest

    def _load_all(self, conn: Connection) -> None:
        # Plain driver rows: a million of them load in a second or two.
        cursor = conn.connection.driver_connection.cursor()
        try:
            cursor.execute("SELECT norm_id, jurisdiction_code, uf, type, year, day, methods, "
                           "has_text, confidence, status, cited_by, NULL FROM search_norm")
            while part := cursor.fetchmany(50_000):
                self._store(part)
        finally:
            cursor.close()

    def _load(self, conn: Connection, query, stream: bool = True) -> None:
        """`stream`: many rows, read in parts (on PostgreSQL a server-side cursor, which a
        search's connection, outside any transaction, cannot open: it reads a few ids)."""
        if not stream:
            self._store(conn.execute(query).all())
            return
        result = conn.execution_options(yield_per=20_000).execute(query)
        for part in result.partitions():
            self._store(part)

    def _store(self, part) -> None:
        if part:
            self._grow(max(r[0] for r in part) + 1)
        for (norm_id, code, uf, type_, year, day, methods, has_text, confidence, status,
             cited_by, _) in part:
            self.code[norm_id] = code
            self.uf[norm_id] = self._value("uf", uf)
            self.type[norm_id] = self._value("type", type_)
            self.year[norm_id] = year or 0
            self.day[norm_id] = day
            self.methods[norm_id] = self._value("methods", methods)
            self.has_text[norm_id] = 1 if has_text else 0
            self.confidence[norm_id] = -1.0 if confidence is None else confidence
            self.status[norm_id] = self._value("status", status)
            self.cited_by[norm_id] = cited_by

    def rows(self, conn: Connection, ids_and_scores: list[tuple[int, float]]) -> list[tuple]:
        """(id, score, code, uf, type, year, day, methods, has_text, confidence, status,
        cited_by) per norm."""
        size = len(self.code)
        missing = [i for i, _ in ids_and_scores if i >= size or not self.code[i]]
        if missing:  # indexed after our last look: read those few now
            with self.lock:
                self._load(conn, select(*_COLUMNS).where(search_norm.c.norm_id.in_(missing)),
                           stream=False)
        uf, type_, methods = self.values["uf"], self.values["type"], self.values["methods"]
        status = self.values["status"]
        size = len(self.code)
        found = []
        for norm_id, score in ids_and_scores:
            if norm_id >= size or not self.code[norm_id]:
                continue
            confidence = self.confidence[norm_id]
            found.append((norm_id, score, self.code[norm_id], uf[self.uf[norm_id]],
                          type_[self.type[norm_id]], self.year[norm_id] or None,
                          self.day[norm_id], methods[self.methods[norm_id]],
                          bool(self.has_text[norm_id]),
                          None if confidence < 0 else round(confidence, 4),
                          status[self.status[norm_id]], self.cited_by[norm_id]))
        return found


_BY_ENGINE: weakref.WeakKeyDictionary[Engine, Attributes] = weakref.WeakKeyDictionary()
_CREATING = threading.Lock()


def attributes_for(engine: Engine) -> Attributes:
    with _CREATING:
        found = _BY_ENGINE.get(engine)
        if found is None:
            found = _BY_ENGINE[engine] = Attributes()
        return found
