"""Importing local files: manifests, bare folders, idempotency, versions, bad input, kills."""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from locleg.corpus import init_corpus
from locleg.errors import ManifestError
from locleg.ingest.dump import infer_from_file_name
from locleg.ingest.run import import_path
from locleg.store.limits import refusal
from locleg.store.schema import record as record_table
from tests.conftest import run_cli

JUAZEIRO = 2918407
MANIFEST_HEADER = ["file", "type", "number", "year", "date", "ementa", "native_id", "url",
                   "role", "title"]


def write_manifest(folder: Path, rows: list[dict], header=MANIFEST_HEADER) -> Path:
    manifest = folder / "manifest.csv"
    with manifest.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=header, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return manifest


@pytest.fixture
def dump(tmp_path) -> Path:
    """A small LAI dump: two laws (one with an anexo) as text files and a manifest."""
    folder = tmp_path / "dump"
    folder.mkdir()
    (folder / "lei2199.txt").write_text("LEI Nº 2.199/2011\nDispõe sobre o serviço de moto-táxi.",
                                        encoding="utf-8")
    (folder / "lei2199-anexo.txt").write_text("ANEXO I\nTabela de tarifas.", encoding="utf-8")
    (folder / "decreto45.txt").write_text("DECRETO Nº 45-A/2013\nRegulamenta.", encoding="utf-8")
    write_manifest(folder, [
        {"file": "lei2199.txt", "type": "Lei Ordinária", "number": "2199", "year": "2011",
         "date": "2011-06-27", "ementa": "Dispõe sobre o serviço de moto-táxi.",
         "native_id": "1461", "url": "http://sapl.juazeiro.ba.leg.br/media/lei2199.pdf",
         "role": "texto integral"},
        {"file": "lei2199-anexo.txt", "type": "Lei Ordinária", "number": "2199", "year": "2011",
         "native_id": "1461", "role": "anexo", "title": "Anexo I - Tarifas"},
        {"file": "decreto45.txt", "type": "Decreto", "number": "45-A", "year": "2013",
         "date": "27/02/2013", "ementa": "Regulamenta a Lei 2199."},
    ])
    return folder


def test_manifest_import_stores_norms_documents_and_versions(corpus, dump):
    report = import_path(corpus, dump / "manifest.csv", JUAZEIRO)
    assert (report.files, report.records, report.new_versions) == (3, 2, 3)
    counts = corpus.store.status()
    assert (counts["norms"], counts["documents"], counts["versions"]) == (2, 3, 3)
    assert counts["pending"] == 3
    with corpus.store.engine.connect() as conn:
        norms = {r.native_id: r for r in conn.exec_driver_sql(
            "SELECT native_id, type_raw, type_normalized, number, year, date, ementa FROM record")}
        roles = sorted(r[0] + ":" + (r[1] or "") for r in conn.exec_driver_sql(
            "SELECT role, title FROM document"))
    assert norms["1461"].type_normalized == "lei" and norms["1461"].number == "2199"
    assert str(norms["1461"].date) == "2011-06-27"
    decreto = norms["decreto:45-A/2013"]
    assert decreto.number == "45-A" and str(decreto.date) == "2013-02-27"
    assert roles == ["anexo:Anexo I - Tarifas", "texto_integral:", "texto_integral:"]


def test_importing_twice_adds_nothing_and_a_changed_file_adds_a_version(corpus, dump):
    import_path(corpus, dump / "manifest.csv", JUAZEIRO)
    again = import_path(corpus, dump / "manifest.csv", JUAZEIRO)
    assert again.new_versions == 0 and again.unchanged == 3
    assert corpus.store.status()["versions"] == 3
    (dump / "decreto45.txt").write_text("DECRETO Nº 45-A/2013\nRegulamenta (republicado).",
                                        encoding="utf-8")
    third = import_path(corpus, dump / "manifest.csv", JUAZEIRO)
    assert third.new_versions == 1
    counts = corpus.store.status()
    assert counts["versions"] == 4 and counts["documents"] == 3
    # The old version and its original are kept.
    assert len(list(corpus.blobs)) == 4


def test_norms_missing_from_a_later_import_are_marked_removed(corpus, dump):
    import_path(corpus, dump / "manifest.csv", JUAZEIRO)
    lines = (dump / "manifest.csv").read_text(encoding="utf-8").splitlines()
    (dump / "manifest.csv").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    report = import_path(corpus, dump / "manifest.csv", JUAZEIRO)
    assert report.removed == 1
    counts = corpus.store.status()
    assert counts["norms"] == 2 and counts["removed"] == 1


