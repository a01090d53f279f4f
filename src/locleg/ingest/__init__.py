"""Importing local files (a LAI dump, a folder of PDFs) as records of norms with their documents.

    dump.py  the input read and validated whole: a manifest CSV or a bare folder, files
             opened through no link; plan() rejects a bad manifest before anything is written
    run.py   the import itself (import_path): the plan written in batches, files copied by a
             second process

Nothing is imported here, so a caller of one (an export reading dump.parse_date) loads no more.
"""
