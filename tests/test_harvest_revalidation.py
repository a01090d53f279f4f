"""Staying in step with the source: files replaced under the same URL, norms deleted.

SAPL overwrites files in place (an anexo's new bytes under its old URL, and nothing else
changes), so every stored file is asked for again, conditionally, every `revalidate_days`,
a share per cycle; `--full` asks for every file unconditionally. Deletions are seen by every
scheduled cycle, since every cycle lists every norm.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from locleg.fixtures.documents import born_digital_pdf
from locleg.fixtures.harvesting import add_source, counts, run
from locleg.fixtures.sapl_server import Camara, SaplServer
from locleg.harvest import revalidate
from locleg.store import utcnow
from locleg.store.schema import document, record, version
from tests.conftest import run_cli

ANEXO_I = "Anexo I - Pontos de estacionamento de moto-táxi"


def _anexo_path(camara: Camara) -> str:
    anexo = next(a for a in camara.anexos if a["assunto_anexo"] == ANEXO_I)
    n = camara.norm(anexo["norma"])
    return f"/media/sapl/public/anexonormajuridica/{n['ano']}/{anexo['id']}/{anexo['file']}"


def _history(corpus, title: str) -> list[str]:
    with corpus.store.engine.connect() as conn:
        return list(conn.scalars(
            select(version.c.sha256).join(document, document.c.id == version.c.document_id)
            .where(document.c.title == title).order_by(version.c.id)))


@pytest.mark.parametrize("nginx", [False, True], ids=["django", "nginx"])
def test_an_anexo_replaced_in_place_is_found_by_the_rolling_revalidation(corpus, nginx):
    camara = Camara.juazeiro(crawl_delay=None, etags=nginx)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        run(corpus)
        first = counts(corpus)
        before = _history(corpus, ANEXO_I)
        # The câmara replaces the anexo's file; the norm and its listing do not move.
        camara.set_file(_anexo_path(camara), born_digital_pdf("Anexo I", ["nova tabela"]))
        srv.log.clear()
        run(corpus, refresh=True)  # revalidation off: the change is not seen
        assert _history(corpus, ANEXO_I) == before and not srv.requests(path="/media/")
        # A period so short that every file is due this cycle.
        report = run(corpus, refresh=True, revalidate_days=1e-6)
        media = srv.requests(path="/media/")
    after = _history(corpus, ANEXO_I)
    assert len(after) == 2 and after[0] == before[0] and after[1] != before[0]
    assert counts(corpus)["versions"] == first["versions"] + 1  # the old version stays
    # Every file was asked for once, conditionally; only the replaced one came back whole.
    assert len(media) == first["documents"] == report.revalidations
    validator = "if-none-match" if nginx else "if-modified-since"
    assert all(validator in r[5] for r in media)
    assert sorted(r[4] for r in media) == [200] + [304] * (len(media) - 1)
    assert report.new_versions == 1 and report.confirmed == len(media) - 1
    with corpus.store.engine.connect() as conn:
        checked = conn.scalars(select(document.c.checked_at)).all()
    assert all(checked)


def test_a_replacement_that_kept_its_date_is_found_by_harvest_full(corpus):
    """No conditional request can see it (same Last-Modified): only the bytes tell."""
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        run(corpus)
        before = _history(corpus, ANEXO_I)
        camara.set_file(_anexo_path(camara), born_digital_pdf("Anexo I", ["restaurado"]),
                        keep_modified=True)
        run(corpus, refresh=True, revalidate_days=1e-6)
        assert _history(corpus, ANEXO_I) == before  # 304: the date did not move
        srv.log.clear()
        report = run(corpus, full=True)
        media = srv.requests(path="/media/")
    assert len(_history(corpus, ANEXO_I)) == 2 and report.new_versions == 1
    assert media and not any("if-modified-since" in r[5] or "if-none-match" in r[5]
                             for r in media)


def test_the_rolling_share_confirms_every_file_within_the_period(corpus):
    """60 files, a daily cycle, 30 days: two a day, oldest first, none older than 30 days."""
    camara = Camara(synthetic=60, files_every=1, crawl_delay=None)
    with SaplServer(camara) as srv:
        source_id = add_source(corpus, srv.url)
        run(corpus)
    start = utcnow()
    with corpus.store.transaction() as conn:
        conn.execute(update(document).values(checked_at=start))
    confirmed_on: dict[int, list[int]] = {}
    for day in range(1, 91):
        now = start + timedelta(days=day)
        with corpus.store.transaction() as conn:
            due = revalidate.due_files(conn, source_id, now, days=30, interval=86400)
            for document_id, _ in due:
                confirmed_on.setdefault(document_id, []).append(day)
            conn.execute(update(document).where(document.c.id.in_([d for d, _ in due]))
                         .values(checked_at=now))
    assert len(confirmed_on) == 60
    for days in confirmed_on.values():
        gaps = [b - a for a, b in zip([0, *days], days, strict=False)]
        assert max(gaps) <= 30  # never older than the period
    per_day = [sum(day in d for d in confirmed_on.values()) for day in range(31, 91)]
    assert max(per_day) <= 4  # spread out, not all on one day


def test_revalidate_days_is_a_source_setting(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        run_cli("sources", "add", "sapl", srv.url, "-j", "2918407", corpus=folder, check=True)
        run_cli("sources", "set", "1", "--revalidate-days", "7", corpus=folder, check=True)
        listed = json.loads(run_cli("sources", "list", "--json", corpus=folder,
                                    check=True).stdout)
        bad = run_cli("sources", "set", "1", "--revalidate-days", "-3", corpus=folder)
    assert listed[0]["revalidate_days"] == 7
    assert bad.returncode == 2 and "--revalidate-days" in bad.stderr


def test_a_paged_source_sees_deletions_in_every_cycle(corpus):
    """SAPL before 3.1.160 has no get_all: every cycle pages through every norm."""
    camara = Camara.juazeiro(crawl_delay=None, version="3.1.150")
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url, version="3.1.150")
        run(corpus)
        del camara.norms[1470]
        report = run(corpus, refresh=True)
    assert report.removed == 1
    with corpus.store.engine.connect() as conn:
        removed = conn.scalars(select(record.c.native_id).where(record.c.removed_at.is_not(None)))
        assert list(removed) == ["1470"]
