"""The broker's background tasks: a task that keeps failing the same way (a flush on a
failing disk, every second) logs one traceback, not one per run, and says when it works."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from seaway.broker.broker import run_every


def test_a_task_failing_the_same_way_logs_once_then_its_recovery(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outcomes = iter([OSError(28, "No space left on device")] * 5 + [None, OSError(5, "I/O")])
    runs: list[object] = []
    done = asyncio.Event()

    def flush() -> None:
        outcome = next(outcomes, None)
        runs.append(outcome)
        if len(runs) == 8:
            done.set()
        if outcome is not None:
            raise outcome

    async def main() -> None:
        task = asyncio.create_task(run_every(0.001, flush))
        await done.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    caplog.set_level(logging.DEBUG, logger="seaway.broker.broker")
    asyncio.run(main())
    logged = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records]
    failed = "Background task flush failed (logged once while it fails the same way)"
    assert logged[:7] == [
        ("ERROR", failed, True),
        *[("DEBUG", "Background task flush failed again: [Errno 28] No space left on device",
           False)] * 4,
        ("INFO", "Background task flush works again", False),
        ("ERROR", failed, True),  # a new failure gets its traceback
    ]  # fmt: skip
