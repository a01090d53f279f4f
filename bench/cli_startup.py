"""How long `locleg --version` and `locleg --help` take, against Python's own start-up.

Each command runs REPEAT times in a child process, as a user runs it; the figure is the
median wall time. References measured in the same run: the bare interpreter (`python -c
pass`, the floor no command can go under) and the imports `--help` paid before issue 11
(every feature module and its database libraries, eagerly).

    .venv/bin/python bench/cli_startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

EAGER = ("import locleg.cli, locleg.cli.web, locleg.cli.extract, locleg.cli.harvest, "
         "locleg.cli.enrich")


def median_seconds(args: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    python = sys.executable
    subprocess.run([python, "-c", EAGER], check=True)  # warm the OS cache for every run
    floor = median_seconds([python, "-c", "pass"], args.repeat)
    eager = median_seconds([python, "-c", EAGER], args.repeat)
    print(f"{'what':<40} {'median s':>9} {'÷ python':>9} {'÷ eager':>8}")
    print(f"{'python -c pass (floor)':<40} {floor:>9.3f} {1:>9.1f} {floor / eager:>8.2f}")
    print(f"{'eager imports (before issue 11)':<40} {eager:>9.3f} {eager / floor:>9.1f} "
          f"{1:>8.2f}")
    for command in (["--version"], ["--help"]):
        took = median_seconds([python, "-m", "locleg", *command], args.repeat)
        print(f"{'locleg ' + command[0]:<40} {took:>9.3f} {took / floor:>9.1f} "
              f"{took / eager:>8.2f}")


if __name__ == "__main__":
    main()
