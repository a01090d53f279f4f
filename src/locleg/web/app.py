"""The explorer: a read-only FastAPI app over a corpus, HTML pages with a JSON twin each.

Requests read through their own engine, opened read-only (SQLite `query_only`, PostgreSQL
read-only transactions): no route can write, whatever a bug might try. The only writer in
the process is the optional background refresher that keeps the search index current.
"""

from __future__ import annotations

import logging
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import create_engine, event
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..config import Settings
from ..errors import UserError
from ..originals import open_blobs
from ..search import (
    DEADLINE,
    QueryError,
    SearchCancelled,
    SearchTooCostly,
    pending_changes,
    refresh_index,
)
from ..search.attributes import attributes_for
from ..store import Store
from .data import BadRequest, Moved, NotFound
from .render import error_page, wants_json

HERE = Path(__file__).parent
log = logging.getLogger("locleg.web")

# Security headers on every answer: the pages need nothing from elsewhere and no inline code.
_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def _read_only_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=30000")
    # A modest page cache per connection keeps the server's memory flat under load; the OS
    # page cache does the rest.
    cursor.execute("PRAGMA cache_size=-8000")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _read_only_postgresql(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.autocommit = True
    dbapi_connection.execute("SET default_transaction_read_only = on")
    dbapi_connection.autocommit = False


def read_only_store(database_url: str, folder: Path | None = None) -> Store:
    """A Store whose connections refuse to write: what every request reads through."""
    if database_url.startswith("sqlite"):
        engine = create_engine(database_url, connect_args={"timeout": 30},
                               pool_size=4, max_overflow=4)
        event.listen(engine, "connect", _read_only_sqlite)
    else:
        engine = create_engine(database_url, connect_args={"connect_timeout": 10},
                               pool_pre_ping=True, pool_size=4, max_overflow=4)
        event.listen(engine, "connect", _read_only_postgresql)
    return Store(engine, folder)


class _Refresher(threading.Thread):
    """Brings the index up to date every few seconds while a harvest writes elsewhere."""

    def __init__(self, store: Store, every: float) -> None:
        super().__init__(name="locleg-index-refresher", daemon=True)
        self.store, self.every = store, every
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.every):
            try:
                if pending_changes(self.store):
                    refresh_index(self.store)
            except Exception:  # a busy database now is no reason to stop refreshing later
                log.exception("index refresh failed; trying again in %s s", self.every)


def create_app(settings: Settings, *, refresh_every: float = 0.0,
               refresh_at_start: bool = True, search_deadline: float = DEADLINE
               ) -> JsonSuffix:
    """The explorer for one corpus; refresh_every > 0 keeps the index current meanwhile.
    A search (or each chunk of an export) is stopped after `search_deadline` seconds."""
    # Brings the schema to head once.
    writer = Store.open(settings.database_url, folder=settings.folder)
    if refresh_at_start:
        refresh_index(writer)
    reader = read_only_store(settings.database_url, settings.folder)
    with reader.engine.connect() as conn:  # the first search should not pay for this
        attributes_for(reader.engine).update(conn)
    refresher = _Refresher(writer, refresh_every) if refresh_every > 0 else None

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if refresher:
            refresher.start()
        yield
        if refresher:
            refresher.stopped.set()
            refresher.join(timeout=30)
        reader.close()
        writer.close()

    app = FastAPI(
        title="br-locleg explorer API",
        version=__version__,
        description="Read-only JSON twins of the explorer's pages: add `.json` to any page "
                    "URL or send `Accept: application/json`. Shapes: docs/api.md.",
        lifespan=lifespan,
        docs_url=None, redoc_url=None, openapi_url="/openapi.json",
    )
    app.state.store = reader
    app.state.blobs = open_blobs(settings.originals)
    app.state.settings = settings
    app.state.search_deadline = search_deadline
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    from .views import router

    app.include_router(router)

    app.add_middleware(SecurityHeaders)
    app.add_middleware(HeadAsGet)

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound):
        return error_page(request, 404, str(exc))

    @app.exception_handler(Moved)
    async def moved(request: Request, exc: Moved):
        # Records found to be of one norm: the old page lives on as a lasting redirect.
        suffix = ".json" if wants_json(request) else ""
        return RedirectResponse(f"/norm/{exc.norm_id}{suffix}", status_code=301)

    @app.exception_handler(SearchTooCostly)
    async def too_costly(request: Request, exc: SearchTooCostly):
        # 503: whether a search fits its deadline depends on the server's load and the
        # corpus, not on the form of the request; the message says how to narrow it.
        return error_page(request, 503, str(exc), headers={"Retry-After": "60"})

    @app.exception_handler(SearchCancelled)
    async def cancelled(request: Request, exc: SearchCancelled):
        log.info("%s: the client went away, its search was stopped", request.url.path)
        return Response(status_code=499)  # nginx's "client closed request": nobody reads it

    @app.exception_handler(BadRequest)
    @app.exception_handler(QueryError)
    @app.exception_handler(UserError)
    async def bad_request(request: Request, exc: Exception):
        return error_page(request, 400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}"
                             for e in exc.errors())
        return error_page(request, 400, f"bad parameter: {problems}")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        message = "no such page" if exc.status_code == 404 else str(exc.detail)
        return error_page(request, exc.status_code, message)

    return JsonSuffix(app)


class SecurityHeaders:
    """Security headers on every answer, unless the route set its own (pure ASGI, so that
    a route still sees its client disconnect)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", _CSP)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
            await send(message)

        await self.app(scope, receive, with_headers)


class HeadAsGet:
    """HEAD on every GET route, once for all (FastAPI routes answer only the methods they
    list): the request runs as GET, its headers are answered, its body is not sent."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        started = False

        async def headers_only(message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                await send(message)
                # The whole answer, as far as the client is concerned; a stream that keeps
                # producing (an export) sees its client gone and stops.
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            elif message["type"] != "http.response.body":
                await send(message)

        async def gone_once_answered():
            if started:
                return {"type": "http.disconnect"}
            return await receive()

        await self.app({**scope, "method": "GET"}, gone_once_answered, headers_only)


class JsonSuffix:
    """`/norm/12.json` is `/norm/12` answered as JSON: strip the suffix, remember the wish."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.state = app.state

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            # A release's own files (manifest.json) are downloads, not pages.
            if (path.endswith(".json") and path != "/openapi.json"
                    and not path.startswith("/exports/")):
                stripped = path[: -len(".json")]
                if stripped in ("", "/index"):
                    stripped = "/"
                scope = dict(scope)
                scope["path"] = stripped
                scope["raw_path"] = stripped.encode()
                scope.setdefault("state", {})
                scope["state"] = {**scope["state"], "json": True}
        await self.app(scope, receive, send)
