"""One law, many sources: records merge into the norm of their key, fields come by precedence,
headings type generic records, citations resolve to norms, status comes with its evidence.

Built through the store API and the real enrichment runner, on both backends.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

import pytest
from sqlalchemy import select, text, update

from locleg.enrich.identity import identify
from locleg.enrich.run import enrich, pending
from locleg.store import utcnow
from locleg.store.schema import citation, enrich_queue, norm, problem, record, source
from tests.seed000_text import PAGES as SEED_PAGES

JUAZEIRO, PETROLINA = 2918407, 2611101


@dataclass
class Corpus:
    """A corpus under construction: sources, records by name, their texts."""

    c: object
    sources: dict[str, int] = field(default_factory=dict)
    records: dict[str, int] = field(default_factory=dict)

    def source(self, name: str, platform: str = "sapl", code: int = JUAZEIRO,
               precedence: int | None = None) -> int:
        store = self.c.store
        settings = {"precedence": precedence} if precedence is not None else None
        self.sources[name] = store.ensure_source(code, platform, f"https://{name}.example",
                                                 settings)
        return self.sources[name]

    def record(self, name: str, src: str, native_id: str, type_raw: str | None,
               number: str | None, year: int | None, signed: date | None = None,
               ementa: str | None = None, code: int = JUAZEIRO, type_normalized=None,
               when=None) -> int:
        store = self.c.store
        with store.transaction() as conn:
            ids = store.upsert_records(conn, self.sources[src], [{
                "native_id": native_id, "jurisdiction_code": code, "type_raw": type_raw,
                "type_normalized": type_normalized, "number": number, "year": year,
                "date": signed, "ementa": ementa, "url": None}], when or utcnow())
        self.records[name] = ids[native_id]
        return ids[native_id]

    def text(self, name: str, pages: list[str], role: str = "texto_integral") -> int:
        """A document of the record with this extracted text (as extract leaves it)."""
        store = self.c.store
        blob = self.c.blobs.put(("\n".join(pages) + name).encode())
        with store.transaction() as conn:
            url = f"https://docs.example/{name}/{role}.pdf"
            docs = store.ensure_documents(conn, [{"record_id": self.records[name], "url": url,
                                                  "role": role}])
            doc_id = docs[(self.records[name], url)]["id"]
            [version_id] = store.add_versions(conn, [{
                "document_id": doc_id, "sha256": blob.sha256, "size": blob.size,
                "media_type": "application/pdf", "fetched_at": utcnow(), "origin": url}])
        store.save_extraction(version_id, {"status": "extracted", "method": "text",
                                           "pages": len(pages), "chars": 1},
                              [{"number": i, "method": "text", "text": t}
                               for i, t in enumerate(pages, 1)])
        return version_id

    def norm_of(self, name: str) -> dict:
        with self.c.store.engine.connect() as conn:
            norm_id = conn.scalar(select(record.c.norm_id)
                                  .where(record.c.id == self.records[name]))
            return dict(conn.execute(select(norm).where(norm.c.id == norm_id))
                        .mappings().one())


@pytest.fixture
def built(corpus) -> Corpus:
    return Corpus(corpus)


def _live_norms(corpus) -> list[dict]:
    with corpus.store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(
            select(norm).where(norm.c.merged_into.is_(None)).order_by(norm.c.id)).mappings()]


# -- identity -----------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b, same", [
    (("Lei", "2199", 2011), ("Lei Ordinária", "2.199", 2011), True),
    (("LC", "45", 2013), ("Lei Complementar", "045", 2013), True),
    (("Lei Municipal", "02199", 2011), ("LEI", "2199", 2011), True),
    (("Lei", "12-A", 2010), ("Lei", "12", 2010), False),
    (("Lei", "12-A", 2010), ("Lei Ordinária", "12a", 2010), True),
    (("Decreto", "5", 2011), ("Decreto", "5", 2012), False),  # numbering restarts each year
    (("Lei", "45", 2013), ("Lei Complementar", "45", 2013), False),
    (("Lei", "s/n", 2013), ("Lei", "s/n", 2013), False),  # never merged blindly
    (("Lei", "100", None), ("Lei", "100", None), False),
    (("Legislação Municipal", "2199", 2011), ("Lei", "2199", 2011), False),  # untyped
])
def test_which_records_are_one_norm(a, b, same):
    def key(t, n, y):
        return identify(JUAZEIRO, type_normalized=None, type_raw=t, number=n, year=y,
                        signed=None).key

    assert (key(*a) is not None and key(*a) == key(*b)) is same


def test_a_year_out_of_range_or_from_the_date_only(built):
    assert identify(JUAZEIRO, type_normalized=None, type_raw="Lei", number="7", year=2099 + 2,
                    signed=None).unmatched == "implausible year 2101"
    found = identify(JUAZEIRO, type_normalized=None, type_raw="Lei", number="7", year=None,
                     signed=date(2015, 3, 2))
    assert found.key is not None and found.year == 2015


def test_records_of_one_norm_merge_and_every_field_says_where_it_came_from(built, corpus):
    built.source("dump", "folder")
    built.source("sapl", "sapl")
    built.record("dump", "dump", "lei:2199/2011", "Lei", "2.199", 2011, None,
                 "dispõe sobre o serviço de moto-táxi")
    built.record("sapl", "sapl", "1461", "Lei Ordinária", "2199", 2011, date(2011, 6, 27),
                 "DISPÕE SOBRE O SERVIÇO DE MOTO-TÁXI E MOTO-ENTREGA")
    built.record("other", "sapl", "1462", "Lei Complementar", "2199", 2011, date(2011, 7, 1))
    dump, sapl = built.norm_of("dump"), built.norm_of("sapl")
    assert dump["id"] == sapl["id"] and sapl["records"] == 2
    assert sapl["key"] == f"{JUAZEIRO}|lei|2199|2011"
    assert built.norm_of("other")["id"] != sapl["id"]  # a LC is not a Lei
    # The official publisher wins each field; the dump's own words stay as its record.
    assert (sapl["type_raw"], sapl["number"], sapl["date"]) == ("Lei Ordinária", "2199",
                                                                date(2011, 6, 27))
    assert sapl["urn"] == "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199"
    provenance = json.loads(sapl["provenance"])
    assert provenance["ementa"] == {"record": built.records["sapl"]}
    conflicts = json.loads(sapl["conflicts"])
    assert {c["value"] for c in conflicts["type_raw"]} == {"Lei", "Lei Ordinária"}
    assert set(conflicts) == {"type_raw", "ementa"}  # "2.199" and "2199" are one number
    assert corpus.store.status()["norms"] == 2 and corpus.store.status()["records"] == 3
    assert corpus.store.consistency_problems() == []


def test_precedence_is_a_source_setting(built):
    built.source("dump", "folder", precedence=90)  # this dump is the better one, say
    built.source("sapl", "sapl")
    built.record("sapl", "sapl", "1", "Lei Ordinária", "10", 2020, date(2020, 1, 2), "A")
    built.record("dump", "dump", "d", "Lei", "10", 2020, date(2020, 1, 3), "B")
    n = built.norm_of("sapl")
    assert (n["ementa"], n["date"], n["type_raw"]) == ("B", date(2020, 1, 3), "Lei")


def test_unmatched_records_stand_alone_with_their_reason(built):
    built.source("dump", "folder")
    built.record("a", "dump", "a", "Lei", "s/n", 2013)
    built.record("b", "dump", "b", "Lei", "s/n", 2013)
    built.record("c", "dump", "c", "Lei", "100", None)
    built.record("d", "dump", "d", "Legislação Municipal", "2199", 2011)
    norms = {name: built.norm_of(name) for name in "abcd"}
    assert len({n["id"] for n in norms.values()}) == 4
    assert all(n["key"] is None for n in norms.values())
    with built.c.store.engine.connect() as conn:
        reasons = dict(conn.execute(select(record.c.native_id, record.c.unmatched)).all())
    assert reasons == {"a": "no number (s/n)", "b": "no number (s/n)", "c": "no year",
                       "d": "generic type (Legislação Municipal) not resolved by its text"}


def test_a_corrected_number_moves_the_record_and_the_old_norm_redirects(built):
    built.source("sapl", "sapl")
    built.source("dump", "folder")
    built.record("sapl", "sapl", "1", "Lei", "1169", 2014)
    built.record("dump", "dump", "d", "Lei", "1165", 2014)
    old = built.norm_of("dump")["id"]
    assert old != built.norm_of("sapl")["id"]
    built.record("dump", "dump", "d", "Lei", "1.169", 2014)  # the dump is corrected
    target = built.norm_of("sapl")["id"]
    assert built.norm_of("dump")["id"] == target
    with built.c.store.engine.connect() as conn:
        gone = conn.execute(select(norm).where(norm.c.id == old)).mappings().one()
    assert gone["merged_into"] == target and gone["key"] is None
    assert built.c.store.consistency_problems() == []


def test_rerunning_a_harvest_or_import_keeps_the_merge(built):
    built.source("dump", "folder")
    built.source("sapl", "sapl")
    for _ in range(2):
        built.record("dump", "dump", "d", "Lei", "2199", 2011)
        built.record("sapl", "sapl", "1461", "Lei Ordinária", "2199", 2011)
    assert built.norm_of("dump")["id"] == built.norm_of("sapl")["id"]
    assert len(_live_norms(built.c)) == 1


def test_a_norm_is_removed_only_when_every_record_is(built):
    store = built.c.store
    built.source("dump", "folder")
    built.source("sapl", "sapl")
    t0 = utcnow()
    built.record("dump", "dump", "d", "Lei", "2199", 2011, when=t0)
    built.record("sapl", "sapl", "1461", "Lei", "2199", 2011, when=t0)
    assert store.mark_removed(built.sources["sapl"], t0 + timedelta(seconds=1)) == 1
    assert built.norm_of("dump")["removed_at"] is None
    assert store.mark_removed(built.sources["dump"], t0 + timedelta(seconds=1)) == 1
    assert built.norm_of("dump")["removed_at"] is not None


# -- what the text says about itself ---------------------------------------------------------


def test_a_generic_record_is_typed_by_its_heading_and_joins_its_norm(built):
    built.source("sapl", "sapl")
    built.source("dump", "folder")
    built.record("sapl", "sapl", "1461", "Lei Ordinária", "2199", 2011, date(2011, 6, 27))
    built.record("seed", "dump", "1461", "Legislação Municipal", "2199", 2011)
    assert built.norm_of("seed")["id"] != built.norm_of("sapl")["id"]
    built.text("seed", SEED_PAGES)
    report = enrich(built.c)
    assert report.headings == 1 and report.moved == 1
    assert built.norm_of("seed")["id"] == built.norm_of("sapl")["id"]
    with built.c.store.engine.connect() as conn:
        seed = conn.execute(select(record).where(record.c.id == built.records["seed"])
                            ).mappings().one()
    assert (seed["heading_family"], seed["heading_number"], seed["heading_year"]) == (
        "lei", "2199", 2011)
    assert seed["unmatched"] is None and seed["heading_disagreement"] is None


def test_a_heading_fills_what_the_metadata_lacks(built):
    built.source("dump", "folder")
    built.record("lc", "dump", "lc45", "Lei Complementar", "45", 2013)
    built.text("lc", ["CÂMARA MUNICIPAL\nLEI COMPLEMENTAR Nº 45, DE 4 DE MARÇO DE 2013\n"
                      "Institui o Código Tributário do Município.\nArt. 1º Fica instituído."])
    enrich(built.c)
    n = built.norm_of("lc")
    assert n["date"] == date(2013, 3, 4)
    assert json.loads(n["provenance"])["date"] == {"record": built.records["lc"],
                                                   "from": "text"}


def test_a_heading_that_disagrees_is_flagged_with_both_values(built):
    built.source("dump", "folder")
    built.record("x", "dump", "x", "Lei", "1169", 2014)
    built.text("x", ["LEI Nº 1.165, DE 02 DE ABRIL DE 2014\nDispõe sobre a coleta de lixo.\n"
                     "Art. 1º Fica instituída a coleta."])
    report = enrich(built.c, reread=False)
    assert report.disagreements == 1
    with built.c.store.engine.connect() as conn:
        found = json.loads(conn.scalar(select(record.c.heading_disagreement)))
    assert [(d["field"], d["heading"], d["source"]) for d in found] == [
        ("number", "1165", "1169")]
    # Never merged on the heading's say: the record keeps the number its source gives.
    assert built.norm_of("x")["key"] == f"{JUAZEIRO}|lei|1169|2014"


# -- citations and legal status ---------------------------------------------------------------


def test_citations_resolve_to_norms_and_revocations_give_status_with_evidence(built):
    built.source("sapl", "sapl")
    built.record("seed", "sapl", "1461", "Lei", "2199", 2011, date(2011, 6, 27))
    built.record("old", "sapl", "1464", "Lei", "1996", 2008, date(2008, 11, 6))
    built.text("seed", SEED_PAGES)
    # the seed revokes "as disposições em contrário, especialmente as contidas na Lei
    # Municipal nº 1.996": the contrary provisions only, not the law (issue 21)
    built.record("rev", "sapl", "1470", "Lei", "2300", 2012, date(2012, 3, 1))
    built.text("rev", ["LEI Nº 2.300, DE 1º DE MARÇO DE 2012\nArt. 1º Fica revogada a Lei "
                       "Municipal nº 1.996, de 06 de novembro de 2008."])
    report = enrich(built.c)
    assert report.citations >= 3 and report.resolved >= 1
    old, seed, rev = built.norm_of("old"), built.norm_of("seed"), built.norm_of("rev")
    assert old["status"] == "revoked" and old["cited_by"] == 2
    [evidence] = json.loads(old["status_evidence"])
    assert evidence["by_norm"] == rev["id"] and evidence["via"] == "text"
    assert "Lei Municipal nº 1.996" in evidence["sentence"] and evidence["page"] == 1
    assert seed["status"] == "none_known"  # no revocation known is not "in force"
    with built.c.store.engine.connect() as conn:
        urns = set(conn.scalars(select(citation.c.urn).where(citation.c.norm_id == seed["id"])))
    assert "urn:lex:br:federal:lei:2009-07-29;12009" in urns


def test_a_citation_made_before_its_norm_arrived_resolves_when_it_does(built):
    built.source("sapl", "sapl")
    built.record("seed", "sapl", "1461", "Lei", "2199", 2011, date(2011, 6, 27))
    built.text("seed", SEED_PAGES)
    built.record("rev", "sapl", "1470", "Lei", "2300", 2012, date(2012, 3, 1))
    built.text("rev", ["LEI Nº 2.300, DE 1º DE MARÇO DE 2012\nArt. 1º Fica revogada a Lei "
                       "Municipal nº 1.996, de 06 de novembro de 2008."])
    enrich(built.c)
    built.record("old", "sapl", "1464", "Lei", "1996", 2008, date(2008, 11, 6))
    enrich(built.c)
    assert built.norm_of("old")["status"] == "revoked"
    assert built.norm_of("old")["cited_by"] == 2


def test_a_number_far_beyond_the_town_s_numbering_is_not_keyed_as_the_town_s(built):
    # Feira de Santana, Resolução 150/1984, cites Bahia's Lei 3.531/1976 with no sphere word
    # (issue 21); here a town whose laws of 2009 run to 105
    built.source("sapl", "sapl")
    for n in range(100, 106):
        built.record(f"l{n}", "sapl", str(n), "Lei", str(n), 2009, date(2009, 3, n - 99))
    built.record("res", "sapl", "r1", "Resolução", "150", 2009, date(2009, 6, 1))
    built.text("res", ["RESOLUÇÃO Nº 150/2009\nFaço saber que a Câmara Municipal aprovou, na "
                       "conformidade do Artigo 78, § 2º, ítem IX da Lei 3531 de 10 de novembro "
                       "de 2009, e eu promulgo a seguinte Resolução:\nArt. 1º Fica alterada a "
                       "Lei nº 105, de 5 de março de 2009."])
    enrich(built.c)
    with built.c.store.engine.connect() as conn:
        rows = {r.number: r for r in conn.execute(select(
            citation.c.number, citation.c.flags, citation.c.sphere, citation.c.target_key,
            citation.c.target_norm_id).where(citation.c.norm_id == built.norm_of("res")["id"]))}
    assert rows["3531"].flags == "beyond_town_numbering" and rows["3531"].sphere is None
    assert rows["3531"].target_key is None and rows["3531"].target_norm_id is None
    assert rows["105"].target_norm_id == built.norm_of("l105")["id"]


_CITES_THE_LOM = ("DECRETO Nº {n}, DE 2 DE MARÇO DE 2015\nO PREFEITO MUNICIPAL DE JUAZEIRO, "
                  "no uso das atribuições que lhe confere o art. 61, inciso IV, da Lei "
                  "Orgânica do Município, DECRETA:\nArt. 1º Fica nomeado …")


def test_the_lei_organica_cited_without_a_number_is_the_jurisdictions_one(built):
    built.source("sapl", "sapl")
    built.record("d1", "sapl", "1", "Decreto", "10", 2015, date(2015, 3, 2))
    built.text("d1", [_CITES_THE_LOM.format(n=10)])
    enrich(built.c)  # cited before the corpus holds it: waits
    built.record("lom", "sapl", "2", "Lei Orgânica", None, 1990, date(1990, 4, 5))
    built.text("lom", ["LEI ORGÂNICA DO MUNICÍPIO DE JUAZEIRO\nArt. 1º Esta Lei Orgânica do "
                       "Município rege …"])
    built.record("d2", "sapl", "3", "Decreto", "11", 2015, date(2015, 3, 2))
    built.text("d2", [_CITES_THE_LOM.format(n=11)])
    enrich(built.c)
    lom = built.norm_of("lom")
    assert lom["cited_by"] == 2  # both decrees; its own "esta Lei Orgânica" is not counted
    with built.c.store.engine.connect() as conn:
        targets = conn.execute(select(citation.c.norm_id, citation.c.target_norm_id).where(
            citation.c.family == "lei.organica")).all()
    assert sorted(t for _, t in targets if t) == [lom["id"], lom["id"]]
    assert all(n != t for n, t in targets)
    # A second Lei Orgânica (a new one of 2008 beside that of 1990): which one is meant is
    # not written, so the citations of a decree read later name neither.
    built.record("lom2", "sapl", "4", "Lei Orgânica", None, 2008, date(2008, 1, 5))
    built.record("d3", "sapl", "5", "Decreto", "12", 2015, date(2015, 3, 2))
    built.text("d3", [_CITES_THE_LOM.format(n=12)])
    enrich(built.c)
    with built.c.store.engine.connect() as conn:
        d3 = conn.scalar(select(citation.c.target_norm_id).where(
            citation.c.norm_id == built.norm_of("d3")["id"], citation.c.family == "lei.organica"))
    assert d3 is None


def test_sapl_vinculos_give_status_too(built, corpus):
    from locleg.store import metadata

    built.source("sapl", "sapl")
    built.record("a", "sapl", "1", "Lei", "10", 2010)
    built.record("b", "sapl", "2", "Lei", "20", 2012)
    with corpus.store.transaction() as conn:
        conn.execute(metadata.tables["sapl_relation"].insert(), [{
            "source_id": built.sources["sapl"], "native_id": "9", "norm_native_id": "2",
            "record_id": built.records["b"], "related_native_id": "1",
            "related_record_id": built.records["a"], "tipo_sigla": "P",
            "descricao_passiva": "Revogado(a) parcialmente pelo(a)", "seen_at": utcnow()}])
        # What the harvest does when a vínculo arrives: both norms are read again.
        conn.execute(enrich_queue.insert(), [{"norm_id": built.norm_of("a")["id"]}])
    enrich(built.c)
    a = built.norm_of("a")
    assert a["status"] == "revoked_in_part"
    [evidence] = json.loads(a["status_evidence"])
    assert (evidence["via"], evidence["by_norm"]) == ("sapl", built.norm_of("b")["id"])


def test_self_citation_cycles_and_absent_norms_are_recorded_never_merged(built, corpus):
    built.source("sapl", "sapl")
    built.record("a", "sapl", "1", "Lei", "100", 2010, date(2010, 1, 1))
    built.record("b", "sapl", "2", "Lei", "200", 2011, date(2011, 1, 1))
    built.text("a", ["LEI Nº 100/2010\nArt. 1º Fica revogada a Lei nº 200/2011.\n"
                     "Art. 2º Esta Lei nº 100/2010 entra em vigor na data de sua publicação."])
    built.text("b", ["LEI Nº 200/2011\nArt. 1º Fica revogada a Lei nº 100/2010.\n"
                     "Art. 2º Fica revogada a Lei nº 999/2005."])
    enrich(built.c)
    a, b = built.norm_of("a"), built.norm_of("b")
    assert a["id"] != b["id"]
    assert a["status"] == b["status"] == "revoked"
    with corpus.store.engine.connect() as conn:
        mine = list(conn.execute(select(citation.c.kind, citation.c.target_norm_id)
                                 .where(citation.c.norm_id == a["id"])))
        absent = conn.execute(select(citation.c.target_key, citation.c.target_norm_id)
                              .where(citation.c.number == "999")).one()
        cycles = list(conn.scalars(select(problem.c.message).where(problem.c.stage == "enrich")))
    assert mine == [("revokes", b["id"])]  # "Esta Lei nº 100/2010": itself, not a citation
    assert absent == (f"{JUAZEIRO}|lei|999|2005", None)  # kept, unresolved, for the record
    assert len(cycles) == 1 and "revoke one another" in cycles[0]
    enrich(built.c)
    with corpus.store.engine.connect() as conn:  # said once, not at every run
        assert len(list(conn.scalars(select(problem.c.id).where(problem.c.stage == "enrich")))) \
            == 1


def test_only_changed_norms_are_read_again(built):
    built.source("sapl", "sapl")
    for i in range(5):
        built.record(f"n{i}", "sapl", str(i), "Lei", str(100 + i), 2010)
        built.text(f"n{i}", [f"LEI Nº {100 + i}/2010\nArt. 1º Cita a Lei nº 1/2000."])
    assert enrich(built.c).norms == 5
    assert pending(built.c) == 0 and enrich(built.c).norms == 0
    built.text("n3", ["LEI Nº 103/2010\nArt. 1º Revoga a Lei nº 104/2010."])
    report = enrich(built.c)
    assert report.norms == 1
    assert built.norm_of("n4")["status"] == "revoked"


def test_an_existing_corpus_upgrades_in_place(tmp_path, database_url):
    """A corpus made before norms had identity: its duplicates merge, old links redirect."""
    from locleg.corpus import init_corpus, open_corpus
    from locleg.store.db import Store

    folder = tmp_path / "old"
    corpus = init_corpus(folder, database_url)
    url = str(corpus.store.engine.url.render_as_string(hide_password=False))
    corpus.close()
    store = Store.open(url, migrate=False)
    store.downgrade("base")
    store.migrate("0005")
    store.migrate("0004")
    store.migrate("0003")
    with store.engine.begin() as conn:
        from locleg.jurisdictions import load_ibge

        store.load_jurisdictions(load_ibge())
        now = utcnow()
        sources = [conn.execute(source.insert().returning(source.c.id), {
            "jurisdiction_code": JUAZEIRO, "platform": p, "base_url": f"https://{p}.example",
            "settings": "{}", "state": "{}", "created_at": now}).scalar_one()
            for p in ("folder", "sapl")]
        # The norm table as it was then: one row per source row.
        for i, (src, type_raw, number) in enumerate([(sources[0], "Lei", "2.199"),
                                                     (sources[1], "Lei Ordinária", "2199")]):
            conn.execute(text(
                "INSERT INTO norm (id, source_id, jurisdiction_code, native_id, type_raw, "
                "type_normalized, number, year, first_seen_at, last_seen_at, changed_at) "
                "VALUES (:id, :source, :code, :native, :type_raw, 'lei', :number, 2011, "
                ":now, :now, :now)"), {"id": 11 + i, "source": src, "code": JUAZEIRO,
                                        "native": str(i), "type_raw": type_raw,
                                        "number": number, "now": now})
    store.close()
    corpus = open_corpus(folder)  # migrates to the heads
    try:
        with corpus.store.engine.connect() as conn:
            assert list(conn.scalars(select(record.c.id).order_by(record.c.id))) == [11, 12]
        assert len(_live_norms(corpus)) == 2  # one norm per old row, ids kept
        enrich(corpus)  # what the next extract or harvest runs
        live = _live_norms(corpus)
        assert [(n["id"], n["records"]) for n in live] == [(11, 2)]
        with corpus.store.engine.connect() as conn:
            assert conn.scalar(select(norm.c.merged_into).where(norm.c.id == 12)) == 11
        assert corpus.store.consistency_problems() == []
    finally:
        corpus.close()


def test_marking_records_removed_keeps_norms_consistent(built):
    store = built.c.store
    built.source("sapl", "sapl")
    built.record("a", "sapl", "1", "Lei", "1", 2010)
    with store.transaction() as conn:
        conn.execute(update(record).values(last_seen_at=utcnow() - timedelta(days=1)))
        store.remove_unseen(conn, built.sources["sapl"], utcnow())
    assert built.norm_of("a")["removed_at"] is not None


def test_same_norm_matching_on_the_labelled_pairs(corpus):
    """≥ 300 labelled pairs with the hard cases: precision ≥ 0.99, recall ≥ 0.97."""
    from tests.identity_pairs import load_into, records, scores

    found = records()
    precision, recall, true_pairs, labelled = scores(found, load_into(corpus, found))
    assert labelled >= 300 and true_pairs >= 100
    assert precision >= 0.99 and recall >= 0.97, (precision, recall)


def test_a_misread_heading_is_read_again_from_the_scan(built):
    """The pipeline end to end: a damaged 200-dpi scan whose heading the page's OCR misreads
    (5.054 for 5.064) is read again from the original at 400 dpi, and agrees."""
    from locleg.extract import extract
    from locleg.fixtures.documents import image_pdf
    from tests.heading_cases import Print, scanned_first_page
    from tests.test_enrich_heading import SMALL_HEADING_PAGE

    page = scanned_first_page(SMALL_HEADING_PAGE.format(number="5.064"), 200,
                              Print(ink=86, dropout=0.3, blur=1.19, jpeg=10, rotate=0.9),
                              seed=182, size_pt=7)
    pdf = image_pdf([page])
    result = extract(pdf)
    built.source("sapl", "sapl")
    record_id = built.record("law", "sapl", "1", "Lei", "5064", 2014, date(2014, 4, 2))
    store = built.c.store
    blob = built.c.blobs.put(pdf)
    with store.transaction() as conn:
        docs = store.ensure_documents(conn, [{"record_id": record_id, "url": "https://x/l.pdf",
                                              "role": "texto_integral"}])
        [version_id] = store.add_versions(conn, [{
            "document_id": docs[(record_id, "https://x/l.pdf")]["id"], "sha256": blob.sha256,
            "size": blob.size, "media_type": "application/pdf", "fetched_at": utcnow(),
            "origin": "https://x/l.pdf"}])
    store.save_extraction(version_id, {"status": "extracted", "method": "ocr", "pages": 1,
                                       "chars": 1},
                          [{"number": 1, "method": "ocr", "text": result.pages[0].text}])
    assert "5.054" in result.pages[0].text or "5054" in result.pages[0].text
    report = enrich(built.c)
    assert report.rereads == 1 and report.disagreements == 0
    with store.engine.connect() as conn:
        row = conn.execute(select(record.c.heading_number, record.c.heading_disagreement)
                           .where(record.c.id == record_id)).one()
    assert tuple(row) == ("5064", None)


def test_precedence_is_set_from_the_command_line(tmp_path):
    from locleg.corpus import init_corpus, open_corpus
    from tests.conftest import run_cli

    corpus = init_corpus(tmp_path / "c")
    built = Corpus(corpus)
    built.source("dump", "folder")
    built.source("sapl", "sapl")
    built.record("sapl", "sapl", "1", "Lei Ordinária", "10", 2020, None, "A câmara diz")
    built.record("dump", "dump", "d", "Lei", "10", 2020, None, "O dump diz")
    assert built.norm_of("sapl")["ementa"] == "A câmara diz"
    corpus.close()
    run_cli("sources", "set", str(built.sources["dump"]), "--precedence", "90",
            corpus=tmp_path / "c", check=True)
    bad = run_cli("sources", "set", str(built.sources["dump"]), "--precedence", "900",
                  corpus=tmp_path / "c")
    assert bad.returncode == 2 and "--precedence" in bad.stderr
    corpus = open_corpus(tmp_path / "c")
    try:
        assert Corpus(corpus, records=built.records).norm_of("sapl")["ementa"] == "O dump diz"
        status = run_cli("status", corpus=tmp_path / "c", check=True).stdout
        assert re.search(r"norms\s+1\b", status) and re.search(r"records\s+2\b", status)
    finally:
        corpus.close()
