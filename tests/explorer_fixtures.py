"""A small explorer corpus built through the Store API: seed 000 and its neighbours.

Juazeiro (BA) holds seed 000 (Lei 2.199/2011, scanned, OCR at 0.94) and a few other norms:
a decree with a text layer, a law revoked by seed 000, a norm whose extraction failed, one
with no document yet, and one whose ementa, text and addresses carry script payloads (and
an earlier version recorded as "text/html,", as a ZIP's `mimetype` member once gave).
Petrolina (PE) writes "mototáxi" as one word; the state of Bahia has one law of its own,
imported from a folder the way `locleg import` records it (the importing machine's path
in the version's origin and the source's address).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import bindparam, insert, select, update

from locleg.corpus import Corpus
from locleg.search import refresh_index
from locleg.store import metadata, utcnow
from locleg.store.schema import extraction, page, record
from tests.seed000_text import PAGES as SEED000_PAGES

JUAZEIRO, PETROLINA, BAHIA = 2918407, 2611101, 29
SEED_EMENTA = ("DISPÕE SOBRE O SERVIÇO DE MOTO - TÁXI E MOTO - ENTREGA NO ÂMBITO DO MUNICÍPIO "
               "DE JUAZEIRO , E DÁ OUTRAS PROVIDÊNCIAS.")
SEED_URN = "urn:lex:br;bahia;juazeiro:municipal:lei:2011-06-27;2199"
SEED_URL = "https://sapl.juazeiro.ba.leg.br/media/sapl/public/normajuridica/2011/1461/lei_2199.pdf"
XSS_EMENTA = "Denomina a rua <script>alert('ementa')</script> & dá outras providências"
XSS_TEXT = "Art. 1º <img src=x onerror=alert('texto')> fica denominada <b>Rua das Flores</b>."
XSS_NORM_URL = "javascript:alert('norm-url')"
XSS_DOCUMENT_URL = " JaVaScRiPt:alert('document-url')"
XSS_HTML = b"<html><script>alert('original')</script></html>"
IMPORT_FOLDER = "/home/importer/dumps/ba"  # where the state's law lay on the importing machine
# Compounds whose hyphen belongs to the word, as extraction keeps them (also at a line end),
# and one that an older extraction joined.
HYPHENATED_TEXT = ("ANEXO I\nTabela de tarifas por bairro.\nO passageiro com guarda-chuva ou "
                   "saca de castanha-do-\nPará paga a mesma tarifa.")
JOINED_TEXT = " O passageiro leva o guardachuva fechado."
# A tiny but well-formed PDF: what the download route must hand back byte for byte.
SEED_PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
            b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")


@dataclass
class ExplorerCorpus:
    corpus: Corpus
    norms: dict[str, int] = field(default_factory=dict)  # name -> norm id
    records: dict[str, int] = field(default_factory=dict)  # name -> record id (its source's row)
    documents: dict[str, int] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    sha256: dict[str, str] = field(default_factory=dict)


def _norm(native_id: str, jurisdiction_code: int, type_raw: str, type_normalized: str,
          number: str, signed: date, ementa: str, url: str | None = None) -> dict:
    return {"native_id": native_id, "jurisdiction_code": jurisdiction_code,
            "type_raw": type_raw, "type_normalized": type_normalized, "number": number,
            "year": signed.year, "date": signed, "ementa": ementa, "url": url}


def add_extracted_texts(ec: ExplorerCorpus, texts: dict[str, tuple[str, str]]) -> None:
    """Each named norm's text (name -> (its PDF's url, the text)) as the one page of a PDF
    whose text layer was extracted: the rows that _add_document and _extracted write, for
    many norms in one transaction (one per norm took 30 s on PostgreSQL)."""
    if not texts:
        return
    store = ec.corpus.store
    now = utcnow()
    with store.transaction() as conn:
        docs = store.ensure_documents(conn, [
            {"record_id": ec.records[name], "url": url, "role": "texto_integral", "title": None}
            for name, (url, _) in texts.items()])
        rows = []
        for name, (url, _) in texts.items():
            ec.documents[name] = docs[(ec.records[name], url)]["id"]
            stored = ec.corpus.blobs.put(f"%PDF-1.4 {name}".encode())
            ec.sha256[name] = stored.sha256
            rows.append({"document_id": ec.documents[name], "sha256": stored.sha256,
                         "size": stored.size, "media_type": "application/pdf",
                         "fetched_at": now, "origin": url, "http_status": 200})
        for name, version_id in zip(texts, store.add_versions(conn, rows), strict=True):
            ec.versions[name] = version_id
        conn.execute(insert(page), [
            {"version_id": ec.versions[name], "number": 1, "method": "text",
             "confidence": None, "text": text} for name, (_, text) in texts.items()])
        conn.execute(
            update(extraction).where(extraction.c.version_id == bindparam("b_version"))
            .values(status="extracted", method="text", backend="pdfium", backend_version="1",
                    confidence=None, pages=1, chars=bindparam("b_chars"), duration_s=0.1,
                    extracted_at=now),
            [{"b_version": ec.versions[name], "b_chars": len(text)}
             for name, (_, text) in texts.items()])


def norms_of(corpus: Corpus, record_ids: dict[str, int]) -> dict[str, int]:
    """name -> the norm id of each named record."""
    with corpus.store.engine.connect() as conn:
        found = dict(conn.execute(select(record.c.id, record.c.norm_id)
                                  .where(record.c.id.in_(list(record_ids.values())))).all())
    return {name: found[record_id] for name, record_id in record_ids.items()}


def _add_document(ec: ExplorerCorpus, name: str, record_id: int, url: str, data: bytes,
                  media_type: str, role: str = "texto_integral", title: str | None = None,
                  origin: str | None = None) -> int:
    store = ec.corpus.store
    with store.transaction() as conn:
        docs = store.ensure_documents(conn, [{"record_id": record_id, "url": url, "role": role,
                                              "title": title}])
    ec.documents[name] = docs[(record_id, url)]["id"]
    return _add_version(ec, name, data, media_type, origin or url)


def _add_version(ec: ExplorerCorpus, name: str, data: bytes, media_type: str,
                 origin: str) -> int:
    """A new version of the document `name`, which becomes its current one."""
    store = ec.corpus.store
    stored = ec.corpus.blobs.put(data)
    with store.transaction() as conn:
        [version_id] = store.add_versions(conn, [{
            "document_id": ec.documents[name], "sha256": stored.sha256, "size": stored.size,
            "media_type": media_type, "fetched_at": utcnow(), "origin": origin,
            "http_status": 200}])
    ec.versions[name] = version_id
    ec.sha256[name] = stored.sha256
    return version_id


def _extracted(ec: ExplorerCorpus, name: str, method: str, backend: str,
               confidence: float | None, pages: list[str], status: str = "extracted",
               error: str | None = None) -> None:
    page_rows = [{"number": i, "method": method, "confidence": confidence, "text": t}
                 for i, t in enumerate(pages, 1)]
    record = {"status": status, "method": method if pages else None,
              "backend": backend, "backend_version": "5.3.0" if backend == "tesseract" else "1",
              "confidence": confidence, "pages": len(pages),
              "chars": sum(len(t) for t in pages), "error": error, "duration_s": 1.5,
              "extracted_at": utcnow()}
    ec.corpus.store.save_extraction(ec.versions[name], record, page_rows)


def build_explorer_corpus(corpus: Corpus, refresh: bool = True,
                          legal_life: bool = False) -> ExplorerCorpus:
    """Fill an empty corpus with the explorer fixtures; the index is refreshed at the end.
    With legal_life, the norms' legal life is added and enriched too (add_legal_life)."""
    ec = ExplorerCorpus(corpus)
    store = corpus.store
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    petrolina = store.ensure_source(PETROLINA, "sapl", "https://sapl.petrolina.pe.leg.br")
    bahia = store.ensure_source(BAHIA, "folder", f"file://{IMPORT_FOLDER}")
    seen = utcnow() - timedelta(hours=1)
    with store.transaction() as conn:
        ids = store.upsert_records(conn, sapl, [
            _norm("1461", JUAZEIRO, "Legislação Municipal", "lei", "2199", date(2011, 6, 27),
                  SEED_EMENTA, "https://sapl.juazeiro.ba.leg.br/norma/1461"),
            _norm("1200", JUAZEIRO, "Lei Ordinária", "lei", "1996", date(2008, 11, 6),
                  "Regulamenta o transporte de passageiros em motocicletas no Município."),
            _norm("1500", JUAZEIRO, "Decreto", "decreto", "100", date(2012, 3, 1),
                  "Regulamenta a Lei nº 2.199, de 27 de junho de 2011, e fixa as tarifas."),
            _norm("1501", JUAZEIRO, "Lei Ordinária", "lei", "2300", date(2012, 5, 10),
                  "Institui o programa municipal de coleta seletiva."),
            _norm("1502", JUAZEIRO, "Lei Ordinária", "lei", "2301", date(2012, 6, 2),
                  "Cria o conselho municipal de cultura."),
            _norm("1503", JUAZEIRO, "Lei Ordinária", "lei", "2302", date(2013, 1, 15),
                  XSS_EMENTA, XSS_NORM_URL),
        ], seen)
        ec.records.update({"seed": ids["1461"], "revoked": ids["1200"],
                           "decree": ids["1500"], "failed": ids["1501"],
                           "bare": ids["1502"], "xss": ids["1503"]})
        ec.records["petrolina"] = store.upsert_records(conn, petrolina, [
            _norm("77", PETROLINA, "Lei Ordinária", "lei", "3010", date(2018, 4, 9),
                  "Regulamenta o serviço de mototáxi no Município de Petrolina."),
        ], seen)["77"]
        ec.records["state"] = store.upsert_records(conn, bahia, [
            _norm("lei:12000/2010", BAHIA, "Lei", "lei", "12.000", date(2010, 9, 14),
                  "Dispõe sobre o transporte rodoviário intermunicipal de passageiros."),
        ], seen)["lei:12000/2010"]
    ec.norms.update(norms_of(corpus, ec.records))

    _add_document(ec, "seed", ec.records["seed"], SEED_URL, SEED_PDF, "application/pdf")
    _extracted(ec, "seed", "ocr", "tesseract", 0.94, SEED000_PAGES)
    _add_document(ec, "revoked", ec.records["revoked"], "https://sapl.juazeiro.ba.leg.br/1996.pdf",
                  b"%PDF-1.4 lei 1996", "application/pdf")
    _extracted(ec, "revoked", "ocr", "tesseract", 0.41,
               ["LEI Nº 1.996/2008\nRegulamenta o transporte de passageiros em motocicletas, "
                "o chamado mototaxi, no Município de Juazeiro." + JOINED_TEXT])
    _add_document(ec, "decree", ec.records["decree"], "https://sapl.juazeiro.ba.leg.br/100.pdf",
                  b"%PDF-1.4 decreto 100", "application/pdf")
    _extracted(ec, "decree", "text", "pdfium", None,
               ["DECRETO Nº 100/2012\nFixa a tarifa do serviço de moto-táxi em R$ 5,00.",
                "Art. 2º Este Decreto entra em vigor na data de sua publicação."])
    _add_document(ec, "decree_anexo", ec.records["decree"],
                  "https://sapl.juazeiro.ba.leg.br/100-anexo.pdf", b"%PDF-1.4 anexo",
                  "application/pdf", role="anexo", title="Anexo I - Tabela de tarifas")
    _extracted(ec, "decree_anexo", "text", "pdfium", None, [HYPHENATED_TEXT])
    _add_document(ec, "failed", ec.records["failed"], "https://sapl.juazeiro.ba.leg.br/2300.pdf",
                  b"%PDF-1.4 encrypted", "application/pdf")
    _extracted(ec, "failed", "ocr", "pdfium", None, [], status="failed",
               error="the PDF is encrypted and cannot be read")
    _add_document(ec, "xss_comma", ec.records["xss"], XSS_DOCUMENT_URL, XSS_HTML, "text/html,")
    ec.documents["xss"] = ec.documents["xss_comma"]
    _add_version(ec, "xss", b"<html>" + XSS_TEXT.encode() + b"</html>", "text/html",
                 "https://sapl.juazeiro.ba.leg.br/2302.html")
    _extracted(ec, "xss", "html", "lxml", None, [XSS_TEXT])
    _add_document(ec, "petrolina", ec.records["petrolina"], "https://sapl.petrolina.pe.leg.br/77.pdf",
                  b"%PDF-1.4 petrolina", "application/pdf")
    _extracted(ec, "petrolina", "text", "pdfium", None,
               ["LEI Nº 3.010/2018\nO serviço de mototáxi será prestado por permissionários."])
    _add_document(ec, "state", ec.records["state"], "file:lei12000.html",
                  b"<html>lei 12000</html>", "text/html", origin=f"{IMPORT_FOLDER}/lei12000.html")
    _extracted(ec, "state", "html", "lxml", None,
               ["LEI Nº 12.000, DE 14 DE SETEMBRO DE 2010\nDispõe sobre o transporte "
                "rodoviário intermunicipal de passageiros, inclusive por moto-táxi."])

    relation = metadata.tables.get("sapl_relation")
    if relation is not None:
        with store.transaction() as conn:
            conn.execute(relation.insert(), [{
                "source_id": sapl, "native_id": "90", "norm_native_id": "1461",
                "record_id": ec.records["seed"], "related_native_id": "1200",
                "related_record_id": ec.records["revoked"], "tipo_sigla": "R",
                "descricao_ativa": "Revoga integralmente o(a)",
                "descricao_passiva": "Revogado(a) integralmente pelo(a)",
                "revoga_integralmente": True, "resumo": None, "seen_at": utcnow()}])
    if legal_life:
        add_legal_life(ec)
    if refresh:
        refresh_index(store)
    return ec


