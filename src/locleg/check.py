"""Verify a corpus: every original against its hash, every version row against its file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .corpus import Corpus


@dataclass
class CheckReport:
    versions: int = 0
    originals: int = 0
    errors: list[str] = field(default_factory=list)  # something is wrong or lost
    notes: list[str] = field(default_factory=list)  # harmless leftovers, e.g. of a killed run

    @property
    def ok(self) -> bool:
        return not self.errors


def check_corpus(
    corpus: Corpus,
    on_planned: Callable[[int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> CheckReport:
    store, blobs = corpus.store, corpus.blobs
    blobs.probe()  # an unreachable object store is one line, not every original "missing"
    report = CheckReport()
    report.errors.extend(store.consistency_problems())
    referenced = store.referenced_digests()
    # One listing gives every size (on object storage a request per original saved); an
    # original stored since is asked for by itself.
    sizes = dict(blobs.inventory())
    if on_planned:
        on_planned(len(referenced))
    verdicts: dict[str, str | None] = {}
    for row in store.iter_versions():
        report.versions += 1
        digest = row["sha256"]
        if digest not in verdicts:
            verdicts[digest] = blobs.verify(digest)
            if on_progress:
                on_progress(1)
        verdict = verdicts[digest]
        if verdict is not None:
            report.errors.append(f"version {row['id']}: original {digest} {verdict}")
        elif (sizes[digest] if digest in sizes else blobs.size(digest)) != row["size"]:
            report.errors.append(
                f"version {row['id']}: recorded size {row['size']} differs from the file's"
            )
    report.originals = len(verdicts)
    unreferenced = 0
    for digest in sizes:
        if digest not in referenced:
            unreferenced += 1
            if blobs.verify(digest) is not None:
                report.errors.append(f"unreferenced original {digest} is corrupted")
    if unreferenced:
        report.notes.append(
            f"{unreferenced} stored original(s) not yet named by any version "
            "(left by an interrupted run; the next run of it will use them)"
        )
    leftovers = blobs.leftover_temp_files()
    if leftovers:
        report.notes.append(
            f"{len(leftovers)} temporary file(s) of interrupted writes in {blobs.root / '.tmp'} "
            "(safe to delete)"
        )
    return report
