"""The content store of originals: a file per sha256, written once, read verified.

    base.py    what every backend shares: digests, Stored, BlobError, is_url
    local.py   a local folder (BlobStore)
    fsspec.py  object storage, s3:// or any fsspec URL (FsspecBlobStore)
    move.py    moving a corpus's originals from one store to another

open_blobs picks the backend a location names, a path or a URL. The choice lives here, above
the backends: each builds on base.py only, and base.py imports none of them
(tests/test_layout.py fails on any two product modules that import each other).
"""

from __future__ import annotations

from pathlib import Path

from .base import is_url
from .fsspec import FsspecBlobStore
from .local import BlobStore

Originals = BlobStore | FsspecBlobStore


def open_blobs(location: str | Path) -> Originals:
    """The originals store at LOCATION: a folder (a path, or file://) or any fsspec URL.

    Workers get the location as a string and open the same store with this.
    """
    if is_url(location):
        return FsspecBlobStore(str(location))
    text = str(location)
    return BlobStore(Path(text[len("file://"):] if text.startswith("file://") else text))