# -- a norm's legal life: records of one norm, citations, statuses (issue 9) -----------------

FOLDER_JUAZEIRO = "/home/importer/dumps/juazeiro"  # a LAI dump of the câmara, imported
# Lei 1.169/2014 alters seed 000; its scanned heading reads "1.165" (an OCR misreading the
# fake original cannot settle: the re-reading fails and is recorded as a problem).
ALTERING_TEXT = (
    "LEI MUNICIPAL Nº 1.165, DE 02 DE ABRIL DE 2014\nAltera a Lei nº 2.199, de 27 de junho de "
    "2011.\nO PREFEITO MUNICIPAL DE JUAZEIRO faço saber que a Câmara Municipal aprovou e eu "
    "sanciono a seguinte Lei:\nArt. 1º O art. 10 da Lei nº 2.199, de 27 de junho de 2011, passa "
    "a vigorar com a seguinte redação:\n\"Art. 10. O sistema tarifário será fixado por Decreto "
    "do Chefe do Poder Executivo.\"\nArt. 2º Esta Lei entra em vigor na data de sua publicação.")
ALTERS_SENTENCE = ("O art. 10 da Lei nº 2.199, de 27 de junho de 2011, passa a vigorar com a "
                   "seguinte redação:")
# Two decrees that revoke each other (a cycle the quality page reports); one of them also
# revokes an article of decree 100.
XSS_CITATION = "<img src=x onerror=alert('cita')>"
DECREE_200_TEXT = ("DECRETO Nº 200/2015\nDispõe sobre o horário do comércio.\nArt. 1º Fica "
                   "revogado o Decreto nº 201, de 10 de março de 2015.\nArt. 2º Fica revogado o "
                   "art. 2º do Decreto nº 100, de 1º de março de 2012.\nArt. 3º Fica revogada a "
                   f"Lei nº 2.301, de 2 de junho de 2012 {XSS_CITATION}.\nArt. 4º Este Decreto "
                   "entra em vigor na data de sua publicação.")
