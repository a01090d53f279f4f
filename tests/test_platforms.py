"""Platforms behind one interface: the engine imports none, a platform registered by a test
harvests end to end, `sources add` detects what a site runs, sapl_norm's rows survive as
listed_norm's."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from sqlalchemy import select, text

from locleg.fixtures.harvesting import JUAZEIRO, counts, problems, run
from locleg.fixtures.sapl_server import Camara, SaplServer
from locleg.harvest import frontier, listed, platform
from locleg.harvest.net import normalize_base_url, status_error
from locleg.harvest.platform import TEXTO_INTEGRAL, ListedNorm, NotThisPlatform
from locleg.store import utcnow
from locleg.store.harvest_schema import listed_norm
from locleg.store.schema import document, record, source, version
from tests.conftest import run_cli


def test_the_engine_imports_no_platform():
    """In a fresh interpreter: importing the engine (and running nothing) loads no module of
    the registry; each is imported only when a source of it is harvested."""
    probe = ("import sys, locleg.harvest.engine\n"
             "from locleg.harvest.platform import REGISTRY\n"
             "print('LOADED', sorted(m for m in REGISTRY.values() if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert "LOADED []" in out, out


def test_the_engine_offers_platforms_what_the_interface_names(tmp_path):
    """platform.RunningHarvest is all a platform may use of a run: the engine's Harvest has
    each of its members, with the same parameters, so the interface cannot drift from it."""
    import inspect

    from locleg.corpus import init_corpus
    from locleg.harvest.engine import Harvest
    from locleg.harvest.platform import RunningHarvest

    methods = [n for n, v in vars(RunningHarvest).items()
               if callable(v) and not n.startswith("_")]
    assert {"get", "stream", "db", "problem", "finish_cycle"} <= set(methods)
    for name in methods:
        ours, named = getattr(Harvest, name), getattr(RunningHarvest, name)
        assert list(inspect.signature(ours).parameters) == \
            list(inspect.signature(named).parameters), name
    corpus = init_corpus(tmp_path / "corpus")
    try:
        harvest = Harvest(corpus)
        for name in RunningHarvest.__annotations__:
            assert hasattr(harvest, name), name
    finally:
        corpus.close()


# -- a toy platform, registered by the tests -----------------------------------------------------

PAGE_SIZE = 2


class ToyPublisher:
    """A publisher that lists its norms as JSON pages (`?page=N`, a `next` link) with one text
    file each; robots.txt asks for no delay; the first listing request of a run is answered
    429 with a Retry-After, as busy publishers do."""

    def __init__(self) -> None:
        self.norms = {str(i): {"id": str(i), "numero": str(i), "ano": 2020 + i,
                               "ementa": f"Dispõe sobre o assunto {i}.", "alterado": "v1"}
                      for i in range(1, 6)}
        self.texts = {str(i): f"LEI Nº {i}\nTexto da lei {i}.".encode() for i in self.norms}
        self.broken_pages: set[int] = set()  # answered 404, as a listing that changed shape
        self.busy_once = True
        self.log: list[str] = []
        self.lock = threading.Lock()

    def answer(self, path: str, query: dict) -> tuple[int, dict, bytes]:
        with self.lock:
            self.log.append(path)
            if path == "/robots.txt":
                return 200, {"content-type": "text/plain"}, b"User-agent: *\nDisallow: /admin\n"
            if path == "/lista":
                if self.busy_once:
                    self.busy_once = False
                    return 429, {"retry-after": "1"}, b"slow down"
                page = int(query.get("page", ["1"])[0])
                if page in self.broken_pages:
                    return 404, {"content-type": "text/html"}, b"<html>no such page</html>"
                ids = sorted(self.norms, key=int)
                items = [self.norms[i] for i in ids[(page - 1) * PAGE_SIZE:page * PAGE_SIZE]]
                body = {"itens": [{**n, "arquivo": f"/arquivos/{n['id']}.txt"} for n in items]}
                if page * PAGE_SIZE < len(ids):
                    body["proxima"] = f"/lista?page={page + 1}"
                return 200, {"content-type": "application/json"}, json.dumps(body).encode()
            if path.startswith("/arquivos/"):
                native = path.rsplit("/", 1)[1].removesuffix(".txt")
                if native in self.texts:
                    return 200, {"content-type": "text/plain"}, self.texts[native]
            return 404, {"content-type": "text/plain"}, b"not found"


class ToyServer:
    def __init__(self, publisher: ToyPublisher) -> None:
        publisher_ = publisher

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                parts = urlsplit(self.path)
                status, headers, body = publisher_.answer(parts.path, parse_qs(parts.query))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ToyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Toy:
    """A platform in a few lines: pages of a JSON listing, one file per norm; removals only
    after the last page was read (a complete listing)."""

    name = "toy"
    title = "Toy JSON listing"

    def normalize_url(self, url: str) -> str:
        return normalize_base_url(url)

    async def probe(self, url: str, *, resolver=None, on_wait=None,
                    jurisdiction=None) -> platform.Probe:
        raise NotThisPlatform(f"{url} is no toy")

    def start_cycle(self, conn, ctx, rewrite: bool) -> None:
        frontier.retry_failed(conn, ctx.id)
        now = utcnow().isoformat()
        payload = {"mode": "full" if rewrite else "changes", "cycle": now, "seen_since": now,
                   "listed": [], "closes_cycle": True}
        frontier.enqueue(conn, [listed.chain(ctx, "page", f"{ctx.base_url}/lista?page=1",
                                             payload)])

    async def handle(self, h, ctx, req) -> None:
        fetched = await h.get(ctx, req.url)
        if fetched.status != 200:
            raise status_error(req.url, fetched.status, fetched.headers, fetched.body)
        data = json.loads(fetched.body)
        batch = [ListedNorm(item["id"], {"type_raw": "Lei", "type_normalized": "lei",
                                         "number": item["numero"], "year": item["ano"],
                                         "ementa": item["ementa"],
                                         "url": f"{ctx.base_url}/norma/{item['id']}"},
                            item["alterado"],
                            [(urljoin(ctx.base_url, item["arquivo"]), TEXTO_INTEGRAL)])
                 for item in data["itens"] if not item.get("apagado")]
        # Items the publisher says it deleted (as OAI-PMH's status="deleted").
        deleted = [item["id"] for item in data["itens"] if item.get("apagado")]
        seen_at = datetime.fromisoformat(req.payload["seen_since"])
        ids = req.payload["listed"] + [n.native_id for n in batch]
        nxt = data.get("proxima")

        def write(conn) -> tuple[int, bool]:
            listed.write_listed(conn, h, ctx, batch, seen_at, rewrite=False)
            removed = listed.remove(conn, h, ctx, deleted, seen_at)
            if nxt:
                listed.replace(conn, req, [listed.chain(ctx, "page", urljoin(req.url, nxt),
                                                        {**req.payload, "listed": ids})])
                return removed, False
            removed += listed.close_listing(conn, h, ctx, set(ids), seen_at)
            listed.replace(conn, req, [])
            return removed, True

        removed, last = await h.db(write)
        h.count(ctx, "norms", len(batch))
        h.count(ctx, "removed", removed)
        if last:
            await h.finish_cycle(ctx, req.payload)


PLATFORM = Toy()


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(platform.REGISTRY, "toy", __name__)
    return PLATFORM


def _state(corpus) -> dict:
    with corpus.store.engine.connect() as conn:
        records = {r.native_id: r for r in conn.execute(select(record))}
        docs = conn.execute(select(document.c.url, document.c.role, version.c.sha256)
                            .join(version, version.c.id == document.c.current_version_id)).all()
        kept = {r.native_id: (r.marker, json.loads(r.files))
                for r in conn.execute(select(listed_norm))}
        src = conn.execute(select(source)).mappings().one()
    return {"records": records, "docs": docs, "listed": kept, "source": src}


def test_a_registered_platform_harvests_through_the_engine(corpus, toy):
    publisher = ToyPublisher()
    with ToyServer(publisher) as srv:
        source_id = corpus.store.ensure_source(JUAZEIRO, "toy", srv.url, {"delay": 0})
        report = run(corpus)
        first = _state(corpus)
        assert report.cycles_started == report.cycles_finished == 1 and report.norms == 5
        assert {n: (r.number, r.year, r.ementa) for n, r in first["records"].items()} == {
            str(i): (str(i), 2020 + i, f"Dispõe sobre o assunto {i}.") for i in range(1, 6)}
        # Every listed file fetched through the engine (after the 429's Retry-After).
        assert sorted((url.rsplit("/", 1)[1], role, sha) for url, role, sha in first["docs"]) \
            == [(f"{i}.txt", "texto_integral",
                 hashlib.sha256(publisher.texts[str(i)]).hexdigest()) for i in "12345"]
        assert corpus.blobs.read(first["docs"][0][2]).startswith(b"LEI N")
        assert first["listed"]["2"] == ("v1", [[f"{srv.url}/arquivos/2.txt", "texto_integral"]])
        # The 429 was a pause asked for, waited for, the same request made again: no problem.
        assert report.pauses == 1 and publisher.log[1:3] == ["/lista", "/lista"]
        assert not any("HTTP 429" in p["message"] for p in problems(corpus))

        # Norm 2 leaves the publisher, but page 2 answers 404: the listing is incomplete, so
        # it is not marked removed (norms 4 and 5, now on page 2, are not seen this cycle);
        # norm 3, which the publisher lists as deleted, is.
        del publisher.norms["2"]
        publisher.norms["3"]["apagado"] = True
        publisher.broken_pages = {2}
        publisher.texts["1"] += b" (alterada)"
        publisher.norms["1"]["alterado"] = "v2"
        report = run(corpus, refresh=True)
        cut = _state(corpus)
        assert report.cycles_finished == 1 and report.removed == 1
        assert [n for n, r in sorted(cut["records"].items()) if r.removed_at is not None] \
            == ["3"]
        assert "HTTP 404" in cut["source"]["last_error"]
        assert cut["source"]["last_success_at"] == first["source"]["last_success_at"]
        # Norm 1 changed (its marker): its file asked again, the new bytes a new version.
        assert cut["listed"]["1"][0] == "v2"
        assert len(cut["docs"]) == 5 and counts(corpus)["versions"] == 6
        assert corpus.blobs.read(dict((u.rsplit("/", 1)[1], sha) for u, _, sha
                                      in cut["docs"])["1.txt"]).endswith(b"(alterada)")

        # The listing whole again: now norm 2 is marked removed, never deleted.
        publisher.broken_pages = set()
        report = run(corpus, refresh=True)
        last = _state(corpus)
    assert report.cycles_finished == 1 and report.removed == 1
    assert last["records"]["2"].removed_at is not None
    assert [n for n, r in sorted(last["records"].items()) if r.removed_at is None] == [
        "1", "4", "5"]
    assert len(last["records"]) == 5 and counts(corpus)["versions"] == 6
    assert last["source"]["last_error"] is None and last["source"]["platform"] == "toy"
    assert source_id == last["source"]["id"]


def test_sources_of_no_registered_platform_are_left_alone(corpus, toy):
    """A local folder or dump is a source too, but imported, not harvested."""
    corpus.store.ensure_source(JUAZEIRO, "folder", "/data/juazeiro")
    report = run(corpus)
    assert report.cycles_started == 0 and not report.hosts


# -- sources add: a platform named, or detected ------------------------------------------------


def test_sources_add_detects_a_sapl_and_sources_add_sapl_still_works(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    with SaplServer(Camara.juazeiro(crawl_delay=None)) as srv:
        found = run_cli("sources", "add", srv.url, "-j", str(JUAZEIRO), corpus=folder,
                        check=True)
        assert "Found SAPL 3.1.163-RC20 at " in found.stdout
        assert "(detected)" in found.stdout
        assert "Added source 1 for Juazeiro (BA)" in found.stdout
        named = run_cli("sources", "add", "sapl", srv.url, "-j", str(JUAZEIRO), "--delay", "0",
                        corpus=folder, check=True)
        assert "Already known: source 1" in named.stdout
        assert "(detected)" not in named.stdout
    listing = json.loads(run_cli("sources", "list", "--json", corpus=folder, check=True).stdout)
    assert [(s["platform"], s["version"], s["delay"]) for s in listing] == [
        ("sapl", "3.1.163-RC20", 0)]
    table = run_cli("sources", "list", corpus=folder, check=True).stdout
    assert "sapl" in table


def test_sources_add_says_what_it_tried_on_a_site_it_does_not_know(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    with SaplServer(Camara(kind="other", crawl_delay=None)) as srv:
        result = run_cli("sources", "add", srv.url, "-j", str(JUAZEIRO), corpus=folder)
    assert result.returncode == 2, result.stdout
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "no known platform answers at" in result.stderr
    assert "SAPL 3.1 (REST API): " in result.stderr and "is not a SAPL" in result.stderr
    assert json.loads(run_cli("sources", "list", "--json", corpus=folder,
                              check=True).stdout) == []


def test_sources_add_refuses_an_unknown_platform_name(tmp_path):
    folder = tmp_path / "c"
    run_cli("init", str(folder), check=True)
    result = run_cli("sources", "add", "gopher", "http://x.example", "-j", str(JUAZEIRO),
                     corpus=folder)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "unknown platform 'gopher': one of sapl" in result.stderr


# -- storage: sapl_norm's rows live on as listed_norm's ----------------------------------------


def test_migration_0011_keeps_every_sapl_norm_row(corpus):
    store = corpus.store
    source_id = store.ensure_source(JUAZEIRO, "sapl", "https://sapl.x.ba.leg.br")
    with store.transaction() as conn:
        ids = store.upsert_records(conn, source_id, [
            {"native_id": "1", "jurisdiction_code": JUAZEIRO, "number": "1"},
            {"native_id": "2", "jurisdiction_code": JUAZEIRO, "number": "2"}], utcnow())
    store.downgrade("0010")
    quirky = 'https://sapl.x.ba.leg.br/media/a "b" \\ é.pdf'
    with store.transaction() as conn:
        conn.execute(text("INSERT INTO sapl_norm VALUES (:s, '1', :r, '2020-05-01', :u)"),
                     {"s": source_id, "r": ids["1"], "u": quirky})
        conn.execute(text("INSERT INTO sapl_norm VALUES (:s, '2', :r, NULL, NULL)"),
                     {"s": source_id, "r": ids["2"]})
    store.migrate()
    with store.engine.connect() as conn:
        rows = {r.native_id: (r.record_id, r.marker, json.loads(r.files))
                for r in conn.execute(select(listed_norm))}
    assert rows == {"1": (ids["1"], "2020-05-01", [[quirky, "texto_integral"]]),
                    "2": (ids["2"], None, [])}
    store.downgrade("0010")
    with store.engine.connect() as conn:
        back = sorted(tuple(r) for r in conn.execute(text(
            "SELECT native_id, updated, texto_integral FROM sapl_norm")))
    assert back == [("1", "2020-05-01", quirky), ("2", None, None)]
    store.migrate()
