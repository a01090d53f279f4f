"""Persistence of the corpus on SQLite or PostgreSQL."""

from . import (
    extraction_schema,  # noqa: F401  (per-page extraction details)
    gazette_schema,  # noqa: F401  (gazettes and their acts)
    harvest_schema,  # noqa: F401  (registers the harvester's tables)
    search_schema,  # noqa: F401  (registers the search index's tables)
)
from .db import STATUSES, Store, safe_url, utcnow
from .schema import metadata

__all__ = ["Store", "STATUSES", "metadata", "safe_url", "utcnow"]