DECREE_201_TEXT = ("DECRETO Nº 201/2015\nDispõe sobre o horário das feiras livres.\nArt. 1º "
                   "Fica revogado o Decreto nº 200, de 2 de março de 2015.\nArt. 2º Fica "
                   "revogado o Decreto nº 201, de 10 de março de 2015.\nArt. 3º Este "
                   "Decreto entra em vigor na data de sua publicação.")
SEED_FOLDER_TEXT = ("LEI Nº 2.199, DE 27 DE JUNHO DE 2011\nDispõe sobre o serviço de transporte "
                    "individual de passageiros no âmbito do Município de Juazeiro.")


def add_legal_life(ec: ExplorerCorpus) -> None:
    """Records, texts and vínculos that give the explorer corpus a legal life, then the real
    enrichment (locleg.enrich.run.enrich) over it:

    - seed 000 has a second record, from a LAI dump imported as a folder, typed generically
      ("Norma Jurídica") and dated by its publication: it stands alone until its heading
      types it, then joins seed 000, whose earlier norm (ec.norms["merged"]) now redirects;
      the two records disagree on the type label and the date;
    - seed 000 revokes Lei 1.996/2008 (by its text, Art. 31, and by SAPL's vínculo), cites
      federal Lei 12.009/2009 and the LRF; Lei 1.169/2014 alters seed 000;
    - decrees 200 and 201/2015 revoke each other, 200 revokes art. 2 of decree 100 and, in a
      sentence that carries markup, Lei 2.301/2012; and
      201 "revokes" itself (a slip of the text: flagged, no evidence of its status);
    - a resolução "s/n" stands alone, unmatched.
    """
    from locleg.enrich.run import enrich

    corpus, store = ec.corpus, ec.corpus.store
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    dump = store.ensure_source(JUAZEIRO, "folder", f"file://{FOLDER_JUAZEIRO}")
    seen = utcnow() - timedelta(minutes=30)
    with store.transaction() as conn:
        ids = store.upsert_records(conn, sapl, [
            _norm("1600", JUAZEIRO, "Lei Ordinária", "lei", "1169", date(2014, 4, 2),
                  "Altera a Lei nº 2.199, de 27 de junho de 2011."),
            _norm("1700", JUAZEIRO, "Decreto", "decreto", "200", date(2015, 3, 2),
                  "Dispõe sobre o horário do comércio."),
            _norm("1701", JUAZEIRO, "Decreto", "decreto", "201", date(2015, 3, 10),
                  "Dispõe sobre o horário das feiras livres."),
            {**_norm("1702", JUAZEIRO, "Resolução", "resolucao", "s/n", date(2013, 8, 1),
                     "Aprova o regimento interno da Câmara Municipal."), "number": "s/n"},
        ], seen)
        ec.records.update({"altering": ids["1600"], "decree200": ids["1700"],
                           "decree201": ids["1701"], "sn": ids["1702"]})
        ec.records["seed_dump"] = store.upsert_records(conn, dump, [{
            "native_id": "leis/lei_2199_2011.html", "jurisdiction_code": JUAZEIRO,
            "type_raw": "Norma Jurídica", "type_normalized": "outro", "number": "2.199",
            "year": 2011, "date": date(2011, 7, 1), "ementa": None, "url": None}],
            seen)["leis/lei_2199_2011.html"]
    ec.norms.update(norms_of(corpus, {k: ec.records[k] for k in (
        "altering", "decree200", "decree201", "sn")}))
    ec.norms["merged"] = norms_of(corpus, {"x": ec.records["seed_dump"]})["x"]

    _add_document(ec, "seed_dump", ec.records["seed_dump"], "file:leis/lei_2199_2011.html",
                  b"<html>lei 2199</html>", "text/html",
                  origin=f"{FOLDER_JUAZEIRO}/leis/lei_2199_2011.html")
    _extracted(ec, "seed_dump", "html", "lxml", None, [SEED_FOLDER_TEXT])
    _add_document(ec, "altering", ec.records["altering"],
                  "https://sapl.juazeiro.ba.leg.br/1169.pdf", b"%PDF-1.4 lei 1169",
                  "application/pdf")
    _extracted(ec, "altering", "ocr", "tesseract", 0.88, [ALTERING_TEXT])
    for name, text in (("decree200", DECREE_200_TEXT), ("decree201", DECREE_201_TEXT)):
        _add_document(ec, name, ec.records[name], f"https://sapl.juazeiro.ba.leg.br/{name}.pdf",
                      f"%PDF-1.4 {name}".encode(), "application/pdf")
        _extracted(ec, name, "text", "pdfium", None, [text])
    enrich(corpus)


