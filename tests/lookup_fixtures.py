"""A municipal corpus built like the real ones, for finding norms by their number.

What makes lookup by number hard in real corpora is all here: the same number in different
types and years (Lei, Decreto and Portaria 2199), decrees that restart their numbering every
year (Decreto 187 of 2011, 2012 and 2013, and another 187/2013 in Petrolina), amendment laws
whose ementas cite the number ("Altera a Lei nº 2.199/2011", "Regulamenta a Lei nº 2.199"),
Lei Complementar 45 beside an old Lei 45, Lei 1.234 beside Lei 1.234-A, the same number in
other municipalities, a law held by two sources (SAPL and a dump, merged into one norm), and
a law that SAPL types only as "Legislação Municipal" (its heading types it). Texts carry the
headings and the sentences that enrichment reads: Lei 2.199 revokes Lei 1.996, Lei 2.250
alters Lei 2.199, the portaria of the moto-táxi committee cites it.

LOOKUPS holds the labelled queries (query, filters, the norm that must come first) that the
tests and bench/search_lookup.py run; PLAIN the word searches measured beside them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select

from locleg.corpus import Corpus
from locleg.enrich.run import enrich
from locleg.search import refresh_index
from locleg.store import utcnow
from locleg.store.schema import jurisdiction
from tests.explorer_fixtures import (
    JUAZEIRO,
    PETROLINA,
    ExplorerCorpus,
    _add_document,
    _extracted,
    norms_of,
)

SOBRADINHO = 2930774

# Norms whose texts are scans read by OCR, with the mean confidence of their pages.
SCANNED = {"petro2199": 0.62, "law1996": 0.71}
MOTO_TAXI = "Dispõe sobre o serviço de moto-táxi e moto-entrega no Município de Juazeiro."
ALTERS_2199 = "Altera a Lei nº 2.199/2011, que dispõe sobre o serviço de moto-táxi."


@dataclass(frozen=True)
class Norm:
    name: str
    place: int
    type_raw: str
    type_normalized: str
    number: str
    signed: date
    ementa: str
    text: str | None = None  # the texto integral (one page); None: no document


def _heading(kind: str, number: str, signed: date) -> str:
    months = ("JANEIRO", "FEVEREIRO", "MARÇO", "ABRIL", "MAIO", "JUNHO", "JULHO", "AGOSTO",
              "SETEMBRO", "OUTUBRO", "NOVEMBRO", "DEZEMBRO")
    return f"{kind} Nº {number}, DE {signed.day:02d} DE {months[signed.month - 1]} DE " \
           f"{signed.year}"


def _text(kind: str, number: str, signed: date, ementa: str, *articles: str) -> str:
    body = "\n".join(f"Art. {i}º {a}" for i, a in enumerate(articles, 1))
    closing = f"Art. {len(articles) + 1}º Esta norma entra em vigor na data de sua publicação."
    return f"{_heading(kind, number, signed)}\n\n{ementa}\n\n{body}\n{closing}"


def _norm(name: str, place: int, type_raw: str, type_normalized: str, number: str,
          signed: date, ementa: str, *articles: str, kind: str | None = None) -> Norm:
    heading = kind or type_raw.upper().replace("LEI ORDINÁRIA", "LEI")
    return Norm(name, place, type_raw, type_normalized, number, signed, ementa,
                _text(heading, number, signed, ementa, *articles) if articles else None)


NORMS: tuple[Norm, ...] = (
    _norm("law2199", JUAZEIRO, "Lei Ordinária", "lei", "2.199", date(2011, 6, 27), MOTO_TAXI,
          "O serviço de moto-táxi no Município de Juazeiro obedece a esta Lei.",
          "O condutor de moto-táxi será cadastrado na Secretaria de Transportes.",
          "Fica revogada a Lei nº 1.996, de 06 de novembro de 2008."),
    _norm("law1996", JUAZEIRO, "Lei Ordinária", "lei", "1.996", date(2008, 11, 6),
          "Regulamenta o transporte de passageiros em motocicletas no Município.",
          "O transporte de passageiros em motocicletas depende de licença."),
    _norm("law2250", JUAZEIRO, "Lei Ordinária", "lei", "2.250", date(2012, 3, 15), ALTERS_2199,
          "O art. 2º da Lei nº 2.199, de 27 de junho de 2011, passa a vigorar com a seguinte "
          "redação: \"O condutor será cadastrado.\""),
    _norm("law2301", JUAZEIRO, "Lei Ordinária", "lei", "2.301", date(2013, 5, 10),
          "Altera o art. 1º da Lei nº 2.199, de 27 de junho de 2011, e acrescenta parágrafo.",
          "O art. 1º da Lei nº 2.199, de 27 de junho de 2011, fica acrescido de parágrafo."),
    _norm("dec100", JUAZEIRO, "Decreto", "decreto", "100", date(2012, 3, 1),
          "Regulamenta a Lei nº 2.199, de 27 de junho de 2011, e fixa as tarifas.",
          "A tarifa do serviço de moto-táxi é de R$ 5,00."),
    _norm("port35", JUAZEIRO, "Portaria", "portaria", "35", date(2013, 8, 1),
          "Nomeia os membros da Comissão de Fiscalização do serviço de moto-táxi.",
          "Ficam nomeados membros da comissão de fiscalização do serviço de moto-táxi de que "
          "trata a Lei nº 2.199, de 27 de junho de 2011, os servidores abaixo.",
          "A Comissão fiscalizará o serviço de moto-táxi e ouvirá os condutores de moto-táxi "
          "e de moto-entrega."),
    _norm("dec2199", JUAZEIRO, "Decreto", "decreto", "2.199", date(2019, 4, 2),
          "Abre crédito suplementar ao orçamento vigente.",
          "Fica aberto crédito suplementar no valor de R$ 10.000,00, autorizado pela lei "
          "orçamentária anual."),
    _norm("port2199", JUAZEIRO, "Portaria", "portaria", "2199", date(2011, 9, 5),
          "Concede férias a servidor da Secretaria de Administração."),
    _norm("dec187_2011", JUAZEIRO, "Decreto", "decreto", "187", date(2011, 7, 4),
          "Nomeia membros do Conselho Municipal de Saúde.",
          "Ficam nomeados os membros do Conselho Municipal de Saúde."),
    _norm("dec187_2012", JUAZEIRO, "Decreto", "decreto", "187", date(2012, 8, 9),
          "Declara de utilidade pública o imóvel que menciona.",
          "Fica declarado de utilidade pública o imóvel da Rua das Flores."),
    _norm("dec187_2013", JUAZEIRO, "Decreto", "decreto", "187", date(2013, 6, 20),
          "Regulamenta a feira livre do bairro Centro.",
          "A feira livre do bairro Centro funciona aos sábados."),
    _norm("petro_dec187_2013", PETROLINA, "Decreto", "decreto", "187", date(2013, 2, 11),
          "Dispõe sobre o carnaval de Petrolina.",
          "O carnaval de Petrolina será realizado na orla."),
    _norm("lc45", JUAZEIRO, "Lei Complementar", "lei.complementar", "45", date(2013, 12, 20),
          "Institui o Código Tributário do Município de Juazeiro.",
          "Este Código rege os tributos do Município de Juazeiro."),
    _norm("lc52", JUAZEIRO, "Lei Complementar", "lei.complementar", "52", date(2015, 4, 8),
          "Altera a Lei Complementar nº 45/2013 (Código Tributário do Município).",
          "O art. 10 da Lei Complementar nº 45, de 20 de dezembro de 2013, passa a vigorar com "
          "a seguinte redação: \"A alíquota é de 2%.\""),
    _norm("law45", JUAZEIRO, "Lei Ordinária", "lei", "45", date(1974, 5, 2),
          "Denomina Praça da Bandeira o logradouro que menciona."),
    _norm("law1234", JUAZEIRO, "Lei Ordinária", "lei", "1.234", date(2005, 3, 3),
          "Cria o Conselho Municipal de Cultura.",
          "Fica criado o Conselho Municipal de Cultura."),
    _norm("law1234a", JUAZEIRO, "Lei Ordinária", "lei", "1.234-A", date(2005, 3, 10),
          "Autoriza a doação de imóvel à Associação de Moradores do bairro Itaberaba.",
          "Fica o Poder Executivo autorizado a doar o imóvel."),
    _norm("res3_2015", JUAZEIRO, "Resolução", "resolucao", "3", date(2015, 2, 2),
          "Aprova o Regimento Interno da Câmara Municipal de Juazeiro.",
          "Fica aprovado o Regimento Interno da Câmara Municipal."),
    _norm("res3_2016", JUAZEIRO, "Resolução", "resolucao", "3", date(2016, 3, 1),
          "Dispõe sobre a Tribuna Popular da Câmara Municipal."),
    _norm("dec3_2015", JUAZEIRO, "Decreto", "decreto", "3", date(2015, 1, 5),
          "Decreta ponto facultativo nas repartições públicas municipais."),
    _norm("port3_2015", JUAZEIRO, "Portaria", "portaria", "3", date(2015, 1, 6),
          "Nomeia o Secretário Municipal de Saúde."),
    _norm("elo7", JUAZEIRO, "Emenda à Lei Orgânica", "emenda.lei.organica", "7",
          date(2010, 10, 1), "Altera o art. 45 da Lei Orgânica do Município de Juazeiro.",
          "O art. 45 da Lei Orgânica do Município passa a vigorar com a seguinte redação.",
          kind="EMENDA À LEI ORGÂNICA"),
    _norm("law7", JUAZEIRO, "Lei Ordinária", "lei", "7", date(1970, 2, 1),
          "Cria o brasão do Município de Juazeiro."),
    _norm("law1167", JUAZEIRO, "Lei Ordinária", "lei", "1.167", date(1995, 8, 14),
          "Dispõe sobre o horário de funcionamento do comércio."),
    _norm("sob1167", SOBRADINHO, "Lei Ordinária", "lei", "1.167", date(2014, 4, 2),
          "Institui o Programa Municipal de Hortas Comunitárias.",
          "Fica instituído o Programa Municipal de Hortas Comunitárias.",
          kind="LEI MUNICIPAL"),
    _norm("petro2199", PETROLINA, "Lei Ordinária", "lei", "2.199", date(2009, 9, 30),
          "Institui o Dia do Motociclista no Município de Petrolina.",
          "Fica instituído o Dia do Motociclista."),
    # SAPL types it only as "Legislação Municipal": its heading says what it is.
    _norm("law2400", JUAZEIRO, "Legislação Municipal", "outro", "2.400", date(2014, 3, 10),
          "Institui a Semana Municipal do Meio Ambiente.",
          "Fica instituída a Semana Municipal do Meio Ambiente.", kind="LEI"),
)

# (query, filters as query-string lists, the norm that must come first)
J, PE = str(JUAZEIRO), "PE"
LOOKUPS: tuple[tuple[str, dict[str, list[str]], str], ...] = (
    ("lei 2199", {}, "law2199"),
    ("Lei 2199", {"j": [J]}, "law2199"),
    ("LEI 2199", {"j": [J]}, "law2199"),
    ("lei nº 2199", {"j": [J]}, "law2199"),
    ("Lei nº 2.199/2011", {}, "law2199"),
    ("Lei n° 2.199/2011", {}, "law2199"),
    ("lei n 2199", {"j": [J]}, "law2199"),
    ("Lei no 2.199 de 2011", {}, "law2199"),
    ("lei 02199", {"j": [J]}, "law2199"),
    ("2199/2011", {"j": [J]}, "law2199"),
    ("2.199/2011", {}, "law2199"),
    ("lei ordinária 2199", {"j": [J]}, "law2199"),
    ("Lei Ordinária nº 2.199, de 27 de junho de 2011", {}, "law2199"),
    ("LEI N. 2.199/11", {}, "law2199"),
    ("lei municipal 2199", {"uf": ["BA"]}, "law2199"),
    ("moto-táxi lei 2199", {}, "law2199"),
    ("lei 2199 moto-táxi", {"j": [J]}, "law2199"),
    ("lei 2199", {"type": ["lei"], "year_from": ["2010"]}, "law2199"),
    ("lei 2199", {"uf": [PE]}, "petro2199"),
    ("lei 2199/2009", {}, "petro2199"),
    ("decreto 2199", {"j": [J]}, "dec2199"),
    ("decreto 2199/2019", {}, "dec2199"),
    ("portaria 2199", {"j": [J]}, "port2199"),
    ("decreto 187 de 2011", {"j": [J]}, "dec187_2011"),
    ("decreto 187/2012", {}, "dec187_2012"),
    ("Decreto nº 187, de 2013", {"j": [J]}, "dec187_2013"),
    ("decreto 187/2013", {"j": [str(PETROLINA)]}, "petro_dec187_2013"),
    ("decreto 187", {"j": [J], "year_from": ["2012"], "year_to": ["2012"]}, "dec187_2012"),
    ("decreto 187", {"j": [J]}, "dec187_2013"),
    ("LC 45/2013", {}, "lc45"),
    ("lc 45", {"j": [J]}, "lc45"),
    ("lei complementar 45", {"j": [J]}, "lc45"),
    ("Lei Complementar nº 45, de 20 de dezembro de 2013", {}, "lc45"),
    ("45/2013", {"j": [J]}, "lc45"),
    ("lei 45", {"j": [J]}, "law45"),
    ("lei 45/1974", {}, "law45"),
    ("Resolução nº 3/2015", {"j": [J]}, "res3_2015"),
    ("resolução 3/2016", {}, "res3_2016"),
    ("resolucao 3 de 2015", {"j": [J]}, "res3_2015"),
    ("decreto 3/2015", {"j": [J]}, "dec3_2015"),
    ("portaria 3/2015", {"j": [J]}, "port3_2015"),
    ("lei municipal 1.167", {"j": [str(SOBRADINHO)]}, "sob1167"),
    ("Lei Municipal nº 1.167, de 02 de abril de 2014", {}, "sob1167"),
    ("lei 1167/1995", {}, "law1167"),
    ("lei 1167", {"j": [J]}, "law1167"),
    ("emenda à lei orgânica 7", {"j": [J]}, "elo7"),
    ("Emenda nº 7 à Lei Orgânica", {"j": [J]}, "elo7"),
    ("emenda a lei organica 7/2010", {}, "elo7"),
    ("lei 7", {"j": [J]}, "law7"),
    ("lei 1234", {"j": [J]}, "law1234"),
    ("lei 1234-A", {"j": [J]}, "law1234a"),
    ("Lei nº 1.234-A/2005", {}, "law1234a"),
    ("lei 1234a", {"j": [J]}, "law1234a"),
    ("lei 1996", {"j": [J]}, "law1996"),
    ("Lei Municipal nº 1.996, de 06 de novembro de 2008", {}, "law1996"),
    ("lei 2400", {"j": [J]}, "law2400"),
    ("lei 2250", {"j": [J]}, "law2250"),
    ("decreto 100/2012", {}, "dec100"),
    ("portaria 35/2013", {"j": [J]}, "port35"),
    ("lei 2199", {"status": ["altered"]}, "law2199"),
    ("lei 1996", {"status": ["revoked"]}, "law1996"),
)

# Numbers that every place of the filler has: each names up to MAX_NAMED norms.
SHARED: tuple[tuple[str, dict[str, list[str]]], ...] = (
    ("lei 3005", {}), ("lei nº 3.010", {}), ("decreto 201", {}), ("lei 3002 crédito", {}),
)
PLAIN: tuple[tuple[str, dict[str, list[str]]], ...] = (
    ("moto-táxi", {}), ("conselho municipal", {}), ("crédito suplementar", {}),
    ("feira livre", {"j": [J]}), ("regimento interno", {}), ("utilidade pública", {}),
    ("praça", {}), ("servidor", {"uf": ["BA"]}),
)


def build_lookup_corpus(corpus: Corpus, filler: int = 0, seed: int = 9) -> ExplorerCorpus:
    """The norms above (texts extracted, enriched, indexed), and `filler` more norms spread
    over the same municipalities and others, numbered as real ones are."""
    ec = ExplorerCorpus(corpus)
    store = corpus.store
    seen = utcnow() - timedelta(hours=1)
    sources = {code: store.ensure_source(code, "sapl", f"https://sapl.{code}.example")
               for code in {n.place for n in NORMS}}
    dump = store.ensure_source(JUAZEIRO, "folder", "file:///dumps/juazeiro")
    with store.transaction() as conn:
        for code, source_id in sources.items():
            ids = store.upsert_records(conn, source_id, [{
                "native_id": n.name, "jurisdiction_code": n.place, "type_raw": n.type_raw,
                "type_normalized": n.type_normalized, "number": n.number,
                "year": n.signed.year, "date": n.signed, "ementa": n.ementa,
                "url": f"https://sapl.{code}.example/norma/{n.name}"}
                for n in NORMS if n.place == code], seen)
            ec.records.update(ids)
        # The dump holds Lei 2.199 too, labelled and numbered its own way: one norm.
        ec.records["law2199_dump"] = store.upsert_records(conn, dump, [{
            "native_id": "LEI_2199_2011.pdf", "jurisdiction_code": JUAZEIRO, "type_raw": "Lei",
            "type_normalized": "lei", "number": "02199", "year": 2011, "date": None,
            "ementa": MOTO_TAXI.upper(), "url": None}], seen)["LEI_2199_2011.pdf"]
    for n in NORMS:
        if n.text is not None:
            _add_document(ec, n.name, ec.records[n.name],
                          f"https://sapl.{n.place}.example/media/{n.name}.pdf",
                          f"%PDF-1.4 {n.name}".encode(), "application/pdf")
            if n.name in SCANNED:
                _extracted(ec, n.name, "ocr", "tesseract", SCANNED[n.name], [n.text])
            else:
                _extracted(ec, n.name, "text", "pdfium", None, [n.text])
    if filler:
        _add_filler(corpus, filler, seed)
    enrich(corpus, reread=False)
    refresh_index(store)
    ec.norms.update(norms_of(corpus, ec.records))
    return ec


# The filler's norms go to these places and to the first municipalities of BA and PE.
_FILLER_PLACES = (JUAZEIRO, PETROLINA, SOBRADINHO)
_FILLER_TYPES = (("Lei Ordinária", "lei", 40), ("Decreto", "decreto", 35),
                 ("Portaria", "portaria", 15), ("Resolução", "resolucao", 5),
                 ("Lei Complementar", "lei.complementar", 5))
_SUBJECTS = ("o Conselho Municipal de Educação", "crédito suplementar ao orçamento vigente",
             "a denominação de logradouro público", "o Plano Municipal de Saneamento",
             "a doação de imóvel à associação comunitária", "a gratificação de servidores",
             "o transporte escolar", "a coleta seletiva de resíduos sólidos",
             "a utilidade pública da entidade que menciona", "a feira livre do bairro")
_VERBS = ("Dispõe sobre", "Institui", "Regulamenta", "Autoriza", "Altera")


def _add_filler(corpus: Corpus, count: int, seed: int, places: int = 300) -> None:
    """Norms numbered as municipalities number them: laws and complementary laws in one
    running sequence per place, decrees, portarias and resolutions restarting every year;
    some amend or regulate an earlier law by its number, which then appears in their
    ementas."""
    rng = random.Random(seed)
    store = corpus.store
    with store.engine.connect() as conn:
        others = conn.scalars(
            select(jurisdiction.c.ibge_code)
            .where(jurisdiction.c.level == "municipal", jurisdiction.c.uf.in_(("BA", "PE")),
                   jurisdiction.c.ibge_code.not_in(_FILLER_PLACES))
            .order_by(jurisdiction.c.ibge_code).limit(places - len(_FILLER_PLACES))).all()
    codes = (*_FILLER_PLACES, *others)
    sources = {code: store.ensure_source(code, "sapl", f"https://sapl.{code}.example")
               for code in codes}
    weights = [w for _, _, w in _FILLER_TYPES]
    running: dict[tuple[int, str], int] = {}
    laws: dict[int, list[tuple[str, int]]] = {code: [] for code in codes}
    rows: dict[int, list[dict]] = {code: [] for code in codes}
    first, span = date(1990, 1, 1), (date(2024, 12, 31) - date(1990, 1, 1)).days
    for i in range(count):
        # A few big places hold most norms, as in real corpora.
        code = codes[min(int(rng.paretovariate(1.2)) - 1, len(codes) - 1)] \
            if rng.random() < 0.5 else rng.choice(codes)
        type_raw, family, _ = rng.choices(_FILLER_TYPES, weights)[0]
        day = first + timedelta(days=i * span // count)
        yearly = family in ("decreto", "portaria", "resolucao")
        key = (code, f"{family}:{day.year}" if yearly else family)
        # Laws of a municipality run into the thousands, acts restart each year (the
        # filler's sequences start past the numbers of NORMS, so that LOOKUPS keep one
        # answer each).
        number = running.get(key, {"lei": 3000, "lei.complementar": 60}.get(family, 200)) + 1
        running[key] = number
        written = f"{number:,}".replace(",", ".")
        verb, subject = rng.choice(_VERBS), rng.choice(_SUBJECTS)
        ementa = f"{verb} {subject}."
        if verb in ("Altera", "Regulamenta") and laws[code]:
            cited, year = rng.choice(laws[code])
            ementa = f"{verb} a Lei nº {cited}/{year}, que dispõe sobre {subject}."
        if family == "lei":
            laws[code].append((written, day.year))
        rows[code].append({
            "native_id": f"filler-{i}", "jurisdiction_code": code, "type_raw": type_raw,
            "type_normalized": family, "number": written, "year": day.year, "date": day,
            "ementa": ementa, "url": None})
    seen = utcnow() - timedelta(hours=2)
    for code, batch in rows.items():
        for start in range(0, len(batch), 2000):
            with store.transaction() as conn:
                store.upsert_records(conn, sources[code], batch[start:start + 2000], seen)
