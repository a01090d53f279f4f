"""A 100 MB text: what showing its opening holds in memory, and what indexing it costs.

Builds a SQLite corpus with one norm whose text is CHARS characters full of "moto" (one page,
as an RTF or a TXT gives, built by code) and a small one, indexed as any text is (the time
and the process's peak memory of that are printed). Then, in the same process, the peak
memory growth (sampled every 5 ms) and time of a search for "moto" that shows the giant
norm, and of its norm page's data, both reading the page's opening through store/openings.py;
the reference, in the same run: the statement they ran before issue 23, SQLite's
substr(text, 1, 100001) of that page, which loads the whole text first.

    .venv/bin/python bench/giant_text.py [--chars 100000000]
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

from sqlalchemy import text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from tests.explorer_fixtures import BIG_TEXT_WORD, build_big_text_corpus  # noqa: E402

from locleg.corpus import init_corpus  # noqa: E402
from locleg.search import SearchRequest, search  # noqa: E402
from locleg.search.snippets import WINDOW  # noqa: E402
from locleg.web.data import norm_page  # noqa: E402


def _rss() -> int:
    with open("/proc/self/status") as status:
        return int(status.read().split("VmRSS:")[1].split()[0]) * 1024


def peak_growth(work) -> tuple[float, float]:
    """(MB the process's resident memory grew by at its peak, seconds) while WORK runs."""
    gc.collect()
    before, peak, halt = _rss(), [0], threading.Event()

    def sample() -> None:
        while not halt.wait(0.005):
            peak[0] = max(peak[0], _rss())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    work()
    seconds = time.monotonic() - started
    halt.set()
    sampler.join()
    return max(0, max(peak[0], _rss()) - before) / 1e6, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=100_000_000)
    args = parser.parse_args()
    corpus = init_corpus(Path(tempfile.mkdtemp(prefix="giant-")) / "corpus")
    started = time.monotonic()
    built = build_big_text_corpus(corpus, texts=1, chars=10_000, giant_chars=args.chars)
    print(f"built and indexed a {args.chars / 1e6:,.0f} M-character text in "
          f"{time.monotonic() - started:,.1f} s; peak memory of the process so far "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:,.0f} MB")
    store, giant = corpus.store, built.norms["giant"]
    request = SearchRequest(q=BIG_TEXT_WORD)
    assert giant in [h.norm_id for h in search(store, request).hits]  # warm: first-use costs
    mb, seconds = peak_growth(lambda: search(store, request))
    print(f"search showing it: peak +{mb:,.1f} MB, {seconds:,.2f} s")
    page_mb, page_seconds = peak_growth(lambda: norm_page(store, str(giant)))
    print(f"its norm page's data: peak +{page_mb:,.1f} MB, {page_seconds:,.2f} s")

    def reference() -> None:
        with store.engine.connect() as conn:
            conn.execute(text("SELECT substr(p.text, 1, :chars) FROM page p JOIN version v "
                              "ON v.id = p.version_id WHERE v.id = :v"),
                         {"chars": WINDOW + 1, "v": built.versions["giant"]}).all()

    ref_mb, ref_seconds = peak_growth(reference)
    print(f"reference, substr of the page as before: peak +{ref_mb:,.1f} MB, "
          f"{ref_seconds:,.2f} s")
    print(f"ratio: the reference held {ref_mb / max(mb, page_mb, 1.0):,.0f}x the memory "
          "(search or norm page, whichever held more; 1 MB at least)")
    corpus.close()


if __name__ == "__main__":
    main()
