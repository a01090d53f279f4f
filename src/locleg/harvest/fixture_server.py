"""A SAPL 3.1 look-alike on 127.0.0.1 for tests, benches and the demo, with switchable faults.

It answers as the recorded instance does (reference/sapl-recorded/): the custom pagination
envelope, `get_all=true` as a bare array (streamed), 404 "Página inválida." past the end,
400 for a datetime with `T`, absolute URLs built from the request's Host header, /media
files with Last-Modified and no ETag. One server holds many câmaras, chosen by Host header,
so a resolver override (LOCLEG_RESOLVE) can point many SAPL host names at one port.

    python -m locleg.harvest.fixture_server --port 8765              # Juazeiro, the sample
    python -m locleg.harvest.fixture_server --port 8765 --synthetic 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit
from zoneinfo import ZoneInfo

from . import sample_camara

SAO_PAULO = ZoneInfo("America/Sao_Paulo")
LATEST = "3.1.163-RC20"
FAULT_KINDS = (
    "429", "500", "502", "503", "timeout", "reset", "truncated", "invalid_json", "html200",
    "past_end", "dup_pages", "oversize", "redirect_scheme", "redirect_private", "reject_filter",
    "trickle",
)
_MONTHS = ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto",
           "setembro", "outubro", "novembro", "dezembro")
_MEDIA_TYPES = {".pdf": "application/pdf", ".odt": "application/vnd.oasis.opendocument.text",
                ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml."
                         "document", ".txt": "text/plain", ".doc": "application/msword"}
_DATETIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%d/%m/%Y")
_REASONS = {200: "OK", 206: "Partial Content", 302: "Found", 304: "Not Modified",
            400: "Bad Request", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version.split("-")[0])[:3])


def now_sapl() -> str:
    """A data_ultima_atualizacao value for "now", as SAPL serializes it."""
    return datetime.now(SAO_PAULO).isoformat()


@dataclass
class Fault:
    """A fault: requests whose target matches `path` (regex) get `kind` instead of the answer."""

    kind: str
    path: str = ""
    times: int | None = None  # None: every matching request
    host: str | None = None
    value: float | str | None = None  # Retry-After / sleep seconds / Location / size
    hits: int = 0

    def matches(self, host: str, target: str) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.host and self.host != host:
            return False
        return re.search(self.path, target) is not None


@dataclass
class Camara:
    """One câmara's SAPL: its house, types, norms, anexos, vínculos and files."""

    nome: str = "Câmara Municipal de Juazeiro"
    municipio: str = "Juazeiro"
    uf: str = "BA"
    version: str = LATEST
    kind: str = "sapl31"  # sapl31, sapl25 (Zope, no REST API), other (not a SAPL)
    crawl_delay: float | None = 60
    robots: str | None = None  # a whole robots.txt instead of the default one
    norms: dict[int, dict] = field(default_factory=dict)
    anexos: list[dict] = field(default_factory=list)
    relations: list[dict] = field(default_factory=list)
    types: list[dict] = field(default_factory=lambda: list(sample_camara.TYPES))
    files: dict[str, bytes] = field(default_factory=dict)
    modified: dict[str, datetime] = field(default_factory=dict)
    # How /media is served: Django's static view (Last-Modified only; 304 when the file is
    # not newer than If-Modified-Since), as the recorded instance; or nginx in front of it, as
    # production câmaras (ETag "mtime-size"; 304 only on an exact match of either validator).
    etags: bool = False  # True: nginx
    synthetic: int = 0  # > 0: that many norms made up on the fly, ids 1..N
    files_every: int = 1  # synthetic: every k-th norm has a texto integral (0: none)
    file_size: int = 4096
    synthetic_updated: str = "2025-01-02T10:00:00-03:00"
    # Hostile or broken answers for tests: each row of a table (path, row) -> what to send,
    # and each paginated envelope likewise.
    mangle_row: Callable[[str, dict], Any] | None = None
    mangle_page: Callable[[str, dict], Any] | None = None

    @classmethod
    def juazeiro(cls, **kw) -> Camara:
        """The bundled sample câmara (Lei 2.199/2011 is id 1461)."""
        camara = cls(**kw)
        camara.norms = {n["id"]: n for n in sample_camara.norms()}
        camara.anexos = sample_camara.anexos()
        camara.relations = sample_camara.relations()
        camara.files = dict(sample_camara.files())
        return camara

    @property
    def version_info(self) -> tuple[int, ...]:
        return version_tuple(self.version)

    def mangled(self, path: str, rows: list) -> list:
        if self.mangle_row is None:
            return rows
        return [self.mangle_row(path, row) for row in rows]

    # -- editing, for incremental tests --------------------------------------------------

    def update_norm(self, norm_id: int, **fields) -> None:
        self.norms[norm_id].update(fields, data_ultima_atualizacao=now_sapl())

    def add_norm(self, **fields) -> dict:
        new_id = max(self.norms, default=0) + 1
        norm = {"id": new_id, "numero": str(new_id), "ano": 2026, "data": "2026-11-20",
                "data_publicacao": None, "veiculo_publicacao": "", "ementa": "",
                "indexacao": "", "observacao": "", "timestamp": now_sapl(),
                "data_ultima_atualizacao": now_sapl(), "tipo": 1, "texto_integral": None,
                "assuntos": [], "pagina_inicio_publicacao": None,
                "pagina_fim_publicacao": None, **fields}
        self.norms[new_id] = norm
        return norm

    def set_file(self, path: str, data: bytes, *, keep_modified: bool = False) -> None:
        """Write a file under its URL, replacing what was there (SAPL's storage overwrites).

        keep_modified: the replacement keeps the old date (a copy that preserved the file's
        time, a restore): no conditional request can tell, only the bytes.
        """
        self.files[path] = data
        if not keep_modified:
            # Whole seconds, as file systems and HTTP dates have them; a replacement within the
            # same second as the last write still gets a later date.
            now = datetime.now(UTC).replace(microsecond=0)
            before = self.modified.get(path)
            if before is not None and now <= before:
                now = before.replace(microsecond=0) + timedelta(seconds=1)
            self.modified[path] = now

    def file_path(self, norm: dict) -> str | None:
        if not norm.get("texto_integral"):
            return None
        return f"/media/sapl/public/normajuridica/{norm['ano']}/{norm['id']}/" \
               f"{norm['texto_integral']}"

    # -- the rows as SAPL serializes them ------------------------------------------------

    def norm_ids(self) -> list[int]:
        if self.synthetic:
            return list(range(1, self.synthetic + 1))
        return sorted(self.norms)

    def norm(self, norm_id: int) -> dict | None:
        if self.synthetic:
            return _synthetic_norm(self, norm_id) if 1 <= norm_id <= self.synthetic else None
        return self.norms.get(norm_id)

    def norm_json(self, n: dict, origin: str) -> dict:
        tipo = next((t for t in self.types if t["id"] == n["tipo"]), None)
        path = self.file_path(n)
        return {
            "id": n["id"], "__str__": _norm_str(tipo, n), "metadata": {},
            "texto_integral": origin + path if path else None,
            "numero": n["numero"], "ano": n["ano"], "esfera_federacao": "M", "data": n["data"],
            "data_publicacao": n["data_publicacao"],
            "veiculo_publicacao": n["veiculo_publicacao"],
            "pagina_inicio_publicacao": n["pagina_inicio_publicacao"],
            "pagina_fim_publicacao": n["pagina_fim_publicacao"], "ementa": n["ementa"],
            "indexacao": n["indexacao"], "observacao": n["observacao"], "complemento": False,
            "data_vigencia": None, "timestamp": n["timestamp"],
            "data_ultima_atualizacao": n["data_ultima_atualizacao"], "ip": "",
            "ultima_edicao": None, "tipo": n["tipo"], "materia": None, "orgao": None,
            "user": None, "assuntos": n["assuntos"], "autores": [],
        }

    def synthetic_file(self, path: str) -> bytes | None:
        match = re.fullmatch(r"/media/sapl/public/normajuridica/\d+/(\d+)/norma_\d+\.pdf", path)
        if not match or not self.synthetic or int(match[1]) > self.synthetic:
            return None
        head = f"%PDF-1.4\n% br-locleg synthetic norm {match[1]}\n".encode()
        return head + bytes(max(0, self.file_size - len(head)))


