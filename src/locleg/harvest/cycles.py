"""Harvest cycles: which sources are due, a cycle started and finished, what a run records.

Each source is harvested in cycles (by default one a day). A run loads the sources of
registered platforms, starts a cycle for each that is due (its platform queues the head of
the chain, and a share of its files is queued for revalidation), and the last step of the
chain finishes it: the run recorded on the source, the next cycle due after its interval.
Removals are the platform's (listed.close_listing), made when it knew its listing complete.
What the run did is tallied in a `HarvestReport`.

`Cycles` is a part of `engine.Harvest`: it uses the harvest's `db`, `hosts` and progress.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from ..store import utcnow
from ..store.schema import source
from . import frontier, platform, revalidate
from .frontier import aware
from .net import Guard, host_key
from .platform import SourceContext
from .politeness import HostState


@dataclass
class HarvestReport:
    hosts: dict[str, HostState] = field(default_factory=dict)
    cycles_started: int = 0
    cycles_finished: int = 0
    removed: int = 0
    new_versions: int = 0
    pending: int = 0
    failed: int = 0
    next_request_at: datetime | None = None
    stopped_by_deadline: bool = False
    revalidations: int = 0  # files queued to be confirmed at their source
    confirmed: int = 0  # files whose source confirmed the stored bytes (304, same sha256)
    not_due: list[dict] = field(default_factory=list)  # {id, base_url, next_due_at}

    @property
    def norms(self) -> int:
        return sum(h.norms for h in self.hosts.values())

    @property
    def files(self) -> int:
        return sum(h.files for h in self.hosts.values())

    @property
    def errors(self) -> int:
        return sum(h.errors for h in self.hosts.values())

    @property
    def pauses(self) -> int:
        return sum(h.pauses for h in self.hosts.values())

    @property
    def parked(self) -> list[HostState]:
        return [h for h in self.hosts.values() if h.parked_until]


class Cycles:
    """The cycles of the sources a run harvests, and the tallies of the run."""

    async def _load_sources(self, source_ids: Iterable[int] | None) -> None:
        wanted = set(source_ids) if source_ids is not None else None
        rows_ = await asyncio.to_thread(self.store.sources)
        now = utcnow()
        for row in rows_:
            # Sources of no registered platform (local folders, dumps) are not harvested.
            if row["platform"] not in platform.REGISTRY or (wanted is not None
                                                             and row["id"] not in wanted):
                continue
            ctx = SourceContext(row["id"], row["base_url"], row["jurisdiction_code"],
                                json.loads(row["settings"] or "{}"),
                                json.loads(row["state"] or "{}"),
                                Guard(row["base_url"], self.resolver),
                                platform.get(row["platform"]))
            self.sources[ctx.id] = ctx
            self._source_hosts.setdefault(host_key(ctx.base_url), []).append(ctx.id)
            next_due = aware(row["next_due_at"])
            due = self.config.refresh or self.config.full or next_due is None or next_due <= now
            if not due:
                self.report.not_due.append({"id": ctx.id, "base_url": ctx.base_url,
                                            "next_due_at": next_due})
                continue
            rewrite = self._rewrite(ctx, now)

            def seed(conn: Connection, ctx=ctx, rewrite=rewrite) -> int | None:
                # Harvesters started together: one starts the cycle, the others wait for its
                # commit here and find the cycle begun (or the source no longer due).
                due_at = aware(conn.scalar(select(source.c.next_due_at)
                                           .where(source.c.id == ctx.id).with_for_update()))
                if not (self.config.refresh or self.config.full or due_at is None
                        or due_at <= utcnow()):
                    return None
                if frontier.has_pending_chain(conn, ctx.id):
                    return None
                ctx.platform.start_cycle(conn, ctx, rewrite)
                return revalidate.queue(conn, ctx.id, now, days=ctx.revalidate_days(self.config),
                                        interval=ctx.interval(self.config),
                                        everything=self.config.full)

            queued = await self.db(seed)
            if queued is not None:
                self.report.cycles_started += 1
                self.report.revalidations += queued

    def _rewrite(self, ctx: SourceContext, now: datetime) -> bool:
        """Whether this cycle rewrites every row (--full, the first, or a week since the last)."""
        last_full = ctx.state.get("last_full_at")
        return (self.config.full or not last_full
                or now - datetime.fromisoformat(last_full)
                > timedelta(seconds=self.config.full_every))

    async def finish_cycle(self, ctx: SourceContext, payload: dict) -> None:
        """The metadata of a cycle is in: the run record, the next due time.

        `payload` is the cycle's: "cycle" (when it started, ISO), "mode" ("full" when every
        row was rewritten), "complete" (False when a listing was cut short), "seen_since"
        (when its listing began). Removals are the platform's (listed.close_listing), made
        when it knew its listing complete.
        """
        started = datetime.fromisoformat(payload["cycle"])
        complete = payload.get("complete", True)
        full = payload.get("mode") == "full" and complete
        now = utcnow()

        def write(conn: Connection) -> None:
            seen_since = datetime.fromisoformat(payload.get("seen_since") or payload["cycle"])
            values = {"last_listing_at": seen_since.isoformat()}
            if full:
                values["last_full_at"] = values["last_listing_at"]
            self.save_state(conn, ctx, **values)
            error = None if complete else "the last listing was incomplete (see problems)"
            row = {"last_run_at": started, "last_error": error,
                   "next_due_at": now + timedelta(seconds=ctx.interval(self.config))}
            if complete:
                row["last_success_at"] = started
            conn.execute(update(source).where(source.c.id == ctx.id).values(**row))

        await self.db(write)
        self.report.cycles_finished += 1

    def count(self, ctx: SourceContext, what: str, n: int) -> None:
        """A handler's tally: norms listed, norms marked removed."""
        state = self.hosts.get(host_key(ctx.base_url))
        if state is not None and what == "norms":
            state.norms += n
        elif what == "removed":
            self.report.removed += n
        self._progress()

    def save_state(self, conn: Connection, ctx: SourceContext, **values: Any) -> None:
        ctx.state.update(values)
        # ASCII JSON: a lone surrogate in a publisher's value stays an escape, never a str
        # the database cannot encode.
        conn.execute(update(source).where(source.c.id == ctx.id)
                     .values(state=json.dumps(ctx.state)))

    async def _summarize(self) -> None:
        def read(conn: Connection) -> None:
            health = frontier.source_health(conn)
            for sid in self.sources:
                entry = health.get(sid, {})
                self.report.pending += entry.get("pending", 0)
                self.report.failed += entry.get("failed", 0)
                nxt = aware(entry.get("next_request_at"))
                if nxt and (self.report.next_request_at is None
                            or nxt < self.report.next_request_at):
                    self.report.next_request_at = nxt

        await self.db(read)
