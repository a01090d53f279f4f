"""The extraction runner and its commands: worker processes with limits, records on both
backends, worker deaths and timeouts, kills and resumption, --where, `locleg show`."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PIL import Image
from reportlab.lib import pdfencrypt
from sqlalchemy import select

from locleg.corpus import open_corpus
from locleg.extract import Limits
from locleg.extract.run import document_extraction, extract_versions, plan
from locleg.fixtures.documents import (
    born_digital_pdf,
    docx_document,
    html_law_page,
    image_file,
    image_pdf,
    scanned_page,
    scanned_pdf,
)
from locleg.ingest.run import import_path
from locleg.search import SearchRequest, search
from locleg.store.schema import document, extraction
from tests.conftest import run_cli

JUAZEIRO = 2918407
LAW = [
    "Art. 1º Fica instituído o serviço de moto-táxi no Município de Juazeiro.",
    "Art. 2º Esta Lei entra em vigor na data de sua publicação.",
]
SCAN = ["LEI Nº 2.199/2011", "Art. 1º Fica instituído o serviço de mototaxista."]


def _encrypted_pdf() -> bytes:
    import io

    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, invariant=1,
                      encrypt=pdfencrypt.StandardEncryption("segredo", canPrint=0))
    c.drawString(72, 700, "Lei")
    c.showPage()
    c.save()
    return buffer.getvalue()


def _long_scan(pages: int, dpi: int = 150) -> bytes:
    """Many pages of one shared scan: a small file whose OCR takes many seconds."""
    image = scanned_page(SCAN * 8, dpi=dpi)
    return image_pdf([image] * pages)


def _import(corpus, folder: Path, files: dict[str, bytes]) -> dict[str, dict]:
    """Import the files as norms of Juazeiro; file name -> {document_id, version_id}."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    import_path(corpus, folder, JUAZEIRO)
    with corpus.store.engine.connect() as conn:
        rows = conn.execute(select(document.c.id, document.c.url,
                                   document.c.current_version_id)).all()
    return {
        name: {"document_id": doc_id, "version_id": version_id}
        for name in files for doc_id, url, version_id in rows
        if url.rsplit("/", 1)[-1].removeprefix("file:") == name
    }


def _record(corpus, ids: dict) -> dict:
    return corpus.store.extraction_of(ids["version_id"])


def _statuses(corpus) -> dict[str, int]:
    with corpus.store.engine.connect() as conn:
        rows = conn.execute(select(extraction.c.status)).scalars().all()
    return {s: rows.count(s) for s in set(rows)}


