"""Bulk releases of the corpus: Parquet, JSON lines or CSV, with a dataset card.

    >>> from locleg.export import export_release, make_options
    >>> options = make_options(corpus, "parquet", ufs=("BA",), with_text=True)
    >>> report = export_release(corpus, Path("exports/2026-12-ba"), options)
    >>> report.tables["norms"]
    1571

The release holds norms/, documents/, extractions/, citations/, merges/ (and texts/ with
text), README.md, manifest.json and SHA256SUMS; docs/exports.md describes it.
`locleg.export.listing` finds the releases of a folder for the explorer.
"""

from .release import ExportOptions, ExportReport, check_folder, export_release, make_options
from .tables import TABLES

__all__ = ["TABLES", "ExportOptions", "ExportReport", "check_folder", "export_release",
           "make_options"]
