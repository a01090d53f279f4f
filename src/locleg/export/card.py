"""The figures of a release, gathered from its rows as they are written, and its dataset
card (README.md): what it is, counts per UF and jurisdiction, coverage, extraction quality,
every column's meaning, the licence note and how to load it."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pyarrow.compute as pc

from .tables import TABLES, TableSpec

OCR_METHODS = ("ocr", "mixed")


# What a reader must know of the values in each text format (Parquet keeps them exact).
_VALUES = {
    "jsonl": "Values are exactly as stored.",
    "csv": "Values are as stored, except one rule for spreadsheets: a text cell starting "
           "with `=`, `+`, `-`, `@`, a tab or a carriage return (a formula to Excel, "
           "LibreOffice and Google Sheets) has a single quote `'` put before it, so that "
           "opening the file runs nothing. Drop that one leading quote from such cells to get "
           "the exact value, or read the Parquet or JSON lines release, which keep it.",
}


def _counts(column: pa.ChunkedArray) -> dict:
    return {str(item["values"]) if item["values"] is not None else "null": item["counts"]
            for item in pc.value_counts(column).to_pylist()}


def _add(into: dict, counts: dict) -> None:
    for k, v in counts.items():
        into[k] = into.get(k, 0) + v


def gather(stats: dict, table: str, batch: pa.RecordBatch) -> None:
    """Add a batch's figures to `stats[table]` (plain JSON values, kept across resumes)."""
    batch = pa.Table.from_batches([batch])
    s = stats.setdefault(table, {"rows": 0})
    s["rows"] += batch.num_rows
    _add(s.setdefault("by_uf", {}), _counts(batch.column("uf")))
    if table == "norms":
        by_code = s.setdefault("by_jurisdiction", {})
        places = batch.group_by(["jurisdiction_code", "jurisdiction", "uf"]).aggregate(
            [([], "count_all")])
        for row in places.to_pylist():
            entry = by_code.setdefault(str(row["jurisdiction_code"]), {
                "name": row["jurisdiction"], "uf": row["uf"], "norms": 0})
            entry["norms"] += row["count_all"]
        _add(s.setdefault("status", {}), _counts(batch.column("status")))
        _add(s.setdefault("type", {}), _counts(batch.column("type")))
        s["removed"] = s.get("removed", 0) + batch.num_rows \
            - batch.column("removed_at").null_count
        years = pc.min_max(batch.column("year")).as_py()
        for bound, pick in (("min", min), ("max", max)):
            if years[bound] is not None:
                known = s.get(f"year_{bound}")
                s[f"year_{bound}"] = years[bound] if known is None else pick(known,
                                                                             years[bound])
    elif table == "documents":
        s["fetched"] = s.get("fetched", 0) + batch.num_rows \
            - batch.column("current_version_id").null_count
        s["bytes"] = s.get("bytes", 0) + (pc.sum(batch.column("bytes")).as_py() or 0)
    elif table == "extractions":
        _add(s.setdefault("status", {}), _counts(batch.column("status")))
        _add(s.setdefault("method", {}), _counts(batch.column("method")))
        s["pages"] = s.get("pages", 0) + (pc.sum(batch.column("pages")).as_py() or 0)
        confidence = batch.column("confidence").drop_null()
        if len(confidence):
            deciles = pc.min_element_wise(pc.floor(pc.multiply(confidence, 10)), 9).cast(
                pa.int64())
            _add(s.setdefault("confidence_deciles", {}), _counts(deciles))
    elif table == "texts":
        s["chars"] = s.get("chars", 0) + (pc.sum(pc.utf8_length(batch.column("text"))).as_py()
                                          or 0)
    elif table == "citations":
        s["resolved"] = s.get("resolved", 0) + batch.num_rows \
            - batch.column("to_norm_id").null_count
        _add(s.setdefault("kind", {}), _counts(batch.column("kind")))


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "—"


def _n(value: int) -> str:
    return f"{value:,}"


def _schema_section(spec: TableSpec) -> list[str]:
    lines = [f"### `{spec.name}/`", "", spec.about[0].upper() + spec.about[1:] + ".", "",
             "| column | type | meaning |", "|---|---|---|"]
    for c in spec.columns:
        meaning = c.meaning.replace("|", "\\|")
        lines.append(f"| `{c.name}` | {c.type} | {meaning} |")
    return lines + [""]


