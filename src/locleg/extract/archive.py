"""ZIP archives: every member extracted as part of the document, with limits against zip bombs.

Sizes written in a ZIP's directory may lie, so members are decompressed in chunks and the
reading stops as soon as a member or the whole archive passes its limit.
"""

from __future__ import annotations

import io
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .limits import DEFAULT_LIMITS, MB, Limits, human_bytes
from .result import ExtractionResult, PageText, failed, plural, weighted_confidence

BACKEND = "zipfile"
BACKEND_VERSION = f"Python {sys.version.split()[0]}"
_CHUNK = 1 << 20
_BOMB_FLOOR = 1 * MB  # below this, a high ratio is only a file of blanks
# Files that archivers add and that hold no document.
_NOISE = ("__MACOSX/", ".DS_Store", "Thumbs.db", "desktop.ini")
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError,
               NotImplementedError, RuntimeError, ValueError)


# Past this many times the member limit the directory is not even parsed: zipfile builds an
# object per entry (~500 bytes), and folders and archiver noise do not count as members.
_DIRECTORY_FACTOR = 4
_DIRECTORY_ENTRY_BYTES = 512  # a generous size of one directory entry with its name
_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"


class ArchiveError(Exception):
    """A damaged archive, or one that passes a limit: the message is the record's error line."""


def zip_directory(data: bytes) -> tuple[int, int] | None:
    """Entries and bytes of a ZIP's central directory as its end record declares them.

    Read from the End Of Central Directory record (and its ZIP64 twin) in the last 64 KB,
    as zipfile finds it, before zipfile parses the directory: a directory of two million
    entries costs zipfile a gigabyte. None when there is no end record.
    """
    at = data.rfind(_EOCD, max(0, len(data) - (1 << 16) - 22))
    if at < 0 or len(data) < at + 22:
        return None
    entries, size = struct.unpack_from("<HI", data, at + 10)
    if entries == 0xFFFF or size == 0xFFFFFFFF:
        locator = at - 20
        if locator >= 0 and data[locator:locator + 4] == _EOCD64_LOCATOR:
            (offset,) = struct.unpack_from("<Q", data, locator + 8)
            if offset + 56 <= len(data) and data[offset:offset + 4] == _EOCD64:
                entries, size = struct.unpack_from("<QQ", data, offset + 32)
    return entries, size


def check_directory(data: bytes, max_entries: int) -> None:
    """Refuse, before parsing, a directory with more than max_entries entries or its bytes."""
    found = zip_directory(data)
    if found is None:
        return  # no end record: zipfile says what is wrong
    entries, size = found
    if entries > max_entries or size > max_entries * _DIRECTORY_ENTRY_BYTES:
        raise ArchiveError(f"too many archive members ({entries:,} in a directory of "
                           f"{human_bytes(size)}; limit {max_entries:,})")


@contextmanager
def open_zip(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Iterator[zipfile.ZipFile]:
    check_directory(data, limits.zip_members * _DIRECTORY_FACTOR)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _ZIP_ERRORS as e:
        raise ArchiveError(f"damaged ZIP archive: {e}") from None
    with archive:
        yield archive


def read_member(archive: zipfile.ZipFile, name: str | zipfile.ZipInfo,
                limits: Limits = DEFAULT_LIMITS, budget: int | None = None) -> bytes:
    """A member's bytes, decompressed at most up to its share of the limits.

    budget is what the archive may still expand to in all (limits.zip_bytes by default).
    KeyError when there is no such member.
    """
    info = name if isinstance(name, zipfile.ZipInfo) else archive.getinfo(name)
    cap = min(limits.zip_bytes, budget if budget is not None else limits.zip_bytes)
    if info.flag_bits & 0x1:
        raise ArchiveError(f"encrypted archive member {info.filename}")
    _check_ratio(info.filename, info.file_size, info.compress_size, limits)
    if info.file_size > cap:
        raise ArchiveError(f"zip bomb? {info.filename} would expand to "
                           f"{human_bytes(info.file_size)} (limit {human_bytes(cap)})")
    parts: list[bytes] = []
    size = 0
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                size += len(chunk)
                if size > cap:
                    raise ArchiveError(f"zip bomb? {info.filename} expands past "
                                       f"{human_bytes(cap)}, more than its directory says")
                _check_ratio(info.filename, size, info.compress_size, limits)
                parts.append(chunk)
    except _ZIP_ERRORS as e:
        raise ArchiveError(f"damaged archive member {info.filename}: {e}") from None
    return b"".join(parts)


def _check_ratio(name: str, size: int, compressed: int, limits: Limits) -> None:
    if size > _BOMB_FLOOR and size > limits.zip_ratio * max(1, compressed):
        raise ArchiveError(f"zip bomb? {name} expands {size / max(1, compressed):,.0f}× "
                           f"(limit {limits.zip_ratio:,.0f}×)")


def _members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    return [
        info for info in archive.infolist()
        if not info.is_dir() and not any(n in info.filename for n in _NOISE)
    ]


def extract_zip(
    data: bytes,
    extract_member: Callable[[bytes, int], ExtractionResult],
    limits: Limits = DEFAULT_LIMITS,
    depth: int = 0,
) -> ExtractionResult:
    """Pages of every member in archive order; extract_member(bytes, depth) reads one member."""
    if depth >= limits.zip_depth:
        return failed(f"archives nested more than {limits.zip_depth} deep")
    try:
        with open_zip(data, limits) as archive:
            members = _members(archive)
            if len(members) > limits.zip_members:
                return failed(f"too many archive members ({len(members):,}; limit "
                              f"{limits.zip_members:,})")
            budget = limits.zip_bytes
            results: list[tuple[str, ExtractionResult]] = []
            for info in members:
                member = read_member(archive, info, limits, budget)
                budget -= len(member)
                results.append((info.filename, extract_member(member, depth + 1)))
    except ArchiveError as e:
        return failed(str(e))
    return _combine(results)


def _combine(results: list[tuple[str, ExtractionResult]]) -> ExtractionResult:
    if not results:
        return ExtractionResult("empty", "zip", BACKEND, BACKEND_VERSION,
                                detail="empty archive: no files in it")
    pages: list[PageText] = []
    notes: list[str] = []
    for name, result in results:
        for page in result.pages:
            pages.append(PageText(
                len(pages) + 1, page.text, page.method, page.confidence, page.chars,
                page.backend or result.backend, page.dpi,
                f"{name}, page {page.number}" + (f": {page.detail}" if page.detail else ""),
            ))
        if result.status == "failed":
            notes.append(f"{name}: failed: {result.error}")
        else:
            notes.append(f"{name}: {result.method or result.status}, "
                         f"{plural(len(result.pages), 'page')}")
    readable = [r for _, r in results if r.status != "failed"]
    combined = ExtractionResult("extracted", "zip", BACKEND, BACKEND_VERSION,
                                weighted_confidence(pages), pages)
    combined.detail = f"{plural(len(results), 'member')}: " + "; ".join(notes)
    if not readable:
        combined.status, combined.error = "failed", "no member could be read: " + "; ".join(
            f"{n}: {r.error}" for n, r in results)
        combined.detail = None
    elif any(r.status == "pending" for r in readable):
        combined.status = "pending"
    elif not combined.chars:
        combined.status, combined.confidence = "empty", None
    return combined
