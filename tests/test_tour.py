"""The README's five-minute tour, run as written with a stopwatch: it must take minutes.

The commands come from README.md itself (the ```sh block under "A five-minute tour"), so the
README cannot drift from what works. Only what would collide with other runs on the same
machine changes: the fixture server's port (8765) and pid file (/tmp/sapl.pid), and the
explorer's port; the final `locleg serve` is started, asked for its home page, and stopped.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 5 * 60  # the README's promise, installation excluded


def tour_commands() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## A five-minute tour", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S)[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.tour
def test_the_readme_tour_takes_minutes(tmp_path):
    commands = tour_commands()
    assert commands.rstrip().splitlines()[-1].startswith("locleg serve ")
    sapl_port, web_port = _free_port(), _free_port()
    pidfile = tmp_path / "sapl.pid"
    script = (commands.replace("--port 8765", f"--port {sapl_port}")
              .replace("http://127.0.0.1:8765", f"http://127.0.0.1:{sapl_port}")
              .replace("/tmp/sapl.pid", str(pidfile)))
    script, serve_line = script.rstrip().rsplit("\n", 1)
    assert serve_line.startswith("locleg serve")
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    # Whatever happens, the fixture server the tour starts ends with the script.
    runner = (f"set -euo pipefail\ntrap '[ -f {pidfile} ] && kill $(cat {pidfile}) "
              f"2>/dev/null || true' EXIT\n{script}\n")
    env = {k: v for k, v in os.environ.items() if k != "LOCLEG_CORPUS"}
    env["COLUMNS"] = "80"  # a pipe, as a newcomer's terminal log or CI shows it

    started = time.monotonic()
    tour = subprocess.run(["bash", "-c", runner], cwd=tmp_path, env=env, text=True,
                          capture_output=True, timeout=2 * BUDGET_S)
    assert tour.returncode == 0, f"{tour.stdout[-3000:]}\n{tour.stderr[-3000:]}"
    served = subprocess.Popen(
        ["bash", "-c", f". .venv/bin/activate && exec {serve_line.split('#')[0].strip()} "
                       f"--port {web_port}"],
        cwd=tmp_path, env={**env, "LOCLEG_CORPUS": str(tmp_path / "demo-corpus")},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        home = None
        while time.monotonic() - started < 2 * BUDGET_S and served.poll() is None:
            try:
                home = httpx.get(f"http://127.0.0.1:{web_port}/index.json", timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        took = time.monotonic() - started
    finally:
        served.send_signal(signal.SIGINT)
        served.communicate(timeout=60)
    print(f"the README tour took {took:.0f} s")
    assert home is not None and home.status_code == 200, served.stderr
    assert home.json()["corpus"]["norms"] >= 30
    assert took < BUDGET_S, f"the tour took {took:.0f} s, over {BUDGET_S} s"

    out, err = tour.stdout, tour.stderr
    # The harvest explains its waits from its first line, even in a log.
    assert f"127.0.0.1:{sapl_port}: one request at a time, robots.txt Crawl-delay 1 s " \
           "between them" in err, err[-2000:]
    assert "Harvested in" in out and f"http://127.0.0.1:{sapl_port}" in out
    assert "status: extracted" in out  # locleg show 1
    assert "norms match" in out  # locleg search "moto taxi" --uf BA
    assert "OK:" in out  # locleg check
    assert not _alive(int(pidfile.read_text())) if pidfile.exists() else True
