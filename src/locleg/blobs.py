"""Content-addressed store of originals: one file per sha256, written atomically, verified on read."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
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


class BlobStore:
    """Originals under ROOT/ab/cd/<sha256>; a name is only ever a validated hex digest."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._tmp = self.root / ".tmp"

    def path_for(self, sha256: str) -> Path:
        # The digest is the whole name, so a crafted id can never climb out of the store.
        if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
            raise BlobError(f"not a sha256 digest: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:4] / sha256

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).is_file()

    def put(self, data: bytes, sha256: str | None = None) -> Stored:
        """Store bytes under their hash; a crash mid-write leaves only a temp file behind."""
        digest = sha256 or sha256_of(data)
        final = self.path_for(digest)
        if final.is_file():
            return Stored(digest, len(data), created=False)
        final.parent.mkdir(parents=True, exist_ok=True)
        self._tmp.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=self._tmp, prefix=digest[:12] + ".")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            # Same filesystem, so the rename is atomic: readers see all the bytes or no file.
            os.replace(tmp_name, final)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        return Stored(digest, len(data), created=True)

    def read(self, sha256: str) -> bytes:
        """The stored bytes, after checking they still hash to their name."""
        path = self.path_for(sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise BlobError(f"original {sha256} is missing from {self.root}") from None
        if sha256_of(data) != sha256:
            raise BlobError(f"original {sha256} is corrupted: its bytes no longer match its hash")
        return data

    def verify(self, sha256: str) -> str | None:
        """None when the file is intact, else what is wrong, reading in chunks."""
        path = self.path_for(sha256)
        digest = hashlib.sha256()
        try:
            with path.open("rb") as f:
                while chunk := f.read(_CHUNK):
                    digest.update(chunk)
        except FileNotFoundError:
            return "missing"
        return None if digest.hexdigest() == sha256 else "hash mismatch"

    def size(self, sha256: str) -> int | None:
        try:
            return self.path_for(sha256).stat().st_size
        except FileNotFoundError:
            return None

    def __iter__(self) -> Iterator[str]:
        """Every digest stored, in no particular order."""
        for first in sorted(self.root.glob("[0-9a-f][0-9a-f]")):
            for second in sorted(first.glob("[0-9a-f][0-9a-f]")):
                for path in second.iterdir():
                    if _SHA256.fullmatch(path.name):
                        yield path.name

    def leftover_temp_files(self) -> list[Path]:
        """Temp files of writes that a crash interrupted: harmless, safe to delete."""
        return sorted(self._tmp.glob("*")) if self._tmp.is_dir() else []

    def sync(self) -> None:
        """Flush written originals to disk before the rows naming them are committed."""
        os.sync()