# -- big texts: what made one search hold a CPU for minutes (issue 8) -------------------------

BIG_TEXT_WORD = "moto"
_BIG_SENTENCES = (
    "Art. {n}º O serviço de moto-táxi será prestado por moto registrada no Município.",
    "§ 1º A moto usada no transporte de passageiros terá placa vermelha e baú de moto-frete.",
    "§ 2º O condutor da moto portará capacete, colete e a licença de mototaxista.",
    "Parágrafo único. Fica proibido o transporte de carga na moto, salvo moto-frete.",
    "I - a tarifa da moto será fixada por decreto, ouvido o conselho de moto-táxi;",
)


def big_text(chars: int, seed: int = 0) -> str:
    """Legal-looking text of about `chars` characters in which the word "moto" occurs
    every few words, as in a long regulation of the moto-táxi service."""
    parts, size, n = [], 0, seed * 100_000
    while size < chars:
        n += 1
        sentence = _BIG_SENTENCES[n % len(_BIG_SENTENCES)].format(n=n)
        parts.append(sentence)
        size += len(sentence) + 1
    return "\n".join(parts)


def build_big_text_corpus(corpus: Corpus, texts: int = 8, chars: int = 1_000_000,
                          giant_chars: int = 21_000_000) -> ExplorerCorpus:
    """Norms whose texts are big and full of "moto": `texts` of about `chars` characters
    and one of `giant_chars`, each stored as one page (as an RTF or a plain text file gives
    one page), plus a small norm; the index is refreshed at the end."""
    ec = ExplorerCorpus(corpus)
    store = corpus.store
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    sizes = {f"big{i}": chars for i in range(texts)}
    if giant_chars:
        sizes["giant"] = giant_chars
    with store.transaction() as conn:
        ids = store.upsert_records(conn, sapl, [
            _norm(name, JUAZEIRO, "Decreto", "decreto", str(100 + i),
                  date(2015, 1, 1) + timedelta(days=i),
                  f"Regulamenta o serviço de moto-táxi ({name}).")
            for i, name in enumerate(sizes)
        ] + [_norm("small", JUAZEIRO, "Lei Ordinária", "lei", "1", date(2014, 1, 1),
                   "Dispõe sobre a moto de entrega.")], utcnow())
    ec.records.update(ids)
    ec.norms.update(norms_of(corpus, ids))
    for i, (name, size) in enumerate(sizes.items()):
        text = big_text(size, seed=i)
        _add_document(ec, name, ids[name], f"https://sapl.juazeiro.ba.leg.br/{name}.rtf",
                      text.encode()[:4096], "application/rtf")
        _extracted(ec, name, "plain", "striprtf", None, [text])
    _add_document(ec, "small", ids["small"], "https://sapl.juazeiro.ba.leg.br/small.txt",
                  b"moto", "text/plain")
    _extracted(ec, "small", "plain", "text", None, ["A moto de entrega leva a carga."])
    refresh_index(store)
    return ec