def test_bare_folder_infers_number_and_year_from_file_names(corpus, tmp_path):
    folder = tmp_path / "pdfs"
    (folder / "2014").mkdir(parents=True)
    (folder / "2014" / "Lei1167-2014.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    (folder / "LC-12-2009.txt").write_text("Lei complementar", encoding="utf-8")
    (folder / "ata da sessão.txt").write_text("sem número", encoding="utf-8")
    (folder / ".hidden").write_text("skip me", encoding="utf-8")
    report = import_path(corpus, folder, JUAZEIRO)
    assert report.files == 3
    with corpus.store.engine.connect() as conn:
        rows = {r.native_id: r for r in conn.exec_driver_sql(
            "SELECT native_id, type_raw, type_normalized, number, year FROM record")}
    assert rows["2014/Lei1167-2014.pdf"].number == "1167"
    assert rows["2014/Lei1167-2014.pdf"].year == 2014
    assert rows["2014/Lei1167-2014.pdf"].type_normalized == "lei"
    assert rows["LC-12-2009.txt"].type_normalized == "lei.complementar"
    assert rows["ata da sessão.txt"].number is None and rows["ata da sessão.txt"].year is None
    # A name that gives no number: the norm is "s/n", so its file name titles its texto
    # integral, and the import says so in a problem (issue 11), while the rest imports.
    with corpus.store.engine.connect() as conn:
        titles = dict(conn.exec_driver_sql("SELECT url, title FROM document").all())
        problems = [m for (m,) in conn.exec_driver_sql(
            "SELECT message FROM problem WHERE stage = 'import'")]
    assert titles["file:ata da sessão.txt"] == "ata da sessão.txt"
    assert titles["file:2014/Lei1167-2014.pdf"] is None
    assert report.unnumbered == ["ata da sessão.txt"] and report.problems == []
    assert problems == ["ata da sessão.txt: its name gives no number (names like "
                        "Lei1167-2014.pdf do, or use a manifest): imported as a norm without "
                        "number (s/n)"]


def test_a_folder_import_names_the_files_that_give_no_number(tmp_path):
    run_cli("init", str(tmp_path / "c"), check=True)
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "Lei1167-2014.txt").write_text("LEI Nº 1.167", encoding="utf-8")
    (folder / "ata.txt").write_text("sem número", encoding="utf-8")
    result = run_cli("import", str(folder), "-j", str(JUAZEIRO), corpus=tmp_path / "c")
    assert result.returncode == 0, result.stderr
    assert "note: 1 file(s) whose name gives no number, imported as norms without number " \
           "(s/n), each titled by its file name: ata.txt" in result.stderr


@pytest.mark.parametrize("name, expected", [
    ("Lei1167-2014.pdf", ("Lei", "1167", 2014)),
    ("LEI_1167_2014.pdf", ("Lei", "1167", 2014)),
    ("decreto nº 45-A de 2013.pdf", ("Decreto", "45-A", 2013)),
    ("Lei Complementar 12-2009.doc", ("Lei Complementar", "12", 2009)),
    ("Resolução 3.152-2003.pdf", ("Resolução", "3152", 2003)),
    ("ata.pdf", (None, None, None)),
])
def test_file_name_inference(name, expected):
    assert infer_from_file_name(name) == expected


# -- bad input: one clear line, a non-zero exit, nothing written ---------------------------


@pytest.fixture
def cli_corpus(tmp_path) -> Path:
    run_cli("init", str(tmp_path / "c"), check=True)
    return tmp_path / "c"


def _one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    first = result.stderr.strip().splitlines()[0]
    assert first.startswith("error: ")
    return result.stderr


def test_manifest_missing_column_is_named(cli_corpus, dump):
    header = [h for h in MANIFEST_HEADER if h != "year"]
    manifest = write_manifest(dump, [{"file": "lei2199.txt", "type": "Lei", "number": "1"}],
                              header)
    err = _one_error_line(run_cli("import", str(manifest), "-j", str(JUAZEIRO),
                                  corpus=cli_corpus))
    assert "missing column 'year'" in err


