"""The command line as a user meets it: init, jurisdictions, status."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from locleg.cli import cli
from tests.conftest import run_cli


def test_init_jurisdictions_and_status(tmp_path, database_url):
    corpus = tmp_path / "corpus"
    args = ["init", str(corpus)] + (["--db", database_url] if database_url else [])
    out = run_cli(*args, check=True).stdout
    assert "5,597 jurisdictions loaded" in out
    assert (corpus / "locleg.toml").is_file() and (corpus / "originals").is_dir()
    assert (corpus / "corpus.db").is_file() == (database_url is None)

    found = json.loads(run_cli("jurisdictions", "--uf", "ba", "--search", "JUAZEIRO", "--json",
                               corpus=corpus, check=True).stdout)
    assert found == [{"ibge_code": 2918407, "level": "municipal", "uf": "BA",
                      "name": "Juazeiro", "lexml_label": "br;bahia;juazeiro"}]
    table = run_cli("jurisdictions", "--uf", "DF", "--corpus", str(corpus), check=True).stdout
    assert "br;distrito.federal" in table and "distrital" in table

    status = json.loads(run_cli("status", "--json", corpus=corpus, check=True).stdout)
    for key in ("norms", "documents", "versions", "pending", "extracted", "empty", "failed"):
        assert status[key] == 0
    assert status["jurisdictions"] == 5597
    by = json.loads(run_cli("status", "--json", "--by", "jurisdiction", corpus=corpus,
                            check=True).stdout)
    assert by["by_jurisdiction"] == []


def test_init_refuses_an_existing_corpus(tmp_path):
    run_cli("init", str(tmp_path / "c"), check=True)
    again = run_cli("init", str(tmp_path / "c"))
    assert again.returncode == 2 and "already holds a corpus" in again.stderr


def test_unknown_search_gives_a_clear_line(tmp_path):
    run_cli("init", str(tmp_path / "c"), check=True)
    result = run_cli("jurisdictions", "--search", "atlantida", corpus=tmp_path / "c")
    assert result.returncode == 2 and result.stderr.startswith("error: no jurisdiction matches")


# -- the database password is never written nor shown (issue 8, item 17) --------------------


PASSWORD = "hunter2-s3cret"


@pytest.fixture
def password_database(pg_server) -> str:
    """A database whose role must give a password (scram), on the suite's server."""
    import psycopg

    role = f"pw{os.getpid()}"
    hba = pg_server.data / "pg_hba.conf"
    rule = f"host all {role} 127.0.0.1/32 scram-sha-256\n"
    if rule not in hba.read_text():
        hba.write_text(rule + hba.read_text())  # first match wins: before the trust lines
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}'")
        conn.execute(f"CREATE DATABASE {role} OWNER {role}")
        conn.execute("SELECT pg_reload_conf()")
    return f"postgresql://{role}:{PASSWORD}@127.0.0.1:{pg_server.port}/{role}"


def test_the_password_stays_out_of_the_settings_file_and_every_message(tmp_path,
                                                                       password_database):
    corpus = tmp_path / "c"
    created = run_cli("init", str(corpus), "--db", password_database, check=True)
    assert PASSWORD not in created.stdout + created.stderr
    assert "The password is not written to locleg.toml" in created.stdout
    settings = (corpus / "locleg.toml").read_text(encoding="utf-8")
    assert PASSWORD not in settings
    assert password_database.replace(f":{PASSWORD}@", "@") in settings

    refused = run_cli("status", corpus=corpus)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert PASSWORD not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "the password is not kept in locleg.toml: give the password to every command " \
           "with LOCLEG_DATABASE_URL" in refused.stderr

    by_env = run_cli("status", corpus=corpus, env={"LOCLEG_DATABASE_URL": password_database},
                     check=True)
    assert "postgresql://" in by_env.stdout and PASSWORD not in by_env.stdout
    pgpass = tmp_path / "pgpass"
    role = password_database.rsplit("/", 1)[1]
    pgpass.write_text(f"127.0.0.1:*:{role}:{role}:{PASSWORD}\n", encoding="utf-8")
    pgpass.chmod(0o600)
    run_cli("status", corpus=corpus, env={"PGPASSFILE": str(pgpass)}, check=True)