# -- cells a spreadsheet would run as formulas (issue 8, item 13) ---------------------------

FORMULAS = ["=HYPERLINK(\"http://evil.example\",\"x\")", "+1+1", "-2+3", "@SUM(A1)",
            "\tcmd", "\rcmd"]


def add_formula_norm(corpus: Corpus) -> int:
    """A norm of Juazeiro whose ementa, type, number and URL start formulas ("planilha")."""
    store = corpus.store
    sapl = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.juazeiro.ba.leg.br")
    with store.transaction() as conn:
        record_id = store.upsert_records(conn, sapl, [{
            "native_id": "formula", "jurisdiction_code": JUAZEIRO, "type_raw": "@SUM(A1)",
            "type_normalized": "lei", "number": "-2+3", "year": 2020, "date": None,
            "ementa": "=HYPERLINK(\"http://evil.example\",\"planilha\")",
            "url": "+cmd|' /C calc'!A0"}], utcnow())["formula"]
    refresh_index(store)
    return norms_of(corpus, {"formula": record_id})["formula"]



class LiveServer:
    """The explorer served by uvicorn on 127.0.0.1 in a thread, for the length of a `with`."""

    def __init__(self, corpus: Corpus, **app_options) -> None:
        import socket

        from locleg.web import create_app

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.app = create_app(corpus.settings, **app_options)
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        import threading
        import time

        import uvicorn

        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the explorer did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)
