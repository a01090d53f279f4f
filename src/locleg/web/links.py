"""Which addresses from the data may become links, and which may be shown at all.

Data comes from portals and dumps nobody vetted: a norm's URL may be `javascript:…`, and an
import records where its files lay on the importing machine (`/home/…`, `file:///home/…`).
Pages link only http(s) URLs; public answers show a local file only by its path inside the
imported folder, never the machine's own path.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

# Exactly http(s)://host...: browsers drop leading spaces and control characters and ignore
# tabs and line ends inside a scheme, so nothing of the kind is allowed anywhere.
HTTP_URL = re.compile(r"https?://[^\x00-\x20\x7f/\\?#@]+(?:[/?#][^\x00-\x20\x7f]*)?", re.I)


def public_url(value: str | None) -> str | None:
    """The URL when it is a plain http(s) address fit for a link, else None."""
    if not value or not HTTP_URL.fullmatch(value):
        return None
    return value


def _local_path(value: str) -> PurePosixPath | None:
    if value.startswith("/"):
        return PurePosixPath(value)
    parts = urlsplit(value)
    if parts.scheme.lower() == "file" and parts.netloc in ("", "localhost"):
        return PurePosixPath(unquote(parts.path))
    return None


def public_origin(origin: str | None, source_base_url: str | None) -> str | None:
    """Where a version came from, as far as the public may see it: an http(s) URL as is,
    a file of an imported folder as `file:<path inside the folder>`, anything else None."""
    if not origin:
        return None
    if public_url(origin):
        return origin
    path = _local_path(origin)
    folder = _local_path(source_base_url) if source_base_url else None
    if path is None or folder is None or not path.is_relative_to(folder) or path == folder:
        return None
    return "file:" + path.relative_to(folder).as_posix()


def shown_address(value: str | None, gettext=lambda s: s) -> str:
    """An address as a public page may print it: a local path of the importing machine
    becomes "local file imported" and its file name, never the path."""
    if not value:
        return ""
    path = _local_path(value)
    if path is not None and path.is_absolute():
        return f"{gettext('local file imported')}: {path.name}" if path.name else \
            gettext("local file imported")
    if value.lower().startswith("file:"):
        return value[len("file:"):]  # a path inside the imported folder, as recorded
    return value


# A local path inside free text (an error, a problem's message): file:///… or /a/b/c.
_PATH_IN_TEXT = re.compile(r"file://[^\s'\"]+|(?<![\w:/.])/(?:[^\s/'\"]+/)+[^\s/'\"]+")


def public_text(value: str | None, gettext=lambda s: s) -> str:
    """Free text from the data with the importing machine's paths reduced to file names."""
    if not value:
        return value or ""
    return _PATH_IN_TEXT.sub(lambda m: shown_address(m.group(), gettext), value)
