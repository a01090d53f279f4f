"""Ingest figure: `locleg import` of N small synthetic norms from a manifest, SQLite and PostgreSQL.

Prints norms/s and peak RSS of the import process, and the ratio against the floor any
importer has to pay: reading, hashing and writing the same files into a content-addressed
folder (measured in the same run).

    .venv/bin/python bench/ingest.py [--norms 100000] [--backends sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pgserver import PostgresServer  # noqa: E402

JUAZEIRO = "2918407"
TYPES = ["Lei Ordinária", "Decreto", "Lei Complementar", "Resolução", "Portaria"]


def build_dump(folder: Path, count: int) -> Path:
    """N small text norms in 100 sub-folders, and their manifest."""
    manifest = folder / "manifest.csv"
    if manifest.exists():
        return manifest
    folder.mkdir(parents=True, exist_ok=True)
    with manifest.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["file", "type", "number", "year", "date", "ementa", "native_id", "url"])
        for i in range(count):
            year = 1990 + i % 35
            kind = TYPES[i % len(TYPES)]
            name = f"{i % 100:02d}/norma-{i}.txt"
            path = folder / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(
                f"{kind.upper()} Nº {i}/{year}\nDispõe sobre a organização do serviço nº {i} "
                f"no âmbito do Município, e dá outras providências.\nArt. 1º Fica instituído…\n",
                encoding="utf-8",
            )
            writer.writerow([name, kind, str(i), str(year), f"{year}-{1 + i % 12:02d}-15",
                             f"Dispõe sobre o serviço nº {i}.", f"n{i}",
                             f"https://example.org/norma/{i}.txt"])
    return manifest


def floor_copy(dump: Path, target: Path) -> float:
    """Read, hash and atomically write every file once: the I/O floor of an import."""
    start = time.perf_counter()
    tmp = target / ".tmp"
    tmp.mkdir(parents=True)
    for path in sorted(dump.rglob("*.txt")):
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        final = target / digest[:2] / digest
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = tmp / digest
        partial.write_bytes(data)
        os.replace(partial, final)
    os.sync()
    return time.perf_counter() - start


def run_import(locleg: str, corpus: Path, manifest: Path, db_url: str | None) -> tuple[float, int]:
    """(seconds, peak RSS in MB) of `locleg import` as a user runs it, after `locleg init`."""
    init = [locleg, "init", str(corpus)] + (["--db", db_url] if db_url else [])
    subprocess.run(init, check=True, capture_output=True)
    start = time.perf_counter()
    proc = subprocess.Popen([locleg, "import", str(manifest), "-j", JUAZEIRO,
                             "--corpus", str(corpus)], stdout=subprocess.DEVNULL)
    # The import copies files in a child process: the peak is over the whole process tree.
    peak_kb = 0
    while proc.poll() is None:
        peak_kb = max(peak_kb, tree_rss_kb(proc.pid))
        time.sleep(0.05)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"import failed with status {proc.returncode}")
    return elapsed, peak_kb // 1024


def tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (0 once gone)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines()
                       if line.startswith("VmRSS:")), 0)
        todo.extend(int(c) for c in children)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--work", type=Path, default=ROOT / "bench" / "out" / "ingest")
    args = parser.parse_args()
    locleg = str(ROOT / ".venv" / "bin" / "locleg")
    dump = build_dump(args.work / f"dump-{args.norms}", args.norms)
    scratch = Path(tempfile.mkdtemp(prefix="locleg-bench-", dir=args.work))
    try:
        floor = floor_copy(dump.parent, scratch / "floor")
        print(f"floor (read+sha256+atomic write of {args.norms:,} files): "
              f"{args.norms / floor:,.0f} files/s")
        for backend in args.backends.split(","):
            server = PostgresServer().start() if backend == "postgresql" else None
            try:
                db_url = server.create_database("bench") if server else None
                elapsed, peak = run_import(locleg, scratch / backend, dump, db_url)
            finally:
                if server:
                    server.stop()
            rate = args.norms / elapsed
            print(f"{backend:10s} import of {args.norms:,} norms: {elapsed:6.1f} s = "
                  f"{rate:,.0f} norms/s (ratio to floor {rate / (args.norms / floor):.2f}), "
                  f"peak RSS {peak} MB")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
