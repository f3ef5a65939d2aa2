"""A herder's shared state built from real, cheap parts: memory stores, the plugin registry
and a worker whose Spark session is never started."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from seaway.connect.runtime.herder_state import HerderState
from seaway.connect.runtime.plugins import Plugins
from seaway.connect.runtime.storage import MemoryConfigStore, MemoryOffsetStore, MemoryStatusStore
from seaway.connect.runtime.worker import Worker
from seaway.connect.runtime.worker_config import WorkerConfig


@pytest.fixture(scope="module")
def plugins() -> Plugins:
    return Plugins()


@pytest.fixture
def herder_state(tmp_path: Path, plugins: Plugins) -> Iterator[HerderState]:
    """A standalone worker's state, stores started."""
    config = WorkerConfig(
        {"spark.checkpoint.dir": str(tmp_path / "checkpoints")}, distributed=False
    )
    state = HerderState(
        Worker(config),
        plugins,
        MemoryConfigStore(),
        MemoryOffsetStore(),
        MemoryStatusStore(),
        worker_id="w1:8083",
    )
    stores = (state.configs, state.statuses, state.offsets)
    for store in stores:
        store.start()
    yield state
    for store in stores:
        store.stop()
