"""Database URLs fit to show and to write: passwords masked or dropped (no database code,
so that the CLI's start-up and settings need none)."""

from __future__ import annotations

import re

# user:password@ in the authority (a password holds no / ? #), and a password= parameter.
_USERINFO_PASSWORD = re.compile(r"^([^:/?#]+://[^:/?#@]*):[^/?#]*@")
_QUERY_PASSWORD = re.compile(r"([?&])password=[^&#]*", re.IGNORECASE)


def safe_url(url: str) -> str:
    """A database URL fit for messages and logs: any password masked, even in a bad URL."""
    shown = _QUERY_PASSWORD.sub(r"\1password=***", _USERINFO_PASSWORD.sub(r"\1:***@", url))
    return shown.replace("postgresql+psycopg://", "postgresql://", 1)


def url_without_password(url: str) -> str:
    """The URL with no password at all: what may be written to a file."""
    base, _, query = _USERINFO_PASSWORD.sub(r"\1@", url).partition("?")
    kept = [p for p in query.split("&") if p and not p.lower().startswith("password=")]
    return base + ("?" + "&".join(kept) if kept else "")


def has_password(url: str) -> bool:
    return url_without_password(url) != url
