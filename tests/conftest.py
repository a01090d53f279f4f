"""Shared fixtures: a corpus on each backend, a PostgreSQL server the suite starts, the CLI."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from locleg.corpus import Corpus, init_corpus
from tests.pgserver import PostgresServer
from tests.s3server import S3Server

BACKENDS = ["sqlite", "postgresql"]
_databases = itertools.count()

# A suite started in the background by a shell without job control (`cmd &` in a script)
# inherits SIGINT ignored, and so would every command the tests start: Ctrl-C tests would
# send a signal nobody hears. A handler of our own is reset to the default at exec, so the
# commands started from here see Ctrl-C as a user's terminal delivers it.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session", autouse=True)
def _ends_what_it_started():
    """The suite ends the forkserver and resource tracker that in-process imports and
    extractions started, rather than leave them to notice its exit (their workers end with
    it: locleg/lifeline.py). `_stop` is the standard library's own, kept for its tests."""
    yield
    from multiprocessing import forkserver, resource_tracker

    forkserver._forkserver._stop()
    resource_tracker._resource_tracker._stop()


@pytest.fixture(scope="session")
def pg_server():
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3 server on 127.0.0.1 (behind a proxy the tests can take down)."""
    server = S3Server().start()
    yield server
    server.stop()


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture
def database_url(backend, request) -> str | None:
    """None means the corpus default (SQLite in its folder); else a fresh PostgreSQL database."""
    if backend == "sqlite":
        return None
    server = request.getfixturevalue("pg_server")
    return server.create_database(f"t{os.getpid()}_{next(_databases)}")


def module_corpus(request, tmp_path_factory, name: str) -> tuple[Corpus, str | None]:
    """A new corpus for a module-scoped fixture parametrized by BACKENDS, and its database
    URL: SQLite in its folder (None), or a fresh database of the suite's PostgreSQL server."""
    url = None
    if request.param == "postgresql":
        server = request.getfixturevalue("pg_server")
        url = server.create_database(f"{name}{os.getpid()}_{next(_databases)}")
    return init_corpus(tmp_path_factory.mktemp(name) / "corpus", url), url


@pytest.fixture
def corpus(tmp_path, database_url):
    c = init_corpus(tmp_path / "corpus", database_url)
    yield c
    c.close()


def run_cli(*args: str, corpus: Path | None = None, check: bool = False,
            env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `locleg ARGS` in a child process, as a user would."""
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    full_env.pop("LOCLEG_CORPUS", None)
    if corpus is not None:
        full_env["LOCLEG_CORPUS"] = str(corpus)
    result = subprocess.run([sys.executable, "-m", "locleg", *args], capture_output=True,
                            text=True, env=full_env, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"locleg {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result
