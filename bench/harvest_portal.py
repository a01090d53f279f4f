"""Portal listing figures: `locleg harvest --no-files` of each worked example on a 10k-norm
stand-in, next to SAPL 3.1's listing of a 10k-norm SAPL stand-in in the same run.

Each stand-in (locleg.fixtures.portal_servers es|go|sp, and the SAPL stand-in in synthetic
mode) runs in a process of its own, robots.txt without Crawl-delay, the source at delay 0:
what is measured is the harvester's own cost (requests, parsing, writes), not politeness.
Prints norms/s, requests per norm and the ratio of each portal's rate to SAPL's; then the
worked examples' sizes in lines (adding a state portal is one TOML file).

    .venv/bin/python bench/harvest_portal.py [--norms 10000]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harvest_listing import locleg, run_harvest, start_server, start_stand_in  # noqa: E402

EXAMPLES = ROOT / "src" / "locleg" / "harvest" / "portals"
PORTALS = {"es": ("32", "ASP.NET postback, 20/page"), "go": ("52", "JSON API, 100/page"),
           "sp": ("35", "one ZIP of XML")}


def start_portal(name: str, laws: int) -> tuple[subprocess.Popen, str]:
    return start_stand_in("portal_servers", name, "--laws", str(laws))


def requests_made(out: str, base_url: str) -> int:
    """The harvest's own count of requests to the stand-in (its hosts table)."""
    host = base_url.split("://", 1)[1]
    match = re.search(rf"{re.escape(host)}\s+([\d,]+)", out)
    return int(match[1].replace(",", "")) if match else 0


def measure(corpus: Path, add: list[str], base_url: str, norms: int) -> tuple[int, float, int]:
    locleg("init", str(corpus), corpus=corpus)
    locleg("sources", "add", *add, "--delay", "0", corpus=corpus)
    out, seconds, _ = run_harvest(corpus, "--no-files")
    listed = int(re.search(r"([\d,]+) norms listed", out)[1].replace(",", ""))
    assert listed == norms, out
    return listed, seconds, requests_made(out, base_url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--norms", type=int, default=10_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="locleg-bench-portal-"))
    rows = []
    try:
        server, base_url = start_server(args.norms, 0)
        try:
            listed, seconds, requests = measure(work / "sapl", ["sapl", base_url, "-j",
                                                                "2918407"], base_url,
                                                args.norms)
            rows.append(("sapl", "SAPL 3.1 REST API, get_all", listed, seconds, requests))
        finally:
            server.terminate()
            server.wait()
        for name, (code, shape) in PORTALS.items():
            server, base_url = start_portal(name, args.norms)
            try:
                text = (EXAMPLES / f"{name}.toml").read_text("utf-8")
                text = re.sub(r'^url = "https://[^/"]+', f'url = "{base_url}', text, count=1,
                              flags=re.MULTILINE)
                config = work / f"{name}.toml"
                config.write_text(text, "utf-8")
                listed, seconds, requests = measure(work / name, ["portal", str(config),
                                                                  "-j", code], base_url,
                                                    args.norms)
                rows.append((name, shape, listed, seconds, requests))
            finally:
                server.terminate()
                server.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sapl_rate = rows[0][2] / rows[0][3]
    print(f"{'platform':<9} {'listing':<28} {'norms':>7} {'seconds':>8} {'norms/s':>8} "
          f"{'req/norm':>9} {'vs SAPL':>8}")
    for name, shape, listed, seconds, requests in rows:
        rate = listed / seconds
        print(f"{name:<9} {shape:<28} {listed:>7,} {seconds:>8.2f} {rate:>8,.0f} "
              f"{requests / listed:>9.4f} {rate / sapl_rate:>8.2f}")
    print("worked examples (adding a state portal = one TOML file):")
    for name in PORTALS:
        lines = (EXAMPLES / f"{name}.toml").read_text("utf-8").splitlines()
        meaningful = [x for x in lines if x.strip() and not x.strip().startswith("#")]
        print(f"  {name}.toml: {len(lines)} lines ({len(meaningful)} without comments and "
              "blank lines)")


if __name__ == "__main__":
    main()