@pytest.mark.parametrize("url, shown", [
    ("mysql://u:hunter2-s3cret@h/db", "unsupported database URL 'mysql://u:***@h/db'"),
    ("postgresql://u:hunter2-s3cret@h:notaport/db",
     "not a database URL: postgresql://u:***@h:notaport/db"),
    ("postgresql://u:hunter2-s3cret@[::1/db", "not a database URL: postgresql://u:***@[::1/db"),
    ("postgresql://u@127.0.0.1:9/db?password=hunter2-s3cret",
     "cannot reach the database postgresql://u@127.0.0.1:9/db?password=***"),
])
def test_a_bad_database_url_is_one_line_without_its_password(tmp_path, url, shown):
    result = run_cli("init", str(tmp_path / "c"), "--db", url)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {shown}")
    assert PASSWORD not in result.stderr
    assert not (tmp_path / "c" / "locleg.toml").exists()


# -- --where: what no database can run is one line, not a traceback (issue 8, item 17) ------


@pytest.mark.parametrize("where, message", [
    ("size < 1e999", "the number 1e999 at character 8 is out of range"),
    (f"size < {10 ** 400}", "the number 100000000000…(401 digits) at character 8 is out of "
                            "range"),
    ("size < 99999999999999999999", "the number 99999999999999999999 at character 8 is out of "
                                    "range"),
    ("pages > 99999999999", "the number 99999999999 at character 9 is out of range for "
                            "'pages' (at most 2,147,483,647 either way)"),
    ("(" * 10_000 + "size < 1" + ")" * 10_000, "nested too deeply at character 101 (at most "
                                               "100 levels of parentheses and 'not')"),
    ("not " * 10_000 + "size < 1", "nested too deeply at character 401"),
    (" or ".join(["size = 1"] * 5_000), "too long at character 6006 (at most 500 comparisons "
                                        "and listed values)"),
    ("size in (" + ",".join(["1"] * 40_000) + ")", "too long at character 1010"),
])
def test_a_where_no_database_can_run_is_one_line(tmp_path, where, message):
    run_cli("init", str(tmp_path / "c"), check=True)
    result = run_cli("extract", "--where", where, corpus=tmp_path / "c")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --where: {message}")


def test_the_widest_numbers_a_where_accepts_run_on_both_backends(corpus, tmp_path):
    from locleg.extract.run import plan
    from locleg.ingest.run import import_path

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "Lei1-2020.txt").write_bytes(b"LEI 1/2020")  # 10 bytes
    import_path(corpus, tmp_path / "docs", 2918407)
    for where, documents in [("size < 9223372036854775807", 1),
                             ("size > -9223372036854775807", 1),
                             ("size = 9007199254740993", 0),
                             ("pages < 2147483647 or pages is null", 1),
                             ("(" * 100 + "size > 0" + ")" * 100, 1),
                             ("size in (" + ",".join(["10"] * 499) + ")", 1)]:
        assert plan(corpus, None, where=where).documents == documents, where


# -- data never drives the terminal (issue 8, item 17) --------------------------------------


# A screen clear, a hyperlink hiding its target, a title change, a bell, a carriage return
# that overwrites the line, the one-byte CSI, a bidi override, rich markup and an emoji code.
HOSTILE = ("\x1b[2J\x1b]8;;http://evil.example/\x07clique\x1b]8;;\x07 \x1b]0;pwned\x07"
           "moto-táxi\rOK \x9b31m [bold red]falso[/] \u202egnp.exe :warning:")
RAW_CONTROLS = ("\x1b", "\x07", "\r", "\x9b", "\u202e")


