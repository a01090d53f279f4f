"""Find the SAPL instances of a UF: probe sapl.<município>.<uf>.leg.br for each municipality.

There is no public list of SAPL instances; the Interlegis host naming is the list. Each
candidate is tried over https, then http; a host that answers is confirmed to be a SAPL 3.1
(its casalegislativa and norm API) before it is registered as a source. Each probe ends within
the probe's deadline (probing.probe_deadline), each of its requests within the request's: a
host that trickles its answers is reported too slow, and the others go on.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import update

from ..jurisdictions import fold
from ..store import Store, utcnow
from ..store.schema import source
from . import frontier
from .net import Resolver, host_key, make_client
from .platform import Probe
from .probing import Busy, SlowAnswer, Unreachable, within_deadline
from .sapl import NotSapl, probe


def host_label(name: str) -> str:
    """A municipality's name as SAPL hosts write it: 'Feira de Santana' -> feiradesantana."""
    return re.sub(r"[^a-z0-9]", "", fold(name))


def candidates(store: Store, uf: str) -> list[tuple[dict, str]]:
    """(jurisdiction, host) for every municipality of the UF, and the assembleia."""
    uf = uf.strip().upper()
    found = []
    for j in store.jurisdictions(uf=uf):
        if j["level"] == "municipal":
            found.append((j, f"sapl.{host_label(j['name'])}.{uf.lower()}.leg.br"))
        else:
            found.append((j, f"sapl.al.{uf.lower()}.leg.br"))
    return found


@dataclass
class Discovery:
    probed: int = 0
    found: list[dict] = field(default_factory=list)  # {ibge_code, name, base_url, version, new}
    refused: list[tuple[str, str]] = field(default_factory=list)  # (host, why)
    busy: list[tuple[str, str]] = field(default_factory=list)  # answered 429/5xx: try later
    slow: list[tuple[str, str]] = field(default_factory=list)  # past a deadline: try later
    unreachable: int = 0


def register(store: Store, jurisdiction_code: int, found: Probe,
             settings: dict | None = None) -> tuple[int, bool]:
    """The source for a probed publisher (created if new), what the probe found kept in its
    state (a SAPL's version and casa legislativa, ...)."""
    before = {s["id"] for s in store.sources()}
    source_id = store.ensure_source(jurisdiction_code, found.platform, found.base_url, settings)
    with store.transaction() as conn:
        state = json.loads(conn.execute(source.select().where(source.c.id == source_id))
                           .mappings().one()["state"] or "{}")
        state.update({"version": found.version, **found.state})
        values = {"state": json.dumps(state, ensure_ascii=False)}
        if settings is not None:
            values["settings"] = json.dumps(settings)
        conn.execute(update(source).where(source.c.id == source_id).values(**values))
        if found.robots_status is not None:
            # The probe read robots.txt: the first harvest need not ask again today.
            frontier.save_host(conn, host_key(found.base_url), robots_txt=found.robots_txt,
                               robots_status=found.robots_status, robots_fetched_at=utcnow(),
                               crawl_delay=found.crawl_delay)
    return source_id, source_id not in before


async def discover(store: Store, uf: str, *, resolver: Resolver | None = None,
                   concurrency: int = 16, timeout: float = 15.0, dry_run: bool = False,
                   on_probe: Callable[[str, str], None] | None = None) -> Discovery:
    resolver = resolver or Resolver()
    todo = candidates(store, uf)
    report = Discovery(probed=len(todo))
    bound = asyncio.Semaphore(concurrency)
    client = make_client(resolver, timeout=timeout, max_connections=concurrency * 2)

    async def one(jurisdiction: dict, host: str) -> None:
        async with bound:
            outcome = "unreachable"
            for scheme in ("https", "http"):
                url = f"{scheme}://{host}"
                try:
                    found = await within_deadline(probe(url, resolver, timeout, client), url)
                except SlowAnswer as e:
                    report.slow.append((host, str(e)))
                    outcome = "too slow"
                    break
                except Unreachable:
                    continue
                except Busy as e:
                    report.busy.append((host, str(e)))
                    outcome = "busy"
                    break
                except NotSapl as e:
                    report.refused.append((host, str(e)))
                    outcome = "not a SAPL 3.1"
                    break
                new = False
                if not dry_run:
                    _, new = await asyncio.to_thread(register, store,
                                                     jurisdiction["ibge_code"], found)
                report.found.append({"ibge_code": jurisdiction["ibge_code"],
                                     "name": jurisdiction["name"], "base_url": found.base_url,
                                     "version": found.version, "new": new})
                outcome = f"SAPL {found.version or '3.1'}"
                break
            else:
                report.unreachable += 1
            if on_probe:
                on_probe(host, outcome)

    try:
        await asyncio.gather(*(one(j, h) for j, h in todo))
    finally:
        await client.aclose()
    report.found.sort(key=lambda f: f["name"])
    return report