def _synthetic_norm(camara: Camara, i: int) -> dict:
    year = 1990 + i % 35
    every = camara.files_every
    return {
        "id": i, "numero": str(i), "ano": year, "data": f"{year}-{1 + i % 12:02d}-{1 + i % 28:02d}",
        "data_publicacao": None, "veiculo_publicacao": "Diário Oficial do Município",
        "ementa": f"Dispõe sobre a organização do serviço público municipal nº {i} e dá outras "
                  "providências.",
        "indexacao": "", "observacao": "", "timestamp": "2024-05-01T09:15:00-03:00",
        "data_ultima_atualizacao": camara.synthetic_updated,
        "tipo": camara.types[i % len(camara.types)]["id"],
        "texto_integral": f"norma_{i}.pdf" if every and i % every == 0 else None,
        "assuntos": [], "pagina_inicio_publicacao": None, "pagina_fim_publicacao": None,
    }


def _norm_str(tipo: dict | None, n: dict) -> str:
    numero = n["numero"]
    if numero.isdigit():
        numero = f"{int(numero):,}".replace(",", ".")
    when = ""
    if n["data"]:
        d = date.fromisoformat(n["data"])
        when = f"{d.day:02d} de {_MONTHS[d.month - 1]} de {d.year}"
    return f"{tipo['descricao'] if tipo else ''} nº {numero}, de {when}"


