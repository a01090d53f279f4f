"""A synthetic corpus for the explorer and search figures, written straight into SQLite.

N norms over 5,000 jurisdictions (Zipf-skewed sizes), 8 types, text lengths like municipal
laws (median ~400 words, long tail to 40,000), 30 % with OCR-like noise, a ~20k-word
Portuguese legal vocabulary with accents. Rows go in with bulk inserts (not the per-batch
import path), then the search index is built once with locleg.search.rebuild_index. The
corpus is cached under bench/out/explorer-N/ and reused by later runs.

With --texts real, each norm's ementa and body are instead those of a real municipal norm
(the 6,563 of the real relevance set, tests/data/search_real), drawn at random, a tenth of
its lines left out, with the same OCR-like damage on 30 %: the words then stand in as many
norms as they do in real legislation (taxa in 2.6 % of the norms, iluminação in 1.4 %,
prefeitura in 33 %), where the synthetic vocabulary puts the 300 words of CORE in 30-98 % of
them and most words people search for in none. Query costs at 1M depend on exactly that. The two
real places (Feira de Santana, Maricá) are renamed in each copy after its own jurisdiction,
else they would stand in every norm; as many norms are cited by others as in the real set
once enriched (authority). Cached under bench/out/explorer-N-real/.

    .venv/bin/python bench/explorer_corpus.py --norms 100000 [--texts real]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import math
import random
import re
import shutil
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
JURISDICTIONS = 5000
ZIPF_S = 0.7  # the largest jurisdiction gets ~2.5 % of the norms (~25k at 1M)
TYPES = [("Lei Ordinária", "lei", 40), ("Decreto", "decreto", 30), ("Portaria", "portaria", 10),
         ("Resolução", "resolucao", 7), ("Lei Complementar", "lei.complementar", 5),
         ("Decreto Legislativo", "decreto.legislativo", 4),
         ("Emenda à Lei Orgânica", "emenda.lei.organica", 1), ("Ato", "outro", 3)]
PAGE_WORDS = 450
STAMP = "2026-11-29 12:00:00.000000"

# The common core of municipal legislation, most frequent first.
CORE = """de o a do da e em para no na os as que dos das por com ao se art municipal
município lei serviço público poder executivo prefeito câmara disposições secretaria
parágrafo único inciso vigor data publicação revogadas contrário fica ficam autorizado
dispõe sobre providências outras dá cria institui altera redação programa conselho
orçamento crédito suplementar abertura valor recursos dotação orçamentária exercício
financeiro despesa receita tributária imposto taxa contribuição iluminação pública
servidores cargo comissão provimento efetivo remuneração vencimento gratificação adicional
licença férias aposentadoria previdência regime jurídico estatuto magistério educação
ensino escola saúde unidade hospital atenção básica assistência social família criança
adolescente idoso pessoa deficiência habitação interesse urbano rural zona área
loteamento parcelamento solo uso ocupação plano diretor meio ambiente licenciamento
ambiental resíduos sólidos coleta limpeza água esgoto saneamento drenagem transporte
coletivo trânsito via logradouro rua avenida praça denominação bairro distrito sede
concessão permissão autorização licitação contrato convênio consórcio parceria termo
fomento colaboração organização sociedade civil entidade utilidade declarada doação
imóvel bem patrimônio alienação desafetação cessão comodato locação aquisição
desapropriação indenização multa infração penalidade fiscalização vigilância sanitária
alvará funcionamento estabelecimento comércio feira mercado ambulante turismo cultura
esporte lazer evento festa calendário oficial comemoração semana dia dezembro janeiro
fevereiro março abril maio junho julho agosto setembro outubro novembro regulamento
regulamenta decreto portaria resolução nomeia exonera designa servidor funções
atribuições competência órgão estrutura administrativa organizacional departamento
divisão coordenação diretoria assessoria gabinete procuradoria controladoria ouvidoria
transparência acesso informação dados pessoais proteção segurança guarda civil defesa
emergência calamidade situação anormal decretada estado""".split()

_SYLLABLES = ("ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo ga ge gi go la le li lo "
              "lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta "
              "te ti to tu va ve vi vo cha che chi lha lhe nha nhe pra pre pro tra tre tri").split()
_ENDINGS = ("ção ções ário ária ório ória ência ância ível ável ista mento mente idade "
            "ico ica ado ada ido ida oso osa eiro eira al ar er ir ês ão ões").split()


def vocabulary(size: int = 20_000, seed: int = 7) -> list[str]:
    """CORE first (the most frequent words), then pseudo-Portuguese words with accents."""
    rng = random.Random(seed)
    words = list(dict.fromkeys(CORE))
    seen = set(words)
    while len(words) < size:
        stem = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))
        word = stem + rng.choice(_ENDINGS)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def _zipf_weights(n: int, s: float) -> list[float]:
    return list(itertools.accumulate(1 / (r ** s) for r in range(1, n + 1)))


_NOISE = {"l": "1", "o": "0", "e": "c", "m": "rn", "ã": "a", "ç": "c", "é": "e", "í": "i",
          "a": "à", "u": "ú", "i": "l"}


def _noisy(word: str, rng: random.Random) -> str:
    r = rng.random()
    if r < 0.4:
        i = rng.randrange(len(word))
        return word[:i] + _NOISE.get(word[i], word[i]) + word[i + 1:]
    if r < 0.6:
        return word.upper()
    if r < 0.8:
        return word + rng.choice(("|", ";", "'", "”"))
    return rng.choice(("EEB", "Ú)", "|", "Ss", "tm os", "À", "v V"))


_MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro")


def _opening(rng: random.Random, type_raw: str, number: int, signed: str) -> list[str]:
    """What a law's first page says before its body: its heading, the preamble's citations
    (the Lei Orgânica, a federal law), and, for some, the norm it regulates or revokes."""
    year, month, day = (int(x) for x in signed.split("-"))
    dotted = f"{number:,}".replace(",", ".")
    lines = [f"{type_raw.upper()} Nº {dotted}, DE {day} DE {_MONTHS[month - 1].upper()} DE {year}",
             "O PREFEITO MUNICIPAL, no uso de suas atribuições legais, com fundamento no art. "
             f"{rng.randint(10, 90)}, inciso {rng.choice('IVX')}, da Lei Orgânica do Município "
             f"e na Lei Federal nº {rng.choice(('8.666', '12.009', '4.320', '13.019'))}, de "
             f"{rng.randint(1, 28)} de {rng.choice(_MONTHS)} de {rng.randint(1964, 2014)}:"]
    if number > 1 and rng.random() < 0.4:
        lines.append(f"Art. 1º Fica revogada a Lei nº {rng.randint(1, number - 1)}, de "
                     f"{rng.randint(1, 28)} de {rng.choice(_MONTHS)} de "
                     f"{rng.randint(1950, year)}.")
    if type_raw == "Decreto" and rng.random() < 0.5:
        lines.append(f"Regulamenta a Lei nº {rng.randint(1, 3000)}/{rng.randint(1950, year)}.")
    return lines


def _text(rng: random.Random, vocab: list[str], cw: list[float], n_words: int,
          noisy: bool, opening: list[str] | None = None) -> list[str]:
    """Pages of text: articles, line breaks, and, when noisy, OCR-like damage."""
    picked = rng.choices(vocab, cum_weights=cw, k=n_words)
    if noisy:
        for i in range(0, n_words, 12):
            j = i + rng.randrange(12)
            if j < n_words:
                picked[j] = _noisy(picked[j], rng)
    if rng.random() < 0.05:  # a few norms about moto-táxi, hyphenated as in seed 000
        picked[rng.randrange(n_words)] = "moto-táxi"
    pages, article = [], 1
    for start in range(0, n_words, PAGE_WORDS):
        lines = []
        chunk = picked[start:start + PAGE_WORDS]
        for k in range(0, len(chunk), 12):
            line = " ".join(chunk[k:k + 12])
            if k % 60 == 0:
                line = f"Art. {article}º {line}"
                article += 1
            lines.append(line)
        pages.append("\n".join(lines))
    if opening:
        pages[0] = "\n".join(opening) + "\n" + pages[0]
    return pages


# The two places of the real set, named in their norms' texts: each copy names its own.
_REAL_PLACES = re.compile(r"feira\s+de\s+santana|maricá", re.IGNORECASE)


def _placed(text: str, place: str) -> str:
    return _REAL_PLACES.sub(lambda m: place.upper() if m[0].isupper() else place, text)


def _real_text(rng: random.Random, body: str, noisy: bool, opening: list[str]) -> list[str]:
    """Pages of a real norm's body, a tenth of its lines left out (so that no two norms
    drawn from the same one are the same), damaged like OCR when noisy."""
    lines = [line for line in body.splitlines() if line.strip() and rng.random() >= 0.1]
    words = [w for line in (lines or body.splitlines()[:1]) for w in line.split() + ["\n"]]
    if noisy:
        for i in range(0, len(words), 12):
            j = i + rng.randrange(12)
            if j < len(words) and words[j] != "\n":
                words[j] = _noisy(words[j], rng)
    pages = []
    for start in range(0, max(len(words), 1), PAGE_WORDS):
        chunk = " ".join(words[start:start + PAGE_WORDS])
        pages.append("\n".join(part.strip() for part in chunk.split("\n") if part.strip()))
    pages[0] = "\n".join(opening) + "\n" + pages[0]
    return pages


# How many other norms cite a norm, in the real set once enriched (Feira de Santana and
# Maricá, 6,563 norms): 89 % none, 7.5 % one, 2.4 % two or three, 0.8 % four to seven, 0.4 %
# eight or more. The search ranks by it (authority), at a cost.
_CITED = ((0.890, 0), (0.9645, 1), (0.9885, 2), (0.9967, 4), (1.0, 8))


def _cited_by(rng: random.Random) -> int:
    draw = rng.random()  # below 1.0
    return next(n for share, n in _CITED if draw < share)


def real_norms() -> list[tuple[str, str]]:
    """(ementa, body) of each norm of the real relevance set that has both."""
    path = ROOT / "tests" / "data" / "search_real" / "norms.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        norms = [json.loads(line) for line in f]
    return [(n["ementa"], n["text"]) for n in norms if n.get("ementa") and n.get("text")]


def _length(rng: random.Random) -> int:
    # Lognormal: median 400 words, a long tail clipped at 40,000.
    return max(20, min(40_000, int(math.exp(rng.gauss(math.log(400), 0.9)))))


def build(n_norms: int, folder: Path, seed: int = 1, texts: str = "synthetic") -> Path:
    """Create (or reuse) the corpus folder with N norms and a built search index; `texts`:
    "synthetic" (the Zipf vocabulary) or "real" (real norms' ementas and bodies)."""
    sys.path.insert(0, str(ROOT / "src"))
    from locleg.corpus import init_corpus, open_corpus
    from locleg.search import rebuild_index, textindex

    marker = folder / "built.json"
    if marker.exists():
        _ensure_index(folder, marker)
        return folder
    if folder.exists():
        shutil.rmtree(folder)
    started = time.monotonic()
    corpus = init_corpus(folder)
    corpus.close()
    rng = random.Random(seed)
    vocab = vocabulary()
    cw = _zipf_weights(len(vocab), 1.0)
    real = real_norms() if texts == "real" else []
    db = sqlite3.connect(folder / "corpus.db")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("PRAGMA cache_size=-200000")
    codes = [c for (c,) in db.execute(
        "SELECT ibge_code FROM jurisdiction WHERE level = 'municipal' ORDER BY ibge_code")]
    places = dict(db.execute("SELECT ibge_code, name FROM jurisdiction"))
    states = [c for (c,) in db.execute(
        "SELECT ibge_code FROM jurisdiction WHERE level != 'municipal' ORDER BY ibge_code")]
    chosen = states + rng.sample(codes, JURISDICTIONS - len(states))
    rng.shuffle(chosen)
    jcw = _zipf_weights(len(chosen), ZIPF_S)
    db.executemany(
        "INSERT INTO source (id, jurisdiction_code, platform, base_url, settings, state, "
        "created_at, last_run_at, last_success_at) VALUES (?, ?, 'sapl', ?, '{}', '{}', ?, ?, ?)",
        [(i + 1, code, f"https://sapl.{code}.example", STAMP, STAMP, STAMP)
         for i, code in enumerate(chosen)])
    source_of = {code: i + 1 for i, code in enumerate(chosen)}
    type_cw = list(itertools.accumulate(w for _, _, w in TYPES))
    counters: dict[int, int] = {}
    batch = 10_000
    for start in range(0, n_norms, batch):
        records, norms, docs, versions, extractions, pages = [], [], [], [], [], []
        for norm_id in range(start + 1, min(start + batch, n_norms) + 1):
            code = rng.choices(chosen, cum_weights=jcw)[0]
            counters[code] = counters.get(code, 0) + 1
            type_raw, type_norm, _ = rng.choices(TYPES, cum_weights=type_cw)[0]
            year = min(2025, 1950 + int(75 * rng.random() ** 0.4))
            signed = f"{year:04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
            if real:
                ementa, body = (_placed(t, places[code]) for t in rng.choice(real))
            else:
                ementa_words = rng.choices(vocab[:600], cum_weights=cw[:600],
                                           k=rng.randint(8, 25))
                ementa = "Dispõe sobre " + " ".join(ementa_words) + " e dá outras providências."
            noisy = rng.random() < 0.30
            failed = rng.random() < 0.02
            # One record per norm, with the norm's own id, as migration 0006 leaves a corpus.
            records.append((norm_id, source_of[code], code, str(norm_id), norm_id, type_raw,
                            type_norm, str(counters[code]), year, signed, ementa, STAMP,
                            STAMP, STAMP))
            key = f"{code}|{type_norm}|{counters[code]}|{year}" if type_norm != "outro" \
                else None
            norms.append((norm_id, code, key, type_norm, str(counters[code]), type_raw,
                          type_norm, str(counters[code]), year, signed, ementa,
                          json.dumps({"ementa": {"record": norm_id}}), STAMP, STAMP,
                          _cited_by(rng) if real else 0))
            sha = hashlib.sha256(str(norm_id).encode()).hexdigest()
            docs.append((norm_id, norm_id, "texto_integral",
                         f"https://sapl.{code}.example/{norm_id}.pdf", norm_id, STAMP))
            versions.append((norm_id, norm_id, sha, 1000, "application/pdf", STAMP,
                             f"https://sapl.{code}.example/{norm_id}.pdf"))
            if failed:
                extractions.append((norm_id, "failed", None, "pdfium", None, 0, 0,
                                    "the PDF is damaged", STAMP))
                continue
            opening = _opening(rng, type_raw, counters[code], signed)
            pages_of = _real_text(rng, body, noisy, opening) if real else \
                _text(rng, vocab, cw, _length(rng), noisy, opening)
            method = "ocr" if noisy else "text"
            confidence = round(rng.uniform(0.55, 0.97), 3) if noisy else None
            extractions.append((norm_id, "extracted", method,
                                "tesseract" if noisy else "pdfium", confidence, len(pages_of),
                                sum(len(t) for t in pages_of), None, STAMP))
            pages += [(norm_id, k, method, confidence, t) for k, t in enumerate(pages_of, 1)]
        db.executemany(
            "INSERT INTO norm (id, jurisdiction_code, key, family, number_key, type_raw, "
            "type_normalized, number, year, date, ementa, provenance, records, "
            "first_seen_at, changed_at, cited_by) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)", norms)
        db.executemany(
            "INSERT INTO record (id, source_id, jurisdiction_code, native_id, norm_id, "
            "type_raw, type_normalized, number, year, date, ementa, first_seen_at, "
            "last_seen_at, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            records)
        db.executemany(
            "INSERT INTO document (id, record_id, role, url, current_version_id, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)", docs)
        db.executemany(
            "INSERT INTO version (id, document_id, sha256, size, media_type, fetched_at, "
            "origin) VALUES (?, ?, ?, ?, ?, ?, ?)", versions)
        db.executemany(
            "INSERT INTO extraction (version_id, status, method, backend, confidence, pages, "
            "chars, error, extracted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", extractions)
        db.executemany(
            "INSERT INTO page (version_id, number, method, confidence, text) "
            "VALUES (?, ?, ?, ?, ?)", pages)
        db.commit()
        print(f"  {min(start + batch, n_norms):,} norms written "
              f"({time.monotonic() - started:,.0f} s)", flush=True)
    db.execute("DELETE FROM search_queue")
    db.execute("DELETE FROM enrich_queue")  # the enrichment bench queues what it measures
    db.commit()
    db.close()
    loaded = time.monotonic() - started
    corpus = open_corpus(folder)
    last = [0.0]

    def progress(done: int, total: int) -> None:
        if time.monotonic() - last[0] > 30:
            last[0] = time.monotonic()
            print(f"  indexed {done:,} / {total:,} ({time.monotonic() - started:,.0f} s)",
                  flush=True)

    rebuild_index(corpus.store, on_progress=progress)
    index_bytes = textindex.for_store(corpus.store, writable=True).size()
    corpus.close()
    indexed = time.monotonic() - started - loaded
    size = (folder / "corpus.db").stat().st_size
    marker.write_text(json.dumps({"norms": n_norms, "jurisdictions": JURISDICTIONS,
                                  "texts": texts,
                                  "load_s": round(loaded), "index_s": round(indexed),
                                  "tantivy_index_s": round(indexed), "db_bytes": size,
                                  "index_bytes": index_bytes}))
    print(f"built {n_norms:,} norms in {loaded:,.0f} s + index {indexed:,.0f} s; "
          f"database {size / 1e9:,.1f} GB", flush=True)
    return folder


def _ensure_index(folder: Path, marker: Path) -> None:
    """A corpus built by an older checkout (its FTS5 index in the database, or a search index
    of another schema, which this checkout would read as empty): migrate it and build this
    checkout's search index, once, timing it into the marker."""
    from locleg.corpus import open_corpus
    from locleg.search import rebuild_index, textindex

    built = json.loads(marker.read_text())
    if "tantivy_index_s" in built and textindex.is_current(folder / textindex.INDEX_FOLDER):
        return
    started = time.monotonic()
    corpus = open_corpus(folder)  # migrations first (0009 drops the FTS5 table)
    migrated = time.monotonic() - started
    index = textindex.for_store(corpus.store, writable=True)
    if index.searcher().num_docs == 0:
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if time.monotonic() - last[0] > 30:
                last[0] = time.monotonic()
                print(f"  indexed {done:,} / {total:,} "
                      f"({time.monotonic() - started:,.0f} s)", flush=True)

        rebuild_index(corpus.store, on_progress=progress)
    corpus.close()
    built.update(migrate_s=round(migrated), tantivy_index_s=round(time.monotonic() - started
                                                                   - migrated),
                 index_bytes=index.size())
    marker.write_text(json.dumps(built))
    print(f"search index of {built['norms']:,} norms built in {built['tantivy_index_s']:,} s; "
          f"{built['index_bytes'] / 1e9:,.1f} GB", flush=True)


def corpus_folder(n_norms: int, texts: str = "synthetic") -> Path:
    return OUT / (f"explorer-{n_norms}" + ("-real" if texts == "real" else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--norms", type=int, default=100_000)
    parser.add_argument("--texts", choices=("synthetic", "real"), default="synthetic")
    args = parser.parse_args()
    build(args.norms, corpus_folder(args.norms, args.texts), texts=args.texts)


if __name__ == "__main__":
    main()
