"""Kill `locleg harvest` (SIGKILL, SIGINT) at random points and re-run: same corpus, no dups."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from locleg.corpus import init_corpus, open_corpus
from locleg.fixtures.harvesting import JUAZEIRO, add_source, counts, run
from locleg.fixtures.sapl_server import Camara, SaplServer
from tests.conftest import run_cli

NORMS = 3000
FILES_EVERY = 10


@pytest.fixture(scope="module")
def server():
    camara = Camara(synthetic=NORMS, files_every=FILES_EVERY, file_size=3000, crawl_delay=None,
                    nome="Câmara Municipal de Juazeiro", municipio="Juazeiro")
    srv = SaplServer(camara).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def reference(server, tmp_path_factory):
    """The counts of one uninterrupted harvest."""
    corpus = init_corpus(tmp_path_factory.mktemp("reference") / "corpus")
    try:
        add_source(corpus, server.url)
        run(corpus)
        return counts(corpus)
    finally:
        corpus.close()


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGINT])
def test_killed_harvest_resumes_to_the_same_corpus(server, reference, tmp_path, database_url,
                                                   signum):
    assert reference["norms"] == NORMS and reference["versions"] == NORMS // FILES_EVERY
    folder = tmp_path / "corpus"
    run_cli("init", str(folder), *(["--db", database_url] if database_url else []), check=True)
    run_cli("sources", "add", "sapl", server.url, "-j", str(JUAZEIRO), "--delay", "0",
            corpus=folder, check=True)
    seed = random.randrange(10**6)
    rng = random.Random(seed)
    env = {**os.environ, "LOCLEG_CORPUS": str(folder)}
    interrupted = 0
    for _ in range(3):
        child = subprocess.Popen([sys.executable, "-m", "locleg", "harvest"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.7, 1.8))  # past start-up: in the listing or the files
        if child.poll() is None:
            child.send_signal(signum)
            interrupted += 1
        child.wait(60)
    final = run_cli("harvest", corpus=folder, check=True)
    assert "requests left" not in final.stdout
    corpus = open_corpus(folder)
    try:
        found = counts(corpus)
    finally:
        corpus.close()
    assert found == reference, f"seed {seed}, {interrupted} interruptions"
    assert found["versions"] == found["documents"]  # each file stored once
    run_cli("check", corpus=folder, check=True)
