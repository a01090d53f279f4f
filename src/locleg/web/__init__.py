"""The corpus explorer: server-rendered pages, each with a JSON twin (see docs/api.md)."""

from .app import create_app

__all__ = ["create_app"]