def _local_naive(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value).astimezone(SAO_PAULO).replace(tzinfo=None, microsecond=0)


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    stream: AsyncIterator[bytes] | None = None  # chunked when set


_RAW: dict[str, str] = {}
_RAW_TOKEN = re.compile(r'"@@raw:(\d+)@@"')


def raw_json(text: str) -> str:
    """A value to put in a row that is sent as this JSON text, as it is (too deep to dump)."""
    key = str(len(_RAW))
    _RAW[key] = text
    return f"@@raw:{key}@@"


def _dumps(data) -> str:
    # SAPL escapes non-ASCII (UNICODE_JSON off).
    text = json.dumps(data, separators=(",", ":"))
    return _RAW_TOKEN.sub(lambda m: _RAW[m[1]], text) if _RAW else text


def _json(data, status: int = 200) -> Response:
    return Response(status, _dumps(data).encode())


def _html(status: int, text: str) -> Response:
    return Response(status, f"<!DOCTYPE html><html><body>{text}</body></html>".encode(),
                    "text/html; charset=utf-8")


NOT_FOUND = {"detail": "Não encontrado."}
PAGE_INVALID = {"detail": "Página inválida."}


class App:
    """Routing and the SAPL answers; knows nothing of sockets."""

    def __init__(self, camaras: dict[str, Camara]) -> None:
        self.camaras = camaras
        self.default = next(iter(camaras.values()))
        self.faults: list[Fault] = []
        # (monotonic time, host, method, target, status, headers)
        self.log: list[tuple[float, str, str, str, int, dict]] = []
        self._lock = threading.Lock()

    def add_fault(self, kind: str, path: str = "", *, times: int | None = None,
                  host: str | None = None, value: float | str | None = None) -> Fault:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}: one of {', '.join(FAULT_KINDS)}")
        fault = Fault(kind, path, times, host, value)
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self.faults.clear()

    def requests(self, host: str | None = None, path: str = "") -> list[tuple]:
        with self._lock:
            return [r for r in self.log if (host is None or r[1] == host)
                    and re.search(path, r[3])]

    def fault_for(self, host: str, target: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(host, target):
                    fault.hits += 1
                    return fault
        return None

    def record(self, host: str, method: str, target: str, status: int,
               headers: dict | None = None) -> None:
        with self._lock:
            self.log.append((time.monotonic(), host, method, target, status, headers or {}))

    def camara_for(self, host: str) -> Camara:
        return self.camaras.get(host, self.default)

    # -- answers ------------------------------------------------------------------------

    def answer(self, camara: Camara, host_header: str, target: str,
               headers: dict[str, str], fault: Fault | None) -> Response:
        parts = urlsplit(target)
        path = parts.path
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        origin = f"http://{host_header}"
        if camara.kind == "other":
            if path == "/":
                return _html(200, "<h1>Prefeitura Municipal</h1><p>Portal da transparência</p>")
            return _html(404, "<h1>Página não encontrada</h1>")
        if path == "/robots.txt":
            return Response(200, self.robots(camara).encode(), "text/plain")
        if camara.kind == "sapl25":
            if path in ("/", "/sapl", "/sapl/"):
                return _html(200, "<title>SAPL - Sistema de Apoio ao Processo Legislativo</title>"
                                  "<p>SAPL 2.5 - Interlegis</p><a href=\"/sapl/consultas/norma_"
                                  "juridica\">Normas</a>")
            return _html(404, "<h1>Zope: Resource not found</h1>")
        if path.startswith("/media/"):
            return self.media(camara, path, headers, fault)
        norma = re.fullmatch(r"/norma/(\d+)", path)
        if norma:
            n = camara.norm(int(norma[1]))
            if n is None:
                return _html(404, "<h1>Not Found</h1>")
            return _html(200, f"<h1>{_norm_str(None, n)}</h1><p>{n['ementa']}</p>"
                              f"<footer>Release: {camara.version}</footer>")
        if path == "/":
            return _html(200, f"<title>SAPL</title><h1>{camara.nome}</h1>"
                              f"<footer>Release: {camara.version}</footer>")
        if not path.startswith("/api/"):
            return _html(404, "<h1>Not Found</h1>")
        if camara.version_info < (3, 1, 144) and path != "/api/base/casalegislativa/":
            return _html(404, "<h1>Not Found</h1>")
        return self.api(camara, path, params, origin, fault)

    def robots(self, camara: Camara) -> str:
        if camara.robots is not None:
            return camara.robots
        lines = ["User-agent: semrushbot", "Disallow: /", "", "User-agent: Scrapy",
                 "Disallow: /", "", "# Outros crawlers", "User-agent: *"]
        if camara.crawl_delay is not None:
            lines.append(f"Crawl-delay: {camara.crawl_delay:g}")
        lines += ["Disallow: /materia/docacessorio/pdf/*", ""]
        return "\n".join(lines)

    def media(self, camara: Camara, path: str, headers: dict[str, str],
              fault: Fault | None) -> Response:
        if fault and fault.kind == "oversize":
            size = int(fault.value or 300 * 2**20)
            return Response(200, content_type="application/pdf", stream=_zeros(size))
        data = camara.files.get(path)
        if data is None:
            data = camara.synthetic_file(path)
        if data is None:
            return _html(404, "<h1>Not Found</h1>")
        modified = camara.modified.get(path, datetime(2026, 11, 29, 15, 31, 7, tzinfo=UTC))
        last_modified = format_datetime(modified, usegmt=True)
        extra = {"Last-Modified": last_modified}
        since = headers.get("if-modified-since")
        if camara.etags:
            # nginx: ETag from the file's time and size, not its bytes.
            etag = f'"{int(modified.timestamp()):x}-{len(data):x}"'
            extra["ETag"] = etag
            match = headers.get("if-none-match")
            if match is not None:
                if match == etag:
                    return Response(304, headers=extra)
            elif since == last_modified:
                return Response(304, headers=extra)
        elif since:
            try:
                if int(modified.timestamp()) <= parsedate_to_datetime(since).timestamp():
                    return Response(304, headers=extra)
            except (TypeError, ValueError):
                pass
        suffix = path[path.rfind("."):].lower()
        return Response(200, data, _MEDIA_TYPES.get(suffix, "application/octet-stream"), extra)

    def api(self, camara: Camara, path: str, params: dict[str, str], origin: str,
            fault: Fault | None) -> Response:
        if path == "/api/base/casalegislativa/":
            casa = {**sample_camara.CASA, "nome": camara.nome, "municipio": camara.municipio,
                    "uf": camara.uf, "__str__": f"Casa Legislativa de {camara.municipio}"}
            if camara.version_info >= (3, 1, 144):
                casa["version"] = camara.version
            else:
                casa.pop("version")
            return self.paged(path, params, camara.mangled(path, [casa]), origin,
                              camara=camara)
        if path == "/api/norma/tiponormajuridica/":
            rows = [{"id": t["id"], "__str__": t["descricao"], "metadata": {}, **t}
                    for t in camara.types]
            return self.paged(path, params, camara.mangled(path, rows), origin, camara=camara)
        if path == "/api/norma/tipovinculonormajuridica/":
            rows = [{"id": i, "__str__": a, "metadata": {}, "sigla": s, "descricao_ativa": a,
                     "descricao_passiva": p, "revoga_integralmente": r}
                    for i, s, a, p, r in sample_camara.VINCULO_TYPES]
            return self.paged(path, params, camara.mangled(path, rows), origin, camara=camara)
        if path == "/api/norma/anexonormajuridica/":
            rows = []
            for a in camara.anexos:
                n = camara.norm(a["norma"])
                if n is None or ("norma" in params and params["norma"] != str(a["norma"])):
                    continue
                storage = f"sapl/public/anexonormajuridica/{n['ano']}/{a['id']}/{a['file']}"
                rows.append({"id": a["id"], "__str__": f"Anexo: {storage} da norma "
                             f"{_norm_str(None, n)}", "metadata": {},
                             "assunto_anexo": a["assunto_anexo"],
                             "anexo_arquivo": f"{origin}/media/{storage}", "ano": n["ano"],
                             "norma": a["norma"]})
            return self.listing(camara, path, params, camara.mangled(path, rows), origin)
        if path == "/api/norma/normarelacionada/":
            rows = [{"id": r["id"], "__str__": "", "metadata": {}, "resumo": r["resumo"],
                     "norma_principal": r["norma_principal"],
                     "norma_relacionada": r["norma_relacionada"],
                     "tipo_vinculo": r["tipo_vinculo"]} for r in camara.relations]
            return self.listing(camara, path, params, camara.mangled(path, rows), origin)
        detail = re.fullmatch(r"/api/norma/normajuridica/(\d+)/", path)
        if detail:
            n = camara.norm(int(detail[1]))
            return _json(camara.norm_json(n, origin)) if n else _json(NOT_FOUND, 404)
        if path == "/api/norma/normajuridica/":
            return self.norms(camara, path, params, origin, fault)
        return _json(NOT_FOUND, 404)

    def norms(self, camara: Camara, path: str, params: dict[str, str], origin: str,
              fault: Fault | None) -> Response:
        if "ano" in params and not params["ano"].isdigit():
            return _json({"ano": [f"Faça uma escolha válida. {params['ano']} não é uma das "
                                  "escolhas disponíveis."]}, 400)
        order = params.get("o", "-data,-numero")
        if order not in ("id", "-id", "-data,-numero", "data"):
            return Response(500, b"FieldError: Cannot resolve keyword", "text/plain; charset=utf-8")
        ids = camara.norm_ids()
        since_text = params.get("data_ultima_atualizacao__gte")
        lookups = camara.version_info >= (3, 1, 162)
        if since_text is not None and lookups:
            if fault and fault.kind == "reject_filter":
                return _json({"data_ultima_atualizacao__gte": ["Informe uma data/hora válida."]},
                             400)
            since = None
            for fmt in _DATETIME_FORMATS:
                try:
                    since = datetime.strptime(since_text, fmt)
                    break
                except ValueError:
                    continue
            if since is None:
                return _json({"data_ultima_atualizacao__gte": ["Informe uma data/hora válida."]},
                             400)
            if camara.synthetic:
                if _local_naive(camara.synthetic_updated) < since:
                    ids = []
            else:
                ids = [i for i in ids if (_local_naive(
                    camara.norms[i]["data_ultima_atualizacao"]) or datetime.min) >= since]
        if order.startswith("-data"):
            ids = sorted(ids, key=lambda i: camara.norm(i)["data"] or "9999", reverse=True)
        elif order == "-id":
            ids = ids[::-1]

        def rows(chosen: list[int]) -> Iterator[dict]:
            for i in chosen:
                yield from camara.mangled(path, [camara.norm_json(camara.norm(i), origin)])

        if params.get("get_all") == "true" and camara.version_info >= (3, 1, 160):
            return Response(200, stream=_json_array(rows(ids)))
        return self.paged(path, params, ids, origin, rows, fault=fault, camara=camara)

    def listing(self, camara: Camara, path: str, params: dict[str, str], rows: list[dict],
                origin: str) -> Response:
        if params.get("get_all") == "true" and camara.version_info >= (3, 1, 160):
            return _json(rows)
        return self.paged(path, params, rows, origin, camara=camara)

    def paged(self, path: str, params: dict[str, str], items: list, origin: str,
              render=None, fault: Fault | None = None, camara: Camara | None = None
              ) -> Response:
        camara_max = 100
        try:
            size = min(int(params.get("page_size", 10)), camara_max)
            page = int(params.get("page", 1))
        except ValueError:
            return _json(PAGE_INVALID, 404)
        size = max(size, 1)
        total = len(items)
        pages = max(1, -(-total // size))
        if page < 1 or page > pages or (fault and fault.kind == "past_end"):
            return _json(PAGE_INVALID, 404)
        start = (page - 1) * size
        chosen = items[start:start + size]
        if fault and fault.kind == "dup_pages" and page > 1:
            chosen = [items[start - 1], *chosen]  # the previous page's last row, again

        def link(p: int | None) -> str | None:
            if p is None:
                return None
            query = {k: v for k, v in params.items() if k != "page"}
            if p > 1:
                query["page"] = str(p)
            return f"{origin}{path}?{urlencode(sorted(query.items()))}"

        nxt = page + 1 if page < pages else None
        prev = page - 1 if page > 1 else None
        results = list(render(chosen)) if render else chosen
        envelope = {"pagination": {"links": {"next": link(nxt), "previous": link(prev)},
                                   "previous_page": prev, "next_page": nxt,
                                   "start_index": start + 1 if total else 0,
                                   "end_index": start + len(chosen), "total_entries": total,
                                   "total_pages": pages, "page": page},
                    "results": results}
        if camara is not None and camara.mangle_page is not None:
            envelope = camara.mangle_page(path, envelope)
        return _json(envelope)


async def _json_array(rows: Iterator[dict]) -> AsyncIterator[bytes]:
    yield b"["
    buffer, first = [], True
    for row in rows:
        buffer.append(("" if first else ",") + _dumps(row))
        first = False
        if len(buffer) >= 200:
            yield "".join(buffer).encode()
            buffer = []
            await asyncio.sleep(0)
    yield ("".join(buffer) + "]").encode()


async def _trickle(interval: float, total: int = 3600) -> AsyncIterator[bytes]:
    yield b"["
    for _ in range(total):
        await asyncio.sleep(interval)
        yield b" "
    yield b"]"


async def _zeros(size: int) -> AsyncIterator[bytes]:
    chunk = b"%PDF-1.4\n" + bytes(2**16 - 9)
    sent = 0
    while sent < size:
        yield chunk
        sent += len(chunk)


# -- the HTTP/1.1 server --------------------------------------------------------------------


class FixtureServer:
    """The App on a real socket, in a thread of its own (tests) or in the foreground (CLI)."""

    def __init__(self, camaras: dict[str, Camara] | Camara | None = None, *,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        if camaras is None:
            camaras = Camara.juazeiro()
        if isinstance(camaras, Camara):
            camaras = {"127.0.0.1": camaras}
        self.app = App(camaras)
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def resolve_env(self, *hosts: str) -> str:
        """A LOCLEG_RESOLVE value pointing these host names at this server; others unresolvable."""
        names = hosts or tuple(h for h in self.app.camaras if not h[0].isdigit())
        return ",".join([f"{h}={self.host}:{self.port}" for h in names] + ["*="])

    def add_fault(self, *args, **kw) -> Fault:
        return self.app.add_fault(*args, **kw)

    async def serve(self) -> None:
        self._server = await asyncio.start_server(self._connection, self.host, self.port,
                                                  backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]
        self._loop = asyncio.get_running_loop()
        self._ready.set()
        async with self._server:
            await self._server.serve_forever()

    def start(self) -> FixtureServer:
        def run() -> None:
            try:
                asyncio.run(self.serve())
            except asyncio.CancelledError:
                pass

        self._thread = threading.Thread(target=run, name="sapl-fixture", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fixture server did not start")
        return self

    def stop(self) -> None:
        if self._loop and self._server:
            self._loop.call_soon_threadsafe(self._server.close)
        if self._thread:
            self._thread.join(5)

    def __enter__(self) -> FixtureServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ValueError):
            pass
        finally:
            if not writer.is_closing():
                writer.close()

    async def _one_request(self, reader: asyncio.StreamReader,
                           writer: asyncio.StreamWriter) -> bool:
        first = await reader.readexactly(1)
        if first == b"\x16":  # a TLS handshake: this server speaks plain HTTP only
            writer.transport.abort()
            return False
        head = first + await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ")
        except ValueError:
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n")
            return False
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        host_header = headers.get("host", f"{self.host}:{self.port}")
        host = host_header.rsplit(":", 1)[0] if not host_header.startswith("[") else host_header
        app = self.app
        camara = app.camara_for(host)
        fault = app.fault_for(host, target)
        keep_alive = headers.get("connection", "").lower() != "close" and version == "HTTP/1.1"
        if fault and fault.kind == "reset":
            app.record(host, method, target, 0, headers)
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        if fault and fault.kind == "timeout":
            app.record(host, method, target, 0, headers)
            await asyncio.sleep(float(fault.value or 5))
            writer.transport.abort()
            return False
        response = self._faulty(fault) or app.answer(camara, host_header, target, headers, fault)
        app.record(host, method, target, response.status, headers)
        truncate = fault is not None and fault.kind == "truncated"
        await self._send(writer, method, response, keep_alive and not truncate, truncate)
        return keep_alive and not truncate

    @staticmethod
    def _faulty(fault: Fault | None) -> Response | None:
        if fault is None:
            return None
        kind = fault.kind
        if kind in ("429", "503"):
            value = fault.value
            retry = {} if value is None else {
                "Retry-After": f"{value:g}" if isinstance(value, float | int) else str(value)}
            return Response(int(kind), b'{"detail":"Pedido foi limitado."}', headers=retry)
        if kind in ("500", "502"):
            return Response(int(kind), b"<h1>Server Error</h1>", "text/html")
        if kind == "invalid_json":
            return Response(200, b'{"pagination": {"links": {"next": nul')
        if kind == "html200":
            return _html(200, "<h1>Erro</h1><p>Serviço temporariamente indisponível.</p>")
        if kind == "trickle":
            # A server (or a proxy) that sends one byte at a time: each read gets something
            # before any per-operation timeout, the body never ends in useful time.
            return Response(200, stream=_trickle(float(fault.value or 1.0)))
        if kind == "redirect_scheme":
            return Response(302, headers={"Location": str(fault.value or "file:///etc/passwd")})
        if kind == "redirect_private":
            return Response(302, headers={"Location": str(fault.value
                                                          or "http://10.0.0.7/media/x.pdf")})
        return None

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, method: str, response: Response,
                    keep_alive: bool, truncate: bool) -> None:
        status = response.status
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
                 "Server: WSGIServer/0.2 CPython/3.11.7",
                 f"Date: {format_datetime(datetime.now(UTC), usegmt=True)}",
                 "Vary: Accept-Language, Cookie", "Content-Language: pt-br"]
        if status != 304:
            lines.append(f"Content-Type: {response.content_type}")
        lines += [f"{k}: {v}" for k, v in response.headers.items()]
        lines.append("Connection: keep-alive" if keep_alive else "Connection: close")
        if response.stream is not None:
            lines.append("Transfer-Encoding: chunked")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            if method == "HEAD":
                writer.write(b"0\r\n\r\n")
                return
            sent = 0
            async for chunk in response.stream:
                writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                sent += 1
                await writer.drain()
                if truncate and sent >= 2:
                    writer.transport.abort()
                    return
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return
        body = response.body
        lines.append(f"Content-Length: {len(body)}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if method == "HEAD":
            body = b""
        # One write: headers and body in separate segments stall on Nagle + delayed ACK.
        writer.write(head + (body[: len(body) // 2] if truncate else body))
        await writer.drain()
        if truncate:
            writer.transport.abort()


def synthetic_camaras(count: int, norms: int, *, files_every: int = 1, file_size: int = 4096,
                      crawl_delay: float | None = 60) -> dict[str, Camara]:
    """COUNT synthetic câmaras named sapl.sinteticaN.ba.leg.br (N from 1)."""
    return {f"sapl.sintetica{i}.ba.leg.br": Camara(
        nome=f"Câmara Municipal Sintética {i}", municipio=f"Sintética {i}", synthetic=norms,
        files_every=files_every, file_size=file_size, crawl_delay=crawl_delay)
        for i in range(1, count + 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--synthetic", type=int, default=0, metavar="N",
                        help="serve synthetic câmaras of N norms instead of Juazeiro")
    parser.add_argument("--camaras", type=int, default=1, help="how many synthetic câmaras")
    parser.add_argument("--files-every", type=int, default=1,
                        help="synthetic: every k-th norm has a texto integral (0: none)")
    parser.add_argument("--file-size", type=int, default=4096)
    parser.add_argument("--crawl-delay", type=float, default=60,
                        help="Crawl-delay in robots.txt (negative: none)")
    parser.add_argument("--fault", action="append", default=[], metavar="KIND[:PATH[:TIMES]]",
                        help=f"switch a fault on: {', '.join(FAULT_KINDS)}")
    parser.add_argument("--pidfile", metavar="PATH",
                        help="run in the background: return once it listens, its pid in PATH")
    args = parser.parse_args(argv)
    if args.pidfile:
        _background(args, argv if argv is not None else sys.argv[1:])
        return
    delay = None if args.crawl_delay < 0 else args.crawl_delay
    if args.synthetic:
        camaras = synthetic_camaras(args.camaras, args.synthetic, files_every=args.files_every,
                                    file_size=args.file_size, crawl_delay=delay)
        camaras = {"127.0.0.1": next(iter(camaras.values())), **camaras}
    else:
        camaras = {"127.0.0.1": Camara.juazeiro(crawl_delay=delay)}
    server = FixtureServer(camaras, host=args.host, port=args.port)
    for spec in args.fault:
        kind, _, rest = spec.partition(":")
        path, _, times = rest.partition(":")
        server.add_fault(kind, path, times=int(times) if times else None)
    print(f"SAPL fixture server on {server.url} ({len(camaras)} câmara(s))", flush=True)
    try:
        asyncio.run(server.serve())
    except KeyboardInterrupt:
        pass


def _background(args: argparse.Namespace, argv: list[str]) -> None:
    """Start the server as a detached child, wait until it accepts connections, write its pid."""
    rest = [a for i, a in enumerate(argv)
            if a != "--pidfile" and not a.startswith("--pidfile=")
            and not (i > 0 and argv[i - 1] == "--pidfile")]
    child = subprocess.Popen([sys.executable, "-m", "locleg.harvest.fixture_server", *rest],
                             stdout=subprocess.DEVNULL, start_new_session=True)
    for _ in range(200):
        try:
            socket.create_connection((args.host, args.port), timeout=0.2).close()
            break
        except OSError:
            if child.poll() is not None:
                sys.exit(f"the fixture server exited (port {args.port} in use?)")
            time.sleep(0.05)
    else:
        child.kill()
        sys.exit("the fixture server did not start")
    with open(args.pidfile, "w") as f:
        f.write(f"{child.pid}\n")
    print(f"SAPL fixture server on http://{args.host}:{args.port} (pid {child.pid})")


if __name__ == "__main__":
    main()