def dataset_card(manifest: dict, stats: dict, jurisdictions_total: int,
                 municipalities_by_uf: dict[str, int]) -> str:
    """README.md of a release."""
    fmt = manifest["format"]
    tables = [t for t in TABLES if t.name in manifest["tables"]]
    norms = stats.get("norms", {"rows": 0})
    docs = stats.get("documents", {"rows": 0})
    ext = stats.get("extractions", {"rows": 0})
    filters = manifest["filters"]
    scope = []
    if filters["uf"]:
        scope.append("UF " + ", ".join(filters["uf"]))
    if filters["jurisdiction"]:
        scope.append("jurisdictions " + ", ".join(str(j) for j in filters["jurisdiction"]))
    title = "br-locleg: Brazilian local legislation" + (f" ({'; '.join(scope)})" if scope
                                                         else "")
    lines = [f"# {title}", ""]
    lines += [
        "The laws, decrees and resolutions of Brazilian municipalities and states as the "
        "br-locleg corpus holds them: one row per **norm** of a jurisdiction (Lei 2.199/2011 "
        "of Juazeiro), whatever sources hold it, with each source's record as provenance; "
        "the documents of each norm (texto integral, anexos) with the SHA-256 of the "
        "original file, how its text was extracted (PDF text layer, OCR with its confidence, "
        "HTML, …), " + ("the text page by page, " if manifest["with_text"] else "")
        + "and the citations between norms read from their texts.", "",
        f"- made {manifest['created_at']} by br-locleg {manifest['locleg_version']} from a "
        f"corpus on {manifest['corpus']['database']} (schema "
        f"{', '.join(manifest['corpus']['schema'])})",
        f"- format: {fmt}" + (" (zstd-compressed Parquet, hive-partitioned by UF)"
                              if fmt == "parquet" else " (gzip-compressed, one folder per UF)"),
        "- text: " + ("included (`texts/`)" if manifest["with_text"]
                      else "not included (made without --with-text)"),
    ]
    if filters["since"]:
        lines.append(f"- **incremental**: only the norms that changed at or after "
                     f"{filters['since']} (their fields, records, documents, texts or "
                     "readings), each with all its rows; apply it over an earlier release by "
                     "replacing the rows of these `norm_id`s, and drop the ids in `merges/`.")
    lines += ["", "## Contents", "", "| table | rows |", "|---|---:|"]
    for t in tables:
        lines.append(f"| `{t.name}/` | {_n(manifest['tables'][t.name]['rows'])} |")
    lines += ["", "## Counts per UF", "",
              "| UF | norms | municipalities with norms | documents | extractions |",
              "|---|---:|---:|---:|---:|"]
    by_code = norms.get("by_jurisdiction", {})
    covered = Counter(v["uf"] for k, v in by_code.items() if len(k) == 7)
    for uf in sorted(norms.get("by_uf", {})):
        lines.append(f"| {uf} | {_n(norms['by_uf'][uf])} | {covered.get(uf, 0):,} of "
                     f"{municipalities_by_uf.get(uf, 0):,} | "
                     f"{_n(docs.get('by_uf', {}).get(uf, 0))} | "
                     f"{_n(ext.get('by_uf', {}).get(uf, 0))} |")
    lines += ["", "## Counts per jurisdiction", "", "<details><summary>"
              f"{len(by_code):,} jurisdictions</summary>", "",
              "| IBGE | jurisdiction | UF | norms |", "|---|---|---|---:|"]
    for code, v in sorted(by_code.items(), key=lambda kv: (kv[1]["uf"], kv[1]["name"])):
        lines.append(f"| {code} | {v['name']} | {v['uf']} | {_n(v['norms'])} |")
    lines += ["", "</details>", ""]
    status = ext.get("status", {})
    methods = ext.get("method", {})
    with_text = sum(methods.get(m, 0) for m in methods if m != "null")
    ocred = sum(methods.get(m, 0) for m in OCR_METHODS)
    lines += [
        "## Coverage", "",
        f"- {_n(norms['rows'])} norms of {len(by_code):,} jurisdictions (of "
        f"{jurisdictions_total:,}: 5,570 municipalities and 27 federative units)"
        + (f", signed {norms['year_min']}–{norms['year_max']}" if norms.get("year_min")
           else "") + f"; {_n(norms.get('removed', 0))} removed at their source (kept, with "
        "`removed_at`)",
        f"- {_n(docs['rows'])} documents, {_n(docs.get('fetched', 0))} of them fetched "
        f"({docs.get('bytes', 0) / 1e6:,.1f} MB of originals, not included: each row names "
        "its original by URL and SHA-256)",
        "- legal status: " + ", ".join(f"{k} {_n(v)}" for k, v in
                                       sorted(norms.get("status", {}).items())),
        "",
        "## Extraction quality", "",
        "- extraction status of the current versions: " + ", ".join(
            f"{s} {_n(status.get(s, 0))}" for s in ("extracted", "empty", "failed", "pending")),
        f"- share OCRed: {_share(ocred, with_text)} of the documents with text "
        f"({_n(ocred)} of {_n(with_text)}: method `ocr` or `mixed`)",
        "- methods: " + ", ".join(f"{k} {_n(v)}" for k, v in sorted(methods.items())
                                  if k != "null"),
        f"- pages read: {_n(ext.get('pages', 0))}",
        "", "OCR confidence (0..1, tesseract's mean word confidence) of the documents that "
        "have one:", "", "| confidence | documents |", "|---|---:|",
    ]
    deciles = ext.get("confidence_deciles", {})
    for d in range(10):
        lines.append(f"| {d / 10:.1f}–{(d + 1) / 10:.1f} | {_n(deciles.get(str(d), 0))} |")
    lines += ["", "Read a low confidence as a warning: the text may hold misread words; the "
              "original (by its URL and SHA-256) is the reference.", "",
              "## Schema", "",
              "Ids join the tables: `records.norm_id` and `documents.norm_id` → "
              "`norms.norm_id`, `documents.record_id` → `records.record_id`, "
              "`extractions.version_id` = `documents.current_version_id`, `texts.version_id` "
              "→ `extractions.version_id`, `citations.from_norm_id` / `to_norm_id` → "
              "`norms.norm_id`. Times are UTC; dates `YYYY-MM-DD`; JSON columns hold JSON "
              "text. " + ("In Parquet, `uf` is the partition folder (`uf=BA/`), not a column "
                          "of the files: DuckDB and pyarrow add it from the path." if
                          fmt == "parquet" else _VALUES[fmt]), ""]
    for t in tables:
        lines += _schema_section(t)
    lines += [
        "## Licence", "",
        "Brazilian norms are not protected by copyright: *não são objeto de proteção como "
        "direitos autorais … os textos de tratados ou convenções, leis, decretos, "
        "regulamentos, decisões judiciais e demais atos oficiais* (Lei nº 9.610/1998, "
        "art. 8º, IV). The texts here are those official acts as extracted from the "
        "publishers' files; the selection, metadata and extraction records are published "
        "by br-locleg as open data. Check the original (URL, SHA-256) before relying on a "
        "text: extraction, OCR above all, can misread.", "",
        "## Loading it", "",
    ]
    lines += _loading(fmt, manifest["with_text"])
    lines += ["", "## Checking it", "", "```sh", "sha256sum -c SHA256SUMS", "```", "",
              "`manifest.json` names the corpus state the release came from, the options it "
              "was made with, and every file with its rows, size and SHA-256.", ""]
    return "\n".join(lines)


