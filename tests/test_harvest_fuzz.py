"""Each platform adapter against a hostile publisher: a seeded generator puts hostile values
(wrong types, huge strings, NUL and control characters, impossible dates, absurd numbers,
javascript:/file:/data: URLs, URLs to private addresses, nested objects, markup) into the
fields it reads, in chosen rows; every good row is harvested, every bad row costs only itself
and is recorded where a user sees it (the problem table, `sources list`), nothing crashes and
nothing stored is corrupted. Deterministic (fixed seeds), small and fast."""

from __future__ import annotations

import random
from datetime import date
from html import escape

import pytest
from sqlalchemy import select

from locleg.corpus import init_corpus
from locleg.fixtures.harvesting import JUAZEIRO, add_source, problems, requests_left, run
from locleg.fixtures.oai_server import OAI_PATH, OaiServer
from locleg.fixtures.portal_servers import GoApi
from locleg.fixtures.querido_diario_server import Gazette, QueridoDiarioServer
from locleg.fixtures.sapl25_server import Norma, Sapl25
from locleg.fixtures.sapl_server import Camara, SaplServer
from locleg.store.gazette_schema import gazette
from locleg.store.schema import document, record
from tests import test_harvest_portal as portals
from tests.test_harvest_querido_diario import LAW_GAZETTE

SEED = 23
HUGE = 300_000
# Values no field should hold, by kind; every adapter gets some of each.
TEXTS = ["", " ", "a\x00b", "\x1b]8;;http://evil/\x07clique\x1b]8;;\x07", "\r\n\t\x0b\x0c",
         "x" * HUGE, "\u202eevil", "💥" * 2_000, "<script>alert(1)</script>", "]]>&amp;&lol9;",
         "ementa \ud800 quebrada"]
DATES = ["0001-01-01", "9999-12-31", "2013-02-30", "31/02/2013", "-2013-01-01", "2013-1-1",
         "amanhã", "99999-01-01T00:00:00Z"]
NUMBERS = [-1, 0, 10**30, -(10**30), 1e300, float("nan"), True, "12-A" * 5_000]
URLS = ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,<b>x</b>",
        "http://127.0.0.1/x.pdf", "http://10.0.0.7/x.pdf", "http://[::1]/x.pdf",
        "ftp://example.org/x.pdf", "http://sapl.x.leg.br:99999/a.pdf", "//", "http://" + "a" * 5000]
SHAPES = [None, [], {}, {"a": {"b": [1, {"c": None}]}}, [1, "2", None]]
INTERNAL = ("could not handle", "the worker for", "Traceback")


def hostile(rng: random.Random, kinds: tuple[str, ...] = ("text", "date", "number", "url",
                                                          "shape")) -> object:
    """One hostile value: from the fixed pools, or random code points (controls included)."""
    kind = rng.choice(kinds)
    if kind == "text" and rng.random() < 0.3:
        return "".join(chr(rng.choice([rng.randrange(0, 32), rng.randrange(32, 0x2FFF),
                                       rng.randrange(0xE000, 0x10FFFF)]))
                       for _ in range(rng.randrange(1, 400)))
    return rng.choice({"text": TEXTS, "date": DATES, "number": NUMBERS, "url": URLS,
                       "shape": SHAPES}[kind])


def _records(corpus) -> dict[str, dict]:
    with corpus.store.engine.connect() as conn:
        return {r["native_id"]: dict(r) for r in conn.execute(select(record)).mappings()}


def _clean(corpus) -> None:
    """Nothing stored holds a character the store cannot keep, or an unbounded value."""
    with corpus.store.engine.connect() as conn:
        for row in conn.execute(select(record)).mappings():
            for key, value in row.items():
                if isinstance(value, str):
                    assert "\x00" not in value, (key, value[:80])
                    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in value), key
                    assert len(value) <= 1_000_000, key
            assert row["year"] is None or 1000 <= row["year"] <= 2999
        urls = list(conn.scalars(select(document.c.url)))
    assert all(u.startswith(("http://", "https://")) for u in urls), urls
    assert not [u for u in urls if "127.0.0.1/x" in u or "10.0.0.7" in u or "[::1]" in u]


def _no_crash(corpus) -> list[str]:
    said = [p["message"] for p in problems(corpus)]
    assert not [m for m in said if any(i in m for i in INTERNAL)], said
    return said


# -- SAPL 3.1 ------------------------------------------------------------------------------------


