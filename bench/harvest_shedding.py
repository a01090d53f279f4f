"""Shedding figure: files a harvest gets from hosts that answer each file's first request
`503 Retry-After: 1` (then the file), against the same hosts without shedding.

N synthetic câmaras (sapl.sinteticaN.ba.leg.br on one in-process fixture server, through a
resolver override) with F texto integral files each, harvested with the engine's production
settings (5 failures in a row park a host for 6 h; 6 attempts), the operator's delay 0. The
reference is the same harvest from hosts that do not shed, measured in the same run. A host
that sheds load must give all its files, in about F × Retry-After seconds (its pauses, one
after the other; the hosts in parallel), never be parked.

    .venv/bin/python bench/harvest_shedding.py [--hosts 8] [--files 6] [--retry-after 1]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from locleg.corpus import init_corpus  # noqa: E402
from locleg.fixtures.harvesting import add_source, counts  # noqa: E402
from locleg.fixtures.sapl_server import SaplServer, synthetic_camaras  # noqa: E402
from locleg.harvest.engine import HarvestConfig, harvest  # noqa: E402
from locleg.harvest.net import Resolver, parse_overrides  # noqa: E402


def one_run(work: Path, name: str, hosts: int, files: int, retry_after: float | None
            ) -> tuple[int, int, float, int]:
    """(files fetched, hosts parked, seconds, requests for files) of one harvest."""
    camaras = synthetic_camaras(hosts, files, files_every=1, crawl_delay=None)
    with SaplServer(camaras) as srv:
        if retry_after is not None:
            srv.add_fault("503", "^/media/", times=1, value=retry_after, each_target=True)
        corpus = init_corpus(work / name)
        for host in camaras:
            add_source(corpus, f"http://{host}", delay=0.0)
        # Production settings but the rolling revalidation (it adds a file request a cycle).
        config = HarvestConfig(default_delay=0.0, revalidate_days=0.0)
        started = time.monotonic()
        report = harvest(corpus, config=config,
                         resolver=Resolver(parse_overrides(srv.resolve_env())))
        seconds = time.monotonic() - started
        fetched = counts(corpus)["versions"]
        corpus.close()
        asked = len(srv.requests(path="^/media/"))
    return fetched, len(report.parked), seconds, asked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--files", type=int, default=6, help="files per host")
    parser.add_argument("--retry-after", type=float, default=1.0)
    args = parser.parse_args()
    total = args.hosts * args.files
    work = Path(tempfile.mkdtemp(prefix="locleg-bench-shedding-"))
    try:
        reference = one_run(work, "reference", args.hosts, args.files, None)
        shedding = one_run(work, "shedding", args.hosts, args.files, args.retry_after)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    floor = args.files * args.retry_after
    print(f"{args.hosts} hosts × {args.files} files; shedding: each file's first request "
          f"503 Retry-After {args.retry_after:g} s (floor ≈ {floor:g} s: a host's pauses one "
          "after the other)")
    print(f"{'hosts':<18} {'files':>9} {'parked':>6} {'file requests':>13} {'seconds':>8} "
          f"{'ratio files':>11}")
    ref_files = reference[0] or 1
    for label, (fetched, parked, seconds, asked) in (("not shedding", reference),
                                                     ("shedding load", shedding)):
        print(f"{label:<18} {fetched:>4}/{total:<4} {parked:>6} {asked:>13} {seconds:>8.2f} "
              f"{fetched / ref_files:>11.2f}")


if __name__ == "__main__":
    main()
