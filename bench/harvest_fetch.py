"""File fetch figure: `locleg harvest` fetching originals from 50 SAPL hosts on loopback, delay 0.

50 synthetic câmaras (sapl.sinteticaN.ba.leg.br, pointed at one fixture server process by
LOCLEG_RESOLVE) with 40 texto integral files each. Their listings are harvested first
(`--no-files`); then `locleg harvest` fetches the 2,000 files (one request at a time per
host, 16 in flight) into the corpus: sha256, content-addressed originals, version rows.
Prints files/s and the ratio against plain concurrent httpx GETs of the same files (same
concurrency, same transport, nothing stored), measured in the same run.

    .venv/bin/python bench/harvest_fetch.py [--hosts 50] [--files 40] [--backends sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pgserver import PostgresServer  # noqa: E402

from locleg.corpus import init_corpus  # noqa: E402
from locleg.fixtures.harvesting import add_source  # noqa: E402
from locleg.harvest.net import Resolver, make_client, parse_overrides  # noqa: E402

CONCURRENCY = 16
TARGET_RATE = 200
TARGET_RATIO = 0.7


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(hosts: int, files: int, size: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "locleg.fixtures.sapl_server", "--port", str(port),
         "--synthetic", str(files), "--camaras", str(hosts), "--files-every", "1",
         "--file-size", str(size), "--crawl-delay", "-1"], stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return child, port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("fixture server did not start")


def harvest(corpus: Path, env: dict, *args: str) -> tuple[str, float]:
    result = subprocess.run([sys.executable, "-m", "locleg", "harvest", *args],
                            env={**env, "LOCLEG_CORPUS": str(corpus)}, capture_output=True,
                            text=True)
    if result.returncode:
        raise RuntimeError(f"locleg harvest failed:\n{result.stdout}\n{result.stderr}")
    seconds = float(re.search(r"Harvested in ([\d,.]+) s", result.stdout)[1].replace(",", ""))
    return result.stdout, seconds


async def plain_gets(urls: list[str], resolve: str) -> float:
    """The reference: the same files with concurrent httpx GETs, read and dropped."""
    client = make_client(Resolver(parse_overrides(resolve)), timeout=60,
                         max_connections=CONCURRENCY * 2)
    bound = asyncio.Semaphore(CONCURRENCY)

    async def get(url: str) -> int:
        async with bound:
            response = await client.get(url)
            response.raise_for_status()
            return len(response.content)

    started = time.monotonic()
    try:
        await asyncio.gather(*(get(u) for u in urls))
    finally:
        await client.aclose()
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=50)
    parser.add_argument("--files", type=int, default=40, help="files per host")
    parser.add_argument("--size", type=int, default=20_000, help="bytes per file")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    server, port = start_server(args.hosts, args.files, args.size)
    names = [f"sapl.sintetica{i}.ba.leg.br" for i in range(1, args.hosts + 1)]
    resolve = ",".join(f"{n}=127.0.0.1:{port}" for n in names) + ",*="
    env = {**os.environ, "LOCLEG_RESOLVE": resolve, "COLUMNS": "250"}
    urls = [f"http://{n}/media/sapl/public/normajuridica/{1990 + i % 35}/{i}/norma_{i}.pdf"
            for n in names for i in range(1, args.files + 1)]
    total = len(urls)
    work = Path(tempfile.mkdtemp(prefix="locleg-bench-fetch-"))
    pg = None
    try:
        asyncio.run(plain_gets(urls[:200], resolve))  # warm up the server
        reference = asyncio.run(plain_gets(urls, resolve))
        print(f"reference: {total:,} plain concurrent httpx GETs ({CONCURRENCY} in flight): "
              f"{reference:.2f} s ({total / reference:,.0f} files/s)")
        print(f"{'backend':<11} {'hosts':>5} {'files':>6} {'seconds':>8} {'files/s':>8} "
              f"{'ratio':>6}  targets: ≥ {TARGET_RATE} files/s, ratio ≥ {TARGET_RATIO}")
        for backend in args.backends.split(","):
            folder = work / backend
            url = None
            if backend == "postgresql":
                pg = pg or PostgresServer().start()
                url = pg.create_database("bench_fetch")
            corpus = init_corpus(folder, url)
            for n in names:
                add_source(corpus, f"http://{n}", delay=0.0)
            corpus.close()
            harvest(folder, env, "--no-files", "--concurrency", str(CONCURRENCY))
            out, seconds = harvest(folder, env, "--concurrency", str(CONCURRENCY))
            fetched = int(re.search(r"([\d,]+) files fetched", out)[1].replace(",", ""))
            assert fetched == total, out
            rate = fetched / seconds
            print(f"{backend:<11} {args.hosts:>5} {fetched:>6,} {seconds:>8.2f} {rate:>8,.0f} "
                  f"{reference / seconds:>6.2f}", flush=True)
    finally:
        server.terminate()
        server.wait()
        if pg:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
