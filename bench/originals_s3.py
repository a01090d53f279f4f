"""Originals on object storage: import and fetch throughput on moto's S3 server vs the local store.

The same files (a mix of small texts and larger scans' sizes, random bytes so nothing
compresses) go, in the same run, through:
  - `locleg import` of a folder into a corpus with local originals, and into one with
    `--originals s3://…` (the whole command: plan, copy, rows);
  - the stores alone: put every original (then sync), and fetch every original back
    (read + sha256 verification), local BlobStore vs FsspecBlobStore, one at a time (as an
    extraction worker reads) and 8 at once (as import and migrate write to object storage).
It prints MB/s and files/s of each, and the S3/local ratio.

moto keeps objects in memory in one Python process on this machine: it stands in for an
S3-compatible server, it does not have a real S3's latency (tens of ms a request) or its
bandwidth. Local reads come from the page cache.

    .venv/bin/python bench/originals_s3.py [--files 400] [--mean-kb 128]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.s3server import KEY_ID, REGION, SECRET, S3Server  # noqa: E402

from locleg.originals import open_blobs  # noqa: E402
from locleg.originals.local import BlobStore  # noqa: E402

JUAZEIRO = "2918407"


def build_dump(folder: Path, files: int, mean_kb: int, seed: int = 13) -> list[bytes]:
    """FILES originals named as laws, sizes from 2 KB to ~4x the mean (log-uniform-ish)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    blobs = []
    for n in range(1, files + 1):
        size = int(min(4 * mean_kb, rng.expovariate(1 / mean_kb)) * 1024) + 2048
        data = f"LEI Nº {n}/2020\n".encode() + rng.randbytes(size)
        (folder / f"Lei{n}-2020.txt").write_bytes(data)
        blobs.append(data)
    return blobs


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def locleg(*args: str, env: dict) -> None:
    result = subprocess.run([sys.executable, "-m", "locleg", *args], env=env,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"locleg {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--mean-kb", type=int, default=128)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="locleg-bench-s3-"))
    server = S3Server().start()
    try:
        blobs = build_dump(work / "dump", args.files, args.mean_kb)
        total = sum(len(b) for b in blobs)
        digests = [hashlib.sha256(b).hexdigest() for b in blobs]
        mb = total / 1e6
        print(f"{args.files:,} files, {mb:,.1f} MB (mean {total / args.files / 1024:,.0f} KB); "
              f"moto_server {server.moto_port}")
        # Straight to moto, not through the suite's fault-injecting proxy.
        s3_env = {**os.environ, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{server.moto_port}",
                  "AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
                  "AWS_DEFAULT_REGION": REGION}
        os.environ.update(s3_env)
        server.create_bucket("bench")
        rows: list[tuple[str, float, float]] = []  # what, local s, s3 s

        # 1. The whole command, as a user runs it.
        local_corpus, s3_corpus = work / "local", work / "s3"
        locleg("init", str(local_corpus), env=s3_env)
        locleg("init", str(s3_corpus), "--originals", "s3://bench/import", env=s3_env)
        dump = str(work / "dump")
        t_local = timed(lambda: locleg("import", dump, "-j", JUAZEIRO, "--corpus",
                                       str(local_corpus), env=s3_env))
        t_s3 = timed(lambda: locleg("import", dump, "-j", JUAZEIRO, "--corpus", str(s3_corpus),
                                    env=s3_env))
        rows.append(("locleg import (whole command)", t_local, t_s3))

        # 2. The stores alone: put every original, then fetch each back, verified.
        local = BlobStore(work / "store")
        s3 = open_blobs("s3://bench/store")
        s3.create()

        def put_all(store) -> None:
            for data, digest in zip(blobs, digests, strict=True):
                store.put(data, digest)
            store.sync()

        def put_8(store) -> None:
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(store.put, blobs, digests))
            store.sync()

        def fetch_all(store) -> None:
            for digest in digests:
                store.read(digest)

        rows.append(("put (store only), one at a time", timed(lambda: put_all(local)),
                     timed(lambda: put_all(s3))))
        local8, s3_8 = BlobStore(work / "store8"), open_blobs("s3://bench/store8")
        rows.append(("put (store only), 8 threads", timed(lambda: put_8(local8)),
                     timed(lambda: put_8(s3_8))))
        rows.append(("fetch: read + verify, one at a time", timed(lambda: fetch_all(local)),
                     timed(lambda: fetch_all(s3))))

        def fetch_8(store) -> None:
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(store.read, digests))

        rows.append(("fetch: read + verify, 8 threads", timed(lambda: fetch_8(local)),
                     timed(lambda: fetch_8(s3))))

        print()
        print("| figure | local MB/s | local files/s | S3 (moto) MB/s | S3 files/s "
              "| S3 / local |")
        print("|---|---|---|---|---|---|")
        for what, t_l, t_s in rows:
            print(f"| {what} | {mb / t_l:,.1f} | {args.files / t_l:,.0f} | {mb / t_s:,.1f} "
                  f"| {args.files / t_s:,.0f} | {t_l / t_s:.2f} |")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
