"""Originals on object storage: a corpus on moto's S3 server, its faults, migrate --originals."""

from __future__ import annotations

import hashlib
import itertools
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest

from locleg.corpus import open_corpus
from locleg.originals import open_blobs
from locleg.originals.fsspec import FsspecBlobStore
from locleg.originals.local import BlobStore
from tests.conftest import run_cli
from tests.explorer_fixtures import LiveServer
from tests.s3server import SECRET, CheckingS3Server, wait_for

JUAZEIRO = "2918407"
_buckets = itertools.count()


@pytest.fixture
def s3(s3_server, monkeypatch):
    """The server, a fresh bucket, and this process's environment pointing at it."""
    for name, value in s3_server.env.items():
        monkeypatch.setenv(name, value)
    s3_server.proxy.delay = 0.0
    bucket = s3_server.create_bucket(f"corpus{os.getpid()}-{next(_buckets)}")
    yield s3_server, bucket
    s3_server.proxy.delay = 0.0
    if s3_server.proxy._listener is None:
        s3_server.proxy.up()


def make_dump(folder: Path, count: int) -> dict[str, bytes]:
    """COUNT laws as text files named as municipalities publish them; name -> bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for n in range(1, count + 1):
        data = (f"LEI Nº {n}/2019\nDispõe sobre a denominação da rua {n} do bairro Centro.\n"
                f"Art. 1º Fica denominada Rua {n} a via pública.\n").encode()
        (folder / f"Lei{n}-2019.txt").write_bytes(data)
        files[f"Lei{n}-2019.txt"] = data
    return files


def cli(*args: str, server, corpus: Path | None = None, **kw) -> subprocess.CompletedProcess:
    return run_cli(*args, corpus=corpus, env=server.env, **kw)


def settings_originals(corpus: Path) -> str:
    return tomllib.loads((corpus / "locleg.toml").read_text(encoding="utf-8"))["originals"]


def error_lines(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


def test_a_corpus_with_originals_on_s3_imports_extracts_serves_and_checks(s3, tmp_path):
    server, bucket = s3
    corpus = tmp_path / "corpus"
    made = cli("init", str(corpus), "--originals", f"s3://{bucket}/originals/", server=server,
               check=True)
    assert f"originals  s3://{bucket}/originals" in made.stdout
    assert settings_originals(corpus) == f"s3://{bucket}/originals"
    assert not (corpus / "originals").exists()  # nothing local
    files = make_dump(tmp_path / "dump", 6)
    cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, server=server, corpus=corpus,
        check=True)
    digests = {hashlib.sha256(data).hexdigest(): data for data in files.values()}
    keys = set(server.keys(bucket, "originals/"))
    assert {f"originals/{d[:2]}/{d}" for d in digests} <= keys
    # Each object holds exactly the file's bytes.
    some = next(iter(digests))
    body = server.client().get_object(Bucket=bucket, Key=f"originals/{some[:2]}/{some}")
    assert body["Body"].read() == digests[some]

    extracted = cli("extract", server=server, corpus=corpus, check=True)
    assert "6 extracted" in extracted.stdout
    shown = cli("search", "denominação", server=server, corpus=corpus, check=True)
    assert "Lei" in shown.stdout

    opened = open_corpus(corpus)
    try:
        assert isinstance(opened.blobs, FsspecBlobStore)
        with opened.store.engine.connect() as conn:
            doc_id, sha = conn.exec_driver_sql(
                "SELECT d.id, v.sha256 FROM document d JOIN version v ON v.document_id = d.id "
                "LIMIT 1").one()
        with LiveServer(opened) as live:
            original = httpx.get(f"{live.url}/document/{doc_id}/original", timeout=30)
        assert original.status_code == 200
        assert original.content == digests[sha]
        assert original.headers["x-content-sha256"] == sha
    finally:
        opened.close()

    checked = cli("check", server=server, corpus=corpus, check=True)
    assert "OK: 6 versions, 6 originals verified" in checked.stdout


def test_a_damaged_or_missing_object_is_reported_by_check_and_never_served(s3, tmp_path):
    server, bucket = s3
    corpus = tmp_path / "corpus"
    cli("init", str(corpus), "--originals", f"s3://{bucket}/o", server=server, check=True)
    files = make_dump(tmp_path / "dump", 3)
    cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, server=server, corpus=corpus,
        check=True)
    damaged, gone = sorted(hashlib.sha256(d).hexdigest() for d in files.values())[:2]
    # Overwritten in place behind our back (same size, one byte changed), and one deleted.
    data = files[next(n for n, d in files.items() if hashlib.sha256(d).hexdigest() == damaged)]
    server.client().put_object(Bucket=bucket, Key=f"o/{damaged[:2]}/{damaged}",
                               Body=data[:-1] + b"X")
    server.client().delete_object(Bucket=bucket, Key=f"o/{gone[:2]}/{gone}")

    checked = cli("check", server=server, corpus=corpus)
    assert checked.returncode == 1
    assert f"original {damaged} hash mismatch" in checked.stderr
    assert f"original {gone} missing" in checked.stderr
    assert "2 problem(s) found in 3 versions" in checked.stderr

    blobs = open_blobs(f"s3://{bucket}/o")
    with pytest.raises(Exception, match="corrupted"):
        blobs.read(damaged)
    with pytest.raises(Exception, match="missing"):
        blobs.read(gone)


def test_a_missing_bucket_or_a_password_in_the_url_is_one_line_and_leaves_no_corpus(
        s3, tmp_path):
    server, _ = s3
    corpus = tmp_path / "corpus"
    missing = cli("init", str(corpus), "--originals", "s3://no-such-bucket-here/x",
                  server=server)
    assert missing.returncode != 0
    assert error_lines(missing) == [
        "error: originals store s3://no-such-bucket-here/x unavailable while writing to it: "
        "bucket or prefix not found (The specified bucket does not exist); check the URL and "
        "AWS_ENDPOINT_URL, or create the bucket"]
    assert not (corpus / "locleg.toml").exists()

    secret = cli("init", str(corpus), "--originals", f"s3://AKIDEXAMPLE:{SECRET}@bucket/x",
                 server=server)
    assert secret.returncode != 0 and len(error_lines(secret)) == 1
    assert "s3://AKIDEXAMPLE:***@bucket/x" in secret.stderr
    assert SECRET not in secret.stdout + secret.stderr
    assert not (corpus / "locleg.toml").exists()


def test_wrong_or_unknown_credentials_are_one_line_never_printed_and_lose_nothing(tmp_path):
    server = CheckingS3Server("corpus-credentials").start()
    try:
        corpus, url = tmp_path / "corpus", "s3://corpus-credentials/o"
        for env in (server.env(secret="wrong-secret-never-printed"),
                    server.env(key_id="AKIAUNKNOWNKEY000000", secret="wrong-secret-never-printed")):
            refused = run_cli("init", str(corpus), "--originals", url, env=env)
            assert refused.returncode == 1
            lines = error_lines(refused)
            assert len(lines) == 1 and "Traceback" not in refused.stderr, refused.stderr
            assert lines[0].startswith(f"error: originals store {url} unavailable while ")
            assert "access refused" in lines[0] and "AWS_SECRET_ACCESS_KEY" in lines[0]
            assert "wrong-secret-never-printed" not in refused.stdout + refused.stderr
            assert not (corpus / "locleg.toml").exists()

        run_cli("init", str(corpus), "--originals", url, env=server.env(), check=True)
        make_dump(tmp_path / "dump", 5)
        run_cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, corpus=corpus,
                env=server.env(), check=True)
        make_dump(tmp_path / "dump", 8)  # three more laws, and the key's secret rotated
        rotated = server.env(secret="rotated-secret-never-printed")
        for args in (("import", str(tmp_path / "dump"), "-j", JUAZEIRO), ("check",)):
            refused = run_cli(*args, corpus=corpus, env=rotated)
            assert refused.returncode != 0, refused.stdout
            lines = error_lines(refused)
            assert len(lines) == 1 and "access refused" in lines[0], refused.stderr
            assert "rotated-secret-never-printed" not in refused.stdout + refused.stderr

        run_cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, corpus=corpus,
                env=server.env(), check=True)
        checked = run_cli("check", corpus=corpus, env=server.env(), check=True)
        assert "OK: 8 versions, 8 originals verified" in checked.stdout
    finally:
        server.stop()


def test_the_s3_server_down_mid_import_stops_it_cleanly_and_a_rerun_completes_it(s3, tmp_path):
    server, bucket = s3
    corpus = tmp_path / "corpus"
    cli("init", str(corpus), "--originals", f"s3://{bucket}/o", server=server, check=True)
    files = make_dump(tmp_path / "dump", 60)
    server.proxy.delay = 0.005  # long enough an import to take the server away during it
    env = {**os.environ, **server.env, "LOCLEG_CORPUS": str(corpus)}
    importing = subprocess.Popen(
        [sys.executable, "-m", "locleg", "import", str(tmp_path / "dump"), "-j", JUAZEIRO,
         "--batch-size", "10"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        wait_for(lambda: len(server.keys(bucket, "o/")) > 20 or importing.poll() is not None,
                 timeout=120, what="the import to store some originals")
        assert importing.poll() is None, "the import ended before the server went down"
        server.proxy.down()
        out, err = importing.communicate(timeout=300)
    finally:
        if importing.poll() is None:
            importing.kill()
    assert importing.returncode == 1
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    # Whichever request met the closed endpoint: the HEAD before a PUT, or the PUT.
    assert lines[0].startswith(f"error: originals store s3://{bucket}/o unavailable while ")
    assert "cannot connect" in lines[0] and "run the command again" in lines[0]
    assert SECRET not in out + err

    server.proxy.up()
    server.proxy.delay = 0.0
    # What the first run committed is whole: each version it wrote names a stored object.
    partial = cli("check", server=server, corpus=corpus, check=True)
    assert "OK:" in partial.stdout
    rerun = cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, server=server, corpus=corpus,
                check=True)
    assert "Imported 60 files" in rerun.stdout
    checked = cli("check", server=server, corpus=corpus, check=True)
    assert "OK: 60 versions, 60 originals verified" in checked.stdout
    assert len(server.keys(bucket, "o/")) == len(files) + 1  # and the marker


def test_migrate_local_originals_to_s3_resumes_after_a_kill_and_switches_when_all_match(
        s3, tmp_path):
    server, bucket = s3
    corpus = tmp_path / "corpus"
    run_cli("init", str(corpus), check=True)
    files = make_dump(tmp_path / "dump", 80)
    run_cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, corpus=corpus, check=True)
    old = corpus / "originals"
    total = sum(len(d) for d in files.values())
    target = f"s3://{bucket}/moved"

    server.proxy.delay = 0.005
    env = {**os.environ, **server.env, "LOCLEG_CORPUS": str(corpus)}
    moving = subprocess.Popen([sys.executable, "-m", "locleg", "migrate", "--originals", target],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: len(server.keys(bucket, "moved/")) > 10 or moving.poll() is not None,
                 timeout=120, what="the migration to copy some originals")
        assert moving.poll() is None, "the migration ended before it could be killed"
        moving.send_signal(signal.SIGKILL)
        moving.wait(60)
    finally:
        if moving.poll() is None:
            moving.kill()
    server.proxy.delay = 0.0
    copied_before = len(server.keys(bucket, "moved/")) - 1  # less the marker
    assert 0 < copied_before < 80
    # Killed: the corpus still uses, and still has, every local original.
    assert settings_originals(corpus) == "originals"
    run_cli("check", corpus=corpus, check=True)

    done = cli("migrate", "--originals", target, server=server, corpus=corpus, check=True)
    out = " ".join(done.stdout.split())
    assert f"{80 - copied_before} copied" in out
    assert f"{copied_before} already there and intact" in out
    listing = "\n".join(sorted(f"{hashlib.sha256(d).hexdigest()} {len(d)}"
                               for d in files.values())) + "\n"
    checksum = hashlib.sha256(listing.encode()).hexdigest()
    for side in ("old", "new"):
        assert f"{side} 80 originals, {total:,} bytes, sha256 of the list {checksum}" in out
    assert f"the corpus now uses {target}" in out
    assert f"rm -r {old}" in out
    assert settings_originals(corpus) == target
    assert len(list(BlobStore(old))) == 80  # the old store is left in place
    checked = cli("check", server=server, corpus=corpus, check=True)
    assert "OK: 80 versions, 80 originals verified" in checked.stdout

    # Object store to object store, and a run with nothing left to copy.
    again = cli("migrate", "--originals", f"s3://{bucket}/second", server=server,
                corpus=corpus, check=True)
    assert "80 copied" in " ".join(again.stdout.split())
    assert settings_originals(corpus) == f"s3://{bucket}/second"
    same = cli("migrate", "--originals", f"s3://{bucket}/second", server=server, corpus=corpus)
    assert same.returncode != 0 and "already at" in same.stderr


def test_migrate_keeps_the_old_store_when_an_original_is_damaged_and_can_go_back_to_a_folder(
        s3, tmp_path):
    server, bucket = s3
    corpus = tmp_path / "corpus"
    run_cli("init", str(corpus), check=True)
    files = make_dump(tmp_path / "dump", 4)
    run_cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, corpus=corpus, check=True)
    damaged = sorted(hashlib.sha256(d).hexdigest() for d in files.values())[0]
    path = corpus / "originals" / damaged[:2] / damaged
    path.write_bytes(b"not the original")

    refused = cli("migrate", "--originals", f"s3://{bucket}/m", server=server, corpus=corpus)
    assert refused.returncode == 1
    assert f"original {damaged} is corrupted" in refused.stderr
    assert "the corpus still uses" in refused.stderr
    assert settings_originals(corpus) == "originals"

    path.write_bytes(files[next(n for n, d in files.items()
                                if hashlib.sha256(d).hexdigest() == damaged)])
    cli("migrate", "--originals", f"s3://{bucket}/m", server=server, corpus=corpus, check=True)
    assert settings_originals(corpus) == f"s3://{bucket}/m"
    # And from object storage to a folder outside the corpus.
    back = tmp_path / "elsewhere"
    done = cli("migrate", "--originals", str(back), server=server, corpus=corpus, check=True)
    assert "4 copied" in done.stdout and "aws s3 rm --recursive" in done.stdout
    assert settings_originals(corpus) == str(back)
    assert sorted(BlobStore(back)) == sorted(hashlib.sha256(d).hexdigest()
                                            for d in files.values())
    checked = cli("check", server=server, corpus=corpus, check=True)
    assert "OK: 4 versions, 4 originals verified" in checked.stdout


def test_open_blobs_takes_a_path_a_file_url_or_an_object_store_url(tmp_path, s3):
    _, bucket = s3
    assert isinstance(open_blobs(tmp_path / "a"), BlobStore)
    assert open_blobs(f"file://{tmp_path}/b").root == tmp_path / "b"
    store = open_blobs(f"s3://{bucket}/p/")
    assert isinstance(store, FsspecBlobStore) and store.root == f"s3://{bucket}/p"
    with pytest.raises(Exception, match="not a sha256 digest"):
        store.read("../../etc/passwd")
    stored = store.put(b"lei")
    assert stored.created and not store.put(b"lei").created
    assert dict(store.inventory()) == {stored.sha256: 3}
    assert store.read(stored.sha256) == b"lei" and store.verify(stored.sha256) is None


def test_migrate_with_refused_credentials_is_one_line_moves_nothing_half_way_and_loses_nothing(
        tmp_path):
    """A wrong secret; then a key the bucket lets write only half the originals (refused mid
    run, after some were copied); then the right key: each refusal is one line that never
    prints the secret, the corpus keeps using, and holding, its old store, and the run with
    the right key copies the rest and switches."""
    bucket = "corpus-migrate"
    half = [f"s3:PutObject o/{prefix}*" for prefix in "01234567"]
    server = CheckingS3Server(bucket, limited={"half-writer": [
        "s3:ListBucket", "s3:GetObject o/*", "s3:PutObject o/locleg-originals.txt", *half]}
    ).start()
    try:
        corpus, target = tmp_path / "corpus", f"s3://{bucket}/o"
        run_cli("init", str(corpus), check=True)
        files = make_dump(tmp_path / "dump", 40)
        run_cli("import", str(tmp_path / "dump"), "-j", JUAZEIRO, corpus=corpus, check=True)
        digests = sorted(hashlib.sha256(d).hexdigest() for d in files.values())

        wrong = run_cli("migrate", "--originals", target, corpus=corpus,
                        env=server.env(secret="wrong-secret-never-printed"))
        assert wrong.returncode == 1 and len(error_lines(wrong)) == 1, wrong.stderr
        assert error_lines(wrong)[0].startswith(
            f"error: originals store {target} unavailable while writing to it: access refused")
        assert "wrong-secret-never-printed" not in wrong.stdout + wrong.stderr

        half_key = server.keys["half-writer"]
        refused = run_cli("migrate", "--originals", target, corpus=corpus,
                          env=server.env(*half_key))
        assert refused.returncode == 1 and len(error_lines(refused)) == 1, refused.stderr
        assert "unavailable while storing " in refused.stderr
        assert "access refused (Access Denied)" in refused.stderr
        assert "Traceback" not in refused.stderr and half_key[1] not in refused.stderr
        copied = {k.rsplit("/", 1)[-1] for k in _keys(server, "o/")} - {"locleg-originals.txt"}
        assert copied and copied < set(digests)  # refused half way through
        for _ in range(2):  # the corpus still uses, and holds, every original
            assert settings_originals(corpus) == "originals"
            assert sorted(BlobStore(corpus / "originals")) == digests
            checked = run_cli("check", corpus=corpus, check=True)
            assert "OK: 40 versions, 40 originals verified" in checked.stdout

        done = run_cli("migrate", "--originals", target, corpus=corpus, env=server.env(),
                       check=True)
        out = " ".join(done.stdout.split())
        assert f"{40 - len(copied)} copied" in out
        assert f"{len(copied)} already there and intact" in out
        assert settings_originals(corpus) == target
        checked = run_cli("check", corpus=corpus, env=server.env(), check=True)
        assert "OK: 40 versions, 40 originals verified" in checked.stdout

        # Back to a folder with a wrong secret: refused before anything is read.
        back = tmp_path / "back"
        refused = run_cli("migrate", "--originals", str(back), corpus=corpus,
                          env=server.env(secret="wrong-secret-never-printed"))
        assert refused.returncode == 1 and len(error_lines(refused)) == 1, refused.stderr
        assert "access refused" in refused.stderr and settings_originals(corpus) == target
        assert not list(BlobStore(back))
    finally:
        server.stop()


def _keys(server: CheckingS3Server, prefix: str) -> list[str]:
    import boto3

    client = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                          aws_access_key_id=server.key_id, aws_secret_access_key=server.secret)
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=server.bucket,
                                                             Prefix=prefix)
    return [o["Key"] for page in pages for o in page.get("Contents", [])]
