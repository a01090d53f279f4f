"""A PostgreSQL server for the benches, kept in a folder between runs (tests/pgserver.py's
logic: Debian's binaries, the `postgres` user when run as root, 127.0.0.1 only).

    .venv/bin/python bench/postgres.py start bench/out/pg [--port 5440]   # prints its URL
    .venv/bin/python bench/postgres.py createdb bench/out/pg bench100k    # prints its URL
    .venv/bin/python bench/postgres.py stop bench/out/pg

Durable (fsync on), unlike the suite's throwaway server: a bench corpus on it is kept, and
PostgreSQL's defaults but for shared_buffers (1 GB, a quarter of what a 4 GB reader would
give it) and effective_cache_size, which a server of this size would be given.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.pgserver import PostgresServer  # noqa: E402

SETTINGS = "-c shared_buffers=1GB -c effective_cache_size=8GB -c max_wal_size=4GB"


class KeptServer(PostgresServer):
    def __init__(self, root: Path, port: int) -> None:
        super().__init__()
        shutil.rmtree(self.root, ignore_errors=True)  # the parent's temporary folder
        self.root = root.resolve()
        self.data = self.root / "data"
        self.port = port

    def start(self) -> KeptServer:
        self.root.mkdir(parents=True, exist_ok=True)
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        if not (self.data / "PG_VERSION").exists():
            self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                      "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 {SETTINGS}"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options,
                  "-l", str(self.root / "log"), "-w", "-t", "120", "start")
        (self.root / "port").write_text(str(self.port))
        return self

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["start", "stop", "createdb"])
    parser.add_argument("folder", type=Path)
    parser.add_argument("name", nargs="?", help="the database to create (createdb)")
    parser.add_argument("--port", type=int, default=5440)
    args = parser.parse_args()
    port_file = args.folder / "port"
    port = int(port_file.read_text()) if port_file.exists() else args.port
    server = KeptServer(args.folder, port)
    if args.action == "start":
        server.start()
        print(server.url())
    elif args.action == "stop":
        server.stop()
    else:
        if not args.name:
            parser.error("createdb needs the database's name")
        print(server.create_database(args.name))


if __name__ == "__main__":
    main()