def test_manifest_bad_date_names_the_line_and_nothing_is_written(cli_corpus, dump):
    rows = [{"file": "lei2199.txt", "type": "Lei", "number": "1", "year": "2011",
             "date": "2011-06-27"},
            {"file": "decreto45.txt", "type": "Decreto", "number": "2", "year": "2013",
             "date": "31/02/2013"}]
    manifest = write_manifest(dump, rows)
    err = _one_error_line(run_cli("import", str(manifest), "-j", str(JUAZEIRO),
                                  corpus=cli_corpus))
    assert "manifest.csv line 3: bad date '31/02/2013'" in err
    status = json.loads(run_cli("status", "--json", corpus=cli_corpus, check=True).stdout)
    assert status["norms"] == 0 and status["versions"] == 0


@pytest.mark.parametrize("args, message", [
    (["import", "{dump}/manifest.csv", "-j", "1234567"], "unknown IBGE code 1234567"),
    (["import", "{dump}/nowhere", "-j", "2918407"], "does not exist"),
    (["import", "{dump}", "-j", "juazeiro"], "not an IBGE code"),
    (["import", "{dump}"], "needs --jurisdiction"),
])
def test_bad_arguments_get_one_clear_line(cli_corpus, dump, args, message):
    args = [a.format(dump=dump) for a in args]
    assert message in _one_error_line(run_cli(*args, corpus=cli_corpus))


def test_manifest_naming_a_missing_file(cli_corpus, dump):
    manifest = write_manifest(dump, [{"file": "sumiu.pdf", "type": "Lei", "number": "9",
                                      "year": "2020"}])
    err = _one_error_line(run_cli("import", str(manifest), "-j", str(JUAZEIRO),
                                  corpus=cli_corpus))
    assert "line 2: file not found: sumiu.pdf" in err


def test_not_a_corpus_and_a_silent_database(tmp_path):
    err = _one_error_line(run_cli("status", "--corpus", str(tmp_path)))
    assert "is not a br-locleg corpus" in err
    err = _one_error_line(run_cli("init", str(tmp_path / "pg"), "--db",
                                  "postgresql://nobody@127.0.0.1:9/none"))
    assert "cannot reach the database postgresql://nobody@127.0.0.1:9/none" in err
    assert not (tmp_path / "pg" / "locleg.toml").exists()


# -- a killed import ------------------------------------------------------------------------


def _many_files(folder: Path, count: int) -> Path:
    folder.mkdir()
    rows = []
    for i in range(count):
        name = f"lei{i}.txt"
        (folder / name).write_text(f"LEI Nº {i}/2020\nArt. 1º Norma sintética número {i}.",
                                   encoding="utf-8")
        rows.append({"file": name, "type": "Lei", "number": str(i), "year": "2020"})
    return write_manifest(folder, rows)


def test_a_killed_import_leaves_a_consistent_corpus_and_a_rerun_finishes(tmp_path,
                                                                          database_url):
    corpus_dir = tmp_path / "c"
    init = ["init", str(corpus_dir)] + (["--db", database_url] if database_url else [])
    run_cli(*init, check=True)
    count = 6000
    manifest = _many_files(tmp_path / "dump", count)
    rng = random.Random(20261129)
    killed_mid_run = 0
    for _ in range(3):
        env = {"LOCLEG_CORPUS": str(corpus_dir)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "locleg", "import", str(manifest), "-j", str(JUAZEIRO),
             "--batch-size", "100"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**__import__("os").environ, **env},
        )
        time.sleep(rng.uniform(0.8, 2.0))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed_mid_run += 1
        proc.wait()
        check = run_cli("check", corpus=corpus_dir)
        assert check.returncode == 0, check.stderr
        status = json.loads(run_cli("status", "--json", corpus=corpus_dir, check=True).stdout)
        # Whole batches only: every norm stored has its document and its version.
        assert status["norms"] == status["documents"] == status["versions"]
        assert status["versions"] % 100 == 0 or status["versions"] == count
    assert killed_mid_run >= 1
    run_cli("import", str(manifest), "-j", str(JUAZEIRO), corpus=corpus_dir, check=True)
    status = json.loads(run_cli("status", "--json", corpus=corpus_dir, check=True).stdout)
    assert (status["norms"], status["documents"], status["versions"]) == (count, count, count)
    assert status["pending"] == count and status["removed"] == 0
    assert run_cli("check", corpus=corpus_dir).returncode == 0


