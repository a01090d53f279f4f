"""Where a corpus lives: its folder, its settings file, its database URL and its originals."""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .dburl import has_password, safe_url, url_without_password
from .errors import NotACorpus, UserError

SETTINGS_FILE = "locleg.toml"
DEFAULT_DB_FILE = "corpus.db"
DEFAULT_ORIGINALS = "originals"
EXPORTS = "exports"  # releases (locleg export) the explorer lists and serves
FORMAT = 1


@dataclass(frozen=True)
class Settings:
    folder: Path
    database_url: str
    # A folder (relative paths are of the corpus folder) or an fsspec URL (s3://bucket/…):
    # originals.open_blobs opens either. A URL is kept without any credential.
    originals: Path | str
    # Built from made-up samples (`python -m locleg.fixtures.samples DIR --corpus C`): the explorer
    # says so on every page and links none of the samples' portal addresses.
    demo: bool = False
    # The dense retrieval stage of search (search/dense.py): `search_dense = true`.
    search_dense: bool = False

    @property
    def exports(self) -> Path:
        """Where the explorer finds releases to list and serve: <corpus>/exports/."""
        return self.folder / EXPORTS

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def corpus_path(explicit: str | os.PathLike | None) -> Path:
    """--corpus, else LOCLEG_CORPUS, else the current folder."""
    chosen = explicit or os.environ.get("LOCLEG_CORPUS") or "."
    return Path(chosen).expanduser().resolve()


def normalize_database_url(url: str) -> str:
    """Accept postgresql:// and postgres:// as users write them; we drive them with psycopg 3."""
    for prefix in ("postgresql://", "postgres://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    if url.startswith(("postgresql+psycopg://", "sqlite:///")):
        return url
    raise UserError(f"unsupported database URL {safe_url(url)!r}: use postgresql://… "
                    "(or leave it out)")


PASSWORD_HINT = ("give the password to every command with LOCLEG_DATABASE_URL=postgresql://"
                 "user:password@host/db, PGPASSWORD or ~/.pgpass")


def write_settings(folder: Path, database_url: str | None,
                   originals: str | None = None) -> Settings:
    """Write locleg.toml; never a password: the file travels with a corpus that is public."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / SETTINGS_FILE
    if target.exists():
        raise UserError(f"{folder} already holds a corpus ({SETTINGS_FILE} exists)")
    lines = [
        "# br-locleg corpus settings",
        f"format = {FORMAT}",
        # TOML basic strings accept JSON's escapes, so json.dumps writes valid values.
        f"database = {json.dumps(url_without_password(database_url or ''))}",
        f"originals = {json.dumps(originals or DEFAULT_ORIGINALS)}",
        "",
    ]
    if database_url and has_password(database_url):
        lines[-1:-1] = [f"# The database password is not kept here: {PASSWORD_HINT}."]
    target.write_text("\n".join(lines), encoding="utf-8")
    return read_settings(folder)


def read_settings(folder: Path) -> Settings:
    target = folder / SETTINGS_FILE
    if not target.is_file():
        raise NotACorpus(
            f"{folder} is not a br-locleg corpus (no {SETTINGS_FILE}); "
            "create one with `locleg init PATH` or pick one with --corpus / LOCLEG_CORPUS"
        )
    try:
        raw = tomllib.loads(target.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{target} is not a readable settings file: {e}") from None
    # LOCLEG_DATABASE_URL keeps a password out of the settings file.
    url = os.environ.get("LOCLEG_DATABASE_URL") or raw.get("database") or ""
    if url:
        url = normalize_database_url(url)
    else:
        url = f"sqlite:///{folder / DEFAULT_DB_FILE}"
    return Settings(folder, url, originals_location(folder, raw.get("originals")),
                    demo=raw.get("demo") is True, search_dense=raw.get("search_dense") is True)


def originals_location(folder: Path, written: str | None) -> Path | str:
    """The originals as the settings name them: a URL as it is, a path under the corpus."""
    written = written or DEFAULT_ORIGINALS
    if "://" in written and not written.startswith("file://"):
        return written
    return folder / written.removeprefix("file://")


def _set_setting(folder: Path, key: str, value: str | bool, note: str | None = None) -> None:
    """Write `key = value` into the settings (and a comment line after it), atomically: a
    crash keeps the old file."""
    target = folder / SETTINGS_FILE
    lines = target.read_text(encoding="utf-8").splitlines()
    line = f"{key} = {json.dumps(value)}"
    found = [i for i, text in enumerate(lines) if text.split("=", 1)[0].strip() == key]
    if found:
        lines[found[0]] = line
    else:
        lines.append(line)
    if note and note not in lines:
        lines.insert(lines.index(line) + 1, note)
    partial = target.with_name(f".{SETTINGS_FILE}.{os.getpid()}")
    with partial.open("w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, target)
    read_settings(folder)  # still a readable settings file


def set_originals(folder: Path, location: str) -> None:
    """Point the settings at another originals store."""
    _set_setting(folder, "originals", location)


def set_search_dense(folder: Path, on: bool) -> None:
    """Turn the dense stage of search (search/dense.py) on or off for this corpus."""
    _set_setting(folder, "search_dense", on)


def mark_demo(folder: Path) -> None:
    """Record in a corpus's settings that it is built from made-up samples."""
    settings = read_settings(folder)
    if settings.demo:
        return
    target = folder / SETTINGS_FILE
    text = target.read_text(encoding="utf-8").rstrip("\n")
    target.write_text(text + "\n# built from made-up samples: a demonstration, not real law\n"
                      "demo = true\n", encoding="utf-8")


def set_database(folder: Path, database_url: str) -> None:
    """Point the settings at another database, never with its password: the file travels
    with a corpus that is public."""
    hint = f"# The database password is not kept here: {PASSWORD_HINT}."
    _set_setting(folder, "database", url_without_password(database_url),
                 hint if has_password(database_url) else None)
