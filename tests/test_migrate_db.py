"""`locleg migrate --to postgresql://…`: a SQLite corpus moved to the suite's PostgreSQL server
gives the same status, explorer pages and searches; ids continue; an interrupted move ends
identical when run again; a database holding another corpus is refused; passwords masked."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from datetime import timedelta
from itertools import count
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy import func, insert, select

from locleg.config import SETTINGS_FILE, read_settings
from locleg.corpus import init_corpus, open_corpus
from locleg.search import refresh_index
from locleg.store import utcnow
from locleg.store.harvest_schema import harvest_host, harvest_request, listed_norm
from locleg.store.move import MARKER, move_to_postgresql
from locleg.store.schema import norm, problem, record, source
from tests.conftest import run_cli
from tests.explorer_fixtures import JUAZEIRO, LiveServer, build_explorer_corpus

_databases = count()
UTC_OFFSET = re.compile(r'("\d{4}-\d\d-\d\dT[\d:.]+)\+00:00"')
PASSWORD = "s3cr3t-Pa55"  # the suite's server trusts every local login, so any password works


@pytest.fixture(scope="module")
def sqlite_corpus(tmp_path_factory) -> tuple[Path, dict]:
    """An explorer corpus on SQLite with every kind of row: norms, records, documents,
    versions, extractions with page texts, citations and legal status, harvest state, a
    problem, the search index; closed, so its folder can be copied as a whole."""
    corpus = init_corpus(tmp_path_factory.mktemp("migrate") / "corpus")
    built = build_explorer_corpus(corpus, legal_life=True)
    sapl = corpus.store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    now = utcnow()
    with corpus.store.transaction() as conn:
        conn.execute(insert(harvest_host), {
            "host": "sapl.juazeiro.ba.leg.br", "robots_txt": "User-agent: *\nCrawl-delay: 60\n",
            "robots_status": 200, "robots_fetched_at": now, "crawl_delay": 60.0, "failures": 0,
            "last_request_at": now})
        conn.execute(insert(harvest_request), {
            "source_id": sapl, "host": "sapl.juazeiro.ba.leg.br", "kind": "norms",
            "url": "https://sapl.juazeiro.ba.leg.br/api/norma/normajuridica/?page=2",
            "payload": json.dumps({"page": 2}), "priority": 3, "state": "pending",
            "not_before": now + timedelta(minutes=1), "attempts": 1,
            "last_error": "HTTP 503", "created_at": now})
        conn.execute(insert(listed_norm), {
            "source_id": sapl, "native_id": "1461", "record_id": built.records["seed"],
            "marker": "2011-06-28T10:00:00-03:00",
            "files": '[["https://x.example/l.pdf", "texto_integral"]]'})
    corpus.store.record_problem("fetch", "https://sapl.juazeiro.ba.leg.br/x.pdf",
                                "HTTP 404 Not Found", sapl)
    norms = dict(built.norms)
    corpus.close()
    return corpus.folder, norms


@pytest.fixture
def folder(sqlite_corpus, tmp_path) -> Path:
    """A fresh copy of the SQLite corpus for one test."""
    copy = tmp_path / "corpus"
    shutil.copytree(sqlite_corpus[0], copy)
    return copy


@pytest.fixture
def target(pg_server) -> str:
    """A new, empty database of the suite's server, its URL with a password in it."""
    url = pg_server.create_database(f"mv{os.getpid()}_{next(_databases)}")
    return url.replace("postgres@", f"postgres:{PASSWORD}@", 1)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _index_files(folder: Path) -> dict[str, tuple[int, str]]:
    return {p.name: (p.stat().st_mtime_ns, _sha256(p))
            for p in sorted((folder / "search-index").iterdir()) if p.is_file()}


def _status(folder: Path) -> dict:
    result = run_cli("status", "--json", corpus=folder, check=True)
    data = json.loads(result.stdout)
    return {k: v for k, v in data.items() if k not in ("corpus", "database")}


def _explorer(folder: Path, norms: dict) -> dict:
    """The JSON of a few norm pages, a jurisdiction, the home page and searches."""
    paths = [f"/norm/{norms[name]}.json" for name in sorted(norms)]
    paths += [f"/jurisdiction/{JUAZEIRO}.json", "/index.json", "/quality.json",
              "/search.json?q=moto+taxi", "/search.json?q=moto-t%C3%A1xi&uf=BA&sort=date",
              "/search.json?q=lei&limit=2", "/citations.json"]
    corpus = open_corpus(folder)
    try:
        with LiveServer(corpus) as live, httpx.Client(base_url=live.url, timeout=30,
                                                      headers={"Accept-Language": "en"}) as c:
            pages = {}
            for path in paths:
                response = c.get(path)
                if response.status_code == 301:  # a norm merged away leads to its norm
                    pages[path] = response.headers["location"]
                    continue
                assert response.status_code == 200, (path, response.text[:300])
                # Times are UTC on both backends; PostgreSQL's carry the offset, SQLite's not.
                pages[path] = json.loads(UTC_OFFSET.sub(r'\1"', response.text))
    finally:
        corpus.close()
    return pages


