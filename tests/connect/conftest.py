"""Fixtures for the state store tests: worker properties and stores stopped after each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.connect.storage_helpers import worker_props


@pytest.fixture
def props(bootstrap: str, topic_name: str) -> dict[str, Any]:
    """Worker properties with internal topics unique to this test."""
    return worker_props(bootstrap, topic_name)


@pytest.fixture
def started() -> Iterator[Callable[[Any], Any]]:
    """Start a store (or log) now and stop it when the test ends."""
    running: list[Any] = []

    def start(store: Any) -> Any:
        store.start()
        running.append(store)
        return store

    yield start
    for store in reversed(running):
        store.stop()
