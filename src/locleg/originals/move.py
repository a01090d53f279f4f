"""Move a corpus's originals to another store (a folder, s3://…, any fsspec URL), losing none.

Every original is read verified from the old store, PUT to the new one and read back
verified there; one already in the new store and intact is skipped, so an interrupted move
resumes where it stopped. The settings are switched to the new store only once both sides
hold the same originals (same digests, same total bytes) and nothing is missing; the old
store is left in place, to be removed by hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..config import set_originals
from ..corpus import Corpus
from ..dburl import safe_url
from ..errors import UserError
from . import open_blobs
from .base import BlobError, is_url

# Object stores are bound by round trips, not bandwidth: a few requests in flight at once.
THREADS = 8


@dataclass(frozen=True)
class Inventory:
    """What a store holds of a set of originals: their count, bytes and one digest of all."""

    originals: int
    bytes: int
    checksum: str  # sha256 over the sorted "sha256 size" lines

    @classmethod
    def of(cls, sizes: dict[str, int]) -> Inventory:
        digest = hashlib.sha256()
        for sha256 in sorted(sizes):
            digest.update(f"{sha256} {sizes[sha256]}\n".encode())
        return cls(len(sizes), sum(sizes.values()), digest.hexdigest())


@dataclass
class MoveReport:
    source: str = ""
    target: str = ""
    copied: int = 0
    already_there: int = 0  # in the target already and intact: skipped
    repaired: int = 0  # in the target but damaged: copied again
    copied_bytes: int = 0
    before: Inventory | None = None  # the old store
    after: Inventory | None = None  # the same originals, in the new store
    errors: list[str] = field(default_factory=list)
    switched: bool = False


def normalized_location(location: str) -> str:
    """A URL as given (no trailing slash); a path made absolute, as the settings keep it."""
    if is_url(location):
        return location.rstrip("/")
    return str(Path(location.removeprefix("file://")).expanduser().resolve())


def move_originals(
    corpus: Corpus,
    location: str,
    *,
    threads: int = THREADS,
    on_planned: Callable[[int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> MoveReport:
    """Copy every original of CORPUS to LOCATION, verify both sides, then switch the settings."""
    source = corpus.blobs
    target_location = normalized_location(location)
    report = MoveReport(safe_url(str(source.url)), safe_url(target_location))
    if target_location == normalized_location(str(source.url)):
        raise UserError(f"the originals are already at {report.target}")
    target = open_blobs(target_location)
    target.create()  # a missing bucket or refused credentials: one line, before any copy
    source.probe()
    # Every original stored, named by a version or not (an interrupted run's are kept too).
    sizes = dict(source.inventory())
    referenced = corpus.store.referenced_digests()
    missing = sorted(referenced - sizes.keys())
    for sha256 in missing:
        report.errors.append(f"original {sha256} is named by a version but missing from "
                             f"{report.source}")
    if on_planned:
        on_planned(len(sizes))

    def move_one(sha256: str) -> tuple[str, int, str | None]:
        verdict = target.verify(sha256)
        if verdict is None:
            return "already", 0, None
        try:
            data = source.read(sha256)
        except BlobError as e:
            return "error", 0, str(e)
        target.put(data, sha256, overwrite=True)
        if target.verify(sha256) is not None:
            return "error", 0, f"original {sha256} does not read back intact from {report.target}"
        return ("repaired" if verdict == "hash mismatch" else "copied"), len(data), None

    with ThreadPoolExecutor(max(1, threads)) as pool:
        for outcome, size, error in pool.map(move_one, sorted(sizes)):
            if outcome == "already":
                report.already_there += 1
            elif outcome == "error":
                report.errors.append(error or "")
            else:
                report.copied += outcome == "copied"
                report.repaired += outcome == "repaired"
                report.copied_bytes += size
            if on_progress:
                on_progress(1)
    report.before = Inventory.of(sizes)
    held = {sha256: size for sha256, size in target.inventory() if sha256 in sizes}
    report.after = Inventory.of(held)
    if report.before != report.after and not report.errors:
        report.errors.append(f"the new store holds {report.after.originals:,} of the "
                             f"{report.before.originals:,} originals: run the command again")
    if report.errors:
        return report
    set_originals(corpus.folder, target_location)
    report.switched = True
    return report


def removal_hint(old: str) -> str:
    """How to remove the old store once the user is satisfied with the new one."""
    if is_url(old):
        return (f"remove it with your storage's tools once you are satisfied, e.g. "
                f"`aws s3 rm --recursive {old}/`" if old.startswith("s3://")
                else "remove it with your storage's tools once you are satisfied")
    return f"remove it once you are satisfied: rm -r {old}"