def _migrate(folder: Path, url: str, **kw) -> subprocess.CompletedProcess:
    return run_cli("migrate", "--to", url, corpus=folder, **kw)


def test_a_moved_corpus_answers_the_same_and_keeps_its_search_index(sqlite_corpus, folder,
                                                                    target):
    norms = sqlite_corpus[1]
    status_before = _status(folder)
    explorer_before = _explorer(folder, norms)
    database = folder / "corpus.db"
    sqlite_before = _sha256(database)
    index_before = _index_files(folder)

    result = _migrate(folder, target)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert PASSWORD not in output
    assert "postgres:***@" in output
    # Counts of both sides, table by table, and their checksums.
    lines = {line.split()[0]: line.split() for line in result.stdout.splitlines()
             if line.strip()}
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        for table in ("norm", "record", "document", "version", "extraction", "page",
                      "citation", "sapl_relation", "harvest_host", "harvest_request",
                      "listed_norm", "problem", "search_norm", "search_facet"):
            rows = db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            line = lines[table]
            assert rows > 0 and line[1] == line[2] == f"{rows:,}", line
            assert line[3] == line[4] and line[5] == "copied", line
    assert "checksums match" in result.stdout

    settings_text = (folder / SETTINGS_FILE).read_text()
    assert PASSWORD not in settings_text
    assert "The database password is not kept here" in settings_text
    assert read_settings(folder).database_url.startswith("postgresql+psycopg://postgres@")
    assert _sha256(database) == sqlite_before  # the SQLite file is never written

    assert _status(folder) == status_before
    assert _explorer(folder, norms) == explorer_before
    # The index was kept, not rebuilt: the same files, and nothing queued for it.
    assert _index_files(folder) == index_before
    corpus = open_corpus(folder)
    try:
        assert corpus.store.dialect == "postgresql"
        assert refresh_index(corpus.store).norms == 0
        # New rows get fresh ids: every sequence continues past the copied ones.
        store = corpus.store
        with store.engine.connect() as conn:
            largest = {t.name: conn.scalar(select(func.max(t.c.id)))
                       for t in (norm, record, source, problem)}
        new_source = store.ensure_source(JUAZEIRO, "sapl", "https://camara.example/new")
        store.record_problem("fetch", "https://camara.example/new/1.pdf", "HTTP 500")
        with store.transaction() as conn:
            ids = store.upsert_records(conn, new_source, [{
                "native_id": "9001", "jurisdiction_code": JUAZEIRO, "type_raw": "Lei",
                "type_normalized": "lei", "number": "9001", "year": 2026, "date": None,
                "ementa": "Institui o programa xilofonemigrado de teste", "url": None}],
                utcnow())
        assert new_source > largest["source"]
        assert ids["9001"] > largest["record"]
        with store.engine.connect() as conn:
            new_norm = conn.scalar(select(record.c.norm_id).where(record.c.id == ids["9001"]))
            assert conn.scalar(select(func.max(problem.c.id))) > largest["problem"]
        assert new_norm > largest["norm"]
        # The kept index goes on from the PostgreSQL corpus: the new norm is found.
        assert refresh_index(store).norms == 1
    finally:
        corpus.close()
    found = run_cli("search", "xilofonemigrado", "--json", corpus=folder, check=True)
    assert [r["id"] for r in json.loads(found.stdout)["results"]] == [new_norm]
    # Moving it again is one clear line: it is on PostgreSQL now.
    again = _migrate(folder, target)
    assert again.returncode != 0 and "already on postgresql://postgres@" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


