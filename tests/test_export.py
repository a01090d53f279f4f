"""Bulk releases (`locleg export`): loaded back with pyarrow, pandas, DuckDB and Hugging Face
`datasets`; row counts equal `locleg status`'s; every text equals the explorer's; SHA256SUMS
checks with sha256sum; a SIGKILLed export leaves no half-written file and a re-run completes
it; incremental releases; bad input; the explorer's /exports page and downloads."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta

import duckdb
import httpx
import pandas as pd
import pyarrow.parquet as pq
import pytest
from sqlalchemy import select

from locleg.corpus import init_corpus
from locleg.export import export_release, make_options
from locleg.export.release import PROGRESS, STAGING
from locleg.store import utcnow
from locleg.store.schema import record
from tests.conftest import BACKENDS, module_corpus, run_cli
from tests.explorer_fixtures import (
    JUAZEIRO,
    PETROLINA,
    SEED_EMENTA,
    SEED_URL,
    SEED_URN,
    XSS_TEXT,
    LiveServer,
    _add_document,
    _extracted,
    add_formula_norm,
    build_big_text_corpus,
    build_explorer_corpus,
)


@pytest.fixture(scope="module", params=BACKENDS)
def built(request, tmp_path_factory):
    """The explorer corpus (with its legal life) on each backend, and a Parquet release of
    it with text in its exports folder."""
    corpus, url = module_corpus(request, tmp_path_factory, "export")
    ec = build_explorer_corpus(corpus, legal_life=True)
    ec.env = {"LOCLEG_DATABASE_URL": url} if url else {}
    ec.release = corpus.folder / "exports" / "full"
    result = run_cli("export", str(ec.release), "--with-text", corpus=corpus.folder,
                     env=ec.env)
    assert result.returncode == 0, result.stderr
    assert "Release written to" in result.stdout
    yield ec
    corpus.close()


def _values(column: pd.Series) -> list:
    """A column's values with pandas' missing values as None."""
    return [None if pd.isna(v) else v for v in column]


# -- what a release holds -------------------------------------------------------------------


def test_release_counts_equal_status(built):
    status = json.loads(run_cli("status", "--json", corpus=built.corpus.folder,
                                env=built.env, check=True).stdout)
    manifest = json.loads((built.release / "manifest.json").read_text())
    rows = {name: t["rows"] for name, t in manifest["tables"].items()}
    assert rows["norms"] == status["norms"] == 12
    assert rows["records"] == status["records"] == 13
    assert rows["documents"] == status["documents"] == 12
    assert rows["extractions"] == status["fetched"] == 12
    assert rows["merges"] == 1  # seed 000's folder record joined it
    norms = pd.read_parquet(built.release / "norms")
    assert len(norms) == status["norms"] and norms["norm_id"].is_unique
    assert built.norms["merged"] not in set(norms["norm_id"])
    extractions = pd.read_parquet(built.release / "extractions")
    assert extractions["status"].value_counts().to_dict() == {
        s: status[s] for s in ("extracted", "failed") if status[s]}
    texts = pd.read_parquet(built.release / "texts")
    assert len(texts) == status["pages"] == int(extractions["pages"].sum())
    per_uf = norms.groupby("uf", observed=True).size().to_dict()
    assert per_uf == {"BA": 11, "PE": 1}
    assert manifest["corpus"]["state"]["norm"]["rows"] == 13  # the merged one counted
    assert manifest["options"] == {"format": "parquet", "uf": [], "jurisdiction": [],
                                   "since": None, "with_text": True}


def test_norm_rows_say_what_the_explorer_says(built):
    norms = pd.read_parquet(built.release / "norms").set_index("norm_id")
    seed = norms.loc[built.norms["seed"]]
    assert (seed["urn"], seed["number"], seed["year"], seed["date"]) == (
        SEED_URN, "2199", 2011, date(2011, 6, 27))
    assert (seed["jurisdiction_code"], seed["jurisdiction"], seed["uf"], seed["type"]) == (
        JUAZEIRO, "Juazeiro", "BA", "lei")
    assert seed["status"] == "altered" and seed["records"] == 2
    assert json.loads(seed["status_evidence"])[0]["status"] == "altered"
    assert seed["source_url"] == "https://sapl.juazeiro.ba.leg.br/norma/1461"
    assert set(json.loads(seed["provenance"])) >= {"ementa", "number"}
    assert str(seed["first_seen_at"].tz) == "UTC"
    assert norms.loc[built.norms["revoked"], "status"] == "revoked"
    records = pd.read_parquet(built.release / "records")
    mine = records[records["norm_id"] == built.norms["seed"]].sort_values("record_id")
    assert list(mine["platform"]) == ["sapl", "folder"]
    # The folder import's own address is the importing machine's: never published.
    assert _values(mine["source_base_url"]) == ["https://sapl.juazeiro.ba.leg.br", None]
    assert list(mine["native_id"]) == ["1461", "leis/lei_2199_2011.html"]
    documents = pd.read_parquet(built.release / "documents").set_index("document_id")
    doc = documents.loc[built.documents["seed"]]
    assert (doc["norm_id"], doc["url"], doc["sha256"], doc["media_type"]) == (
        built.norms["seed"], SEED_URL, built.sha256["seed"], "application/pdf")
    state = documents.loc[built.documents["state"]]
    assert state["origin"] == "file:lei12000.html"  # the path inside the import, no more
    extractions = pd.read_parquet(built.release / "extractions").set_index("document_id")
    seed_ext = extractions.loc[built.documents["seed"]]
    assert (seed_ext["method"], seed_ext["backend"], seed_ext["confidence"],
            seed_ext["pages"]) == ("ocr", "tesseract", 0.94, 9)
    citations = pd.read_parquet(built.release / "citations")
    # Art. 31 revokes "as disposições em contrário … contidas na Lei Municipal nº 1.996": the
    # contrary provisions only, a citation (issue 21); the status comes from SAPL's vínculo
    contrary = citations[(citations["from_norm_id"] == built.norms["seed"])
                         & (citations["to_norm_id"] == built.norms["revoked"])]
    assert list(contrary["kind"]) == ["cites"]


def test_text_equals_the_explorers(built):
    """Every page of every document in texts/ is the page the explorer's JSON shows."""
    texts = pd.read_parquet(built.release / "texts")
    with LiveServer(built.corpus) as live, httpx.Client(base_url=live.url) as client:
        compared = 0
        for norm_id in pd.read_parquet(built.release / "norms")["norm_id"]:
            page = client.get(f"/norm/{norm_id}.json").json()
            for doc in page["documents"]:
                mine = texts[texts["document_id"] == doc["id"]].sort_values("page")
                assert [(p["number"], p["text"]) for p in doc["pages"]] == list(
                    zip(mine["page"], mine["text"], strict=True)), (norm_id, doc["id"])
                assert set(mine["version_id"]) <= {doc["current_version_id"]}
                assert set(mine["norm_id"]) <= {norm_id}
                compared += len(mine)
    assert compared == len(texts) == 20
    xss = texts[texts["document_id"] == built.documents["xss"]]
    assert list(xss["text"]) == [XSS_TEXT]  # data, as it is: escaping is the reader's


