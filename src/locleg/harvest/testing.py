"""Helpers the harvest tests and benches share: a source on a fixture server, settings, counts."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select, update

from ..corpus import Corpus
from ..store.harvest_schema import harvest_request, listed_norm, sapl_relation
from ..store.schema import document, norm, problem, record, source, version
from .engine import HarvestConfig, HarvestReport, harvest
from .net import Resolver, parse_overrides

JUAZEIRO = 2918407


def fast_config(**overrides: Any) -> HarvestConfig:
    """Settings for tests: tiny backoff and timeouts, so every retry happens within seconds."""
    # No rolling revalidation unless a test asks: it adds a file request to every cycle.
    values = dict(timeout=2.0, backoff_base=0.05, backoff_max=0.5, max_attempts=4,
                  park_after=50, park_for=3600.0, default_delay=0.0, revalidate_days=0.0)
    values.update(overrides)
    return HarvestConfig(**values)


def add_source(corpus: Corpus, base_url: str, *, jurisdiction: int = JUAZEIRO,
               delay: float | None = 0.0, version: str | None = "3.1.163-RC20") -> int:
    """Register a SAPL source without probing it (tests probe separately)."""
    settings = {"delay": delay} if delay is not None else {}
    source_id = corpus.store.ensure_source(jurisdiction, "sapl", base_url, settings)
    with corpus.store.transaction() as conn:
        conn.execute(update(source).where(source.c.id == source_id)
                     .values(state=json.dumps({"version": version}),
                             settings=json.dumps(settings)))
    return source_id


def run(corpus: Corpus, source_ids: list[int] | None = None, *,
        resolve: str | None = None, max_time: float | None = None,
        **config: Any) -> HarvestReport:
    resolver = Resolver(parse_overrides(resolve)) if resolve is not None else Resolver({})
    return harvest(corpus, source_ids, config=fast_config(**config), max_time=max_time,
                   resolver=resolver)


def counts(corpus: Corpus) -> dict[str, int]:
    """Row counts that a complete harvest determines (for resume and idempotence checks)."""
    tables = {"records": record, "documents": document, "versions": version,
              "listed_norms": listed_norm, "relations": sapl_relation,
              "frontier": harvest_request}
    with corpus.store.engine.connect() as conn:
        found = {name: conn.scalar(select(func.count()).select_from(t))
                 for name, t in tables.items()}
        found["norms"] = conn.scalar(select(func.count()).select_from(norm)
                                     .where(norm.c.merged_into.is_(None)))
        found["removed_norms"] = conn.scalar(select(func.count()).select_from(record)
                                             .where(record.c.removed_at.is_not(None)))
        found["distinct_digests"] = conn.scalar(select(func.count(func.distinct(
            version.c.sha256))))
    return found


def problems(corpus: Corpus) -> list[dict]:
    with corpus.store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(problem).order_by(problem.c.id))
                .mappings()]


def requests_left(corpus: Corpus) -> list[dict]:
    with corpus.store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(select(harvest_request)
                                              .order_by(harvest_request.c.id)).mappings()]
