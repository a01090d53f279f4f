"""The explorer's reads: each page's function returns the JSON-ready data of that page.

One module per group of pages, as the routes (web/views/) group them, over a shared part:

    common.py        errors, ids and page tokens, the jurisdiction list, summaries, counts
    places.py        the home page, the place finder, a federative unit's page
    jurisdiction.py  a jurisdiction's page: keyset listing, filters, facets
    norms.py         a norm's page, a document's page, the original behind a download
    operations.py    extraction quality and the sources' health

Counts that do not depend on a query come from the precomputed search_place and
search_facet tables; lists are paged by key (never OFFSET); nothing here writes.
"""

from .common import LEGAL_STATUSES, STATUSES, BadRequest, Moved, NotFound
from .jurisdiction import jurisdiction_page, parse_after, parse_listing_filters
from .norms import PAGE_TEXT_SHOWN, document_page, norm_page, original_of
from .operations import quality_page, sources_page
from .places import find_places, home, uf_page

__all__ = ["LEGAL_STATUSES", "PAGE_TEXT_SHOWN", "STATUSES", "BadRequest", "Moved", "NotFound",
           "document_page", "find_places", "home", "jurisdiction_page", "norm_page",
           "original_of", "parse_after", "parse_listing_filters", "quality_page", "sources_page",
           "uf_page"]