def _waiting_on_lock(admin: psycopg.Connection) -> bool:
    return admin.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND datname = current_database()").fetchone()[0] > 0


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["kill", "ctrl-c"])
def test_an_interrupted_move_run_again_ends_identical(folder, target, how):
    """The move is stopped in the page table's transaction, waiting for a lock this test
    holds, after the tables before it were copied; then the SQLite corpus changes (a problem
    recorded), and the move run again copies what differs and ends with every table equal."""
    plain = target.replace(f":{PASSWORD}@", "@", 1)
    init_corpus(folder.parent / "schema-only", plain).close()  # the schema, to lock a table
    blocker = psycopg.connect(plain)
    # EXCLUSIVE lets the move read the table (count it) but not change it: the move stops
    # inside the page table's own transaction, the tables before it committed.
    blocker.execute("LOCK TABLE page IN EXCLUSIVE MODE")
    env = {**os.environ, "LOCLEG_CORPUS": str(folder), "COLUMNS": "200"}
    child = subprocess.Popen([sys.executable, "-m", "locleg", "migrate", "--to", target],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    admin = psycopg.connect(plain, autocommit=True)
    try:
        deadline = time.monotonic() + 120
        # (Not version: dropping page's reference to it locks it too.)
        while not (_waiting_on_lock(admin) and admin.execute(
                "SELECT count(*) FROM extraction").fetchone()[0] > 0):
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the move never reached the page table"
            time.sleep(0.05)
        child.send_signal(how)
        child.wait(timeout=120)
    finally:
        blocker.rollback()
        blocker.close()
    _, err = child.communicate()
    if how == signal.SIGINT:
        assert child.returncode == 130 and "interrupted" in err
    assert not read_settings(folder).database_url.startswith("postgresql")
    copied_before = admin.execute("SELECT count(*) FROM norm").fetchone()[0]
    assert copied_before > 0
    assert admin.execute("SELECT count(*) FROM page").fetchone()[0] == 0
    admin.close()

    # Meanwhile the SQLite corpus changes in a table already copied.
    corpus = open_corpus(folder)
    corpus.store.record_problem("extract", "version 1", "written between the two runs")
    problems = len(corpus.store.problems(limit=1000))
    corpus.close()

    report = move_to_postgresql(read_settings(folder), target)
    assert report.switched and all(t.equal for t in report.tables)
    by_name = {t.name: t for t in report.tables}
    assert not by_name["norm"].copied  # already there and equal: kept
    assert by_name["problem"].copied and by_name["problem"].target_rows == problems
    assert by_name["page"].copied and by_name["page"].target_rows > 0
    # Once more: nothing to copy, the same checksums (the SQLite side read again).
    on_sqlite = replace(read_settings(folder), database_url=f"sqlite:///{folder}/corpus.db")
    fresh = move_to_postgresql(on_sqlite, target)
    assert not any(t.copied for t in fresh.tables)
    assert [(t.name, t.source_checksum, t.target_checksum) for t in fresh.tables] == \
        [(t.name, t.source_checksum, t.target_checksum) for t in report.tables]


def test_a_database_holding_another_corpus_is_refused(folder, target, tmp_path):
    plain = target.replace(f":{PASSWORD}@", "@", 1)
    other = init_corpus(tmp_path / "other", plain)
    other.store.ensure_source(JUAZEIRO, "folder", "file:///somewhere/else")
    other.close()
    settings_before = (folder / SETTINGS_FILE).read_text()
    result = _migrate(folder, target)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        f"error: {target.replace(PASSWORD, '***')} already holds another corpus (its table "
        "source has rows that are not this corpus's): give an empty database"]
    assert (folder / SETTINGS_FILE).read_text() == settings_before
    with psycopg.connect(plain) as conn:
        assert conn.execute("SELECT base_url FROM source").fetchall() == [
            ("file:///somewhere/else",)]
        assert conn.execute("SELECT count(*) FROM norm").fetchone()[0] == 0
        # Nothing of the move is left behind to be taken for a claim later.
        assert conn.execute("SELECT to_regclass(%s)", [MARKER]).fetchone()[0] is None


def test_a_database_of_something_else_and_one_just_initialized(folder, target, tmp_path,
                                                               pg_server):
    plain = target.replace(f":{PASSWORD}@", "@", 1)
    with psycopg.connect(plain) as conn:
        conn.execute("CREATE TABLE invoices (id int PRIMARY KEY)")
    result = _migrate(folder, target)
    assert result.returncode != 0 and "tables that are not a br-locleg corpus" in \
        result.stderr and PASSWORD not in result.stderr
    # A database that `locleg init --db` prepared holds only the IBGE list, the same as
    # this corpus's: nothing to lose, the move goes ahead.
    empty = pg_server.create_database(f"mv{os.getpid()}_{next(_databases)}")
    init_corpus(tmp_path / "prepared", empty).close()
    assert _migrate(folder, empty).returncode == 0
    assert read_settings(folder).database_url.endswith(empty.rsplit("/", 1)[1])


def test_bad_targets_are_one_line_with_the_password_masked(folder):
    unreachable = f"postgresql://postgres:{PASSWORD}@127.0.0.1:1/nowhere"
    result = _migrate(folder, unreachable)
    assert result.returncode != 0 and PASSWORD not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "cannot reach the database postgresql://postgres:***@127.0.0.1:1/nowhere" in \
        result.stderr
    sqlite = _migrate(folder, f"sqlite:///{folder / 'other.db'}")
    assert sqlite.returncode != 0 and "--to takes a PostgreSQL URL" in sqlite.stderr
    missing = run_cli("migrate", corpus=folder)
    assert missing.returncode != 0 and "--to postgresql://" in missing.stderr
    assert not read_settings(folder).database_url.startswith("postgresql")
