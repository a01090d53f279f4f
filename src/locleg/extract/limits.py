"""Limits that keep one bad document from costing a run more than it is worth.

Size, page and pixel limits are checked by the extractors before the expensive step (reading,
rendering, decompressing); the time and memory limits are enforced by the runner's worker
processes (run.py, worker.py), which a runaway document may kill without harm to the run.
"""

from __future__ import annotations

from dataclasses import dataclass

MB = 1 << 20
GB = 1 << 30


@dataclass(frozen=True)
class Limits:
    time_s: float = 300.0  # per document, wall clock, in a worker
    memory_bytes: int = 2 * GB  # address space of a worker (RLIMIT_AS)
    file_bytes: int = 512 * MB  # originals larger than this are not read
    pages: int = 5000  # pages of a PDF or frames of a TIFF
    pixels: int = 100_000_000  # an image, or a page rendered for OCR (A3 at 600 dpi is 70 M)
    zip_members: int = 1000
    zip_bytes: int = 512 * MB  # all members together, uncompressed
    zip_ratio: float = 200.0  # a member that expands more than this (past 1 MB) is a bomb
    zip_depth: int = 2  # archives inside archives
    # Characters of text on one stored page: a longer page (an RTF or TXT of a whole code,
    # one 84-million-character page was seen) is split into several, nothing is cut.
    page_chars: int = 200_000


DEFAULT_LIMITS = Limits()


def human_bytes(n: float) -> str:
    """2147483648 -> '2 GB'; 536870912 -> '512 MB' (binary units, written as people say them)."""
    for unit, size in (("GB", GB), ("MB", MB), ("KB", 1024)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) or value >= 10 else (
                f"{value:.1f} {unit}")
    return f"{int(n)} bytes"


def parse_bytes(text: str) -> int:
    """'2G', '2 GB', '500M', '1048576' -> bytes; ValueError for anything else."""
    cleaned = text.strip().upper().replace(" ", "").removesuffix("B").removesuffix("I")
    factor = 1
    if cleaned and cleaned[-1] in "KMG":
        factor = {"K": 1024, "M": MB, "G": GB}[cleaned[-1]]
        cleaned = cleaned[:-1]
    value = float(cleaned)
    if value <= 0:
        raise ValueError(text)
    return int(value * factor)
