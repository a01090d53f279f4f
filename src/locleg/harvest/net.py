"""The harvester's HTTP: honest User-Agent, resolver override for tests, SSRF guard, size caps,
a deadline on every whole request.

Every request any command makes (harvest, probes, discover, lexml) goes through `fetch` or
`open_stream`, which follow redirects by hand so that each hop is checked: only http(s), and
never a loopback, private or link-local address, except the source's own host:port when its
base URL is itself local (the fixture server in tests and in the demo). Each request, redirects
and body included, ends within its client's deadline (`make_client`): a server that sends a
byte a second passes every per-read timeout, never the deadline.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import re
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpcore
import httpx

from .. import __version__
from ..errors import UserError

USER_AGENT = f"br-locleg/{__version__} (+https://github.com/br-locleg/br-locleg)"
ROBOTS_AGENT = "br-locleg"
HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "application/json, text/html;q=0.9, */*;q=0.8",
    "Accept-Language": "pt-BR, pt;q=0.9, en;q=0.5",
}
# host=address:port pairs, comma-separated; "*=" makes every other host unresolvable.
RESOLVE_ENV = "LOCLEG_RESOLVE"
MAX_REDIRECTS = 5
_DNS_TTL = 300.0
# A longer Retry-After is read as this: a server's typo must not overflow a date or park a host
# for ever.
MAX_RETRY_AFTER = 30 * 86400.0
_DELTA_SECONDS = re.compile(r"[0-9]{1,15}")
# Seconds a whole request (connection, redirects, headers, body) may take in the commands
# without an option of their own for it: `sources add`, `discover`, `lexml`. Their answers are
# small (a page, a robots.txt); `harvest` has --request-deadline (30 min: originals up to
# 200 MB).
REQUEST_DEADLINE_ENV = "LOCLEG_REQUEST_DEADLINE"
DEFAULT_REQUEST_DEADLINE = 120.0


class FetchError(Exception):
    """A request that did not give a usable answer; `transient` says whether to retry later."""

    def __init__(self, message: str, *, transient: bool, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status
        self.retry_after = retry_after


class Refused(FetchError):
    """A URL or redirect we will not follow (scheme, private address, robots.txt)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=False)


class TooSlow(FetchError):
    """A request that did not end within its deadline (a server trickling its answer)."""

    def __init__(self, url: str, deadline: float) -> None:
        try:
            host = host_key(url)
        except ValueError:
            host = "the server"
        super().__init__(f"{host} answered too slowly: no whole answer within {deadline:g} s "
                         f"(the request's deadline): {url[:200]}", transient=True)
        self.deadline = deadline


def seconds_setting(name: str, default: float) -> float:
    """A duration in seconds from the environment variable `name` (unset: `default`);
    UserError, one line, for anything but a positive number."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise UserError(f"{name}={value!r}: give a number of seconds above 0, e.g. {default:g}")
    return seconds


def request_deadline() -> float:
    """LOCLEG_REQUEST_DEADLINE, else DEFAULT_REQUEST_DEADLINE seconds."""
    return seconds_setting(REQUEST_DEADLINE_ENV, DEFAULT_REQUEST_DEADLINE)


def host_key(url: str) -> str:
    """host[:port] of a URL, lowercase, the port left out when it is the scheme's default.

    An IPv6 literal keeps its brackets, so that the key can be put back into a URL.
    ValueError for a URL without a host or with a port out of range (99999).
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host:
        raise ValueError(f"no host in {url[:200]!r}")
    port = parts.port
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}.get(parts.scheme)
    if port is None or port == default:
        return host
    return f"{host}:{port}"


_URL_BREAKERS = re.compile(r"[\x00-\x20\x7f]")


def http_url(url: object) -> str:
    """The URL if it is one we may follow (http(s), a host, a valid port); else ValueError."""
    if not isinstance(url, str) or not url.strip() or len(url) > 4096:
        raise ValueError("not a URL")
    url = url.strip()
    if _URL_BREAKERS.search(url):
        raise ValueError(f"a URL with spaces or control characters: {url[:200]!r}")
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {url[:200]!r}")
    host_key(url)
    return url