@pytest.fixture
def hostile_corpus(tmp_path) -> Path:
    """A corpus whose norm, document, page, extraction, problem and source carry HOSTILE."""
    from locleg.corpus import init_corpus
    from locleg.ingest.run import import_path

    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "lei.txt").write_text("LEI Nº 7/2020 moto-táxi", encoding="utf-8")
    with (dump / "manifest.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["file", "type", "number", "year", "ementa", "title", "url"])
        writer.writerow(["lei.txt", "Lei\x1b[8m", "7", "2020", HOSTILE, "Anexo \x1b[5m",
                         "http://example.org/\x1b[2Jlei.txt"])
    corpus = init_corpus(tmp_path / "c")
    try:
        import_path(corpus, dump / "manifest.csv", 2918407)
        version_id = corpus.store.versions_to_extract()[0]["id"]
        corpus.store.save_extraction(
            version_id,
            {"status": "failed", "method": "plain", "backend": "plain\x1b[31m",
             "error": "falhou\x1b[2J", "detail": HOSTILE, "pages": 1, "chars": len(HOSTILE)},
            [{"number": 1, "method": "plain", "text": f"Art. 1º {HOSTILE}\r\nArt. 2º",
              "detail": "\x1b[1A", "chars": len(HOSTILE)}])
        corpus.store.record_problem("import", "lei.txt", f"problema {HOSTILE}")
        corpus.store.record_run(corpus.store.sources()[0]["id"], datetime.now(UTC),
                                f"erro {HOSTILE}")
    finally:
        corpus.close()
    return tmp_path / "c"


@pytest.mark.parametrize("args", [
    ["show", "1"], ["show", "1", "--json"], ["search", "moto"], ["search", "moto", "--json"],
    ["search", "moto", "--jsonl"], ["status"], ["sources", "list"],
])
def test_no_control_character_from_data_reaches_the_terminal(hostile_corpus, args):
    result = CliRunner().invoke(cli, [*args, "--corpus", str(hostile_corpus)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert not [c for c in RAW_CONTROLS if c in out], out
    if "--json" in args or "--jsonl" in args:
        return
    assert "\\x1b[2J" in out or "\\x1b" in out  # shown, visibly
    if args[0] in ("show", "search"):
        assert "[bold red]falso[/]" in out and ":warning:" in out  # markup and emoji as text
        assert "\\u202egnp.exe" in out


def _on_a_terminal(*args: str) -> str:
    """What `locleg ARGS` writes when its stdout is a terminal (a pty in raw mode: bytes as
    written, no newline translation)."""
    import pty
    import tty

    leader, follower = pty.openpty()
    tty.setraw(follower)
    env = {**os.environ, "COLUMNS": "200"}
    child = subprocess.Popen([sys.executable, "-m", "locleg", *args], stdout=follower,
                             stderr=subprocess.PIPE, env=env)
    os.close(follower)
    out = bytearray()
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert child.wait(timeout=120) == 0, child.stderr.read().decode()
    child.stderr.close()
    return out.decode()


def test_search_csv_on_a_terminal_shows_controls_and_to_a_file_keeps_them(hostile_corpus):
    """`search --csv` on a terminal: the cells' control characters are shown, never obeyed
    (an OSC 8 hyperlink hiding its target, a screen clear); to a file or a pipe the CSV is
    the data exactly (formulas aside), as the web's CSV."""
    out = _on_a_terminal("search", "moto", "--csv", "--corpus", str(hostile_corpus))
    assert not [c for c in RAW_CONTROLS if c in out.replace("\r\n", "\n")], repr(out)
    [row] = list(csv.DictReader(out.splitlines()))
    assert row["ementa"] == HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07") \
        .replace("\r", "\\x0d").replace("\x9b", "\\x9b").replace("\u202e", "\\u202e")
    assert row["document_urls"] == "http://example.org/\\x1b[2Jlei.txt"
    piped = CliRunner().invoke(cli, ["search", "moto", "--csv", "--corpus", str(hostile_corpus)],
                               catch_exceptions=False).stdout
    [row] = list(csv.DictReader(io.StringIO(piped, newline="")))
    assert row["ementa"] == HOSTILE and row["type_raw"] == "Lei\x1b[8m"


def test_show_prints_each_hostile_field_visibly(hostile_corpus):
    out = CliRunner().invoke(cli, ["show", "1", "--corpus", str(hostile_corpus)],
                             catch_exceptions=False).stdout
    assert "Lei\\x1b[8m 7/2020" in out
    assert "texto_integral – Anexo \\x1b[5m · http://example.org/\\x1b[2Jlei.txt" in out
    assert "error: falhou\\x1b[2J" in out and "backend: plain\\x1b[31m" in out
    assert "moto-táxi\\x0dOK \\x9b31m" in out
    assert "Art. 1º" in out and "\nArt. 2º" in out  # a CRLF is a line break, not shown


def test_an_error_line_with_data_stays_one_visible_line(tmp_path):
    run_cli("init", str(tmp_path / "c"), check=True)
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "manifest.csv").write_text("file,type,number,year\n\x1b[2J\x1b[1Asumiu.pdf,Lei,1,"
                                       "2020\n", encoding="utf-8")
    result = run_cli("import", str(dump / "manifest.csv"), "-j", "2918407",
                     corpus=tmp_path / "c")
    assert result.returncode == 2 and "\x1b" not in result.stderr
    assert "file not found: \\x1b[2J\\x1b[1Asumiu.pdf" in result.stderr


# -- a full disk is one line, and what was stored stays whole (issue 8, item 17) ------------


class TinyDisk:
    """A tmpfs of a few megabytes: a disk that really fills, then really grows."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def resize(self, size: str) -> None:
        subprocess.run(["mount", "-o", f"remount,size={size}", str(self.path)], check=True)


@pytest.fixture
def tiny_disk():
    # Not under tmp_path, whose 0700 parents PostgreSQL's own user cannot cross.
    path = Path(tempfile.mkdtemp(prefix="locleg-tiny-disk-"))
    path.chmod(0o755)
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(path)],
                                 capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("a real full disk needs mount(8) to make a small tmpfs")
    if mounted.returncode != 0:
        pytest.skip("a real full disk needs a small tmpfs and mounting one was refused "
                    f"({mounted.stderr.strip()}): run the suite as root to test it")
    yield TinyDisk(path)
    if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], check=True)
    path.rmdir()


def _set(corpus: Path, key: str, value: str) -> None:
    settings = corpus / "locleg.toml"
    lines = [f"{key} = {json.dumps(value)}" if line.startswith(f"{key} =") else line
             for line in settings.read_text(encoding="utf-8").splitlines()]
    settings.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _disk_full_line(result: subprocess.CompletedProcess, where: str) -> None:
    """WHERE: a regular expression for what was being written."""
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and re.fullmatch(
        f"error: disk full while writing {where}: free space and run the command again; "
        "nothing stored was lost", lines[0]), lines


def test_a_full_disk_under_the_originals_is_one_line_and_loses_nothing(tmp_path, tiny_disk):
    corpus = tmp_path / "c"
    run_cli("init", str(corpus), check=True)
    _set(corpus, "originals", str(tiny_disk.path / "originals"))
    docs = tmp_path / "docs"
    docs.mkdir()
    rng = random.Random(28)
    for i in range(4):  # 2.8 MB on a 2 MB disk
        (docs / f"Lei{i}-2020.pdf").write_bytes(rng.randbytes(700_000))
    result = run_cli("import", str(docs), "-j", "2918407", corpus=corpus)
    _disk_full_line(result, f"{tiny_disk.path}/originals/[0-9a-f]{{2}}/[0-9a-f]{{64}}")
    assert run_cli("check", corpus=corpus).returncode == 0
    assert not list((tiny_disk.path / "originals" / ".tmp").iterdir())  # no half-written file
    tiny_disk.resize("16m")
    run_cli("import", str(docs), "-j", "2918407", corpus=corpus, check=True)
    status = json.loads(run_cli("status", "--json", corpus=corpus, check=True).stdout)
    assert (status["norms"], status["versions"]) == (4, 4)
    assert "OK: 4 versions, 4 originals verified" in run_cli("check", corpus=corpus,
                                                             check=True).stdout


def _big_ementas(docs: Path, rows: int) -> Path:
    """A manifest of small files whose ementas are long random text (compresses badly)."""
    docs.mkdir()
    rng = random.Random(17)
    letters = "abcdefghijklmnopqrstuvwxyzáéíóúãõç ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    with (docs / "manifest.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["file", "type", "number", "year", "ementa"])
        for i in range(rows):
            (docs / f"l{i}.txt").write_text(f"LEI {i}", encoding="utf-8")
            writer.writerow([f"l{i}.txt", "Lei", str(i), "2020",
                             "".join(rng.choice(letters) for _ in range(100_000))])
    return docs / "manifest.csv"


def test_a_full_disk_under_the_sqlite_database_is_one_line_and_loses_nothing(tmp_path,
                                                                              tiny_disk):
    corpus = tmp_path / "c"
    run_cli("init", str(corpus), check=True)
    tiny_disk.resize(f"{(corpus / 'corpus.db').stat().st_size // 1024 + 512}k")
    shutil.move(corpus / "corpus.db", tiny_disk.path / "corpus.db")
    _set(corpus, "database", f"sqlite:///{tiny_disk.path}/corpus.db")
    manifest = _big_ementas(tmp_path / "docs", 30)  # 3 MB of ementas
    result = run_cli("import", str(manifest), "-j", "2918407", "--batch-size", "10",
                     corpus=corpus)
    _disk_full_line(result, "the database")
    assert run_cli("check", corpus=corpus).returncode == 0
    status = json.loads(run_cli("status", "--json", corpus=corpus, check=True).stdout)
    assert status["norms"] == status["versions"] and status["norms"] % 10 == 0  # whole batches
    tiny_disk.resize("64m")
    run_cli("import", str(manifest), "-j", "2918407", corpus=corpus, check=True)
    status = json.loads(run_cli("status", "--json", corpus=corpus, check=True).stdout)
    assert (status["norms"], status["versions"]) == (30, 30)
    assert run_cli("check", corpus=corpus).returncode == 0


def test_a_full_disk_under_the_postgresql_database_is_one_line_and_loses_nothing(
        tmp_path, tiny_disk, pg_server):
    """The tables in a tablespace on the tiny disk: PostgreSQL says disk_full (53100)."""
    import psycopg

    shutil.chown(tiny_disk.path, "postgres", "postgres")
    name = f"full{os.getpid()}"
    tiny_disk.resize("24m")
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE TABLESPACE {name} LOCATION '{tiny_disk.path}'")
        conn.execute(f"CREATE DATABASE {name} TABLESPACE {name}")
    try:
        corpus = tmp_path / "c"
        run_cli("init", str(corpus), "--db", pg_server.url(name), check=True)
        manifest = _big_ementas(tmp_path / "docs", 300)  # 30 MB of ementas
        result = run_cli("import", str(manifest), "-j", "2918407", "--batch-size", "10",
                         corpus=corpus)
        _disk_full_line(result, "the PostgreSQL database")
        # While the disk is full, PostgreSQL may refuse new sessions (it rewrites a cache
        # file on connecting): then a command says so in the same one line.
        on_full_disk = run_cli("status", "--json", corpus=corpus)
        if on_full_disk.returncode != 0:
            _disk_full_line(on_full_disk, "the PostgreSQL database")
        tiny_disk.resize("256m")
        assert run_cli("check", corpus=corpus).returncode == 0
        status = json.loads(run_cli("status", "--json", corpus=corpus, check=True).stdout)
        assert status["norms"] == status["versions"] and status["norms"] % 10 == 0
        run_cli("import", str(manifest), "-j", "2918407", corpus=corpus, check=True)
        status = json.loads(run_cli("status", "--json", corpus=corpus, check=True).stdout)
        assert (status["norms"], status["versions"]) == (300, 300)
    finally:
        with psycopg.connect(pg_server.url(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"DROP TABLESPACE IF EXISTS {name}")


# -- the first hour (issue 11): bad input, narrow pipes, start-up, a busy port ---------------

def _narrow(*args: str, corpus: Path) -> str:
    """`locleg ARGS | cat` on an 80-column terminal: what a pipe or `make demo` shows."""
    result = run_cli(*args, corpus=corpus, env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    return result.stdout


@pytest.fixture
def short_folder():
    """A folder of a short path: a header names the corpus whole, and pytest's own paths
    pass 80 columns by themselves."""
    folder = Path(tempfile.mkdtemp(prefix="c", dir="/tmp"))
    yield folder


def test_tables_fit_80_columns_and_never_cut_ids_or_urls(short_folder):
    from locleg.corpus import open_corpus
    from locleg.store import utcnow

    folder = short_folder
    run_cli("init", str(folder / "c"), check=True)
    corpus = open_corpus(folder / "c")
    long_url = "https://sapl.viladasantissimatrindade.mt.leg.br/sapl-portal/api"
    vila_bela = 5105507  # the longest name of the IBGE list
    try:
        source = corpus.store.ensure_source(vila_bela, "sapl", long_url)
        corpus.store.ensure_source(2918407, "sapl", "http://127.0.0.1:8765")
        with corpus.store.transaction() as conn:
            corpus.store.upsert_records(conn, source, [{
                "native_id": "1", "jurisdiction_code": vila_bela, "type_raw": "Lei",
                "type_normalized": "lei", "number": "1", "year": 2020, "date": None,
                "ementa": "Lei de teste", "url": None}], utcnow())
    finally:
        corpus.close()
    listed = _narrow("sources", "list", corpus=folder / "c")
    assert long_url in listed and "http://127.0.0.1:8765" in listed
    assert "source 1" in listed and "source 2" in listed and "…" not in listed
    assert "Vila Bela da Santíssima Trindade (MT)" in " ".join(listed.split())
    places = _narrow("jurisdictions", "--uf", "RN", corpus=folder / "c")
    assert "br;rio.grande.norte;governador.dix.sept.rosado" in places and "2404309" in places
    assert "…" not in places
    status = _narrow("status", "--by", "jurisdiction", corpus=folder / "c")
    assert "5105507" in status and "…" not in status and str(folder / "c") in status
    assert {"Vila", "Bela", "da", "Santíssima", "Trindade"} <= set(status.split())


@pytest.mark.parametrize("args, message", [
    (["search", "moto", "--jurisdiction", "9999999"], "no jurisdiction with IBGE code 9999999"),
    (["search", "moto", "-j", "291840"], "IBGE codes have 7 digits"),
    (["search", ""], "give words to search, or a filter"),
    (["search", "   "], "give words to search, or a filter"),
    (["search", "moto", "--type", "Lei Ordinária"],
     "unknown type 'Lei Ordinária' (did you mean lei?): types are ato, constituicao"),
    (["search", "moto", "--method", "scan"], "methods are ocr, mixed, text"),
])
def test_bad_search_input_is_one_line_and_a_failure(tmp_path, args, message):
    run_cli("init", str(tmp_path / "c"), check=True)
    result = run_cli(*args, corpus=tmp_path / "c")
    assert result.returncode == 2, result.stdout
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_help_and_version_load_no_database_library():
    """`locleg --help` and `--version` import neither SQLAlchemy, Alembic, psycopg nor the
    extractors (they took 2 s); every command is still listed with its one-line help."""
    import sys

    probe = ("import sys; from locleg.cli import cli\n"
             "try:\n    cli.main(['--help'], standalone_mode=False)\n"
             "except SystemExit:\n    pass\n"
             "heavy = [m for m in ('sqlalchemy', 'alembic', 'psycopg', 'pypdfium2', 'tesserocr',"
             " 'pebble', 'fastapi', 'httpx', 'locleg.store', 'locleg.search')"
             " if m in sys.modules]\n"
             "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env={**os.environ, "COLUMNS": "100"}).stdout
    assert "HEAVY []" in out, out
    for command in ("extract", "harvest", "search", "serve", "show", "sources", "status"):
        assert f"\n  {command} " in out, command


def test_the_lazy_commands_help_is_their_own():
    from locleg.cli import LAZY_COMMANDS

    for name, (_module, summary) in LAZY_COMMANDS.items():
        command = cli.get_command(None, name)
        assert command is not None and command.get_short_help_str(limit=300) == summary, name


def test_version_and_help_answer_fast():
    """Measured in a child process, as a user runs them; the bound is generous (a busy CI
    machine), the figure itself is in docs/benchmarks.md (bench/cli_startup.py)."""
    import sys
    import time

    for args in (["--version"], ["--help"]):
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "locleg", *args], capture_output=True,
                                text=True, check=True)
        took = time.perf_counter() - started
        assert ("locleg, version" in result.stdout) == (args == ["--version"])
        assert took < 1.5, f"locleg {args[0]} took {took:.2f} s"


def test_serve_on_a_busy_port_says_which_port_to_use(tmp_path):
    import socket

    run_cli("init", str(tmp_path / "c"), check=True)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port), corpus=tmp_path / "c", timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}, the port is "
                                    "in use"), result.stderr
    assert re.search(r"use another, e\.g\. --port \d+ \(with make demo: DEMO_PORT=\d+",
                     result.stderr)
    assert "Traceback" not in result.stderr and "Serving" not in result.stdout
