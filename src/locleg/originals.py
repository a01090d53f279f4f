"""The originals store at a location: a local folder (blobs.BlobStore) or object storage
(blobs_fsspec.FsspecBlobStore), picked from the corpus settings' location, a path or a URL.

The choice lives here, above both backends: the object-storage backend builds on the local
one's digests and errors, and the local one never imports it back (tests/test_layout.py
fails on any two product modules that import each other).
"""

from __future__ import annotations

from pathlib import Path

from .blobs import BlobStore, is_url
from .blobs_fsspec import FsspecBlobStore

Originals = BlobStore | FsspecBlobStore


def open_blobs(location: str | Path) -> Originals:
    """The originals store at LOCATION: a folder (a path, or file://) or any fsspec URL.

    Workers get the location as a string and open the same store with this.
    """
    if is_url(location):
        return FsspecBlobStore(str(location))
    text = str(location)
    return BlobStore(Path(text[len("file://"):] if text.startswith("file://") else text))