def test_sapl31_hostile_fields(corpus):
    rng = random.Random(SEED)
    camara = Camara.juazeiro(crawl_delay=None)
    fields = ("id", "tipo", "numero", "ano", "data", "ementa", "texto_integral",
              "data_ultima_atualizacao")
    hostile_rows: dict[int, tuple[str, object]] = {}
    for i in range(40):
        added = camara.add_norm(ementa=f"norma hostil {i}", ano=2020, numero=str(7000 + i))
        field = fields[i % len(fields)]
        hostile_rows[added["id"]] = (field, hostile(rng))
    real = camara.norm_json

    def mangle(n, origin):
        row = real(n, origin)
        if n["id"] in hostile_rows:
            field, value = hostile_rows[n["id"]]
            row[field] = value
        return row

    camara.norm_json = mangle
    with SaplServer(camara) as srv:
        add_source(corpus, srv.url)
        report = run(corpus)
    assert report.cycles_finished == 1
    stored = _records(corpus)
    assert {str(i) for i in range(1461, 1461 + 25)} <= set(stored)  # every good row
    said = _no_crash(corpus)
    bad_ids = [k for k, (f, v) in hostile_rows.items() if f == "id" and
               not (isinstance(v, int) and not isinstance(v, bool) and v >= 0)]
    assert bad_ids and "skipped a bad norm row" in "\n".join(said)
    # Every other hostile row is kept (without what it could not keep).
    assert {str(k) for k, (f, _) in hostile_rows.items() if f != "id"} <= set(stored)
    _clean(corpus)
    assert not [r for r in requests_left(corpus) if r["state"] == "pending"]


# -- OAI-PMH ---------------------------------------------------------------------------------------


OAI_FIELDS = ("identifier", "datestamp", "DocumentoIndividual", "Epigrafe", "Ementa",
              "conteudo", "metadado")


def _oai_value(rng: random.Random) -> str:
    # XML 1.0 cannot carry NUL or most controls even escaped: a page with one is refused
    # whole (tested in test_harvest_oai.py); here, values an XML page can hold.
    value = hostile(rng, ("text", "date", "url"))
    text = value if isinstance(value, str) else repr(value)
    return "".join(c for c in text if c in "\t\n\r" or 0x20 <= ord(c) < 0xD800
                   or 0xE000 <= ord(c) <= 0xFFFD)


def _replace_element(xml: str, name: str, value: str) -> str:
    if name in ("conteudo", "metadado"):
        head = f'tipo="{name}">'
        start = xml.index(head) + len(head)
        return xml[:start] + escape(value) + xml[xml.index("</Item>", start):]
    start = xml.index(f"<{name}>") + len(name) + 2
    return xml[:start] + escape(value) + xml[xml.index(f"</{name}>", start):]


def test_oai_hostile_fields(corpus):
    rng = random.Random(SEED)
    with OaiServer(40, files_every=2) as server:
        chosen = {pk: (OAI_FIELDS[i % len(OAI_FIELDS)], _oai_value(rng))
                  for i, pk in enumerate(sorted(rng.sample(sorted(server.norms), 14)))}

        def mangle(norm, xml):
            if norm.pk not in chosen:
                return xml
            field, value = chosen[norm.pk]
            return _replace_element(xml, field, value)

        server.mangle_record = mangle
        server.response_date = "0001-01-01T00:00:00Z"
        source_id = corpus.store.ensure_source(JUAZEIRO, "oai", server.url + OAI_PATH,
                                               {"delay": 0})
        report = run(corpus, [source_id])
        good = {server.identifier(n) for pk, n in server.norms.items() if pk not in chosen
                or chosen[pk][0] != "identifier"}
    assert report.cycles_finished == 1
    stored = _records(corpus)
    assert good <= set(stored)
    said = _no_crash(corpus)
    assert any("not a plausible datestamp" in m for m in said)
    for field, value in chosen.values():
        if field == "identifier" and not " ".join(value.split()):
            assert any("a record without a header identifier" in m for m in said)
        if field == "DocumentoIndividual" and " ".join(value.split()) \
                and not value.lower().startswith("urn:lex:"):
            assert any("a URN that is not urn:lex" in m for m in said), value[:40]
    _clean(corpus)


# -- SAPL 2.5 ------------------------------------------------------------------------------------


def test_sapl25_hostile_fields(corpus):
    rng = random.Random(SEED)
    norms = {cod: Norma(cod, 1 + cod % 3, cod, 2000 + cod % 20, date(2000 + cod % 20, 3, 1),
                        f"Dispõe sobre o assunto {cod}.") for cod in range(1, 31)}
    hostile_cods = sorted(rng.sample(sorted(norms), 10))
    spoilt: dict[int, str] = {}
    for i, cod in enumerate(hostile_cods):
        n = norms[cod]
        spoilt[cod] = field = ("numero", "ano", "ementa", "data")[i % 4]
        if field == "ementa":
            n.ementa = str(hostile(rng, ("text",))).replace("\x00", "")
        elif field == "numero":
            n.numero = hostile(rng, ("text", "number"))
        elif field == "ano":
            n.ano = rng.choice([0, -1, 10**9, 99999])
        else:
            n.data = rng.choice([date(1, 1, 1), date(9999, 12, 31)])
    with Sapl25(norms, crawl_delay=None) as server:
        source_id = corpus.store.ensure_source(JUAZEIRO, "sapl25", server.url + "/sapl",
                                               {"delay": 0})
        report = run(corpus, [source_id], max_time=600)
    assert report.cycles_finished == 1
    stored = _records(corpus)
    assert set(stored) == {str(c) for c in norms}  # every row, good or bad, is a norm
    said = _no_crash(corpus)
    for cod, field in spoilt.items():
        row, about = stored[str(cod)], [m for m in said if m.startswith(f"norm {cod}: ")]
        if field == "ano":
            assert row["year"] is None and about, (cod, norms[cod].ano)
        if field == "data":
            assert row["date"] is None and about == [
                f"norm {cod}: date {norms[cod].data.isoformat()} is not plausible: left out"]
        if field == "numero" and row["number"] is None:
            assert about == [f"norm {cod}: its listing row names no number/year"]
    for cod in set(norms) - set(spoilt):  # the good rows, whole
        n, row = norms[cod], stored[str(cod)]
        assert (row["number"], row["year"], row["date"]) == (str(n.numero), n.ano, n.data)
    _clean(corpus)


