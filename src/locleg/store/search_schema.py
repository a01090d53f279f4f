"""The search index's Core tables: change queue, per-norm filter attributes, precomputed counts.

Defined on the corpus `metadata`; migrations 0003, 0006, 0008 and 0009 create exactly this,
plus what Core cannot express: the triggers that fill `search_queue` whenever a norm (its
fields, legal status or cited-by count), record, document or extraction changes. The text
index itself is a Tantivy index in the corpus folder (search/textindex.py).
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
)

from .schema import Timestamp, metadata

# Norms whose index entry is out of date. Triggers append a row in the writer's own
# transaction; refresh_index() removes exactly the rows it has read, so a change committed
# while a refresh runs is never lost.
search_queue = Table(
    "search_queue",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("norm_id", Integer, nullable=False),
)

# One row per indexed norm: what filters, facets and keyset pagination need, without
# touching the norm, document and extraction tables.
search_norm = Table(
    "search_norm",
    metadata,
    Column("norm_id", Integer, ForeignKey("norm.id"), primary_key=True, autoincrement=False),
    Column("jurisdiction_code", Integer, nullable=False),
    Column("uf", String(2), nullable=False),
    Column("type", String(64), nullable=False),  # LexML type, 'none' when unknown
    Column("year", Integer),
    Column("day", Integer, nullable=False),  # yyyymmdd, yyyy0000 with only a year, 0 unknown
    Column("methods", String(64), nullable=False),  # extraction methods, space-separated
    Column("has_text", Boolean, nullable=False),
    Column("confidence", Float),  # the lowest of its documents' with text; null without text
    Column("documents", Integer, nullable=False),
    Column("pages", Integer, nullable=False),
    Column("indexed_at", Timestamp, nullable=False),
    # Its legal status (enrich/status.py) and how many other norms cite it (migration 0008):
    # the status filter and facet, and the authority signal of the ranking.
    Column("status", String(24), nullable=False, default="none_known"),
    Column("cited_by", Integer, nullable=False, default=0),
)
Index("ix_search_norm_jurisdiction_day", search_norm.c.jurisdiction_code, search_norm.c.day,
      search_norm.c.norm_id)
Index("ix_search_norm_day", search_norm.c.day, search_norm.c.norm_id)
Index("ix_search_norm_indexed_at", search_norm.c.indexed_at)

# Counts per jurisdiction that do not depend on a query, recomputed when its norms change.
search_place = Table(
    "search_place",
    metadata,
    Column("jurisdiction_code", Integer, primary_key=True, autoincrement=False),
    Column("uf", String(2), nullable=False),
    Column("norms", Integer, nullable=False),
    Column("removed", Integer, nullable=False),
    Column("with_text", Integer, nullable=False),
    Column("documents", Integer, nullable=False),
    Column("fetched", Integer, nullable=False),
    Column("pending", Integer, nullable=False),
    Column("extracted", Integer, nullable=False),
    Column("empty", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("pages", Integer, nullable=False),
    Column("newest_day", Integer, nullable=False),
    Column("updated_at", Timestamp, nullable=False),
)
Index("ix_search_place_uf", search_place.c.uf)

# Facet counts per jurisdiction (type, year, method, text, legal status, ocr confidence
# decile), summed per UF and for the whole corpus at refresh time.
search_facet = Table(
    "search_facet",
    metadata,
    Column("scope", String(16), primary_key=True),  # j:2918407, uf:BA, all
    Column("facet", String(16), primary_key=True),
    Column("value", String(64), primary_key=True),
    Column("uf", String(2), nullable=False),  # '' for the whole-corpus scope
    Column("count", Integer, nullable=False),
)
Index("ix_search_facet_uf", search_facet.c.uf, search_facet.c.scope)
