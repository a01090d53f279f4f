"""SAPL 2.5 listing ingest: `locleg harvest --no-files` of a 10,000-norm SAPL 2.5 stand-in, next
to SAPL 3.1's listing of a 10,000-norm SAPL stand-in in the same run, delay 0.

Both stand-ins run in processes of their own (locleg.fixtures.sapl25_server, the SAPL 3.1
fixture server's synthetic mode), every norm with a texto integral. A SAPL 2.5 cycle reads the
search form, then per norm type its RSS 2.0 feed and its HTML results (500 rows a page),
splitting any search that hits the 5,000-row cap; SAPL 3.1 reads one get_all listing. Prints
norms/s and requests per norm for each, and the ratio of SAPL 2.5's rate to SAPL 3.1's.

    .venv/bin/python bench/harvest_sapl25.py [--norms 10000] [--backends sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harvest_listing import JUAZEIRO, locleg, run_harvest, start_server, start_stand_in

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pgserver import PostgresServer  # noqa: E402


def start_sapl25(norms: int) -> tuple[subprocess.Popen, str]:
    return start_stand_in("sapl25_server", "--norms", str(norms))


def harvest(platform: str, base_url: str, corpus: Path, init: list[str]) -> tuple[int, float,
                                                                                   int]:
    """(norms listed, seconds, requests) of a first `harvest --no-files` of one source."""
    locleg(*init, corpus=corpus)
    locleg("sources", "add", platform, base_url, "-j", JUAZEIRO, "--delay", "0", corpus=corpus)
    out, seconds, _ = run_harvest(corpus, "--no-files")
    listed = int(re.search(r"([\d,]+) norms listed", out)[1].replace(",", ""))
    host = base_url.split("://", 1)[1]
    requests = int(re.search(rf"{re.escape(host)}\s+([\d,]+)\s", out)[1].replace(",", ""))
    return listed, seconds, requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--norms", type=int, default=10_000)
    parser.add_argument("--backends", default="sqlite")
    args = parser.parse_args()
    sapl31, sapl31_url = start_server(args.norms, 1)
    sapl25, sapl25_url = start_sapl25(args.norms)
    work = Path(tempfile.mkdtemp(prefix="locleg-bench-sapl25-"))
    pg = None
    try:
        rows = []
        for backend in args.backends.split(","):
            for platform, url in (("sapl", sapl31_url), ("sapl25", sapl25_url)):
                corpus = work / f"{backend}-{platform}"
                init = ["init", str(corpus)]
                if backend == "postgresql":
                    pg = pg or PostgresServer().start()
                    init += ["--db", pg.create_database(f"bench_{platform}")]
                listed, seconds, requests = harvest(platform, url, corpus, init)
                assert listed == args.norms, (platform, listed)
                rows.append((backend, platform, listed, seconds, requests))
        print(f"{'backend':<11} {'platform':<9} {'norms':>7} {'seconds':>8} {'norms/s':>8} "
              f"{'requests':>9} {'req/norm':>9} {'vs 3.1':>7}")
        rates = {(b, p): n / s for b, p, n, s, _ in rows}
        for backend, platform, listed, seconds, requests in rows:
            ratio = rates[(backend, platform)] / rates[(backend, "sapl")]
            print(f"{backend:<11} {platform:<9} {listed:>7,} {seconds:>8.2f} "
                  f"{listed / seconds:>8,.0f} {requests:>9,} {requests / listed:>9.4f} "
                  f"{ratio:>7.2f}")
    finally:
        for child in (sapl31, sapl25):
            child.terminate()
            child.wait()
        if pg:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