# -- Querido Diário --------------------------------------------------------------------------------


QD_FIELDS = ("date", "territory_id", "url", "txt_url", "edition", "is_extra_edition",
             "scraped_at")


def test_querido_diario_hostile_fields(corpus):
    rng = random.Random(SEED)
    gazettes = [Gazette(str(JUAZEIRO), date(2020, 1, 1 + i),
                        LAW_GAZETTE.replace("2.199", f"{3000 + i}"), edition=str(100 + i))
                for i in range(24)]
    chosen = {i: (QD_FIELDS[k % len(QD_FIELDS)], hostile(rng))
              for k, i in enumerate(sorted(rng.sample(range(24), 14)))}
    with QueridoDiarioServer(gazettes) as server:
        by_id = {id(g): i for i, g in enumerate(server.gazettes)}

        def mangle(g, item):
            found = chosen.get(by_id[id(g)])
            return {**item, found[0]: found[1]} if found else item

        server.mangle_item = mangle
        source_id = corpus.store.ensure_source(JUAZEIRO, "querido-diario", server.url,
                                               {"delay": 0})
        report = run(corpus, [source_id], max_time=600)
    assert report.cycles_finished == 1
    said = _no_crash(corpus)
    with corpus.store.engine.connect() as conn:
        stored = {g["edition"]: dict(g) for g in conn.execute(select(gazette)).mappings()}
    for i, g in enumerate(gazettes):
        field = chosen.get(i, (None,))[0]
        if field is None:  # a good row: listed, read and cut into acts
            assert stored[g.edition]["segmented_at"] is not None
            assert stored[g.edition]["quality"] is None
    skipped = [m for m in said if m.startswith("gazette row ")]
    bad_rows = [i for i, (f, v) in chosen.items() if f in ("date", "territory_id")]
    assert len(skipped) == len(bad_rows)
    assert all("is not a date" in m or "is not an IBGE code" in m for m in skipped)
    _clean(corpus)
    with corpus.store.engine.connect() as conn:
        for row in conn.execute(select(gazette)).mappings():
            assert all("\x00" not in v for v in row.values() if isinstance(v, str))
            assert row["territory_id"] == str(JUAZEIRO)


# -- a portal (Goiás' JSON API) --------------------------------------------------------------------


GO_FIELDS = ("id", "numero", "ano", "ementa", "data_legislacao", "tipo_legislacao")


def test_portal_hostile_fields(tmp_path, corpus_dir):
    rng = random.Random(SEED)
    with GoApi(count=40) as go:
        chosen = {law_id: (GO_FIELDS[k % len(GO_FIELDS)], hostile(rng))
                  for k, law_id in enumerate(sorted(rng.sample(sorted(go.laws), 14)))}
        real = go.law_json

        def mangle(law):
            row = real(law)
            if law.id in chosen:
                field, value = chosen[law.id]
                row[field] = value
            return row

        go.law_json = mangle
        portals.add(corpus_dir, portals.example("go", go.url, tmp_path), portals.GO)
        portals.harvest(corpus_dir, "--no-files")
        good = {str(i) for i in go.laws if i not in chosen or chosen[i][0] != "id"}
    found = portals.records(corpus_dir)
    assert good <= set(found)
    said = portals.problems(corpus_dir)
    assert not [m for m in said if any(i in m for i in INTERNAL)], said
    for row in found.values():
        assert all("\x00" not in v for v in row.values() if isinstance(v, str))
        assert row["year"] is None or 1000 <= row["year"] <= 2999
    for law_id, (field, value) in chosen.items():
        about = [m for m in said if m.startswith(f"norm {law_id}: ")]
        row = found.get(str(law_id))
        if field == "data_legislacao" and isinstance(value, str) and value.strip():
            assert row["date"] is None and any("is not a date" in m for m in about), value
        if field == "ano" and row["year"] is None and value not in (None, ""):
            assert any("is not a year" in m for m in about), value
        if field == "id" and (value in (None, "", True) or isinstance(value, dict | list)):
            # no native id a norm can be kept by (a string or a number is one, kept as such)
            assert any("an item without a native id" in m for m in said), value
    for law_id in set(go.laws) - set(chosen):  # the good rows, whole
        law, row = go.laws[law_id], found[str(law_id)]
        assert (row["year"], row["date"], row["ementa"]) == (law.ano, law.data, law.ementa)


@pytest.fixture
def corpus_dir(tmp_path):
    init_corpus(tmp_path / "corpus").close()
    return tmp_path / "corpus"