def _loading(fmt: str, with_text: bool) -> list[str]:
    if fmt == "parquet":
        return [
            "pandas (pyarrow):", "", "```python", "import pandas as pd",
            "norms = pd.read_parquet(\"norms\")                       # uf from the folders",
            "ba = pd.read_parquet(\"norms\", filters=[(\"uf\", \"=\", \"BA\")])  # one UF only",
            "```", "", "DuckDB:", "", "```sql",
            "SELECT uf, count(*) FROM read_parquet('norms/**/*.parquet', hive_partitioning=1)",
            "GROUP BY uf ORDER BY 2 DESC;",
            "SELECT n.ementa, d.url FROM read_parquet('norms/**/*.parquet', hive_partitioning=1) n",
            "JOIN read_parquet('documents/**/*.parquet', hive_partitioning=1) d USING (norm_id);",
            "```", "", "Hugging Face `datasets` (the UF is not a column there; pick files by "
            "folder):", "", "```python", "from datasets import load_dataset",
            "norms = load_dataset(\"parquet\", data_files=\"norms/**/*.parquet\", split=\"train\")",
            "ba = load_dataset(\"parquet\", data_files={\"BA\": \"norms/uf=BA/*.parquet\"})",
            "```"] + (["", "Texts: `pd.read_parquet(\"texts\", columns=[\"norm_id\", \"page\", "
                       "\"text\"])`; a norm's full text is its pages in order."]
                      if with_text else [])
    suffix = "jsonl.gz" if fmt == "jsonl" else "csv.gz"
    if fmt == "jsonl":
        pandas = ["import glob, pandas as pd",
                  "norms = pd.concat(pd.read_json(f, lines=True, dtype={\"number\": str})",
                  "                  for f in sorted(glob.glob(\"norms/*/*.jsonl.gz\")))"]
        duck = "SELECT uf, count(*) FROM read_json('norms/*/*.jsonl.gz') GROUP BY uf;"
        hf = "load_dataset(\"json\", data_files=\"norms/*/*.jsonl.gz\", split=\"train\")"
    else:
        pandas = ["import glob, pandas as pd",
                  "norms = pd.concat(pd.read_csv(f, dtype={\"number\": str})",
                  "                  for f in sorted(glob.glob(\"norms/*/*.csv.gz\")))"]
        duck = "SELECT uf, count(*) FROM read_csv('norms/*/*.csv.gz') GROUP BY uf;"
        hf = "load_dataset(\"csv\", data_files=\"norms/*/*.csv.gz\", split=\"train\")"
    return ["pandas:", "", "```python", *pandas, "```", "", "DuckDB:", "", "```sql", duck,
            "```", "", "Hugging Face `datasets`:", "", "```python",
            "from datasets import load_dataset", hf, "```", "",
            f"Each file (`<table>/uf=XX/part-NNNNN.{suffix}`) holds the rows of one UF, "
            "with `uf` as a column too."]
