"""The local backend of the originals store: a file per sha256 under a folder, written
atomically, read verified (object storage is fsspec.py; both build on base.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
from collections.abc import Iterator
from pathlib import Path

from .base import _CHUNK, _SHA256, BlobError, Stored, check_digest, sha256_of


class BlobStore:
    """Originals under ROOT/ab/<sha256>; a name is only ever a validated hex digest.

    One level of 256 folders, as git does: a second level would create a folder for almost
    every file of a young corpus, and ext4 indexes big folders well.
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._tmp = self.root / ".tmp"
        self._made_dirs: set[str] = set()  # fan-out folders known to exist: skip the mkdir
        self._writes = itertools.count()

    def path_for(self, sha256: str) -> Path:
        check_digest(sha256)
        return self.root / sha256[:2] / sha256

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).is_file()

    def put(self, data: bytes, sha256: str | None = None, *, overwrite: bool = False) -> Stored:
        """Store bytes under their hash; a crash mid-write leaves only a temp file behind.

        overwrite replaces a file already there (a damaged copy being repaired).
        """
        digest = sha256 or sha256_of(data)
        final = str(self.path_for(digest))
        if not overwrite and os.path.isfile(final):
            return Stored(digest, len(data), created=False)
        fan_out = digest[:2]
        if fan_out not in self._made_dirs:
            os.makedirs(os.path.dirname(final), exist_ok=True)
            self._tmp.mkdir(parents=True, exist_ok=True)
            self._made_dirs.add(fan_out)
        # Unique per process and write: concurrent writers of the same bytes never collide.
        partial = os.path.join(self._tmp, f"{digest[:16]}.{os.getpid()}.{next(self._writes)}")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            # Same filesystem, so the rename is atomic: readers see all the bytes or no file.
            os.replace(partial, final)
        except BaseException as e:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial)
            if isinstance(e, OSError) and e.errno is not None and e.filename is None:
                # write() names no file: say which original (a full disk says where).
                raise OSError(e.errno, e.strerror, final) from e
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
        for fan_out in sorted(self.root.glob("[0-9a-f][0-9a-f]")):
            for path in fan_out.iterdir():
                if _SHA256.fullmatch(path.name):
                    yield path.name

    def inventory(self) -> Iterator[tuple[str, int]]:
        """(digest, size) of every stored original, one fan-out folder at a time."""
        for fan_out in sorted(self.root.glob("[0-9a-f][0-9a-f]")):
            with os.scandir(fan_out) as entries:
                found = [(e.name, e.stat().st_size) for e in entries
                         if _SHA256.fullmatch(e.name) and e.is_file()]
            yield from sorted(found)

    def leftover_temp_files(self) -> list[Path]:
        """Temp files of writes that a crash interrupted: harmless, safe to delete."""
        return sorted(self._tmp.glob("*")) if self._tmp.is_dir() else []

    def sync(self) -> None:
        """Flush written originals to disk before the rows naming them are committed."""
        os.sync()

    def create(self) -> None:
        """Make the folder of a new store."""
        self.root.mkdir(parents=True, exist_ok=True)

    def probe(self) -> None:
        """Nothing to check: a missing or damaged file is reported by the read that meets it."""

    @property
    def url(self) -> str:
        return str(self.root)