def test_check_reports_a_damaged_original_and_exits_1(cli_corpus, dump):
    run_cli("import", str(dump / "manifest.csv"), "-j", str(JUAZEIRO), corpus=cli_corpus,
            check=True)
    assert "OK: 3 versions, 3 originals verified" in run_cli("check", corpus=cli_corpus).stdout
    victim = next((cli_corpus / "originals").glob("*/*"))
    victim.write_bytes(victim.read_bytes() + b"tampered")
    result = run_cli("check", corpus=cli_corpus)
    assert result.returncode == 1
    assert f"original {victim.name} hash mismatch" in result.stderr
    victim.unlink()
    result = run_cli("check", corpus=cli_corpus)
    assert result.returncode == 1 and f"original {victim.name} missing" in result.stderr


def test_a_manifest_cannot_pull_files_from_outside_its_folder(cli_corpus, dump, tmp_path):
    (tmp_path / "secret.txt").write_text("not for the corpus", encoding="utf-8")
    manifest = write_manifest(dump, [{"file": "../secret.txt", "type": "Lei", "number": "1",
                                      "year": "2020"}])
    err = _one_error_line(run_cli("import", str(manifest), "-j", str(JUAZEIRO),
                                  corpus=cli_corpus))
    assert "line 2: ../secret.txt is outside the manifest's folder" in err


# -- links: nothing outside the dump reaches the corpus (issue 8, item 10) ------------------


SECRET = "root:x:0:0:the secret that must not be imported\n"


def _no_original_holds(corpus, text: str) -> None:
    for digest in corpus.blobs:
        assert text.encode() not in corpus.blobs.read(digest)


@pytest.fixture
def secret(tmp_path) -> Path:
    """A file and a folder outside the dump, as /etc/passwd and /etc are."""
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text(SECRET, encoding="utf-8")
    return tmp_path / "etc"


@pytest.mark.parametrize("named, make_link, message", [
    ("passwd.txt", lambda dump, etc: (dump / "passwd.txt").symlink_to(etc / "passwd"),
     "line 3: passwd.txt is a symbolic link (to {etc}/passwd): links in a dump are never "
     "followed"),
    ("linked/passwd", lambda dump, etc: (dump / "linked").symlink_to(etc),
     "line 3: linked/passwd: its folder linked is a symbolic link (to {etc})"),
])
def test_a_manifest_naming_a_link_is_rejected_whole(corpus, dump, secret, named, make_link,
                                                    message):
    make_link(dump, secret)
    manifest = write_manifest(dump, [
        {"file": "lei2199.txt", "type": "Lei", "number": "1", "year": "2011"},
        {"file": named, "type": "Lei", "number": "2", "year": "2011"},
    ])
    with pytest.raises(ManifestError) as raised:
        import_path(corpus, manifest, JUAZEIRO)
    assert message.format(etc=secret) in str(raised.value)
    assert "nothing was imported" in str(raised.value)
    assert corpus.store.status()["norms"] == 0 and not list(corpus.blobs)


def test_a_bare_folder_skips_links_and_records_each_as_a_problem(corpus, tmp_path, secret):
    folder = tmp_path / "pdfs"
    (folder / "2014").mkdir(parents=True)
    (folder / "2014" / "Lei1167-2014.txt").write_text("LEI Nº 1.167", encoding="utf-8")
    (folder / "passwd.txt").symlink_to(secret / "passwd")
    (folder / "2014" / "Lei12-2014.txt").symlink_to(folder / "2014" / "Lei1167-2014.txt")
    (folder / "etc").symlink_to(secret)
    os.mkfifo(folder / "pipe")
    report = import_path(corpus, folder, JUAZEIRO)
    assert (report.files, report.records) == (1, 1)
    assert sorted(report.problems) == [
        f"skipped 2014/Lei12-2014.txt: a symbolic link (to {folder}/2014/Lei1167-2014.txt): "
        "links in a dump are never followed",
        f"skipped etc: a symbolic link (to {secret}): links in a dump are never followed",
        f"skipped passwd.txt: a symbolic link (to {secret}/passwd): links in a dump are "
        "never followed",
        "skipped pipe: not a regular file",
    ]
    recorded = corpus.store.problems()
    assert sorted(p["subject"] for p in recorded) == [
        f"{folder}/2014/Lei12-2014.txt", f"{folder}/etc", f"{folder}/passwd.txt",
        f"{folder}/pipe"]
    assert {p["stage"] for p in recorded} == {"import"}
    _no_original_holds(corpus, SECRET)


