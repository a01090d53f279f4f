"""What every originals backend shares: the digest that names an original, its checks, the
errors a backend raises, and which locations are URLs. No backend is imported here: each one
builds on this module (local.py, fsspec.py), and the package's open_blobs picks one.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

_SHA256 = re.compile(r"[0-9a-f]{64}")
_CHUNK = 1 << 20


class BlobError(Exception):
    """A stored original is missing or does not match its hash."""


@dataclass(frozen=True)
class Stored:
    sha256: str
    size: int
    created: bool  # False when the same bytes were already stored


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_digest(sha256: object) -> None:
    # The digest is the whole name, so a crafted id can never climb out of the store.
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise BlobError(f"not a sha256 digest: {sha256!r}")


def is_url(location: str | Path) -> bool:
    """An fsspec URL (s3://bucket/prefix…), not a local path (file:// is a local path)."""
    return (isinstance(location, str) and "://" in location
            and not location.startswith("file://"))
