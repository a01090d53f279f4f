"""A hostile or broken câmara: any value in any field the SAPL adapter reads costs that field
(or that row), is recorded, and never stops the harvest of the rest, of the source or of any
other source; nothing stays pending for ever."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from locleg.fixtures.harvesting import add_source, counts, problems, requests_left, run
from locleg.fixtures.sapl_server import Camara, SaplServer, raw_json
from locleg.store.schema import document, record

DEEP = raw_json("[" * 5000 + "]" * 5000)
DEEP_OBJECT = raw_json('{"a":' * 3000 + "1" + "}" * 3000)
# Every kind of value a JSON answer can hold that a field should not.
HOSTILE = {
    "deep list": DEEP, "deep object": DEEP_OBJECT, "object": {"a": {"b": 1}},
    "list": [1, "2"], "huge int": 10**30, "negative": -1, "float": 1e300, "bool": True,
    "null": None, "empty": "", "lone surrogate": "ementa \ud800 quebrada", "nul": "a\x00b",
    "long": "x" * 200_000, "superscript": "²", "bad port": "http://sapl.x.leg.br:99999/a.pdf",
    "ipv6 literal": "http://[2001:db8::7]/arquivos/a.pdf", "javascript": "javascript:alert(1)",
    "control chars": "\x1b[2J\x07\r", "date-like": "2011-13-45",
}
NORM_FIELDS = ("id", "tipo", "numero", "ano", "data", "ementa", "texto_integral",
               "data_ultima_atualizacao", "__str__")
NORMAL = 25  # the sample câmara's own norms


def _norm_rows(corpus) -> dict[str, dict]:
    with corpus.store.engine.connect() as conn:
        return {r["native_id"]: dict(r) for r in conn.execute(select(record)).mappings()}


def test_hostile_values_in_every_norm_field_cost_only_that_field(corpus):
    """One extra norm per (field, value): the listing, the source and the cycle go on."""
    camara = Camara.juazeiro(crawl_delay=None)
    hostile: dict[int, tuple[str, str]] = {}
    for field in NORM_FIELDS:
        for name in HOSTILE:
            added = camara.add_norm(ementa=f"norma hostil: {field} = {name}", ano=2020,
                                    numero=str(9000 + len(hostile)))
            hostile[added["id"]] = (field, name)
    real = camara.norm_json

    def mangle(n, origin):
        row = real(n, origin)
        if n["id"] in hostile:
            field, name = hostile[n["id"]]
            row[field] = HOSTILE[name]
        return row

    camara.norm_json = mangle
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        report = run(corpus)
    assert report.cycles_finished == 1  # the whole chain ran: anexos and vínculos too
    stored = _norm_rows(corpus)
    assert counts(corpus)["relations"] == 3
    # Nothing pending: what is left failed for good this cycle (a host we will not talk to).
    left = requests_left(corpus)
    assert [(r["kind"], r["state"], r["host"]) for r in left] == [
        ("file", "failed", "[2001:db8::7]")]
    assert "private" in left[0]["last_error"]
    # The sample's own norms are all there, untouched by their neighbours.
    assert {str(i) for i in range(1461, 1461 + NORMAL)} <= set(stored)
    assert stored["1461"]["ementa"].startswith("DISPÕE SOBRE O SERVIÇO DE MOTO")
    # A row whose id is not a non-negative integer cannot be a norm: skipped and recorded.
    # Every other hostile row is stored, without the values that could not be kept.
    for native, (field, name) in hostile.items():
        key = str(native)
        if field == "id":
            continue  # its id was replaced: checked by count below
        row = stored[key]
        assert row["ementa"] is None or "\x00" not in row["ementa"]
        if field == "ano" and name not in ("null",):
            assert row["year"] is None
        if field == "ementa" and name == "lone surrogate":
            assert row["ementa"] == "ementa \ufffd quebrada"
        if field == "ementa" and name == "nul":
            assert row["ementa"] == "a\ufffdb"
        if field == "numero":
            assert row["number"] is None or len(row["number"]) <= 32
        if field == "data":
            assert row["date"] is None
    hostile_ids = [i for i, (f, _) in hostile.items() if f == "id"]
    assert len(stored) == NORMAL + len(hostile) - len(hostile_ids)
    messages = "\n".join(p["message"] for p in problems(corpus))
    assert "skipped a bad norm row" in messages
    assert "is not a year" in messages
    # Twenty bad rows are recorded one by one, the rest counted: a hostile listing cannot
    # flood the problem table.
    assert "more bad rows or fields in this listing" in messages
    # No document for a file URL that cannot be fetched; the private IPv6 literal is refused
    # at once, never retried as "robots.txt unreadable".
    with corpus.store.engine.connect() as conn:
        urls = set(conn.scalars(select(document.c.url)))
    assert not [u for u in urls if "99999" in u or u.startswith("javascript")]
    assert "could not handle" not in messages and "worker for" not in messages


@pytest.mark.parametrize("table, field, value", [
    ("tiponormajuridica", "equivalente_lexml", 5),
    ("tiponormajuridica", "descricao", {"a": 1}),
    ("tiponormajuridica", "id", "um"),
    ("tipovinculonormajuridica", "sigla", {"o": "bjeto"}),
    ("tipovinculonormajuridica", "revoga_integralmente", "sim"),
    ("anexonormajuridica", "anexo_arquivo", "http://sapl.x.leg.br:99999/a.pdf"),
    ("anexonormajuridica", "norma", DEEP),
    ("normarelacionada", "norma_principal", [1461]),
    ("normarelacionada", "tipo_vinculo", "\ud800"),
    ("casalegislativa", "version", {"v": 3}),
])
def test_hostile_values_in_the_other_tables(corpus, table, field, value):
    camara = Camara.juazeiro(crawl_delay=None)

    def mangle(path, row):
        if table in path:
            row = {**row, field: value}
        return row

    camara.mangle_row = mangle
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        report = run(corpus)
    assert report.cycles_finished == 1
    found = counts(corpus)
    assert found["norms"] == NORMAL and found["frontier"] == 0
    assert "could not handle" not in "\n".join(p["message"] for p in problems(corpus))


@pytest.mark.parametrize("envelope", [
    {"pagination": {"links": "oops"}},
    {"pagination": "oops"},
    {"pagination": {"links": {"next": {"a": 1}}}},
    {"pagination": {"links": {"next": 5}}},
])
def test_broken_pagination_envelopes_end_the_table_without_stopping(corpus, envelope):
    camara = Camara.juazeiro(crawl_delay=None, version="3.1.150")  # paged, no get_all

    def mangle(path, page):
        return {**page, **envelope}

    camara.mangle_page = mangle
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url, version="3.1.150")
        report = run(corpus)
    assert report.cycles_finished == 1 and counts(corpus)["frontier"] == 0
    assert "could not handle" not in "\n".join(p["message"] for p in problems(corpus))


def test_a_bug_in_one_source_never_stops_the_others(corpus, monkeypatch):
    """Whatever escapes the adapter is recorded, its request set aside; other sources go on."""
    from locleg.harvest import sapl

    camaras = {"sapl.boa.ba.leg.br": Camara.juazeiro(crawl_delay=None),
               "sapl.ruim.ba.leg.br": Camara.juazeiro(crawl_delay=None)}
    real = sapl._anexos

    async def broken(h, ctx, req):
        if "ruim" in ctx.base_url:
            raise RecursionError("maximum recursion depth exceeded")
        await real(h, ctx, req)

    monkeypatch.setitem(sapl.HANDLERS, "anexos", broken)
    with SaplServer(camaras) as srv:
        good = add_source(corpus, "http://sapl.boa.ba.leg.br")
        bad = add_source(corpus, "http://sapl.ruim.ba.leg.br")
        report = run(corpus, resolve=srv.resolve_env())
        again = run(corpus, resolve=srv.resolve_env())  # the next run does not die there
    assert report.cycles_finished == 1 and again.cycles_finished == 0
    messages = [p for p in problems(corpus) if p["source_id"] == bad]
    assert any("RecursionError at test_harvest_hostile.py" in p["message"] for p in messages)
    left = requests_left(corpus)
    assert [(r["kind"], r["state"]) for r in left if r["source_id"] == bad] == [
        ("anexos", "failed")]
    assert not [r for r in left if r["source_id"] == good]
    with corpus.store.engine.connect() as conn:
        per_source = dict(conn.execute(select(record.c.source_id, record.c.id)
                                       .where(record.c.native_id == "1461")).all())
    assert set(per_source) == {good, bad}


@pytest.mark.parametrize("retry_after, parked", [("99999999999999", True), ("²", False)])
def test_unreadable_or_huge_retry_after(corpus, retry_after, parked):
    camara = Camara.juazeiro(crawl_delay=None)
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        srv.add_fault("429", "tiponormajuridica", times=1, value=retry_after)
        started = time.monotonic()
        report = run(corpus)
        elapsed = time.monotonic() - started
    assert elapsed < 60
    messages = "\n".join(p["message"] for p in problems(corpus))
    if parked:
        # Capped at 30 days: the host waits, parked, and says until when.
        assert [h.host for h in report.parked] and "parked until" in messages
        assert counts(corpus)["norms"] == 0
    else:
        assert report.cycles_finished == 1 and counts(corpus)["norms"] == NORMAL
