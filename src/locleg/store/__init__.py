"""Persistence of the corpus on SQLite or PostgreSQL."""

from .db import STATUSES, Store, safe_url, utcnow
from .schema import metadata

__all__ = ["Store", "STATUSES", "metadata", "safe_url", "utcnow"]