def normalize_base_url(url: str) -> str:
    """A publisher's base URL as a source keeps it: scheme (https when none is given), host
    in lowercase, path without its trailing slash; no query. ValueError when it is not one."""
    url = url.strip()
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 (raises on a port out of range)
    except ValueError:
        raise ValueError(f"not a valid URL (port): {url!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    return urlunsplit((parts.scheme, parts.netloc.lower(), parts.path.rstrip("/"), "", ""))


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    return (parts.hostname or "").lower(), port


def parse_overrides(text: str | None) -> dict[str, tuple[str, int] | None]:
    """'a.leg.br=127.0.0.1:8001,b.leg.br:443=127.0.0.1:8002,*=' as a lookup table."""
    table: dict[str, tuple[str, int] | None] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, _, target = item.partition("=")
        target = target.strip()
        if not target:
            table[name.strip().lower()] = None
            continue
        address, _, port = target.rpartition(":")
        if not address or not port.isdigit():
            raise ValueError(f"bad {RESOLVE_ENV} entry {item!r}: use host=address:port")
        table[name.strip().lower()] = (address.strip("[]"), int(port))
    return table


class Resolver:
    """getaddrinfo with a short cache, and the override table tests use instead of /etc/hosts."""

    def __init__(self, overrides: dict[str, tuple[str, int] | None] | None = None) -> None:
        if overrides is None:
            overrides = parse_overrides(os.environ.get(RESOLVE_ENV))
        self.overrides = overrides
        self._cache: dict[tuple[str, int], tuple[float, list[tuple[str, int]]]] = {}

    async def resolve(self, host: str, port: int) -> list[tuple[str, int]]:
        host = host.lower().strip("[]")
        for key in (f"{host}:{port}", host):
            if key in self.overrides:
                target = self.overrides[key]
                if target is None:
                    raise OSError(f"cannot resolve {host}")
                return [target]
        try:
            ipaddress.ip_address(host)
            return [(host, port)]
        except ValueError:
            pass
        if "*" in self.overrides:
            target = self.overrides["*"]
            if target is None:
                raise OSError(f"cannot resolve {host}")
            return [target]
        cached = self._cache.get((host, port))
        if cached and cached[0] > time.monotonic():
            return cached[1]
        infos = await asyncio.get_running_loop().getaddrinfo(host, port,
                                                              type=socket.SOCK_STREAM)
        found = list(dict.fromkeys((info[4][0], info[4][1]) for info in infos))
        self._cache[(host, port)] = (time.monotonic() + _DNS_TTL, found)
        return found


_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
# IPv6 ranges whose last 32 bits are an IPv4 address the packet reaches: NAT64's well-known
# prefix (RFC 6052), IPv4-translated (RFC 2765, ::ffff:0:a.b.c.d), IPv4-compatible
# (RFC 4291, deprecated; ::1 and :: fall in it and are judged as 0.0.0.x). IPv4-mapped
# (::ffff:a.b.c.d), 6to4 and Teredo are read by the ipaddress module itself.
_LAST_32_BITS_IPV4 = tuple(ipaddress.ip_network(n) for n in (
    "64:ff9b::/96", "::ffff:0:0:0/96", "::/96"))


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address] | None:
    """The IPv4 addresses an IPv6 address leads to (mapped, translated, 6to4, Teredo, NAT64,
    compatible).

    Such an address reaches the IPv4 host inside it, so it is only as public as that host.
    """
    if ip.ipv4_mapped:
        return [ip.ipv4_mapped]
    if ip.sixtofour:
        return [ip.sixtofour]
    if ip.teredo:
        return list(ip.teredo)
    if any(ip in network for network in _LAST_32_BITS_IPV4):
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return None


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _NAT64_LOCAL:
            return False  # a network's own translator: what lies behind is not ours to know
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return all(v4.is_global and not v4.is_multicast for v4 in embedded)
    return ip.is_global and not ip.is_multicast


