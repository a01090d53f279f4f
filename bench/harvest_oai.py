"""Listing ingest of an OAI-PMH (oai_lexml) publisher next to SAPL 3.1's, in the same run.

`locleg harvest --no-files` of a 10,000-norm OAI-PMH stand-in (SAPL's /sistema/lexml/oai:
10 records a page, offset tokens, from/until windows split past `oai_max_pages`) and of a
10,000-norm SAPL 3.1 stand-in (`get_all=true` streamed), delay 0, SQLite. Prints norms/s
(distinct norms stored over the harvest's own time) and requests per norm.

    .venv/bin/python bench/harvest_oai.py [--norms 10000] [--max-pages 10]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from harvest_listing import (  # noqa: E402
    JUAZEIRO,
    locleg,
    run_harvest,
    start_server,
    start_stand_in,
)


def start_oai(norms: int, files_every: int) -> tuple[subprocess.Popen, str]:
    return start_stand_in("oai_server", "--norms", str(norms), "--files-every",
                          str(files_every), path="/sistema/lexml/oai")


def measure(platform: str, url: str, corpus: Path, max_pages: int) -> tuple[int, int, float]:
    """(norms stored, requests made, seconds) of one listing harvest."""
    locleg("init", str(corpus), corpus=corpus)
    locleg("sources", "add", platform, url, "-j", JUAZEIRO, "--delay", "0", corpus=corpus)
    if platform == "oai":
        _set_max_pages(corpus, max_pages)
    out, seconds, _ = run_harvest(corpus, "--no-files")
    requests = sum(int(n.replace(",", "")) for n in
                   re.findall(r"127\.0\.0\.1:\d+\s+([\d,]+)\s", out))
    listed = json.loads(locleg("sources", "list", "--json", corpus=corpus))
    return listed[0]["norms"], requests, seconds


def _set_max_pages(corpus: Path, max_pages: int) -> None:
    sys.path.insert(0, str(BENCH.parent / "src"))
    from locleg.corpus import open_corpus
    from locleg.store.schema import source

    opened = open_corpus(corpus)
    try:
        with opened.store.transaction() as conn:
            row = conn.execute(source.select()).mappings().one()
            settings = {**json.loads(row["settings"] or "{}"), "oai_max_pages": max_pages}
            conn.execute(source.update().values(settings=json.dumps(settings)))
    finally:
        opened.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--norms", type=int, default=10_000)
    parser.add_argument("--files-every", type=int, default=2)
    parser.add_argument("--max-pages", type=int, default=10,
                        help="pages an OAI window may take before it is split")
    args = parser.parse_args()
    servers = [start_oai(args.norms, args.files_every),
               start_server(args.norms, args.files_every)]
    work = Path(tempfile.mkdtemp(prefix="locleg-bench-oai-"))
    try:
        rows = []
        for (_, url), (platform, label) in zip(servers, [("oai", "OAI-PMH (oai_lexml)"),
                                                         ("sapl", "SAPL 3.1 (get_all)")],
                                               strict=True):
            norms, requests, seconds = measure(platform, url, work / platform, args.max_pages)
            assert norms == args.norms, (platform, norms)
            rows.append((label, norms, requests, seconds))
        print(f"{'platform':<22} {'norms':>7} {'requests':>9} {'seconds':>8} {'norms/s':>8} "
              f"{'req/norm':>9}")
        for label, norms, requests, seconds in rows:
            print(f"{label:<22} {norms:>7,} {requests:>9,} {seconds:>8.2f} "
                  f"{norms / seconds:>8,.0f} {requests / norms:>9.3f}")
    finally:
        for child, _ in servers:
            child.terminate()
            child.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