@pytest.mark.parametrize("swap", ["file", "folder"])
def test_a_file_swapped_for_a_link_after_validation_is_not_followed(corpus, dump, secret,
                                                                    swap):
    """The copy opens each file again through no link: validation alone would be a race."""
    (dump / "sub").mkdir()
    (dump / "sub" / "passwd").write_text("an honest norm", encoding="utf-8")
    manifest = write_manifest(dump, [
        {"file": "lei2199.txt", "type": "Lei", "number": "1", "year": "2011"},
        {"file": "sub/passwd", "type": "Lei", "number": "2", "year": "2011"},
    ])

    def swap_in_a_link(_count: int) -> None:
        if swap == "file":
            (dump / "sub" / "passwd").unlink()
            (dump / "sub" / "passwd").symlink_to(secret / "passwd")
        else:
            (dump / "sub").rename(dump / "sub-old")
            (dump / "sub").symlink_to(secret)

    report = import_path(corpus, manifest, JUAZEIRO, on_planned=swap_in_a_link)
    assert report.files == 1
    what = "sub/passwd" if swap == "file" else "sub/passwd: its folder sub"
    assert report.problems == [f"{what} is a symbolic link (to {secret}"
                               f"{'/passwd' if swap == 'file' else ''}): links in a dump are "
                               "never followed"]
    assert [p["message"] for p in corpus.store.problems()] == report.problems
    _no_original_holds(corpus, SECRET)


# -- what the database would refuse is found up front (issue 8, item 16) --------------------


@pytest.mark.parametrize("field, value, message", [
    ("ementa", "Dispõe\x00sobre", "line 3, column 'ementa': contains a NUL character (U+0000)"),
    ("file", "lei\x00.txt", "line 3, column 'file': contains a NUL character (U+0000)"),
    ("number", "1" * 33, "line 3, column 'number': is longer than 32 characters (33)"),
    ("native_id", "{random:3000}", "line 3, column 'native_id': is longer than 2,000 bytes "
                                   "(3,000), the most an indexed text can hold"),
    ("url", "https://example.org/{random:3000}", "line 3, column 'url': is longer than 2,000 "
                                                 "bytes (3,020)"),
    ("year", str(10 ** 30), "line 3: bad year '10000000000000000000' (four digits"),
    ("jurisdiction", str(10 ** 30), "line 3: jurisdiction '1" + "0" * 30 + "' is not an IBGE "
                                    "code"),
])
def test_a_value_the_database_would_refuse_rejects_the_manifest_whole(corpus, dump, field,
                                                                       value, message):
    rng = random.Random(8)
    if "{random:3000}" in value:
        # Random text, as PostgreSQL's btree cannot compress it below its limit.
        value = value.replace("{random:3000}",
                              "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
                                      for _ in range(3000)))
    bad = {"file": "decreto45.txt", "type": "Decreto", "number": "45", "year": "2013",
           field: value}
    manifest = write_manifest(dump, [
        {"file": "lei2199.txt", "type": "Lei", "number": "1", "year": "2011"}, bad,
    ], MANIFEST_HEADER + ["jurisdiction"])
    with pytest.raises(ManifestError) as raised:
        # One row per batch: before, PostgreSQL took line 2 and then failed on line 3.
        import_path(corpus, manifest, JUAZEIRO, batch_size=1)
    assert message in str(raised.value)
    assert corpus.store.status()["norms"] == 0


def test_every_column_with_a_nul_or_5000_characters_is_refused_or_stored_whole(corpus, dump):
    """Each manifest column in turn: a NUL (PostgreSQL text refuses it) rejects the manifest
    naming line and column, before anything is written; 5,000 random characters are either
    refused with a reason or stored exactly (an ementa, a title, a norm's page)."""
    rng = random.Random(23)
    good = {"file": "lei2199.txt", "type": "Lei", "number": "1", "year": "2011"}
    header = MANIFEST_HEADER + ["norm_url", "jurisdiction"]
    stored = {}
    for column in header:
        base = {"file": "decreto45.txt", "type": "Decreto", "number": "45", "year": "2013"}
        with pytest.raises(ManifestError) as raised:
            import_path(corpus, write_manifest(dump, [good, {
                **base, column: base.get(column, "x") + "\x00z"}], header), JUAZEIRO)
        assert f"line 3, column {column!r}: contains a NUL character" in str(raised.value)
        long = "".join(rng.choice("abcdefghij") for _ in range(5000))
        if column in ("url", "norm_url"):
            long = "https://example.org/" + long
        # A file of its own: a new document each time (a document's title is set once).
        (dump / f"{column}.txt").write_text(f"DECRETO Nº 45/2013 {column}")
        try:
            import_path(corpus, write_manifest(dump, [good, {
                **base, "file": f"{column}.txt", column: long}], header), JUAZEIRO)
        except ManifestError as e:
            assert "nothing was imported:\n  manifest.csv line 3" in str(e), column
            assert len(str(e)) < 400, column
        else:
            with corpus.store.engine.connect() as conn:
                stored[column] = long in {v for row in conn.exec_driver_sql(
                    "SELECT r.ementa, r.url, d.title FROM record r JOIN document d "
                    "ON d.record_id = r.id") for v in row}
    assert stored == {"ementa": True, "norm_url": True, "title": True}