class Guard:
    """Which URLs a source may make us fetch; built from the source's own base URL."""

    def __init__(self, base_url: str, resolver: Resolver) -> None:
        self.base_url = base_url
        self.resolver = resolver
        self.own = _host_port(base_url)
        self._own_is_local: bool | None = None

    async def check(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise Refused(f"refused {url[:200]!r}: only http(s) URLs are followed")
        if not parts.hostname:
            raise Refused(f"refused {url[:200]!r}: no host")
        host, port = _host_port(url)
        try:
            addresses = await self.resolver.resolve(host, port)
        except OSError as e:
            raise FetchError(f"cannot resolve {host}: {e}", transient=True) from None
        if all(_is_public(a) for a, _ in addresses):
            return
        if (host, port) == self.own and await self._base_is_local():
            return
        raise Refused(f"refused {url[:200]}: {host} is a loopback, private or link-local "
                      "address")

    async def _base_is_local(self) -> bool:
        if self._own_is_local is None:
            try:
                addresses = await self.resolver.resolve(*self.own)
            except OSError:
                return False
            self._own_is_local = not any(_is_public(a) for a, _ in addresses)
        return self._own_is_local


class _ResolvingBackend(httpcore.AsyncNetworkBackend):
    """Connects to the address our Resolver gives (overrides included); TLS still uses the name."""

    def __init__(self, resolver: Resolver) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._resolver = resolver

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await self._resolver.resolve(host, port)
        except OSError as e:
            raise httpcore.ConnectError(str(e)) from None
        last: Exception | None = None
        for address, target_port in addresses:
            try:
                return await self._inner.connect_tcp(address, target_port, timeout,
                                                     local_address, socket_options)
            except httpcore.ConnectError as e:
                last = e
        raise last or httpcore.ConnectError(f"no address for {host}")

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not used")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class Client(httpx.AsyncClient):
    """An httpx client that knows how long a whole request through it may take."""

    def __init__(self, *args: Any, deadline: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline


def make_client(resolver: Resolver, *, timeout: float = 60.0, max_connections: int = 100,
                ssl_context: Any = None, deadline: float | None = None) -> Client:
    """A client with keep-alive, our resolver and our headers (pass one ssl_context to many).

    `timeout` bounds each network operation (connect, one read); `deadline` each whole
    request made through `open_stream`/`fetch` (default: `request_deadline()`).
    """
    if deadline is None:
        deadline = request_deadline()
    limits = httpx.Limits(max_connections=max_connections,
                          max_keepalive_connections=max_connections, keepalive_expiry=30)
    transport = httpx.AsyncHTTPTransport(limits=limits, verify=ssl_context or True)
    # httpx takes no network backend argument: give its pool one that resolves through ours.
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=ssl_context or httpx.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=_ResolvingBackend(resolver),
    )
    return Client(transport=transport, headers=HEADERS, timeout=httpx.Timeout(timeout),
                  follow_redirects=False, trust_env=False, deadline=deadline)


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After as seconds (delta-seconds or an HTTP date), at most MAX_RETRY_AFTER.

    None when the header is absent or unreadable ("²", "soon", a date beyond the calendar).
    """
    if not value:
        return None
    value = value.strip()
    if _DELTA_SECONDS.fullmatch(value):
        return min(float(value), MAX_RETRY_AFTER)
    try:
        when = parsedate_to_datetime(value)
        seconds = when.timestamp() - time.time()
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    return min(max(0.0, seconds), MAX_RETRY_AFTER)


def _transport_error(url: str, e: Exception) -> FetchError:
    if isinstance(e, httpx.TimeoutException):
        return FetchError(f"timed out: {url}", transient=True)
    if isinstance(e, httpx.RemoteProtocolError):
        return FetchError(f"connection broken mid-response ({e}): {url}", transient=True)
    reason = str(e) or type(e).__name__
    return FetchError(f"network error ({reason}): {url}", transient=True)


@asynccontextmanager
async def open_stream(client: httpx.AsyncClient, url: str, guard: Guard, *,
                      headers: dict[str, str] | None = None, method: str = "GET",
                      form: dict[str, str] | None = None) -> AsyncIterator[httpx.Response]:
    """The response to URL after checked redirects, body not yet read. `form`: fields
    POSTed (an ASP.NET postback); a redirect after it is followed with a GET, as browsers
    do. Everything, the caller's reading of the body included, ends within the client's
    deadline (`Client.deadline`), else TooSlow."""
    deadline = client.deadline if isinstance(client, Client) else None
    # One timer over the whole request: name resolution, each redirect, headers, every read.
    timer = asyncio.timeout(deadline)
    try:
        async with timer, _follow(client, url, guard, headers, method, form) as response:
            yield response
    except TimeoutError:
        if deadline is None or not timer.expired():
            raise
        raise TooSlow(url, deadline) from None


@asynccontextmanager
async def _follow(client: httpx.AsyncClient, url: str, guard: Guard,
                  headers: dict[str, str] | None, method: str,
                  form: dict[str, str] | None) -> AsyncIterator[httpx.Response]:
    if form is not None:
        method = "POST"
    for _ in range(MAX_REDIRECTS + 1):
        await guard.check(url)
        try:
            request = client.build_request(method, url, headers=headers, data=form)
            response = await client.send(request, stream=True)
        except httpx.HTTPError as e:
            raise _transport_error(url, e) from None
        if response.is_redirect and "location" in response.headers:
            await response.aclose()
            url = urljoin(url, response.headers["location"])
            if method == "POST" and response.status_code in (301, 302, 303):
                method, form = "GET", None
            continue
        try:
            yield response
        except httpx.HTTPError as e:
            raise _transport_error(url, e) from None
        finally:
            await response.aclose()
        return
    raise FetchError(f"more than {MAX_REDIRECTS} redirects: {url}", transient=False)


@dataclass
class Fetched:
    url: str  # after redirects
    status: int
    headers: httpx.Headers
    body: bytes


async def read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(f"{response.url}: {int(declared):,} bytes is over the cap of "
                         f"{max_bytes:,} bytes", transient=False)
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(f"{response.url}: more than {max_bytes:,} bytes, over the cap",
                             transient=False)
        chunks.append(chunk)
    return b"".join(chunks)


async def fetch(client: httpx.AsyncClient, url: str, guard: Guard, *, max_bytes: int,
                headers: dict[str, str] | None = None) -> Fetched:
    """GET a whole body (up to max_bytes); any status is returned, the caller judges it."""
    async with open_stream(client, url, guard, headers=headers) as response:
        body = await read_capped(response, max_bytes)
        return Fetched(str(response.url), response.status_code, response.headers, body)


def body_detail(body: bytes) -> str:
    """What a SAPL error body says ({"detail": ...} or {"field": [...]}), briefly."""
    if not body or len(body) > 4096 or body.lstrip()[:1] != b"{":
        return ""
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    if isinstance(data, dict) and isinstance(data.get("detail"), str):
        return data["detail"]
    return json.dumps(data, ensure_ascii=False)[:300]


def status_error(url: str, status: int, headers: httpx.Headers,
                 body: bytes = b"") -> FetchError:
    """The FetchError an unexpected HTTP status stands for."""
    detail = body_detail(body)
    if detail:
        url = f"{detail} {url}"
    retry_after = retry_after_seconds(headers.get("retry-after"))
    if status in (429, 503):
        return FetchError(f"HTTP {status} (asked to slow down"
                          + (f", Retry-After {retry_after:.0f} s" if retry_after else "")
                          + f"): {url}", transient=True, status=status, retry_after=retry_after)
    if status >= 500 or status == 408:
        return FetchError(f"HTTP {status} server error: {url}", transient=True, status=status)
    return FetchError(f"HTTP {status}: {url}", transient=False, status=status)
