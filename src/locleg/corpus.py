"""A corpus: its settings, its store and its originals, opened together."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from .blobs import BlobStore
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
from .store import Store
from .store.db import has_password


@dataclass
class Corpus:
    settings: Settings
    store: Store
    blobs: BlobStore

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
    return Corpus(settings, store, BlobStore(settings.originals))


def init_corpus(folder: Path, database_url: str | None = None) -> Corpus:
    """Create the folder, its settings, the schema and the jurisdiction list."""
    url = normalize_database_url(database_url) if database_url else None
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder} exists and is not a folder")
    if url:
        # Check the database answers before leaving a settings file that points at it.
        Store.open(url, migrate=False).close()
    created_folder = not folder.exists()
    settings = write_settings(folder, database_url)
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
    settings.originals.mkdir(parents=True, exist_ok=True)
    return Corpus(settings, store, BlobStore(settings.originals))