def test_every_document_gets_a_record_in_worker_processes(corpus, tmp_path) -> None:
    files = {
        "lei-born-digital.pdf": born_digital_pdf("LEI Nº 2.312/2013", LAW),
        "lei-scan.pdf": scanned_pdf([SCAN], dpi=120),
        "lei-es.html": html_law_page("Lei nº 2.482/1969", LAW),
        "decreto.txt": "\r\n".join(LAW).encode("cp1252"),
        "portaria.docx": docx_document([LAW]),
        "foto.jpg": image_file([scanned_page(SCAN, dpi=120)], "JPEG", dpi=120),
        "protegida.pdf": _encrypted_pdf(),
        "vazio.pdf": b"",
        # Seeded: os.urandom() bytes now and then start like a DOS executable to libmagic.
        "ruido.pdf": random.Random(3000).randbytes(3000),
    }
    ids = _import(corpus, tmp_path / "docs", files)
    assert plan(corpus).documents == len(files)
    seen = []
    report = extract_versions(corpus, workers=2, on_progress=seen.append)
    assert report.documents == len(files) and len(seen) == len(files)
    assert report.by_status == {"extracted": 6, "failed": 3}

    expected = {
        "lei-born-digital.pdf": ("extracted", "text", "pypdfium2"),
        "lei-scan.pdf": ("extracted", "ocr", "tesseract"),
        "lei-es.html": ("extracted", "html", "lxml"),
        "decreto.txt": ("extracted", "plain", "charset-normalizer"),
        "portaria.docx": ("extracted", "docx", "lxml"),
        "foto.jpg": ("extracted", "ocr", "tesseract"),
    }
    for name, (status, method, backend) in expected.items():
        record = _record(corpus, ids[name])
        assert (record["status"], record["method"], record["backend"]) == (status, method,
                                                                           backend), name
        assert 0 < record["confidence"] <= 1 and record["chars"] > 0 and record["pages"] == 1
        assert record["extracted_at"] is not None and record["duration_s"] > 0
    errors = {name: _record(corpus, ids[name])["error"]
              for name in ("protegida.pdf", "vazio.pdf", "ruido.pdf")}
    assert errors == {"protegida.pdf": "encrypted PDF", "vazio.pdf": "empty file",
                      "ruido.pdf": "unknown format (application/octet-stream)"}

    pages = corpus.store.pages_of(ids["lei-scan.pdf"]["version_id"])
    assert [(p["method"], p["backend"], p["dpi"]) for p in pages] == [("ocr", "tesseract", 300)]
    assert pages[0]["detail"] == ("no text layer; images cover 100% of the page; scan of 120 dpi "
                                  "read at 300")
    assert "LEI Nº 2.199/2011" in pages[0]["text"] and pages[0]["chars"] == len(pages[0]["text"])

    # Nothing pending any more: a second run has nothing to do.
    assert extract_versions(corpus, workers=2).documents == 0
    # --where selects records whatever their status; the filter's values are bound.
    again = extract_versions(corpus, None, where="status = 'failed' and error ~ 'PDF'",
                             workers=1)
    assert (again.documents, again.by_status) == (1, {"failed": 1})
    low = plan(corpus, None, where="method in ('ocr', 'mixed') and confidence < 1.5")
    assert low.documents == 2


def test_timeout_kills_the_worker_and_the_run_goes_on(corpus, tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {
        "longa.pdf": _long_scan(40),
        "curta.pdf": born_digital_pdf("LEI", LAW),
    })
    report = extract_versions(corpus, workers=1, limits=Limits(time_s=1.5))
    assert report.by_status == {"failed": 1, "extracted": 1}
    record = _record(corpus, ids["longa.pdf"])
    assert (record["status"], record["error"]) == ("failed", "timeout after 1.5 s")
    assert corpus.store.pages_of(ids["longa.pdf"]["version_id"]) == []
    assert _record(corpus, ids["curta.pdf"])["status"] == "extracted"  # by a new worker
    assert corpus.store.problems()[0]["message"] == "timeout after 1.5 s"


def _worker_pids() -> list[int]:
    """Processes forked by our forkserver: the extraction workers of this test process."""
    found = []
    for server in _children(os.getpid()):
        if b"forkserver" in Path(f"/proc/{server}/cmdline").read_bytes():
            found += _children(server)
    return found


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread that ended since the listing has no children
            continue
    return out


def test_a_worker_that_dies_is_recorded_and_replaced(corpus, tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {
        "longa.pdf": _long_scan(40),  # the largest, so it runs first
        "curta.pdf": born_digital_pdf("LEI", LAW),
    })
    before = set(_worker_pids())
    report: dict = {}
    run = threading.Thread(target=lambda: report.update(
        r=extract_versions(corpus, workers=1)))
    run.start()
    deadline = time.monotonic() + 60
    victims: list[int] = []
    while not victims and time.monotonic() < deadline:
        time.sleep(0.3)
        victims = [p for p in _worker_pids() if p not in before]
    assert victims, "no worker started"
    # Into the OCR of the long scan (a second of CPU, far more than a worker's start): a
    # worker killed while it still starts breaks the pool another way.
    while _cpu_seconds(victims[0]) < 1.0 and time.monotonic() < deadline:
        time.sleep(0.1)
    os.kill(victims[0], signal.SIGKILL)  # as the kernel's OOM killer would
    run.join(120)
    record = _record(corpus, ids["longa.pdf"])
    assert (record["status"], record["error"]) == (
        "failed", "worker killed (SIGKILL; memory limit 2 GB?)")
    assert _record(corpus, ids["curta.pdf"])["status"] == "extracted"
    assert report["r"].by_status == {"failed": 1, "extracted": 1}


