"""A corpus: its settings, its store and its originals, opened together."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from .config import (
    PASSWORD_HINT,
    SETTINGS_FILE,
    Settings,
    normalize_database_url,
    read_settings,
    write_settings,
)
from .errors import UserError
from .jurisdictions import load_ibge
from .originals import Originals, open_blobs
from .originals.base import is_url
from .store import Store
from .store.db import has_password


@dataclass
class Corpus:
    settings: Settings
    store: Store
    blobs: Originals

    @property
    def folder(self) -> Path:
        return self.settings.folder

    def close(self) -> None:
        self.store.close()


def open_corpus(folder: Path) -> Corpus:
    settings = read_settings(folder)
    try:
        store = Store.open(settings.database_url, folder=settings.folder)
    except UserError as e:
        if "password" in str(e) and not has_password(settings.database_url):
            raise UserError(f"{e} (the password is not kept in {SETTINGS_FILE}: "
                            f"{PASSWORD_HINT})") from None
        raise
    return Corpus(settings, store, open_blobs(settings.originals))


def init_corpus(folder: Path, database_url: str | None = None,
                originals: str | None = None) -> Corpus:
    """Create the folder, its settings, the schema and the jurisdiction list.

    ORIGINALS: an fsspec URL (s3://bucket/prefix) to keep them on object storage, checked
    writable before anything is written; default the corpus's originals/ folder.
    """
    url = normalize_database_url(database_url) if database_url else None
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder} exists and is not a folder")
    if originals:
        if is_url(originals):
            originals = originals.rstrip("/")
        else:
            originals = str(Path(originals.removeprefix("file://")).expanduser().resolve())
        # A missing bucket, bad credentials or no server: one line, and no corpus left behind.
        open_blobs(originals).create()
    if url:
        # Check the database answers before leaving a settings file that points at it.
        Store.open(url, migrate=False).close()
    created_folder = not folder.exists()
    settings = write_settings(folder, database_url, originals)
    if url:
        # The file holds no password; this first session goes on with the one given.
        settings = replace(settings, database_url=url)
    try:
        store = Store.open(settings.database_url, folder=settings.folder)
        store.load_jurisdictions(load_ibge())
    except BaseException:
        # Leave nothing half-made behind: the next init must be able to start afresh.
        (folder / SETTINGS_FILE).unlink(missing_ok=True)
        if created_folder:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    blobs = open_blobs(settings.originals)
    blobs.create()
    return Corpus(settings, store, blobs)
