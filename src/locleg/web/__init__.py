"""The corpus explorer: server-rendered pages, each with a JSON twin (see docs/api.md)."""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # Lazily: the export reads web.links without paying for FastAPI and the templates.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