def test_memory_limit_fails_the_document_not_the_run(corpus, tmp_path) -> None:
    big = Image.new("L", (9000, 9000), 255)
    ids = _import(corpus, tmp_path / "docs", {
        "planta.png": image_file([big], "PNG", dpi=300),
        "lei.pdf": born_digital_pdf("LEI", LAW),
    })
    extract_versions(corpus, workers=1, limits=Limits(memory_bytes=450 << 20))
    record = _record(corpus, ids["planta.png"])
    assert record["status"] == "failed"
    assert "memory" in record["error"]  # out of memory, or a worker killed at the limit
    assert _record(corpus, ids["lei.pdf"])["status"] == "extracted"


def test_extract_in_process_for_debugging(corpus, tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {"lei.pdf": born_digital_pdf("LEI", LAW)})
    report = extract_versions(corpus, workers=0, ocr="never")
    assert report.by_status == {"extracted": 1}
    assert "moto-táxi" in corpus.store.pages_of(ids["lei.pdf"]["version_id"])[0]["text"]


def test_original_missing_from_the_store_is_a_failure_and_a_problem(corpus, tmp_path) -> None:
    ids = _import(corpus, tmp_path / "docs", {"lei.pdf": born_digital_pdf("LEI", LAW)})
    for path in corpus.blobs.root.glob("*/*"):
        path.unlink()
    extract_versions(corpus, workers=1)
    record = _record(corpus, ids["lei.pdf"])
    assert record["status"] == "failed" and "is missing from" in record["error"]
    assert corpus.store.problems()[0]["stage"] == "extract"


# --- the commands -----------------------------------------------------------------------------


@pytest.fixture
def corpus_dir(corpus, tmp_path) -> Path:
    files = {
        "lei-2199-2011.pdf": scanned_pdf([SCAN], dpi=120),
        "lei-2312-2013.pdf": born_digital_pdf("LEI Nº 2.312/2013", LAW),
        "lei-2480-2016.pdf": _encrypted_pdf(),
    }
    corpus.ids = _import(corpus, tmp_path / "docs", files)
    return corpus.folder


def test_extract_and_show_commands(corpus, corpus_dir) -> None:
    done = run_cli("extract", "--workers", "2", corpus=corpus_dir, check=True)
    assert "Extracted 3 documents, 2 pages" in done.stdout
    assert "2 extracted, 1 failed" in done.stdout
    scan_doc = corpus.ids["lei-2199-2011.pdf"]["document_id"]
    locked_doc = corpus.ids["lei-2480-2016.pdf"]["document_id"]
    assert f"document {locked_doc}: failed: encrypted PDF" in done.stdout

    shown = run_cli("show", str(scan_doc), corpus=corpus_dir, check=True).stdout
    assert "status: extracted · method: ocr · backend: tesseract · confidence: 0." in shown
    assert "pages: 1" in shown
    assert "── page 1 of 1 · ocr · tesseract · 300 dpi · confidence 0." in shown
    assert "LEI Nº 2.199/2011" in shown
    as_json = json.loads(run_cli("show", str(scan_doc), "--json", corpus=corpus_dir,
                                 check=True).stdout)
    assert as_json["extraction"]["method"] == "ocr"
    assert as_json["pages"][0]["dpi"] == 300 and "LEI Nº 2.199/2011" in as_json["pages"][0]["text"]
    by_sha = document_extraction(corpus, as_json["sha256"][:10])
    assert by_sha["document_id"] == scan_doc
    failed = run_cli("show", str(locked_doc), corpus=corpus_dir, check=True).stdout
    assert "status: failed" in failed and "error: encrypted PDF" in failed

    # The OCR text is searchable at once: the command refreshed the search index. Only
    # the scan says "mototaxista"; the stem also finds the law that says "mototáxi".
    with _opened(corpus_dir) as reopened:
        exact = search(reopened.store, SearchRequest(q='"mototaxista"')).hits
        stemmed = search(reopened.store, SearchRequest(q="mototaxista")).hits
    assert len(exact) == 1 and exact[0].norm_id in {h.norm_id for h in stemmed}

    nothing = run_cli("extract", corpus=corpus_dir, check=True)
    assert nothing.stdout.startswith("Nothing to extract")
    again = run_cli("extract", "--force", "--workers", "1", "--ocr", "never",
                    corpus=corpus_dir, check=True)
    assert "Extracted 3 documents" in again.stdout and "1 pending" in again.stdout


