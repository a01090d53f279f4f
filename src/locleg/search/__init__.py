"""Full-text search over the corpus: a Tantivy index beside it, the same for SQLite and PostgreSQL.

    >>> from locleg.search import SearchRequest, refresh_index, search
    >>> refresh_index(store)                       # after anything wrote norms or text
    >>> result = search(store, SearchRequest(q="moto-táxi", ufs=("BA",)))
    >>> [(h.jurisdiction, h.number, h.year) for h in result.hits]
    >>> search(store, SearchRequest(q="lei 2199", jurisdictions=(2918407,))).hits[0].named
    True                                           # the norm the query names comes first

Every search runs within a Budget (DEADLINE seconds unless told otherwise): past it, the
database stops the work and SearchTooCostly says to narrow the search.
"""

from .budget import DEADLINE, Budget, SearchCancelled, SearchTooCostly
from .engine import PAGE, STATUSES, UFS, SearchRequest, SearchResult, StopWordsOnly, search
from .export import EXPORT_COLUMNS, csv_lines, iter_matches, jsonl_lines
from .hits import Hit
from .index import pending_changes, rebuild_index, refresh_index
from .query import QueryError, parse

__all__ = ["DEADLINE", "EXPORT_COLUMNS", "PAGE", "STATUSES", "UFS", "Budget", "Hit",
           "QueryError", "SearchCancelled", "SearchRequest", "SearchResult", "SearchTooCostly",
           "StopWordsOnly", "csv_lines", "iter_matches", "jsonl_lines", "parse", "pending_changes",
           "rebuild_index", "refresh_index", "search"]
