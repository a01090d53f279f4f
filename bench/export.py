"""Release throughput and size: `locleg export` of the explorer bench corpus, per format,
metadata only and with text, each in its own process (its peak RSS measured).

The corpus is bench/out/explorer-N (bench/explorer_corpus.py builds and caches it; the
export only reads it). Figures: norms/s of a metadata-only release (target >= 20,000), MB/s
of text written by the texts table beside a plain copy of the same text bytes (a file of
them copied and flushed to disk, measured in the same run), peak RSS (target <= 300 MB), and
the size of a release per 100k norms.

    .venv/bin/python bench/export.py --norms 100000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import explorer_corpus  # noqa: E402

TARGET_NORMS_PER_S = 20_000
TARGET_RSS_MB = 300


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(corpus_dir: Path, out: Path, fmt: str, with_text: bool) -> None:
    """One export in this process; prints its figures as JSON."""
    from locleg.corpus import open_corpus
    from locleg.export import export_release, make_options

    corpus = open_corpus(corpus_dir)
    marks: list[tuple[str, float]] = []
    started = time.perf_counter()
    report = export_release(corpus, out, make_options(corpus, fmt, with_text=with_text),
                            on_table=lambda name, _i: marks.append((name, time.perf_counter())))
    ended = time.perf_counter()
    corpus.close()
    marks.append(("end", ended))
    tables = {name: marks[i + 1][1] - at for i, (name, at) in enumerate(marks[:-1])}
    print(json.dumps({"seconds": ended - started, "tables": report.tables,
                      "table_seconds": tables, "bytes": report.bytes,
                      "peak_rss_mb": _peak_rss_mb()}))


def _text_file(corpus_dir: Path, target: Path) -> int:
    """The page texts the release holds, as one file: what the plain copy copies."""
    import sqlite3

    db = sqlite3.connect(corpus_dir / "corpus.db")
    size = 0
    with open(target, "wb") as f:
        for (text,) in db.execute("SELECT p.text FROM page p JOIN document d "
                                  "ON d.current_version_id = p.version_id"):
            data = text.encode("utf-8")
            size += len(data)
            f.write(data)
    db.close()
    return size


def _copy_mb_s(source: Path, target: Path) -> float:
    started = time.perf_counter()
    shutil.copyfile(source, target)
    fd = os.open(target, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    return source.stat().st_size / 1e6 / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--formats", default="parquet,jsonl,csv")
    parser.add_argument("--child", nargs=4, metavar=("CORPUS", "OUT", "FORMAT", "TEXT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        corpus_dir, out, fmt, text = args.child
        child(Path(corpus_dir), Path(out), fmt, text == "text")
        return
    print(f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    folder = explorer_corpus.build(args.norms, explorer_corpus.corpus_folder(args.norms))
    work = folder.parent / f"export-{args.norms}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        text_bytes = _text_file(folder, work / "texts.bin")
        copy = _copy_mb_s(work / "texts.bin", work / "texts-copy.bin")
        (work / "texts-copy.bin").unlink()
        print(f"reference: plain copy of the {text_bytes / 1e6:,.0f} MB of page text "
              f"(copied and flushed): {copy:,.0f} MB/s")
        per_100k = 100_000 / args.norms
        for fmt in args.formats.split(","):
            for with_text in (False, True):
                out = work / f"{fmt}-{'text' if with_text else 'meta'}"
                result = subprocess.run(
                    [sys.executable, __file__, "--child", str(folder), str(out), fmt,
                     "text" if with_text else "meta"], capture_output=True, text=True,
                    check=True)
                figures = json.loads(result.stdout.splitlines()[-1])
                norms = figures["tables"]["norms"]
                line = (f"{fmt:8s} {'with text' if with_text else 'metadata':9s}: "
                        f"{norms:,} norms in {figures['seconds']:,.1f} s = "
                        f"{norms / figures['seconds']:,.0f} norms/s; peak RSS "
                        f"{figures['peak_rss_mb']:,.0f} MB (target <= {TARGET_RSS_MB}); "
                        f"{figures['bytes'] / 1e6 * per_100k:,.1f} MB per 100k norms")
                if with_text:
                    seconds = figures["table_seconds"]["texts"]
                    rate = text_bytes / 1e6 / seconds
                    line += (f"; texts table {seconds:,.1f} s = {rate:,.0f} MB/s of text, "
                             f"copy/export {copy / rate:,.1f}x")
                else:
                    line += f" (target >= {TARGET_NORMS_PER_S:,} norms/s)"
                print(line, flush=True)
                shutil.rmtree(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
