"""Full-text search over the corpus: SQLite FTS5 or PostgreSQL tsvector, the same behaviour.

    >>> from locleg.search import SearchRequest, refresh_index, search
    >>> refresh_index(store)                       # after anything wrote norms or text
    >>> result = search(store, SearchRequest(q="moto-táxi", ufs=("BA",)))
    >>> [(h.jurisdiction, h.number, h.year) for h in result.hits]
"""

from .engine import CAP, PAGE, UFS, Hit, SearchRequest, SearchResult, iter_matches, search
from .index import pending_changes, rebuild_index, refresh_index
from .query import QueryError, parse

__all__ = ["CAP", "PAGE", "UFS", "Hit", "QueryError", "SearchRequest", "SearchResult",
           "iter_matches", "parse", "pending_changes", "rebuild_index", "refresh_index",
           "search"]