def test_duckdb_and_datasets_read_the_release(built, tmp_path):
    release = built.release
    found = duckdb.sql(
        f"SELECT uf, count(*) AS n FROM read_parquet('{release}/norms/**/*.parquet', "
        "hive_partitioning=1) GROUP BY uf ORDER BY uf").fetchall()
    assert found == [("BA", 11), ("PE", 1)]
    joined = duckdb.sql(
        f"SELECT n.number, d.url FROM read_parquet('{release}/norms/**/*.parquet', "
        f"hive_partitioning=1) n JOIN read_parquet('{release}/documents/**/*.parquet', "
        f"hive_partitioning=1) d USING (norm_id) WHERE n.urn = '{SEED_URN}' "
        "AND d.role = 'texto_integral' ORDER BY d.document_id").fetchall()
    assert joined[0] == ("2199", SEED_URL)
    pages = duckdb.sql(
        f"SELECT count(*) FROM read_parquet('{release}/texts/**/*.parquet', "
        "hive_partitioning=1) WHERE uf = 'PE'").fetchall()[0]
    assert pages == (1,)
    # Hugging Face datasets, offline, its cache in the test's folder.
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf")}
    script = (
        "import json, sys; from datasets import load_dataset\n"
        f"ds = load_dataset('parquet', data_files='{release}/norms/**/*.parquet', "
        f"split='train', cache_dir='{tmp_path / 'cache'}')\n"
        f"ba = load_dataset('parquet', data_files={{'BA': '{release}/norms/uf=BA/*.parquet'}}, "
        f"cache_dir='{tmp_path / 'cache'}')\n"
        "print(json.dumps([ds.num_rows, ba['BA'].num_rows, sorted(ds.column_names)[:3], "
        "sorted(ds['urn'], key=str)[-1]]))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    rows, ba_rows, columns, last_urn = json.loads(result.stdout.splitlines()[-1])
    assert (rows, ba_rows) == (12, 11)
    assert columns == ["changed_at", "cited_by", "conflicts"]
    assert last_urn.startswith("urn:lex:br;")


def test_checksums_verify_with_sha256sum(built):
    result = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=built.release,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    listed = [line.split("  ", 1)[1] for line in
              (built.release / "SHA256SUMS").read_text().splitlines()]
    on_disk = sorted(p.relative_to(built.release).as_posix()
                     for p in built.release.rglob("*") if p.is_file())
    assert sorted(listed + ["SHA256SUMS"]) == on_disk  # nothing unlisted, nothing left over
    assert all(p.startswith(("norms/uf=", "records/uf=", "documents/uf=", "extractions/uf=",
                             "texts/uf=", "citations/uf=", "merges/uf=")) or
               p in ("README.md", "manifest.json") for p in listed)
    manifest = json.loads((built.release / "manifest.json").read_text())
    for name, table in manifest["tables"].items():
        for f in table["files"]:
            data = (built.release / f["path"]).read_bytes()
            assert (len(data), hashlib.sha256(data).hexdigest()) == (f["bytes"], f["sha256"])
            assert f["path"].startswith(f"{name}/uf=")


def test_dataset_card(built):
    card = (built.release / "README.md").read_text()
    assert "Lei nº 9.610/1998, art. 8º, IV" in card
    assert "| BA | 11 | 1 of 417 |" in card and "| 2918407 | Juazeiro | BA | 10 |" in card
    assert "share OCRed: 27.3 % of the documents with text (3 of 11" in card
    assert "| 0.9–1.0 | 1 |" in card and "| 0.4–0.5 | 1 |" in card
    assert "read_parquet('norms/**/*.parquet', hive_partitioning=1)" in card
    assert 'load_dataset("parquet"' in card and 'pd.read_parquet("norms")' in card
    for table in ("norms", "records", "documents", "extractions", "texts", "citations",
                  "merges"):
        assert f"### `{table}/`" in card
    assert "| `status` | string | legal status:" in card  # every column with its meaning
    assert "sha256sum -c SHA256SUMS" in card


# -- formats ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_jsonl_and_csv_hold_the_same_rows(built, tmp_path, fmt):
    release = tmp_path / fmt
    run_cli("export", str(release), "--format", fmt, "--with-text", "--uf", "ba",
            corpus=built.corpus.folder, env=built.env, check=True)
    suffix = {"jsonl": "jsonl.gz", "csv": "csv.gz"}[fmt]
    files = sorted((release / "texts").glob(f"*/*.{suffix}"))
    assert [f.parent.name for f in files] == ["uf=BA"]
    if fmt == "jsonl":
        with gzip.open(files[0], "rt", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        texts = pd.DataFrame(rows)
        norms = pd.concat(pd.read_json(f, lines=True, dtype={"number": str})
                          for f in (release / "norms").glob("*/*.jsonl.gz"))
    else:
        texts = pd.read_csv(files[0], keep_default_na=False)
        norms = pd.concat(pd.read_csv(f, dtype={"number": str})
                          for f in (release / "norms").glob("*/*.csv.gz"))
    parquet = pd.read_parquet(built.release / "texts", filters=[("uf", "=", "BA")])
    assert sorted(zip(texts["document_id"], texts["page"], texts["text"], strict=True)) == \
        sorted(zip(parquet["document_id"], parquet["page"], parquet["text"], strict=True))
    assert set(norms["uf"]) == {"BA"} and len(norms) == 11
    seed = norms[norms["norm_id"] == built.norms["seed"]].iloc[0]
    assert (seed["urn"], str(seed["number"])) == (SEED_URN, "2199")
    found = duckdb.sql(f"SELECT count(*) FROM read_{'json' if fmt == 'jsonl' else 'csv'}"
                       f"('{release}/norms/*/*.{suffix}')").fetchall()[0]
    assert found == (11,)
    assert "| BA | 11 |" in (release / "README.md").read_text()
    assert subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"],
                          cwd=release).returncode == 0


def test_filters_narrow_the_release(built, tmp_path):
    one = tmp_path / "petrolina"
    run_cli("export", str(one), "--jurisdiction", str(PETROLINA), "--with-text",
            corpus=built.corpus.folder, env=built.env, check=True)
    norms = pd.read_parquet(one / "norms")
    assert list(norms["jurisdiction"]) == ["Petrolina"] and list(norms["uf"]) == ["PE"]
    assert len(pd.read_parquet(one / "texts")) == 1
    # No citation in Petrolina: the table is there all the same, empty, with its schema.
    citations = pd.read_parquet(one / "citations")
    assert len(citations) == 0 and "kind" in citations.columns
    assert json.loads((one / "manifest.json").read_text())["filters"]["jurisdiction"] == [
        PETROLINA]


def test_csv_cells_that_start_a_formula_are_made_inert(tmp_path):
    """A release is served to anyone at /exports: its CSV must not run formulas when opened
    in a spreadsheet (the quote rule of the search's CSV), while Parquet and JSON lines keep
    the exact value."""
    corpus = init_corpus(tmp_path / "corpus")
    ec = build_explorer_corpus(corpus, refresh=False)
    norm_id = add_formula_norm(corpus)
    with corpus.store.engine.connect() as conn:
        record_id = conn.execute(select(record.c.id).where(record.c.norm_id == norm_id)).scalar()
    page = '=HYPERLINK("http://evil.example","clique")'
    _add_document(ec, "formula", record_id, "https://sapl.juazeiro.ba.leg.br/f.pdf",
                  b"%PDF-1.4 formula", "application/pdf")
    _extracted(ec, "formula", "text", "pdfium", None, [page, "-1 ponto", "Art. 1º = 2"])
    corpus.close()
    ementa = '=HYPERLINK("http://evil.example","planilha")'
    read = {}
    for fmt in ("csv", "jsonl", "parquet"):
        release = tmp_path / fmt
        run_cli("export", str(release), "--format", fmt, "--with-text", "--uf", "BA",
                corpus=tmp_path / "corpus", check=True)
        if fmt == "parquet":
            read[fmt] = {t: pd.read_parquet(release / t) for t in ("norms", "records", "texts")}
        else:
            read[fmt] = {t: pd.concat(
                pd.read_csv(f, dtype=str, keep_default_na=False) if fmt == "csv"
                else pd.read_json(f, lines=True, dtype=False)
                for f in (release / t).glob("*/*.gz")) for t in ("norms", "records", "texts")}
    for fmt, tables in read.items():
        quote = "'" if fmt == "csv" else ""
        norms, records, texts = tables["norms"], tables["records"], tables["texts"]
        formula = norms[norms["norm_id"].astype(int) == norm_id].iloc[0]
        assert (formula["ementa"], formula["type_raw"], formula["number"]) == (
            quote + ementa, quote + "@SUM(A1)", quote + "-2+3"), fmt
        assert quote + ementa in set(records["ementa"]), fmt
        pages = texts[texts["document_id"].astype(int) == ec.documents["formula"]]
        assert sorted(pages["text"]) == sorted([quote + page, quote + "-1 ponto",
                                                "Art. 1º = 2"]), fmt
        seed = norms[norms["norm_id"].astype(int) == ec.norms["seed"]].iloc[0]
        assert seed["ementa"] == SEED_EMENTA, fmt  # other values untouched
    card = (tmp_path / "csv" / "README.md").read_text()
    assert "has a single quote `'` put before it" in card
    assert "Values are exactly as stored." in (tmp_path / "jsonl" / "README.md").read_text()


# -- a killed export ---------------------------------------------------------------------------


def test_a_killed_export_leaves_no_half_file_and_a_rerun_completes_it(corpus, tmp_path):
    build_big_text_corpus(corpus, texts=30, chars=1_000_000, giant_chars=0)
    release = corpus.folder / "exports" / "big"
    env = {**os.environ, "LOCLEG_CORPUS": str(corpus.folder)}
    child = subprocess.Popen([sys.executable, "-m", "locleg", "export", str(release),
                              "--with-text"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    staging = release / STAGING
    deadline = time.monotonic() + 120
    # Wait for the texts (the last table) to be half written, then kill without warning.
    while not any(p.name.startswith("texts~") and p.stat().st_size > 0
                  for p in (staging.glob("*") if staging.exists() else [])):
        assert child.poll() is None, child.stderr.read().decode()
        assert time.monotonic() < deadline
        time.sleep(0.005)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert not (release / "SHA256SUMS").exists() and not (release / "manifest.json").exists()
    assert (release / PROGRESS).exists() and not (release / "texts").exists()
    for f in release.rglob("*.parquet"):  # every file under a final name is whole
        if STAGING not in f.parts:
            assert pq.read_table(f).num_rows >= 0
    with LiveServer(corpus) as live:
        listed = httpx.get(live.url + "/exports.json").json()
        assert listed["releases"] == [] and listed["incomplete"] == ["big"]
        assert httpx.get(live.url + "/exports/big/norms/uf=BA/part-00000.parquet"
                         ).status_code == 404
    rerun = run_cli("export", str(release), "--with-text", corpus=corpus.folder, check=True)
    assert "went on from an interrupted export: norms, records, documents" in rerun.stderr
    assert not (release / PROGRESS).exists() and not (release / STAGING).exists()
    assert subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"],
                          cwd=release).returncode == 0
    texts = pd.read_parquet(release / "texts")
    assert len(texts) == 31 and texts["text"].str.len().sum() > 30_000_000


# -- bad input ----------------------------------------------------------------------------------


def test_bad_input_is_one_clear_line(tmp_path):
    corpus = init_corpus(tmp_path / "corpus")
    build_explorer_corpus(corpus, refresh=False)
    corpus.close()
    folder = tmp_path / "corpus"
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    foreign = tmp_path / "foreign"
    (foreign / "norms").mkdir(parents=True)
    (foreign / "notes.txt").write_text("mine")
    cases = [
        (["--uf", "XX"], "unknown UF 'XX': one of AC, AL"),
        (["--jurisdiction", "291840"], "'291840' is not an IBGE code: a municipality has 7"),
        (["--jurisdiction", "2999999"], "unknown IBGE code 2999999"),
        (["--jurisdiction", str(PETROLINA), "--uf", "BA"], "is not in UF BA"),
        (["--since", "2026-13-01"], "--since: not a date: '2026-13-01'"),
        (["--since", "ontem"], "--since: not a date: 'ontem'"),
    ]
    for args, message in cases:
        result = run_cli("export", str(tmp_path / "out"), *args, corpus=folder)
        assert result.returncode == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert message in result.stderr, (args, result.stderr)
    assert not (tmp_path / "out").exists()
    for out, message in ((a_file, "is a file, not a folder"),
                         (foreign, "holds files that are not part of a release (notes.txt)")):
        result = run_cli("export", str(out), corpus=folder)
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
        assert message in result.stderr, result.stderr
    assert (foreign / "notes.txt").read_text() == "mine" and a_file.read_text() == "x"
    bad_format = run_cli("export", str(tmp_path / "out"), "--format", "xlsx", corpus=folder)
    assert bad_format.returncode == 2 and "'xlsx' is not one of" in bad_format.stderr


# -- the explorer's /exports --------------------------------------------------------------------


def test_exports_page_lists_releases_and_serves_their_files(built):
    outside = built.corpus.folder / "secret.txt"
    outside.write_text("not for download")
    release = built.release
    (release / "norms" / "uf=BA" / "link.parquet").symlink_to(outside)
    try:
        with LiveServer(built.corpus) as live, httpx.Client(base_url=live.url) as client:
            page = client.get("/exports.json").json()
            [listed] = [r for r in page["releases"] if r["name"] == "full"]
            assert listed["format"] == "parquet" and listed["with_text"] is True
            assert listed["tables"]["norms"] == 12 and listed["tables"]["texts"] == 20
            sums = dict(reversed(line.split("  ", 1)) for line in
                        (release / "SHA256SUMS").read_text().splitlines())
            files = {f["path"]: f for f in listed["files"]}
            assert set(files) == set(sums) | {"SHA256SUMS"}
            for path, digest in sums.items():
                assert files[path]["sha256"] == digest
                assert files[path]["bytes"] == (release / path).stat().st_size
            norms_file = next(p for p in sums if p.startswith("norms/uf=BA/"))
            got = client.get(files[norms_file]["url"])
            assert got.status_code == 200 and got.headers["x-content-sha256"] == sums[norms_file]
            assert hashlib.sha256(got.content).hexdigest() == sums[norms_file]
            assert got.headers["content-disposition"].startswith("attachment")
            manifest = client.get("/exports/full/manifest.json")
            assert manifest.json()["tables"]["norms"]["rows"] == 12  # the file, not a twin
            assert client.get("/exports/full/SHA256SUMS").text == \
                (release / "SHA256SUMS").read_text()
            for bad in ("/exports/full/norms/uf=BA/link.parquet", "/exports/full/../secret.txt",
                        "/exports/full/%2e%2e/secret.txt", "/exports/full/%2E%2E/%2E%2E/x",
                        "/exports/..%2fsecret.txt/x", "/exports/full/.locleg-export.json",
                        "/exports/nothing/README.md", "/exports/full/norms",
                        "/exports/full//etc/passwd", "/exports/full/norms/uf=BA/"):
                answer = client.get(bad, follow_redirects=True)
                assert answer.status_code == 404, bad
                assert b"not for download" not in answer.content
            html = client.get("/exports").text
            assert "full" in html and f'href="{files[norms_file]["url"]}"' in html
            assert 'href="/exports/full/README.md"' in html and "SHA256SUMS" in html
    finally:
        (release / "norms" / "uf=BA" / "link.parquet").unlink()
        outside.unlink()


# -- runs that change the corpus (last: the fixture is shared) -------------------------


def test_a_second_run_is_up_to_date_and_a_changed_corpus_replaces_it(built, tmp_path):
    again = run_cli("export", str(built.release), "--with-text", corpus=built.corpus.folder,
                    env=built.env, check=True)
    assert "up to date" in again.stdout
    other = tmp_path / "meta"
    run_cli("export", str(other), corpus=built.corpus.folder, env=built.env, check=True)
    assert not (other / "texts").exists()
    before = json.loads((other / "manifest.json").read_text())["created_at"]
    store = built.corpus.store
    petrolina = store.ensure_source(PETROLINA, "sapl", "https://sapl.petrolina.pe.leg.br")
    with store.transaction() as conn:
        store.upsert_records(conn, petrolina, [{
            "native_id": "78", "jurisdiction_code": PETROLINA, "type_raw": "Decreto",
            "type_normalized": "decreto", "number": "5", "year": 2019,
            "date": date(2019, 1, 2), "ementa": "Um decreto novo.", "url": None}], utcnow())
    replaced = run_cli("export", str(other), corpus=built.corpus.folder, env=built.env,
                       check=True)
    assert "Release written" in replaced.stdout
    manifest = json.loads((other / "manifest.json").read_text())
    assert manifest["tables"]["norms"]["rows"] == 13 and manifest["created_at"] >= before


def test_since_makes_an_incremental_release(built, tmp_path):
    store = built.corpus.store
    cut = utcnow()
    nothing = tmp_path / "nothing"
    run_cli("export", str(nothing), "--since", (cut + timedelta(days=1)).date().isoformat(),
            corpus=built.corpus.folder, env=built.env, check=True)
    assert len(pd.read_parquet(nothing / "norms")) == 0
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    with store.transaction() as conn:
        store.upsert_records(conn, sapl, [{
            "native_id": "1502", "jurisdiction_code": JUAZEIRO, "type_raw": "Lei Ordinária",
            "type_normalized": "lei", "number": "2301", "year": 2012,
            "date": date(2012, 6, 2), "ementa": "Cria o conselho municipal de cultura e "
            "turismo.", "url": None}], utcnow())
    changed = tmp_path / "changed"
    opts = make_options(built.corpus, "parquet", since=cut.isoformat())
    report = export_release(built.corpus, changed, opts)
    norms = pd.read_parquet(changed / "norms")
    assert list(norms["norm_id"]) == [built.norms["bare"]]
    assert norms["ementa"][0].endswith("e turismo.")
    assert report.tables["records"] == 1
    assert "**incremental**" in (changed / "README.md").read_text()


def test_columns_null_for_a_whole_batch_keep_their_type(backend, database_url, tmp_path):
    """ADBC's SQLite driver types a column from its first batch: a column null there must
    still take the strings, floats and times of later batches."""
    import pyarrow as pa
    from sqlalchemy import Column, DateTime, Float, Integer, MetaData, Table, Text, select

    from locleg.export.reading import snapshot
    from locleg.store import Store

    store = Store.open(database_url or f"sqlite:///{tmp_path / 'typing.db'}", migrate=False)
    meta = MetaData()
    table = Table("typing_probe", meta, Column("id", Integer, primary_key=True),
                  Column("word", Text), Column("score", Float),
                  Column("at", DateTime(timezone=True)))
    meta.create_all(store.engine)
    later = datetime(2026, 11, 29, 12, 30, tzinfo=UTC)
    rows = [{"id": i, "word": None, "score": None, "at": None} for i in range(1, 6)]
    rows.append({"id": 6, "word": "Lei nº 1", "score": 0.25, "at": later})
    with store.engine.begin() as conn:
        conn.execute(table.insert(), rows)
    schema = pa.schema([("id", pa.int64()), ("word", pa.string()), ("score", pa.float64()),
                        ("at", pa.timestamp("us", tz="UTC"))])
    query = select(table.c.id, table.c.word, table.c.score, table.c.at)
    try:
        with snapshot(store.engine) as snap:
            batches = list(snap.batches(query.where(table.c.at.is_(None) | (table.c.at >= later)),
                                        schema, rows=2))
    finally:
        store.close()
    got = pa.Table.from_batches(batches).to_pylist()
    assert [r["id"] for r in got] == [1, 2, 3, 4, 5, 6]
    assert got[-1] == {"id": 6, "word": "Lei nº 1", "score": 0.25, "at": later}
    assert all(batch.schema == schema for batch in batches)


def test_texts_read_a_version_at_a_time_are_the_same(built, tmp_path, monkeypatch):
    """Pages are read by chunks of versions, UF after UF, one file open at a time: with a
    chunk of one version and batches of one page, the texts are the same rows."""
    from locleg.corpus import open_corpus
    from locleg.export import reading, tables

    monkeypatch.setattr(tables, "TEXT_VERSIONS_A_READ", 1)
    monkeypatch.setattr(tables, "TEXT_BATCH_ROWS", 1)
    if built.env:
        monkeypatch.setenv("LOCLEG_DATABASE_URL", built.env["LOCLEG_DATABASE_URL"])
    corpus = open_corpus(built.corpus.folder)
    try:
        export_release(corpus, tmp_path / "r", make_options(corpus, "parquet", with_text=True))
    finally:
        corpus.close()
    assert reading.TEXT_BATCH_ROWS != 1  # the reader's own default is untouched
    key = ["version_id", "page"]
    mine = pd.read_parquet(tmp_path / "r" / "texts").sort_values(key, ignore_index=True)
    theirs = pd.read_parquet(built.release / "texts").sort_values(key, ignore_index=True)
    assert len(mine) == 20 and mine.equals(theirs)
    files = list((tmp_path / "r" / "texts").glob("uf=*/part-*.parquet"))
    assert {f.parent.name for f in files} == {f"uf={uf}" for uf in mine["uf"].unique()}
    assert len(files) == mine["uf"].nunique() >= 2  # one file a UF, closed when it was done
