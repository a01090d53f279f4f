"""Citation resolution: does a citation name the right norm of the corpus, and only that one?

Over the hand-labelled citations (tests/data/citations): each labelled text becomes the
texto integral of its citing norm in a fresh corpus; every municipal or state norm a label
names with a number is put in the corpus too (the norms "present"), next to a decoy with the
same number in another family. The real pipeline enriches the corpus; each labelled citation
is then checked: resolved to the norm it names (right), to another (wrong), or left unresolved.
Federal norms are not held by a local corpus: they resolve to URNs, not counted here.

    .venv/bin/python bench/enrich_resolution.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import select  # noqa: E402
from tests.citation_labels import load  # noqa: E402

from locleg.corpus import init_corpus  # noqa: E402
from locleg.enrich.run import enrich  # noqa: E402
from locleg.store import utcnow  # noqa: E402
from locleg.store.schema import citation, jurisdiction, record  # noqa: E402

TARGET = 0.95
DECOY = {"lei": "decreto", "decreto": "lei", "lei.complementar": "lei",
         "resolucao": "decreto"}


def main() -> None:
    texts = load()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = init_corpus(Path(tmp) / "corpus")
        store = corpus.store
        with store.engine.connect() as conn:
            codes = dict(conn.execute(select(jurisdiction.c.lexml_label,
                                             jurisdiction.c.ibge_code)).all())
        rows: list[dict] = []
        wanted: dict[tuple, tuple] = {}  # (text, label) -> the key of the norm it names
        for t_index, lt in enumerate(texts):
            code = codes[lt.citing.lexml_label]
            state = codes[";".join(lt.citing.lexml_label.split(";")[:2])]
            if lt.own:
                rows.append((f"t{t_index}", code, lt.own.family, lt.own.number, lt.own.year,
                             lt.text))
            for l_index, label in enumerate(lt.labels):
                if label.sphere not in ("municipal", "estadual") or not label.number \
                        or not label.year:
                    continue
                if label.sphere == "municipal" and lt.citing.level != "municipal":
                    continue  # which town's law a state's text means cannot be known
                where = code if label.sphere == "municipal" else state
                key = (where, label.family, label.number, label.year)
                wanted[(t_index, l_index)] = key
                rows.append((f"k{key}", where, label.family, label.number, label.year, None))
                rows.append((f"d{key}", where, DECOY.get(label.family, "portaria"),
                             label.number, label.year, None))
        sources = {}
        text_records: dict[int, int] = {}
        key_records: dict[tuple, int] = {}
        for native, code, family, number, year, text in dict.fromkeys(rows):
            if code not in sources:
                sources[code] = store.ensure_source(code, "sapl", f"https://{code}.example")
            with store.transaction() as conn:
                got = store.upsert_records(conn, sources[code], [{
                    "native_id": native, "jurisdiction_code": code, "type_raw": family,
                    "type_normalized": family, "number": number, "year": year, "date": None,
                    "ementa": None, "url": None}], utcnow())
            if native.startswith("k"):
                key_records[(code, family, number, year)] = got[native]
            if text is not None:
                text_records[int(native[1:])] = got[native]
                blob = corpus.blobs.put(text.encode())
                with store.transaction() as conn:
                    docs = store.ensure_documents(conn, [{"record_id": got[native],
                                                          "url": f"file:{native}",
                                                          "role": "texto_integral"}])
                    [version_id] = store.add_versions(conn, [{
                        "document_id": docs[(got[native], f"file:{native}")]["id"],
                        "sha256": blob.sha256, "size": blob.size, "media_type": "text/plain",
                        "fetched_at": utcnow(), "origin": f"file:{native}"}])
                store.save_extraction(version_id, {"status": "extracted", "method": "plain",
                                                   "pages": 1, "chars": len(text)},
                                      [{"number": 1, "method": "plain", "text": text}])
        started = time.perf_counter()
        enrich(corpus, reread=False)
        seconds = time.perf_counter() - started
        with store.engine.connect() as conn:
            norm_of = dict(conn.execute(select(record.c.id, record.c.norm_id)).all())
            found = {(r.norm_id, r.start, r.end): r.target_norm_id for r in conn.execute(
                select(citation.c.norm_id, citation.c.start, citation.c.end,
                       citation.c.target_norm_id))}
        corpus.close()
    outcome: Counter = Counter()
    for (t_index, l_index), key in wanted.items():
        if t_index not in text_records:
            continue
        label = texts[t_index].labels[l_index]
        got = found.get((norm_of[text_records[t_index]], label.start, label.end), "missing")
        if got == "missing":
            outcome["not extracted"] += 1
        elif got is None:
            outcome["unresolved"] += 1
        elif got == norm_of[key_records[key]]:
            outcome["right"] += 1
        else:
            outcome["wrong"] += 1
    total = sum(outcome.values())
    print(f"{total} labelled citations of municipal and state norms present in the corpus "
          f"(each beside a decoy of the same number); enriched in {seconds:.2f} s")
    print(f"  resolved to the right norm: {outcome['right']} ({outcome['right'] / total:.3f}; "
          f"target {TARGET})")
    print(f"  to a wrong norm: {outcome['wrong']}; left unresolved: {outcome['unresolved']}; "
          f"not extracted: {outcome['not extracted']}")


if __name__ == "__main__":
    main()
