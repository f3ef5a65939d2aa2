"""The event loop the broker runs on: uvloop where it is installed, else asyncio's own."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from types import ModuleType
from typing import Any, TypeVar

uvloop: ModuleType | None
try:
    import uvloop
except ImportError:  # pragma: no cover - uvloop is a dependency except on Windows
    uvloop = None

T = TypeVar("T")

__all__ = ["new_event_loop", "run_loop"]


def new_event_loop() -> asyncio.AbstractEventLoop:
    return uvloop.new_event_loop() if uvloop is not None else asyncio.new_event_loop()


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on the broker's loop."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)