def test_absurd_cells_are_named_by_their_line_in_short_messages(corpus, dump):
    """A 5,000-character file name or IBGE code, a cell past the csv module's limit: the
    manifest is refused naming the right line, each reason in a short line (the value cut
    to its two ends), and nothing is written."""
    rows = [{"file": "lei2199.txt", "type": "Lei", "number": "1", "year": "2011"},
            {"file": "b" * 5000 + ".txt", "type": "Lei", "number": "2", "year": "2011"},
            {"file": "sub/" * 2000 + "a.txt", "type": "Lei", "number": "3", "year": "2011"},
            {"file": "lei2199.txt", "type": "Lei", "number": "4", "year": "2011",
             "jurisdiction": "9" * 5000}]
    header = MANIFEST_HEADER + ["jurisdiction"]
    with pytest.raises(ManifestError) as raised:
        import_path(corpus, write_manifest(dump, rows, header), JUAZEIRO)
    lines = str(raised.value).splitlines()
    assert lines[0] == "manifest.csv has 3 bad rows; nothing was imported:"
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        "manifest.csv line 3", "manifest.csv line 4", "manifest.csv line 5"]
    assert lines[1].endswith(".txt (5,004 characters): File name too long")
    assert "(8,005 characters)" in lines[2] and "(5,000 characters)' is not an IBGE" in lines[3]
    assert max(len(line) for line in lines) < 250
    huge = rows[:1] * 3 + [{**rows[0], "ementa": "x" * 200_000}] + rows[:1]
    with pytest.raises(ManifestError) as raised:
        import_path(corpus, write_manifest(dump, huge, header), JUAZEIRO)
    assert str(raised.value) == ("manifest.csv line 5: a cell is longer than 131,072 "
                                 "characters, more than any field of a norm holds")
    assert corpus.store.status()["norms"] == 0


def test_column_limits_come_from_the_schema():
    assert refusal(record_table.c.number, "1" * record_table.c.number.type.length) is None
    assert refusal(record_table.c.number, "1" * (record_table.c.number.type.length + 1))
    assert refusal(record_table.c.year, 2 ** 31) == ("is out of range (-2,147,483,648 to "
                                                   "2,147,483,647)")
    assert refusal(record_table.c.ementa, "x\ud800") == ("contains a lone surrogate (U+D800), "
                                                       "not a character")
    assert refusal(record_table.c.ementa, "x" * 100_000) is None  # not indexed: no limit


def test_a_file_name_that_is_not_utf8_is_imported_under_an_escaped_name(corpus, tmp_path):
    """Old Windows servers wrote Latin-1 names; the database takes only valid text."""
    folder = tmp_path / "pdfs"
    folder.mkdir()
    with open(os.path.join(os.fsencode(folder), b"Resolu\xe7\xe3o 12-2014.txt"), "wb") as f:
        f.write("RESOLUÇÃO Nº 12/2014".encode())
    report = import_path(corpus, folder, JUAZEIRO)
    assert (report.files, report.problems) == (1, [])
    with corpus.store.engine.connect() as conn:
        row = conn.exec_driver_sql("SELECT native_id, type_raw, number, year FROM record").one()
    assert tuple(row) == ("Resolu\\xe7\\xe3o 12-2014.txt", "Resolução", "12", 2014)


# -- encodings, separators and rows of one norm (issue 8, item 17) --------------------------


EMENTA = "Dispõe sobre a criação do Conselho Municipal de Educação e dá outras providências"


