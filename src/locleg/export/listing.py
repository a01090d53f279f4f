"""The releases found in a corpus's exports folder, and the one safe way to name a file of
one for download: only a file its release's SHA256SUMS lists, inside that folder."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .release import PROGRESS

# A release folder's name, and a listed file's path: plain segments, nothing to climb with.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._=~-]{0,199}")
_SUM_LINE = re.compile(r"([0-9a-f]{64})  (\S+)")
MANIFEST_MAX = 32 << 20  # a manifest larger than this is not one we wrote


def _safe_path(path: str) -> bool:
    return all(_SEGMENT.fullmatch(s) and s not in (".", "..") for s in path.split("/"))


def _sums(folder: Path) -> dict[str, str]:
    """path -> sha256, from a release's SHA256SUMS (unsafe or malformed lines ignored)."""
    found = {}
    with open(folder / "SHA256SUMS", encoding="utf-8", errors="replace") as f:
        for line in f:
            match = _SUM_LINE.fullmatch(line.rstrip("\n"))
            if match and _safe_path(match[2]):
                found[match[2]] = match[1]
    return found


def _complete(folder: Path) -> bool:
    return ((folder / "SHA256SUMS").is_file() and (folder / "manifest.json").is_file()
            and not (folder / PROGRESS).exists())


def list_releases(exports: Path) -> dict:
    """{"releases": [complete releases, newest first], "incomplete": [folder names]}."""
    releases, incomplete = [], []
    if not exports.is_dir():
        return {"releases": [], "incomplete": []}
    for folder in sorted(exports.iterdir()):
        if not _NAME.fullmatch(folder.name) or folder.is_symlink() or not folder.is_dir():
            continue
        if not _complete(folder):
            incomplete.append(folder.name)
            continue
        try:
            if (folder / "manifest.json").stat().st_size > MANIFEST_MAX:
                continue
            manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            sums = _sums(folder)
        except (OSError, ValueError):
            incomplete.append(folder.name)
            continue
        files = []
        for path, digest in sums.items():
            target = folder / path
            if target.is_file() and not target.is_symlink():
                files.append({"path": path, "bytes": target.stat().st_size, "sha256": digest,
                              "url": f"/exports/{folder.name}/{path}"})
        sums_file = folder / "SHA256SUMS"
        files.append({"path": "SHA256SUMS", "bytes": sums_file.stat().st_size,
                      "sha256": None, "url": f"/exports/{folder.name}/SHA256SUMS"})
        tables = manifest.get("tables", {}) if isinstance(manifest, dict) else {}
        releases.append({
            "name": folder.name,
            "created_at": manifest.get("created_at"),
            "format": manifest.get("format"),
            "with_text": manifest.get("with_text"),
            "filters": manifest.get("filters"),
            "locleg_version": manifest.get("locleg_version"),
            "tables": {name: t.get("rows") for name, t in tables.items()
                       if isinstance(t, dict)},
            "bytes": sum(f["bytes"] for f in files),
            "readme": f"/exports/{folder.name}/README.md" if "README.md" in sums else None,
            "sha256sums": f"/exports/{folder.name}/SHA256SUMS",
            "files": files,
        })
    releases.sort(key=lambda r: (str(r["created_at"] or ""), r["name"]), reverse=True)
    return {"releases": releases, "incomplete": incomplete}


def release_file(exports: Path, release: str, path: str) -> tuple[Path, str | None] | None:
    """The file to serve and its recorded sha256, or None: the release must be complete and
    the path one its SHA256SUMS lists (or SHA256SUMS itself), inside the exports folder."""
    if not _NAME.fullmatch(release) or not _safe_path(path):
        return None
    folder = exports / release
    if folder.is_symlink() or not folder.is_dir() or not _complete(folder):
        return None
    digest = None
    if path != "SHA256SUMS":
        digest = _sums(folder).get(path)
        if digest is None:
            return None
    target = folder / path
    root = os.path.realpath(exports)
    real = os.path.realpath(target)
    if os.path.commonpath([root, real]) != root or target.is_symlink() or not target.is_file():
        return None
    return Path(real), digest
