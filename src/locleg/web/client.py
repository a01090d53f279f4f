"""Search work done for one client in worker threads, stopped when that client goes away.

A search runs in a thread under a Budget (the app's deadline); meanwhile the event loop
watches the connection, and a closed tab cancels the budget, which stops the database work
at once instead of finishing an answer nobody reads.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import TypeVar

import anyio
from fastapi import Request

from ..search import Budget

T = TypeVar("T")
_WATCH_EVERY = 0.1  # seconds between two looks at the connection


def budget_for(request: Request) -> Budget:
    return Budget(request.app.state.search_deadline)


async def run_for(request: Request, work: Callable[[Budget], T],
                  budget: Budget | None = None) -> T:
    """`work(budget)` in a worker thread; the budget is cancelled if the client leaves."""
    budget = budget or budget_for(request)
    error: Exception | None = None
    async with anyio.create_task_group() as tasks:

        async def watch() -> None:
            while not await request.is_disconnected():
                await anyio.sleep(_WATCH_EVERY)
            budget.cancel()

        tasks.start_soon(watch)
        try:
            value = await anyio.to_thread.run_sync(work, budget)
        except Exception as e:  # raised below, out of the task group and as itself
            error = e
        tasks.cancel_scope.cancel()
    if error is not None:
        raise error
    return value


async def stream_for(lines: Iterator[str], first: str | None, budget: Budget
                     ) -> AsyncIterator[str]:
    """The rest of an export, each piece pulled in a worker thread; when the response is
    abandoned (the client left), the budget is cancelled and the database work stops."""
    finished = False
    try:
        if first is not None:
            yield first
        while True:
            # Abandoned on cancellation: the thread then stops by itself, at the budget.
            piece = await anyio.to_thread.run_sync(next, lines, None, abandon_on_cancel=True)
            if piece is None:
                finished = True
                return
            yield piece
    finally:
        if not finished:
            budget.cancel()
