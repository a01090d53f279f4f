"""The opening characters of a stored page text, never the whole of a huge one.

SQLite's substr() loads the whole of a text before it cuts it: a 100 MB page would be held
whole by every search and norm page that shows its opening. Pages of a version over
WHOLE_TEXT_CHARS characters (or of unknown size) are read instead by their first bytes,
through SQLite's incremental blob I/O, by rowid. PostgreSQL's substr() decompresses a text
only as far as it needs, so it reads every page in SQL.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection

# A version up to this many characters is cut in SQL (a transient copy of a few MB at most).
WHOLE_TEXT_CHARS = 1_000_000


def read_opening(conn: Connection, page_rowid: int, chars: int) -> str:
    """The first CHARS characters of the page whose SQLite rowid is PAGE_ROWID."""
    driver = conn.connection.driver_connection
    with driver.blobopen("page", "text", page_rowid, readonly=True) as blob:
        # 4 bytes at most a character; a character cut at the end is dropped.
        return blob.read(4 * chars).decode("utf-8", "ignore")[:chars]
