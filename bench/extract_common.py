"""What the extraction benches share: law pages to print or scan, timing, edit distance, a
throw-away corpus. Not a bench itself."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from locleg.corpus import init_corpus  # noqa: E402
from locleg.fixtures.laws import sample_text  # noqa: E402
from locleg.ingest.run import import_path  # noqa: E402

JUAZEIRO = 2918407


def paragraphs() -> list[str]:
    """Paragraphs of real law text: seed 000 (Juazeiro) and seed 001 (Espírito Santo)."""
    seed = [line for line in sample_text("juazeiro_lei_2199_2011.txt").splitlines()
            if line.strip()]
    state = [p.strip() for p in sample_text("es_lei_2482_1969.txt").split("\n") if p.strip()]
    return seed + state


def law_pages(count: int, chars: int = 2260) -> list[list[str]]:
    """count distinct pages of about `chars` characters each (the reference pages' density)."""
    pool = paragraphs()
    pages: list[list[str]] = []
    at = 0
    for n in range(count):
        page: list[str] = []
        size = 0
        at = (n * 7) % len(pool)
        while size < chars:
            text = pool[at % len(pool)][: chars - size + 40]
            page.append(text)
            size += len(text)
            at += 1
        pages.append(page)
    return pages


def median_time(fn: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def edit_distance(a: Sequence, b: Sequence) -> int:
    """Levenshtein distance of two sequences (characters or words), bit-parallel (Hyyrö 2001)."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq: dict = {}
    for i, item in enumerate(b):
        peq[item] = peq.get(item, 0) | (1 << i)
    mask = (1 << m) - 1
    last = 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for item in a:
        eq = peq.get(item, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & last:
            score += 1
        elif mh & last:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def error_rates(found: str, truth: str) -> tuple[float, float]:
    """Character and word error rates of OCR text against the printed text, spacing ignored."""
    found_words, truth_words = found.split(), truth.split()
    cer = edit_distance(" ".join(found_words), " ".join(truth_words)) / max(
        1, len(" ".join(truth_words)))
    wer = edit_distance(found_words, truth_words) / max(1, len(truth_words))
    return cer, wer


def corpus_with(files: dict[str, bytes], folder: Path | None = None):
    """A new SQLite corpus holding the files as norms of Juazeiro; returns the open corpus."""
    folder = Path(folder or tempfile.mkdtemp(prefix="locleg-bench-"))
    docs = folder / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (docs / name).write_bytes(data)
    corpus = init_corpus(folder / "corpus")
    import_path(corpus, docs, JUAZEIRO)
    return corpus


def texts_per_second(texts: Sequence[str], read: Callable[[str], object],
                     seconds: float = 3.0, clock: Callable[[], float] = time.perf_counter
                     ) -> float:
    """How many of these texts `read` gets through per second of CLOCK, over whole passes of
    them (time.process_time: per second of this process's CPU, on a shared machine)."""
    done, start = 0, clock()
    while clock() - start < seconds:
        for text in texts:
            read(text)
        done += len(texts)
    return done / (clock() - start)


def load_note() -> str:
    """The machine's load, printed with a figure: other work on the cores skews it."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def row(label: str, *cells: str) -> None:
    print(f"  {label:<44}" + "".join(f"{c:>16}" for c in cells), flush=True)