@pytest.mark.parametrize("encoding, delimiter", [
    ("cp1252", ","), ("latin-1", ","), ("utf-16", ","), ("cp1252", ";"), ("utf-8-sig", ";"),
])
def test_a_manifest_in_a_windows_encoding_keeps_its_accents(corpus, dump, encoding, delimiter):
    ementa = EMENTA + (" – “Lei Seca”" if encoding == "cp1252" else "")
    manifest = dump / "manifest.csv"
    with manifest.open("w", newline="", encoding=encoding) as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(["file", "type", "number", "year", "date", "ementa"])
        writer.writerow(["lei2199.txt", "Resolução", "2199", "2011", "27/06/2011", ementa])
        writer.writerow(["decreto45.txt", "Decreto", "45-A", "2013", "", "Regulamentação"])
    import_path(corpus, manifest, JUAZEIRO)
    with corpus.store.engine.connect() as conn:
        rows = dict(conn.exec_driver_sql("SELECT type_raw, ementa FROM record").all())
    assert rows == {"Resolução": ementa, "Decreto": "Regulamentação"}


def test_a_stray_byte_in_a_utf8_manifest_names_its_line(cli_corpus, dump):
    rows = [{"file": "lei2199.txt", "type": "Lei", "number": str(i), "year": "2011",
             "ementa": EMENTA} for i in range(50)]
    manifest = write_manifest(dump, rows)
    data = manifest.read_bytes().replace(b"number,year", b"number,year", 1)
    lines = data.split(b"\n")
    lines[40] = lines[40].replace("Educação".encode(), "Educa\xe7\xe3o".encode("latin-1"))
    manifest.write_bytes(b"\n".join(lines))
    err = _one_error_line(run_cli("import", str(manifest), "-j", str(JUAZEIRO),
                                  corpus=cli_corpus))
    assert ("error: manifest.csv line 41: not utf-8 text (invalid continuation byte); save it "
            "as UTF-8") in err


def test_rows_of_one_norm_that_disagree_reject_the_manifest(corpus, dump):
    manifest = write_manifest(dump, [
        {"file": "lei2199.txt", "type": "Lei", "number": "2199", "year": "2011",
         "native_id": "1461", "ementa": "Moto-táxi."},
        {"file": "decreto45.txt", "type": "Decreto", "number": "45", "year": "2013"},
        {"file": "lei2199-anexo.txt", "type": "Lei", "number": "2199", "year": "2011",
         "native_id": "1461", "role": "anexo", "ementa": "Outra ementa."},
    ])
    with pytest.raises(ManifestError) as raised:
        import_path(corpus, manifest, JUAZEIRO)
    assert ("manifest.csv line 4: native_id '1461' repeats line 2 with a different ementa"
            in str(raised.value))
    assert corpus.store.status()["norms"] == 0


def _norms(corpus) -> list[tuple]:
    with corpus.store.engine.connect() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            "SELECT native_id, type_raw, number, year, date, ementa, url FROM record "
            "ORDER BY native_id")]


def test_rows_of_one_norm_give_the_same_norm_whatever_the_batch_size(tmp_path, dump,
                                                                     database_url, request):
    """An anexo row that leaves the ementa empty must not empty it when it lands later."""
    manifest = write_manifest(dump, [
        {"file": "lei2199-anexo.txt", "type": "Lei", "number": "2199", "year": "2011",
         "native_id": "1461", "role": "anexo", "title": "Anexo I"},
        {"file": "lei2199.txt", "type": "Lei", "number": "2199", "year": "2011",
         "native_id": "1461", "date": "2011-06-27", "ementa": "Moto-táxi."},
        {"file": "decreto45.txt", "type": "Decreto", "number": "45", "year": "2013"},
        {"file": "lei2199-anexo.txt", "native_id": "1461", "type": "", "number": "",
         "year": "", "url": "http://example.org/anexo2"},
    ])
    outcomes = []
    for i, batch_size in enumerate((1, 1000)):
        url = database_url and request.getfixturevalue("pg_server").create_database(
            f"b{os.getpid()}_{i}_{random.randrange(10 ** 9)}")
        corpus = init_corpus(tmp_path / f"c{i}", url)
        try:
            import_path(corpus, manifest, JUAZEIRO, batch_size=batch_size)
            outcomes.append(_norms(corpus))
        finally:
            corpus.close()
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0][0] == "1461" and outcomes[0][0][5] == "Moto-táxi."
    assert str(outcomes[0][0][4]) == "2011-06-27"