def _opened(folder: Path):
    from contextlib import contextmanager

    @contextmanager
    def manager():
        c = open_corpus(folder)
        try:
            yield c
        finally:
            c.close()

    return manager()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--where", "confidnce < 0.8"], "error: --where: unknown field 'confidnce' (fields: "),
        (["--where", "confidence < 'x'"], "error: --where: expected a number for 'confidence' "
                                          "at character 14, found \"'x'\""),
        (["--where", "status = 'x'; DROP TABLE page"], "error: --where: unexpected "),
        (["--memory-limit", "lots"], "error: --memory-limit: not a size: 'lots'"),
    ],
)
def test_bad_options_are_one_clear_line(corpus_dir, args, message) -> None:
    result = run_cli("extract", *args, corpus=corpus_dir)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message)


def test_show_unknown_document(corpus_dir) -> None:
    result = run_cli("show", "999", corpus=corpus_dir)
    assert (result.returncode, result.stderr.strip()) == (2, "error: no document 999")


def _started(args: list[str], folder: Path) -> subprocess.Popen:
    env = {**os.environ, "LOCLEG_CORPUS": str(folder)}
    return subprocess.Popen([sys.executable, "-m", "locleg", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _wait_for_extracted(folder: Path, at_least: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with _opened(folder) as c:
            if _statuses(c).get("extracted", 0) >= at_least:
                return
        time.sleep(0.2)
    raise AssertionError("nothing was extracted in time")


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_a_stopped_run_keeps_what_it_committed_and_resumes(corpus, tmp_path, how) -> None:
    files = {f"lei-{n}.pdf": born_digital_pdf(f"LEI Nº {n}", LAW) for n in range(3)}
    files["longa.pdf"] = _long_scan(30)
    ids = _import(corpus, tmp_path / "docs", files)
    folder = corpus.folder
    # Two workers: the long scan keeps one busy while the other commits the short laws.
    proc = _started(["extract", "--workers", "2"], folder)
    _wait_for_extracted(folder, 3)
    if how == "kill":
        os.killpg(proc.pid, signal.SIGKILL)  # the machine went down: no chance to clean up
    else:
        proc.send_signal(signal.SIGINT)  # Ctrl-C
    _, err = proc.communicate(timeout=60)
    if how == "interrupt":
        assert proc.returncode == 130, \
            f"the run was not interrupted (exit {proc.returncode}): {err}"
        assert "interrupted after 3 documents: they are kept; run the same command again" in err
    assert _statuses(corpus) == {"extracted": 3, "pending": 1}
    assert _record(corpus, ids["longa.pdf"])["status"] == "pending"

    resumed = run_cli("extract", "--workers", "2", "--ocr", "never", corpus=folder, check=True)
    assert "Extracted 1 document, 30 pages" in resumed.stdout  # only what was left
    assert _statuses(corpus) == {"extracted": 3, "pending": 1}  # OCR left for later: pending
