"""Originals on object storage (s3://, gs://, any fsspec URL), with the local store's guarantees.

An object store PUTs a whole object atomically: readers see all its bytes or no object, so
there is no temp file and no rename, and a key named by the sha256 of its bytes is written
once and never changes. A PUT the server acknowledged is durable, so sync() has nothing to
flush: the rows naming an original are still committed only after its PUT returned.
Endpoint and credentials come from the environment as the filesystem's library reads them
(AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE… for s3fs), never
from the URL, which is written to the corpus settings.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from ..dburl import has_password, safe_url
from ..errors import UserError
from .base import _CHUNK, _SHA256, BlobError, Stored, check_digest, sha256_of

# Written by init and migrate: proves the store is there and writable, and that a prefix
# holding it is a br-locleg originals store (a missing bucket or a typo is not).
MARKER = "locleg-originals.txt"
_MARKER_TEXT = b"br-locleg originals: one object per sha256, under <2 first hex digits>/<sha256>\n"
# Big originals are hashed as they stream in, a few MB per request.
_READ_BLOCK = 8 * _CHUNK
_LISTINGS = 16  # fan-out prefixes listed at once


class OriginalsUnavailable(UserError):
    """The originals store cannot be reached or refuses us: nothing stored was changed."""

    exit_code = 1


# A user:password@ anywhere in a message (an endpoint URL a library quotes back).
_USERINFO = re.compile(r"([a-z][a-z0-9+.-]*://[^:/?#@\s]*):[^@/?#\s]*@", re.IGNORECASE)


def masked(text: str) -> str:
    return _USERINFO.sub(r"\1:***@", text)


def reason(error: BaseException) -> tuple[str, str]:
    """What went wrong in a few words, and what to do, from botocore, aiohttp, s3fs or the OS."""
    name = type(error).__name__
    text = masked(str(error) or name)
    lowered = f"{name} {text}".lower()
    if isinstance(error, FileNotFoundError) or "nosuchbucket" in lowered:
        return (f"bucket or prefix not found ({text})",
                "check the URL and AWS_ENDPOINT_URL, or create the bucket")
    if isinstance(error, PermissionError) or any(
            w in lowered for w in ("accessdenied", "invalidaccesskeyid", "signaturedoesnotmatch",
                                   "forbidden", "credentials")):
        return (f"access refused ({text})",
                "check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)")
    if any(w in lowered for w in ("connect", "timeout", "timed out", "endpoint")):
        return (f"cannot connect ({text})",
                "what was stored is kept: run the command again once it answers")
    return (text if name in text else f"{name}: {text}",
            "what was stored is kept: run the command again")


class FsspecBlobStore:
    """Originals under URL/ab/<sha256>, on any filesystem fsspec knows."""

    # Writers that import at once (ingest.run._copy_files): a request's latency, not the
    # bandwidth, bounds one writer.
    parallel_writes = 8

    def __init__(self, url: str) -> None:
        import fsspec

        if has_password(url):
            raise UserError(f"originals URL {safe_url(url)!r} holds a password: give "
                            "credentials the standard way (AWS_ACCESS_KEY_ID, "
                            "AWS_SECRET_ACCESS_KEY, ~/.aws/credentials…), never in the URL")
        self.url = url.rstrip("/")
        # `root` is what workers are handed to open the same store (extraction, import).
        self.root = self.url
        try:
            self.fs, path = fsspec.core.url_to_fs(self.url)
        except (ImportError, ValueError) as e:
            raise UserError(f"cannot open originals at {safe_url(url)!r}: {e}") from None
        self._base = path.rstrip("/")

    def __repr__(self) -> str:
        return f"FsspecBlobStore({safe_url(self.url)!r})"

    def _key(self, sha256: str) -> str:
        check_digest(sha256)
        return f"{self._base}/{sha256[:2]}/{sha256}"

    def _unavailable(self, doing: str, error: BaseException) -> OriginalsUnavailable:
        what, hint = reason(error)
        return OriginalsUnavailable(
            f"originals store {safe_url(self.url)} unavailable while {doing}: {what}; {hint}")

    # -- the interface of local.BlobStore ------------------------------------------------

    def exists(self, sha256: str) -> bool:
        key = self._key(sha256)
        try:
            self.fs.info(key)
            return True
        except FileNotFoundError:
            return False
        except Exception as e:  # botocore/aiohttp errors share no base class with OSError
            raise self._unavailable(f"looking for {sha256}", e) from None

    def put(self, data: bytes, sha256: str | None = None, *, overwrite: bool = False) -> Stored:
        """PUT the bytes under their hash, unless an object is already there."""
        digest = sha256 or sha256_of(data)
        if not overwrite and self.exists(digest):
            return Stored(digest, len(data), created=False)
        try:
            self.fs.pipe_file(self._key(digest), data)
        except Exception as e:
            raise self._unavailable(f"storing {digest}", e) from None
        return Stored(digest, len(data), created=True)

    def read(self, sha256: str) -> bytes:
        """The stored bytes, after checking they still hash to their name."""
        key = self._key(sha256)
        try:
            data = self.fs.cat_file(key)
        except FileNotFoundError:
            raise BlobError(f"original {sha256} is missing from {safe_url(self.url)}") from None
        except Exception as e:
            raise self._unavailable(f"reading {sha256}", e) from None
        if sha256_of(data) != sha256:
            raise BlobError(f"original {sha256} is corrupted: its bytes no longer match its hash")
        return data

    def verify(self, sha256: str) -> str | None:
        """None when the object is intact, else what is wrong, hashing it as it streams."""
        key = self._key(sha256)
        digest = hashlib.sha256()
        try:
            with self.fs.open(key, "rb", block_size=_READ_BLOCK, cache_type="none") as f:
                while chunk := f.read(_READ_BLOCK):
                    digest.update(chunk)
        except FileNotFoundError:
            return "missing"
        except Exception as e:
            raise self._unavailable(f"verifying {sha256}", e) from None
        return None if digest.hexdigest() == sha256 else "hash mismatch"

    def size(self, sha256: str) -> int | None:
        key = self._key(sha256)
        try:
            self.fs.invalidate_cache(key)  # a listing may be stale: ask the store itself
            return int(self.fs.info(key)["size"])
        except FileNotFoundError:
            return None
        except Exception as e:
            raise self._unavailable(f"sizing {sha256}", e) from None

    def __iter__(self) -> Iterator[str]:
        """Every digest stored, listed one fan-out prefix at a time (bounded memory)."""
        for digest, _ in self.inventory():
            yield digest

    def inventory(self) -> Iterator[tuple[str, int]]:
        """(digest, size) of every stored original, from listings (no object is read).

        One listing per fan-out prefix, a few at once (each costs a round trip), so memory
        holds a few 256ths of the store's names, never all of them.
        """
        with ThreadPoolExecutor(_LISTINGS) as pool:
            yield from (entry for found in pool.map(self._listing, range(256))
                        for entry in found)

    def _listing(self, fan_out: int) -> list[tuple[str, int]]:
        prefix = f"{self._base}/{fan_out:02x}"
        try:
            found = self.fs.find(prefix, detail=True)
        except FileNotFoundError:
            return []
        except Exception as e:
            raise self._unavailable("listing the originals", e) from None
        finally:
            self.fs.invalidate_cache(prefix)
        names = ((key.rsplit("/", 1)[-1], info) for key, info in found.items())
        return sorted((name, int(info["size"])) for name, info in names
                      if _SHA256.fullmatch(name) and name[:2] == f"{fan_out:02x}")

    def leftover_temp_files(self) -> list:
        """None: an object PUT is whole or absent, and leaves no temp object behind."""
        return []

    def sync(self) -> None:
        """Nothing to flush: each PUT returned only once the store had kept the object."""

    # -- setting up ----------------------------------------------------------------------

    def create(self) -> None:
        """Write the marker: fails in one line on a missing bucket, bad credentials, no server."""
        try:
            self.fs.pipe_file(f"{self._base}/{MARKER}", _MARKER_TEXT)
        except Exception as e:
            raise self._unavailable("writing to it", e) from None

    def probe(self) -> None:
        """Check the store answers and is a br-locleg originals store (reads only)."""
        marker = f"{self._base}/{MARKER}"
        try:
            self.fs.invalidate_cache(marker)
            self.fs.info(marker)
        except FileNotFoundError:
            raise OriginalsUnavailable(
                f"no originals store at {safe_url(self.url)} (bucket or prefix missing, "
                f"no {MARKER}): check the URL and AWS_ENDPOINT_URL") from None
        except Exception as e:
            raise self._unavailable("opening it", e) from None
